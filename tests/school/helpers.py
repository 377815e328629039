"""Shared set-up for the school tests: documents written through the store."""

from school import store
from school.documents import Course, Person


def course(code="CS-101", title="Intro", capacity=30) -> int:
    return store.save("course", Course(0, code, title, "", capacity), "tester", lambda pk: f"/school/courses/{pk}/")


def person(entity="student", name="Ada", email=None) -> int:
    email = email or f"{name.lower().replace(' ', '.')}@example.org"
    return store.save(entity, Person(0, name, email, [email]), "tester", lambda pk: f"/school/{entity}s/{pk}/")


def student(name="Ada") -> int:
    return person("student", name)


def instructor(name="Grace") -> int:
    return person("instructor", name)
