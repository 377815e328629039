"""In Chromium: every screen under the Content-Security-Policy, with its violation reports
collected, finds none; the behaviour moved out of inline script still works."""

import re

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from playwright.sync_api import expect

from config.redis import raw_client
from tests.base import PASSWORD, BrowserTestCase
from tests.core.test_auth import every_url

COLLECT = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
});
"""


class ContentSecurityPolicyTest(BrowserTestCase):
    def setUp(self):
        super().setUp()
        self.context.add_init_script(COLLECT)
        self.console = []
        self.page.on(
            "console",
            lambda message: self.console.append(message.text) if "Content Security Policy" in message.text else None,
        )

    def violations(self) -> list[str]:
        return self.page.evaluate("window.__violations || []") + self.console

    def visit(self, path: str) -> list[str]:
        self.console.clear()
        self.page.goto(self.url(path))
        self.page.wait_for_load_state("load")
        self.page.wait_for_timeout(100)  # a violation event fires after the blocked load, asynchronously
        return self.violations()

    def test_every_screen_runs_without_a_single_violation(self):
        call_command("seed", verbosity=0)
        raw_client().set("ttl:demo", "1", ex=3600)
        self.page.goto(self.url("/accounts/login/"))
        self.assertEqual(self.violations(), [])
        self.sign_in("root")  # an administrator: every screen, the key browser and the admin

        screens = sorted({path for name, path in every_url() if name not in {"logout", "admin_login", "healthz"}})
        screens += [
            "/keys/?key=ttl:demo",
            "/no/such/page/",
            "/admin/",
            "/admin/auth/user/",
            "/admin/auth/group/",
            "/admin/auth/user/add/",
        ]
        # Only what a browser shows: a route that answers GET with a page (the POST-only ones answer 405).
        checker = Client()
        checker.force_login(get_user_model().objects.get(username="root"))
        screens = [path for path in screens if checker.get(path).status_code in (200, 404)]
        found = {}
        for path in screens:
            with self.subTest(path=path):
                seen = self.visit(path)
                if seen:
                    found[path] = seen
        self.assertEqual(found, {})
        self.assertGreater(len(screens), 20)

    def test_the_ttl_countdown_runs_from_its_static_file(self):
        raw_client().set("ttl:demo", "1", ex=3600)
        self.sign_in("root")
        self.visit("/keys/?key=ttl:demo")
        countdown = self.page.locator("[data-expires-ms]")
        expect(countdown).to_have_text(re.compile(r"^59m \d\ds$"))
        first = countdown.inner_text()
        expect(countdown).not_to_have_text(first, timeout=5_000)  # it ticks
        self.assertEqual(self.violations(), [])

    def test_a_viewers_403_page_is_in_the_layout_without_a_violation(self):
        self.make_staff("vera", role="viewer")
        self.page.goto(self.url("/accounts/login/"))
        self.page.fill("input[name=username]", "vera")
        self.page.fill("input[name=password]", PASSWORD)
        self.page.click("button[type=submit]")
        self.page.wait_for_url(self.url("/"))
        self.assertEqual(self.visit("/keys/"), [])
        expect(self.page.locator("h1")).to_have_text("Not allowed")
        expect(self.page.locator("nav.sidebar")).to_contain_text("Catalog")
        expect(self.page.locator("nav.sidebar")).not_to_contain_text("Key browser")
