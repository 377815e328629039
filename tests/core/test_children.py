"""The shared referenced-children machinery: partial embed and aggregate kept right."""

import json
import random
import threading

from django.test import tag

from config.activity import Event
from config.redis import client
from config.store.children import Child, ChildCollection, NotFound
from config.store.ids import IdBlock
from tests.base import RedisTestCase, run_concurrently

NOTES = ChildCollection(
    parent_key=lambda i: f"test:{{notes}}:post:{i}",
    child_key=lambda i: f"test:{{notes}}:note:{i}",
    index_key=lambda i: f"test:{{notes}}:post:{i}:notes",
    ids_key=lambda post_id: "test:{notes}:ids:note",
    parent_field="post",
    time_field="at",
    embed_field="recent_notes",
    embed_fields=("author", "stars", "at"),
    count_field="num_notes",
    events_key=lambda post_id: "test:{notes}:events",
    sum_field="sum_stars",
    summed="stars",
    page_fields=("author", "stars", "text", "at"),
)


def make_parent(parent_id=1):
    client().hset(NOTES.parent_key(parent_id), mapping={"title": "A post", **NOTES.initial_fields()})


IDS = IdBlock("test:{notes}:ids:note")  # this process's block of note ids, as an app's


def add(parent_id, n, stars=3, at=None, event=lambda child_id: None, collection=NOTES):
    fields = {"author": f"a{n}", "stars": str(stars), "text": f"note {n}"}
    child_id, _ = collection.add(IDS, parent_id, fields, at or 1000.0 + n, event, "title")
    return child_id


class ChildCollectionTest(RedisTestCase):
    sign_in = False

    def parent(self, parent_id=1):
        return client().hgetall(NOTES.parent_key(parent_id))

    def embedded_ids(self, parent_id=1):
        return [item["id"] for item in NOTES.embedded(self.parent(parent_id))]

    def test_embed_holds_the_three_newest_and_the_aggregate_counts_all(self):
        make_parent()
        ids = [add(1, n, stars=n) for n in range(1, 6)]
        parent = self.parent()
        self.assertEqual(self.embedded_ids(), [str(i) for i in reversed(ids[-3:])])
        self.assertEqual(parent["num_notes"], "5")
        self.assertEqual(parent["sum_stars"], str(1 + 2 + 3 + 4 + 5))
        self.assertEqual(NOTES.embedded(parent)[0]["author"], "a5")

    def test_an_older_child_added_late_does_not_enter_the_embed(self):
        make_parent()
        for n in range(1, 4):
            add(1, n)
        late = add(1, 9, at=10.0)
        self.assertNotIn(str(late), self.embedded_ids())
        self.assertEqual(self.parent()["num_notes"], "4")

    def test_deleting_an_embedded_child_refills_the_embed_from_the_set(self):
        make_parent()
        ids = [add(1, n, stars=n) for n in range(1, 6)]
        NOTES.delete(ids[-1])
        self.assertEqual(self.embedded_ids(), [str(ids[3]), str(ids[2]), str(ids[1])])
        self.assertEqual(self.parent()["num_notes"], "4")
        self.assertEqual(self.parent()["sum_stars"], str(1 + 2 + 3 + 4))
        self.assertFalse(client().exists(NOTES.child_key(ids[-1])))
        self.assertIsNone(client().zscore(NOTES.index_key(1), str(ids[-1])))

    def test_deleting_an_old_child_leaves_the_embed_alone(self):
        make_parent()
        ids = [add(1, n) for n in range(1, 6)]
        before = self.parent()["recent_notes"]
        NOTES.delete(ids[0])
        self.assertEqual(self.parent()["recent_notes"], before)

    def test_a_missing_parent_is_not_found_and_nothing_is_written(self):
        with self.assertRaises(NotFound):
            add(7, 1)
        self.assertFalse(client().exists(NOTES.index_key(7), NOTES.parent_key(7), NOTES.child_key(1)))

    def test_a_missing_child_is_not_found(self):
        make_parent()
        with self.assertRaises(NotFound):
            NOTES.delete(42)

    def test_a_page_is_newest_first_in_one_round_trip(self):
        make_parent()
        ids = [add(1, n) for n in range(1, 26)]
        with self.assertRoundTrips(1):
            rows, total = NOTES.page(1, offset=20, limit=10)
        self.assertEqual(total, 25)
        self.assertEqual([r["id"] for r in rows], [str(i) for i in reversed(ids[:5])])
        self.assertEqual(rows[0]["text"], "note 5")

    def test_the_event_is_written_with_the_child(self):
        make_parent()
        child = add(1, 0, event=lambda child_id: Event("ann", "created", "test", "note", str(child_id), "n"))
        ((stream_id, fields),) = client().xrange("test:{notes}:events")
        self.assertEqual(fields["object_id"], str(child))
        self.assertEqual(fields["actor"], "ann")

    def test_expected_embed_matches_after_any_sequence(self):
        make_parent()
        rng = random.Random(7)
        alive = []
        for step in range(60):
            if alive and rng.random() < 0.4:
                NOTES.delete(alive.pop(rng.randrange(len(alive))))
            else:
                alive.append(add(1, step, stars=rng.randint(1, 5), at=float(rng.randint(1, 30))))
            self.assertEqual(NOTES.embedded(self.parent()), NOTES.expected_embed(1))

    def test_concurrent_adds_and_deletes_keep_every_derived_value_right(self):
        make_parent()
        seeded = [add(1, n, stars=1 + n % 5) for n in range(40)]
        pool = list(seeded)
        lock = threading.Lock()

        def worker(seed):
            rng = random.Random(seed)
            for step in range(25):
                with lock:
                    victim = pool.pop() if pool and rng.random() < 0.5 else None
                if victim is None:
                    new = add(1, 1000 + seed * 100 + step, stars=rng.randint(1, 5), at=2000.0 + rng.random())
                    with lock:
                        pool.insert(0, new)
                else:
                    NOTES.delete(victim)

        run_concurrently(worker, [(s,) for s in range(8)])
        parent = self.parent()
        count, total = NOTES.aggregate(1)
        self.assertEqual(int(parent["num_notes"]), count)
        self.assertEqual(int(parent["sum_stars"]), total)
        self.assertEqual(count, len(pool))
        self.assertEqual(json.loads(parent["recent_notes"]), NOTES.expected_embed(1))


