"""In Chromium: script saved through every form never runs on any page that shows it.

Every text field of every POST form (pages from the resolver, on seeded data)
gets a payload that would set ``window.__xss`` if the page ever treated it as
markup: a script tag and an image with an onerror handler. Then every page
the resolver knows, and the key browser's view of the keys behind them, is
visited; the flag must stay unset everywhere, including on the refused form
that shows the input back.
"""

import sys

from django.core.management import call_command

from config.loadtest import post_forms
from tests.base import BrowserTestCase
from tests.core.test_auth import every_url

SUBMIT = """([action, name, value]) => {
  const form = [...document.forms].find(
    f => f.method === 'post' && new URL(f.action, location.href).pathname === action);
  form.elements[name].value = value;
  form.requestSubmit();
}"""
KEY_PAGES = (
    "/keys/?pattern=cms:*",
    "/keys/?key=cms:{cms}:post:1",
    "/keys/?key=cms:{cms}:post:1:revisions",
    "/keys/?key=cms:{cms}:post:1:comments",
    "/keys/?key=core:{signins}:events",
    "/keys/?pattern=orgchart:*",
    "/keys/?key=orgchart:{orgchart}:employee:1",
    "/keys/?key=orgchart:{orgchart}:location:1",
    "/keys/?pattern=catalog:*",
    "/keys/?key=catalog:{catalog}:product:1",
    "/keys/?key=catalog:{catalog}:product:1:reviews",
    "/keys/?pattern=school:*",
    "/keys/?key=school:{school}:course:1",
    "/keys/?key=school:{school}:student:1",
)


def payload(marker: int) -> str:
    """Short enough for a name field (100 characters), with both quotes to break out of an attribute."""
    return f"<script>__xss={marker}</script><img src=x onerror=__xss={marker}>'\""


class StoredScriptTest(BrowserTestCase):
    def visit(self, path: str) -> bool:
        """Open a page; False for a URL that is no page to show (POST-only, a 404), asked first
        over the context's own session so that Chromium never lands on an error page."""
        probe = self.page.request.get(self.url(path), max_redirects=0)
        if probe.status != 200 or "text/html" not in probe.headers.get("content-type", ""):
            return False
        response = self.page.goto(self.url(path))
        return response is not None and response.status == 200

    def ran(self) -> str | None:
        return self.page.evaluate("window.__xss || null")

    def test_script_saved_through_every_form_never_runs_on_any_page(self):
        call_command("seed", verbosity=0)
        self.sign_in()
        page = self.page
        pages = sorted({path for _, path in every_url()})
        submitted, saved = 0, 0
        for path in pages:
            if "delete" in path or path.startswith("/accounts/"):
                continue  # deleting shows nothing back; signing out ends the test
            if not self.visit(path):
                continue
            for form in post_forms(page.content(), path):
                if not form.text_fields or "delete" in form.action or form.action.startswith("/accounts/"):
                    continue
                for name in form.text_fields:
                    page.goto(self.url(path))
                    marker = submitted + 1
                    with page.expect_navigation():
                        page.evaluate(SUBMIT, [form.action, name, payload(marker)])
                    submitted += 1
                    saved += page.locator(".message.success").count() > 0
                    with self.subTest(form=form.action, field=name):
                        self.assertIsNone(self.ran(), f"the payload in {name} ran on {page.url}")
        self.assertGreaterEqual(submitted, 8)
        self.assertGreaterEqual(saved, 5, "too few payloads were stored to prove anything")

        visited = 0
        for path in [*pages, *KEY_PAGES]:
            if path.startswith("/accounts/"):
                continue
            if not self.visit(path):
                continue
            visited += 1
            with self.subTest(page=path):
                self.assertIsNone(self.ran(), f"stored script ran on {path}")
        self.assertGreaterEqual(visited, 15)
        print(
            f"\nxss: {submitted} payloads submitted ({saved} stored), {visited} pages visited, none ran",
            file=sys.stderr,
        )
        # The payloads really are on the pages, as text.
        page.goto(self.url("/cms/posts/1/"))
        self.assertIn("<script>__xss=", page.inner_text("body"))
        self.assertIsNone(self.ran())
