"""Faults: a slow Redis fails requests cleanly within the socket timeout."""

import threading
import time
from copy import deepcopy

import redis
from django.test import Client, override_settings
from redis.backoff import NoBackoff
from redis.retry import Retry

from tests.base import RedisTestCase
from tests.core.test_plumbing import ScratchServer


def wait_until_stalled(socket):
    """Return once the server stops answering, so the request below surely meets the stall."""
    probe = redis.Redis(unix_socket_path=str(socket), socket_timeout=0.05, retry=Retry(NoBackoff(), 0))
    for _ in range(200):
        try:
            probe.ping()
        except redis.TimeoutError:
            return
        time.sleep(0.005)
    raise AssertionError("DEBUG SLEEP never stalled the server")


class SlowRedisTest(RedisTestCase):
    sign_in = False

    def test_a_stalled_redis_gives_a_503_within_the_socket_timeout(self):
        scratch = ScratchServer()
        self.addCleanup(scratch.close)
        with scratch.settings():
            from django.conf import settings

            caches = deepcopy(settings.CACHES)
            caches["default"]["OPTIONS"]["SOCKET_TIMEOUT"] = 0.3
            with override_settings(REDIS_SOCKET_TIMEOUT=0.3, CACHES=caches):
                browser = Client(raise_request_exception=False)
                browser.force_login(self.make_staff("ann"))
                self.assertEqual(browser.get("/").status_code, 200)

                stall = redis.Redis(unix_socket_path=str(scratch.server.socket))
                sleeper = threading.Thread(target=stall.execute_command, args=("DEBUG", "SLEEP", "1.5"))
                sleeper.start()
                self.addCleanup(sleeper.join)
                wait_until_stalled(scratch.server.socket)
                response = browser.get("/")
                self.assertEqual(response.status_code, 503)
                self.assertContains(response, "Redis did not answer within 0.3 s", status_code=503)
                sleeper.join()
                self.assertEqual(browser.get("/").status_code, 200)


# A write that runs for 0.4 s on the server (a long script), answering after the client gave up.
_SLOW_WRITE = """
redis.call('INCR', KEYS[1])
local t = redis.call('TIME')
local start = tonumber(t[1]) * 1000000 + tonumber(t[2])
repeat
  t = redis.call('TIME')
until tonumber(t[1]) * 1000000 + tonumber(t[2]) - start > 400000
return 1
"""


class TimedOutWriteTest(RedisTestCase):
    sign_in = False

    def test_a_write_that_timed_out_is_not_sent_again(self):
        """The server ran the script but answered after the timeout: a resend would apply it twice."""
        from config.redis import connection_retry

        scratch = ScratchServer()
        self.addCleanup(scratch.close)
        writer = redis.Redis(unix_socket_path=str(scratch.server.socket), socket_timeout=0.2, retry=connection_retry())
        with self.assertRaises(redis.TimeoutError):
            writer.eval(_SLOW_WRITE, 1, "counter")
        settled = redis.Redis(unix_socket_path=str(scratch.server.socket), socket_timeout=5)
        settled.ping()  # answers once the script (and any resent copy queued behind it) has run
        time.sleep(0.1)
        settled.ping()
        self.assertEqual(settled.get("counter"), b"1")
