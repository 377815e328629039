"""The links of the org chart's row loops, prepared once per page for their templates.

A list, a staff page, a level of the tree or the people around an employee each link every row
to an employee's or a location's page: each such URL is reversed once per page
(``url_for_each``) and each row carries its own. The templates write the rows.
"""

from __future__ import annotations

from functools import cache

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from config.listing import url_for_each
from orgchart.forms import ReportsToForm


def people(employees) -> list[tuple]:
    """(employee, their page's URL) for each employee."""
    url = url_for_each("orgchart:employee_detail")
    return [(e, url(e.id)) for e in employees]


def staff_rows(employees) -> list[dict]:
    """A location's staff as its table prints them: dicts, which the template language reads at its first
    try (an attribute costs it a failed lookup first), a row's link and its time as words."""
    url = url_for_each("orgchart:employee_detail")
    return [
        {
            "url": url(e.id),
            "name": e.name,
            "title": e.title,
            "time": "full" if e.full_time else "part",
            "total": e.total,
        }
        for e in employees
    ]


@cache
def empty_under_fields() -> SafeString:
    """The staff filter's fields, unbound: the same on every location page, rendered once."""
    return render_to_string("orgchart/location_detail.html#under-fields", {"under_form": ReportsToForm()})


def employee_rows(employees) -> list[tuple]:
    """(employee, their page's URL, their location's URL or "") for each row of the employee list."""
    url, where = url_for_each("orgchart:employee_detail"), url_for_each("orgchart:location_detail")
    return [(e, url(e.id), where(e.location) if e.location else "") for e in employees]


def location_rows(pairs) -> list[tuple]:
    """(location, head count, its page's URL) for each (location, head count) row of the location list."""
    url = url_for_each("orgchart:location_detail")
    return [(location, staff, url(location.id)) for location, staff in pairs]


def tree_nodes(children) -> list[tuple]:
    """(employee, their page's URL, the URL of their children's fragment) for each node of a tree level."""
    url, below = url_for_each("orgchart:employee_detail"), url_for_each("orgchart:tree_children")
    return [(e, url(e.id), below(e.id)) for e in children]
