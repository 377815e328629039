"""The org chart under load: browsing the tree, paths and locations; hiring, editing, moving, deleting;
and reorganizing, moving whole departments of the seeded org at once.

Each client hires its own employees under the seeded org and then edits,
moves and deletes only its own; a move under one of its own reports is a
cycle, refused beside the field (a 400 is a correct answer there). After the
load every one of a client's employees must be stored exactly as its last
acknowledged write left it. Meanwhile ``Reorg`` moves the seeded org's large
subtrees (vice presidents and directors with everyone below them) under one
another, concurrently from every client: each move is one script, a cycle
made by two concurrent moves is refused, and ``check_integrity`` (run after
the load) finds every report count equal to the tree. Seeded people are
never below a client's own employees, so the reorganization changes no
client's expectations.
"""

from __future__ import annotations

import re
import time

from config.loadtest import Scenario, ids_in, scenario
from orgchart import store

EMPLOYEES, LOCATIONS = "/orgchart/employees/", "/orgchart/locations/"
TITLES = ("Engineer", "Analyst", "Designer", "Manager", "Writer")
BUSY = "changed under this edit too many times in a row"  # the store's Busy, shown beside the form


def _is(pk: int, name: str, title: str, manager: int | None) -> bool:
    found = store.get_employee(pk)
    return found is not None and (found.name, found.title, found.manager) == (name, title, manager)


def _samples_are(pk: int, expected: dict[int, int]) -> bool:
    stored = {}
    for place, _, samples in store.raw_buckets():
        if place == pk:
            stored.update(samples)
    return stored == expected


def _samples_within(pk: int, acknowledged: dict[int, int], in_doubt: list[tuple[int, int]]) -> bool:
    """The samples after a batch that met an outage: each second as acknowledged, or as that batch sent it."""
    stored = {}
    for place, _, samples in store.raw_buckets():
        if place == pk:
            stored.update(samples)
    doubtful: dict[int, set[int]] = {}
    for second, centi in in_doubt:
        doubtful.setdefault(second, set()).add(centi)
    for second in set(stored) | set(acknowledged):
        allowed = doubtful.get(second, set()) | ({acknowledged[second]} if second in acknowledged else set())
        if stored.get(second) not in allowed:  # an acknowledged second is never missing
            return False
    return True


def _location_is(pk: int, name: str) -> bool:
    found = store.get_location(pk)
    return found is not None and found.name == name


