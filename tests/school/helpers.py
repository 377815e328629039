"""Shared set-up for the school tests: documents written through the store."""

from config.activity import Actor
from school import store
from school.documents import Course, Person

ACTOR = Actor("tester", link=lambda entity, pk: f"/school/{entity}s/{pk}/")


def course(code="CS-101", title="Intro", capacity=30) -> int:
    return store.save("course", Course(0, code, title, "", capacity), actor=ACTOR)


def person(entity="student", name="Ada", email=None) -> int:
    email = email or f"{name.lower().replace(' ', '.')}@example.org"
    return store.save(entity, Person(0, name, email, [email]), actor=ACTOR)


def student(name="Ada") -> int:
    return person("student", name)


def instructor(name="Grace") -> int:
    return person("instructor", name)
