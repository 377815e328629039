"""Screens of the org chart: thin views over ``orgchart.store``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from django.contrib import messages
from django.core.exceptions import BadRequest
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from config import autocomplete
from config.activity import Actor
from config.converters import parse_id
from config.listing import Listed, ListSpec, page_of, render_list
from config.saving import Saved, post_only, refill, save_view
from config.shortcuts import or_404
from config.store import StoreError
from orgchart import charts, forms, presenters, store

_NUMBER = re.compile(r"[0-9]{1,30}")  # ASCII digits only: "²".isdigit() is True, int("²") fails
MAX_OFFSET = 10**6


def _actor(request) -> Actor:
    return Actor(
        request.user.get_username(),
        link=lambda entity, object_id: reverse(f"orgchart:{entity}_detail", args=[object_id]),
    )


def _query_number(request, name: str, maximum: int) -> int | None:
    """A count from the query string (an offset): ASCII digits, clamped to ``maximum``; None when
    absent; anything else is a 400."""
    text = request.GET.get(name, "")
    if not text:
        return None
    if not _NUMBER.fullmatch(text):
        raise BadRequest(f"?{name}= takes a number.")
    return min(int(text), maximum)


def _query_id(request, name: str) -> int | None:
    """An id from the query string: as the ``<id:pk>`` converter takes it, else a 400; None when absent."""
    text = request.GET.get(name, "")
    pk = parse_id(text)
    if text and pk is None:
        raise BadRequest(f"?{name}= takes an id.")
    return pk


def _write(form, write):
    """``write(cleaned_data)``'s answer for a valid form; None for an invalid one, or when the store
    refuses (the reason beside its field)."""
    if not form.is_valid():
        return None
    try:
        return write(form.cleaned_data)
    except StoreError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, exc.message or str(exc))
        return None


BY_NAME = ListSpec(sorts=("name",), default_order="name")
EMPLOYEE_SORTS = ListSpec(sorts=("name", "title", "location", "direct", "total"), default_order="name")
STAFF = ListSpec(filters=("under",))


@dataclass(frozen=True)
class Kind(Listed):
    """An employee or a location, for the list, form and delete templates the two share."""

    app = "orgchart"
    page: Callable  # the store's page of this kind in name order, for a ListState


EMPLOYEES = Kind("employee", "employees", store.employee_page)
LOCATIONS = Kind("location", "locations", store.location_page)


def _save(request, kind: Kind, found, form, save):
    """Add or edit (``found`` the object edited, else None): ``save(data)`` returns the id saved."""
    return save_view(
        request, form, entity=f"orgchart:{kind.name}", template="orgchart/form.html",
        context={"kind": kind, "object": found},
        save=lambda data: Saved(save(data), f"Saved {data['name']}."),
        theirs=(lambda conflict: form.initial_for(conflict.current)) if found else None,
    )  # fmt: skip


def _delete(request, kind: Kind, found, form, delete):
    """Delete, after asking for a successor: ``delete(successor)`` returns the deleted name."""
    name = _write(form, lambda data: delete(data["successor"])) if request.method == "POST" else None
    if name:
        messages.success(request, f"Deleted {name}.")
        return redirect(kind.list_url)
    return render(request, "orgchart/confirm_delete.html", {"kind": kind, "object": found, "form": form})


# --- employees -----------------------------------------------------------------------------------


def _name_list(request, kind: Kind):
    """A list in name order with prefix search and paging; htmx gets the results partial."""
    state = (EMPLOYEE_SORTS if kind is EMPLOYEES else BY_NAME).read(request)
    sort_refused = False
    try:
        items, total, capped = kind.page(state)
    except store.TooManyToSort:  # the whole org by another column: by name, and the page says to search
        state, sort_refused = replace(state, order="name"), True
        items, total, capped = kind.page(state)
    present = presenters.employee_rows if kind is EMPLOYEES else presenters.location_rows
    context = {
        "sort_refused": sort_refused,
        "sort_columns": (
            ("name", "Name", False),
            ("title", "Title", False),
            ("location", "Location", False),
            ("direct", "Direct reports", True),
            ("total", "All reports", True),
        ),
        "sort_limit": store.SORT_LIMIT,
        "kind": kind,
        "page": page_of(items, total, state),
        "search_capped": capped,
        "search_limit": store.SEARCH_LIMIT,
        "state": state,
        "rows": present(items),
    }
    return render_list(request, "orgchart/list.html", context)


def employee_list(request):
    return _name_list(request, EMPLOYEES)


def employee_suggest(request):
    """The employee pickers' suggestions (manager, successor): people whose name holds the text."""
    return autocomplete.respond(request, store.suggest_employees, page="orgchart:employee_list")


