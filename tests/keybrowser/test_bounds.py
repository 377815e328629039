"""What comes from the URL is checked and bounded; what a page repeats in its links is too."""

import re
from html import unescape

from django.test import tag

from config.keybrowser import views
from config.keybrowser.store import nodes
from config.redis import on_cluster, raw_client
from tests.keybrowser.helpers import KeysTestCase, load_keys


@tag("cluster")
class CursorTest(KeysTestCase):
    def test_a_cursor_outside_redis_range_is_the_400_page_and_reads_nothing(self):
        for page in ("/keys/", "/keys/orphans/", "/keys/tree/", "/keys/registry/keys/?pattern=core:{*}:events&"):
            for cursor in (str(2**64), "9" * 20, "9" * 21, "²", "-1", "1e3"):
                url = f"{page}{'&' if '?' in page else '?'}cursor={cursor}"
                with self.subTest(url=url), self.assertRoundTrips(0):
                    self.assertEqual(self.client.get(url).status_code, 400)

    def test_the_largest_cursor_redis_takes_is_served(self):
        largest = 2**64 - 1  # SCAN's; on a cluster, the last node's largest position (nodes.Walk)
        if on_cluster():
            largest = (nodes.POSITION_END - 1) << nodes.NODE_BITS | len(raw_client().primaries()) - 1
        for page in ("/keys/", "/keys/orphans/", "/keys/tree/"):
            with self.subTest(page=page):
                self.assertEqual(self.client.get(page, {"cursor": str(largest)}).status_code, 200)


class GlobTest(KeysTestCase):
    def test_escaped_stars_count_toward_the_cap(self):
        for pattern in ("\\*" * 9, "\\\\*" * 9, "a*" * 9):
            with self.subTest(pattern=pattern), self.assertRoundTrips(0):
                response = self.client.get("/keys/", {"pattern": pattern, "match": "glob"})
            self.assertContains(response, "At most 8 * in a glob.")
        with self.assertRoundTrips(2):
            self.client.get("/keys/", {"pattern": "\\*" * 8, "match": "glob"})


class QueryTest(KeysTestCase):
    def test_load_more_links_carry_only_the_filters(self):
        load_keys(300)
        junk = "j" * 100_000
        response = self.client.get("/keys/", {"pattern": "bulk:", "junk": junk, "more": junk})
        html = response.content.decode()
        self.assertLess(len(html), 60_000)
        query = unescape(re.search(r'<tr id="more-row">.*?href="([^"]+)"', html, re.S).group(1))
        self.assertNotIn("junk", query)
        self.assertRegex(query, r"^\?pattern=bulk%3A&cursor=\d+&listed=\d+$")

    def test_orphans_links_carry_only_the_scan_state(self):
        load_keys(3000, "stray:{}")
        response = self.client.get("/keys/orphans/", {"junk": "j" * 100_000})
        self.assertLess(len(response.content), 200_000)
        self.assertNotContains(response, "junk")


class HugeNameTest(KeysTestCase):
    def test_a_one_megabyte_key_name_keeps_every_list_small(self):
        huge = b"huge:" + b"n" * 1_000_000
        raw_client().set(huge, b"x")
        for url in ("/keys/", "/keys/?pattern=huge:", "/keys/orphans/", "/keys/tree/?prefix=huge:"):
            with self.subTest(url=url):
                response = self.client.get(url)
                self.assertEqual(response.status_code, 200)
                self.assertLess(len(response.content), 60_000)
        self.assertContains(self.client.get("/keys/"), "name cut: first 300 of 1,000,005 bytes")
        raw_client().set(b"n" * 1_000_000 + b":leaf", b"x")  # a namespace with a huge name
        response = self.client.get("/keys/tree/")
        self.assertLess(len(response.content), 60_000)
        self.assertContains(response, "(too long for a link)")

    def test_the_status_line_follows_load_more(self):
        load_keys(300)
        first = self.client.get("/keys/", {"pattern": "bulk:"}).content.decode()
        query = unescape(re.search(r'<tr id="more-row">.*?href="([^"]+)"', first, re.S).group(1))
        more = self.client.get("/keys/" + query, HTTP_HX_REQUEST="true").content.decode()
        status = re.search(r'<p class="hint" id="scan-status" hx-swap-oob="true">(.*?)</p>', more, re.S).group(1)
        self.assertIn("Continued from a cursor", status)
        self.assertRegex(status, r"\d+ listed so far")


@tag("cluster")
class OrphansAutoTest(KeysTestCase):
    def test_the_page_scans_on_by_itself_until_it_is_full_then_waits(self):
        load_keys(1500, "stray:{}")
        response = self.client.get("/keys/orphans/")
        self.assertContains(response, 'hx-trigger="load delay:50ms"')
        html = response.content.decode()
        # Follow the self-loading row as htmx does, until it stops.
        requests = 0
        while found := re.search(r'<tr id="more-row" hx-get="([^"]+)" hx-trigger="load', html):
            response = self.client.get("/keys/orphans/" + unescape(found.group(1)), HTTP_HX_REQUEST="true")
            html = response.content.decode()
            self.assertIn('id="scan-status" role="status" hx-swap-oob="true"', html)
            requests += 1
        listed = int(re.search(r"(\d+) orphans? found among (\d+)", html).group(1))
        self.assertGreaterEqual(listed, views.ORPHANS_SHOWN)
        if "The SCAN is complete." not in html:
            self.assertContains(response, ">Load more</a>")  # full: it waits for the user
        self.assertLessEqual(requests, 3)

    def test_without_javascript_load_more_is_a_page(self):
        load_keys(2500, "stray:{}")
        response = self.client.get("/keys/orphans/")
        link = unescape(re.search(r'<a href="(\?cursor=[^"]+)">Load more</a>', response.content.decode()).group(1))
        page = self.client.get("/keys/orphans/" + link)
        self.assertEqual(page.status_code, 200)
        self.assertContains(page, "<h1>Orphan keys</h1>")
        # and the session, its user's cache entry and stamp
        self.assertRegex(page.content.decode(), r"\d+ orphans found among \d+ of about 2503 keys")

    def test_the_scan_walks_to_the_end(self):
        load_keys(30, "stray:{}")
        response = self.client.get("/keys/orphans/")
        # and the session, its user's cache entry and stamp
        self.assertContains(response, "30 orphans found among 33 of about 33 keys")
        self.assertContains(response, "The SCAN is complete.")
        self.assertNotContains(response, "more-row")


