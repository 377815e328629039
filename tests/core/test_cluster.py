"""The throwaway loopback cluster: every slot served, and a killed primary's replica takes over
with what was acknowledged by a replica before the kill; and the app on such a cluster."""

import redis
from django.conf import settings
from django.core.cache import cache
from django.test import SimpleTestCase, TestCase, override_settings, tag
from django.urls import reverse
from redis.cluster import RedisCluster
from redis.crc import key_slot

from config import keys, trace
from config.cluster import SLOTS, LocalCluster, Node
from config.keybrowser import panel
from config.keybrowser.display import key_url
from config.redis import client, is_cluster_url, node_url, on_cluster, raw_client, redacted
from config.redis.cluster import FAILOVER_WAITS
from tests.base import PASSWORD, RedisMixin
from tests.keybrowser.helpers import panel_commands


def primary_for(cluster: LocalCluster, slot: int) -> Node:
    """The node serving ``slot`` now (after a failover, a former replica)."""
    for node in cluster.nodes:
        if node.alive():
            for start, end, primary, *_ in node.client().execute_command("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    return next(n for n in cluster.nodes if n.port == int(primary[1]))
            raise LookupError(slot)
    raise LookupError(f"no live node to ask about slot {slot}")


@tag("cluster", "slow", "failover")
class LocalClusterTest(SimpleTestCase):
    def test_three_primaries_serve_every_slot_and_survive_losing_one(self):
        with LocalCluster(primaries=3, replicas=1) as cluster:
            self.assertEqual(len(cluster.nodes), 6)
            self.assertTrue(cluster.url.startswith("redis+cluster://127.0.0.1:"))
            served = sum(
                end - start + 1 for start, end, *_ in cluster.nodes[0].client().execute_command("CLUSTER", "SLOTS")
            )
            self.assertEqual(served, SLOTS)

            rc = RedisCluster(host="127.0.0.1", port=cluster.nodes[0].port, decode_responses=True)
            try:
                for n in range(300):
                    rc.set(f"probe:{n}", n)
                slot = rc.keyslot("probe:7")
                victim = primary_for(cluster, slot)
                # Acknowledged by a replica too: what a primary's loss must not take away.
                self.assertEqual(victim.client().execute_command("WAIT", 1, 2000), 1)
                victim.kill()
                cluster.wait_healthy(30)
                successor = primary_for(cluster, slot)
                self.assertNotEqual(successor.port, victim.port)
                self.assertEqual(successor.client().get("probe:7"), "7")
                owned = [n for n in range(300) if primary_for(cluster, rc.keyslot(f"probe:{n}")) is successor]
                self.assertTrue(owned)
                self.assertEqual([successor.client().get(f"probe:{n}") for n in owned], [str(n) for n in owned])
            finally:
                rc.close()
        self.assertFalse(any(node.alive() for node in cluster.nodes))


@tag("cluster", "slow", "failover")
class FailoverTest(SimpleTestCase):
    def test_a_transaction_right_after_a_failover_goes_to_the_new_primary(self):
        """The app's client, which knew the killed primary, runs its first transaction on that primary's
        slots once a replica has taken over: it reads the slot map again at the first connection error,
        where redis-py waited for five (two 503 pages a client, the load test saw)."""
        from config import redis as redis_config

        with LocalCluster(primaries=3, replicas=1) as cluster, override_settings(REDIS_URL=cluster.url):
            redis_config.reset_clients()
            try:
                app_client = client()
                key = "catalog:{catalog}:probe"

                def transaction():
                    pipe = app_client.pipeline(transaction=True)
                    pipe.incr(key)
                    pipe.get(key)
                    return pipe.execute()

                self.assertEqual(transaction(), [1, "1"])
                victim = primary_for(cluster, app_client.keyslot(key))
                self.assertEqual(victim.client().execute_command("WAIT", 1, 2000), 1)
                victim.kill()
                cluster.wait_healthy(30)
                self.assertEqual(transaction(), [2, "2"])
            finally:
                redis_config.reset_clients()


@tag("slow")
class OnClusterTest(RedisMixin, TestCase):
    """The app pointed at a real 3-primary cluster by ``REDIS_URL=redis+cluster://…``: sign-in and
    sessions, the cache, the key browser over every primary, and the panel's count per node.

    One cluster for the class, torn down after it with no server left running."""

    @classmethod
    def setUpClass(cls):
        cls.cluster = LocalCluster(primaries=3, replicas=1).start()
        caches = {**settings.CACHES, "default": {**settings.CACHES["default"], "LOCATION": cls.cluster.url}}
        cls.on_cluster = override_settings(REDIS_URL=cls.cluster.url, CACHES=caches)
        cls.on_cluster.enable()
        try:
            super().setUpClass()
        except BaseException:
            cls._leave_cluster()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            cls._leave_cluster()
        if any(node.alive() for node in cls.cluster.nodes):
            raise AssertionError("a cluster node outlived its tests")

    @classmethod
    def _leave_cluster(cls):
        cls.on_cluster.disable()  # the clients are rebuilt for the single server (setting_changed)
        cls.cluster.stop()

    def setUp(self):
        super().setUp()  # flushes every primary
        self.user = self.make_staff()

    def primary_of(self, key: str) -> str:
        return f"127.0.0.1:{primary_for(self.cluster, key_slot(key.encode())).port}"

    def keys_on_every_primary(self, count: int, name: str = "probe:{}") -> list[str]:
        """``count`` keys named ``name``, written through the app's client, with at least one on each primary."""
        names = [name.format(n) for n in range(count)]
        pipe = raw_client().pipeline(transaction=False)
        for key in names:
            pipe.set(key, b"x")
        pipe.execute()
        self.assertEqual(
            {self.primary_of(k) for k in names}, {f"127.0.0.1:{n.port}" for n in self.cluster.primary_nodes}
        )
        return names

    def sign_in(self):
        response = self.client.post(reverse("login"), {"username": self.user.username, "password": PASSWORD})
        self.assertEqual(response.status_code, 302, response.content[:2000])

    # --- connecting -------------------------------------------------------------------

    def test_the_clients_are_cluster_clients(self):
        self.assertTrue(on_cluster())
        self.assertIsInstance(client(), RedisCluster)
        self.assertIsInstance(cache.client.get_client(), RedisCluster)

    # --- sessions, sign-in, cache -----------------------------------------------------

    def test_sign_in_keeps_a_session_on_the_cluster(self):
        self.sign_in()
        response = self.client.get(reverse("dashboard"))
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, self.user.username)
        sessions = list(client().scan_iter(match="django:*:session:*", target_nodes=RedisCluster.PRIMARIES))
        self.assertEqual(len(sessions), 1)
        self.assertEqual(client().lrange(keys.signins_recent(), 0, -1)[0][:20], '{"user": "staff", "a')
        self.client.post(reverse("logout"))
        self.assertEqual(self.client.get(reverse("dashboard")).status_code, 302)
        self.assertEqual(list(client().scan_iter(match="django:*:session:*", target_nodes="primaries")), [])

    def test_a_wrong_password_is_refused_and_counted(self):
        response = self.client.post(reverse("login"), {"username": self.user.username, "password": "wrong"})
        self.assertEqual(response.status_code, 200)
        self.assertEqual(client().zcard(keys.failed_signins_user(self.user.username, "127.0.0.1")), 1)
        self.assertEqual(client().llen(keys.signins_failed()), 1)

    def test_the_cache_stores_under_its_prefix_on_the_node_of_the_slot(self):
        cache.set("greeting", {"text": "hello"}, 60)
        self.assertEqual(cache.get("greeting"), {"text": "hello"})
        (name,) = [k for k in client().scan_iter(match="django:*greeting", target_nodes="primaries")]
        self.assertTrue(name.startswith("django:"))
        node = primary_for(self.cluster, key_slot(name.encode()))
        self.assertEqual(node.client().exists(name), 1)
        cache.delete("greeting")
        self.assertIsNone(cache.get("greeting"))

    # --- key browser ------------------------------------------------------------------

    def test_the_key_browser_lists_keys_of_every_primary_with_node_and_slot(self):
        names = self.keys_on_every_primary(12)
        self.client.force_login(self.user)
        response = self.client.get("/keys/?pattern=probe:")
        self.assertEqual(response.status_code, 200)
        listed = sorted(row["meta"].key.decode() for row in response.context["rows"])
        self.assertEqual(listed, sorted(names))
        for name in names:
            slot = key_slot(name.encode())
            self.assertContains(response, f"{self.primary_of(name)} · slot {slot}")
        self.assertEqual(response.context["page"].dbsize, client().dbsize(target_nodes="primaries"))

    def test_a_wave_meeting_a_stale_slot_map_reads_it_again_until_the_nodes_answer(self):
        """After a failover a node may still name the dead primary for a moment: the wave to named
        nodes reads the map again, waiting a little longer each time, rather than answer 503."""
        from unittest import mock

        from config.redis import cluster as redis_config

        redis_client = client()
        for n in range(12):
            redis_client.set(f"probe:{n}", n)
        real, failures = redis_client._on_nodes, []

        def unreachable_twice(calls, keys):
            if len(failures) < 2:
                failures.append(len(calls))
                raise redis.ConnectionError("Connection refused (injected)")
            return real(calls, keys)

        calls = [(node, ("DBSIZE",)) for node in redis_client.primaries()]
        slept: list[float] = []
        with (
            mock.patch.object(redis_client, "_on_nodes", side_effect=unreachable_twice),
            mock.patch.object(redis_config.time, "sleep", side_effect=slept.append),
        ):
            sizes = redis_client.on_nodes(calls)
        self.assertEqual(sum(sizes), 13)  # the probes, and the staff member's version stamp (its group set)
        self.assertEqual(slept, list(FAILOVER_WAITS[:2]))
        always = mock.patch.object(redis_client, "_on_nodes", side_effect=redis.ConnectionError("down"))
        with (
            always,
            mock.patch.object(redis_config.time, "sleep", side_effect=slept.append),
            self.assertRaises(redis.ConnectionError),
        ):
            redis_client.on_nodes(calls)
        self.assertEqual(slept[2:], list(FAILOVER_WAITS))  # then it gives up

    def test_a_wave_whose_dead_node_another_thread_already_dropped_from_the_map_still_moves(self):
        """Another thread may read the slot map again first (the app's threads all meet the failover): the
        dead node is then in it no more, and the wave moves by the slots the node served when it began."""
        from unittest import mock

        redis_client = client()
        for n in range(12):
            redis_client.set(f"probe:{n}", n)
        real, failures = redis_client._on_nodes, []
        calls = [(node, ("DBSIZE",)) for node in redis_client.primaries()]
        gone = calls[0][0]

        def unreachable_once(calls, keys):
            if not failures:
                failures.append(1)
                for slot, serving in redis_client.nodes_manager.slots_cache.items():  # as another thread's re-read
                    if serving and serving[0].name == gone.name:
                        redis_client.nodes_manager.slots_cache[slot] = [calls[1][0]]
                raise redis.ConnectionError("Connection refused (injected)")
            return real(calls, keys)

        with mock.patch.object(redis_client, "_on_nodes", side_effect=unreachable_once):
            sizes = redis_client.on_nodes(calls)
        self.assertEqual(sum(sizes), 13)  # the probes, and the staff member's version stamp (its group set)

    def test_a_wave_to_nodes_listed_before_another_thread_read_the_map_again_still_moves(self):
        """The caller lists the primaries (a key-browser walk), then another thread reads the map
        again before the wave is sent: the dead node is in the map no more, and the wave still moves
        by the slot it served when it was listed (the load test's failover met this: a 503)."""
        from unittest import mock

        redis_client = client()
        for n in range(12):
            redis_client.set(f"probe:{n}", n)
        calls = [(node, ("DBSIZE",)) for node in redis_client.primaries()]
        gone, heir = calls[0][0], calls[1][0]
        manager = redis_client.nodes_manager
        moved = {
            slot: [heir] if serving and serving[0].name == gone.name else serving
            for slot, serving in manager.slots_cache.items()
        }
        real, failures = redis_client._on_nodes, []

        def unreachable_once(calls, keys):
            if not failures:
                failures.append(1)
                raise redis.ConnectionError("Connection refused (injected)")
            return real(calls, keys)

        with (
            mock.patch.object(manager, "slots_cache", moved),  # as another thread's re-read, a new map
            mock.patch.object(manager, "initialize"),  # the map read again is that one
            mock.patch.object(redis_client, "_on_nodes", side_effect=unreachable_once),
        ):
            sizes = redis_client.on_nodes(calls)
        self.assertEqual(failures, [1])
        (heirs,) = redis_client.on_nodes([(heir, ("DBSIZE",))])
        self.assertEqual(sizes[:2], [heirs, heirs])  # the dead node's DBSIZE went to the node that took its slot

    def test_paging_with_the_node_cursor_visits_every_key_exactly_once(self):
        names = self.keys_on_every_primary(400, "page:{}")
        self.client.force_login(self.user)
        seen, query, cursors, pages = [], "?pattern=page:", [], 0
        while query:
            response = self.client.get("/keys/" + query)
            self.assertEqual(response.status_code, 200)
            seen.extend(row["meta"].key.decode() for row in response.context["rows"])
            cursors.append(response.context["page"].cursor)
            query, pages = response.context["next_query"], pages + 1
            self.assertLess(pages, 100)
        self.assertEqual(len(seen), len(names))
        self.assertEqual(sorted(seen), sorted(names))
        self.assertGreater(pages, 3)
        self.assertEqual({c & 0xFF for c in cursors[:-1]} | {0}, {0, 1, 2})  # every node's index went by

    def test_a_cursor_naming_no_node_is_a_400(self):
        self.client.force_login(self.user)
        for cursor in ("7", "3", str(2**64)):
            self.assertEqual(self.client.get(f"/keys/?cursor={cursor}").status_code, 400, cursor)
        self.assertEqual(self.client.get("/keys/tree/?prefix=&cursor=5").status_code, 400)
        self.assertEqual(self.client.get("/keys/orphans/?cursor=9").status_code, 400)

    def test_one_keys_page_works_for_a_key_on_each_node(self):
        names = self.keys_on_every_primary(12)
        raw_client().hset("doc:{a}", mapping={"f": "v"})
        self.client.force_login(self.user)
        by_node = {self.primary_of(name): name for name in names}
        self.assertEqual(len(by_node), 3)
        for node, name in by_node.items():
            response = self.client.get(key_url(name))
            self.assertEqual(response.status_code, 200)
            self.assertEqual(response.context["meta"].type, "string")
            self.assertContains(response, f"{node} · slot {key_slot(name.encode())}")
        response = self.client.get(key_url("doc:{a}"))
        self.assertContains(response, f"slot {key_slot(b'a')}")
        self.assertEqual(response.context["content"].rows, [(b"f", 1, b"v", 1)])  # each with its full length

    def test_the_tree_and_the_orphans_count_keys_of_every_node(self):
        names = self.keys_on_every_primary(30, "tree:{}")
        self.client.force_login(self.user)
        response = self.client.get("/keys/tree/?prefix=tree:")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.context["chunk"].seen, len(names))
        response = self.client.get("/keys/orphans/")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(sorted(r["meta"].key.decode() for r in response.context["rows"]), sorted(names))

    # --- the panel ----------------------------------------------------------------------

    def test_the_panel_counts_round_trips_per_node(self):
        names = self.keys_on_every_primary(12)
        with trace.recording() as recorded:
            pipe = client().pipeline(transaction=False)
            for name in names:
                pipe.get(name)
            pipe.execute()
            client().get(names[0])
        per_node = recorded.per_node()
        expected = {f"127.0.0.1:{n.port}": 1 for n in self.cluster.primary_nodes}
        expected[self.primary_of(names[0])] += 1
        self.assertEqual(per_node, expected)
        self.assertEqual(recorded.round_trip_count(), 4)
        html = panel.panel_html(recorded, "/")
        listed = panel_commands(html)  # loaded when the panel is opened
        for node, count in expected.items():
            self.assertIn(f'data-node="{node}" data-round-trips="{count}"', html)
            self.assertIn(f"node {node}", listed)

    def test_the_health_probe_sums_every_primary_in_one_wave(self):
        self.keys_on_every_primary(30)
        self.sign_in()
        with trace.recording() as recorded:
            response = self.client.get("/healthz")
        self.assertEqual(response.status_code, 200)
        every_key = list(client().scan_iter(target_nodes="primaries"))  # the probes, the session, the sign-in's
        self.assertGreater(len(every_key), 30)
        self.assertEqual(response.json()["keys"], len(every_key))
        self.assertEqual(recorded.wave_count("data"), 1)
        self.assertEqual(len(recorded.per_node("data")), 3)

    def test_a_page_shows_its_round_trips_per_node(self):
        self.keys_on_every_primary(12)
        self.client.force_login(self.user)
        response = self.client.get("/keys/?pattern=probe:")
        self.assertContains(response, "round trips per node:")
        self.assertContains(response, 'class="node" data-node="127.0.0.1:', count=3)


class ClusterUrlTest(SimpleTestCase):
    def test_cluster_urls_are_named_and_their_passwords_hidden(self):
        self.assertTrue(is_cluster_url("redis+cluster://h:7000"))
        self.assertTrue(is_cluster_url("rediss+cluster://h:7000"))
        self.assertFalse(is_cluster_url("redis://h:7000"))
        self.assertFalse(is_cluster_url("unix:///tmp/redis.sock"))
        self.assertEqual(node_url("rediss+cluster://u:p@h:7000/0"), "rediss://u:p@h:7000/0")
        for url in (
            "redis+cluster://:s3cret@h:7000",
            "rediss+cluster://user:s3cret@h:7000",
            "redis+cluster://h:7000?password=s3cret",
            "rediss+cluster://user@h:7000?ssl_cert_reqs=required&PASSWORD=s3cret",
        ):
            shown = redacted(url)
            self.assertNotIn("s3cret", shown, url)
            self.assertIn("+cluster://", shown)
            self.assertIn("h:7000", shown)