def _detail_context(found, depth_form, move_form) -> dict:
    chain, direct, report = found
    return {
        "employee": chain.employee,
        "managers": presenters.people(chain.managers),
        "direct_people": presenters.people(direct),
        "at_depth": presenters.people(report.at_depth),
        "chain": chain,
        "direct": direct,
        "report": report,
        "depth_form": depth_form,
        "depths": range(1, store.MAX_DEPTH + 1),
        "move_form": move_form,
        "node_limit": store.NODE_LIMIT,
    }


def employee_detail(request, pk: int):
    """The employee, its chain of command, its direct reports and the reports at ``?depth=``:
    one round trip whatever the depth."""
    depth_form = forms.DepthForm(request.GET)
    depth = 1  # without ?depth= there is nothing to validate
    if "depth" in request.GET and depth_form.is_valid():
        depth = depth_form.cleaned_data.get("depth") or 1
    move_form = refill(request, forms.MoveForm(), reverse("orgchart:employee_move", args=[pk]))  # a move a sign-in cut
    context = _detail_context(or_404(store.employee_detail, pk, depth), depth_form, move_form)
    return render_list(request, "orgchart/employee_detail.html", context, "depth")


def employee_chain(request, pk: int):
    """The nearest ``CHAIN_PAGE`` managers of an employee, top first, one round trip whatever the
    depth; a longer chain goes on from the farthest of them (the chain above them is theirs)."""
    chain = or_404(store.chain_of_command, pk, store.CHAIN_PAGE)
    context = {"employee": chain.employee, "chain": chain, "managers": presenters.people(chain.managers)}
    return render(request, "orgchart/chain.html", context)


def employee_form(request, pk: int | None = None):
    """Add or edit an employee: the employee and the location menu in one round trip."""
    employee, locations = store.employee_form_data(pk)
    if pk is not None and employee is None:
        raise Http404("No such employee.")
    has_manager = employee is not None and employee.manager is not None
    initial = forms.EmployeeForm.initial_for(employee) if employee else None
    data = request.POST if request.method == "POST" else None
    form = forms.EmployeeForm(data, initial=initial, locations=locations, has_manager=has_manager)
    old_name = employee.name if employee else None  # the trigram sets the edit leaves are computed from it
    save = partial(store.save_employee, pk, actor=_actor(request), old_name=old_name)
    return _save(request, EMPLOYEES, employee, form, lambda data: save(data, version=data["version"]))


def _moved(data, names) -> str:
    who, boss = names
    return f"Moved {who} under {boss}." if data["manager"] is not None else f"Moved {who} to the top of the org."


@post_only(lambda pk: reverse("orgchart:employee_detail", args=[pk]) + "#chain")
def employee_move(request, pk: int):
    """Move under a new manager (one script; a cycle is refused beside the field). A blank manager
    is the top of the org, which a confirmation page asks about first."""
    form = forms.MoveForm(request.POST)
    if form.is_valid() and form.cleaned_data["manager"] is None and not form.cleaned_data["to_top"]:
        chain = or_404(store.chain_of_command, pk, 1)  # the page names the manager left
        context = {"employee": chain.employee, "chain": chain, "hidden": [("manager", ""), ("to_top", "on")]}
        return render(request, "orgchart/employee_confirm_move.html", context)
    names = _write(form, lambda data: store.move_employee(pk, data["manager"], actor=_actor(request)))
    if names:
        messages.success(request, _moved(form.cleaned_data, names))
        return redirect("orgchart:employee_detail", pk)
    context = _detail_context(or_404(store.employee_detail, pk), forms.DepthForm(), form)
    return render(request, "orgchart/employee_detail.html", context, status=400)


