"""One key: a view per type, paged inside, JSON and binary shown safely, owner, TTL, links."""

import json
import re
from html import unescape

from django.test import tag

from config.keybrowser import store
from config.keybrowser.display import key_url
from config.redis import raw_client
from tests.keybrowser.helpers import KeysTestCase, commands, extra_patterns


def cells(response, kind: str = "value") -> list[str]:
    html = response.content.decode()
    return [unescape(v) for v in re.findall(rf'<span class="{kind}[^"]*">(.*?)</span>', html, re.S)]


@tag("cluster")
class KeyTypesTest(KeysTestCase):
    def test_hash_shows_fields_and_values(self):
        raw_client().hset("core:seed", mapping={"scale": "demo", "apps": "catalog,school"})
        with self.assertRoundTrips(1) as trace:  # registered as a hash: the page rides with the metadata
            response = self.client.get(key_url("core:seed"))
        self.assertEqual(cells(response), ["apps", "catalog,school", "scale", "demo"])  # one page: sorted by field
        self.assertEqual(commands(trace), ["EVAL", "EVAL"])  # the metadata; the page by HSCAN, values cut
        self.assertIn("HSCAN", trace.trips("data")[0].commands[1].sent[1])

    def test_set_shows_members(self):
        raw_client().sadd("odd:set", "a", "b", "c")
        with self.assertRoundTrips(2) as trace:  # unregistered: TYPE first, then the page
            response = self.client.get(key_url("odd:set"))
        self.assertEqual(sorted(cells(response)), ["a", "b", "c"])
        self.assertIn("SSCAN", commands(trace))
        self.assertNotIn("SMEMBERS", commands(trace))

    def test_sorted_set_shows_members_with_scores_in_order(self):
        raw_client().zadd("core:{signins}:count", {"cy": 30, "ann": 1, "bob": 2.5})
        response = self.client.get(key_url("core:{signins}:count"))
        rows = re.findall(
            r'<td class="num">(\d+)</td><td><span class="value">(\w+)</span></td><td class="num">([\d.]+)</td>',
            response.content.decode(),
        )
        self.assertEqual(rows, [("0", "ann", "1"), ("1", "bob", "2.5"), ("2", "cy", "30")])

    def test_a_sorted_set_scored_by_time_shows_each_score_as_its_date(self):
        key = "cms:{cms}:index:updated"  # registered with scores that are Unix times
        raw_client().zadd(key, {"7": 1736658178.5, "9": 1748614300})
        html = self.client.get(key_url(key)).content.decode()
        self.assertIn("Score (a time)", html)
        shown = re.findall(r'<time datetime="([^"]+)">([^<]+)</time> <span class="muted score">([^<]+)</span>', html)
        self.assertEqual(
            shown,
            [
                ("2025-01-12T05:02:58.500000+00:00", "2025-01-12 05:02:58.500 UTC", "1736658178.5"),
                ("2025-05-30T14:11:40+00:00", "2025-05-30 14:11:40 UTC", "1748614300"),
            ],
        )

    def test_list_shows_a_range(self):
        raw_client().rpush("odd:list", "first", "second")
        response = self.client.get(key_url("odd:list"))
        self.assertEqual(cells(response), ["first", "second"])
        self.assertContains(response, "LRANGE")

    def test_stream_shows_entries(self):
        raw_client().xadd("core:{cms}:events", {"verb": "add", "app": "catalog"}, id="1-1")
        response = self.client.get(key_url("core:{cms}:events"))
        self.assertContains(response, "<code>1-1</code>")
        self.assertEqual(cells(response), ["verb", "add", "app", "catalog"])

    def test_string_shows_the_value(self):
        raw_client().set("odd:string", "hello")
        response = self.client.get(key_url("odd:string"))
        self.assertEqual(cells(response), ["hello"])

    def test_a_key_of_another_type_than_registered_is_flagged_and_still_shown(self):
        raw_client().set("core:seed", "not a hash")
        with self.assertRoundTrips(2):  # the guessed HSCAN failed: the page is read again by its real type
            response = self.client.get(key_url("core:seed"))
        self.assertContains(response, "registered as hash")
        self.assertEqual(cells(response), ["not a hash"])

    def test_missing_key_says_so(self):
        with self.assertRoundTrips(1):
            response = self.client.get(key_url("core:seed"))
        self.assertContains(response, "This key does not exist.")
        self.assertContains(response, "Marker")  # its owner is still named


class TitleTest(KeysTestCase):
    def test_the_title_cuts_a_long_name_as_truncatechars_did(self):
        long_name, short_name = "t:" + "x" * 100, "t:" + "y" * 58
        raw_client().set(long_name, "1")
        raw_client().set(short_name, "1")
        self.assertContains(self.client.get(key_url(long_name.encode())), f"<title>Key t:{'x' * 57}…")
        self.assertContains(self.client.get(key_url(short_name.encode())), f"<title>Key {short_name} ·")


