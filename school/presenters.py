"""The links of the school's long row loops (lists, a roster), reversed once a page (``url_for_each``);
the short lists use ``{% url %}``."""

from __future__ import annotations

from config.listing import url_for_each


def list_rows(detail_name: str, rows) -> list[dict]:
    """What each ``store.Row`` of a list page shows, with its URL: dicts, the cheapest for a template."""
    url = url_for_each(detail_name)
    if detail_name == "school:course_detail":
        return [
            {"id": c.id, "code": c.code, "title": c.title, "url": url(c.id), "capacity": c.capacity, **row.counts}
            for row in rows
            for c in [row.doc]
        ]
    return [
        {"id": p.id, "name": p.name, "contact": p.contact, "url": url(p.id), "schema": p.schema, **row.counts}
        for row in rows
        for p in [row.doc]
    ]


def roster(people) -> list[tuple]:
    """(student, their page's URL) for each student of a roster page."""
    url = url_for_each("school:student_detail")
    return [(person, url(person.id)) for person in people]
