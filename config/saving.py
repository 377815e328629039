"""The one save flow of every add and edit form, the stale-edit token every edit form carries,
the one-time token every add form carries, and what a write's URL answers when it is not posted.

Every app's store refuses a save the same way (``config.store``): ``Refused`` with the field
it concerns, ``NotFound`` for an object that is gone, ``EditConflict`` when the object was
saved by someone else since the form was opened. ``save_view`` turns each into what the user
sees, so a form view only builds its form and says how to save it.

A post that meets an expired session is kept in the session (``stash_post``, for a form without
files) while the user signs in again; the page sign-in returns to fills its form from it
(``stashed``), so nothing typed is lost.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django import forms
from django.contrib import messages
from django.core.validators import RegexValidator
from django.http import Http404, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse

from config.store import EditConflict, NotFound, Refused
from config.store.once import claim_form_token, form_token_result, release_form_token, settle_form_token

TOKEN = "version"  # the stale-edit token's hidden field, on every edit form
ONCE = "once"  # the one-time token's hidden field, on every add form
ONCE_PATTERN = r"\A[A-Za-z0-9_-]{22}\Z"  # secrets.token_urlsafe(16)
DAMAGED = "This form is incomplete or damaged: reload the page and make your change again."
ALREADY_SAVED = "This form was already sent and saved once, so nothing was added again: here is what it made."
STILL_SAVING = "This form is being saved from another click or tab: nothing was added twice. Wait, then reload."
RESTORED = "You were signed out before this was sent, so nothing was written: your input is kept below. Send it again."
STASH = "saving.stashed_post"  # the session's slot for a post that met an expired session
STASH_LIMIT = 64 * 1024  # a larger post is not kept in the session
SETTLE_WAITS = 30  # a second post of a form still saving checks this many times for its result
SETTLE_PAUSE = 0.1


class VersionField(forms.CharField):
    """The stale-edit token: the stored object's version when its edit form was opened, refused by the
    store (``EditConflict``) when the object holds another. A count of saves, or a digest of the
    stored fields (``digest=True``). An add form leaves it blank; ``save_view`` requires it of an edit.
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
    redisplay: bool = False,
) -> HttpResponse:
    """An add or edit form's view, as Django's admin has it.

    A GET, or a form with errors, is ``template`` with ``form`` and ``context`` (or what ``context()``
    returns, read only when a page is shown). A valid POST runs ``save(cleaned_data)``, then goes to
    the object's page, a new form (``_addanother``, ``add_query`` appended) or the edit form
    (``_continue``), with the message; ``entity`` is ``app:name``, whose ``<entity>_detail``,
    ``_add`` and ``_edit`` URLs they are.

    What the store refuses writes nothing: ``Refused`` is an error beside its field, ``NotFound`` a
    404, ``EditConflict`` the conflict page (409): the input kept, what is stored now beside it, and
    the stored version in the form, so saving again replaces the other change knowingly.
    ``theirs(conflict)``, given for an edit form, is the stored object as initial data (its version
    included); ``conflict_context(conflict)`` adds to the page's context.

    An add form (no ``theirs``) carries a one-time token (``ONCE``): its first valid post claims it
    in Redis and saves; a later post of the same form (a double click, Back and Save) goes to what
    the first one made. A refused save gives its token back. ``redisplay`` is a POST that only
    shows the form again, saving nothing.
    """

    def page(status: int = 200, **extra) -> HttpResponse:
        shown = context() if callable(context) else context or {}
        return render(request, template, {**shown, "form": form, **extra}, status=status)

    if TOKEN in form.fields:
        form.fields[TOKEN].required = theirs is not None
    adding = theirs is None
    if adding:
        form.fields[ONCE] = forms.CharField(
            widget=forms.HiddenInput(attrs={"data-once": True}),  # static/js/app.js keeps it for Back
            required=False,
            validators=[RegexValidator(ONCE_PATTERN, DAMAGED)],
        )
    if request.method != "POST" or redisplay:
        if not redisplay:
            refill(request, form)
        if adding and not form.is_bound and not form.initial.get(ONCE):
            form.initial[ONCE] = secrets.token_urlsafe(16)
        return page()
    if not form.is_valid():
        if TOKEN in form.errors or ONCE in form.errors:  # a hidden field: its error said over the form
            form.add_error(None, DAMAGED)
        return page()
    once = form.cleaned_data.get(ONCE) if adding else ""
    if once and not claim_form_token(once):
        return _already_saved(request, form, page, entity, once)
    try:
        try:
            saved = save(form.cleaned_data)
        except BaseException:  # refused or failed: the same form may be sent again
            if once:
                release_form_token(once)
            raise
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
    if once:
        settle_form_token(once, f"{entity}:{saved.pk}")
    return _redirect(request, saved, entity, add_query)


def _already_saved(request, form: forms.Form, page: Callable[..., HttpResponse], entity: str, once: str):
    """A second post of an add form: the object the first one made, once that save ends."""
    for _ in range(SETTLE_WAITS):
        made = form_token_result(once)
        if made:
            made_entity, _, pk = made.rpartition(":")
            if made_entity == entity and pk.isdigit():
                messages.info(request, ALREADY_SAVED)
                return HttpResponseRedirect(reverse(f"{entity}_detail", args=[int(pk)]))
            break
        if made is None:  # released by a refused save meanwhile: this post may save
            break
        time.sleep(SETTLE_PAUSE)
    form.add_error(None, STILL_SAVING if made == "" else DAMAGED)
    return page(409)


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
    """The input again, its hidden fields that track the stored object (the version, and a form's
    ``loaded_fields``) set to the stored ones; and the fields whose stored value differs."""
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


def stashable(request) -> bool:
    """Whether a post may be kept for after sign-in, from its headers alone: a form Django parses in memory."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    forms_ = ("application/x-www-form-urlencoded", "multipart/form-data")
    return request.content_type in forms_ and length <= STASH_LIMIT


def stash_post(request) -> None:
    """Keep a post that met an expired session for the page sign-in returns to (no file, no CSRF token)."""
    if not stashable(request) or request.FILES:
        return
    data = {name: values for name, values in request.POST.lists() if name != "csrfmiddlewaretoken"}
    request.session[STASH] = {"path": request.path, "data": data}


def stashed(request, path: str) -> QueryDict | None:
    """The post kept for ``path`` when the session expired, taken out of the session; else None."""
    kept = request.session.get(STASH)
    if not kept or kept.get("path") != path:
        return None
    del request.session[STASH]
    data = QueryDict(mutable=True)
    for name, values in kept["data"].items():
        data.setlist(name, values)
    return data


def refill(request, form: forms.Form, path: str | None = None) -> forms.Form:
    """Bind ``form`` to the post kept for ``path`` (the request's own by default), if any, with a message."""
    data = stashed(request, path or request.path)
    if data is not None and not form.is_bound:
        form.is_bound, form.data, form._errors = True, data, None
        messages.info(request, RESTORED)
    return form


def post_only(page: Callable[..., str]):
    """A write's view that answers a GET with a redirect to ``page(**kwargs)`` (the object's page,
    where the action's form is), never a bare 405: a bookmark, Back, or signing in again after the
    session expired mid-form each land there, and the page refills its form (``stash_post``)."""

    def decorate(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if request.method == "POST":
                return view(request, *args, **kwargs)
            if request.method in ("GET", "HEAD"):
                return HttpResponseRedirect(page(**kwargs))
            return HttpResponseNotAllowed(["GET", "POST"])

        return wrapped

    return decorate
