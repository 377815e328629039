"""The key browser's screens: thin views over ``store`` and ``display``.

Every screen is a GET that reads a bounded amount: one or two round trips,
whatever the size of the keyspace or of the key (see ``store``).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import timedelta

from django.core import signing
from django.core.exceptions import BadRequest
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import content_disposition_header, url_has_allowed_host_and_scheme, urlencode
from django.utils.text import Truncator
from django.views.decorators.http import require_GET, require_http_methods

from config.keybrowser import behind, display, memory, owners, panel, server, store, tree
from config.keybrowser.forms import BrowseForm
from config.keybrowser.store import key as keystore
from config.keyspace import keyspace
from config.store import glob_escape


def _query(**params) -> str:
    """A query string of checked, bounded values: never what the request carried, so it cannot grow."""
    return "?" + urlencode({k: v for k, v in params.items() if v not in ("", None, 0)})


def _count(request, name: str) -> int:
    """A running count carried in a "load more" link: ASCII digits, bounded, else 0."""
    text = request.GET.get(name, "")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else 0


def _bad_cursor():
    return BadRequest("This position is outside what Redis can read: start again from the first page.")


@require_GET
def browse(request):
    """``/keys/``: a SCAN page of keys with filters, or one key with ``?key=``."""
    key = display.key_from_query(request.META.get("QUERY_STRING", ""))
    if key is not None:
        return key_detail(request, key)
    form = BrowseForm.of(request.GET)
    if form.has_error("cursor"):
        raise _bad_cursor()
    page, filters = None, {}
    if form.is_valid():
        data = form.cleaned_data
        filters = {k: data[k] for k in ("pattern", "match", "type")}
        page = store.scan_page(form.glob(), data["type"], data["cursor"], exact=form.exact())
    rows = display.key_rows(page.keys) if page else []
    listed = _count(request, "listed") + len(rows)
    context = {
        "form": form,
        "page": page,
        "rows": rows,
        "listed": listed,
        "exact": display.key_rows([page.exact])[0] if page and page.exact else None,
        "next_query": _query(**filters, cursor=page.cursor, listed=listed) if page and page.cursor else "",
        # While nothing matched yet, the scan goes on by itself (htmx), so a search that matches nothing
        # ends on "0 keys match" with no click; once keys are listed, "Load more" waits for the user.
        "auto": bool(page and page.cursor) and listed == 0,
        "none_text": "0 keys match",
        "continued": bool(form.is_valid() and form.cleaned_data["cursor"]),
        "first_query": _query(**filters),
        "scan_count": store.SCAN_COUNT,
    }
    if request.htmx and context["continued"]:
        return render(request, "keybrowser/browser.html#more", {**context, "oob": True})
    return render(request, "keybrowser/browser.html", context)


def _title(text: str) -> str:
    """``truncatechars:60`` of a key's name, for the page title."""
    text = unicodedata.normalize("NFC", text)
    return text if len(text) <= 60 else Truncator(text).chars(60)