class BigKeysTest(KeysTestCase):
    def test_big_hash_is_paged_with_hscan(self):
        raw_client().hset("big:hash", mapping={f"f{i}": i for i in range(2000)})
        response = self.client.get(key_url("big:hash"))
        first = cells(response)[::2]
        self.assertLess(len(first), 200)
        seen = set(first)
        while found := re.search(r'rel="next" href="([^"]+)"', response.content.decode()):
            with self.assertRoundTrips(2) as trace:
                response = self.client.get("/keys/" + unescape(found.group(1)))
            self.assertNotIn("HGETALL", commands(trace))
            seen |= set(cells(response)[::2])
        self.assertEqual(seen, {f"f{i}" for i in range(2000)})

    def test_big_sorted_set_is_paged_by_rank(self):
        raw_client().zadd("big:zset", {f"m{i:04d}": i for i in range(120)})
        response = self.client.get(key_url("big:zset"))
        self.assertEqual(len(cells(response)), store.PAGE)
        response = self.client.get(key_url("big:zset") + "&cursor=100")
        self.assertEqual(cells(response), [f"m{i:04d}" for i in range(100, 120)])
        self.assertNotContains(response, 'rel="next"')

    def test_big_list_is_paged(self):
        raw_client().rpush("big:list", *[f"i{i}" for i in range(120)])
        response = self.client.get(key_url("big:list") + "&cursor=50")
        self.assertEqual(cells(response), [f"i{i}" for i in range(50, 100)])
        self.assertContains(response, "cursor=100")

    def test_big_stream_is_paged_after_the_last_id(self):
        for i in range(1, 121):
            raw_client().xadd("big:stream", {"n": i}, id=f"{i}-0")
        response = self.client.get(key_url("big:stream"))  # newest first
        self.assertLess(response.content.index(b"<code>120-0</code>"), response.content.index(b"<code>119-0</code>"))
        self.assertContains(response, "cursor=71-0")
        response = self.client.get(key_url("big:stream") + "&cursor=71-0")
        self.assertContains(response, "<code>70-0</code>")
        self.assertContains(response, "<code>21-0</code>")
        self.assertNotContains(response, "<code>71-0</code>")

    def test_long_string_is_read_with_getrange(self):
        raw_client().set("big:string", b"a" * 100_000)
        with self.assertRoundTrips(2) as trace:
            response = self.client.get(key_url("big:string"))
        self.assertIn("GETRANGE", commands(trace))
        self.assertNotIn("GET", commands(trace))
        self.assertEqual(len(cells(response)[0]), store.STRING_CHUNK)
        self.assertContains(response, f"cursor={store.STRING_CHUNK}")

    def test_a_position_redis_cannot_read_is_a_400(self):
        raw_client().zadd("big:zset", {"m": 1})
        raw_client().hset("big:hash", "f", "v")
        raw_client().xadd("big:stream", {"n": 1})
        for url in [
            key_url("big:zset") + "&cursor=-1",
            key_url("big:zset") + f"&cursor={2**63}",
            key_url("big:hash") + f"&cursor={2**64}",
            key_url("big:hash") + "&cursor=%C2%B2",  # a superscript two: a digit, not an ASCII one
            key_url("big:stream") + "&cursor=abc",
            key_url("big:stream") + f"&cursor={2**64}-0",
        ]:
            with self.subTest(url=url), self.assertRoundTrips(1):
                self.assertEqual(self.client.get(url).status_code, 400)
        self.assertEqual(self.client.get(key_url("big:hash") + f"&cursor={2**64 - 1}").status_code, 200)


class ValuesTest(KeysTestCase):
    def test_json_in_a_string_and_a_hash_field_is_pretty_printed(self):
        raw_client().set("doc:json", json.dumps({"name": "Earbuds", "tags": ["a", "b"]}))
        raw_client().hset("doc:hash", "specs", json.dumps({"battery": 8}))
        response = self.client.get(key_url("doc:json"))
        pretty = '<pre class="value json" tabindex="0">{\n  &quot;name&quot;: &quot;Earbuds&quot;,'
        self.assertContains(response, pretty)
        response = self.client.get(key_url("doc:hash"))
        self.assertContains(response, '<pre class="value json" tabindex="0">{\n  &quot;battery&quot;: 8\n}</pre>')

    def test_binary_values_are_shown_escaped(self):
        raw_client().set("bin:string", b"\xff\xfe\x00ok")
        raw_client().hset("bin:hash", b"\x80field", b"caf\xe9")
        raw_client().sadd("bin:set", b"\x01\x02")
        response = self.client.get(key_url("bin:string"))
        self.assertEqual(response.status_code, 200)
        self.assertEqual(cells(response)[0], "\\xff\\xfe\\x00ok")
        self.assertContains(response, ">binary</span>")
        self.assertEqual(cells(self.client.get(key_url("bin:hash"))), ["\\x80field", "caf\\xe9"])
        self.assertEqual(cells(self.client.get(key_url("bin:set"))), ["\\x01\\x02"])

    def test_binary_key_names_round_trip_through_their_link(self):
        raw_client().set(b"bin:\xff\x00name", b"value")
        response = self.client.get("/keys/?pattern=bin:")
        link = unescape(re.search(r'href="(/keys/\?key=bin[^"]+)"', response.content.decode()).group(1))
        self.assertEqual(link, "/keys/?key=bin%3A%FF%00name")
        response = self.client.get(link)
        self.assertEqual(cells(response), ["value"])
        self.assertContains(response, "bin:\\xff\\x00name")


