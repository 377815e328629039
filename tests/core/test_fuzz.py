"""Every POST form of every page, filled with generated hostile text: field errors or a save, never a 500.

The pages come from the URL resolver (``every_url``), on data the apps'
seeders wrote, so a new app's forms are fuzzed without editing this test.
Each text field of a form gets Hypothesis-generated text: any unicode,
control characters, very long values, HTML and script, quotes, and glob and
key syntax; the other fields keep what the page put there, and the CSRF
token is the form's own. A save is followed to the page it lands on, which
must render with the text escaped.
"""

import re
import sys
from collections import Counter

from django.core.management import call_command
from django.test import Client, tag
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from config.loadtest import post_forms
from tests.base import RedisTestCase
from tests.core.test_auth import every_url

SCRIPT = "<script>window.__xss=1</script>"
NASTY = [
    SCRIPT,
    '"\'><img src=x onerror="window.__xss=1">',
    "* ? [ : {}",
    "cms:{cms}:post:*",
    "orgchart:{orgchart}:employee:1",
    "a]b[c*d?e{f}g:h",
    "{{ request }}{% debug %}",
    "../../etc/passwd",
    "%00",
    "\u202eevil",
    "\x00",
    "\x1b[31m\x07\x08",
    "#1",
    "#99999999999999999999",
    "   ",
    "",
]
HOSTILE = st.one_of(
    st.sampled_from(NASTY),
    st.text(st.characters(codec="utf-8"), max_size=60),  # any unicode, controls and NUL included
    st.text(st.characters(codec="utf-8", categories=["Cc", "Zs", "So", "Mn"]), min_size=1, max_size=20),
    st.builds(lambda a, b: a + b, st.sampled_from(NASTY), st.text(max_size=20)),
    st.builds(lambda c, n: c * n, st.sampled_from(["A", "é", "😀", "<", ":"]), st.integers(5_000, 60_000)),
)
FUZZ = hypothesis_settings(max_examples=20, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
SKIP = {"/accounts/logout/"}  # signing out is no input to fuzz


def _pages():
    """Each page with a POST form, once; delete confirmations last, since they remove sample objects."""
    paths = sorted({path for _, path in every_url()}, key=lambda p: ("delete" in p, p))
    return paths


@tag("slow")
class FormFuzzTest(RedisTestCase):
    def test_every_post_form_takes_hostile_text_without_a_server_error(self):
        call_command("seed", verbosity=0)
        browser = Client(enforce_csrf_checks=True)
        browser.force_login(self.user)
        anonymous = Client(enforce_csrf_checks=True)  # for the public pages: the sign-in form
        outcomes = Counter()
        fuzzed = []
        for browser, path in [(anonymous, "/accounts/login/"), *((browser, p) for p in _pages())]:
            page = browser.get(path)
            if page.status_code != 200 or "text/html" not in page.get("Content-Type", ""):
                continue
            for form in post_forms(page.content.decode(), path):
                if not form.text_fields or form.action in SKIP or not form.action.startswith("/"):
                    continue
                fuzzed.append(f"{path} -> {form.action} {form.text_fields}")
                with self.subTest(page=path, action=form.action, signed_in=browser is not anonymous):
                    self.fuzz(browser, form, outcomes)
        self.assertGreaterEqual(len(fuzzed), 5, fuzzed)
        self.assertEqual(outcomes["server error"], 0)
        self.assertGreater(outcomes["saved"], 0, "no hostile text was ever saved: the fuzz proves little")
        self.assertGreater(outcomes["refused"], 0)
        summary = ", ".join(f"{n} {what}" for what, n in sorted(outcomes.items()))
        print(f"\nfuzz: {len(fuzzed)} forms, {sum(outcomes.values())} posts: {summary}", file=sys.stderr)

    def fuzz(self, browser, form, outcomes):
        @FUZZ
        @given(values=st.fixed_dictionaries({name: HOSTILE for name in form.text_fields}))
        def post(values):
            data = {**form.fields, **values}
            response = browser.post(form.action, data)
            status = response.status_code
            self.assertLess(status, 500, f"{form.action} {values!r}")
            self.assertNotEqual(status, 403, "the form's own CSRF token was refused")
            if status == 302:
                outcomes["saved"] += 1
                landed = browser.get(response["Location"])
                self.assertIn(landed.status_code, (200, 302, 404), response["Location"])
                self.assertNotIn(SCRIPT, landed.content.decode(), "stored text came back unescaped")
                self.assertIsNone(re.search(r"<img src=x onerror", landed.content.decode()))
            elif status == 404:
                outcomes["gone"] += 1  # an earlier example deleted the object
            else:
                outcomes["refused"] += 1
                body = response.content.decode()
                self.assertNotIn(SCRIPT, body, "the refused input came back unescaped")

        post()
