"""Screens of the org chart: thin views over ``orgchart.store``."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from config.listing import list_state, page_of
from orgchart import charts, forms, store


def _actor(request) -> store.Actor:
    return store.Actor(request.user.get_username(), lambda entity, pk: reverse(f"orgchart:{entity}_detail", args=[pk]))


def _write(request, form, write, done, then):
    """Run ``write(cleaned_data)`` for a valid form. On success: the message ``done`` (text, or a
    function of the data) and a redirect to ``then(result)``; when the store refuses: the reason
    beside its field, and None."""
    if not form.is_valid():
        return None
    try:
        result = write(form.cleaned_data)
    except (store.Refused, store.Busy) as exc:
        field = getattr(exc, "field", None)
        form.add_error(field if field in form.fields else None, str(exc))
        return None
    messages.success(request, done(form.cleaned_data) if callable(done) else done)
    return redirect(then(result))


def _template(request, name: str, partial: str) -> str:
    return f"orgchart/{name}#{partial}" if request.htmx else f"orgchart/{name}"


def _employee_or_404(pk: int) -> store.Employee:
    employee = store.get_employee(pk)
    if employee is None:
        raise Http404("No such employee")
    return employee


# --- employees -----------------------------------------------------------------------------------


def _name_list(request, fetch, template: str):
    """A list in name order with prefix search and paging; htmx gets the results partial."""
    state = list_state(request.GET, sorts=("name",), default_order="name")
    items, total = fetch(state)
    page = page_of(items, total, state)
    return render(request, _template(request, template, "results"), {"page": page, "state": state})


def employee_list(request):
    return _name_list(request, store.employee_page, "employee_list.html")


def _detail_context(found, depth_form, move_form) -> dict:
    if found is None:
        raise Http404("No such employee")
    chain, direct, report = found
    return {
        "employee": chain.employee,
        "chain": chain,
        "direct": direct,
        "report": report,
        "depth_form": depth_form,
        "depths": range(1, store.MAX_DEPTH + 1),
        "move_form": move_form,
        "node_limit": store.NODE_LIMIT,
    }


def employee_detail(request, pk: int):
    depth_form = forms.DepthForm(request.GET)
    depth = (depth_form.cleaned_data.get("depth") if depth_form.is_valid() else None) or 1
    context = _detail_context(store.employee_detail(pk, depth), depth_form, forms.MoveForm())
    return render(request, _template(request, "employee_detail.html", "depth"), context)


def employee_form(request, pk: int | None = None):
    employee = _employee_or_404(pk) if pk is not None else None
    locations = store.location_choices()
    if request.method == "POST":
        form = forms.EmployeeForm(request.POST, locations=locations)
        done = _write(
            request, form, lambda data: store.save_employee(pk, data, _actor(request)),
            lambda data: f"Saved {data['name']}.", lambda saved: reverse("orgchart:employee_detail", args=[saved]),
        )  # fmt: skip
        if done:
            return done
    else:
        initial = {}
        if employee is not None:
            initial = {
                "name": employee.name,
                "title": employee.title,
                "location": employee.location,
                "manager": f"#{employee.manager}" if employee.manager else "",
                "full_time": employee.full_time,
            }
        form = forms.EmployeeForm(initial=initial, locations=locations)
    return render(request, "orgchart/employee_form.html", {"form": form, "employee": employee})


@require_POST
def employee_move(request, pk: int):
    """Move under a new manager (WATCH, cycle refused). For htmx, the detail page comes back."""
    employee = _employee_or_404(pk)
    form = forms.MoveForm(request.POST)
    done = _write(
        request, form, lambda data: store.move_employee(pk, data["manager"], _actor(request)),
        f"Moved {employee.name}.", lambda _: reverse("orgchart:employee_detail", args=[pk]),
    )  # fmt: skip
    if done:
        return done
    context = _detail_context(store.employee_detail(pk), forms.DepthForm(), form)
    return render(request, "orgchart/employee_detail.html", context, status=400)


def employee_delete(request, pk: int):
    chain = store.chain_of_command(pk)
    if chain is None:
        raise Http404("No such employee")
    employee = chain.employee
    if request.method == "POST":
        form = forms.DeleteEmployeeForm(request.POST)
        done = _write(
            request, form, lambda data: store.delete_employee(pk, data["successor"], _actor(request)),
            f"Deleted {employee.name}.", lambda _: reverse("orgchart:employee_list"),
        )  # fmt: skip
        if done:
            return done
    else:
        boss = chain.managers[-1].name if chain.managers else ""
        form = forms.DeleteEmployeeForm(initial={"successor": boss})
    return render(request, "orgchart/employee_confirm_delete.html", {"employee": employee, "form": form})


# --- tree and path -------------------------------------------------------------------------------


def _offset(request) -> int:
    text = request.GET.get("offset", "0")
    if not text.isdigit():
        raise Http404("Malformed offset")
    return int(text)


def _tree_context(children, parent, offset: int) -> dict:
    more = len(children) >= store.NODE_LIMIT
    return {"children": children, "parent": parent, "next_offset": offset + store.NODE_LIMIT if more else None}


def tree(request):
    """The org tree from ``?root=`` (or from the top): the root and one level, one round trip."""
    root_pk = request.GET.get("root", "")
    if root_pk and not root_pk.isdigit():
        raise Http404("Malformed employee id")
    offset = _offset(request)
    root, children = store.tree_root(int(root_pk) if root_pk else None, offset)
    if root_pk and root is None:
        raise Http404("No such employee")
    context = {"root": root, "offset": offset, **_tree_context(children, root.id if root else None, offset)}
    return render(request, "orgchart/tree.html", context)


def tree_children(request, pk: int):
    """One node's children, for htmx: one round trip (``?offset=`` for the next ones).
    Without htmx, the tree rooted there."""
    offset = _offset(request)
    if not request.htmx:
        return redirect(f"{reverse('orgchart:tree')}?root={pk}" + (f"&offset={offset}" if offset else ""))
    children = store.tree_children(pk, offset)
    if children is None:
        raise Http404("No such employee")
    partial = "nodes" if offset else "children"
    return render(request, f"orgchart/tree.html#{partial}", _tree_context(children, pk, offset))


def path_finder(request):
    form = forms.PathForm(request.GET or None)
    path = None
    if form.is_valid():
        path = store.find_path(form.cleaned_data["a"], form.cleaned_data["b"])
        if path is None:
            form.add_error(None, "No path: one of them does not exist, or they sit in separate trees.")
    return render(request, _template(request, "path.html", "result"), {"form": form, "path": path})


# --- locations -----------------------------------------------------------------------------------


def _location_or_404(pk: int) -> store.Location:
    location = store.get_location(pk)
    if location is None:
        raise Http404("No such location")
    return location


def location_list(request):
    return _name_list(request, store.location_page, "location_list.html")


def location_detail(request, pk: int):
    state = list_state(request.GET, filters=("under",))
    overview = store.location_overview(pk, state.offset, state.per_page)
    if overview is None:
        raise Http404("No such location")
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
        "reporting": reporting,
        "sensor": sensor,
        "temperature_charts": charts.location_charts(sensor),
    }
    return render(request, _template(request, "location_detail.html", "staff"), context)


def location_form(request, pk: int | None = None):
    location = _location_or_404(pk) if pk is not None else None
    if request.method == "POST":
        form = forms.LocationForm(request.POST)
        done = _write(
            request, form, lambda data: store.save_location(pk, data["name"], _actor(request)),
            lambda data: f"Saved {data['name']}.", lambda saved: reverse("orgchart:location_detail", args=[saved]),
        )  # fmt: skip
        if done:
            return done
    else:
        form = forms.LocationForm(initial={"name": location.name} if location else None)
    return render(request, "orgchart/location_form.html", {"form": form, "location": location})


def location_delete(request, pk: int):
    location = _location_or_404(pk)
    others = [(i, name) for i, name in store.location_choices() if i != pk]
    if request.method == "POST":
        form = forms.DeleteLocationForm(request.POST, locations=others)
        done = _write(
            request, form,
            lambda data: store.delete_location(
                pk, data["successor"], _actor(request), store.sensor_keys, store.sensor_watch_keys
            ),
            f"Deleted {location.name}.", lambda _: reverse("orgchart:location_list"),
        )  # fmt: skip
        if done:
            return done
    else:
        form = forms.DeleteLocationForm(locations=others)
    return render(request, "orgchart/location_confirm_delete.html", {"location": location, "form": form})