def key_detail(request, key: bytes):
    """One key: its owner, metadata and one page of its content."""
    if display.is_hidden(key):
        return render(request, "keybrowser/refused.html", {"name": display.show(key, name=True)}, status=403)
    owner = owners.owner(key)
    text = key.decode("utf-8", "backslashreplace")
    related = owners.related_keys(text, owner)
    entry = request.GET.get("entry", "")
    try:
        if entry:
            content = keystore.read_entry(key, entry, request.GET.get("cursor", ""))
        else:
            content = keystore.read_key(
                key, request.GET.get("cursor", ""), owner.type if owner else "", tuple(k.encode() for k, _ in related)
            )
    except ValueError as exc:
        raise _bad_cursor() from exc
    ids_of = owners.id_pattern(text, owner)
    meta = content.meta
    as_hex = request.GET.get("as") == "hex"
    here = f"?key={display.key_param(key)}" + (f"&entry={entry}" if entry else "")
    name = display.show(key, name=True)
    context = {
        "key": key,
        "name": name,
        "title": _title(name.text),
        "key_param": display.key_param(key),
        "content": content,
        "meta": meta,
        "owner": owner,
        "ids_of": ids_of,
        "screens": server.screens(owner.screens) if owner else (),
        "related": [
            (name, pattern, display.key_url(name), content.related.get(name.encode(), False))
            for name, pattern in related
        ],  # fmt: skip
        "screen_url": owner.screen_url(text) if owner else "",
        "ttl": display.duration(meta.ttl_ms),
        "expires_at": timezone.now() + timedelta(milliseconds=meta.ttl_ms) if meta.ttl_ms is not None else None,
        "view": display.content_view(content, ids_of, owner, as_hex),
        "next_query": f"{here}&cursor={content.next_cursor}{'&as=hex' if as_hex else ''}"
        if content.next_cursor
        else "",
        "first_query": here + ("&as=hex" if as_hex else ""),
        "text_query": f"{here}&cursor={content.cursor}" if meta.type == "string" else "",
        "hex_query": f"{here}&cursor={content.cursor}&as=hex" if meta.type == "string" else "",
        "entry": content.rows[0] if entry and content.rows else None,
        "entry_missing": bool(entry) and meta.exists and not content.rows,
        "key_query": f"?key={display.key_param(key)}",
        "page_size": str(store.PAGE),  # as {{ }} prints an int, without localizing it on every page
        "string_chunk": store.STRING_CHUNK,
        "value_shown": keystore.VALUE_SHOWN,
        "entry_shown": keystore.ENTRY_SHOWN,
        "read_budget": keystore.READ_BUDGET,
        "download_chunk": keystore.DOWNLOAD_CHUNK,
    }
    return render(request, "keybrowser/key.html", context)


@require_GET
def download(request):
    """``/keys/download/?key=``: the whole value of a string, a hash field (``&field=``) or a stream
    entry's field (``&entry=&index=``), streamed a chunk a command, so no reply is large."""
    query = request.META.get("QUERY_STRING", "")
    key = display.key_from_query(query)
    if key is None:
        raise Http404("Which key?")
    if display.is_hidden(key):
        return render(request, "keybrowser/refused.html", {"name": display.show(key, name=True)}, status=403)
    field = display.key_from_query(query, "field")
    try:
        chunks = keystore.download(key, field, request.GET.get("entry", ""), request.GET.get("index", ""))
    except ValueError as exc:
        raise _bad_cursor() from exc
    if chunks is None:
        raise Http404("No such value: the key, field or entry is gone, or holds no single value.")
    response = StreamingHttpResponse(chunks, content_type="application/octet-stream")
    response["Content-Disposition"] = content_disposition_header(True, _filename(key, field, request))
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _filename(key: bytes, field: bytes | None, request) -> str:
    """A file name for a download: the key's last segment, then the field or entry's, as safe text."""
    parts = [key.rsplit(b":", 1)[-1].decode("utf-8", "replace")]
    if field is not None:
        parts.append(field.decode("utf-8", "replace"))
    elif request.GET.get("entry"):
        parts += [request.GET["entry"], request.GET.get("index", "")]
    name = "-".join(re.sub(r"[^A-Za-z0-9._-]+", "_", part)[:60] for part in parts).strip("._-")
    return f"{name or 'value'}.bin"


@require_GET
def namespaces(request):
    """``/keys/tree/``: keys grouped by their next ``:`` segment under a prefix."""
    prefix = display.key_from_query(request.META.get("QUERY_STRING", ""), "prefix") or b""
    if display.is_hidden(prefix):
        raise Http404("Django's cache and session keys are not browsable")
    try:
        cursor = int(keystore.parse_cursor("set", request.GET.get("cursor", "")))
    except ValueError as exc:
        raise _bad_cursor() from exc
    try:
        carried = tree.carried(request.GET.get("acc", ""))
    except (ValueError, KeyError, TypeError, signing.BadSignature):
        raise Http404("These counts were not made here: scan again from the first chunk.") from None
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
            page = keystore.pattern_index_page(pattern, cursor)
            rows, next_cursor, total, scanned = display.key_rows(page.keys), page.next_cursor, page.total, None
        else:
            scanned = store.pattern_scan_page(pattern, int(keystore.parse_cursor("set", cursor)))
            rows, next_cursor, total = display.key_rows(scanned.keys), str(scanned.cursor or ""), None
    except ValueError as exc:
        raise _bad_cursor() from exc
    context = {
        "pattern": pattern,
        "use_index": use_index,
        "rows": rows,
        "total": total,
        "scanned": scanned,
        "next_query": _query(pattern=pattern.pattern, cursor=next_cursor) if next_cursor else "",
    }
    if request.htmx and cursor:
        return render(request, "keybrowser/_key_table.html#rows", context)
    return render(request, "keybrowser/registered.html", context)


