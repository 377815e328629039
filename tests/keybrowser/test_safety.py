"""Read-only, behind login, sessions never readable, every name rendered safely."""

import json
import re
from html import unescape
from urllib.parse import quote_from_bytes, unquote_to_bytes

from django.test import Client, SimpleTestCase
from hypothesis import given
from hypothesis import strategies as st

from config import trace as tracing
from config.keybrowser import store
from config.keybrowser.display import NAME_SHOWN, key_param, key_rows, key_url, pretty_json, show
from config.keybrowser.owners import owner
from config.keybrowser.store import KeyMeta
from config.redis import raw_client
from tests.keybrowser.helpers import READ_ONLY, KeysTestCase, commands, panel_commands

PAGES = [
    "/keys/",
    "/keys/?type=hash",
    "/keys/tree/",
    "/keys/registry/",
    "/keys/registry/keys/?pattern=core:{*}:events",
    "/keys/orphans/",
]

NASTY = [
    b"<script>alert(1)</script>",
    b"quote\"and'apostrophe",
    b"bracket[1]",
    b"back\\slash",
    b"new\nline",
    b"a::b",
    b"trailing:",
    b"long:" + b"x" * 5000,
]


def session_keys() -> list[bytes]:
    return list(raw_client().scan_iter(match=b"django:*"))


class ReadOnlyTest(KeysTestCase):
    def test_every_page_needs_a_login(self):
        for url in [*PAGES, "/keys/?key=core:seed", "/keys/behind/?t=x"]:
            response = Client().get(url)
            self.assertEqual(response.status_code, 302, url)
            self.assertTrue(response["Location"].startswith("/accounts/login/"), url)

    def test_nothing_accepts_a_write(self):
        for url in [*PAGES, "/keys/?key=core:seed", "/keys/behind/?t=x"]:
            self.assertEqual(self.client.post(url).status_code, 405, url)

    def test_every_command_sent_is_a_read(self):
        client = raw_client()
        client.hset("core:seed", "a", "1")
        client.zadd("core:{signins}:count", {"a": 1})
        client.rpush("core:{signins}:recent", '{"user": "a", "at": 1}')
        client.xadd("core:{cms}:events", {"a": "1"})
        client.sadd("odd:set", "1")
        client.set("odd:string", "1", ex=60)
        dbsize = client.dbsize()
        keys = [
            "core:seed",
            "core:{signins}:count",
            "core:{signins}:recent",
            "core:{cms}:events",
            "odd:set",
            "odd:string",
        ]
        urls = PAGES + [key_url(k) for k in keys] + ["/keys/tree/?prefix=core:"]
        sent = set()
        for url in urls:
            with self.subTest(url=url):
                with tracing.recording() as trace:
                    self.assertEqual(self.client.get(url).status_code, 200)
                sent |= set(commands(trace))
                self.assertLessEqual(trace.wave_count("data"), 2)
        self.assertLessEqual(sent, READ_ONLY, sent - READ_ONLY)
        self.assertEqual(client.dbsize(), dbsize)

    def test_the_lua_scripts_only_read(self):
        reads = {"SCAN", "TYPE", "STRLEN", "HLEN", "LLEN", "SCARD", "ZCARD", "XLEN"}
        reads |= {"PTTL", "OBJECT", "MEMORY", "DBSIZE"}
        for script in (store.SCAN_PAGE, store._TREE, store._ORPHANS, store._DESCRIBE_KEYS):
            called = set(re.findall(r"redis\.p?call\('([A-Z]+)'", script))
            self.assertLessEqual(called, reads)
            # Every call names its command, but the length's, read from a table of read commands.
            computed = re.findall(r"redis\.p?call\(([^')]+)", script)
            self.assertLessEqual(set(computed), {"lengths[t], key"})
        self.assertLessEqual(set(re.findall(r"= '([A-Z]+)'", store._DESCRIBE_KEYS)), reads)


