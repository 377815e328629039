"""Sessions in Redis through the cache, failing loudly when Redis is down.

Django's cache session store treats any error on load as "no session", which would quietly sign
every user out while Redis is unreachable and show them the login form. Here a connection error
propagates, so the page answers 503 and the user is still signed in once Redis is back.
"""

from django.contrib.sessions.backends.cache import SessionStore as CacheSessionStore


class SessionStore(CacheSessionStore):
    def load(self):
        session_data = self._cache.get(self.cache_key)
        if session_data is not None:
            return session_data
        self._session_key = None
        return {}
