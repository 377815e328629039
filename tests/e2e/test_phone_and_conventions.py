"""In Chromium, at a phone's width (390 px) and a desktop's (1400 px): wide tables keep their
first column and say that they scroll, the product filters wait behind a button, the charts read
and answer a tap, a post's history is compact; and the conventions hold on every width: a skip
link first, no chart bar in the tab order, a dark scheme, a print layout, a favicon, prices with
their currency, one look per button role, a sidebar as tall as the page. axe finds nothing
serious or critical on these screens at either width, in the light scheme or the dark one."""

import re

from playwright.sync_api import expect

from config.redis import client
from tests.base import BrowserTestCase
from tests.e2e.screens import seed, sign_in_as_admin
from tests.e2e.test_accessibility import AXE, RUN_AXE

PHONE, DESKTOP = 390, 1400
OVERFLOW = "() => document.scrollingElement.scrollWidth - window.innerWidth"
# A column's header, as the page shows it: where it is, and whether something covers it.
HEADER = """([table, text]) => {
  const th = [...document.querySelectorAll(table + ' th')].find(h => h.textContent.trim().startsWith(text));
  const box = th.getBoundingClientRect();
  return {left: box.left, right: box.right};
}"""
CUE = """(table) => {
  const box = document.querySelector(table).parentElement;
  return {marked: box.classList.contains('scrolls-x'), cue: getComputedStyle(box, '::before').content,
          shadow: getComputedStyle(box).backgroundImage};
}"""
SCROLL_TO_END = """(table) => {
  const box = document.querySelector(table).parentElement;
  box.scrollLeft = box.scrollWidth;
}"""
FIRST_CELL = """(selector) => {
  const box = document.querySelector(selector).getBoundingClientRect();
  return {left: box.left, right: box.right};
}"""


# Each box with a placeholder: its name, the placeholder's width in the box's font, and the room inside.
PLACEHOLDER_ROOM = """els => els.map(el => {
  const style = getComputedStyle(el), text = document.createElement("canvas").getContext("2d");
  text.font = style.font;
  const spin = el.type === "number" ? 16 : 0;
  const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - spin;
  return [el.name, Math.ceil(text.measureText(el.placeholder).width), room];
})"""


