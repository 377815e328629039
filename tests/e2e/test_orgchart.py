import random

from config.redis import client
from orgchart import keys, sensorfeed
from tests.base import BrowserTestCase
from tests.orgchart.helpers import location, org
from tests.orgchart.test_graph import SPEC


class OrgChartBrowserTest(BrowserTestCase):
    def test_expand_the_tree_lazily_then_move_an_employee(self):
        where = location("Seattle")
        ids = org(SPEC, where)
        self.sign_in()
        page = self.page
        page.goto(self.url("/orgchart/tree/"))
        doug = page.locator(f"details.node[data-id='{ids['Doug']}']")
        self.assertIn("2 direct · 6 in all", doug.locator("summary").inner_text())
        self.assertEqual(page.locator(f"[data-id='{ids['Ann']}']").count(), 0)  # not loaded yet
        doug.locator("summary .counts").click()
        ann = page.locator(f"details.node[data-id='{ids['Ann']}']")
        ann.wait_for()
        self.assertIn("2 direct · 3 in all", ann.locator("summary").inner_text())
        ann.locator("summary .counts").click()
        cid = page.locator(f"details.node[data-id='{ids['Cid']}']")
        cid.wait_for()
        self.assertTrue(page.locator(f".leaf[data-id='{ids['Dee']}']").is_visible())
        self.screenshot("orgchart-tree")

        page.goto(self.url(f"/orgchart/employees/{ids['Ann']}/"))
        page.fill("input[name=manager]", "Fay")
        page.click("form.move button[type=submit]")
        self.assertIn("that would make a cycle", page.locator(".field-error").inner_text())
        self.assertEqual(client().hget(keys.employee(ids["Ann"]), "manager"), str(ids["Doug"]))

        page.goto(self.url(f"/orgchart/employees/{ids['Cid']}/"))
        page.fill("input[name=manager]", "Bob")
        page.click("form.move button[type=submit]")
        page.wait_for_selector("text=Moved Cid under Bob.")
        chain = page.locator("#chain ol.chain").inner_text()
        self.assertLess(chain.index("Doug"), chain.index("Bob"))
        self.assertIn(str(ids["Cid"]), client().smembers(keys.reports(ids["Bob"])))
        self.screenshot("orgchart-moved")

        page.goto(self.url("/orgchart/tree/"))
        page.locator(f"details.node[data-id='{ids['Doug']}'] summary .counts").click()
        bob = page.locator(f"details.node[data-id='{ids['Bob']}']")
        bob.wait_for()
        self.assertIn("2 direct · 3 in all", bob.locator("summary").inner_text())

    def test_location_page_draws_the_charts(self):
        where = location("Seattle")
        org(SPEC, where)
        sensorfeed.history(where, 1767600000, 1, 60, random.Random(1), past_days=400)  # the demo seed's shape
        self.sign_in()
        self.page.goto(self.url(f"/orgchart/locations/{where}/"))
        self.assertEqual(self.page.locator("#temperature svg").count(), 3)
        bar = self.page.locator("#temperature svg .bucket").first
        self.assertRegex(bar.get_attribute("aria-label"), r"mean -?\d+\.\d\d °C, min .* samples$")  # its values
        bar.click()  # a click or a tap shows them below the chart
        readout = self.page.locator("#temperature .chart-readout").first
        self.assertEqual(readout.inner_text(), bar.get_attribute("aria-label"))
        width = self.page.locator("#temperature svg").first.bounding_box()["width"]
        self.assertGreater(width, 400)  # scaled to its card, not a fixed size
        self.assertIn("Staff (7)", self.page.locator("#staff h2").inner_text())
        self.screenshot("orgchart-location")
