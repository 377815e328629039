"""The key browser's screens: thin views over ``store`` and ``display``.

Every screen is a GET that reads a bounded amount: one or two round trips,
whatever the size of the keyspace or of the key (see ``store``).
"""

from __future__ import annotations

from datetime import timedelta

from django.core import signing
from django.http import Http404
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_GET

from config.keybrowser import behind, display, store, tree
from config.keybrowser.forms import BrowseForm
from config.keyspace import keyspace
from config.store import glob_escape


def _query(request, **changes) -> str:
    params = {k: v for k, v in request.GET.items() if k != "key"}
    params.update(changes)
    return "?" + urlencode({k: v for k, v in params.items() if v not in ("", None)})


@require_GET
def browse(request):
    """``/keys/``: a SCAN page of keys with filters, or one key with ``?key=``."""
    key = display.key_from_query(request.META.get("QUERY_STRING", ""))
    if key is not None:
        return key_detail(request, key)
    form = BrowseForm(request.GET)
    page = None
    if form.is_valid():
        data = form.cleaned_data
        page = store.scan_page(form.glob(), data["type"], data["cursor"], exact=form.exact())
    context = {
        "form": form,
        "page": page,
        "rows": display.key_rows(page.keys) if page else [],
        "exact": display.key_rows([page.exact])[0] if page and page.exact else None,
        "next_query": _query(request, cursor=page.cursor) if page and page.cursor else "",
        "continued": bool(form.is_valid() and form.cleaned_data["cursor"]),
        "first_query": _query(request, cursor=""),
        "scan_count": store.SCAN_COUNT,
    }
    if request.htmx and context["continued"]:
        return render(request, "keybrowser/_key_table.html#rows", context)
    return render(request, "keybrowser/browser.html", context)


def _screens(names) -> list[tuple[str, str]]:
    """(name, url) of each screen that reads or writes a pattern; url "" when it takes arguments."""
    screens = []
    for name in names:
        try:
            screens.append((name, reverse(name)))
        except NoReverseMatch:
            screens.append((name, ""))
    return screens


def key_detail(request, key: bytes):
    """One key: its owner, metadata and one page of its content."""
    if display.is_hidden(key):
        return render(request, "keybrowser/refused.html", {"name": display.show(key, name=True)}, status=403)
    owner = display.owner(key)
    text = key.decode("utf-8", "backslashreplace")
    related = display.related_keys(text, owner)
    try:
        content = store.read_key(
            key, request.GET.get("cursor", ""), owner.type if owner else "", tuple(k.encode() for k, _ in related)
        )
    except ValueError:
        raise Http404("No such position in this key") from None
    ids_of = display.id_pattern(text, owner)
    meta = content.meta
    context = {
        "key": key,
        "name": display.show(key, name=True),
        "key_param": display.key_param(key),
        "content": content,
        "meta": meta,
        "owner": owner,
        "ids_of": ids_of,
        "screens": _screens(owner.screens) if owner else [],
        "related": [
            (name, pattern, display.key_url(name), content.related.get(name.encode(), False))
            for name, pattern in related
        ],  # fmt: skip
        "screen_url": owner.screen_url(text) if owner else "",
        "ttl": display.duration(meta.ttl_ms),
        "expires_at": timezone.now() + timedelta(milliseconds=meta.ttl_ms) if meta.ttl_ms is not None else None,
        "view": display.content_view(content, ids_of, owner),
        "next_query": f"?key={display.key_param(key)}&cursor={content.next_cursor}" if content.next_cursor else "",
        "first_query": f"?key={display.key_param(key)}",
        "page_size": store.PAGE,
        "string_chunk": store.STRING_CHUNK,
    }
    return render(request, "keybrowser/key.html", context)


