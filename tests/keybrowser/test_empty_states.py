"""Empty states: a search that matches nothing, and a keyspace with no orphan, end on "0 … match" once
the SCAN is done, with no click."""

import re
from html import unescape

from tests.keybrowser.helpers import KeysTestCase, load_keys


def follow(client, path, html) -> tuple[str, int]:
    """Follow the self-loading row as htmx does, until it stops: the last answer and the requests made."""
    requests = 0
    while found := re.search(r'<tr id="more-row" hx-get="([^"]+)" hx-trigger="load', html):
        html = client.get(path + unescape(found.group(1)), HTTP_HX_REQUEST="true").content.decode()
        requests += 1
    return html, requests


class EmptyStateTest(KeysTestCase):
    def test_a_search_that_matches_nothing_ends_on_0_keys_match_without_a_click(self):
        load_keys(18_000)
        first = self.client.get("/keys/", {"pattern": "no-such-key"}).content.decode()
        self.assertIn('hx-trigger="load', first)  # no "Load more" to click: the next page is on its way
        last, requests = follow(self.client, "/keys/", first)
        self.assertGreater(requests, 0)  # the scan went on by itself
        self.assertIn("<strong>0 keys match</strong> among", last)
        self.assertIn("the SCAN is complete.", last)
        self.assertNotIn("Load more", last)

    def test_a_search_that_finds_keys_still_waits_for_load_more(self):
        load_keys(18_000)
        first = self.client.get("/keys/", {"pattern": "bulk:"})
        self.assertContains(first, ">Load more</a>")
        self.assertNotContains(first, 'hx-trigger="load')

    def test_no_orphans_ends_on_0_orphans_without_a_click(self):
        load_keys(3000, "cms:{{cms}}:post:{}")  # keys a registered pattern owns
        first = self.client.get("/keys/orphans/").content.decode()
        last, _ = follow(self.client, "/keys/orphans/", first)
        if "more-row" not in first:  # the whole keyspace in one page: the page's own empty state
            self.assertIn("No orphans.", first)
        else:
            self.assertIn("<strong>0 orphans</strong> among", last)
        self.assertNotIn("Load more", last)
