"""Stateful property tests of the org chart: hires, moves, deletes, locations and late or repeated sensor samples.

Random sequences go through ``orgchart.store``; after every step the org
chart invariants hold and a plain model (a manager per employee, a location
per employee, samples per location and second) agrees with what Redis holds:
each employee's manager, chain of command, report counts and location name,
and each sensor-hour's raw samples.
"""

from django.test import SimpleTestCase
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from config.invariants import violations
from orgchart import store
from tests.base import RedisMixin, flush_test_redis

ACTOR = store.Actor("prop")
BASE = 1_767_600_000  # 2026-01-05 08:00 UTC: samples fall in a few hours around it
PICK = st.integers(0, 10**6)
MAYBE = st.one_of(st.none(), PICK)
BOUNDED = hypothesis_settings(max_examples=12, stateful_step_count=25, deadline=None)


class Org(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        flush_test_redis()
        self.manager: dict[int, int | None] = {}
        self.works_at: dict[int, int | None] = {}
        self.places: dict[int, str] = {}
        self.samples: dict[int, dict[int, int]] = {}  # location -> second -> hundredths
        self.closed: set[int] = set()  # deleted locations: their sensors refuse readings
        self.names = 0

    def pick(self, pool, n):
        pool = sorted(pool)
        return pool[n % len(pool)] if pool and n is not None else None

    def chain(self, pk: int) -> list[int]:
        up = []
        while (pk := self.manager[pk]) is not None:
            up.insert(0, pk)
        return up

    def below(self, pk: int) -> set[int]:
        return {e for e in self.manager if pk in self.chain(e)}

    def name(self, kind: str) -> str:
        self.names += 1
        return f"{kind} {self.names}"

    @rule(manager=MAYBE, place=MAYBE)
    def hire(self, manager, place):
        manager, place = self.pick(self.manager, manager), self.pick(self.places, place)
        values = {"name": self.name("Employee"), "title": "", "location": place, "manager": manager}
        pk = store.save_employee(None, values, actor=ACTOR)
        assert pk not in self.manager
        self.manager[pk], self.works_at[pk] = manager, place

    @precondition(lambda self: self.manager)
    @rule(who=PICK, manager=MAYBE)
    def move(self, who, manager):
        pk, manager = self.pick(self.manager, who), self.pick(self.manager, manager)
        cycle = manager is not None and (manager == pk or manager in self.below(pk))
        try:
            store.move_employee(pk, manager, actor=ACTOR)
        except store.Refused:
            assert cycle
            return
        assert not cycle
        self.manager[pk] = manager

    @precondition(lambda self: self.manager)
    @rule(who=PICK, successor=MAYBE)
    def fire(self, who, successor):
        pk, successor = self.pick(self.manager, who), self.pick(self.manager, successor)
        refused = successor is not None and (successor == pk or successor in self.below(pk))
        try:
            store.delete_employee(pk, successor, actor=ACTOR)
        except store.Refused:
            assert refused
            return
        assert not refused
        for report, boss in self.manager.items():
            if boss == pk:
                self.manager[report] = successor
        del self.manager[pk], self.works_at[pk]

    @rule(which=MAYBE)
    def name_a_place(self, which):
        pk = self.pick(self.places, which)
        name = self.name("Site")
        saved = store.save_location(pk, name, actor=ACTOR)
        assert saved == pk or (pk is None and saved not in self.places)
        self.places[saved] = name

    @precondition(lambda self: self.places)
    @rule(which=PICK, successor=MAYBE)
    def close_a_place(self, which, successor):
        pk, successor = self.pick(self.places, which), self.pick(self.places, successor)
        if successor == pk:
            successor = None
        store.delete_location(pk, successor, actor=ACTOR)
        for employee, place in self.works_at.items():
            if place == pk:
                self.works_at[employee] = successor
        del self.places[pk]
        self.samples.pop(pk, None)
        self.closed.add(pk)

    @precondition(lambda self: self.closed)
    @rule(which=PICK, second=st.integers(-7200, 7200))
    def a_sample_for_a_closed_place_is_refused(self, which, second):
        pk = self.pick(self.closed, which)
        try:
            store.record_readings(pk, [(BASE + second, 20.0)])
        except store.NotFound:
            return
        raise AssertionError(f"a reading for deleted location {pk} was stored")

    @precondition(lambda self: self.places)
    @rule(
        which=PICK,
        readings=st.lists(st.tuples(st.integers(-7200, 7200), st.integers(-3000, 4000)), min_size=1, max_size=12),
    )
    def samples_arrive(self, which, readings):
        """Out of order, late into earlier hours, and repeated seconds (the last value wins)."""
        pk = self.pick(self.places, which)
        store.record_readings(pk, [(BASE + offset, centi / 100) for offset, centi in readings])
        for offset, centi in readings:
            self.samples.setdefault(pk, {})[BASE + offset] = centi

    @invariant()
    def the_orgchart_invariants_hold(self):
        assert violations(["orgchart"]) == []

    @invariant()
    def redis_agrees_with_the_model(self):
        for pk, manager in self.manager.items():
            found = store.get_employee(pk)
            assert found.manager == manager
            assert [m.id for m in store.chain_of_command(pk).managers] == self.chain(pk)
            assert found.direct == sum(boss == pk for boss in self.manager.values())
            assert found.total == len(self.below(pk))
            assert found.location == self.works_at[pk]
            assert found.location_name == self.places.get(self.works_at[pk], "")
        for pk, name in self.places.items():
            assert store.get_location(pk).name == name
        stored: dict[int, dict[int, int]] = {}
        for place, _, samples in store.raw_buckets():
            for second, centi in samples:
                assert second not in stored.setdefault(place, {}), "a second stored twice"
                stored[place][second] = centi
        assert stored == {pk: s for pk, s in self.samples.items() if s}


class OrgchartPropertiesTest(RedisMixin, SimpleTestCase):
    def test_hires_moves_deletes_places_and_samples_follow_the_model(self):
        run_state_machine_as_test(Org, settings=BOUNDED)