@scenario("orgchart", weight=3)
class People(Scenario):
    def setup(self) -> None:
        self.seeded = ids_in(self.http.get(EMPLOYEES).text, EMPLOYEES)[:20]
        self.places = ids_in(self.http.get(LOCATIONS).text, LOCATIONS)[:10]
        self.mine: dict[int, dict] = {}  # own employee -> {"name", "title", "manager"}
        self.doubt: set[int] = set()  # own employees a write to which met an outage: never written again
        self.pinned: set[int] = set()  # managers a doubtful employee may have: never deleted
        self.my_places: dict[int, str] = {}
        self.frozen_places: set[int] = set()  # own locations a rename of which met an outage
        self.readings: dict[int, dict[int, int]] = {}  # own location -> second -> hundredths acknowledged
        self.pending: dict[int, list[tuple[int, int]]] = {}  # a batch that met an outage: sent again first
        self.hour = int(time.time()) // 3600 * 3600 - 6 * 3600  # samples land in the last few hours

    def step(self) -> None:
        if not self.seeded:
            return self.read()
        if len(self.writable()) < 2:
            return self.hire()
        action = self.rng.choices(
            (self.read, self.hire, self.edit, self.move, self.fire, self.place, self.feed), (60, 8, 12, 12, 4, 4, 6)
        )[0]
        action()

    def read(self) -> None:
        roll = self.rng.random()
        someone = self.rng.choice(self.seeded + self.writable())
        if roll < 0.2:
            self.http.get(EMPLOYEES, {"q": self.rng.choice(("", "a", "m", "lo"))})
        elif roll < 0.45:
            self.http.get(f"{EMPLOYEES}{someone}/", {"depth": self.rng.randint(1, 3)})
        elif roll < 0.6:
            self.http.get("/orgchart/tree/", {"root": someone})
        elif roll < 0.75:
            other = self.rng.choice(self.seeded)
            self.http.get("/orgchart/path/", {"a": f"#{someone}", "b": f"#{other}"})
        elif roll < 0.85 or not self.places:
            self.http.get(LOCATIONS)
        else:
            self.http.get(f"{LOCATIONS}{self.rng.choice(self.places)}/")

    def hire(self) -> None:
        manager = self.rng.choice(self.seeded + self.writable())
        name, title = f"Load {self.token()}", self.rng.choice(TITLES)
        form = self.http.get(f"{EMPLOYEES}add/").post_forms()[-1].fields
        place = str(self.rng.choice(self.places)) if self.places else ""
        form.update(name=name, title=title, manager=f"#{manager}", location=place)
        response = self.http.post(f"{EMPLOYEES}add/", form, expect=(302, 200))
        if self.busy(response):
            return
        pk = int(re.search(r"/(\d+)/$", response.location).group(1))
        self.mine[pk] = {"name": name, "title": title, "manager": manager}
        self.acked(pk, f"employee {pk} hired")

    def edit(self) -> None:
        pk = self.rng.choice(self.writable())
        data = self.mine[pk]
        form = self.http.get(f"{EMPLOYEES}{pk}/edit/").post_forms()[-1].fields
        title = f"{self.rng.choice(TITLES)} {self.token()}"
        form["title"] = title
        after = lambda: _is(pk, data["name"], title, data["manager"])  # noqa: E731
        with self.in_flight(("employee", pk), after, lambda: self.in_doubt(pk, data["manager"])):
            response = self.http.post(f"{EMPLOYEES}{pk}/edit/", form, expect=(302, 200, 409))
        if response.status == 409:
            return self.refused("edit conflicts (409)")  # moved or handed over since the form was read
        if self.busy(response):
            return
        data["title"] = title
        self.acked(pk, f"employee {pk} retitled")

    def move(self) -> None:
        pk = self.rng.choice(self.writable())
        data, manager = self.mine[pk], self.rng.choice(self.seeded + [m for m in self.writable() if m != pk])
        after = lambda: _is(pk, data["name"], data["title"], manager)  # noqa: E731
        with self.in_flight(("employee", pk), after, lambda: self.in_doubt(pk, data["manager"], manager)):
            response = self.http.post(f"{EMPLOYEES}{pk}/move/", {"manager": f"#{manager}"}, expect=(302, 400))
        if response.status == 400 and BUSY in response.text:
            return self.refused("busy, WATCH retries exhausted")
        cycle = self.below(manager, pk)
        if response.status == 400:
            assert "cycle" in response.text, f"move of {pk} under {manager} refused for another reason"
            assert cycle is not False, f"move of {pk} under {manager} refused as a cycle, but it is none"
            return
        assert cycle is not True, f"move of {pk} under {manager} made a cycle"
        data["manager"] = manager
        self.acked(pk, f"employee {pk} moved under {manager}")

    def fire(self) -> None:
        candidates = [pk for pk in self.writable() if pk not in self.pinned]
        if not candidates:
            return self.hire()
        pk = self.rng.choice(candidates)
        boss = self.mine[pk]["manager"]
        reports = [r for r in self.writable() if self.mine[r]["manager"] == pk]
        form = self.http.get(f"{EMPLOYEES}{pk}/delete/").post_forms()[-1].fields
        form["successor"] = f"#{boss}" if boss else ""
        with self.in_flight(("employee", pk), lambda: store.get_employee(pk) is None, lambda: self.unsure(pk, reports)):
            response = self.http.post(f"{EMPLOYEES}{pk}/delete/", form, expect=(302, 200))
        if self.busy(response):
            return
        del self.mine[pk]
        self.ack(("employee", pk), f"employee {pk} deleted", lambda: store.get_employee(pk) is None)
        for report in reports:
            self.mine[report]["manager"] = boss
            self.acked(report, f"employee {report} handed to {boss}")

    def place(self) -> None:
        renamable = [pk for pk in self.my_places if pk not in self.frozen_places]
        name = f"Site {self.token()}"
        if renamable and self.rng.random() < 0.5:
            pk = self.rng.choice(renamable)
            renamed = lambda: _location_is(pk, name)  # noqa: E731
            with self.in_flight(("location", pk, "name"), renamed, lambda: self.frozen_places.add(pk)):
                form = self.http.get(f"{LOCATIONS}{pk}/edit/").post_forms()[-1].fields
                form["name"] = name
                if self.busy(self.http.post(f"{LOCATIONS}{pk}/edit/", form, expect=(302, 200))):
                    return
        else:
            response = self.http.post(f"{LOCATIONS}add/", {"name": name}, expect=(302, 200))
            if self.busy(response):
                return
            pk = int(re.search(r"/(\d+)/$", response.location).group(1))
        self.my_places[pk] = name
        self.ack(("location", pk, "name"), f"location {pk} named {name}", lambda: _location_is(pk, name))

    def feed(self) -> None:
        if not self.my_places:
            return self.place()
        pk = self.rng.choice(list(self.my_places))
        sent = self.readings.setdefault(pk, {})
        batch = list(self.pending.pop(pk, []))  # readings are idempotent: a batch in doubt is simply sent again
        for _ in range(self.rng.randint(1, 20)):
            second = self.hour + self.rng.randrange(4 * 3600)  # in any order, into earlier hours too
            if sent and self.rng.random() < 0.2:
                second = self.rng.choice(list(sent))  # a repeated second: the new value replaces the old
            batch.append((second, self.rng.randint(1500, 2600)))
        before = dict(sent)
        within = lambda: _samples_within(pk, before, batch)  # noqa: E731
        with self.in_flight(("location", pk, "samples"), within, lambda: self.pending.__setitem__(pk, batch)):
            self.direct(lambda: store.record_readings(pk, [(second, centi / 100) for second, centi in batch]))
        sent.update(batch)
        expected = dict(sent)
        what = f"{len(expected)} samples of location {pk}"
        self.ack(("location", pk, "samples"), what, lambda: _samples_are(pk, expected))

    # -- helpers

    def busy(self, response) -> bool:
        """True for the store's Busy refusal (WATCH retries ran out under contention); any other 200 or
        400 to a write is an error."""
        if response.status == 302:
            return False
        if BUSY not in response.text:
            said = re.findall(r'class="(?:field-error|errors)"[^>]*>(.*?)</', response.text, re.S)[:2]
            raise AssertionError(f"{response.path}: {response.status}, refused: {said}")
        self.refused("busy, WATCH retries exhausted")
        return True

    def writable(self) -> list[int]:
        return [pk for pk in self.mine if pk not in self.doubt]

    def in_doubt(self, pk: int, *managers: int | None) -> None:
        """A write to ``pk`` met an outage: never write to it again, nor delete a manager it may have."""
        self.doubt.add(pk)
        self.pinned.update(m for m in managers if m is not None)

    def unsure(self, pk: int, reports: list[int]) -> None:
        """A delete met an outage: ``pk`` may be gone, and its reports may now have its boss."""
        boss = self.mine[pk]["manager"]
        self.in_doubt(pk, boss)
        for report in reports:
            data = self.mine[report]
            self.ledger.in_doubt(
                self.app, ("employee", report), lambda r=report, d=data: _is(r, d["name"], d["title"], boss)
            )
            self.in_doubt(report, pk, boss)

    def acked(self, pk: int, what: str) -> None:
        data = dict(self.mine[pk])
        self.ack(("employee", pk), what, lambda: _is(pk, data["name"], data["title"], data["manager"]))

    def below(self, someone: int, pk: int) -> bool | None:
        """Whether ``someone`` reports to ``pk``, directly or not, by the client's model; None when a
        doubtful employee on the way makes it unknowable."""
        while someone in self.mine:
            if someone in self.doubt:
                return None
            someone = self.mine[someone]["manager"]
            if someone == pk:
                return True
        return False


