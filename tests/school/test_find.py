"""Finding courses by any part of their title and people by any part of their name: the trigram
indexes (writes, reads, drift, races, growth), the list searches, the pickers, and the save buttons."""

import io
import random
from unittest import mock

from django.core.management import call_command

from config.invariants import violations
from config.redis import client
from config.store.ngramtext import all_grams
from school import keys, store
from school.documents import Course, Person
from tests.base import RedisTestCase, run_concurrently
from tests.school.helpers import ACTOR, course, instructor, student


def holders(entity, gram):
    return client().smembers(keys.ngram(entity, gram))


def gram_keys(entity):
    return sorted(client().scan_iter(match=keys.ngram(entity, "*")))


def messages():
    return [v.message for _, v in violations(["school"])]


def repair():
    call_command("check_integrity", "--only", "school", "--repair", stdout=io.StringIO())


class TrigramWriteTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        store.load_scripts()

    def test_save_and_delete_keep_the_trigrams_of_a_title_and_a_name(self):
        pk = course("MA-201", "Linear Algebra")
        listed = sorted(keys.ngram("course", g) for g in all_grams("MA-201 Linear Algebra"))  # the code and title
        self.assertEqual(gram_keys("course"), listed)
        self.assertEqual(holders("course", "201"), {str(pk)})  # the code's digits find it
        self.assertEqual(holders("course", "ma2"), set())  # pieces never span two words
        with self.assertRoundTrips(1), self.assertCommands(1):  # still one script, the old code and title known
            store.save(
                "course",
                Course(pk, "MA-201", "Abstract Algebra", "", 30),
                actor=ACTOR,
                old_text="MA-201 Linear Algebra",
            )
        self.assertEqual(holders("course", "lin"), set())
        self.assertEqual(holders("course", "abs"), {str(pk)})
        self.assertEqual(holders("course", "alg"), {str(pk)})
        with self.assertRoundTrips(2):  # the old title not given: the script answers with it first
            store.save("course", Course(pk, "MA-201", "Topology", "", 30), actor=ACTOR)
        self.assertEqual(holders("course", "abs"), set())
        ada = student("Ada Bergström")
        self.assertEqual(holders("student", "ber"), {str(ada)})
        self.assertEqual(holders("instructor", "ber"), set())  # each kind has its own sets
        with self.assertRoundTrips(2):  # a delete reads its relations, then one script
            store.delete("student", ada, actor=ACTOR)
        store.delete("course", pk, actor=ACTOR)
        self.assertEqual(gram_keys("course") + gram_keys("student"), [])
        self.assertEqual(messages(), [])

    def test_the_seeders_bulk_path_indexes_too(self):
        tx = store.transaction()
        store.queue_new_documents(tx, "instructor", {7: Person(7, "Pia Pocket", "p@example.org").to_hash()})
        tx.execute()
        client().zadd(keys.index("instructor"), {"7": 7})
        self.assertEqual(holders("instructor", "poc"), {"7"})


class SearchTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        store.load_scripts()
        self.algebra = course("MA-201", "Linear Algebra")
        self.logic = course("PH-110", "Logic and Algebraic Thinking", capacity=1)
        self.cs = course("CS-101", "Intro to Programming")
        self.ada = student("Ada Bergström")
        self.alan = student("Alan Turing")
        self.grace = instructor("Grace Berger")

    def test_a_search_is_one_round_trip_of_set_intersection(self):
        with self.assertRoundTrips(1) as trace:
            found = store.search_ids("course", "ALGEBRA")
        self.assertEqual(found, [self.algebra, self.logic])  # in title order: "Algebraic" holds "algebra" too
        names = [c.name for c in trace.round_trips[0].commands]
        self.assertEqual(names, ["MULTI", "SINTERSTORE", "EXPIRE", "EVAL", "EXEC"])  # the script unlinks it
        self.assertEqual(store.search_ids("course", "algebraic"), [self.logic])
        with self.assertRoundTrips(1) as trace:  # one piece: its own set is read, nothing is intersected or freed
            self.assertEqual(store.search_ids("course", "alg"), [self.algebra, self.logic])
        self.assertEqual([c.name for c in trace.round_trips[0].commands], ["MULTI", "EVAL", "EXEC"])
        self.assertEqual(list(client().scan_iter(match="school:{school}:tmp:*")), [])

    def test_lists_find_any_part_of_a_title_or_name_and_codes_by_their_start(self):
        def labels(entity, q):
            rows, total, *_ = store.list_page(entity, store_state(q))
            return [row.doc.label for row in rows], total

        with self.assertRoundTrips(2):  # the search with the code range, then the rows
            self.assertEqual(
                labels("course", "algeb"), (["MA-201 Linear Algebra", "PH-110 Logic and Algebraic Thinking"], 2)
            )
        self.assertEqual(labels("course", "cs-"), (["CS-101 Intro to Programming"], 1))  # short words: the code's start
        self.assertEqual(
            labels("course", "ma-201"), (["MA-201 Linear Algebra"], 1)
        )  # a code's start, with three letters too
        self.assertEqual(labels("student", "urin"), (["Alan Turing"], 1))
        self.assertEqual(labels("student", "berg"), (["Ada Bergström"], 1))
        self.assertEqual(labels("student", "al"), (["Alan Turing"], 1))  # a prefix
        response = self.client.get("/school/students/?q=ström")
        self.assertContains(response, "Ada Bergström")
        self.assertNotContains(response, "Alan Turing")

    def test_a_search_with_more_matches_than_the_list_holds_says_so(self):
        with mock.patch("school.store.names.SEARCH_LIMIT", 1), mock.patch("school.store.SEARCH_LIMIT", 1):
            capped = self.client.get("/school/courses/?q=algebra").content.decode()
        self.assertIn('id="capped-hint"', capped)
        self.assertIn("More than 1 names match “algebra”", capped)
        self.assertNotEqual("Linear Algebra" in capped, "Logic and Algebraic Thinking" in capped)  # one of the two
        whole = self.client.get("/school/courses/?q=algebra").content.decode()
        self.assertNotIn('id="capped-hint"', whole)
        self.assertIn("Linear Algebra", whole)
        self.assertIn("Logic and Algebraic Thinking", whole)

    def test_the_course_pickers_find_any_part_of_a_name(self):
        with self.assertRoundTrips(2):  # the search, then each candidate's fields and SISMEMBER
            response = self.client.get(
                f"/school/find/course-student/{self.algebra}/?q=ring", headers={"HX-Request": "true"}
            )
        self.assertContains(response, "Alan Turing")
        self.assertNotContains(response, "Ada Bergström")
        response = self.client.get(
            f"/school/find/course-instructor/{self.algebra}/?q=erger", headers={"HX-Request": "true"}
        )
        self.assertContains(response, "Grace Berger")
        response = self.client.get(f"/school/find/course-student/{self.algebra}/?q=zzz", headers={"HX-Request": "true"})
        self.assertContains(response, "Nothing matches “zzz”.")
        response = self.client.get(f"/school/courses/{self.algebra}/")
        self.assertContains(response, 'placeholder="Any part of a name…"')