@require_GET
def namespaces(request):
    """``/keys/tree/``: keys grouped by their next ``:`` segment under a prefix."""
    prefix = display.key_from_query(request.META.get("QUERY_STRING", ""), "prefix") or b""
    if display.is_hidden(prefix):
        raise Http404("Django's cache and session keys are not browsable")
    try:
        cursor = int(request.GET.get("cursor") or 0)
        carried = tree.carried(request.GET.get("acc", ""))
    except (ValueError, signing.BadSignature):
        raise Http404("Bad cursor") from None
    match = glob_escape(prefix.decode("latin-1")).encode("latin-1") + b"*"
    chunk = tree.merge(store.tree_chunk(prefix, match, cursor), carried)
    context = {
        "prefix": prefix,
        "prefix_name": display.show(prefix, name=True),
        "crumbs": tree.crumbs(prefix),
        "chunk": chunk,
        "nodes": tree.nodes(prefix, chunk),
        "more_query": tree.more_query(prefix, chunk),
        "auto": request.GET.get("auto") == "1",
    }
    return render(request, "keybrowser/tree.html", context)


@require_GET
def registry(request):
    """``/keys/registry/``: every registered pattern with its app, modeling pattern and purpose."""
    return render(request, "keybrowser/registry.html", {"apps": keyspace.by_app(), "hidden_apps": {"django"}})


@require_GET
def registered(request):
    """``/keys/registry/keys/?pattern=``: the keys of one registered pattern, through its index when it has one."""
    wanted = request.GET.get("pattern", "")
    pattern = next((p for p in keyspace.patterns if p.pattern == wanted), None)
    if pattern is None or display.is_hidden(pattern.pattern):
        raise Http404("No such registered pattern")
    cursor = request.GET.get("cursor", "")
    use_index = bool(pattern.index) and pattern.segments.count("*") == 1 and pattern.wildcards == 1
    try:
        if use_index:
            page = store.pattern_index_page(pattern, cursor)
            rows, next_cursor, total, scanned = display.key_rows(page.keys), page.next_cursor, page.total, None
        else:
            scanned = store.pattern_scan_page(pattern, int(store.parse_cursor("set", cursor)))
            rows, next_cursor, total = display.key_rows(scanned.keys), str(scanned.cursor or ""), None
    except ValueError:
        raise Http404("Bad cursor") from None
    context = {
        "pattern": pattern,
        "use_index": use_index,
        "rows": rows,
        "total": total,
        "scanned": scanned,
        "next_query": _query(request, cursor=next_cursor) if next_cursor else "",
    }
    if request.htmx and cursor:
        return render(request, "keybrowser/_key_table.html#rows", context)
    return render(request, "keybrowser/registered.html", context)


@require_GET
def orphans(request):
    """``/keys/orphans/``: keys that match no registered pattern, a SCAN page at a time."""
    try:
        cursor = int(store.parse_cursor("set", request.GET.get("cursor", "")))
    except ValueError:
        raise Http404("Bad cursor") from None
    page = store.orphan_page(cursor)
    context = {
        "page": page,
        "rows": display.key_rows(page.keys),
        "next_query": _query(request, cursor=page.cursor) if page.cursor else "",
        "continued": bool(cursor),
    }
    if request.htmx and cursor:
        return render(request, "keybrowser/_key_table.html#rows", context)
    return render(request, "keybrowser/orphans.html", context)


def _referer_path(request) -> str:
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(referer, {request.get_host()}, request.is_secure()):
        return referer.split(request.get_host(), 1)[-1] or "/"
    return ""


@require_GET
def behind_screen(request):
    """``/keys/behind/?t=``: exactly the keys a page touched, with the commands and round trips it sent."""
    try:
        screen = behind.read(request.GET.get("t", ""))
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise Http404("This link to a page's keys is not valid: follow it again from the page.") from None
    shown = [k.encode() for k in screen.keys if not display.is_hidden(k)]
    metas, _ = store.describe(shown)
    context = {
        "screen": screen,
        "path": screen.path or _referer_path(request),
        "rows": display.key_rows(metas),
    }
    return render(request, "keybrowser/behind.html", context)
