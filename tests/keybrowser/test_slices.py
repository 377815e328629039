"""No key browser command holds Redis for longer as the keyspace grows: a request sends one script that
visits at most a fixed slice of the keyspace, the same at two sizes; further requests go on from its
cursor, each as bounded."""

import re
from html import unescape

from config import keys
from config.keybrowser import store, views
from config.redis import raw_client
from tests.keybrowser.helpers import KeysTestCase, load_keys, scripts_logged

SIZES = (1_000, 20_000)


def load_registered(count: int) -> None:
    """``count`` keys a registered pattern owns (catalog reviews): no orphan among them."""
    client = raw_client()
    for start in range(0, count, 10_000):
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(start + 10_000, count)):
            pipe.set(f"catalog:{{catalog}}:review:{i}", b"x")
        pipe.execute()


class SlicesTest(KeysTestCase):
    def fetch(self, url: str, round_trips: int, **headers):
        """A page in ``round_trips``, and the SCAN slots its one key browser script asked for."""
        with scripts_logged() as scripts:
            with self.assertRoundTrips(round_trips):
                response = self.client.get(url, **headers)
            (script,) = scripts()
        self.assertEqual(response.status_code, 200)
        return response, sum(script[1])

    def test_a_tree_request_counts_one_slice_at_any_size(self):
        for size in SIZES:
            with self.subTest(size=size):
                raw_client().flushdb()
                self.client.force_login(self.user)
                load_keys(size, "other:{}")
                response, slots = self.fetch("/keys/tree/", 1)
                self.assertLessEqual(slots, store.TREE_STEPS * store.TREE_COUNT)
        # The larger keyspace is counted on by further requests from the cursor, each as bounded.
        self.assertContains(response, "Counts so far")
        more = unescape(re.search(r'id="scan-further" href="([^"]+)"', response.content.decode()).group(1))
        _, slots = self.fetch("/keys/tree/" + more, 1)
        self.assertEqual(slots, store.TREE_STEPS * store.TREE_COUNT)

    def test_an_orphans_request_examines_one_slice_at_any_size(self):
        for size in SIZES:
            with self.subTest(size=size):
                raw_client().flushdb()
                self.client.force_login(self.user)
                load_registered(size)  # no orphan to find: the script spends its whole slice
                response, slots = self.fetch("/keys/orphans/", 2)  # the slice, then the description
                self.assertLessEqual(slots, store.ORPHAN_SCAN)
                self.assertGreater(slots, store.ORPHAN_SCAN // 2)  # it stops at as many keys examined
                examined = int(re.search(r"found among (\d+)", response.content.decode()).group(1))
                self.assertLessEqual(examined, store.ORPHAN_SCAN * 2)  # keys of the buckets asked for

    def test_with_no_orphan_in_a_large_keyspace_the_page_scans_on_then_waits(self):
        load_registered(20_000)
        load_keys(3, "stray:{}")
        html, requests, found = self.client.get("/keys/orphans/").content.decode(), 0, []
        while link := re.search(r'<tr id="more-row" hx-get="([^"]+)" hx-trigger="load', html):
            response, slots = self.fetch("/keys/orphans/" + unescape(link.group(1)), 2, HTTP_HX_REQUEST="true")
            self.assertLessEqual(slots, store.ORPHAN_SCAN)
            html = response.content.decode()
            found += re.findall(r"stray:\d", html)
            requests += 1
        examined = int(re.search(r"found among (\d+)", html).group(1))
        if "The SCAN is complete." not in html:
            self.assertGreaterEqual(examined, views.ORPHANS_SCANNED)
            self.assertContains(response, ">Load more</a>")
        self.assertLessEqual(requests, views.ORPHANS_SCANNED // store.ORPHAN_SCAN + 1)

    def test_a_sparse_match_asks_the_same_slots_at_any_size(self):
        for size in SIZES:
            with self.subTest(size=size):
                raw_client().flushdb()
                self.client.force_login(self.user)
                load_keys(size, "other:{}")
                raw_client().set("needle", "1")
                response, slots = self.fetch("/keys/?pattern=needle&match=prefix", 2)
                self.assertLessEqual(slots, store.SCAN_EXAMINED)
                self.assertContains(response, "needle")  # named exactly: shown whatever the SCAN reached

    def test_a_type_filter_and_a_registered_pattern_scan_one_slice_too(self):
        load_keys(20_000, "other:{}")
        raw_client().zadd(keys.failed_signins_user("ann", "127.0.0.1"), {"x": 1})
        for url in ("/keys/?type=zset", "/keys/registry/keys/?pattern=core:{signins}:window:user:*:*"):
            with self.subTest(url=url):
                _, slots = self.fetch(url, 2)
                self.assertEqual(slots, store.SCAN_EXAMINED)
