import os

from django.core.wsgi import get_wsgi_application

from config import collector

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

collector.tune_for_serving()  # once the app is loaded: see config/collector.py
