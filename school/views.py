"""Screens of the school: thin views over ``school.store``.

The three entities share their list, add, edit and delete views (an ``Entity`` each); relation
changes share one view (an ``Action`` each): a POST does the change, a GET of a destructive one its
confirmation page.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods

from config.activity import Actor
from config.bulkdelete import BulkDelete, back_to_list, bulk_delete, selected_ids
from config.converters import parse_id
from config.listing import Listed, ListSpec, page_of, render_list
from config.saving import RESTORED, Saved, post_only, save_view, stashed
from config.shortcuts import or_404
from school import conf, presenters, store
from school.forms import AlgebraForm, CourseForm, PersonForm, PickForm

ROSTER = ListSpec(per_page=25)


@dataclass(frozen=True)
class Entity(Listed):
    app = "school"
    form: type
    label_sort: str  # the ?o= name of the label column: code or name
    what_goes: str  # what a delete takes with it, as the bulk delete page says

    @property
    def listing(self) -> ListSpec:
        return ListSpec(sorts=(self.label_sort, "id"), default_order=self.label_sort)

    @property
    def bulk_delete_url(self) -> str:
        return self.url("bulk_delete")


ENTITIES = {
    "course": Entity("course", "courses", CourseForm, "code", "with their rosters, holds and instructors' links"),
    "instructor": Entity("instructor", "instructors", PersonForm, "name", "with their course assignments"),
    "student": Entity("student", "students", PersonForm, "name", "with their enrolments and holds"),
}


def _actor(request) -> Actor:
    """The signed-in user, linking each event to the screen of what they changed."""
    return Actor(
        request.user.get_username(), link=lambda entity, pk: reverse(f"school:{entity}_detail", args=[int(pk)])
    )


# --- lists, add, edit, delete ---------------------------------------------------------


def entity_list(request, entity: str):
    ent = ENTITIES[entity]
    state = ent.listing.read(request)
    rows, total, versions, capped = store.list_page(entity, state)
    context = {
        "entity": ent,
        "page": page_of(rows, total, state),
        "search_capped": capped,
        "search_limit": store.SEARCH_LIMIT,
        "rows": presenters.list_rows(ent.detail_name, rows),
        "state": state,
        "versions": versions,
    }
    return render_list(request, "school/list.html", context)


def entity_add(request, entity: str):
    return _edit(request, ENTITIES[entity], None)


def entity_edit(request, entity: str, pk: int):
    return _edit(request, ENTITIES[entity], *or_404(store.get_for_edit, entity, pk))


def _edit(request, ent: Entity, current, loaded: str = ""):
    """Add (``current`` None) or edit a document; ``loaded`` is the stored one's fingerprint, the edit's version."""
    initial = {**ent.form.initial_for(current), "version": loaded} if current else None
    form = ent.form(request.POST if request.method == "POST" else None, initial=initial)

    def save(data) -> Saved:
        document = form.document(current.id if current else 0)
        old_text = store.searched_text(ent.name, current.to_hash()) if current else None
        expected = data["version"] if current else ""
        pk = store.save(ent.name, document, actor=_actor(request), expected=expected, old_text=old_text)
        return Saved(pk, f"The {ent.name} “{document.label}” was {'changed' if current else 'added'}.")

    def theirs(conflict) -> dict:
        document, version = or_404(store.get_for_edit, ent.name, current.id)
        return {**ent.form.initial_for(document), "version": version}

    return save_view(
        request, form, entity=f"school:{ent.name}", template="school/form.html",
        context={"entity": ent, "object": current}, save=save, theirs=theirs if current else None,
    )  # fmt: skip


@post_only(lambda entity: reverse(f"school:{entity}_list"))
def entity_bulk_delete(request, entity: str):
    """Django admin's "delete selected" on a list: asks with the names, then their scripts in one transaction."""
    ent = ENTITIES[entity]
    spec = BulkDelete(
        noun=entity, plural=ent.plural, list_name=f"school:{entity}_list", detail_name=f"school:{entity}_detail",
        action_name=f"school:{entity}_bulk_delete", labels=partial(store.labels, entity),
        what_goes=ent.what_goes,
        delete_many=lambda ids, actor: store.delete_many(entity, ids, actor=actor),
        pattern_note="after a read of their relations, in one MULTI/EXEC of their delete scripts, each with every "
        "key in KEYS (the document, both sides of every relation, its index and n-gram entries).",
    )  # fmt: skip
    return bulk_delete(request, spec, _actor(request))


def entity_delete(request, entity: str, pk: int):
    ent = ENTITIES[entity]
    if request.method == "POST":
        label = or_404(store.delete, entity, pk, actor=_actor(request))
        messages.success(request, f"The {entity} “{label}” was deleted, with every reference to it.")
        return redirect(ent.url("list"))
    return render(request, "school/confirm_delete.html", {"entity": ent, "object": or_404(store.get, entity, pk)})


