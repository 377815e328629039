"""A real Chromium signs in and sees the dashboard, its activity and the Redis panel."""

from playwright.sync_api import expect

from catalog import keys as catalog_keys
from config import store
from config.activity import Event
from config.redis import client
from tests.base import PASSWORD, BrowserTestCase
from tests.e2e.test_accessibility import AXE, RUN_AXE


class DashboardBrowserTest(BrowserTestCase):
    def test_sign_in_and_see_the_dashboard(self):
        pipe = client().pipeline(transaction=True)
        store.queue_event(
            pipe,
            Event("ann", "created", "catalog", "product", "1", "Noise-cancelling earbuds"),
            catalog_keys.events_of(1),
        )
        pipe.execute()

        self.page.goto(self.url("/"))
        self.page.wait_for_url("**/accounts/login/?next=/")
        self.make_staff("ann")
        self.page.fill("input[name=username]", "ann")
        self.page.fill("input[name=password]", "not the password")
        self.page.click("button[type=submit]")
        self.assertIn("Please enter a correct username and password", self.page.inner_text(".errors"))

        self.page.fill("input[name=username]", "ann")
        self.page.fill("input[name=password]", PASSWORD)
        self.page.click("button[type=submit]")
        self.page.wait_for_url(self.url("/"))

        self.assertEqual(self.page.inner_text("h1"), "Dashboard")
        self.assertIn("ann", self.page.inner_text("#recent-signins"))
        self.assertIn("ann", self.page.inner_text("#most-active"))
        self.assertIn("Noise-cancelling earbuds", self.page.inner_text("#activity"))
        self.page.click("#keyspace summary:has-text('core')")
        self.assertIn("core:{signins}:recent", self.page.inner_text("#keyspace"))

        panel = self.page.locator("#redis-panel")
        self.assertRegex(
            panel.locator("summary").inner_text(),
            r"Redis: 1 round trip for this screen, \+2 for the session · \d+ commands, [\d.]+ ms",  # and its user
        )
        panel.locator("summary").click(position={"x": 6, "y": 10})  # the toggle, not the link beside it
        expect(
            panel.locator("a[href='/keys/?key=core%3A%7Bsignins%7D%3Aevents']").first
        ).to_be_visible()  # loaded on opening
        self.screenshot("dashboard")
        self.assertTrue(panel.locator("a.keys-behind").is_visible())

        self.page.click("text=Sign out")
        self.page.wait_for_url("**/accounts/login/")
        # The sign-in page says so, in a list inside its live region: axe finds nothing serious.
        expect(self.page.locator("[role=status] > ul.messages > li")).to_have_text("ann signed out.")
        self.page.evaluate(AXE)
        self.assertEqual(self.page.evaluate(RUN_AXE), [])
