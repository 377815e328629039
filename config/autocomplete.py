"""Autocomplete for any screen that picks a record by name: one view helper, two partials, one static script.

The field is ``templates/includes/autocomplete.html``, an ARIA combobox: a text input that htmx
sends, debounced, to a suggestions view on each pause in typing (``hx-sync`` drops a request a newer
keystroke replaces), and a listbox the reply fills. ``static/js/autocomplete.js`` (no inline script)
makes it keyboard operable: arrows move through the options, Enter picks one, Escape closes. Picking
either follows the option's link (``mode="go"``: the product list's search goes to the product) or
fills a hidden input with the record's id and the visible one with its name (``mode="fill"``: a
person, a course, a manager). Without JavaScript the input is a plain text field of its form.

The suggestions view is ``respond(request, search)``: ``search(text, limit)``
is the app's store read, one round trip, returning (id, label) pairs.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

LIMIT = 8
# Two letters are one piece of the name index, whose search reads a bounded window whatever the size of
# the collection (``config.store.ngrams``); one Latin letter matches too many names to be a hint.
MIN_CHARS = 2


def long_enough(text: str) -> bool:
    """Whether ``text`` is worth suggesting for: MIN_CHARS characters, or one wide character (a CJK
    character is a word of its own: "電" is as narrow a hint as two Latin letters)."""
    return len(text) >= MIN_CHARS or any(unicodedata.east_asian_width(c) in "WF" for c in text)


MAX_CHARS = 100


def respond(
    request: HttpRequest,
    search: Callable[[str, int], list[tuple[str, str]]],
    *,
    link: Callable[[str], str] | None = None,
    param: str = "",
    limit: int = LIMIT,
    page: str,
) -> HttpResponse:
    """The listbox's options for the typed text: the app's ``search`` (one round trip), or a hint when
    the text is too short to search, and one when more match than the list shows. ``link(id)`` gives
    each option a link (for ``mode="go"``).

    htmx sends the input's value under the input's own name and names the input in the
    ``HX-Trigger-Name`` header, so one view serves a field of any name (``param`` fixes it; else "q").
    The options are a fragment for htmx: a browser that opens the view itself (a link from the key
    browser's screens) goes to the list ``page`` (a URL name) searched for the text instead.
    """
    name = param or request.headers.get("HX-Trigger-Name") or "q"
    text = request.GET.get(name, "").strip()[:MAX_CHARS]
    if not request.htmx:
        return redirect(reverse(page) + (f"?{urlencode({'q': text})}" if text else ""))
    listbox = request.GET.get("listbox", "suggestions")
    short = not long_enough(text)
    options = [] if short else search(text, limit + 1)  # one more than shown: whether there are more
    context = {
        "more": len(options) > limit,
        "limit": limit,
        "text": text,
        "listbox": listbox if listbox.replace("-", "").replace("_", "").isalnum() else "suggestions",
        "options": [(str(record_id), label, link(record_id) if link else "") for record_id, label in options[:limit]],
        "too_short": short,
        "min_chars": MIN_CHARS,
    }
    return render(request, "includes/autocomplete_options.html", context)
