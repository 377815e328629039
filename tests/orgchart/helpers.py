"""Small builders for the org chart tests: everything goes through the store, as the app does."""

from orgchart import store

ACTOR = store.Actor("tester")


def location(name: str) -> int:
    return store.save_location(None, name, actor=ACTOR)


def employee(name: str, manager: int | None = None, location: int | None = None, title: str = "Engineer") -> int:
    values = {"name": name, "title": title, "manager": manager, "location": location, "full_time": True}
    return store.save_employee(None, values, actor=ACTOR)


def org(spec: dict[str, str | None], where: int | None = None) -> dict[str, int]:
    """{name: manager name} in an order where managers come first -> {name: id}."""
    ids: dict[str, int] = {}
    for name, boss in spec.items():
        ids[name] = employee(name, ids[boss] if boss else None, where)
    return ids