@tag("cluster")
class ScriptedWritesTest(RedisTestCase):
    sign_in = False

    def test_an_add_is_one_round_trip_and_a_delete_through_its_parent_two(self):
        make_parent()
        add(1, 0)
        with self.assertRoundTrips(1), self.assertCommands(1):  # the script: the id comes from the block
            child = add(1, 1)
        with self.assertRoundTrips(2), self.assertCommands(3):  # the child and the newest ids, then the script
            NOTES.delete(child, expected_parent=1)
        self.assertEqual(self.embedded_ids(), ["1"])

    def embedded_ids(self, parent_id=1):
        return [item["id"] for item in NOTES.embedded(client().hgetall(NOTES.parent_key(parent_id)))]

    def test_a_missing_parent_writes_nothing_and_its_id_goes_to_the_next_add(self):
        make_parent()
        first = add(1, 0)
        with self.assertRaises(NotFound):
            add(7, 1)
        self.assertFalse(client().exists(NOTES.child_key(first + 1)))
        self.assertEqual(add(1, 2), first + 1)

    def test_a_child_of_another_parent_is_not_found_through_the_wrong_parent(self):
        make_parent(1)
        make_parent(2)
        child = add(1, 1)
        with self.assertRaises(NotFound):
            NOTES.delete(child, expected_parent=2)
        self.assertTrue(client().exists(NOTES.child_key(child)))

    def test_the_bulk_writer_leaves_what_one_add_per_child_would(self):
        make_parent(1)
        for n in range(5):
            add(1, n, stars=n + 1, at=float(10 - n))
        by_adds = client().hgetall(NOTES.parent_key(1))
        fields = [{"author": f"a{n}", "stars": str(n + 1), "text": f"note {n}"} for n in range(5)]
        children = [Child(100 + n, fields[n], float(10 - n)) for n in range(5)]
        pipe = client().pipeline(transaction=True)
        derived = NOTES.queue_bulk(pipe, 2, children)
        pipe.hset(NOTES.parent_key(2), mapping={"title": "A post", **derived})
        pipe.execute()
        by_bulk = client().hgetall(NOTES.parent_key(2))
        self.assertEqual((by_bulk["num_notes"], by_bulk["sum_stars"]), (by_adds["num_notes"], by_adds["sum_stars"]))
        self.assertEqual([i["author"] for i in json.loads(by_bulk["recent_notes"])], ["a0", "a1", "a2"])
        self.assertEqual(json.loads(by_bulk["recent_notes"]), NOTES.expected_embed(2))

    def test_the_bulk_writers_embed_breaks_ties_in_time_as_the_set_does(self):
        make_parent(3)
        children = [Child(n, {"author": f"a{n}", "stars": "1"}, 5.0) for n in (8, 9, 10, 11, 100)]
        pipe = client().pipeline(transaction=True)
        derived = NOTES.queue_bulk(pipe, 3, children)
        pipe.hset(NOTES.parent_key(3), mapping=derived)
        pipe.execute()
        embedded = json.loads(client().hget(NOTES.parent_key(3), "recent_notes"))
        self.assertEqual([i["id"] for i in embedded], ["9", "8", "11"])  # member order, as bytes
        self.assertEqual(embedded, NOTES.expected_embed(3))

    def test_the_bulk_writers_embed_is_the_text_json_dumps_writes_of_the_copies(self):
        awkward = ['say "hi"', "back\\slash", "é ü 漢", "tab\tnew\nline\x01", "</script>", ""]
        children = [Child(n, {"author": text, "stars": "1", "text": text}, float(n)) for n, text in enumerate(awkward)]
        derived = NOTES.queue_bulk(client().pipeline(transaction=False), 4, children)
        newest = sorted(children, key=lambda c: (c.at, str(c.id)), reverse=True)[: NOTES.embed_size]
        copies = [NOTES._copy(c.id, {**c.fields, "post": "4", "at": repr(c.at)}) for c in newest]
        self.assertEqual(derived["recent_notes"], json.dumps(copies))
        self.assertEqual(NOTES.queue_bulk(client().pipeline(transaction=False), 4, [])["recent_notes"], "[]")
        odd = NOTES.queue_bulk(client().pipeline(transaction=False), 4, [Child(1, {"author": 7, "stars": "1"}, 1.0)])
        self.assertEqual(json.loads(odd["recent_notes"])[0]["author"], 7)  # not a string: json.dumps itself

    def test_scores_follow_the_aggregate(self):
        by_avg, by_n = "test:{notes}:by:avg", "test:{notes}:by:n"
        scores = ((lambda post_id: by_avg, "average"), (lambda post_id: by_n, "count"))
        scored = ChildCollection(**{**NOTES.__dict__, "scores": scores})
        make_parent()
        add(1, 0, stars=2, at=1.0, collection=scored)
        second = add(1, 1, stars=5, at=2.0, collection=scored)
        self.assertEqual((client().zscore(by_avg, "1"), client().zscore(by_n, "1")), (3.5, 2))
        scored.delete(second)
        self.assertEqual((client().zscore(by_avg, "1"), client().zscore(by_n, "1")), (2, 1))


class BatchedChecksTest(RedisTestCase):
    sign_in = False

    def test_many_parents_are_checked_in_two_round_trips_each(self):
        for parent_id in (1, 2, 3):
            make_parent(parent_id)
            for n in range(parent_id * 2):
                add(parent_id, n, stars=1 + n % 5)
        with self.assertRoundTrips(2):
            embeds = NOTES.expected_embeds([1, 2, 3])
        with self.assertRoundTrips(2):
            totals = NOTES.aggregates([1, 2, 3])
        self.assertEqual(totals, {1: (2, 1 + 2), 2: (4, 1 + 2 + 3 + 4), 3: (6, 1 + 2 + 3 + 4 + 5 + 1)})
        for parent_id in (1, 2, 3):
            self.assertEqual(embeds[parent_id], NOTES.embedded(client().hgetall(NOTES.parent_key(parent_id))))
