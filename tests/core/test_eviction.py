"""A Redis that may evict keys: /healthz answers 503 naming the policy, every signed-in page shows a
banner, `serve` warns at start. Provoked for real with CONFIG SET on the test Redis, restored after."""

from io import StringIO

from django.test import Client, override_settings

from config import store, trace
from config.management.commands.serve import Command
from config.redis import client
from tests.base import RedisTestCase

SCREENS = ("/", "/catalog/products/", "/school/courses/", "/cms/posts/", "/orgchart/employees/", "/keys/", "/exchange/")


def policy_reads(recorded) -> int:
    """INFO memory commands in a trace: how the policy is read."""
    return sum(1 for trip in recorded.trips() for c in trip.commands if str(c).upper().startswith("INFO MEMORY"))


class EvictionPolicyTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        before = client().config_get("maxmemory-policy")["maxmemory-policy"]
        self.addCleanup(client().config_set, "maxmemory-policy", before)
        self.assertEqual(before, "noeviction")  # the runner's server, as every deployment should be

    def evict(self, policy: str = "allkeys-lru") -> None:
        client().config_set("maxmemory-policy", policy)

    def test_healthz_answers_503_and_names_the_policy_to_anyone(self):
        self.assertEqual(Client().get("/healthz").status_code, 200)
        self.evict()
        response = Client().get("/healthz")
        self.assertEqual(response.status_code, 503)
        self.assertEqual(response.json()["redis"], "up")
        self.assertEqual(response.json()["maxmemory_policy"], "allkeys-lru")
        self.assertIn("noeviction", response.json()["problem"])
        staff = self.client.get("/healthz")
        self.assertEqual(staff.status_code, 503)
        self.assertEqual(staff.json()["maxmemory_policy"], "allkeys-lru")
        self.assertIn("version", staff.json())
        self.evict("noeviction")
        self.assertEqual(Client().get("/healthz").status_code, 200)

    @override_settings(EVICTION_CHECK_SECONDS=0)
    def test_every_page_shows_the_banner_while_redis_may_evict(self):
        for path in SCREENS:
            self.assertEqual(self.client.get(path).status_code, 200, path)
            self.assertNotContains(self.client.get(path), 'id="eviction-banner"')
        self.evict("volatile-ttl")
        for path in SCREENS:
            with self.subTest(path=path):
                self.assertContains(self.client.get(path), 'id="eviction-banner"')
                self.assertContains(self.client.get(path), "<strong>volatile-ttl</strong>")
        self.assertNotContains(Client().get("/accounts/login/"), 'id="eviction-banner"')  # staff only

    def test_the_banner_costs_a_page_no_round_trip_within_the_check_interval(self):
        self.evict()
        store.maxmemory_policy(max_age=0)  # as the first page of the interval would read it
        for pages in (1, 4):
            with trace.recording() as recorded:
                for _ in range(pages):
                    self.assertContains(self.client.get("/"), 'id="eviction-banner"')
            self.assertEqual(policy_reads(recorded), 0, pages)
        with override_settings(EVICTION_CHECK_SECONDS=0), trace.recording() as recorded:  # each read is stale
            for _ in range(4):
                self.client.get("/")
        self.assertEqual(policy_reads(recorded), 4)

    def test_serve_warns_at_start(self):
        command = Command(stdout=StringIO(), stderr=StringIO())
        command.warn_if_evicting()
        self.assertEqual(command.stderr.getvalue(), "")
        self.evict()
        command.warn_if_evicting()
        self.assertIn("maxmemory-policy is allkeys-lru", command.stderr.getvalue())
        self.assertIn("/healthz answers 503", command.stderr.getvalue())
