"""The load test's former module: its names now live in ``config.loadtest`` (a package split by concern).

Kept so the apps' ``loadtest.py`` scenario files and older imports
(``from config.loadtesting import Scenario, ids_in, scenario``) keep working.
"""

from config.loadtest import *  # noqa: F403
from config.loadtest import __all__  # noqa: F401
