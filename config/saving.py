"""The one save flow of every add and edit form, and the stale-edit token every edit form carries.

Every app's store refuses a save the same way (``config.store``): ``Refused`` with the field
it concerns, ``NotFound`` for an object that is gone, ``EditConflict`` when the object was
saved by someone else since the form was opened. ``save_view`` turns each into what the user
sees, so a form view only builds its form and says how to save it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.core.validators import RegexValidator
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from config.store import EditConflict, NotFound, Refused

TOKEN = "version"  # the stale-edit token's hidden field, on every edit form
DAMAGED = "This form is incomplete or damaged: reload the page and make your change again."


class VersionField(forms.CharField):
    """The stale-edit token: the stored object's version when its edit form was opened. The save
    sends it back and the store refuses it (``EditConflict``) when the object holds another one.

    Opaque to the browser: a count of saves that grows with each one (the stores that keep a
    counter on the document), or a digest of the stored fields (``digest=True``, where the store
    derives it). An add form leaves it blank; ``save_view`` requires it of an edit.
    """

    widget = forms.HiddenInput

    def __init__(self, *, digest: bool = False, **kwargs):
        pattern = r"\A[0-9a-f]{16}\Z" if digest else r"\A[0-9]{1,18}\Z"
        kwargs.setdefault("required", False)
        kwargs.setdefault("error_messages", {"required": DAMAGED})
        super().__init__(validators=[RegexValidator(pattern, DAMAGED)], **kwargs)


@dataclass(frozen=True)
class Saved:
    """What a save did: the id of the object saved and the message that tells the user."""

    pk: int
    message: str
    level: int = messages.SUCCESS
    notes: tuple[str, ...] = ()  # told after the message: how typed text was stored


@dataclass(frozen=True)
class Change:
    """One field that differs between what is stored now and what the user sent."""

    label: str
    theirs: str
    yours: str


@dataclass(frozen=True)
class Conflict:
    """The conflict page's block (``includes/conflict.html``): the fields that differ."""

    changes: list[Change]


def save_view(
    request,
    form: forms.Form,
    *,
    entity: str,
    template: str,
    save: Callable[[dict], Saved],
    context: dict | Callable[[], dict] | None = None,
    theirs: Callable[[EditConflict], dict] | None = None,
    conflict_context: Callable[[EditConflict], dict] | None = None,
    add_query: str = "",
) -> HttpResponse:
    """An add or edit form's view, as Django's admin has it.

    A GET, or a form with errors, is the page: ``template`` with ``form`` and ``context`` (or
    what ``context()`` returns, read only when a page is shown: a save reads nothing more). A
    valid POST runs ``save(cleaned_data)``; then "Save" goes to the object's page, "Save and add
    another" (``_addanother``) to a new form (``add_query`` appended) and "Save and continue
    editing" (``_continue``) back to the edit form, each with the message. ``entity`` is
    ``app:name``, whose URL names ``<entity>_detail``, ``_add`` and ``_edit`` they take.

    What the store refuses, nothing written: ``Refused`` is an error beside its field (or over
    the form), ``NotFound`` a 404, and ``EditConflict`` the conflict page (status 409): the user's
    input kept, what is stored now beside it, and the form carrying the stored version, so that
    saving again replaces the other change knowingly. ``theirs(conflict)`` is the stored object
    now as the form's initial data (its version included): given for an edit form, which must
    then carry its version; ``conflict_context(conflict)`` adds to the page's context.
    """

    def page(status: int = 200, **extra) -> HttpResponse:
        shown = context() if callable(context) else context or {}
        return render(request, template, {**shown, "form": form, **extra}, status=status)

    if TOKEN in form.fields:
        form.fields[TOKEN].required = theirs is not None
    if request.method != "POST":
        return page()
    if not form.is_valid():
        if TOKEN in form.errors:  # a hidden field: its error said over the form, where it is seen
            form.add_error(None, DAMAGED)
        return page()
    try:
        saved = save(form.cleaned_data)
    except NotFound as missing:
        raise Http404(missing.message or "No such object.") from None
    except Refused as refused:
        form.add_error(refused.field if refused.field in form.fields else None, refused.message or str(refused))
        return page()
    except EditConflict as conflict:
        if theirs is None:
            raise
        extra = conflict_context(conflict) if conflict_context else {}
        return page(409, **extra, conflict=_reloaded(form, theirs(conflict), entity.split(":")[1]))
    return _redirect(request, saved, entity, add_query)


def _redirect(request, saved: Saved, entity: str, add_query: str) -> HttpResponseRedirect:
    if "_addanother" in request.POST:
        message, target = saved.message + " You may add another below.", reverse(f"{entity}_add") + add_query
    elif "_continue" in request.POST:
        message, target = saved.message + " You may edit it again below.", reverse(f"{entity}_edit", args=[saved.pk])
    else:
        message, target = saved.message, reverse(f"{entity}_detail", args=[saved.pk])
    messages.add_message(request, saved.level, message)
    for note in saved.notes:
        messages.info(request, note)
    return HttpResponseRedirect(target)


def _reloaded(form: forms.Form, now: dict, noun: str) -> Conflict:
    """The user's input again, its hidden fields that track the stored object (the version, and
    what a form declares in ``loaded_fields``) set to the stored ones; and the fields whose stored
    value differs from the input."""
    data = form.data.copy()
    for name in getattr(form, "loaded_fields", (TOKEN,)):
        data[name] = "" if now.get(name) is None else str(now[name])
    form.data = data
    changes = [
        Change(str(form[name].label), _shown(field, now[name]), _shown(field, form[name].data))
        for name, field in form.fields.items()
        if name in now and not field.widget.is_hidden and field.has_changed(now[name], form[name].data)
    ]
    form.add_error(
        None,
        f"Someone else saved this {noun} while you were editing, so nothing was written. What they saved is "
        "shown beside what you sent, and your input is kept below: save again to replace their change with yours.",
    )
    return Conflict(changes)


def _shown(field: forms.Field, value) -> str:
    """A field's value as the user reads it: a choice's label, yes or no, a list's items."""
    if isinstance(field, forms.BooleanField):
        return "yes" if field.to_python(value) else "no"
    value = field.prepare_value(value)
    choices = {str(key): label for key, label in getattr(field, "choices", ())}
    if choices:
        return str(choices.get(str(value), value))
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value)
    return "" if value is None else str(value)
