"""In Chromium: screens follow the role, actions answer GET, a form saves once, switching a
product's type keeps the input, revert shows its diff first, and every form's error summary takes
the focus; axe finds no serious or critical violation on the pages these touch."""

import re

from playwright.sync_api import expect

from catalog import keys as catalog_keys
from cms import keys as cms_keys
from cms import store as cms_store
from config.activity import Actor
from config.redis import client
from tests.base import PASSWORD, BrowserTestCase
from tests.catalog.helpers import make_product
from tests.e2e.test_accessibility import AXE, RUN_AXE


def products() -> int:
    """How many products Redis holds."""
    return sum(1 for _ in client().scan_iter(match=catalog_keys.product("*"), count=1000))


class RoleAndFormsBrowserTest(BrowserTestCase):
    maxDiff = None

    def sign_in_as(self, username: str, role: str) -> None:
        self.make_staff(username, role=role)
        self.context.clear_cookies()
        self.page.goto(self.url("/accounts/login/"))
        self.page.fill("input[name=username]", username)
        self.page.fill("input[name=password]", PASSWORD)
        self.page.click("button[type=submit]")
        self.page.wait_for_url(self.url("/"))

    def axe(self) -> list[str]:
        self.page.evaluate(AXE)
        return self.page.evaluate(RUN_AXE)

    def test_screens_follow_the_role_and_actions_answer_get(self):
        product = make_product("Quiet Buds")
        page = self.page
        found = {}

        # A viewer: the role in the sidebar, no write control, and a write page says why.
        self.sign_in_as("vera", "viewer")
        page.goto(self.url(f"/catalog/products/{product}/"))
        expect(page.locator(".sidebar .role")).to_have_text("Viewer")
        expect(page.locator(".sidebar .who")).to_have_text("vera")
        expect(page.locator("main a", has_text=re.compile(r"^(Edit|Delete)$"))).to_have_count(0)
        expect(page.locator("form[method=post]:not(.signout)")).to_have_count(0)
        found["viewer product"] = self.axe()
        page.set_viewport_size({"width": 390, "height": 900})
        found["viewer product 390px"] = self.axe()
        expect(page.locator(".sidebar .role")).to_be_attached()
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(self.url("/catalog/products/"))
        expect(page.get_by_text("Add product")).to_have_count(0)
        expect(page.locator("input[name=ids]")).to_have_count(0)
        # Without the bulk form around it, the table still scrolls in its own box on a phone.
        page.set_viewport_size({"width": 390, "height": 900})
        page.reload()
        self.assertLessEqual(page.evaluate("document.scrollingElement.scrollWidth"), 390)
        expect(page.locator("table.products")).to_be_visible()
        page.set_viewport_size({"width": 1280, "height": 900})
        response = page.goto(self.url(f"/catalog/products/{product}/edit/"))
        self.assertEqual(response.status, 403)
        expect(page.locator("main")).to_contain_text("can read the catalog but not change it")

        # An editor: the write controls, but nothing of an administrator's.
        self.sign_in_as("ed", "editor")
        page.goto(self.url(f"/catalog/products/{product}/"))
        expect(page.locator(".sidebar .role")).to_have_text("Editor")
        expect(page.locator("main a", has_text="Edit")).to_have_count(1)
        expect(page.locator(".sidebar a", has_text="Key browser")).to_have_count(0)
        expect(page.locator(".sidebar a", has_text="Import / export")).to_have_count(0)
        expect(page.locator("#redis-panel")).to_have_count(0)

        # A GET of an action's URL: the page that holds its form, not a bare 405.
        page.goto(self.url(f"/catalog/products/{product}/reviews/add/"))
        expect(page).to_have_url(self.url(f"/catalog/products/{product}/#add-review"))
        expect(page.locator("h1")).to_have_text("Quiet Buds")

        # The session expires mid-review: after signing in again, the review is there to send.
        page.fill("form.review-form input[name=author]", "Ann")
        page.fill("form.review-form textarea[name=comment]", "Typed before the session expired.")
        self.context.clear_cookies(name="sessionid")  # the session expired; the CSRF cookie lives on
        page.click("form.review-form button[type=submit]")
        expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
        page.fill("input[name=username]", "ed")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page).to_have_url(self.url(f"/catalog/products/{product}/#add-review"))
        expect(page.locator(".messages")).to_contain_text("your input is kept below")
        expect(page.locator("form.review-form input[name=author]")).to_have_value("Ann")
        expect(page.locator("form.review-form textarea[name=comment]")).to_have_value(
            "Typed before the session expired."
        )
        page.click("form.review-form button[type=submit]")
        expect(page.locator(".messages")).to_contain_text("Your review of “Quiet Buds” was added.")
        found["a message"] = self.axe()  # the messages stay a list inside their live region
        self.assertEqual(found, {"viewer product": [], "viewer product 390px": [], "a message": []})

    def test_forms_save_once_keep_input_revert_asks_and_errors_take_the_focus(self):
        page = self.page
        found = {}
        self.sign_in_as("ed", "editor")

        # The error summary: at the top, focused, one link per field in error.
        page.goto(self.url("/catalog/products/add/?type=monitor"))
        page.fill("input[name=price]", "-3")
        page.click("form.product-form button[type=submit]")
        summary = page.locator("#error-summary")
        expect(summary).to_be_focused()
        expect(summary.locator("a")).to_have_text(["Name", "Price"])
        found["form with errors"] = self.axe()
        summary.locator("a", has_text="Price").click()
        expect(page).to_have_url(re.compile("#id_price$"))

        # Switching the type keeps what was typed in every field both types have.
        page.fill("input[name=name]", "Wide View")
        page.fill("input[name=price]", "199.00")
        page.fill("input[name=screen_size]", "31.5")
        page.fill("input[name=refresh_rate]", "144")
        page.focus("#switch-type")
        page.select_option("#switch-type", "phone")
        expect(page.locator("#type-fields")).to_have_attribute("data-type", "phone")
        expect(page.locator("input[name=name]")).to_have_value("Wide View")
        expect(page.locator("input[name=price]")).to_have_value("199.00")
        expect(page.locator("input[name=screen_size]")).to_have_value("31.5")
        expect(page.locator("input[name=refresh_rate]")).to_have_count(0)
        expect(page.locator("#switch-type")).to_be_focused()
        self.assertEqual(products(), 0)  # switching saved nothing
        found["switched form"] = self.axe()

        # A double click on Save adds one phone; Back and Save again adds nothing more.
        page.goto(self.url("/catalog/products/add/?type=phone"))
        page.fill("input[name=name]", "Wide View")
        page.fill("input[name=screen_size]", "6.1")
        page.locator("form.product-form button[type=submit]", has_text="Add phone").dblclick()
        expect(page.locator("h1")).to_have_text("Wide View")
        expect(page.locator("[data-field=screen_size]")).to_contain_text("6.1")
        detail = page.url
        self.assertEqual(products(), 1)
        page.go_back()
        expect(page.locator("input[name=name]")).to_have_value("Wide View")
        page.locator("form.product-form button[type=submit]", has_text="Add phone").click()
        expect(page).to_have_url(detail)
        expect(page.locator(".messages")).to_contain_text("already sent and saved once")
        self.assertEqual(products(), 1)

        # Revert: the diff it will apply, then the question; the answer makes a new version.
        post = cms_store.create_post(
            {"title": "Plans", "body": "First draft.", "author": "ed", "status": "draft"},
            actor=Actor("ed"), comment="", at=1_767_600_000.0,
        )  # fmt: skip
        cms_store.save_post(
            post.id, {**post.content(), "body": "Second draft."}, base_version=1, actor=Actor("ed"), comment="",
            at=1_767_600_100.0,
        )  # fmt: skip
        page.goto(self.url(f"/cms/posts/{post.id}/history/"))
        page.get_by_role("link", name="Revert to this…").click()
        expect(page.locator("h1")).to_have_text("Revert to revision 1?")
        expect(page.locator("dl.diff del")).to_have_text("Second")
        expect(page.locator("dl.diff ins")).to_have_text("First")
        found["revert confirm"] = self.axe()
        self.assertEqual(client().hget(cms_keys.post(post.id), "version"), "2")
        # The answer opens in another tab here, so that this page shows its button while the request runs.
        page.evaluate("document.querySelector('form[method=post]:not(.signout)').target = '_blank'")
        button = page.get_by_role("button", name="Revert to revision 1")
        with self.context.expect_page() as opened:
            button.click()
        expect(button).to_be_disabled()  # a second click sends nothing
        answer = opened.value
        expect(answer.locator(".messages")).to_contain_text("reverted to revision 1: saved as version 3")
        self.assertEqual(found, {"form with errors": [], "switched form": [], "revert confirm": []})
