from django.core.cache import caches
from django.test import tag

from config.keyspace import keyspace
from tests.base import RedisTestCase
from tests.keybrowser.helpers import extra_patterns


@tag("cluster")
class DashboardSmokeTest(RedisTestCase):
    def test_dashboard_renders_with_panel(self):
        with self.assertRoundTrips(1):
            response = self.client.get("/")
        self.assertContains(response, "Recent sign-ins")
        self.assertContains(response, "round trip")


class PatternsFragmentTest(RedisTestCase):
    """The registered key patterns are a template fragment kept in the process: reading it costs no
    Redis round trip, it follows the reader's permission, and a change of the registry."""

    def setUp(self):
        super().setUp()
        caches["fragments"].clear()

    def test_kept_without_a_round_trip_of_its_own(self):
        self.client.get("/")
        with self.assertRoundTrips(3, origin=None):  # the activity, the session, the user: no fragment read
            response = self.client.get("/")
        self.assertContains(response, '<section class="card" id="keyspace">')
        self.assertContains(response, "<code>cms:{cms}:post:*</code>")

    def test_it_follows_the_permission_to_browse_keys(self):
        registry_link = "key browser's registry"
        self.assertContains(self.client.get("/"), registry_link)
        self.client.force_login(self.make_staff("viewer", role="viewer"))
        response = self.client.get("/")
        self.assertContains(response, 'id="keyspace"')
        self.assertNotContains(response, registry_link)

    def test_it_follows_a_change_of_the_registry(self):
        self.assertNotContains(self.client.get("/"), "test:{fragment}:thing:*")
        with extra_patterns():
            keyspace.register("test", "test:{fragment}:thing:*", "hash", "A test pattern", "nothing")
            self.assertContains(self.client.get("/"), "test:{fragment}:thing:*")
        self.assertNotContains(self.client.get("/"), "test:{fragment}:thing:*")