# --- detail screens ----------------------------------------------------------------------


def course_detail(request, pk: int, errors: dict | None = None, status: int = 200):
    state = ROSTER.read(request)
    detail = or_404(store.course_detail, pk, state.offset, state.per_page)
    context = {
        "entity": ENTITIES["course"],
        "detail": detail,
        "course": detail.course,
        "roster_page": page_of(detail.roster, detail.enrolled, state),
        "state": state,
        "errors": errors or {},
        "max_instructors": conf.max_instructors_per_course(),
        "hold_minutes": conf.hold_seconds() // 60,
        "roster": presenters.roster(detail.roster),
    }
    return render_list(request, "school/course_detail.html", context, "roster", status)


def person_detail(request, entity: str, pk: int, errors: dict | None = None, status: int = 200):
    detail = or_404(store.person_detail, entity, pk)
    context = {"entity": ENTITIES[entity], "detail": detail, "person": detail.person, "errors": errors or {}}
    return render(request, "school/person_detail.html", context, status=status)


# --- pickers: find the other side of a relation, with SISMEMBER ---------------------------


@require_GET
def find(request, picker: str, pk: int):
    """An htmx partial: documents of the other side matching ?q=, each marked if already related."""
    pick = store.PICKERS.get(picker)
    if pick is None:
        raise Http404("No such picker")
    q = request.GET.get("q", "").strip()[:100]
    candidates, total = store.find_with_total(picker, pk, q) if q else ([], 0)
    context = {
        "picker": picker,
        "pick": pick,
        "relation_name": f"school:{pick.side}_relation",
        "pk": pk,
        "q": q,
        "candidates": candidates,
        "total": total,
        "more": max(total - len(candidates), 0),
    }
    if request.htmx:
        return render(request, "school/picker.html", context)
    # The whole page (no JavaScript, or a link opened on its own) names what it finds for.
    ((_, label),) = or_404(lambda: store.labels(pick.side, [pk]) or None)
    side = ENTITIES[pick.side]
    context.update(side=side, side_label=label, side_url=reverse(side.detail_name, args=[pk]))
    return render(request, "school/find_page.html", context)


# --- relation changes -----------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    side: str  # the entity whose page the action is on
    run: object  # (course_id, other_id, actor=...) -> store.Change
    done: str  # success message, formatted with the Change's name and code
    error_field: str  # which block of the page shows a refusal
    confirm: str = ""  # for a destructive action: the question its confirmation page asks
    kind: str = "set"  # what the confirmation page checks: a set member, or a hold


def _course_first(fn):
    """Store calls take (course_id, other_id); pages on the other side pass (pk, other)."""
    return lambda pk, other, **kw: fn(other, pk, **kw)


_ASSIGN = "{name} now teaches {code}."
_UNASSIGN = "{name} no longer teaches {code}."
_ENROL = "{name} enrolled in {code}."
_DROP = "{name} dropped from {code}."
_HOLD = "A seat in {code} is held for {name}."
_CONFIRM = "{name} enrolled in {code}: the held seat is confirmed."
_RELEASE = "{name}'s held seat in {code} was released."
_ASK_UNASSIGN = "Remove {name} from the instructors of {code}?"
_ASK_DROP = "Drop {name} from {code}?"
_ASK_RELEASE = "Release the seat held for {name} in {code}?"

COURSE_ACTIONS = {  # action: (the person it concerns, the course page's action; a person's page shows it too)
    "assign": ("instructor", Action("course", store.link_instructor, _ASSIGN, "instructors")),
    "unassign": ("instructor", Action("course", store.unlink_instructor, _UNASSIGN, "instructors", _ASK_UNASSIGN)),
    "enrol": ("student", Action("course", store.enrol, _ENROL, "students")),
    "drop": ("student", Action("course", store.drop, _DROP, "students", _ASK_DROP)),
    "hold": ("student", Action("course", store.hold_seat, _HOLD, "students")),
    "confirm": ("student", Action("course", store.confirm_hold, _CONFIRM, "holds")),
    "release": ("student", Action("course", store.release_hold, _RELEASE, "holds", _ASK_RELEASE, "hold")),
}
ACTIONS = {("course", name): act for name, (_, act) in COURSE_ACTIONS.items()} | {
    (person, name): replace(act, side=person, run=_course_first(act.run), error_field="courses")
    for name, (person, act) in COURSE_ACTIONS.items()
}


