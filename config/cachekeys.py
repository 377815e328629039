"""Cache key names for django-redis, with session ids kept out of them.

Django's cache session backend names each session's key after the session id, and the session id is
the cookie that signs a user in. Anyone who can list keys (the key browser, the Redis panel, a
MONITOR) would see every live session id. Here a session's key is named after a SHA-256 digest of
its id: the app finds it again from the cookie, a reader of the keyspace cannot turn it back into a
cookie.
"""

import hashlib

from django.contrib.sessions.backends.cache import KEY_PREFIX as SESSION_PREFIX


def make_key(key: str, key_prefix: str, version: int) -> str:
    if key.startswith(SESSION_PREFIX):
        digest = hashlib.sha256(key[len(SESSION_PREFIX) :].encode()).hexdigest()
        key = f"session:{digest}"
    return f"{key_prefix}:{version}:{key}"
