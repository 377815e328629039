"""In Chromium: write a post, edit it twice, read its history, compare, revert."""

from cms import keys
from config.redis import client
from tests.base import BrowserTestCase


class PostHistoryInBrowserTest(BrowserTestCase):
    def save_body(self, body: str, comment: str) -> None:
        page = self.page
        page.get_by_role("link", name="Edit").click()
        page.fill("textarea[name=body]", body)
        page.fill("input[name=comment]", comment)
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_selector(".message.success")

    def test_edit_twice_compare_and_revert(self):
        self.sign_in()
        page = self.page
        page.goto(self.url("/cms/posts/add/"))
        page.fill("input[name=title]", "Field notes")
        page.fill("textarea[name=body]", "The quick brown fox jumps over the lazy dog.")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_selector("text=was created at version 1")

        self.save_body("The quick red fox jumps over the lazy dog.", "colour")
        self.save_body("The quick red fox leaps over the sleepy dog.", "verbs")
        self.assertIn("leaps over the sleepy dog", page.inner_text(".post-body"))

        page.get_by_role("link", name="History").click()
        page.wait_for_selector("table.history")
        rows = page.locator("table.history tbody tr")
        self.assertEqual(rows.count(), 3)
        self.assertIn("3 (current)", rows.nth(0).inner_text())
        self.assertIn("verbs", rows.nth(0).inner_text())
        self.assertIn("colour", rows.nth(1).inner_text())

        # Compare revision 1 with 2: the word that changed is struck out and replaced.
        rows.nth(1).get_by_role("link", name="Compare with previous").click()
        page.wait_for_selector("dl.diff")
        self.assertEqual(page.inner_text("dl.diff del"), "brown")
        self.assertEqual(page.inner_text("dl.diff ins"), "red")
        self.screenshot("cms-compare")

        page.go_back()
        page.wait_for_selector("table.history")
        page.locator('tr[data-revision="1"]').get_by_role("link", name="Revert to this…").click()
        page.get_by_role("button", name="Revert to revision 1").click()  # after the diff it will apply
        page.wait_for_selector("text=Reverted to revision 1: saved as version 4.")
        rows = page.locator("table.history tbody tr")
        self.assertEqual(rows.count(), 4)
        self.assertIn("4 (current)", rows.nth(0).inner_text())
        self.assertIn("Reverted to revision 1", rows.nth(0).inner_text())
        self.screenshot("cms-history")

        page.get_by_role("link", name="Field notes").click()
        self.assertEqual(page.inner_text(".post-body"), "The quick brown fox jumps over the lazy dog.")
        self.assertEqual(client().hget(keys.post(1), "version"), "4")
