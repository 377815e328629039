"""The key list: SCAN pages with a cursor, filters, metadata in one pipeline, bounded cost."""

import re
from html import unescape

from django.core.cache import caches
from django.core.cache.utils import make_template_fragment_key
from django.test import tag

from config.keybrowser import store
from config.redis import on_cluster, raw_client
from tests.keybrowser.helpers import KeysTestCase, commands, load_keys, scans_logged


def listed(response) -> list[str]:
    """The key names in a key table, as the page shows them."""
    html = response.content.decode().replace("<wbr>", "")  # names may wrap after each ":"
    return [unescape(n) for n in re.findall(r'<td><a href="[^"]*"><span class="keyname[^"]*"[^>]*>(.*?)</span>', html)]


def next_query(response) -> str:
    found = re.search(r'<tr id="more-row">.*?href="([^"]+)"', response.content.decode(), re.S)
    return unescape(found.group(1)) if found else ""


@tag("cluster")
class BrowseTest(KeysTestCase):
    def test_lists_keys_with_scan_in_two_round_trips_never_keys(self):
        raw_client().hset("core:seed", "scale", "demo")
        raw_client().zadd("core:{signins}:count", {"staff": 3})
        with self.assertRoundTrips(2) as trace:
            response = self.client.get("/keys/")
        self.assertEqual(sorted(listed(response)), ["core:seed", "core:{signins}:count"])
        sent = commands(trace)
        self.assertNotIn("KEYS", sent)
        self.assertEqual(sent[0], "EVAL")  # the SCAN loop
        self.assertIn("SCAN", trace.trips("data")[0].commands[0].args[0])
        # The metadata of the whole page and DBSIZE in one script, whatever the number of keys: one command
        # (on a cluster, one a node, sent together: each given the keys of its node).
        described = trace.trips("data")[1 if not on_cluster() else 3 :]
        self.assertEqual({t.kind for t in described}, {"pipeline" if on_cluster() else "command"})
        self.assertEqual({c.name for t in described for c in t.commands}, {"EVAL"})
        self.assertEqual(
            sorted(k for t in described for c in t.commands for k in c.keys), ["core:seed", "core:{signins}:count"]
        )

    def test_each_key_shows_type_ttl_length_encoding_memory_and_owner(self):
        raw_client().zadd("core:{signins}:count", {"ann": 1, "bob": 2, "cy": 3})
        raw_client().set("stray", "v", ex=3600)
        response = self.client.get("/keys/")
        html = response.content.decode()
        where = r' <span class="muted where">127\.0\.0\.1:\d+ · slot \d+</span>' if on_cluster() else ""
        row = re.search(rf"core:<wbr>{{signins}}:<wbr>count</span></a>{where}</td>(.*?)</tr>", html, re.S).group(1)
        self.assertIn('<span class="badge type-zset">zset</span>', row)
        self.assertIn('<td class="num">3</td>', row)
        self.assertRegex(row, r"ziplist|listpack")
        self.assertRegex(row, r"\d+\s+bytes")
        self.assertIn("core · <code>core:{signins}:count</code>", row)
        stray = re.search(rf"stray</span></a>{where}</td>(.*?)</tr>", html, re.S).group(1)
        self.assertRegex(stray, r"<td class=\"nowrap\">(59m \d\ds|1h 00m)</td>")
        self.assertIn("orphan", stray)

    def test_a_row_is_kept_rendered_by_what_it_shows_and_follows_a_change(self):
        caches["fragments"].clear()
        redis = raw_client()
        redis.rpush("stray:list", "a", "b")
        redis.set(b"stray:\xff", "v")  # not UTF-8: its name is shown escaped, beside a name of the same text
        redis.set("stray:\\xff", "v")

        SHOWN = ("type", "length", "ttl", "no_ttl", "encoding", "memory", "node", "slot")  # noqa: N806

        def kept(page) -> list[str]:
            shown = []
            for row in page.context["rows"]:
                values = [row[name] for name in SHOWN]
                html = caches["fragments"].get(make_template_fragment_key("key-row", [row["meta"].key, *values]))
                self.assertIsNotNone(html, row["meta"].key)
                self.assertIn(html, page.content.decode())
                shown.append(html)
            return shown

        rows = kept(self.client.get("/keys/?pattern=stray:"))
        self.assertEqual(len(set(rows)), 3)
        self.assertEqual(sum("escaped" in html for html in rows), 1)
        redis.rpush("stray:list", "c")
        redis.expire("stray:list", 3600)
        row = next(html for html in kept(self.client.get("/keys/?pattern=stray:list")) if "list" in html)
        self.assertIn('<td class="num">3</td>', row)
        self.assertRegex(row, r"<td class=\"nowrap\">(59m \d\ds|1h 00m)</td>")

    def test_load_more_keeps_the_cursor_until_every_key_is_seen(self):
        load_keys(3000)
        response = self.client.get("/keys/")
        seen = listed(response)
        self.assertLess(len(seen), 3000)
        pages = 1
        while query := next_query(response):
            self.assertIn("cursor=", query)
            response = self.client.get("/keys/" + query)
            seen += listed(response)
            pages += 1
        self.assertGreater(pages, 3)
        self.assertEqual(set(seen), {f"bulk:item:{i}" for i in range(3000)})

    def test_load_more_with_htmx_returns_only_the_next_rows(self):
        load_keys(500)
        query = next_query(self.client.get("/keys/"))
        response = self.client.get("/keys/" + query, headers={"HX-Request": "true"})
        html = response.content.decode()
        self.assertNotIn("<html", html)
        self.assertTrue(html.lstrip().startswith("<tr>"))
        self.assertTrue(listed(response))

    def test_round_trips_stay_bounded_on_a_sparse_match_in_a_large_keyspace(self):
        load_keys(50_000)
        raw_client().set("needle", "1")
        with scans_logged() as asked:
            with self.assertRoundTrips(2) as trace:
                response = self.client.get("/keys/?pattern=needle&match=prefix")
            slots = asked()
        self.assertNotIn("KEYS", commands(trace))
        # Each server's SCAN steps asked for the budget's slots in all, never more, however many keys it holds
        # (twenty full steps asked for 18,050 here before, 14 ms of Redis time at 1.8 million keys).
        self.assertEqual(max(slots), store.SCAN_EXAMINED)
        self.assertRegex(response.content.decode(), r"from \d+ SCAN steps")  # COUNT 50, 200, 800 … up to 4,000

    def test_prefix_and_contains_escape_glob_characters(self):
        for name in ("a*b", "a?b", "a[1]", "axb", "a\\b", "za*b"):
            raw_client().set(name, "1")
        self.assertEqual(listed(self.client.get("/keys/", {"pattern": "a*", "match": "prefix"})), ["a*b"])
        self.assertEqual(listed(self.client.get("/keys/", {"pattern": "a[", "match": "prefix"})), ["a[1]"])
        self.assertEqual(listed(self.client.get("/keys/", {"pattern": "a\\", "match": "prefix"})), ["a\\b"])
        contains = self.client.get("/keys/", {"pattern": "a*b", "match": "contains"})
        self.assertEqual(sorted(listed(contains)), ["a*b", "za*b"])

    def test_glob_mode_passes_the_users_glob(self):
        for name in ("a*b", "a?b", "axb", "ab", "b"):
            raw_client().set(name, "1")
        glob = self.client.get("/keys/", {"pattern": "a?b", "match": "glob"})
        self.assertEqual(sorted(listed(glob)), ["a*b", "a?b", "axb"])
        self.assertEqual(listed(self.client.get("/keys/", {"pattern": "a\\?b", "match": "glob"})), ["a?b"])

    def test_type_filter_uses_scan_type(self):
        raw_client().set("s", "1")
        raw_client().zadd("z", {"m": 1})
        raw_client().sadd("set", "m")
        with self.assertRoundTrips(2) as trace:
            response = self.client.get("/keys/", {"type": "zset"})
        self.assertEqual(listed(response), ["z"])
        self.assertIn("zset", trace.trips("data")[0].commands[0].args)

    def test_bad_input_gets_a_field_error_and_reads_nothing(self):
        with self.assertRoundTrips(0):
            response = self.client.get("/keys/", {"pattern": "*" * 9 + "x", "match": "glob"})
        self.assertContains(response, "At most 8 * in a glob.")
        with self.assertRoundTrips(0):
            response = self.client.get("/keys/", {"cursor": "abc"})
        self.assertEqual(response.status_code, 400)
        with self.assertRoundTrips(0):
            response = self.client.get("/keys/", {"type": "module"})
        self.assertContains(response, "Select a valid choice")

    def test_empty_database_has_an_empty_state(self):
        response = self.client.get("/keys/")
        self.assertContains(response, "No keys match.")

    def test_a_key_searched_by_its_full_name_shows_at_once(self):
        load_keys(20_000)
        raw_client().set("needle", "1")
        with self.assertRoundTrips(2):
            response = self.client.get("/keys/", {"pattern": "needle"})
        self.assertContains(response, '<p class="card" id="exact">Exact name: <a href="/keys/?key=needle">')
        response = self.client.get("/keys/", {"pattern": "needle", "type": "hash"})
        self.assertNotContains(response, 'id="exact"')
        response = self.client.get("/keys/", {"pattern": "needle", "match": "glob"})
        self.assertNotContains(response, 'id="exact"')