class SessionTest(KeysTestCase):
    def test_session_keys_are_never_listed(self):
        self.assertTrue(session_keys())  # the signed-in test client has one
        for url in ["/keys/", "/keys/?pattern=django", "/keys/?pattern=*sessions*&match=glob", "/keys/orphans/"]:
            response = self.client.get(url)
            self.assertNotContains(response, "django.contrib.sessions")
            self.assertNotContains(response, "django:1:")
        response = self.client.get("/keys/tree/")
        self.assertNotContains(response, "django:")

    def test_session_key_asked_by_name_is_refused_without_reading_it(self):
        session = session_keys()[0]
        with self.assertRoundTrips(0):
            response = self.client.get(key_url(session))
        self.assertEqual(response.status_code, 403)
        self.assertContains(response, "never reads these keys", status_code=403)
        self.assertEqual(self.client.get("/keys/tree/?prefix=django:").status_code, 404)
        self.assertEqual(self.client.get("/keys/registry/keys/?pattern=django:*:*").status_code, 404)

    def test_the_redis_panel_masks_the_session_key(self):
        session = session_keys()[0].decode()
        response = self.client.get("/keys/registry/")
        self.assertNotContains(response, session[:40])
        listed = panel_commands(response.content.decode())
        self.assertNotIn(session[:40], listed)
        self.assertIn("‹session/cache key›", listed)


class NastyNamesTest(KeysTestCase):
    def test_every_segment_of_a_name_is_escaped_and_only_the_breaks_are_markup(self):
        raw_client().set(b"seg:<b>bold</b>:'q\"&", "v")
        html = self.client.get("/keys/").content.decode()
        self.assertIn('<span class="keyname">seg:<wbr>&lt;b&gt;bold&lt;/b&gt;:<wbr>&#x27;q&quot;&amp;</span>', html)
        self.assertNotIn("<b>bold</b>", html)

    def test_names_render_escaped_and_link_to_their_own_key(self):
        for i, name in enumerate(NASTY):
            raw_client().set(name, f"value-{i}")
        response = self.client.get("/keys/")
        html = response.content.decode()
        self.assertNotIn("<script>alert(1)</script>", html)
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;", html)
        self.assertIn("quote&quot;and&#x27;apostrophe", html)
        self.assertIn("new\\nline", html)  # shown on one line, the newline visible
        self.assertIn(">name cut: first 300 of 5,005 bytes</span>", html)  # the 5,000-byte name is cut in the list
        links = [unescape(u) for u in re.findall(r'<td><a href="(/keys/\?key=[^"]+)">', html)]
        self.assertEqual(len(links), len(NASTY) - 1)  # no server takes a 5 KB request line
        self.assertIn("(too long for a link)", html)
        for link in links:
            page = self.client.get(link)
            self.assertEqual(page.status_code, 200, link)
            value = re.search(r'<span class="value">(value-\d)</span>', page.content.decode())
            name = NASTY[int(value.group(1).split("-")[1])]
            self.assertEqual(link, key_url(name))
        self.assertEqual(key_url(b"long:" + b"x" * 5000), "")
        page = self.client.get("/keys/?key=" + key_param(b"long:" + b"x" * 5000))
        self.assertContains(page, "x" * 5000)  # the key page shows the whole name

    def test_empty_segments_and_trailing_colon_in_the_tree(self):
        for name in NASTY:
            raw_client().set(name, "1")
        response = self.client.get("/keys/tree/")
        html = response.content.decode()
        self.assertIn('href="/keys/tree/?prefix=a%3A"', html)
        self.assertIn('href="/keys/tree/?prefix=trailing%3A"', html)
        response = self.client.get("/keys/tree/?prefix=a%3A")
        self.assertContains(response, 'href="/keys/tree/?prefix=a%3A%3A"')  # the empty segment
        response = self.client.get("/keys/tree/?prefix=trailing%3A")
        # The key named like the prefix itself is its only leaf, and links to itself.
        self.assertContains(response, '<a href="/keys/?key=trailing%3A"><span class="keyname">(this very key)</span>')


