"""View helpers shared by every app."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect

from config.store import NotFound

T = TypeVar("T")


def or_404(read: Callable[..., T | None], *args, **kwargs) -> T:
    """``read(*args, **kwargs)``, or a 404 when it finds nothing (``None`` or ``NotFound``).

    The one way a view turns a missing object into a 404, so an unknown id
    never reaches another key and never becomes a 500.
    """
    try:
        found = read(*args, **kwargs)
    except NotFound:
        found = None
    if found is None:
        raise Http404("No such object.")
    return found


def after_save(
    request, message: str, *, detail: str, add: str, edit: str, level: int = messages.SUCCESS
) -> HttpResponseRedirect:
    """Where a saved form goes, as in Django's admin: "Save and add another" to a new form, "Save and
    continue editing" back to the object's edit form, else the object's page; the message says which."""
    if "_addanother" in request.POST:
        message, target = message + " You may add another below.", add
    elif "_continue" in request.POST:
        message, target = message + " You may edit it again below.", edit
    else:
        target = detail
    messages.add_message(request, level, message)
    return HttpResponseRedirect(target)
