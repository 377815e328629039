"""Django admin's "delete selected", the same way in every app.

The list posts the ticked ids; a page names what they are and asks; confirming
deletes them all in one transaction (``delete_many``: the list never shows half a
bulk delete; one already gone is skipped), and a message says what went.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from config.activity import Actor

LIMIT = 100  # objects one bulk delete takes


@dataclass(frozen=True)
class BulkDelete:
    noun: str  # "product"
    plural: str  # "products"
    list_name: str  # URL name of the list the user comes from and goes back to
    detail_name: str  # URL name of one object's page (its id as the argument)
    action_name: str  # URL name of the bulk delete itself
    labels: Callable[[list[int]], list[tuple[int, str]]]  # (id, label) of those that exist, one round trip
    # Deletes them all in one transaction (a script, a MULTI/EXEC): (labels deleted, how many were gone).
    delete_many: Callable[[list[int], Actor], tuple[list[str], int]]
    what_goes: str  # "with its reviews and index entries": said on the page and in the message
    pattern_note: str = ""


def selected_ids(request) -> list[int]:
    """The ticked rows: ASCII-digit ids, each once, at most LIMIT (anything else is ignored)."""
    chosen = [v for v in request.POST.getlist("ids") if v.isascii() and v.isdigit() and len(v) < 19]
    return [int(v) for v in dict.fromkeys(chosen)][:LIMIT]


def back_to_list(request, list_name: str):
    """A redirect to the list a bulk action was sent from, with its search, sort, filters and page
    (the form's ``back``, a query string; anything else is ignored)."""
    query = request.POST.get("back", "")
    ok = query.startswith("?") and len(query) < 2000 and all(32 < ord(c) < 127 for c in query)
    return redirect(reverse(list_name) + (query if ok else ""))


def bulk_delete(request, spec: BulkDelete, actor: Actor):
    """Ask with the names of the ticked objects; on ``confirm=yes``, delete each and say what went."""
    ids = selected_ids(request)
    if not ids:
        messages.warning(request, f"Tick the {spec.plural} to delete first; nothing was deleted.")
        return redirect(spec.list_name)
    if request.POST.get("confirm") != "yes":
        found = spec.labels(ids)
        context = {
            "spec": spec,
            "objects": [(pk, label, reverse(spec.detail_name, args=[pk])) for pk, label in found],
            "missing": len(ids) - len(found),
            "hidden": [*(("ids", pk) for pk, _ in found), ("confirm", "yes")],
            "yes": f"Yes, delete {len(found)} {spec.noun if len(found) == 1 else spec.plural}",
        }
        return render(request, "includes/confirm_bulk_delete.html", context)
    deleted, gone = spec.delete_many(ids, actor)
    if deleted:
        names = ", ".join(f"“{label}”" for label in deleted)
        noun = spec.noun if len(deleted) == 1 else spec.plural
        messages.success(request, f"Deleted {len(deleted)} {noun} {spec.what_goes}: {names}.")
    if gone:
        messages.info(request, f"{gone} of the selected {spec.plural} had already been deleted.")
    return redirect(spec.list_name)