def employee_delete(request, pk: int):
    chain = or_404(store.chain_of_command, pk, 1)  # the nearest manager is the successor offered
    if request.method == "POST":
        form = forms.DeleteEmployeeForm(request.POST)
    else:
        form = forms.DeleteEmployeeForm(initial={"successor": chain.managers[-1].name if chain.managers else ""})
    delete = partial(store.delete_employee, pk, actor=_actor(request), name=chain.employee.name)
    return _delete(request, EMPLOYEES, chain.employee, form, delete)


# --- tree and path -------------------------------------------------------------------------------


def _tree_context(children, parent, offset: int) -> dict:
    more = len(children) >= store.NODE_LIMIT
    next_offset = offset + store.NODE_LIMIT if more else None
    return {"children": presenters.tree_nodes(children), "parent": parent, "next_offset": next_offset}


def tree(request):
    """The org tree from ``?root=`` (or from the top): the root and one level, one round trip."""
    root_pk = _query_id(request, "root")
    offset = _query_number(request, "offset", MAX_OFFSET) or 0
    root, children = store.tree_root(root_pk, offset)
    if root_pk is not None and root is None:
        raise Http404("No such employee.")
    context = {"root": root, "offset": offset, **_tree_context(children, root.id if root else None, offset)}
    return render(request, "orgchart/tree.html", context)


def tree_children(request, pk: int):
    """One node's children, for htmx: one round trip (``?offset=`` for the next ones).
    Without htmx, the tree rooted there."""
    offset = _query_number(request, "offset", MAX_OFFSET) or 0
    if not request.htmx:
        return redirect(f"{reverse('orgchart:tree')}?root={pk}" + (f"&offset={offset}" if offset else ""))
    children = or_404(store.tree_children, pk, offset)
    fragment = "nodes" if offset else "children"
    return render(request, f"orgchart/tree.html#{fragment}", _tree_context(children, pk, offset))


def path_finder(request):
    form = forms.PathForm(request.GET or None)
    path = None
    if form.is_valid():
        path = store.find_path(form.cleaned_data["a"], form.cleaned_data["b"])
        if path is None:
            form.add_error(None, "No path: one of them does not exist, or they sit in separate trees.")
    return render_list(request, "orgchart/path.html", {"form": form, "path": path}, "result")


# --- locations -----------------------------------------------------------------------------------


def location_list(request):
    return _name_list(request, LOCATIONS)


def location_detail(request, pk: int):
    state = STAFF.read(request)
    overview = or_404(store.location_overview, pk, state.offset, state.per_page)
    page = page_of(overview.staff, overview.staff_count, state)
    under_form = forms.ReportsToForm(request.GET if "under" in request.GET else None)
    reporting = None
    if under_form.is_valid() and under_form.cleaned_data["under"]:
        reporting = store.staff_reporting_to(pk, under_form.cleaned_data["under"])
    sensor = store.sensor_charts(pk, overview.latest)
    context = {
        "location": overview.location,
        "page": page,
        "state": state,
        "under_form": under_form,
        "under_fields": None if under_form.is_bound else presenters.empty_under_fields(),
        "reporting": reporting,
        "staff": presenters.staff_rows(overview.staff),
        "temperature": charts.temperature(sensor),
    }
    return render_list(request, "orgchart/location_detail.html", context, "staff")


def location_form(request, pk: int | None = None):
    location = or_404(store.get_location, pk) if pk is not None else None
    initial = forms.LocationForm.initial_for(location) if location else None
    form = forms.LocationForm(request.POST if request.method == "POST" else None, initial=initial)
    save = partial(store.save_location, pk, actor=_actor(request))
    return _save(request, LOCATIONS, location, form, lambda data: save(data["name"], version=data["version"]))


def location_delete(request, pk: int):
    location = or_404(store.get_location, pk)
    others = [(i, name) for i, name in store.location_choices() if i != pk]
    data = request.POST if request.method == "POST" else None
    form = forms.DeleteLocationForm(data, locations=others)
    return _delete(request, LOCATIONS, location, form, partial(store.delete_location, pk, actor=_actor(request)))
