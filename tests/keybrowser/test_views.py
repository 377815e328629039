"""Namespaces, registry, orphans and "keys behind this screen"."""

import random
import re
from html import unescape
from unittest import mock

from django.core import signing
from django.test import tag

from config import keys
from config.keybrowser import behind, store
from config.redis import raw_client
from config.trace import Command, RoundTrip, Trace
from tests.keybrowser.helpers import KeysTestCase, commands, extra_patterns, load_keys


def tree_counts(response) -> dict[str, int]:
    rows = re.findall(
        r'<span class="keyname">(.*?)</span></a>(?: <span class="muted">key</span>)?</td>\s*<td class="num">(\d+)</td>',
        response.content.decode().replace("<wbr>", ""),
    )
    return {unescape(name): int(count) for name, count in rows}


@tag("cluster")
class NamespaceTest(KeysTestCase):
    def test_groups_keys_by_segment_with_counts(self):
        client = raw_client()
        client.set("core:seed", "1")
        client.zadd("core:{signins}:count", {"a": 1})
        client.rpush("core:{signins}:recent", "x")
        load_keys(30, "bulk:item:{}")
        with self.assertRoundTrips(1):
            response = self.client.get("/keys/tree/")
        self.assertEqual(tree_counts(response), {"bulk:": 30, "core:": 3})
        self.assertContains(response, "The SCAN is complete: the counts are exact.")
        with self.assertRoundTrips(1) as trace:
            response = self.client.get("/keys/tree/?prefix=core:")
        self.assertEqual(tree_counts(response), {"{signins}:": 2, "seed": 1})
        self.assertIn("core:*", trace.trips("data")[0].commands[0].args)  # only that prefix is matched
        self.assertContains(response, 'href="/keys/?key=core%3Aseed"')

    def test_scan_further_carries_the_counts_until_they_are_exact(self):
        load_keys(3000, "bulk:item:{}")
        load_keys(2000, "other:{}")
        with mock.patch.object(store, "TREE_STEPS", 1), mock.patch.object(store, "SCAN_COUNT", 500):
            response = self.client.get("/keys/tree/")
            self.assertContains(response, "Counts so far")
            requests = 1
            while found := re.search(r'id="scan-further" href="([^"]+)"', response.content.decode()):
                with self.assertRoundTrips(1):
                    response = self.client.get("/keys/tree/" + unescape(found.group(1)))
                requests += 1
        self.assertGreater(requests, 3)
        self.assertEqual(tree_counts(response), {"bulk:": 3000, "other:": 2000})

    def test_children_past_the_limit_are_counted_together(self):
        load_keys(30, "many:{}")
        with mock.patch.object(store, "TREE_CHILDREN", 10):
            response = self.client.get("/keys/tree/?prefix=many:")
        self.assertEqual(len(tree_counts(response)), 10)
        self.assertRegex(response.content.decode(), r"other segments.*?<td class=\"num\">20</td>")

    def test_a_bad_cursor_is_a_400_and_a_forged_token_a_404(self):
        self.assertEqual(self.client.get("/keys/tree/?cursor=x").status_code, 400)
        self.assertEqual(self.client.get("/keys/tree/?cursor=5&acc=forged").status_code, 404)