class StringViewTest(KeysTestCase):
    def test_a_binary_string_can_be_shown_as_hex(self):
        raw_client().set("bin:blob", b"\x00\x01PNG\xff" + b"a" * 20)
        response = self.client.get("/keys/?key=bin%3Ablob")
        self.assertContains(response, "(binary: some bytes are not printable UTF-8)")
        self.assertContains(response, '<a href="?key=bin%3Ablob&amp;cursor=0&amp;as=hex">hex</a>')
        response = self.client.get("/keys/?key=bin%3Ablob&as=hex")
        html = response.content.decode()
        found = re.search(r'<pre class="hexdump" id="hexdump" tabindex="0">(.*?)</pre>', html, re.S)
        hexdump = unescape(found.group(1))
        self.assertEqual(
            hexdump.splitlines(),
            [
                "00000000  00 01 50 4e 47 ff 61 61 61 61 61 61 61 61 61 61  ..PNG.aaaaaaaaaa",
                "00000010  61 61 61 61 61 61 61 61 61 61                    aaaaaaaaaa",
            ],
        )


class OwnerIndexTest(KeysTestCase):
    def test_the_indexed_owner_is_the_registry_match(self):
        from config.keybrowser.owners import owner
        from config.keyspace import keyspace

        names = [p.pattern.replace("*", "7") for p in keyspace.patterns]
        names += [
            "stray",
            "catalog:{catalog}:product:7:nope",
            "a::b",
            "django:x:session:y",
            "orgchart:{orgchart}:location:1:temp:raw:2026",
            "orgchart:{sensor-1}:location:1:temp:raw:2026",
            "orgchart:{sensor-1}:location:2:temp:raw:2026",
        ]
        for name in names:
            with self.subTest(name=name):
                self.assertIs(owner(name), keyspace.match(name))
                self.assertIs(owner(name.encode()), keyspace.match(name))

    def test_overlapping_globs_give_the_most_specific_then_the_first_registered(self):
        from unittest import mock

        from config.keybrowser.owners import owner
        from config.keyspace import KeyPattern, keyspace

        registered = [
            KeyPattern("t", pattern, "hash", "", "")
            for pattern in ("t:*:*", "t:a*b*c:x", "t:*:x", "t:ab?d:x", "t:q", "*:q", "*:*:y", "t:[ab]:y")
        ]
        expected = {
            "t:aXbYc:x": "t:a*b*c:x",  # a glob with groups of its own, among other alternatives
            "t:abzd:x": "t:*:x",  # before the equally specific t:ab?d:x registered after it
            "t:zz:x": "t:*:x",
            "t:zz:z": "t:*:*",
            "t:q": "t:q",
            "u:q": "*:q",
            "t:a:y": "t:[ab]:y",  # one wildcard under a literal first segment beats a glob first
            "u:a:y": "*:*:y",
            "t:q:y:z": None,
        }
        with mock.patch.object(keyspace, "patterns", registered):
            for name, pattern in expected.items():
                with self.subTest(name=name):
                    found = owner(name)
                    self.assertEqual(found.pattern if found else None, pattern)
                    if pattern != "t:[ab]:y":
                        self.assertIs(found, keyspace.match(name))

    def test_a_key_is_matched_once_a_shape_not_once_a_pattern(self):
        from config.keybrowser.owners import owner, patterns_by_shape
        from config.keyspace import keyspace

        calls = []

        def counted(fullmatch):
            def call(text):
                calls.append(text)
                return fullmatch(text)

            return call

        index = {shape: (counted(fullmatch), entries) for shape, (fullmatch, entries) in patterns_by_shape().items()}
        for name in [p.pattern.replace("*", "7") for p in keyspace.patterns]:
            calls.clear()
            with self.subTest(name=name):
                self.assertIs(owner(name, index), keyspace.match(name))
                self.assertLessEqual(len(calls), 2)  # the key's first segment's shape, and the glob-first one

    def test_a_pattern_registered_again_under_its_name_is_the_owner_seen(self):
        from config.keybrowser.owners import owner
        from config.keyspace import keyspace
        from tests.keybrowser.helpers import extra_patterns

        with extra_patterns():
            last = keyspace.patterns[-1]  # registered again, it stays last: the names keep their order
            key = last.pattern.replace("*", "7")
            self.assertIs(owner(key), last)
            again = keyspace.register(last.app, last.pattern, last.type, "again", "its name unchanged")
            self.assertIs(owner(key), again)
