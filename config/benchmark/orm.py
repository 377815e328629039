"""A second database alias, ``benchmark``, created for the run and removed after it.

The ORM side's queries name it with ``.using(ALIAS)``, so the project's own
``default`` database (the sign-in records) is never touched.
"""

from __future__ import annotations

from contextlib import contextmanager

from django.db import connections
from django.db.utils import load_backend

ALIAS = "benchmark"


@contextmanager
def database_alias(settings_dict: dict):
    """``connections[ALIAS]`` points at ``settings_dict`` (ENGINE, NAME, HOST ...) inside the block.

    The connection is made here and handed to ``connections`` directly, not
    added to ``settings.DATABASES``: it is the run's own, created at run time
    (Django's test cases allow such connections), and nothing else sees it.
    """
    full = {
        **connections.settings["default"],
        "OPTIONS": {}, "TEST": {}, "CONN_MAX_AGE": 0, "ATOMIC_REQUESTS": False, "AUTOCOMMIT": True,
        "PASSWORD": "", **settings_dict,
    }  # fmt: skip
    connections[ALIAS] = load_backend(full["ENGINE"]).DatabaseWrapper(full, ALIAS)
    try:
        yield ALIAS
    finally:
        connections[ALIAS].close()
        del connections[ALIAS]


def floor(alias: str) -> None:
    """The ORM side's cheapest request: ``SELECT 1`` through Django's cursor."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
