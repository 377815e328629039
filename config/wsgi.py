import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# What start-up loaded (Django, the apps, the URLconf: most of a worker's objects) lives as long
# as the process: out of the cyclic collector's reach, its full passes scan only what requests
# keep, a few ms instead of tens every hundred requests or so (the gc module's advice for servers).
gc.freeze()