ORPHANS_SHOWN = 200  # orphans a page gathers by itself before it waits for "Load more"
ORPHANS_SCANNED = 20_000  # keys a page examines by itself, a bounded request at a time, before it waits


@require_GET
def orphans(request):
    """``/keys/orphans/``: keys that match no registered pattern, a SCAN page at a time."""
    try:
        cursor = int(keystore.parse_cursor("set", request.GET.get("cursor", "")))
    except ValueError as exc:
        raise _bad_cursor() from exc
    page = store.orphan_page(cursor)
    rows = display.key_rows(page.keys)
    examined = _count(request, "examined") + page.examined
    listed = _count(request, "listed") + len(rows)
    until = _count(request, "until") or ORPHANS_SHOWN
    stop = _count(request, "stop") or ORPHANS_SCANNED
    more = {"cursor": page.cursor, "examined": examined, "listed": listed}
    context = {
        "page": page,
        "rows": rows,
        "examined": examined,
        "listed": listed,
        # Scans on by itself (htmx) until the keyspace is walked, the page holds ORPHANS_SHOWN more or
        # ORPHANS_SCANNED more keys were examined: a keyspace of millions with no orphan waits for the user.
        "auto": bool(page.cursor) and listed < until and examined < stop,
        "next_query": _query(**more, until=until, stop=stop) if page.cursor else "",
        "more_query": _query(**more, until=listed + ORPHANS_SHOWN, stop=examined + ORPHANS_SCANNED)
        if page.cursor
        else "",
        "continued": bool(cursor),
        "none_text": "0 orphans",
    }
    if request.htmx and cursor:
        return render(request, "keybrowser/orphans.html#more", {**context, "oob": True})
    return render(request, "keybrowser/orphans.html", context)


def _referer_path(request) -> str:
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(referer, {request.get_host()}, request.is_secure()):
        return referer.split(request.get_host(), 1)[-1] or "/"
    return ""


def _screen(request) -> behind.Behind:
    try:
        return behind.read(request.GET.get("t", ""))
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise Http404("This link to a page's keys is not valid: follow it again from the page.") from None


@require_GET
def behind_commands(request):
    """``/keys/behind/commands/?t=``: the Redis panel's command list, loaded when the panel opens; no
    panel of its own, since the panel it fills describes the page."""
    response = HttpResponse(panel.commands_html(_screen(request)))
    response.redis_panel = False
    return response


@require_GET
def behind_screen(request):
    """``/keys/behind/?t=``: exactly the keys a page touched, with the commands and round trips it sent."""
    screen = _screen(request)
    shown = [k.encode() for k in screen.keys if not display.is_hidden(k)]
    metas, _ = store.describe(shown)
    context = {
        "screen": screen,
        "path": screen.path or _referer_path(request),
        "rows": display.key_rows(metas),
    }
    return render(request, "keybrowser/behind.html", context)


@require_http_methods(["GET", "POST"])
def memory_by_pattern(request):
    """``/keys/memory/``: the latest measure of memory by registered pattern; a POST measures again."""
    if request.method == "POST":
        memory.measure()
        return redirect("keybrowser:memory")
    return render(request, "keybrowser/memory.html", {"result": memory.cached()})


@require_GET
def server_view(request):
    """``/keys/server/``: INFO, the slow log, command stats and LATENCY DOCTOR of every node, read-only."""
    return render(request, "keybrowser/server.html", {"nodes": server.nodes()})
