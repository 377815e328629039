"""The links of the school's long row loops, prepared once per page for their templates.

A list page and a course's roster show a page of rows, each linking to its document: the
document's URL is reversed once per page (``url_for_each``) and each row carries its own.
The templates write the rows; the short lists (instructors, a person's courses, holds) use
``{% url %}``.
"""

from __future__ import annotations

from config.listing import url_for_each


def list_rows(detail_name: str, rows) -> list[tuple]:
    """(row, its document's URL) for each ``store.Row`` of a list page."""
    url = url_for_each(detail_name)
    return [(row, url(row.doc.id)) for row in rows]


def roster(people) -> list[tuple]:
    """(student, their page's URL) for each student of a roster page."""
    url = url_for_each("school:student_detail")
    return [(person, url(person.id)) for person in people]
