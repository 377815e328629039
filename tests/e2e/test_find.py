"""Finding products in Chromium: the search box suggests as you type and the keyboard picks one;
bulk delete asks on a page that lists the ticked products, then says what went."""

from playwright.sync_api import expect

from catalog import keys
from config.redis import client
from tests.base import BrowserTestCase
from tests.catalog.helpers import make_product


class FindBrowserTest(BrowserTestCase):
    def setUp(self):
        super().setUp()
        self.errors = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def test_typing_suggests_and_the_keyboard_picks_a_product(self):
        phone = make_product("Smartphone X", type="phone", attrs={})
        make_product("Phonograph One", type="appliance", attrs={})
        make_product("Pocket Phone Mini", type="phone", attrs={})
        self.sign_in()
        page = self.page
        page.goto(self.url("/catalog/products/"))
        box = page.locator("#id_q")
        box.press_sequentially("phone", delay=40)
        options = page.locator("#id_q-listbox [role=option]")
        expect(options).to_have_text(["Pocket Phone Mini", "Smartphone X"])  # in name order; the gramophone is not
        expect(box).to_have_attribute("aria-expanded", "true")
        box.press("ArrowDown")
        box.press("ArrowDown")
        expect(box).to_have_attribute("aria-activedescendant", "id_q-listbox-2")
        expect(options.nth(1)).to_have_attribute("aria-selected", "true")
        self.screenshot("find-autocomplete")
        box.press("Enter")
        expect(page.locator("h1")).to_have_text("Smartphone X")
        self.assertTrue(page.url.endswith(f"/catalog/products/{phone}/"))

        page.goto(self.url("/catalog/products/"))
        box = page.locator("#id_q")
        box.press_sequentially("pho", delay=40)
        expect(page.locator("#id_q-listbox [role=option]")).to_have_count(3)
        box.press("Escape")
        expect(page.locator("#id_q-listbox")).to_be_hidden()
        box.press("Enter")  # no option chosen: the filter form searches
        expect(page.locator("#results tbody tr")).to_have_count(3)
        self.assertIn("q=pho", page.url)
        self.assertEqual(self.errors, [])

    def test_bulk_delete_lists_the_ticked_products_then_deletes_them(self):
        a = make_product("Alpha Buds", tags=["wireless"])
        b = make_product("Beta Buds")
        c = make_product("Gamma Buds")
        self.sign_in()
        page = self.page
        page.goto(self.url("/catalog/products/"))
        page.check(f"#select-{a}")
        page.check(f"#select-{b}")
        page.click("text=Delete selected…")
        expect(page.locator("h1")).to_have_text("Delete 2 products?")
        expect(page.locator(".bulk-list li")).to_have_text(["Beta Buds", "Alpha Buds"])  # the list's order
        self.screenshot("find-bulk-delete")
        page.click("text=Yes, delete 2 products")
        expect(page.locator(".messages")).to_contain_text(
            "Deleted 2 products with their reviews: “Beta Buds”, “Alpha Buds”."
        )
        expect(page.locator("#results tbody tr")).to_have_count(1)
        self.assertFalse(client().exists(keys.product(a), keys.product(b)))
        self.assertTrue(client().exists(keys.product(c)))
        self.assertEqual(self.errors, [])

    def test_fill_mode_puts_the_picked_id_in_the_hidden_input(self):
        """The mode a person, course or manager picker uses: rendered by the shared include, fed by the
        product suggestions here, added to a page as htmx would add it."""
        from django.template.loader import render_to_string

        phone = make_product("Smartphone X", type="phone", attrs={})
        self.sign_in()
        page = self.page
        page.goto(self.url("/catalog/products/"))
        field = render_to_string(
            "includes/autocomplete.html",
            {"name": "pick", "id": "pick", "url": "/catalog/products/suggest/", "label": "Product", "mode": "fill",
             "fill_name": "product_id"},
        )  # fmt: skip
        page.evaluate(
            "html => { const form = document.createElement('form'); form.id = 'picker'; form.innerHTML = html;"
            " document.querySelector('main').prepend(form); htmx.process(form); }",
            field,
        )
        box = page.locator("#pick")
        box.press_sequentially("martph", delay=40)
        expect(page.locator("#pick-listbox [role=option]")).to_have_text(["Smartphone X"])
        box.press("ArrowDown")
        box.press("Enter")
        expect(box).to_have_value("Smartphone X")
        expect(page.locator("#picker input[name=product_id]")).to_have_value(str(phone))
        expect(page.locator("#pick-listbox")).to_be_hidden()
        box.press_sequentially(" more", delay=20)  # typing again names no record until one is picked
        expect(page.locator("#picker input[name=product_id]")).to_have_value("")
        self.assertEqual(self.errors, [])


class FindInEveryAppBrowserTest(BrowserTestCase):
    """One picker or search box per app, typed into as a user would."""

    def setUp(self):
        super().setUp()
        self.errors = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def test_the_move_picker_suggests_managers_and_the_keyboard_fills_the_id(self):
        from orgchart import store as org
        from tests.orgchart.helpers import employee

        ada, cid = employee("Ada Bergström"), employee("Cid Holm")
        employee("Cécile Berger")
        self.sign_in()
        page = self.page
        page.goto(self.url(f"/orgchart/employees/{cid}/"))
        box = page.locator("#id_manager")
        box.press_sequentially("berg", delay=40)
        options = page.locator("#id_manager-listbox [role=option]")
        expect(options).to_have_text(["Ada Bergström", "Cécile Berger"])
        box.press("ArrowDown")
        box.press("Enter")
        expect(box).to_have_value("Ada Bergström")
        expect(page.locator("input[name=manager_id]")).to_have_value(str(ada))
        page.click("button:text-is('Move')")
        expect(page.locator(".messages")).to_contain_text("Moved Cid Holm under Ada Bergström.")
        self.assertEqual(org.get_employee(cid).manager, ada)
        self.assertEqual(self.errors, [])

    def test_the_enrol_picker_finds_a_student_by_any_part_of_the_name(self):
        from tests.school.helpers import course, student

        pk = course("MA-201", "Linear Algebra")
        student("Alan Turing")
        student("Ada Bergström")
        self.sign_in()
        page = self.page
        page.goto(self.url(f"/school/courses/{pk}/"))
        box = page.locator("#find-course-student")
        box.press_sequentially("urin", delay=40)
        found = page.locator("#found-course-student li")
        expect(found).to_have_count(1)
        expect(found).to_contain_text("Alan Turing")
        self.assertEqual(self.errors, [])

    def test_the_post_list_finds_a_post_by_any_part_of_its_title(self):
        from cms import store as cms
        from config.activity import Actor

        for title in ("Redis streams", "Hashes in depth", "Sorted sets"):
            data = {"title": title, "body": "Body.", "author": "ann", "status": "draft"}
            cms.create_post(data, actor=Actor("ann"), comment="", at=1_767_600_000.0)
        self.sign_in()
        page = self.page
        page.goto(self.url("/cms/posts/"))
        page.fill("input[name=q]", "epth")
        page.press("input[name=q]", "Enter")
        expect(page.locator("#results tbody tr")).to_have_count(1)
        expect(page.locator("#results tbody")).to_contain_text("Hashes in depth")
        self.assertEqual(self.errors, [])
