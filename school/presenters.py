"""The rows of the school's lists and detail pages, prepared once per page in Python.

A page's row loop is its costliest template work: a variable lookup per cell,
a ``{% url %}`` and an included template per row action. Here each row is one
f-string over links built from prefixes computed once per page, so a page of
25 rows costs about as much as one cell did. Every stored text goes through
``html.escape`` (the same five replacements as Django's ``escape``), ids and
counts are ints, and prefixes are escaped once: the joined rows are then safe
to mark as such. The HTML is what the templates rendered before, row for row.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from django.middleware.csrf import get_token
from django.utils.safestring import SafeString, mark_safe

from config.urlpaths import path_of
from school.documents import Course, Person
from school.templatetags.school import time_left


def fixed_url(name: str) -> str:
    """The URL of a screen that takes no argument (a list, an add form, the algebra screen)."""
    return path_of(name)


def document_url(entity: str, pk: int, *rest: str) -> str:
    """A document's URL (its page, or with ``rest`` its edit, delete or relation action's), as
    ``school/urls.py`` nests it under its list: ``<list>/<id>/[<rest>/]``, without a reverse."""
    return f"{path_of(f'school:{entity}_list')}{int(pk)}/" + "".join(f"{part}/" for part in rest)


def find_url(picker_name: str, pk: int) -> str:
    """A picker's search URL, ``<find>/<picker>/<id>/`` as ``school/urls.py`` has it: the picker's part
    reversed once (with id 1, its last segment then replaced by ``pk``)."""
    return f"{path_of('school:find', picker_name, 1)[: -len('1/')]}{int(pk)}/"


def _rows(parts) -> SafeString:
    return mark_safe("".join(parts))  # every piece escaped where it is built


def list_rows(entity: str, rows, base: str) -> SafeString:
    """The ``<tr>`` of each row of a list screen (``store.Row``); ``base`` is the list's URL."""
    base = escape(base)
    if entity == "course":
        return _rows(
            f"""
  <tr>
    <td class="select"><input type="checkbox" name="ids" value="{pk}" form="bulk-delete" aria-label="Select {code} {title} to delete"></td>
    <td><input type="checkbox" name="c" value="{pk}" aria-label="Pick {code}"></td>
    <td>{pk}</td>
    <td><a href="{base}{pk}/">{code}</a></td><td>{title}</td>
    <td class="num">{int(r.counts["students"])}</td><td class="num">{int(c.capacity)}</td><td class="num">{int(r.counts["instructors"])}</td>
  </tr>"""  # noqa: E501
            for r in rows
            for c, pk, code, title in [(r.doc, int(r.doc.id), escape(r.doc.code), escape(r.doc.title))]
        )
    return _rows(
        f"""
  <tr>
    <td class="select"><input type="checkbox" name="ids" value="{pk}" form="bulk-delete" aria-label="Select {name} to delete"></td>
    <td>{pk}</td>
    <td><a href="{base}{pk}/">{name}</a></td><td>{escape(p.contact)}</td>
    <td class="num">{int(r.counts["courses"])}</td><td>{int(p.schema)}</td>
  </tr>"""  # noqa: E501
        for r in rows
        for p, pk, name in [(r.doc, int(r.doc.id), escape(r.doc.name))]
    )


def list_head(entity: str, state) -> SafeString:
    """The ``<thead>`` of a list screen, its sort links from ``state.heads`` (``config.listing.ListState``)."""
    heads = state.heads

    def sortable(key: str, label: str) -> str:
        head = heads[key]
        return f'<th><a href="{escape(head.href)}">{label}</a> {escape(head.mark)}</th>'

    if entity == "course":
        cells = (
            '<th><span class="sr-only">Pick</span></th>\n    '
            f"{sortable('id', '#')}\n    "
            f"{sortable('code', 'Code')}<th>Title</th>\n    "
            '<th class="num">Enrolled</th><th class="num">Capacity</th><th class="num">Instructors</th>'
        )
    else:
        cells = (
            f"{sortable('id', '#')}\n    "
            f'{sortable("name", "Name")}<th>Contact</th><th class="num">Courses</th><th>Schema</th>'
        )
    return mark_safe(
        '<thead><tr>\n    <th class="select"><span class="visually-hidden">Select to delete</span></th>\n    '
        f"{cells}\n  </tr></thead>"
    )  # labels are ours, the links escaped


class Actions:
    """A page's row actions, each URL reversed once: the confirmation link of a destructive change
    (drop, unassign, release: a GET that asks first) and the POST button of the others (confirm)."""

    def __init__(self, request, side: str, pk: int):
        self.request = request
        self.side, self.pk = side, pk
        self._urls: dict[str, str] = {}
        self._next = escape(quote(request.get_full_path(), safe="/"))  # as the urlencode filter quotes it
        self._token = ""

    def url(self, action: str) -> str:
        """The action's URL, escaped for an attribute."""
        if action not in self._urls:
            self._urls[action] = escape(document_url(self.side, self.pk, action))
        return self._urls[action]

    def confirm_link(self, action: str, other: int, label: str, aria: str) -> str:
        """``label`` is the product's own text; ``aria`` holds stored text and is escaped here."""
        return (
            f'<a class="button secondary small" href="{self.url(action)}?other={int(other)}&amp;next={self._next}" '
            f'aria-label="{escape(aria)}">{label}</a>'
        )

    def button(self, action: str, other: int, label: str) -> str:
        if not self._token:
            self._token = escape(get_token(self.request))
        return (
            f'<form method="post" action="{self.url(action)}" class="inline"><input type="hidden" '
            f'name="csrfmiddlewaretoken" value="{self._token}"><input type="hidden" name="other" value="{int(other)}">'
            f'<button type="submit">{label}</button></form>'
        )


