from tests.base import RedisTestCase


class DashboardSmokeTest(RedisTestCase):
    def test_dashboard_renders_with_panel(self):
        with self.assertRoundTrips(1):
            response = self.client.get("/")
        self.assertContains(response, "Recent sign-ins")
        self.assertContains(response, "round trip")
