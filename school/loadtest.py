"""The school under load: lists and pages read; students enrolled, dropped, holding and confirming seats.

Each client adds a small course of its own (3 seats) and three students; its
students then compete for the seats of every client's small courses and of
the seeded ones, so the capacity check (enrolled plus live holds, inside
the seat script) meets real contention: a full course or a student at their course
limit is refused beside the roster (409), which is a correct answer. Only a
client's own students are enrolled, dropped or held by it, so each
(course, student) pair ends in the state of its last acknowledged write:
enrolled, holding a seat, or neither.
"""

from __future__ import annotations

import re

from config.loadtest import Scenario, ids_in, scenario
from school import store

COURSES, STUDENTS = "/school/courses/", "/school/students/"


def _exists(entity: str, pk: int, label: str) -> bool:
    try:
        document = store.get(entity, pk)
    except store.NotFound:
        return False
    return label in (getattr(document, "title", ""), getattr(document, "name", ""))


def _state(course: int, student: int) -> str:
    if store.is_enrolled(course, student):
        return "enrolled"
    held = any(h.course_id == course for h in store.person_detail("student", student).holds)
    return "held" if held else "none"


@scenario("school", weight=3)
class Registrar(Scenario):
    def setup(self) -> None:
        self.seeded = ids_in(self.http.get(COURSES).text, COURSES)[:10]
        self.pairs: dict[tuple[int, int], str] = {}  # (course, own student) -> enrolled / held / none
        self.doubt: set[tuple[int, int]] = set()  # pairs a write to which met an outage: left alone
        code = f"LT{self.worker:02d}{self.rng.randrange(10**6):06d}"
        form = {"code": code, "title": f"Load seminar {code}", "capacity": "3", "description": ""}
        self.course = course = self.created(self.http.post(f"{COURSES}add/", form))
        self.ack(("course", course), f"course {course} added", lambda: _exists("course", course, form["title"]))
        self.students = []
        for n in range(3):
            person = {"name": f"Load student {self.token()}", "contact": f"lt{self.worker}x{n}@example.com"}
            pk = self.created(self.http.post(f"{STUDENTS}add/", {**person, "emails": ""}))
            self.students.append(pk)
            self.ack(("student", pk), f"student {pk} added", lambda pk=pk, p=person: _exists("student", pk, p["name"]))
        self.small: list[int] = []

    def created(self, response) -> int:
        return int(re.search(r"/(\d+)/$", response.location).group(1))

    def step(self) -> None:
        if not self.small:  # every client's 3-seat course, once they all exist
            self.small = ids_in(self.http.get(COURSES, {"q": "LT"}).text, COURSES) or [self.course]
        action = self.rng.choices((self.read, self.seat, self.change), (50, 30, 20))[0]
        action()

    def read(self) -> None:
        roll = self.rng.random()
        if roll < 0.3:
            entity = self.rng.choice(("courses", "students", "instructors"))
            self.http.get(f"/school/{entity}/", {"q": self.rng.choice(("", "a", "LT", "cs"))})
        elif roll < 0.7:
            self.http.get(f"{COURSES}{self.rng.choice(self.small + self.seeded)}/")
        else:
            self.http.get(f"{STUDENTS}{self.rng.choice(self.students)}/")

    def seat(self) -> None:
        """Enrol or hold a seat for one of the client's students, in a small course most of the time."""
        course = self.rng.choice(self.small if self.rng.random() < 0.7 else self.seeded)
        pair = (course, self.rng.choice(self.students))
        if pair in self.doubt or self.pairs.get(pair, "none") != "none":
            return self.change()
        action = self.rng.choice(("enrol", "hold"))
        self.post(pair, action, "enrolled" if action == "enrol" else "held")

    def change(self) -> None:
        """Drop an enrolment, or confirm or release a hold."""
        taken = [p for p, state in self.pairs.items() if state != "none" and p not in self.doubt]
        if not taken:
            return self.read()
        pair = self.rng.choice(taken)
        if self.pairs[pair] == "enrolled":
            self.post(pair, "drop", "none")
        else:
            action = self.rng.choice(("confirm", "release"))
            self.post(pair, action, "enrolled" if action == "confirm" else "none")

    def post(self, pair: tuple[int, int], action: str, after: str) -> None:
        course, student = pair
        state = lambda: _state(course, student) == after  # noqa: E731
        with self.in_flight(("pair", course, student), state, lambda: self.doubt.add(pair)):
            response = self.http.post(f"{COURSES}{course}/{action}/", {"other": student}, expect=(302, 409))
        if response.status == 409:
            assert action in ("enrol", "hold"), f"{action} of {pair} refused: the model says it can be done"
            said = re.search(r'field-error" role="alert">([^<]*)<', response.text)
            said = said.group(1) if said else ""
            assert "is full" in said or "the most a student may have" in said, f"{action} of {pair}: {said!r}"
            return self.refused("course full" if "is full" in said else "student at their course limit")
        self.pairs[pair] = after
        self.ack(("pair", course, student), f"student {student} {action} in course {course}", state)