@require_http_methods(["GET", "POST"])
def relation(request, side: str, pk: int, action: str):
    """POST: the action. GET: a destructive action's confirmation page (the others are POST only)."""
    act = ACTIONS.get((side, action))
    if act is None:
        raise Http404("No such action")
    if request.method == "GET":
        if not act.confirm:  # an action without a question: its form is on the object's page
            return HttpResponseRedirect(ENTITIES[side].url("detail", pk))
        return _confirm(request, act, side, pk, action)
    form = PickForm(request.POST)
    if not form.is_valid():
        return _refused(request, act, pk, "Pick one from the list.")
    other = form.cleaned_data["other"]
    link = ENTITIES[side].url("detail", pk)
    try:
        change = act.run(pk, other, actor=_actor(request))
    except store.NotFound as exc:
        if exc.field is None:
            raise Http404(str(exc)) from None
        return _refused(request, act, pk, exc.message)
    except store.Refused as exc:
        return _refused(request, act, pk, exc.message)
    messages.success(request, act.done.format(name=change.name, code=change.code))
    return HttpResponseRedirect(_back(request, link))


def _confirm(request, act: Action, side: str, pk: int, action: str):
    """Ask before a destructive relation change; an answer posted as the session expired asks again after sign-in."""
    kept = None if "other" in request.GET else stashed(request, request.path)
    data = request.GET if kept is None else kept
    form = PickForm(data)
    if not form.is_valid():
        raise Http404("Pick one from the list.")
    other = form.cleaned_data["other"]
    course_id, other_id = (pk, other) if side == "course" else (other, pk)
    found = or_404(store.pair, course_id, COURSE_ACTIONS[action][0], other_id, act.kind)
    names = {"name": found.other.label, "code": found.course.code}
    back = _back(request, ENTITIES[side].url("detail", pk), field="next", data=data)
    if kept is not None:
        messages.info(request, RESTORED)
    context = {
        "act": act,
        "entity": ENTITIES[side],
        "pk": pk,
        "other": other,
        "action": action,
        "found": found,
        "question": act.confirm.format(**names),
        "back": back,
        "hidden": [("other", other), ("next", back)],
    }
    return render(request, "school/confirm_relation.html", context)


def _refused(request, act: Action, pk: int, message: str):
    """Re-render the page with the refusal beside the block it concerns; nothing was written."""
    errors = {act.error_field: message}
    if act.side == "course":
        return course_detail(request, pk, errors, status=409)
    return person_detail(request, act.side, pk, errors, status=409)


def _back(request, default: str, field: str = "next", data=None) -> str:
    target = (request.POST if data is None else data).get(field, "")
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
        state = ALGEBRA.read(request)
        result = store.algebra(op, ids, state.offset, state.per_page)
        if len(result.courses) != len(ids):
            raise Http404("One of those courses does not exist")
        page = page_of(result.students, result.total, state)
    codes = ", ".join(c.code for c in result.courses) if result else ""
    form = AlgebraForm(initial={"codes": codes, "op": op})
    context = {"form": form, "result": result, "page": page, "state": state, "op": op, "ids": ids}
    return render(request, "school/algebra.html", context)


def _course_ids(values: list[str]) -> list[int]:
    ids = []
    for value in values:
        pk = parse_id(value)
        if pk is None:
            raise Http404("Course ids are positive integers")
        if pk not in ids:
            ids.append(pk)
    if len(ids) > 10:
        raise Http404("At most ten courses")
    return ids


# The chosen courses (?c=) are kept in every page link of the result.
ALGEBRA = ListSpec(filters=("op",), extra={"c": _course_ids}, per_page=25)


@post_only(lambda: reverse("school:student_list"))
def student_bulk_enrol(request):
    """Enrol the ticked students in the course whose code is typed: one script, within its capacity."""
    back, ids = back_to_list(request, "school:student_list"), selected_ids(request)
    code = request.POST.get("course", "").strip()[:40]
    course_id = store.course_by_code(code) if code else None
    if course_id is None:
        messages.error(request, f"No course has the code “{code}”; nobody was enrolled." if code else
                       "Type a course's code to enrol the ticked students in; nobody was enrolled.")  # fmt: skip
        return back
    if not ids:
        messages.warning(request, "Tick the students to enrol first; nobody was enrolled.")
        return back
    done = or_404(store.enrol_many, course_id, ids, actor=_actor(request))
    if done.done:
        names = ", ".join(done.done)
        messages.success(request, f"Enrolled {len(done.done)} student{pluralize(done.done)} in {done.code}: {names}.")
    for names, why in (
        (done.already, "already enrolled"),
        (done.at_limit, f"already take or hold {conf.max_courses_per_student()} courses, the most a student may have"),
        (done.no_seat, f"not enrolled: {done.code} is full"),
    ):
        if names:
            messages.info(request, f"{', '.join(names)}: {why}.")
    if done.missing:
        messages.info(request, f"{done.missing} of the ticked students no longer exist.")
    return back
