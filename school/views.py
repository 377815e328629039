"""Screens of the school: thin views over ``school.store``.

The three entities share their list, add, edit and delete views, told apart
by an ``Entity`` entry; relation changes (assign, enrol, hold ...) share one
POST view, told apart by an ``Action`` entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from config.listing import list_state, page_of
from school import conf, store
from school.forms import AlgebraForm, CourseForm, PersonForm, PickForm

ROSTER_PER_PAGE = 25
ALGEBRA_PER_PAGE = 25


@dataclass(frozen=True)
class Entity:
    name: str
    plural: str
    form: type
    label_sort: str  # the ?o= name of the label column: code or name

    def url(self, view: str, *args) -> str:
        return reverse(f"school:{self.name}_{view}", args=args)

    @property
    def add_url(self) -> str:
        return self.url("add")

    @property
    def list_url(self) -> str:
        return self.url("list")

    @property
    def detail_name(self) -> str:
        return f"school:{self.name}_detail"


ENTITIES = {
    "course": Entity("course", "courses", CourseForm, "code"),
    "instructor": Entity("instructor", "instructors", PersonForm, "name"),
    "student": Entity("student", "students", PersonForm, "name"),
}


def _actor(request) -> str:
    return request.user.get_username()


def _fetch(fetch, *args):
    try:
        return fetch(*args)
    except store.NotFound as exc:
        raise Http404(str(exc)) from None


# --- lists, add, edit, delete ---------------------------------------------------------


def entity_list(request, entity: str):
    ent = ENTITIES[entity]
    state = list_state(request.GET, sorts=(ent.label_sort, "id"), default_order=ent.label_sort)
    rows, total, versions = store.list_page(entity, state)
    context = {
        "entity": ent,
        "page": page_of(rows, total, state),
        "state": state,
        "versions": versions,
    }
    template = "school/list.html"
    if request.htmx and request.htmx.target == "results":
        template += "#results"
    return render(request, template, context)


def entity_add(request, entity: str):
    return _edit(request, ENTITIES[entity], None)


def entity_edit(request, entity: str, pk: int):
    return _edit(request, ENTITIES[entity], *_fetch(store.get_for_edit, entity, pk))


def _edit(request, ent: Entity, current, loaded: str = ""):
    if request.method == "POST":
        form = ent.form(request.POST)
        if form.is_valid():
            try:
                pk = store.save(
                    ent.name,
                    form.document(current.id if current else 0),
                    _actor(request),
                    lambda pk: ent.url("detail", pk),
                    expected=form.cleaned_data["fingerprint"] if current else "",
                )
            except store.NotFound as exc:
                raise Http404(str(exc)) from None
            except store.Conflict as exc:
                form = _reloaded(ent, request.POST, store.get_for_edit(ent.name, current.id)[1])
                form.add_error(None, exc.message)
            except store.SchoolError as exc:
                form.add_error(exc.field, exc.message)
            else:
                verb = "changed" if current else "added"
                messages.success(request, f"The {ent.name} “{form.document().label}” was {verb}.")
                return redirect(ent.url("detail", pk))
    else:
        initial = {**ent.form.initial_for(current), "fingerprint": loaded} if current else None
        form = ent.form(initial=initial)
    return render(request, "school/form.html", {"entity": ent, "form": form, "object": current})


def _reloaded(ent: Entity, data, loaded: str):
    """The user's input again, now carrying the stored document's current fingerprint:
    saving once more, after a look, overwrites the other change knowingly."""
    data = data.copy()
    data["fingerprint"] = loaded
    form = ent.form(data)
    form.is_valid()
    return form


def entity_delete(request, entity: str, pk: int):
    ent = ENTITIES[entity]
    if request.method == "POST":
        try:
            label = store.delete(entity, pk, _actor(request))
        except store.NotFound as exc:
            raise Http404(str(exc)) from None
        messages.success(request, f"The {entity} “{label}” was deleted, with every reference to it.")
        return redirect(ent.url("list"))
    return render(request, "school/confirm_delete.html", {"entity": ent, "object": _fetch(store.get, entity, pk)})


# --- detail screens ----------------------------------------------------------------------


def course_detail(request, pk: int, errors: dict | None = None, status: int = 200):
    state = list_state(request.GET, per_page=ROSTER_PER_PAGE)
    detail = _fetch(store.course_detail, pk, state.offset, state.per_page)
    context = {
        "entity": ENTITIES["course"],
        "detail": detail,
        "course": detail.course,
        "roster_page": page_of(detail.roster, detail.enrolled, state),
        "state": state,
        "errors": errors or {},
        "max_instructors": conf.max_instructors_per_course(),
        "hold_minutes": conf.hold_seconds() // 60,
    }
    template = "school/course_detail.html"
    if request.htmx and request.htmx.target == "roster":
        template += "#roster"
    return render(request, template, context, status=status)


def person_detail(request, entity: str, pk: int, errors: dict | None = None, status: int = 200):
    detail = _fetch(store.person_detail, entity, pk)
    context = {"entity": ENTITIES[entity], "detail": detail, "person": detail.person, "errors": errors or {}}
    return render(request, "school/person_detail.html", context, status=status)


# --- pickers: find the other side of a relation, with SISMEMBER ---------------------------


@dataclass(frozen=True)
class Picker:
    side: str  # the page's entity
    other: str  # the entity searched for
    related: object  # pk -> the set of the page's document that holds the other side
    holds: object = None  # pk -> the holds index, when seats can be held

    @property
    def relation_name(self) -> str:
        return f"school:{self.side}_relation"

    @property
    def seats(self) -> bool:
        """Whether the relation is an enrolment (enrol / hold) rather than an assignment."""
        return "student" in (self.side, self.other)


PICKERS = {
    "course-instructor": Picker("course", "instructor", lambda pk: store.keys.course_instructors(pk)),
    "course-student": Picker(
        "course", "student", lambda pk: store.keys.course_students(pk), lambda pk: store.keys.course_holds(pk)
    ),
    "instructor-course": Picker("instructor", "course", lambda pk: store.keys.instructor_courses(pk)),
    "student-course": Picker("student", "course", lambda pk: store.keys.student_courses(pk)),
}


@require_GET
def find(request, picker: str, pk: int):
    """An htmx partial: documents of the other side whose label starts with ?q=, each marked
    with whether it is already related (one SISMEMBER each)."""
    pick = PICKERS.get(picker)
    if pick is None:
        raise Http404("No such picker")
    q = request.GET.get("q", "").strip()[:100]
    holds = pick.holds(pk) if pick.holds else ""
    candidates = store.find(pick.other, q, pick.related(pk), holds) if q else []
    context = {"picker": picker, "pick": pick, "pk": pk, "q": q, "candidates": candidates}
    return render(request, "school/picker.html" if request.htmx else "school/find_page.html", context)


# --- relation changes -----------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    side: str  # the entity whose page the action is on
    run: object  # (course_id, other_id or page id...) -> store call
    done: str  # success message, formatted with other
    error_field: str  # which block of the page shows a refusal


def _course_first(fn):
    """Store calls take (course_id, other_id); pages on the other side pass (pk, other)."""
    return lambda pk, other, actor, link: fn(other, pk, actor, link)


ACTIONS = {
    ("course", "assign"): Action("course", store.link_instructor, "Instructor #{other} assigned.", "instructors"),
    ("course", "unassign"): Action("course", store.unlink_instructor, "Instructor #{other} removed.", "instructors"),
    ("course", "enrol"): Action("course", store.enrol, "Student #{other} enrolled.", "students"),
    ("course", "drop"): Action("course", store.drop, "Student #{other} dropped.", "students"),
    ("course", "hold"): Action("course", store.hold_seat, "A seat is held for student #{other}.", "students"),
    ("course", "confirm"): Action("course", store.confirm_hold, "Student #{other}'s hold confirmed.", "holds"),
    ("course", "release"): Action("course", store.release_hold, "Student #{other}'s hold released.", "holds"),
    ("instructor", "assign"): Action(
        "instructor", _course_first(store.link_instructor), "Course #{other} assigned.", "courses"
    ),
    ("instructor", "unassign"): Action(
        "instructor", _course_first(store.unlink_instructor), "Course #{other} removed.", "courses"
    ),
    ("student", "enrol"): Action("student", _course_first(store.enrol), "Enrolled in course #{other}.", "courses"),
    ("student", "drop"): Action("student", _course_first(store.drop), "Dropped course #{other}.", "courses"),
    ("student", "hold"): Action("student", _course_first(store.hold_seat), "Seat held in course #{other}.", "courses"),
    ("student", "confirm"): Action(
        "student", _course_first(store.confirm_hold), "Hold in course #{other} confirmed.", "courses"
    ),
    ("student", "release"): Action(
        "student", _course_first(store.release_hold), "Hold in course #{other} released.", "courses"
    ),
}


@require_POST
def relation(request, side: str, pk: int, action: str):
    act = ACTIONS.get((side, action))
    if act is None:
        raise Http404("No such action")
    form = PickForm(request.POST)
    if not form.is_valid():
        return _refused(request, act, pk, "Pick one from the list.")
    other = form.cleaned_data["other"]
    link = ENTITIES[side].url("detail", pk)
    try:
        act.run(pk, other, _actor(request), link)
    except store.NotFound as exc:
        if exc.field is None:
            raise Http404(str(exc)) from None
        return _refused(request, act, pk, exc.message)
    except store.SchoolError as exc:
        return _refused(request, act, pk, exc.message)
    messages.success(request, act.done.format(other=other))
    return HttpResponseRedirect(_back(request, link))


def _refused(request, act: Action, pk: int, message: str):
    """Re-render the page with the refusal beside the block it concerns; nothing was written."""
    errors = {act.error_field: message}
    if act.side == "course":
        return course_detail(request, pk, errors, status=409)
    return person_detail(request, act.side, pk, errors, status=409)


def _back(request, default: str) -> str:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return default


# --- set algebra --------------------------------------------------------------------------


def algebra(request):
    """Students in all, any, or the first-but-none-of-the-others of the chosen courses."""
    ids = _course_ids(request.GET.getlist("c"))
    op = request.GET.get("op", "inter")
    if op not in dict(AlgebraForm.base_fields["op"].choices):
        raise Http404("Unknown set operation")
    if "codes" in request.GET:
        form = AlgebraForm(request.GET)
        if form.is_valid():
            found = store.course_ids_for_codes(form.cleaned_data["codes"])
            missing = [code for code, pk in found.items() if pk is None]
            if missing:
                form.add_error("codes", f"No course has the code {', '.join(missing)}.")
            else:
                query = urlencode([("op", form.cleaned_data["op"])] + [("c", pk) for pk in found.values()])
                return redirect(reverse("school:algebra") + "?" + query)
        return render(request, "school/algebra.html", {"form": form, "result": None})
    result, page, state = None, None, None
    if len(ids) >= 2:
        state = list_state(request.GET, filters=("op",), per_page=ALGEBRA_PER_PAGE)
        result = store.algebra(op, ids, state.offset, state.per_page)
        if len(result.courses) != len(ids):
            raise Http404("One of those courses does not exist")
        state = _with_courses(state, ids)
        page = page_of(result.students, result.total, state)
    codes = ", ".join(c.code for c in result.courses) if result else ""
    form = AlgebraForm(initial={"codes": codes, "op": op})
    context = {"form": form, "result": result, "page": page, "state": state, "op": op, "ids": ids}
    return render(request, "school/algebra.html", context)


def _course_ids(values: list[str]) -> list[int]:
    ids = []
    for value in values:
        if not value.isdigit() or int(value) < 1:
            raise Http404("Course ids are positive integers")
        if int(value) not in ids:
            ids.append(int(value))
    if len(ids) > 10:
        raise Http404("At most ten courses")
    return ids


class _AlgebraState:
    """The list state, with the chosen course ids kept in every page link."""

    def __init__(self, state, ids):
        self._state, self._ids = state, ids

    def __getattr__(self, name):
        return getattr(self._state, name)

    def query(self, **changes) -> str:
        base = self._state.query(**changes)
        extra = urlencode([("c", pk) for pk in self._ids])
        return base + ("&" if base != "?" else "") + extra


def _with_courses(state, ids):
    return _AlgebraState(state, ids)
