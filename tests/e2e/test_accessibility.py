"""axe-core on every screen at a phone's and a tablet's width: no serious or critical violation.

axe-core is vendored under ``tests/e2e/vendor/axe-core`` (the npm package's
``axe.min.js`` and licence), so the test runs offline.
"""

from pathlib import Path

from tests.base import BrowserTestCase
from tests.e2e.screens import WIDTHS, screens, seed, sign_in_as_admin

AXE = (Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js").read_text()
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')}`);
}"""


class AccessibilityTest(BrowserTestCase):
    maxDiff = None

    def violations(self, path: str) -> list[str]:
        self.page.goto(self.url(path))
        self.page.evaluate(AXE)  # through the browser's devtools: the CSP refuses an inline script tag
        return self.page.evaluate(RUN_AXE)

    def test_every_screen_has_no_serious_or_critical_violation_at_both_widths(self):
        seed()
        sign_in_as_admin(self)
        paths = screens(self.page, self.live_server_url)
        self.assertGreater(len(paths), 40)
        found = {}
        for width in WIDTHS:
            self.page.set_viewport_size({"width": width, "height": 900})
            for path in paths:
                if problems := self.violations(path):
                    found[f"{width}px {path}"] = problems
        self.context.clear_cookies()
        for width in WIDTHS:
            self.page.set_viewport_size({"width": width, "height": 900})
            if problems := self.violations("/accounts/login/"):
                found[f"{width}px /accounts/login/"] = problems
        self.assertEqual(found, {}, "\n".join(f"{where}: {v}" for where, vs in found.items() for v in vs))