def store_state(q):
    from config.listing import ListState

    return ListState(q=q)


class GrowthTest(RedisTestCase):
    """The search's work follows its rarest trigram, not the number of students: counted at two sizes."""

    sign_in = False

    def fill(self, count, start):
        tx = store.transaction()
        documents = {
            n: Person(n, f"Honey Stone {n}", f"h{n}@example.org").to_hash() for n in range(start, start + count)
        }
        store.queue_new_documents(tx, "student", documents)
        tx.execute()

    def measure(self):
        with self.assertRoundTrips(1) as trace:
            found = store.search_ids("student", "phone", limit=8)
        smallest = min(client().scard(keys.ngram("student", g)) for g in ("pho", "hon", "one"))
        return found, [str(c) for c in trace.round_trips[0].commands if "tmp" not in str(c)], smallest

    def test_ten_times_the_students_sharing_two_of_three_trigrams_cost_the_search_nothing_more(self):
        store.load_scripts()
        for n in range(3):
            student(f"Telephone Stone {n}")  # holds pho, hon and one
        self.fill(100, 1000)
        small = self.measure()
        self.fill(900, 2000)
        self.assertEqual(client().scard(keys.ngram("student", "hon")), 1003)
        large = self.measure()
        self.assertEqual(len(small[0]), 3)
        self.assertEqual(small[0], large[0])
        self.assertEqual((small[2], large[2]), (3, 3), "the smallest set Redis walks stays the three")
        self.assertEqual(small[1], large[1])


class IntegrityTest(RedisTestCase):
    sign_in = False

    def test_a_planted_drift_is_caught_and_repaired(self):
        store.load_scripts()
        pk, ada = course("MA-201", "Linear Algebra"), student("Ada Berg")
        client().srem(keys.ngram("course", "lin"), str(pk))
        client().sadd(keys.ngram("student", "zzz"), str(ada))
        client().sadd(keys.ngram("instructor", "abc"), "999")
        found = messages()
        self.assertIn(f"course {pk}: its title's pieces ['lin'] do not list it", found)
        self.assertIn(f"student {ada} is listed under ['zzz'], which its name does not hold", found)
        self.assertIn("instructor 999 is listed under ['abc'], which its name does not hold", found)
        repair()
        self.assertEqual(messages(), [])
        self.assertEqual(holders("course", "lin"), {str(pk)})

    def test_renames_racing_leave_the_index_exact(self):
        store.load_scripts()
        ids = [student(f"Racer {n}") for n in range(3)]
        words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"]

        def worker(seed):
            rng = random.Random(seed)
            for step in range(12):
                pk = rng.choice(ids)
                current = store.get("student", pk)
                name = f"{rng.choice(words)} {rng.choice(words)} {seed}{step}"
                renamed = Person(pk, name, current.contact, current.emails)
                store.save("student", renamed, actor=ACTOR, old_text=current.name)  # stale: the script says so

        run_concurrently(worker, [(n,) for n in range(6)])
        self.assertEqual(messages(), [])
        held = {key.rsplit(":", 1)[1] for key in gram_keys("student")}
        self.assertEqual(held, set().union(*(all_grams(store.get("student", i).name) for i in ids)))


class SaveAndTest(RedisTestCase):
    def test_save_and_add_another_and_save_and_continue_editing(self):
        post = {"code": "MA-201", "title": "Algebra", "description": "", "capacity": "10", "_addanother": "1"}
        response = self.client.post("/school/courses/add/", post, follow=True)
        self.assertEqual(response.redirect_chain[-1][0], "/school/courses/add/")
        self.assertContains(response, "was added. You may add another below.")
        self.assertContains(response, "Save and continue editing")
        pk = store.search_ids("course", "algebra")[0]
        response = self.client.get(f"/school/courses/{pk}/edit/")
        edit = {**response.context["form"].initial, "title": "Algebra II", "_continue": "1"}
        edit.pop("_addanother", None)
        response = self.client.post(f"/school/courses/{pk}/edit/", edit, follow=True)
        self.assertEqual(response.redirect_chain[-1][0], f"/school/courses/{pk}/edit/")
        self.assertContains(response, "You may edit it again below.")
        self.assertEqual(store.search_ids("course", "algebra ii"), [pk])
        self.assertEqual(messages(), [])