class RegistryTest(KeysTestCase):
    def test_lists_every_pattern_with_app_modeling_and_purpose(self):
        response = self.client.get("/keys/registry/")
        self.assertContains(response, "<code>core:{signins}:recent</code>")
        self.assertContains(response, "Login system (the Redis login-system tutorial): capped list")
        self.assertContains(response, "The latest successful staff sign-ins")
        self.assertContains(response, 'href="/keys/registry/keys/?pattern=core%3A%7B%2A%7D%3Aevents"')
        self.assertNotContains(response, "?pattern=django")

    def test_a_pattern_with_an_index_is_browsed_through_it_not_scanned(self):
        with extra_patterns() as keyspace:
            keyspace.register_app("shop", "shop:")
            keyspace.register("shop", "shop:index:items", "zset", "Index", "Item ids by date.")
            keyspace.register("shop", "shop:item:*", "hash", "Embedded", "An item.", index="shop:index:items")
            raw_client().zadd("shop:index:items", {str(i): i for i in range(1, 61)})
            for i in range(1, 61):
                raw_client().hset(f"shop:item:{i}", "name", f"item {i}")
            load_keys(5000)  # a big keyspace the index makes irrelevant
            with self.assertRoundTrips(2) as trace:
                response = self.client.get("/keys/registry/keys/?pattern=shop:item:*")
            sent = commands(trace)
            self.assertEqual(sent[:2], ["ZCARD", "ZRANGE"])
            self.assertNotIn("SCAN", " ".join(str(c) for t in trace.trips() for c in t.commands))
            self.assertContains(response, "60 ids")
            self.assertEqual(response.content.decode().count('<td><a href="/keys/?key=shop%3Aitem%3A'), store.PAGE)
            response = self.client.get("/keys/registry/keys/?pattern=shop:item:*&cursor=50")
            self.assertEqual(response.content.decode().count('<td><a href="/keys/?key=shop%3Aitem%3A'), 10)

    def test_a_set_index_is_paged_with_sscan(self):
        with extra_patterns() as keyspace:
            keyspace.register_app("shop", "shop:")
            keyspace.register("shop", "shop:index:all", "set", "Index", "Every item id.")
            keyspace.register("shop", "shop:item:*", "hash", "Embedded", "An item.", index="shop:index:all")
            raw_client().sadd("shop:index:all", "3", "4")
            raw_client().hset("shop:item:3", "name", "three")
            with self.assertRoundTrips(2) as trace:
                response = self.client.get("/keys/registry/keys/?pattern=shop:item:*")
            self.assertEqual(commands(trace)[:2], ["SCARD", "SSCAN"])
            self.assertContains(response, "2 ids")
            self.assertContains(response, '<td><a href="/keys/?key=shop%3Aitem%3A3">')
            self.assertContains(response, '<td><a href="/keys/?key=shop%3Aitem%3A4">')  # listed, shown as missing
            self.assertContains(response, '<span class="muted">missing</span>')

    def test_a_pattern_without_an_index_is_scanned_one_segment_per_star(self):
        raw_client().zadd(keys.failed_signins_user("ann", "10.0.0.1"), {"x": 1})
        raw_client().zadd(keys.failed_signins_user("ann", "10.0.0.1") + ":extra", {"x": 1})
        with self.assertRoundTrips(2):
            response = self.client.get("/keys/registry/keys/?pattern=core:{signins}:window:user:*:*")
        self.assertContains(response, "core:<wbr>{signins}:<wbr>window:<wbr>user:<wbr>ann:<wbr>10.0.0.1</span>")
        self.assertNotContains(response, keys.failed_signins_user("ann", "10.0.0.1") + ":extra")

    def test_unknown_pattern_is_a_404(self):
        self.assertEqual(self.client.get("/keys/registry/keys/?pattern=nope:*").status_code, 404)


@tag("cluster")
class OrphanTest(KeysTestCase):
    def test_lists_only_keys_no_pattern_owns(self):
        raw_client().set("stray:one", "1")
        raw_client().hset("core:seed", "a", "1")
        with self.assertRoundTrips(2):
            response = self.client.get("/keys/orphans/")
        self.assertContains(response, "stray:<wbr>one</span>")
        self.assertNotContains(response, "core:<wbr>seed</span>")

    def test_no_orphans_has_an_empty_state(self):
        raw_client().hset("core:seed", "a", "1")
        self.assertContains(self.client.get("/keys/orphans/"), "No orphans.")


