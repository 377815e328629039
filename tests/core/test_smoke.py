from django.test import tag

from tests.base import RedisTestCase


@tag("cluster")
class DashboardSmokeTest(RedisTestCase):
    def test_dashboard_renders_with_panel(self):
        with self.assertRoundTrips(1):
            response = self.client.get("/")
        self.assertContains(response, "Recent sign-ins")
        self.assertContains(response, "round trip")
