"""A key page shows a few KB of any one value, whatever its size, and links to a download of the
whole value, read a bounded chunk a command and returned byte for byte."""

import math
import re
from html import unescape

from django.test import tag

from config.keybrowser.display import download_url, key_url
from config.keybrowser.store import key as keystore
from config.redis import raw_client
from tests.keybrowser.helpers import KeysTestCase, commands
from tests.keybrowser.test_safety import session_keys

FIELDS, FIELD_BYTES = 2_000, 4 * 1024  # one stream entry of 8 MB
PAGE_BYTES = 100_000


def downloaded(response) -> bytes:
    return b"".join(response.streaming_content)


def links(response, kind: str = "download") -> list[str]:
    return [unescape(u) for u in re.findall(rf'<a class="{kind}" href="([^"]+)"', response.content.decode())]


@tag("cluster")
class HugeStreamEntryTest(KeysTestCase):
    def setUp(self):
        super().setUp()
        self.values = {f"f{i:04}".encode(): bytes([65 + i % 26]) * FIELD_BYTES for i in range(FIELDS)}
        self.values[b"f0001"] = b"\xff\x00" + b"z" * 300_000  # binary, and far over a cell
        raw_client().xadd("big:stream", {"small": "one"}, id="1-0")
        raw_client().xadd("big:stream", self.values, id="2-0")

    def test_the_stream_page_shows_a_few_kb_of_the_entry_and_links_to_it(self):
        with self.assertRoundTrips(2):  # an unregistered key: its type, then its page
            response = self.client.get(key_url("big:stream"))
        self.assertLess(len(response.content), PAGE_BYTES)
        self.assertContains(response, f"… and {FIELDS - 1} more fields")
        self.assertContains(response, '<span class="f">', count=1)  # its 4 KB of values: one field
        hrefs = [unescape(u) for u in re.findall(r'href="([^"]+)"', response.content.decode())]
        self.assertIn(key_url("big:stream") + "&entry=2-0", hrefs)
        # The entry read past the page's budget: the page stops there, and the next one goes on.
        self.assertNotContains(response, "<code>1-0</code>")
        self.assertContains(response, "cursor=2-0")
        self.assertContains(self.client.get(key_url("big:stream") + "&cursor=2-0"), "<code>1-0</code>")

    def test_the_entry_page_pages_its_fields_each_cut_with_a_download(self):
        response = self.client.get(key_url("big:stream") + "&entry=2-0")
        self.assertLess(len(response.content), 300_000)
        self.assertContains(response, f"Entry <code>2-0</code>: {FIELDS} fields")
        self.assertContains(response, "of 300002 bytes</span>")
        self.assertEqual(len(links(response)), 1)  # only the value over a cell is cut
        self.assertContains(response, "cursor=50")
        page = self.client.get(key_url("big:stream") + "&entry=2-0&cursor=1950")
        self.assertContains(page, '<span class="value">f1999</span>', html=True)
        self.assertNotContains(page, "cursor=2000")
        self.assertEqual(self.client.get(key_url("big:stream") + "&entry=abc").status_code, 400)
        self.assertContains(self.client.get(key_url("big:stream") + "&entry=3-0"), "no such entry")

    def test_an_entrys_value_downloads_whole_a_chunk_a_command(self):
        (url,) = links(self.client.get(key_url("big:stream") + "&entry=2-0"))
        self.assertEqual(url, download_url(b"big:stream", entry="2-0", index="1"))
        with self.assertRoundTrips(math.ceil(300_002 / keystore.DOWNLOAD_CHUNK)) as trace:
            response = self.client.get(url)
            body = downloaded(response)
        self.assertEqual(body, self.values[b"f0001"])
        self.assertEqual(set(commands(trace)), {"EVAL"})
        self.assertEqual(response["Content-Type"], "application/octet-stream")
        self.assertRegex(response["Content-Disposition"], r'^attachment; filename="stream-2-0-1\.bin"$')
        whole = downloaded(self.client.get(download_url(b"big:stream", entry="2-0", index="7")))
        self.assertEqual(whole, self.values[b"f0007"])


@tag("cluster")
class HugeHashAndStringTest(KeysTestCase):
    def test_a_huge_hash_field_shows_a_few_kb_and_downloads_byte_for_byte(self):
        value = bytes(range(256)) * 4_000  # 1,024,000 bytes, every byte value
        raw_client().hset("big:hash", mapping={"small": "v", "huge": value})
        response = self.client.get(key_url("big:hash"))
        self.assertLess(len(response.content), PAGE_BYTES)
        (url,) = links(response)
        self.assertEqual(url, download_url(b"big:hash", field=b"huge"))
        with self.assertRoundTrips(math.ceil(len(value) / keystore.DOWNLOAD_CHUNK)):
            self.assertEqual(downloaded(self.client.get(url)), value)
        self.assertEqual(self.client.get(download_url(b"big:hash", field=b"gone")).status_code, 404)

    def test_fifty_huge_hash_values_make_a_small_page_and_a_small_reply(self):
        raw_client().hset("big:hash", mapping={f"f{i:02}": bytes([65 + i % 26]) * 200_000 for i in range(50)})
        with self.assertRoundTrips(2) as trace:  # an unregistered key: its type, then its page
            response = self.client.get(key_url("big:hash"))
        self.assertLess(len(response.content), 300_000)  # 50 cells of 4 KB
        self.assertEqual(len(links(response)), 50)
        self.assertContains(response, "first 4096 of 200000 bytes", count=50)
        (page,) = trace.trips("data")[1].commands
        self.assertIn("HSCAN", page.sent[1])  # read by HSCAN in a script that cuts each value

    def test_a_huge_string_downloads_byte_for_byte_by_getrange(self):
        value = b"\x00\xffjson" * 300_000
        raw_client().set("big:string", value)
        response = self.client.get(key_url("big:string"))
        self.assertLess(len(response.content), PAGE_BYTES)
        url = unescape(re.search(r'id="download" href="([^"]+)"', response.content.decode()).group(1))
        with self.assertRoundTrips(len(value) // keystore.DOWNLOAD_CHUNK + 2) as trace:  # TYPE, then the chunks
            body = downloaded(self.client.get(url))
        self.assertEqual(body, value)
        self.assertEqual(set(commands(trace)), {"TYPE", "GETRANGE"})
        raw_client().rpush("big:list", "a")
        self.assertEqual(self.client.get(download_url(b"big:list")).status_code, 404)

    def test_the_download_asks_the_key_browsers_permission_and_never_reads_a_session(self):
        raw_client().set("big:string", "secret")
        url = download_url(b"big:string")
        self.assertEqual(downloaded(self.client.get(url)), b"secret")
        session = download_url(session_keys()[0])
        with self.assertRoundTrips(0):
            self.assertEqual(self.client.get(session).status_code, 403)
        self.client.force_login(self.make_staff("ed", role="editor"))
        self.assertEqual(self.client.get(url).status_code, 403)
        self.client.logout()
        self.assertEqual(self.client.get(url).status_code, 302)  # to the sign-in page
