"""The error report's filter: Django's technical 500 page (``make dev``) and the error emails
never show a password written inside a URL.

Django's own filter hides settings whose *names* look secret (``SECRET_KEY``, ``PASSWORD``);
``REDIS_URL``, the cache's ``LOCATION`` and ``DATABASE_URL`` carry the password in their
*value*, as do the process environment (shown as request metadata under runserver) and a
traceback frame's local variables.
"""

from __future__ import annotations

import re

from django.views.debug import SafeExceptionReporterFilter

from config.redis import redacted

# Frame variables hidden whole by their name. Narrower than Django's ``hidden_settings``, whose
# KEY would hide every Redis key name from the page meant to debug them.
_SECRET_NAME = re.compile(r"PASS|PWD|SECRET|TOKEN|AUTH|CREDENTIAL", re.IGNORECASE)
# A URL with credentials: userinfo before an "@", or a password in its query.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
_CREDENTIALS = re.compile(r"@|[?&](password|pass|passwd|pwd|auth|secret|token|requirepass)=", re.IGNORECASE)


def mask_urls(text: str) -> str:
    """``text`` with every URL that carries credentials shown as ``config.redis.redacted`` shows it."""
    if "://" not in text:
        return text
    return _URL.sub(lambda m: redacted(m.group()) if _CREDENTIALS.search(m.group()) else m.group(), text)


class RedactingExceptionReporterFilter(SafeExceptionReporterFilter):
    """Django's filter, through its public hooks: each setting, each request header and
    environment variable (``cleanse_setting``) and each frame variable
    (``get_traceback_frame_variables``) has its URLs masked, in strings, dicts, lists and
    tuples at any depth; a dict entry whose name looks secret is hidden whole, as Django
    hides such settings, and so is a frame variable named like a password or a token."""

    def cleanse_setting(self, key, value):
        return self._masked(super().cleanse_setting(key, value))

    def get_traceback_frame_variables(self, request, tb_frame):
        variables = super().get_traceback_frame_variables(request, tb_frame)
        return [
            (name, self.cleansed_substitute if _SECRET_NAME.search(name) else self._deep(name, value))
            for name, value in variables
        ]

    def _deep(self, name, value):
        if isinstance(value, dict | list | tuple):
            return self.cleanse_setting(name if isinstance(value, dict) else "", value)
        return self._masked(value)

    def _masked(self, value):
        if isinstance(value, str):
            return mask_urls(value)
        if isinstance(value, dict):
            return {k: self._masked(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._masked(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._masked(v) for v in value)
        return value
