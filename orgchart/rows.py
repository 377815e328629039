"""The org chart's repeated rows (list rows, people in a list), built once per page in Python.

A row loop in a template resolves each variable, runs ``{% url %}`` and ``{% if %}`` per row;
here each link comes from a prefix reversed once per page and every stored value is escaped
(``html.escape``, what Django's autoescape does) before the row is marked safe. The markup is
the one the templates wrote.
"""

from __future__ import annotations

from functools import cache
from html import escape

from django.utils.safestring import SafeString, mark_safe

from config.templatetags.dashboard import form_fields
from config.urlpaths import paths_of

__all__ = [
    "Links",
    "employee_rows",
    "location_rows",
    "staff_rows",
    "people_items",
    "level_rows",
    "depth_chips",
    "form_html",
    "inline_fields",
    "page_urls",
    "list_urls",
]


_SHARED = ("dashboard", "orgchart:tree", "orgchart:employee_list", "orgchart:location_list")


class Links:
    """The employee and location page prefixes, reversed once per script prefix:
    ``/orgchart/employees/`` + id + ``/``."""

    def __init__(self):
        shared = paths_of(*_SHARED)
        self.employees, self.locations = shared["employee_list"], shared["location_list"]

    def employee(self, pk) -> str:
        return f"{self.employees}{pk}/"

    def location(self, pk) -> str:
        return f"{self.locations}{pk}/"


def _person_link(links: Links, e) -> str:
    return f'<a href="{links.employee(e.id)}">{escape(e.name)}</a>'


def employee_rows(employees, links: Links | None = None) -> SafeString:
    """The employee list's table rows: name (part time marked), title, location, both report counts."""
    links = links or Links()
    out = []
    for e in employees:
        part = "" if e.full_time else ' <span class="muted">(part time)</span>'
        where = f'<a href="{links.location(e.location)}">{escape(e.location_name)}</a>' if e.location else ""
        out.append(
            f"<tr>\n      <td>{_person_link(links, e)}{part}</td>\n      <td>{escape(e.title)}</td>\n"
            f'      <td>{where}</td>\n      <td class="num">{int(e.direct)}</td><td class="num">{int(e.total)}</td>\n'
            "    </tr>"
        )
    return mark_safe("\n".join(out))  # noqa: S308  (every stored value escaped above)


def location_rows(pairs, links: Links | None = None) -> SafeString:
    """The location list's table rows: (location, head count) pairs."""
    links = links or Links()
    out = [
        f'<tr><td><a href="{links.location(location.id)}">{escape(location.name)}</a></td>'
        f'<td class="num">{int(staff)}</td></tr>'
        for location, staff in pairs
    ]
    return mark_safe("\n".join(out))  # noqa: S308  (every stored value escaped above)


def staff_rows(employees, links: Links | None = None) -> SafeString:
    """A location's staff table rows: name, title, full or part time, all reports."""
    links = links or Links()
    out = [
        f"<tr><td>{_person_link(links, e)}</td><td>{escape(e.title)}</td>"
        f'<td>{"full" if e.full_time else "part"}</td><td class="num">{int(e.total)}</td></tr>'
        for e in employees
    ]
    return mark_safe("".join(out))  # noqa: S308  (every stored value escaped above)


def people_items(employees, links: Links | None = None, below: bool = False) -> SafeString:
    """``<li>`` items of people: the linked name, then the title (and ``· N below`` when ``below``)."""
    links = links or Links()
    out = []
    for e in employees:
        note = f"{escape(e.title)} · {int(e.total)} below" if below else escape(e.title)
        out.append(f'<li>{_person_link(links, e)} <span class="muted">{note}</span></li>')
    return mark_safe("".join(out))  # noqa: S308  (every stored value escaped above)


def level_rows(rows, current: int) -> SafeString:
    """The reports-by-depth table rows: (level, exactly at it, within it), the chosen depth marked."""
    marked = ' class="current"'
    out = [
        f"<tr{marked if level == current else ''}><td>{int(level)}</td>"
        f'<td class="num">{int(size)}</td><td class="num">{int(within)}</td></tr>'
        for level, size, within in rows
    ]
    return mark_safe("".join(out))  # noqa: S308  (numbers only)


def depth_chips(depths, current: int) -> SafeString:
    """The employee page's depth links (1 to the deepest a screen asks for), the shown one marked."""
    marked = ' aria-current="true"'
    out = [
        f'<a href="?depth={d}" hx-get="?depth={d}" hx-target="#by-depth" hx-swap="outerHTML" hx-push-url="true"'
        f"{marked if d == current else ''}>{d}</a>"
        for d in depths
    ]
    return mark_safe("".join(out))  # noqa: S308  (numbers only)


# A form's widgets are rendered through Django's widget templates, about a millisecond a form. An
# unbound form (what a page shows until it is submitted with errors) is the same HTML every time:
# it is rendered once per process and kind.


@cache
def _blank_form(form_class) -> SafeString:
    return form_fields(form_class())


def form_html(form) -> SafeString:
    """A whole form, as ``includes/form_fields.html`` renders it (the ``form_fields`` tag)."""
    return form_fields(form) if form.is_bound else _blank_form(type(form))


def _inline(form) -> SafeString:
    out = []
    for field in form:
        errors = "".join(f' <span class="field-error">{escape(str(error))}</span>' for error in field.errors)
        out.append(f"{field.label_tag()} {field}{errors}")
    return mark_safe("".join(out))  # noqa: S308  (Django's own label and widget HTML; errors escaped)


@cache
def _blank_inline(form_class) -> SafeString:
    return _inline(form_class(None))


def inline_fields(form) -> SafeString:
    """Each field of a one-line filter form: its label, its widget and its errors."""
    return _inline(form) if form.is_bound else _blank_inline(type(form))


# A page's own links past its path, as orgchart/urls.py nests them: ``<list><id>/<action>/``.
_PAGE_ACTIONS = {"employee": ("edit", "delete", "move"), "location": ("edit", "delete")}


def page_urls(kind: str, pk: int) -> dict[str, str]:
    """The links of one employee's or location's page (edit, delete, move or its own page, and the
    dashboard, tree and lists), what a page's ``{% url %}`` tags gave, built on the list's path."""
    shared = paths_of(*_SHARED)
    page = f"{shared[f'{kind}_list']}{int(pk)}/"
    return {
        **{action: f"{page}{action}/" for action in _PAGE_ACTIONS[kind]},
        "detail": page,
        "dashboard": shared["dashboard"],
        "tree": shared["tree"],
        "employees": shared["employee_list"],
        "locations": shared["location_list"],
    }


def list_urls(kind: str) -> dict[str, str]:
    """The employee or location list's own links (itself, add, the dashboard)."""
    found = paths_of(f"orgchart:{kind}_list", f"orgchart:{kind}_add", "dashboard")
    return {"list": found[f"{kind}_list"], "add": found[f"{kind}_add"], "dashboard": found["dashboard"]}
