"""Memory by pattern (``/keys/memory/``) and the server's own view (``/keys/server/``)."""

from __future__ import annotations

from unittest import mock

from django.core.management import call_command
from django.test import tag
from django.urls import reverse
from django.utils.html import escape

from config import trace
from config.keybrowser import memory, store
from config.keybrowser.display import key_url
from config.keybrowser.store import server as serverstore
from config.redis import on_cluster, raw_client
from tests.keybrowser.helpers import KeysTestCase, load_keys

COURSES = "school:{school}:course:*"
HOSTILE = b"school:{school}:course:<script>alert(1)</script>\x07\n"


class AdministratorsOnlyTest(KeysTestCase):
    def test_an_editor_and_a_viewer_get_403_on_both_pages(self):
        for role in ("editor", "viewer"):
            self.client.force_login(self.make_staff(role, role=role))
            for url in ("/keys/memory/", "/keys/server/"):
                with self.subTest(role=role, url=url):
                    self.assertEqual(self.client.get(url).status_code, 403)
            self.assertEqual(self.client.post("/keys/memory/").status_code, 403)
        self.assertIsNone(memory.cached())  # the refused POST measured nothing

    def test_the_key_browser_links_both_pages(self):
        response = self.client.get("/keys/")
        self.assertContains(response, 'href="/keys/memory/"')
        self.assertContains(response, 'href="/keys/server/"')


