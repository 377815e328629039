"""On the seeded demo data of every app: each registered pattern opens in the browser, cheaply."""

from django.core.management import call_command
from django.test import tag

from config.keybrowser.display import is_hidden, key_url
from config.keyspace import keyspace
from config.redis import raw_client
from tests.keybrowser.helpers import KeysTestCase


@tag("cluster", "slow")
class SeededKeyspaceTest(KeysTestCase):
    @classmethod
    def keys_by_pattern(cls) -> dict[str, list[bytes]]:
        found: dict[str, list[bytes]] = {}
        for key in raw_client().scan_iter(count=1000):
            if is_hidden(key):
                continue
            pattern = keyspace.match(key.decode("utf-8", "replace"))
            if pattern is not None and len(found.setdefault(pattern.pattern, [])) < 2:
                found[pattern.pattern].append(key)
        return found

    def test_every_registered_pattern_opens_in_at_most_two_round_trips(self):
        call_command("seed", "--scale", "demo", verbosity=0)
        by_pattern = self.keys_by_pattern()
        self.assertTrue(by_pattern)
        for pattern in keyspace.patterns:
            if is_hidden(pattern.pattern):
                continue
            with self.subTest(pattern=pattern.pattern):
                with self.assertRoundTrips(2) as trace:
                    response = self.client.get("/keys/registry/keys/", {"pattern": pattern.pattern})
                self.assertEqual(response.status_code, 200)
                self.assertNotIn("KEYS", [c.name for t in trace.round_trips for c in t.commands])
                for key in by_pattern.get(pattern.pattern, []):
                    with self.assertRoundTrips(1):  # of its registered type: one round trip
                        response = self.client.get(key_url(key))
                    self.assertEqual(response.status_code, 200)
                    self.assertNotContains(response, "registered as")
                    self.assertContains(response, pattern.modeling)

    def test_no_seeded_key_is_an_orphan(self):
        call_command("seed", "--scale", "demo", verbosity=0)
        response = self.client.get("/keys/orphans/")
        while "The SCAN is not finished" in response.content.decode():
            self.assertNotContains(response, '<span class="flag">orphan</span>')
            cursor = response.context["page"].cursor
            response = self.client.get("/keys/orphans/", {"cursor": cursor})
        self.assertNotContains(response, '<span class="flag">orphan</span>')
