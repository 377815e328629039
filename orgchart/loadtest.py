"""The org chart under load: browsing the tree, paths and locations; hiring, editing, moving, deleting.

Each client hires its own employees under the seeded org (which nobody moves,
so everyone's chains stay known) and then edits, moves and deletes only its
own; a move under one of its own reports is a cycle, refused beside the field
(a 400 is a correct answer there). After the load every one of a client's
employees must be stored exactly as its last acknowledged write left it.
"""

from __future__ import annotations

import re

from config.loadtesting import Scenario, ids_in, scenario
from orgchart import store

EMPLOYEES, LOCATIONS = "/orgchart/employees/", "/orgchart/locations/"
TITLES = ("Engineer", "Analyst", "Designer", "Manager", "Writer")


def _is(pk: int, name: str, title: str, manager: int | None) -> bool:
    found = store.get_employee(pk)
    return found is not None and (found.name, found.title, found.manager) == (name, title, manager)


def _location_is(pk: int, name: str) -> bool:
    found = store.get_location(pk)
    return found is not None and found.name == name


@scenario("orgchart", weight=3)
class People(Scenario):
    def setup(self) -> None:
        self.seeded = ids_in(self.http.get(EMPLOYEES).text, EMPLOYEES)[:20]
        self.places = ids_in(self.http.get(LOCATIONS).text, LOCATIONS)[:10]
        self.mine: dict[int, dict] = {}  # own employee -> {"name", "title", "manager"}
        self.my_places: dict[int, str] = {}

    def step(self) -> None:
        if not self.seeded:
            return self.read()
        if len(self.mine) < 2:
            return self.hire()
        action = self.rng.choices(
            (self.read, self.hire, self.edit, self.move, self.fire, self.place), (60, 8, 12, 12, 4, 4)
        )[0]
        action()

    def read(self) -> None:
        roll = self.rng.random()
        someone = self.rng.choice(self.seeded + list(self.mine)) if self.seeded else None
        if roll < 0.2 or someone is None:
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
        manager = self.rng.choice(self.seeded + list(self.mine))
        name, title = f"Load {self.token()}", self.rng.choice(TITLES)
        form = self.http.get(f"{EMPLOYEES}add/").post_forms()[-1].fields
        place = str(self.rng.choice(self.places)) if self.places else ""
        form.update(name=name, title=title, manager=f"#{manager}", location=place)
        pk = int(re.search(r"/(\d+)/$", self.http.post(f"{EMPLOYEES}add/", form).location).group(1))
        self.mine[pk] = {"name": name, "title": title, "manager": manager}
        self.acked(pk, f"employee {pk} hired")

    def edit(self) -> None:
        pk = self.rng.choice(list(self.mine))
        form = self.http.get(f"{EMPLOYEES}{pk}/edit/").post_forms()[-1].fields
        title = f"{self.rng.choice(TITLES)} {self.token()}"
        form["title"] = title
        self.http.post(f"{EMPLOYEES}{pk}/edit/", form)
        self.mine[pk]["title"] = title
        self.acked(pk, f"employee {pk} retitled")

    def move(self) -> None:
        pk = self.rng.choice(list(self.mine))
        manager = self.rng.choice(self.seeded + [m for m in self.mine if m != pk])
        response = self.http.post(f"{EMPLOYEES}{pk}/move/", {"manager": f"#{manager}"}, expect=(302, 400))
        if response.status == 400:
            assert "cycle" in response.text, f"move of {pk} under {manager} refused for another reason"
            assert self.below(manager, pk), f"move of {pk} under {manager} refused as a cycle, but it is none"
            return
        self.mine[pk]["manager"] = manager
        self.acked(pk, f"employee {pk} moved under {manager}")

    def fire(self) -> None:
        pk = self.rng.choice(list(self.mine))
        boss = self.mine[pk]["manager"]
        form = self.http.get(f"{EMPLOYEES}{pk}/delete/").post_forms()[-1].fields
        form["successor"] = f"#{boss}" if boss else ""
        self.http.post(f"{EMPLOYEES}{pk}/delete/", form)
        del self.mine[pk]
        self.ack(("employee", pk), f"employee {pk} deleted", lambda: store.get_employee(pk) is None)
        for report, data in self.mine.items():
            if data["manager"] == pk:
                data["manager"] = boss
                self.acked(report, f"employee {report} handed to {boss}")

    def place(self) -> None:
        mine = list(self.my_places)
        name = f"Site {self.token()}"
        if mine and self.rng.random() < 0.5:
            pk = self.rng.choice(mine)
            self.http.post(f"{LOCATIONS}{pk}/edit/", {"name": name})
        else:
            pk = int(re.search(r"/(\d+)/$", self.http.post(f"{LOCATIONS}add/", {"name": name}).location).group(1))
        self.my_places[pk] = name
        self.ack(("location", pk), f"location {pk} named {name}", lambda: _location_is(pk, name))

    # -- helpers

    def acked(self, pk: int, what: str) -> None:
        data = dict(self.mine[pk])
        self.ack(("employee", pk), what, lambda: _is(pk, data["name"], data["title"], data["manager"]))

    def below(self, someone: int, pk: int) -> bool:
        """Whether ``someone`` reports to ``pk``, directly or not, by the client's own model."""
        while someone in self.mine:
            someone = self.mine[someone]["manager"]
            if someone == pk:
                return True
        return False