class PhoneLayoutAndConventionsTest(BrowserTestCase):
    maxDiff = None

    def at(self, width: int) -> None:
        self.page.set_viewport_size({"width": width, "height": 900})

    def go(self, path: str) -> None:
        response = self.page.goto(self.url(path))
        self.assertEqual(response.status, 200, path)
        self.assertLessEqual(self.page.evaluate(OVERFLOW), 0, f"{path} scrolls sideways")

    def axe(self) -> list[str]:
        self.page.evaluate(AXE)  # through devtools: the CSP refuses an inline script tag
        return self.page.evaluate(RUN_AXE)

    def assert_cued_then_reachable(self, path: str, table: str, column: str, first_cell: str) -> None:
        """At a phone's width the column starts off screen, the table says it scrolls, and once scrolled
        the column is on screen with the row's first column still beside it."""
        self.go(path)
        header = self.page.evaluate(HEADER, [table, column])
        self.assertGreater(header["right"], PHONE, f"{column} fits at 390 px: nothing to cue")
        cue = self.page.evaluate(CUE, table)
        self.assertTrue(cue["marked"], path)
        self.assertIn("Swipe sideways for more columns", cue["cue"])
        self.assertIn("gradient", cue["shadow"])
        self.page.evaluate(SCROLL_TO_END, table)
        expect(self.page.locator(table).first.locator("xpath=..")).to_have_class(re.compile(r"\bat-end\b"))
        header = self.page.evaluate(HEADER, [table, column])
        self.assertLessEqual(header["right"], PHONE, f"{column} is reachable")
        self.assertGreaterEqual(header["left"], 0)
        kept = self.page.evaluate(FIRST_CELL, first_cell)
        self.assertGreaterEqual(kept["left"], 0, "the row's name stays on screen")
        boxes = self.page.evaluate(  # the checkbox columns' width: the row's name is stuck after them at most
            "t => [...document.querySelector(t).tHead.rows[0].cells].filter(c => c.matches('.select'))"
            ".reduce((w, c) => w + c.getBoundingClientRect().width, 0)",
            table,
        )
        self.assertLess(kept["left"], boxes + 40, "at the left edge, or right after the checkbox columns")
        self.assertLess(kept["right"], header["left"], "beside the column scrolled to, not under it")

    def test_a_phone_and_a_desktop_walk(self):
        seed()
        sign_in_as_admin(self)
        page = self.page
        missing = []
        page.on("response", lambda r: r.status == 404 and missing.append(r.url))
        post = client().zrevrange("cms:{cms}:index:updated", 0, 0)[0]
        page.goto(self.url("/orgchart/locations/"))
        location = page.locator("main table a[href*='/orgchart/locations/']").first.get_attribute("href")

        # ---- 390 px ----
        self.at(PHONE)

        # Skip link: the first tab stop, shown when focused, lands on the content.
        self.go("/catalog/products/")
        page.keyboard.press("Tab")
        focused = page.evaluate("() => [document.activeElement.className, document.activeElement.textContent]")
        self.assertEqual(focused, ["skip-link", "Skip to content"])
        self.assertGreaterEqual(page.locator(".skip-link").bounding_box()["y"], 0)
        page.keyboard.press("Enter")
        self.assertEqual(page.evaluate("document.activeElement.id"), "main")

        # A tag is one pill on one line, never broken inside ("noise-" over "cancelling").
        broken = page.evaluate(
            """() => [...document.querySelectorAll('span.tag, .chips a')].filter(e => {
                 const range = document.createRange(); range.selectNodeContents(e);
                 return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
               }).map(e => e.textContent)"""
        )
        self.assertEqual(broken, [])

        # Filters behind a button: the list starts near the top, the fields one tap away.
        self.assertFalse(page.locator("details.filter-panel").evaluate("d => d.open"))
        self.assertFalse(page.locator("#id_q").is_visible())
        self.assertLess(page.locator("table.products").bounding_box()["y"], 700)
        page.locator("details.filter-panel > summary").click()
        self.assertTrue(page.locator("#id_q").is_visible())
        page.select_option("#id_type", "phone")  # htmx swaps the list and its form: the filters stay open
        page.evaluate("document.querySelector('#results').dataset.before = '1'")
        page.locator("form.filters button[type=submit]").click()
        page.wait_for_url(re.compile(r"type=phone"))
        expect(page.locator("#results").first).not_to_have_attribute("data-before", "1")  # the new list swapped in
        expect(page.locator("td.price").first).to_be_attached()
        self.assertTrue(page.locator("#id_q").is_visible())
        self.assertEqual(page.locator("#id_type").input_value(), "phone")

        # Prices with their currency and two decimals.
        prices = page.locator("table.products td.price").all_inner_texts()
        self.assertTrue(prices)
        self.assertEqual([p for p in prices if not re.fullmatch(r"\$\d{1,3}(,\d{3})*\.\d\d|—", p)], [])

        # Wide tables: the first column stays, the cue says more columns wait to the right.
        self.assert_cued_then_reachable("/catalog/products/", "table.products", "Price", "table.products tbody td a")
        self.assert_cued_then_reachable("/catalog/products/", "table.products", "Rating", "table.products tbody td a")
        self.assert_cued_then_reachable("/school/courses/", "main table", "Capacity", "main table tbody tr td a")

        # A post's history: one compact block per revision, its Revert on screen.
        self.go(f"/cms/posts/{post}/history/")
        rows = page.locator("table.history tbody tr")
        self.assertGreaterEqual(rows.count(), 2)
        for i in range(rows.count()):
            self.assertLess(rows.nth(i).bounding_box()["height"], 130)
        revert = page.locator("table.history a", has_text="Revert to this").first.bounding_box()  # to its confirm page
        self.assertLessEqual(revert["x"] + revert["width"], PHONE)
        # Its compare boxes show their whole hint (a number box's spin buttons take their own room).
        for name, hint, room in page.eval_on_selector_all("main input[placeholder]", PLACEHOLDER_ROOM):
            self.assertLessEqual(hint, room, f"the {name!r} box cuts off its placeholder")

        # Charts: legible labels, no bar in the tab order, a tap shows the bar's values.
        self.go(location)
        self.assertEqual(page.locator("#temperature svg").count(), 3)
        self.assertGreaterEqual(page.locator("#temperature .axis.x").first.bounding_box()["height"], 10)
        self.assertEqual(page.locator("#temperature .bucket").first.evaluate("b => b.tabIndex"), -1)
        stops = page.evaluate(
            "() => [...document.querySelectorAll('#temperature *')].filter(e => e.tabIndex >= 0).map(e => e.tagName)"
        )
        self.assertEqual(stops, ["SUMMARY"] * 3)  # one per chart: its values as a table
        for title in page.locator("#temperature h3").all_inner_texts():
            self.assertRegex(title, r"(?i)\d{4}.* to .*\d{4}")
            self.assertNotIn("LAST", title.upper())
        bar = page.locator("#temperature .bucket").nth(5)
        bar.click()
        readout = page.locator("#temperature .chart-readout").first
        self.assertEqual(readout.inner_text(), bar.get_attribute("aria-label"))
        self.assertRegex(readout.inner_text(), r"mean -?\d+\.\d\d °C, min .* samples$")

        # A short page: the footer follows the content, with no screenful of gap before it.
        self.go("/orgchart/tree/")
        gap = page.evaluate(
            "() => document.querySelector('body > footer').getBoundingClientRect().top"
            " - document.querySelector('main').lastElementChild.getBoundingClientRect().bottom"
        )
        self.assertLess(gap, 60)

        # The type chooser: cards, no bullets.
        self.go("/catalog/products/add/")
        self.assertEqual(page.locator("ul.type-chooser").evaluate("u => getComputedStyle(u).listStyleType"), "none")

        # ---- 1400 px ----
        self.at(DESKTOP)
        self.go("/catalog/products/")
        self.assertTrue(page.locator("#id_q").is_visible())  # the filters open on a wide screen
        wide = page.locator("table.products").evaluate("t => t.parentElement.classList.contains('scrolls-x')")
        self.assertFalse(wide)

        # The sidebar runs to the bottom of a long page.
        bottom = page.evaluate("""() => [document.querySelector('.sidebar').getBoundingClientRect().bottom + scrollY,
                                         document.scrollingElement.scrollHeight]""")
        self.assertGreater(bottom[1], 1800)
        self.assertGreaterEqual(bottom[0], bottom[1] - 1)
        # The user, the role and "Sign out" in the sidebar: no word broken over two lines.
        lines = page.evaluate(
            """() => [...document.querySelectorAll('.signout .who, .signout .role, .signout button')].map(e => {
                 const range = document.createRange(); range.selectNodeContents(e);
                 return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size; })"""
        )
        self.assertEqual(lines, [1, 1, 1])

        # One look per role: every list's Add button is the primary button.
        looks = {}
        for path, name in (
            ("/catalog/products/", "Add product"),
            ("/cms/posts/", "Add post"),
            ("/school/courses/", "Add course"),
            ("/orgchart/employees/", "Add employee"),
        ):
            self.go(path)
            looks[name] = page.get_by_role("link", name=name, exact=True).evaluate(
                "a => { const s = getComputedStyle(a); return [s.backgroundColor, s.color, s.borderRadius]; }"
            )
        self.assertEqual(len({tuple(v) for v in looks.values()}), 1, looks)

        # Dark mode through prefers-color-scheme, and print: no sidebar, no buttons.
        self.go("/catalog/products/")
        light = page.evaluate("getComputedStyle(document.body).backgroundColor")
        page.emulate_media(color_scheme="dark")
        dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
        self.assertNotEqual(light, dark)
        self.assertEqual(dark, "rgb(18, 22, 27)")
        page.emulate_media(color_scheme="light", media="print")
        self.assertFalse(page.locator(".sidebar").is_visible())
        self.assertEqual([b for b in page.locator("main button, main .button").all() if b.is_visible()], [])
        self.assertTrue(page.locator("table.products").is_visible())
        page.emulate_media(media="screen")

        # The favicon: linked from every page, served, never a 404.
        icon = page.locator("link[rel=icon]").get_attribute("href")
        answer = page.request.get(self.url(icon))
        self.assertEqual((answer.status, answer.headers["content-type"]), (200, "image/svg+xml"))

        # axe: nothing serious or critical on these screens, at both widths, light and dark.
        found = {}
        screens = (
            "/catalog/products/",
            "/catalog/products/add/",
            "/school/courses/",
            "/cms/posts/",
            f"/cms/posts/{post}/history/",
            location,
            "/keys/?key=cms:%7Bcms%7D:index:updated",
        )
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for width in (PHONE, DESKTOP):
                self.at(width)
                for path in screens:
                    self.go(path)
                    if problems := self.axe():
                        found[f"{scheme} {width}px {path}"] = problems
        self.assertEqual(found, {})
        self.assertEqual(missing, [], "no page asked for anything that is not there")