def seats(detail) -> SafeString:
    """A course's seats line (``store.CourseDetail``): enrolled, held, capacity and left, all ints."""
    enrolled, held, left = int(detail.enrolled), int(detail.live_holds), int(detail.seats_left)
    full = '\n  <span class="badge full" id="full">Full</span>' if left == 0 else ""
    return mark_safe(
        f'<p id="seats"><strong data-enrolled="{enrolled}">{enrolled}</strong> enrolled +\n'
        f'  <strong data-holds="{held}">{held}</strong> held of\n'
        f"  <strong>{int(detail.course.capacity)}</strong> seats · "
        f'<strong data-seats-left="{left}">{left}</strong> left{full}</p>'
    )  # numbers only


def roster_rows(actions: Actions, people: list[Person], student_base: str) -> SafeString:
    base = escape(student_base)
    return _rows(
        f"""
    <tr data-student="{pk}">
      <td>{pk}</td>
      <td><a href="{base}{pk}/">{escape(p.name)}</a></td>
      <td>{escape(p.contact)}</td>
      <td>{actions.confirm_link("drop", pk, "Drop", f"Drop {p.name}")}</td>
    </tr>"""
        for p in people
        for pk in [int(p.id)]
    )


def instructor_items(actions: Actions, people: list[Person], instructor_base: str) -> SafeString:
    base = escape(instructor_base)
    return _rows(
        f"""
      <li><a href="{base}{pk}/">{escape(p.name)}</a>
        {actions.confirm_link("unassign", pk, "Remove", f"Remove {p.name}")}</li>"""
        for p in people
        for pk in [int(p.id)]
    )


def hold_rows(actions: Actions, holds, base: str, held_in: bool) -> SafeString:
    """The rows of a seat-hold table: on a course's page (``held_in`` False: by student) or on a
    student's page (by course)."""
    other = "course_id" if held_in else "student_id"
    data = "course" if held_in else "student"
    aria = "Release the seat held in " if held_in else "Release the seat held for "
    base = escape(base)

    def row(hold) -> str:
        pk, seconds = int(getattr(hold, other)), int(hold.seconds_left)
        return f"""
      <tr data-{data}="{pk}">
        <td><a href="{base}{pk}/">{escape(hold.label)}</a></td>
        <td class="num"><span class="time-left" data-seconds="{seconds}">{time_left(seconds)}</span></td>
        <td>
          {actions.button("confirm", pk, "Confirm")}
          {actions.confirm_link("release", pk, "Release", aria + hold.label)}
        </td>
      </tr>"""

    return _rows(row(hold) for hold in holds)


def course_rows(actions: Actions, courses: list[Course], course_base: str, instructor: bool) -> SafeString:
    """A person's courses, each with its unassign (instructor) or drop (student) link."""
    action, verb = ("unassign", "Unassign") if instructor else ("drop", "Drop")
    base = escape(course_base)
    return _rows(
        f"""
    <tr data-course="{pk}">
      <td><a href="{base}{pk}/">{escape(c.code)}</a></td><td>{escape(c.title)}</td>
      <td>{actions.confirm_link(action, pk, verb, f"{verb} {c.code}")}</td>
    </tr>"""
        for c in courses
        for pk in [int(c.id)]
    )


def picker(name: str, pk: int, label: str) -> SafeString:
    """A search box that loads the picker for one relation (``name``, e.g. "course-student")."""
    url = escape(find_url(name, pk))
    name, label = escape(name), escape(label)
    return mark_safe(f"""<form class="picker" method="get" action="{url}">
  <label for="find-{name}">{label}</label>
  <input id="find-{name}" type="search" name="q" autocomplete="off" placeholder="Any part of a name…"
         hx-get="{url}" hx-target="#found-{name}" hx-trigger="input changed delay:250ms, search">
  <button type="submit" class="secondary">Find</button>
  <div id="found-{name}" class="found" aria-live="polite"></div>
</form>
""")  # every piece escaped above


_SUBNAV = (("course_list", "Courses", "course"), ("instructor_list", "Instructors", "instructor"),
           ("student_list", "Students", "student"), ("algebra", "Set algebra", None))  # fmt: skip


def subnav(current: str) -> SafeString:
    """The school's sub-navigation, the current screen's link marked (``current``: its URL name)."""
    links = []
    for name, label, part in _SUBNAV:
        here = part in current if part else current == name
        mark = ' aria-current="page"' if here else ""
        links.append(f'\n  <a href="{escape(fixed_url(f"school:{name}"))}"{mark}>{label}</a>')
    return mark_safe(f'<nav class="subnav" aria-label="School">{"".join(links)}\n</nav>')  # labels are ours
