"""The throwaway loopback cluster: every slot served, and a killed primary's replica takes over
with what was acknowledged by a replica before the kill."""

from django.test import SimpleTestCase
from redis.cluster import RedisCluster

from config.cluster import SLOTS, LocalCluster


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
                victim = cluster.primary_for(slot)
                # Acknowledged by a replica too: what a primary's loss must not take away.
                self.assertEqual(victim.client().execute_command("WAIT", 1, 2000), 1)
                victim.kill()
                cluster.wait_healthy(30)
                successor = cluster.primary_for(slot)
                self.assertNotEqual(successor.port, victim.port)
                self.assertEqual(successor.client().get("probe:7"), "7")
                owned = [n for n in range(300) if cluster.primary_for(rc.keyslot(f"probe:{n}")) is successor]
                self.assertTrue(owned)
                self.assertEqual([successor.client().get(f"probe:{n}") for n in owned], [str(n) for n in owned])
            finally:
                rc.close()
        self.assertFalse(any(node.alive() for node in cluster.nodes))
