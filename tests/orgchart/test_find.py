"""Finding employees: the name trigram index (writes, reads, drift, races, growth) and the pickers
that suggest people for the manager and successor fields."""

import io
import random
from unittest import mock

from django.core.management import call_command

from config.redis import client
from config.store.ngramtext import all_grams
from orgchart import keys, store
from orgchart.documents import fold
from orgchart.importing import OrgData, Person
from orgchart.store.names import SEARCH_LIMIT
from tests.base import RedisTestCase, run_concurrently
from tests.orgchart.helpers import ACTOR, employee, location, org
from tests.orgchart.test_graph import SPEC
from tests.orgchart.test_integrity import messages

TRIGRAMS = "the name trigram index holds each employee under exactly the pieces of its name: "


def holders(gram):
    return client().smembers(keys.ngram(gram))


def gram_keys():
    return sorted(client().scan_iter(match=keys.ngram("*")))


def values(name, manager=None):
    return {"name": name, "title": "Engineer", "manager": manager, "location": None, "full_time": True}


def repair():
    call_command("check_integrity", "--only", "orgchart", "--repair", stdout=io.StringIO())


class NameTrigramWriteTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        store.load_scripts()

    def test_hire_edit_and_delete_keep_the_trigrams_of_the_name(self):
        pk = employee("Ada Berg")
        self.assertEqual(gram_keys(), sorted(keys.ngram(g) for g in all_grams("Ada Berg")))
        with self.assertRoundTrips(1), self.assertCommands(1):  # still one script, the old name known
            store.save_employee(pk, values("Ada Bergström"), actor=ACTOR, old_name="Ada Berg")
        self.assertEqual(holders("str"), {str(pk)})
        self.assertEqual(holders("ber"), {str(pk)})  # in both: kept
        with self.assertRoundTrips(2):  # the old name not given: the script answers with it first
            store.save_employee(pk, values("Ada Lind"), actor=ACTOR)
        self.assertEqual(holders("str"), set())
        self.assertEqual(holders("lin"), {str(pk)})
        with self.assertRoundTrips(1), self.assertCommands(1):
            store.delete_employee(pk, None, actor=ACTOR, name="Ada Lind")
        self.assertEqual(gram_keys(), [])
        self.assertEqual(messages(), [])

    def test_a_refused_edit_writes_no_trigram(self):
        ann, bob = employee("Ann Hart"), employee("Bob Stone")
        with self.assertRaises(store.Refused):
            store.save_employee(bob, values("Ann Hart"), actor=ACTOR, old_name="Bob Stone")
        self.assertEqual(holders("sto"), {str(bob)})
        self.assertEqual(holders("har"), {str(ann)})

    def test_the_import_indexes_names_too(self):
        data = OrgData()
        data.people["pia pocket"] = Person("Pia Pocket")
        data.people["lu"] = Person("Lu", manager="pia pocket")
        done = store.import_graph(data, actor=ACTOR)
        self.assertEqual(holders("poc"), {str(done.first_employee)})
        self.assertEqual(messages(), [])


class NameSearchTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        store.load_scripts()
        self.ada = employee("Ada Bergström")
        self.bert = employee("Bert Holm")
        self.cecil = employee("Cécile Berger")

    def test_a_suggestion_is_one_round_trip_in_name_order(self):
        with self.assertRoundTrips(1) as trace:
            found = store.suggest_employees("BERG")
        self.assertEqual(found, [(str(self.ada), "Ada Bergström"), (str(self.cecil), "Cécile Berger")])
        names = [c.name for c in trace.round_trips[0].commands]
        # the scratch set expires if left; the script unlinks it
        self.assertEqual(names, ["MULTI", "ZRANGEBYLEX", "SINTERSTORE", "EXPIRE", "EVAL", "EXEC"])
        self.assertEqual(store.suggest_employees("cecile"), [(str(self.cecil), "Cécile Berger")])
        found = [name for _, name in store.suggest_employees("be")]  # one piece: anywhere, the name's start first
        self.assertEqual(found, ["Bert Holm", "Ada Bergström", "Cécile Berger"])
        self.assertEqual(list(client().scan_iter(match="orgchart:{orgchart}:tmp:*")), [])

    def test_the_list_finds_any_part_of_a_name_even_short_text_the_names_start_first(self):
        with self.assertRoundTrips(2) as trace:  # the matching ids, then their rows
            response = self.client.get("/orgchart/employees/?q=olm")
        self.assertContains(response, "Bert Holm")
        self.assertNotContains(response, "Ada Bergström")
        (sample,) = [c for c in trace.trips("data")[0].commands if c.name == "EVAL"]
        self.assertEqual(list(sample.args)[-2], str(SEARCH_LIMIT + 1))  # candidates read: the limit and one more
        response = self.client.get("/orgchart/employees/?q=be")
        shown = [name for name in ("Bert Holm", "Ada Bergström", "Cécile Berger") if name in response.content.decode()]
        self.assertEqual(shown, ["Bert Holm", "Ada Bergström", "Cécile Berger"])
        page = response.content.decode()
        self.assertLess(page.index("Bert Holm"), page.index("Ada Bergström"))  # the name's start first

    def test_a_search_with_more_matches_than_the_list_holds_says_so(self):
        with mock.patch("orgchart.store.names.SEARCH_LIMIT", 1), mock.patch("orgchart.store.SEARCH_LIMIT", 1):
            capped = self.client.get("/orgchart/employees/?q=berg").content.decode()
        self.assertIn('id="capped-hint"', capped)
        self.assertIn("More than 1 names match “berg”", capped)
        self.assertEqual(capped.count("Bergström") + capped.count("Berger"), 1)
        whole = self.client.get("/orgchart/employees/?q=berg").content.decode()
        self.assertNotIn('id="capped-hint"', whole)
        self.assertIn("Bergström", whole)
        self.assertIn("Berger", whole)

    def test_the_suggestions_view_escapes_and_fills_ids(self):
        evil = employee("Eve <b>Bold</b>")
        with self.assertRoundTrips(1):
            named = {"HX-Request": "true", "HX-Trigger-Name": "manager"}
            response = self.client.get("/orgchart/employees/suggest/?manager=bold", headers=named)
        self.assertContains(response, f'data-id="{evil}"')
        self.assertContains(response, "Eve &lt;b&gt;Bold&lt;/b&gt;")
        self.assertNotContains(response, "<b>Bold")

    def test_the_manager_and_successor_fields_are_comboboxes(self):
        for path in (f"/orgchart/employees/{self.ada}/", f"/orgchart/employees/{self.ada}/edit/",
                     "/orgchart/employees/add/", f"/orgchart/employees/{self.ada}/delete/"):  # fmt: skip
            response = self.client.get(path)
            self.assertContains(response, 'role="combobox"', msg_prefix=path)
            self.assertContains(response, 'hx-get="/orgchart/employees/suggest/"', msg_prefix=path)
            self.assertContains(response, "js/autocomplete.js", msg_prefix=path)

    def test_a_picked_id_wins_and_a_typed_name_or_id_still_works_without_js(self):
        response = self.client.post(
            f"/orgchart/employees/{self.bert}/move/", {"manager": "Ada Bergström", "manager_id": str(self.ada)}
        )
        self.assertEqual(response.status_code, 302)
        self.assertEqual(store.get_employee(self.bert).manager, self.ada)
        self.client.post(f"/orgchart/employees/{self.bert}/move/", {"manager": "cécile berger"})  # exact name
        self.assertEqual(store.get_employee(self.bert).manager, self.cecil)
        self.client.post(f"/orgchart/employees/{self.bert}/move/", {"manager": f"#{self.ada}"})
        self.assertEqual(store.get_employee(self.bert).manager, self.ada)
        response = self.client.post(f"/orgchart/employees/{self.bert}/move/", {"manager": "Berg"})  # part: refused
        self.assertContains(response, "No employee is called &#x27;Berg&#x27;.", status_code=400)
        response = self.client.post(f"/orgchart/employees/{self.ada}/delete/", {"successor": "x", "successor_id": "9x"})
        self.assertContains(response, "No employee is called &#x27;x&#x27;.")  # a malformed id is ignored
        self.assertEqual(messages(), [])