class OwnerTest(KeysTestCase):
    def test_owner_app_pattern_why_and_screens(self):
        raw_client().zadd("core:{signins}:count", {"ann": 1})
        response = self.client.get(key_url("core:{signins}:count"))
        self.assertContains(response, "<dt>App</dt><dd>core</dd>", html=False)
        self.assertContains(response, "Login system (the Redis login-system tutorial): counter ranking")
        self.assertContains(response, "A sorted set is a counter and a ranking at once")
        self.assertContains(response, '<a href="/">dashboard</a>')

    def test_unregistered_key_is_called_an_orphan(self):
        raw_client().set("stray", "1")
        self.assertContains(self.client.get(key_url("stray")), "No registered pattern owns this key")

    def test_members_that_are_ids_link_to_their_key_and_screen(self):
        with extra_patterns() as keyspace:
            keyspace.register_app("shop", "shop:")
            keyspace.register("shop", "shop:item:*", "hash", "Embedded", "An item.", url="/shop/items/{id}/",
                              index="shop:index:items")  # fmt: skip
            keyspace.register("shop", "shop:index:items", "zset", "Index", "Items by date.")
            keyspace.register("shop", "shop:index:tag:*", "set", "Inverted index", "Items by tag.")
            keyspace.register("shop", "shop:item:*:related", "set", "Reverse set", "Items related.")
            raw_client().zadd("shop:index:items", {"7": 1})
            raw_client().sadd("shop:index:tag:red", "9")
            raw_client().sadd("shop:item:7:related", "shop:item:9", "not-a-key")
            response = self.client.get(key_url("shop:index:items"))
            self.assertContains(response, '<a class="member-key" href="/keys/?key=shop%3Aitem%3A7">key</a>')
            self.assertContains(response, '<a class="member-screen" href="/shop/items/7/">screen</a>')
            raw_client().zadd("shop:index:items", {"folded name\x0012": 0})  # a lexical index: name, then id
            response = self.client.get(key_url("shop:index:items"))
            self.assertContains(response, '<a class="member-screen" href="/shop/items/12/">screen</a>')
            response = self.client.get(key_url("shop:index:tag:red"))
            self.assertContains(response, '<a class="member-screen" href="/shop/items/9/">screen</a>')
            response = self.client.get(key_url("shop:item:7:related"))
            self.assertContains(response, '<a class="member-key" href="/keys/?key=shop%3Aitem%3A9">key</a>')
            self.assertContains(response, '<a class="member-screen" href="/shop/items/9/">screen</a>')
            self.assertEqual(response.content.decode().count('class="member-key"'), 1)
            raw_client().hset("shop:item:7", mapping={"name": "seven", "item_id": "9"})
            response = self.client.get(key_url("shop:item:7"))
            self.assertContains(response, '<a id="screen-link" href="/shop/items/7/">')
            self.assertContains(response, '<a class="member-screen" href="/shop/items/9/">screen</a>')  # item_id

    def test_keys_of_the_same_document_link_each_other(self):
        with extra_patterns() as keyspace:
            keyspace.register_app("shop", "shop:")
            keyspace.register("shop", "shop:item:*", "hash", "Embedded", "An item.")
            keyspace.register("shop", "shop:item:*:related", "set", "Reverse set", "Items related.")
            keyspace.register("shop", "shop:item:*:log", "list", "Log", "What happened.")
            raw_client().hset("shop:item:7", "name", "seven")
            raw_client().sadd("shop:item:7:related", "9")
            with self.assertRoundTrips(1):  # the EXISTS of each related key rides in the page's pipeline
                response = self.client.get(key_url("shop:item:7"))
            related = response.content.decode().split('id="related"')[1].split("</ul>")[0]
            self.assertIn('<a href="/keys/?key=shop%3Aitem%3A7%3Arelated">', related)
            self.assertIn('<a href="/keys/?key=shop%3Aitem%3A7%3Alog">', related)
            self.assertEqual(related.count("absent"), 1)  # the log was never written
            response = self.client.get(key_url("shop:item:7:related"))
            back = '<a href="/keys/?key=shop%3Aitem%3A7"><span class="keyname">shop:<wbr>item:<wbr>7</span>'
            self.assertContains(response, back)


class TtlTest(KeysTestCase):
    def test_ttl_is_shown_with_its_expiry_time_and_counts_down(self):
        raw_client().set("session-like", "1", ex=7200)
        response = self.client.get(key_url("session-like"))
        self.assertRegex(response.content.decode(), r'data-expires-ms="7\d{6}">(1h 59m|2h 00m)</span>')
        self.assertContains(response, "expires <time datetime=")
        self.assertContains(response, "js/app.js")  # the countdown, a static file (no inline script)

    def test_persistent_key_has_no_ttl(self):
        raw_client().set("forever", "1")
        self.assertContains(self.client.get(key_url("forever")), "none (persistent)")
