"""Django forms of the org chart. People are picked from suggestions as a name is typed, or by
exact name or ``#id`` (without JavaScript): an org of ten thousand does not fit in a menu, and
names are unique. An id is ASCII digits that fit a 64-bit
counter; anything else (``#²``, ``#99999999999999999999``) is no employee, never an error page."""

from django import forms
from django.template.loader import render_to_string
from django.urls import reverse

from config.saving import VersionField
from orgchart import store

NAME_MAX = 100


class NameField(forms.CharField):
    """A name with its runs of spaces made one, as the store keeps it (blank is refused as required)."""

    def clean(self, value):
        return " ".join(super().clean(value).split())


class EmployeePicker(forms.TextInput):
    """The autocomplete combobox (``includes/autocomplete.html``, "fill" mode): typing part of a name
    suggests people; picking one puts the id in the hidden ``<name>_id`` input. Without JavaScript it
    is the plain text field, which takes an exact name or ``#id``."""

    def render(self, name, value, attrs=None, renderer=None):
        attrs = {**self.attrs, **(attrs or {})}
        context = {
            "name": name,
            "id": attrs.get("id") or f"id_{name}",
            "url": reverse("orgchart:employee_suggest"),
            "value": self.format_value(value) or "",
            "mode": "fill",
            "fill_name": f"{name}_id",
            "label": name,
            "placeholder": "Type part of a name, or #id",
        }
        return render_to_string("includes/autocomplete.html", context)


class EmployeeField(forms.CharField):
    """An employee given by exact name or ``#id``, or picked from the suggestions (the id comes in
    ``<name>_id``). The form resolves all of its employee fields in one round trip
    (``ResolvesEmployees``); the cleaned value is the id, or None when left blank."""

    widget = EmployeePicker

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", NAME_MAX)
        kwargs.setdefault(
            "help_text", "Part of a name to pick from suggestions, the exact name, or #id. Blank: nobody."
        )
        super().__init__(*args, **kwargs)


class ResolvesEmployees:
    """Turns every EmployeeField's text into an id with one lookup for the whole form."""

    def clean(self):
        cleaned = super().clean()
        for name, field in self.fields.items():  # a picked suggestion: its id, sent beside the name
            picked = self.data.get(self.add_prefix(f"{name}_id"), "")
            if isinstance(field, EmployeeField) and cleaned.get(name) and picked.isascii() and picked.isdigit():
                cleaned[name] = f"#{picked}"
        wanted = [(n, cleaned[n]) for n, f in self.fields.items() if isinstance(f, EmployeeField) and cleaned.get(n)]
        for (name, text), pk in zip(wanted, store.resolve_employees([text for _, text in wanted])):
            if pk is None:
                self.add_error(name, f"No employee is called {text!r}.")
            else:
                cleaned[name] = pk
        for name, field in self.fields.items():
            if isinstance(field, EmployeeField) and not cleaned.get(name) and name not in self.errors:
                cleaned[name] = None
        return cleaned


def _location_field(label: str, blank: str) -> forms.TypedChoiceField:
    return forms.TypedChoiceField(label=label, required=False, coerce=int, empty_value=None, choices=[("", blank)])


class EmployeeForm(ResolvesEmployees, forms.Form):
    name = NameField(max_length=NAME_MAX)
    title = forms.CharField(max_length=NAME_MAX, required=False)
    location = _location_field("Works at", "— no location —")
    manager = EmployeeField(label="Reports to")
    to_top = forms.BooleanField(required=False, label="Report to nobody: the top of the org")
    full_time = forms.BooleanField(required=False, initial=True, label="Full time")
    version = VersionField()

    def __init__(self, *args, locations=(), has_manager: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["location"].choices = [("", "— no location —"), *locations]
        self.has_manager = has_manager  # an edit of someone who reports to a manager today

    @staticmethod
    def initial_for(employee) -> dict:
        """The edit form's values from a stored employee, its version included."""
        return {
            "name": employee.name,
            "title": employee.title,
            "location": employee.location,
            "manager": f"#{employee.manager}" if employee.manager else "",
            "full_time": employee.full_time,
            "version": employee.version,
        }

    def clean(self):
        """A blank "Reports to" on someone who has a manager moves them to the top: only when chosen."""
        cleaned = super().clean()
        blanked = self.has_manager and "manager" not in self.errors and cleaned.get("manager") is None
        if blanked and not cleaned.get("to_top"):
            self.add_error("manager", "Name the new manager, or tick “Report to nobody” for a top of the org.")
        return cleaned


class MoveForm(ResolvesEmployees, forms.Form):
    manager = EmployeeField(
        label="New manager",
        help_text="Part of a name to pick from suggestions, the exact name, or #id. Blank: the top of the org, "
        "which you confirm next.",
    )
    to_top = forms.BooleanField(required=False, widget=forms.HiddenInput)  # set by the confirmation page


class DeleteEmployeeForm(ResolvesEmployees, forms.Form):
    successor = EmployeeField(
        label="Who takes over the direct reports",
        help_text="Part of a name to pick from suggestions, the exact name, or #id, outside this person's team. "
        "Blank: the reports move to the top.",
    )


class LocationForm(forms.Form):
    name = NameField(max_length=NAME_MAX)
    version = VersionField()

    @staticmethod
    def initial_for(location) -> dict:
        return {"name": location.name, "version": location.version}


class DeleteLocationForm(forms.Form):
    successor = _location_field("Move the staff to", "— no location —")

    def __init__(self, *args, locations=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["successor"].choices = [("", "— no location —"), *locations]


class PathForm(ResolvesEmployees, forms.Form):
    a = EmployeeField(label="From", required=True, help_text="Exact name, or #id.")
    b = EmployeeField(label="To", required=True, help_text="Exact name, or #id.")


class ReportsToForm(ResolvesEmployees, forms.Form):
    under = EmployeeField(label="Who report to", help_text="Exact name, or #id: directly or not.")


class DepthForm(forms.Form):
    depth = forms.IntegerField(min_value=1, max_value=store.MAX_DEPTH, required=False)