class MemoryTest(KeysTestCase):
    @tag("cluster")
    def test_measure_again_counts_each_pattern_and_caches_the_result(self):
        pipe = raw_client().pipeline(transaction=False)
        for i in range(300):
            pipe.hset(f"school:{{school}}:course:{i}", mapping={"code": f"C{i}", "title": "Course"})
        pipe.execute()
        response = self.client.get("/keys/memory/")
        self.assertContains(response, "Not measured yet.")
        response = self.client.post("/keys/memory/", follow=True)
        self.assertContains(response, f"<code>{COURSES}</code>")
        row = next(r for r in response.context["result"]["rows"] if r["pattern"] == COURSES)
        self.assertEqual((row["keys"], row["keys_margin"], row["sample"]), (300, 0, 300))
        self.assertEqual(row["encodings"], [("ziplist", 300)])
        self.assertEqual((row["records"], row["per_record"]), (600, row["bytes"] / 600))  # a field a record
        held = sum(raw_client().memory_usage(f"school:{{school}}:course:{i}") for i in range(300))
        self.assertEqual(row["bytes"], held)
        self.assertContains(response, "walked to the end: the figures are exact")
        primaries = len(raw_client().primaries()) if on_cluster() else 1
        self.assertEqual(len(response.context["result"]["nodes"]), primaries)  # every primary walked
        self.assertTrue(all(node["complete"] for node in response.context["result"]["nodes"]))
        empty = next(r for r in response.context["result"]["rows"] if r["pattern"] == "orgchart:{orgchart}:location:*")
        self.assertEqual((empty["keys"], empty["bytes"]), (0, 0))  # every registered pattern, with keys or none
        self.assertNotContains(response, "<code>django:")  # Django's cache and sessions are not walked
        self.assertContains(response, "ago</time>")
        with self.assertRoundTrips(0):  # the page shows the cached measure
            self.assertContains(self.client.get("/keys/memory/"), COURSES)

    def walk(self, extra: int, name: str) -> tuple[int, int, int, int]:
        """Keys described in all, the describing commands, the most keys one of them described, and the
        most slots one SCAN step asked for."""
        load_keys(extra, name)
        server = raw_client()
        held = server.config_get("slowlog-*")
        server.config_set("slowlog-max-len", 100_000)
        server.config_set("slowlog-log-slower-than", 0)
        server.slowlog_reset()
        try:
            with trace.recording() as recorded:
                result = memory.measure()
            scans = [e["command"].split() for e in server.slowlog_get(100_000) if e["command"].startswith(b"SCAN ")]
        finally:
            for name, value in held.items():
                server.config_set(name, value)
            server.slowlog_reset()
        evals = [c.sent for t in recorded.trips("data") for c in t.commands if str(c.sent[0]).upper().endswith("EVAL")]
        described = [int(args[2]) for args in evals if int(args[2])]
        counts = [int(words[words.index(b"COUNT") + 1]) for words in scans]
        return result["described"], len(described), max(described), max(counts)

    @tag("slow")
    def test_each_command_touches_a_bounded_slice_whatever_the_keyspace(self):
        if on_cluster():
            self.skipTest("one server's slow log counts the SCAN steps")
        small = self.walk(2_000, "bulk:item:{}")
        large = self.walk(8_000, "bulk:more:{}")  # 10,000 keys in all
        self.assertEqual((small[0], large[0]), (2_000, 10_000))  # every key described
        for described, slices, most, step in (small, large):  # by more slices, each as small
            self.assertGreaterEqual(slices, described // (2 * serverstore.MEMORY_SLICE))
            self.assertLessEqual(most, 2 * serverstore.MEMORY_SLICE)
            self.assertLessEqual(step, store.SCAN_COUNT)
        self.assertGreater(large[1], 4 * small[1] * 0.9)

    def test_past_the_walk_bound_counts_are_estimated_with_a_margin(self):
        load_keys(3_000)
        with mock.patch.object(serverstore, "MEMORY_WALK", 1_000):
            self.client.post("/keys/memory/")
        result = memory.cached()
        self.assertFalse(result["complete"])
        self.assertLess(result["described"], 1_000 + 2 * serverstore.MEMORY_SLICE)
        row = next(r for r in result["rows"] if r["pattern"] == "(no registered pattern)")
        self.assertLessEqual(abs(row["keys"] - 3_000), row["keys_margin"] + 50)
        self.assertContains(self.client.get("/keys/memory/"), "the figures are estimates")


@tag("slow")  # one server: on a cluster, Redis 6.2's dataset figure also holds each primary's slot-to-key index
class DemoMemoryTest(KeysTestCase):
    def test_the_total_is_within_a_fifth_of_used_memory_dataset_and_buckets_beside_hashes(self):
        call_command("seed", "--scale", "demo", verbosity=0)
        response = self.client.post("/keys/memory/", follow=True)
        result = response.context["result"]
        self.assertTrue(result["complete"])
        self.assertGreater(result["used_memory_dataset"], 0)
        self.assertLess(abs(result["bytes"] / result["used_memory_dataset"] - 1), 0.2, result)
        raw = next(b for b in result["buckets"] if b["pattern"].endswith(":raw:*"))
        self.assertLess(raw["per_record"], raw["per_hash"])
        self.assertContains(response, "The bucket pattern against one hash a sample")
        encodings = {name for row in result["rows"] for name, _ in row["encodings"]}
        self.assertIn("ziplist", encodings)


@tag("cluster")
class ServerViewTest(KeysTestCase):
    def test_shows_the_slow_log_with_patterns_command_stats_and_the_memory_policy_escaped(self):
        server = raw_client() if not on_cluster() else raw_client().get_node_from_key(HOSTILE).redis_connection
        held = server.config_get("slowlog-log-slower-than")
        server.config_set("slowlog-log-slower-than", 0)
        try:
            server.slowlog_reset()
            raw_client().hset(HOSTILE, "code", "x")
            server.execute_command("DEBUG", "SLEEP", 0)
        finally:
            server.config_set("slowlog-log-slower-than", held["slowlog-log-slower-than"])
        with self.assertRoundTrips(1) as recorded:
            response = self.client.get("/keys/server/")
        sent = {c.name for t in recorded.trips("data") for c in t.commands}
        self.assertLessEqual(sent, {"INFO", "SLOWLOG GET", "SLOWLOG", "LATENCY DOCTOR", "LATENCY"})
        html = response.content.decode()
        self.assertNotIn("<script>alert(1)", html)
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;\\x07\\n", html)
        self.assertIn(f"<code>{COURSES}</code>", html)
        self.assertIn(f'<a href="{escape(key_url(HOSTILE))}"><span class="keyname">', html)  # the key's own page
        self.assertIn(f'<a href="{reverse("school:course_list")}">school:course_list</a>', html)  # its screens
        self.assertIn("DEBUG", html)
        self.assertIn("<code>set</code>", html)  # INFO commandstats
        policy = raw_client().config_get("maxmemory-policy")["maxmemory-policy"]
        self.assertIn(f'<strong class="policy">{policy}</strong>', html)
        self.assertIn("LATENCY DOCTOR", html)
        self.assertTrue(all(node["latency"] for node in response.context["nodes"]))
