"""No screen scrolls sideways at a phone's (390 px) or a tablet's (800 px) width, and none
loads anything from outside the site."""

from tests.base import BrowserTestCase
from tests.e2e.screens import WIDTHS, screens, seed, sign_in_as_admin

OVERFLOW = "() => document.scrollingElement.scrollWidth - window.innerWidth"
# The innermost elements that reach past the right edge, to say what to fix.
CULPRITS = """() => [...document.querySelectorAll('body *')]
  .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1)
  .filter(el => ![...el.children].some(c => c.getBoundingClientRect().right > window.innerWidth + 1))
  .slice(0, 3)
  .map(el => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : ''))"""


class ResponsiveTest(BrowserTestCase):
    maxDiff = None

    def test_no_screen_scrolls_sideways_at_either_width(self):
        seed()
        sign_in_as_admin(self)
        paths = screens(self.page, self.live_server_url)
        self.assertGreater(len(paths), 40)
        wide, outside = {}, set()
        self.page.on("request", lambda r: r.url.startswith(self.live_server_url) or outside.add(r.url))
        for width in WIDTHS:
            self.page.set_viewport_size({"width": width, "height": 900})
            for path in paths:
                self.page.goto(self.url(path))
                if (overflow := self.page.evaluate(OVERFLOW)) > 0:
                    wide[f"{width}px {path}"] = (overflow, self.page.evaluate(CULPRITS))
        self.context.clear_cookies()
        for width in WIDTHS:
            self.page.set_viewport_size({"width": width, "height": 900})
            self.page.goto(self.url("/accounts/login/"))
            if (overflow := self.page.evaluate(OVERFLOW)) > 0:
                wide[f"{width}px /accounts/login/"] = (overflow, self.page.evaluate(CULPRITS))
        self.assertEqual(wide, {}, "per screen: pixels of sideways scroll, and what sticks out")
        self.assertEqual(outside, set(), "no screen loads anything from outside the site")