TREE = "/orgchart/tree/"
_NODE = re.compile(r'<details class="node" data-id="(\d+)".*?(\d+) direct · (\d+) in all', re.S)


def _nodes(html: str) -> list[tuple[int, int]]:
    """(id, people below) of each node with reports on a tree page."""
    return [(int(pk), int(total)) for pk, _, total in _NODE.findall(html)]


@scenario("orgchart-reorg", weight=1)
class Reorg(Scenario):
    """Moves of large subtrees of the seeded org, from every client at once."""

    def setup(self) -> None:
        top = _nodes(self.http.get(TREE).text)  # the chief
        self.departments: list[int] = []
        for pk, _ in top:
            heads = _nodes(self.http.get(TREE, {"root": pk}).text)  # the vice presidents
            self.departments += [head for head, _ in heads]
            for head, _ in heads[:3]:
                self.departments += [d for d, below in _nodes(self.http.get(TREE, {"root": head}).text) if below > 2]

    def step(self) -> None:
        if len(self.departments) < 2:
            return
        if self.rng.random() < 0.5:
            self.http.get(TREE, {"root": self.rng.choice(self.departments)})
            return
        moved, under = self.rng.sample(self.departments, 2)
        response = self.http.post(f"{EMPLOYEES}{moved}/move/", {"manager": f"#{under}"}, expect=(302, 400))
        if response.status == 400:
            assert "cycle" in response.text, f"move of {moved} under {under} refused for another reason"
            self.refused("a department moved under its own part")