class GrowthTest(RedisTestCase):
    """The search's work follows its rarest trigram, not the org: counted at two sizes."""

    sign_in = False

    def fill(self, count, start):
        data = OrgData()
        for n in range(start, start + count):
            data.people[f"honey stone {n}"] = Person(f"Honey Stone {n}")
        store.import_graph(data, actor=ACTOR, atomic=False)

    def measure(self):
        with self.assertRoundTrips(1) as trace:
            found = store.suggest_employees("phone")
        smallest = min(client().scard(keys.ngram(g)) for g in ("pho", "hon", "one"))
        return found, [str(c) for c in trace.round_trips[0].commands if "tmp" not in str(c)], smallest

    def test_ten_times_the_people_sharing_two_of_three_trigrams_cost_the_search_nothing_more(self):
        for n in range(3):
            employee(f"Telephone Operator {n}")
        self.fill(100, 0)
        small = self.measure()
        self.fill(900, 100)
        self.assertEqual(client().scard(keys.ngram("hon")), 1003)
        large = self.measure()
        self.assertEqual(len(small[0]), 3)
        self.assertEqual(small[0], large[0])
        self.assertEqual((small[2], large[2]), (3, 3), "the smallest set Redis walks stays the three operators")
        self.assertEqual(small[1], large[1])


class NameTrigramIntegrityTest(RedisTestCase):
    sign_in = False

    def test_a_planted_drift_is_caught_and_repaired(self):
        ids = org(SPEC, location("Seattle"))
        client().srem(keys.ngram("dou"), str(ids["Doug"]))
        client().sadd(keys.ngram("zzz"), str(ids["Ann"]))
        client().sadd(keys.ngram("abc"), "999")  # an employee that does not exist
        found = messages()
        self.assertIn(TRIGRAMS + f"employee {ids['Doug']}: its name's pieces ['dou'] do not list it", found)
        self.assertIn(TRIGRAMS + f"employee {ids['Ann']} is listed under ['zzz'], which its name does not hold", found)
        self.assertIn(TRIGRAMS + "employee 999 is listed under ['abc'], which its name does not hold", found)
        repair()
        self.assertEqual(messages(), [])
        self.assertEqual(holders("dou"), {str(ids["Doug"])})

    def test_renames_racing_leave_the_index_exact(self):
        store.load_scripts()
        ids = [employee(f"Racer {n}") for n in range(3)]
        words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"]

        def worker(seed):
            rng = random.Random(seed)
            for step in range(12):
                pk = rng.choice(ids)
                current = store.get_employee(pk)
                name = f"{rng.choice(words)} {rng.choice(words)} {seed}{step}"
                # a stale old name is answered by the script, which the store follows: never a drift
                store.save_employee(pk, values(name), actor=ACTOR, old_name=current.name)

        run_concurrently(worker, [(n,) for n in range(6)])
        self.assertEqual(messages(), [])
        held = {key.rsplit(":", 1)[1] for key in gram_keys()}
        self.assertEqual(held, set().union(*(all_grams(store.get_employee(i).name) for i in ids)))
        for pk in ids:
            self.assertEqual(client().hget(keys.employee_by_name(), fold(store.get_employee(pk).name)), str(pk))
