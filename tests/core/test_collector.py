"""The cyclic collector as a served worker has it (config/collector.py): start-up frozen out of
its reach, and the youngest generation collected every few dozen pages, not every few."""

import gc
import os
import shutil
import subprocess
import sys
import tempfile

from django.conf import settings
from django.core.management import call_command
from django.test import SimpleTestCase, tag

from config import collector
from tests.base import RedisTestCase

PAGES = 20


@tag("slow")
class CollectorTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        call_command("seed", "--only", "catalog", verbosity=0)

    def collections_over(self, path: str) -> int:
        """The collections started while ``path`` is fetched PAGES times (after a warm-up)."""
        for _ in range(3):
            self.assertEqual(self.client.get(path).status_code, 200)
        started = []

        def count(phase, info):
            if phase == "start":
                started.append(info["generation"])

        gc.collect()
        gc.callbacks.append(count)
        try:
            for _ in range(PAGES):
                self.client.get(path)
        finally:
            gc.callbacks.remove(count)
        return len(started)

    def test_pages_served_start_no_collection_where_the_default_threshold_starts_several(self):
        path = "/catalog/products/?o=-rating"
        saved = gc.get_threshold()
        try:
            gc.set_threshold(700, *saved[1:])
            self.assertGreaterEqual(self.collections_over(path), 2)
            with collector.serving():
                self.assertEqual(gc.get_threshold()[0], collector.YOUNG)
                self.assertGreater(gc.get_freeze_count(), 0)
                self.assertEqual(self.collections_over(path), 0)
        finally:
            gc.set_threshold(*saved)
        self.assertEqual(gc.get_freeze_count(), 0)  # unfrozen after the block


class WsgiTest(SimpleTestCase):
    def test_the_wsgi_module_tunes_the_collector_once_the_app_is_loaded(self):
        code = "import gc, config.wsgi; print(gc.get_threshold()[0], gc.get_freeze_count() > 1000)"
        # The tests' own Redis and a scratch VAR_DIR: loading the app must start no server in the checkout's var/.
        scratch = tempfile.mkdtemp(prefix="rdash-wsgi-")
        self.addCleanup(shutil.rmtree, scratch, True)
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "REDIS_URL": settings.REDIS_URL}
        env["VAR_DIR"] = scratch
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120
        )
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        self.assertEqual(done.stdout.split(), [str(collector.YOUNG), "True"])
