"""Faults: a slow Redis fails requests cleanly within the socket timeout."""

import threading
from copy import deepcopy

import redis
from django.test import Client, override_settings

from tests.base import RedisTestCase
from tests.core.test_plumbing import ScratchServer


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
                response = browser.get("/")
                self.assertEqual(response.status_code, 503)
                self.assertContains(response, "Redis did not answer within 0.3 s", status_code=503)
                sleeper.join()
                self.assertEqual(browser.get("/").status_code, 200)
