"""What the CMS screens show, prepared for their templates: texts, times and links, no markup.

Rows are dicts with their link (one ``reverse`` a page, ``url_for_each``) and their times as the
screens print them: the template language finds a key at its first try, an attribute at its second.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from cms.documents import Comment, HistoryRow, PostSummary
from cms.forms import PostFilterForm
from config.listing import url_for_each

MINUTE, SECOND = "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"  # the templates' "Y-m-d H:i" and "Y-m-d H:i:s"


def event_link(entity: str, object_id: str) -> str:
    """An event's screen: a post's; a comment has none of its own (the store links its post)."""
    return reverse("cms:post_detail", args=[int(object_id)]) if entity == "post" else ""


def when(epoch: float, pattern: str = SECOND, zone=None) -> str:
    """A stored time as the screens print it, in the current time zone (or ``zone``, looked up once a page)."""
    return datetime.fromtimestamp(epoch, zone or timezone.get_current_timezone()).strftime(pattern)


def post_rows(posts: list[PostSummary]) -> list[dict]:
    """The post list's rows: the summary's fields, the post's link and its last save's time."""
    detail, zone = url_for_each("cms:post_detail"), timezone.get_current_timezone()
    rows = []
    for p in posts:
        updated = datetime.fromtimestamp(p.updated_at, UTC)  # one datetime a row: the attribute's and the text's
        rows.append({
            "id": p.id, "title": p.title, "url": detail(p.id), "author": p.author, "status": p.status,
            "updated_iso": updated.isoformat(), "updated": updated.astimezone(zone).strftime(MINUTE),
            "version": p.version, "comments": p.num_comments,
        })  # fmt: skip
    return rows


@cache
def blank_status_select() -> SafeString:
    """The status filter of an unbound form (no choice made), rendered once per process: it never changes."""
    return str(PostFilterForm()["status"])


def comment_items(pk: int, comments: list[Comment]) -> list[dict]:
    """Comments of post ``pk`` with their times and delete links."""
    zone, delete = timezone.get_current_timezone(), url_for_each("cms:comment_delete", pk)
    return [
        {"id": c.id, "author": c.author, "text": c.text, "at": when(c.at, MINUTE, zone), "delete_url": delete(c.id)}
        for c in comments
    ]


@cache
def blank_form(form_class: type) -> SafeString:
    """The fields of an empty, unbound form (no initial data), rendered once per process: it never changes."""
    return render_to_string("includes/form_fields.html", {"form": form_class()})


def _version(number: int, at: str, by: str, comment: str, changed, title: str = "", revert_url: str = "") -> dict:
    """One line of a post's history: the current version (no revert link) or a kept revision."""
    return {"number": number, "at": at, "by": by, "comment": comment, "changed": ", ".join(changed) or "—",
            "title": title, "revert_url": revert_url}  # fmt: skip


def history_rows(current, revisions: list[HistoryRow], first_page: bool) -> list[dict]:
    """The current version first on the first page, then one page of revisions."""
    zone, revert = timezone.get_current_timezone(), url_for_each("cms:post_revert", current.id)
    rows = []
    if first_page:
        at = when(current.updated_at, SECOND, zone)
        rows.append(_version(current.version, at, current.last_saved_by, current.comment, current.changed))
    for r in revisions:
        at = when(r.updated_at, SECOND, zone)
        rows.append(_version(r.number, at, r.by, r.comment, r.changed, r.title, revert(r.number)))
    return rows


def sort_heads(state, columns) -> list[tuple[str, object, str]]:
    """(label, head, aria-sort) of each sortable column (``ListState.heads``)."""
    sorted_as = "descending" if state.descending else "ascending"
    return [(label, state.heads[key], sorted_as if state.sort_key == key else "") for key, label in columns]