@tag("cluster")
class BehindTest(KeysTestCase):
    def setUp(self):
        super().setUp()
        client = raw_client()
        client.rpush("core:{signins}:recent", '{"user": "ann", "addr": "", "at": 1}')
        client.zadd("core:{signins}:count", {"ann": 4})
        client.xadd("core:{cms}:events", {"actor": "ann"})

    def behind_link(self, response) -> str:
        return unescape(re.search(r'class="keys-behind" href="([^"]+)"', response.content.decode()).group(1))

    def commands_link(self, response) -> str:
        return unescape(re.search(r'hx-get="(/keys/behind/commands/[^"]+)"', response.content.decode()).group(1))

    def test_every_page_links_the_keys_it_touched(self):
        response = self.client.get("/")
        self.assertContains(response, "keys behind this screen")
        self.assertNotContains(
            response, '<a href="/keys/?key=core%3A%7Bcms%7D%3Aevents">'
        )  # the list loads when opened
        with self.assertRoundTrips(0):
            listed = self.client.get(self.commands_link(response), HTTP_HX_REQUEST="true")
        self.assertContains(listed, '<a href="/keys/?key=core%3A%7Bcms%7D%3Aevents">core:{cms}:events</a>')
        self.assertContains(listed, "XREVRANGE")
        self.assertNotContains(listed, "redis-panel")  # the list fills the page's panel: no panel of its own

    def test_a_forged_command_list_link_is_a_404(self):
        link = self.commands_link(self.client.get("/"))
        self.assertEqual(self.client.get(link[:-2] + "xx").status_code, 404)

    def test_keys_behind_a_screen_are_exactly_its_keys_with_its_commands(self):
        page = self.client.get("/", HTTP_REFERER="http://testserver/")
        trips = int(re.search(r'data-round-trips="(\d+)"', page.content.decode()).group(1))
        with self.assertRoundTrips(1):
            response = self.client.get(self.behind_link(page), HTTP_REFERER="http://testserver/")
        html = response.content.decode()
        shown = {unescape(k.replace("<wbr>", "")) for k in re.findall(r'<span class="keyname">(.*?)</span>', html)}
        # An administrator's dashboard also lists the failed sign-ins.
        self.assertEqual(
            shown, {"core:{signins}:recent", "core:{signins}:count", "core:{signins}:failed", *keys.event_streams()}
        )
        self.assertIn(f"<strong>{trips} round trip", html)
        self.assertIn("<code>LRANGE core:{signins}:recent 0 9</code>", html)
        self.assertIn("<code>XREVRANGE core:{cms}:events + - COUNT 20</code>", html)
        self.assertIn("‹session/cache key›", html)
        self.assertIn('<a href="/"><code>/</code></a>', html)
        self.assertIn('<span class="badge type-list">list</span>', html)

    def test_the_link_carries_no_session_key(self):
        token = self.behind_link(self.client.get("/")).split("?t=", 1)[1]
        self.assertNotIn("sessions", str(signing.loads(token, salt=behind.SALT)))

    def test_a_trace_too_long_for_a_link_as_it_is_is_compressed(self):
        load_keys(200, name="bulk:{}:a-key-name-long-enough-that-fifty-of-them-need-zlib")  # no shared prefix
        page = self.client.get("/keys/")
        listed = {row["meta"].key.decode() for row in page.context["rows"]}
        self.assertGreater(len(listed), 40)
        token = self.behind_link(page).split("?t=", 1)[1]
        self.assertTrue(token.startswith("."))
        self.assertLessEqual(len(token), behind.MAX_TOKEN)
        self.assertLessEqual(listed, set(behind.read(token).keys))  # every key of the page

    def test_keys_sharing_their_prefixes_carry_each_prefix_once_and_go_uncompressed(self):
        load_keys(200, name="bulk:a-key-name-long-enough-that-fifty-of-them-would-need-zlib:{}")
        raw_client().set("plain", b"x")  # a name with no ":" is carried whole
        page = self.client.get("/keys/?pattern=plain&match=contains")
        self.assertIn("plain", behind.read(self.behind_link(page).split("?t=", 1)[1]).keys)
        page = self.client.get("/keys/?pattern=bulk:")
        listed = [row["meta"].key.decode() for row in page.context["rows"]]
        self.assertGreater(len(listed), 40)
        token = self.behind_link(page).split("?t=", 1)[1]
        self.assertFalse(token.startswith("."))
        prefixes = signing.loads(token, salt=behind.SALT)["kp"]  # and "bulk:", the exact name the search read
        self.assertEqual(prefixes.count("bulk:a-key-name-long-enough-that-fifty-of-them-would-need-zlib:"), 1)
        self.assertEqual(behind.read(token).keys[: len(listed)], listed)  # whole, in the page's order

    def test_packed_keys_read_back_exactly_whatever_their_colons(self):
        names = ["a:1", "a:2", ":", "::", "a::b", "a:", ":a", "plain", "", "é:ü:\x00", "a:1", "b:<script>:x"]
        prefixes, packed = behind._packed(names)
        self.assertEqual(behind._unpacked({"kp": prefixes, "k": packed}), names)
        self.assertEqual(len(prefixes), len(set(prefixes)))

    def test_keys_of_a_hundred_long_prefixes_still_fit_in_a_link(self):
        """The prefix table carries only the keys the token carries: cut to ten, it is ten prefixes."""
        noise = random.Random(7)
        names = [f"{noise.getrandbits(1120):0280x}:{n}" for n in range(100)]  # each its own prefix, incompressible
        commands = [Command.of((b"MGET", *(name.encode() for name in names[i : i + 10]))) for i in range(0, 100, 10)]
        token = behind.token(Trace([RoundTrip(commands, 0.1, "data", "pipeline")]), "/")
        self.assertLessEqual(len(token), behind.MAX_TOKEN)
        carried = behind.read(token).keys
        self.assertGreaterEqual(len(carried), 10)
        self.assertEqual(carried, names[: len(carried)])

    def test_a_link_of_the_form_before_is_a_404(self):
        """Commands are carried as sent now, and read so: a link signed for the parsed form before is refused."""
        older = signing.dumps({"p": "/", "k": ["a:1", "b"], "t": []}, salt="config.keybrowser.behind")
        self.assertEqual(self.client.get("/keys/behind/?t=" + older).status_code, 404)
        self.assertEqual(self.client.get("/keys/behind/commands/?t=" + older).status_code, 404)

    def test_a_forged_link_is_a_404(self):
        token = self.behind_link(self.client.get("/")).split("?t=", 1)[1]
        self.assertEqual(self.client.get("/keys/behind/?t=" + token[:-2] + "xx").status_code, 404)
        forged = signing.dumps({"p": "/", "k": ["x"], "t": []}, salt="another")
        self.assertEqual(self.client.get("/keys/behind/?t=" + forged).status_code, 404)

    def test_a_short_trace_is_signed_as_it_is(self):
        """zlib's set-up costs a page more than the rest of its signing: a trace that fits in a
        link as it is goes uncompressed (a compressed one starts with a dot)."""
        token = self.behind_link(self.client.get("/")).split("?t=", 1)[1]
        self.assertFalse(token.startswith("."))
        self.assertEqual(signing.loads(token, salt=behind.SALT)["p"], "/")

    def test_a_busy_page_still_fits_in_a_link(self):
        load_keys(200)
        page = self.client.get("/keys/")  # 50 keys: a pipeline of 201 commands
        link = self.behind_link(page)
        self.assertLessEqual(len(link), behind.MAX_TOKEN + 20)
        response = self.client.get(link)
        self.assertEqual(response.status_code, 200)
        self.assertGreaterEqual(response.content.decode().count('<td><a href="/keys/?key=bulk%3Aitem%3A'), 10)
