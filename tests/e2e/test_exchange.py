import io
import shutil
import tempfile
import zipfile
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from cms import keys as cms_keys
from config.exchange import store as exchange_store
from config.invariants import violations
from config.redis import client
from tests.base import PASSWORD, BrowserTestCase, start_worker


class ExchangeBrowserTest(BrowserTestCase):
    def sign_in_as_administrator(self) -> None:
        self.make_staff("admin", is_superuser=True)
        self.page.goto(self.url("/accounts/login/"))
        self.page.fill("input[name=username]", "admin")
        self.page.fill("input[name=password]", PASSWORD)
        self.page.click("button[type=submit]")
        self.page.wait_for_url(self.url("/"))

    def test_download_then_upload_preview_and_confirm(self):
        call_command("seed", "--scale", "demo", "--only", "cms", stdout=StringIO(), stderr=StringIO())
        work = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        start_worker(self, work / "worker.log")  # checks and imports run in the background worker
        self.sign_in_as_administrator()
        page = self.page
        page.click("nav.sidebar >> text=Import / export")
        page.click("text=The CMS")
        self.assertIn("holds data now", page.locator("#import").inner_text())
        with page.expect_download() as caught:
            page.click("#download")
        archive = work / "cms-export.zip"
        caught.value.save_as(archive)
        with zipfile.ZipFile(archive) as opened:
            downloaded = {name: opened.read(name) for name in opened.namelist()}
        self.assertEqual(sorted(downloaded), ["comments.jsonl", "manifest.json", "posts.jsonl"])

        # A bad file first: every refused record with its reason, and no confirm button.
        bad = work / "comments.jsonl"
        bad.write_text('{"id": 1, "post": 9999, "author": "ann", "text": "Hi", "at": 1.5}\n{"id": 1}\n')
        page.set_input_files("input[name=file]", str(bad))
        page.check("input[name=replace]")
        page.click("text=Preview the import")
        page.wait_for_selector("#refused")  # the job page, once the worker's check has ended
        refused = page.locator("#refused").inner_text()
        self.assertIn("comments.jsonl:1", refused)
        self.assertIn("no post has id 9999", refused)
        self.assertIn("comments.jsonl:2", refused)
        self.assertEqual(page.locator("#confirm").count(), 0)
        self.screenshot("exchange-refused")

        # Move to an empty server: the zip as downloaded, previewed, then confirmed.
        exchange_store.clear("cms")
        page.goto(self.url("/exchange/cms/"))
        self.assertIn("holds no data", page.locator("#import").inner_text())
        page.set_input_files("input[name=file]", str(archive))
        page.click("text=Preview the import")
        page.wait_for_selector("#counts")
        counts = page.locator("#counts").inner_text()
        self.assertIn("posts.jsonl\t100", counts)
        self.assertIn("Nothing refused.", page.locator("#refused").inner_text())
        self.assertEqual(client().exists("cms:{cms}:post:1"), 0, "the dry run wrote something")
        self.screenshot("exchange-preview")
        page.click("text=Confirm the import")
        page.wait_for_selector("text=Imported 100 posts", timeout=120_000)
        self.screenshot("exchange-imported")
        self.assertEqual(violations(["cms"]), [])
        with zipfile.ZipFile(io.BytesIO(self.client_download())) as again:
            self.assertEqual({name: again.read(name) for name in again.namelist()}, downloaded)

        # The same zip over the data it now holds: the preview counts what a replace changes and
        # deletes, and its confirm is a danger button; a merge deletes nothing.
        kept = work / "posts.jsonl"
        kept.write_bytes(b"".join(downloaded["posts.jsonl"].splitlines(keepends=True)[:60]))
        page.goto(self.url("/exchange/cms/"))
        page.set_input_files("input[name=file]", str(kept))
        page.check("input[name=replace]")
        page.click("text=Preview the import")
        page.wait_for_selector("#change-posts")  # the job page, once the worker's check has ended
        self.assertEqual(page.locator("#change-posts td").all_inner_texts()[1:], ["60", "0", "60", "40"])
        self.assertIn("It deletes 40 posts and", page.locator("#confirm").inner_text())
        button = page.locator("#confirm button")
        self.assertEqual(
            (button.inner_text(), button.get_attribute("class")), ("Confirm the import and replace the data", "danger")
        )
        self.screenshot("exchange-replace-preview")
        page.goto(self.url("/exchange/cms/"))
        page.set_input_files("input[name=file]", str(kept))
        page.check("input[name=merge]")
        page.click("text=Preview the import")
        page.wait_for_selector("#change-posts")
        self.assertEqual(page.locator("#change-posts td").all_inner_texts()[1:], ["60", "0", "60", "0"])
        page.click("text=Confirm the import and merge")
        page.wait_for_selector("text=Imported 60 posts", timeout=120_000)
        self.assertEqual(len(exchange_store.ids(cms_keys.post)), 100)

    def client_download(self) -> bytes:
        with self.page.expect_download() as caught:
            self.page.goto(self.url("/exchange/cms/"))
            self.page.click("#download")
        return Path(caught.value.path()).read_bytes()
