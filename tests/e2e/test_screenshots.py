"""The screenshots in docs/screenshots/, taken again from a freshly seeded dashboard.

Opt-in: it writes into the docs, so it runs only when asked:

    TAKE_SCREENSHOTS=1 .venv/bin/python manage.py test tests.e2e.test_screenshots
"""

import os
import re
import unittest
from pathlib import Path

from django.conf import settings

from tests.base import BrowserTestCase
from tests.e2e.screens import seed, sign_in_as_admin

OUT = Path(settings.BASE_DIR) / "docs" / "screenshots"
WIDTHS = (1400, 800, 390)
# (file name, a list page, the first link on it to follow, or None to stay on the list)
SCREENS = (
    ("dashboard", "/", None),
    ("catalog-list", "/catalog/products/", None),
    ("catalog-product", "/catalog/products/", r"^/catalog/products/\d+/$"),
    ("school-course", "/school/courses/", r"^/school/courses/\d+/$"),
    ("cms-post", "/cms/posts/", r"^/cms/posts/\d+/$"),
    ("orgchart-tree", "/orgchart/tree/", None),
    ("orgchart-location", "/orgchart/locations/", r"^/orgchart/locations/\d+/$"),
    ("keys", "/keys/", None),
    ("keys-hash", "/keys/?key=catalog%3A%7Bcatalog%7D%3Aproduct%3A1", None),
)


@unittest.skipUnless(os.environ.get("TAKE_SCREENSHOTS"), "set TAKE_SCREENSHOTS=1 to take the docs' screenshots again")
class Screenshots(BrowserTestCase):
    def first_link(self, pattern: str) -> str:
        hrefs = self.page.eval_on_selector_all("main a[href]", "els => els.map(a => a.getAttribute('href'))")
        return next(href for href in hrefs if re.match(pattern, href))

    def shoot(self, name: str, width: int) -> None:
        self.page.set_viewport_size({"width": width, "height": 900})
        self.page.screenshot(path=str(OUT / f"{name}-{width}.png"))

    def test_take_the_screenshots(self):
        seed()
        OUT.mkdir(parents=True, exist_ok=True)
        sign_in_as_admin(self)
        for name, path, follow in SCREENS:
            self.page.goto(self.url(path))
            if follow:
                path = self.first_link(follow)
            for width in WIDTHS:
                # Loaded at each width, as a user there sees it (the filters start closed on a phone).
                self.page.set_viewport_size({"width": width, "height": 900})
                self.page.goto(self.url(path))
                self.shoot(name, width)
        self.page.set_viewport_size({"width": 390, "height": 900})
        self.page.click("label.nav-toggle-label")
        self.shoot("menu-open", 390)
        self.context.clear_cookies()
        for width in WIDTHS:
            self.page.set_viewport_size({"width": width, "height": 900})
            self.page.goto(self.url("/accounts/login/"))
            self.shoot("sign-in", width)