class KeyParamTest(SimpleTestCase):
    @given(st.one_of(st.binary(max_size=40), st.text(alphabet="ab:{}-_.~ %/?#&é\x00", max_size=40).map(str.encode)))
    def test_a_key_is_encoded_byte_for_byte_as_quote_does(self, raw):
        self.assertEqual(key_param(raw), quote_from_bytes(raw, safe=""))
        self.assertEqual(unquote_to_bytes(key_param(raw)), raw)

    def test_a_tagged_name_takes_the_fast_path(self):
        self.assertEqual(key_param("school:{school}:course:4"), "school%3A%7Bschool%7D%3Acourse%3A4")


NAME_CHARS = "ab:{} <&\"'\t\n\x7f\x00é\u2028"  # printable ASCII, HTML's specials, controls, UTF-8


class KeyRowsTest(SimpleTestCase):
    NAMES = st.one_of(
        st.binary(max_size=40),
        st.text(alphabet=NAME_CHARS + "0123456789%", max_size=40).map(str.encode),
        st.sampled_from(
            [
                b"catalog:{catalog}:product:12",
                b"school:{school}:course:4",
                b"school:{school}:course:\xff",
                b"x" * (NAME_SHOWN + 1),
            ]
        ),
    )

    @given(NAMES)
    def test_a_row_shows_and_links_its_name_as_the_general_path_does(self, raw):
        # key_rows reads a plain name (letters, digits, colons, braces) without show() and key_url():
        # whichever way it goes, the row is what they make of the name.
        meta = KeyMeta(key=raw, type="hash", length=1, ttl_ms=None, encoding="listpack", memory=None)
        (row,) = key_rows([meta])
        self.assertEqual(row["name"], show(raw, NAME_SHOWN, name=True))
        self.assertEqual(row["url"], key_url(raw))
        pattern = owner(raw)
        self.assertEqual(row["pattern"], pattern.pattern if pattern else "")

    def test_a_registered_name_links_to_its_screen(self):
        meta = KeyMeta(key=b"school:{school}:course:4", type="hash", length=1, ttl_ms=None, encoding="", memory=None)
        (row,) = key_rows([meta])
        self.assertEqual(
            (row["url"], row["screen_url"]), ("/keys/?key=school%3A%7Bschool%7D%3Acourse%3A4", "/school/courses/4/")
        )


class ShowTest(SimpleTestCase):
    @given(
        st.one_of(st.binary(max_size=40), st.text(alphabet=NAME_CHARS, max_size=40).map(str.encode)),
        st.integers(min_value=0, max_value=45),
        st.booleans(),
    )
    def test_printable_ascii_takes_the_fast_path_and_shows_what_the_full_path_shows(self, raw, limit, name):
        # A bytearray never takes the fast path (it is for bytes only): the full path is the reference.
        self.assertEqual(show(raw, limit, name), show(bytearray(raw), limit, name))

    def test_a_tab_or_newline_in_a_name_is_escaped_and_flagged(self):
        shown = show(b"a\tb\nc", name=True)
        self.assertEqual((shown.text, shown.escaped), ("a\\tb\\nc", True))


class PrettyJsonTest(SimpleTestCase):
    def test_json_is_indented_and_an_empty_embed_shown_as_json_would_show_it(self):
        self.assertEqual(pretty_json(b'{"a": [1, {}]}'), '{\n  "a": [\n    1,\n    {}\n  ]\n}')
        for value in (b"[]", b" {} ", b"\n[]\n"):
            self.assertEqual(pretty_json(value), json.dumps(json.loads(value), indent=2), value)
        for value in (b"[", b"[] x", b"plain", b""):
            self.assertEqual(pretty_json(value), "", value)
