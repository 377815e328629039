"""What the CMS screens show, prepared once per page in Python rather than node by node in templates.

A table row rendered by the template language costs a variable lookup, a
localization and an escape per cell, a ``reverse()`` per link and a ``date``
filter per time: hundreds of nodes per list page. Here each row is one format
string filled once: every text is escaped with ``html.escape`` (what Django's
``escape`` does, without its lazy-string wrapper), numbers are integers, links
are built from the app's URL prefix reversed once per page, and times are
formatted once in the current time zone. Only then is the row marked safe. The
result is the HTML the templates used to write, so users, the accessibility
checks and the browser tests see the same page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from html import escape as _escape

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from cms.documents import Comment, HistoryRow, PostSummary
from config.urlpaths import path_of

MINUTE, SECOND = "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"  # the templates' "Y-m-d H:i" and "Y-m-d H:i:s"


def when(epoch: float, pattern: str = SECOND, zone=None) -> str:
    """A stored time as the screens print it, in the current time zone (or ``zone``, looked up once a page)."""
    return _text(datetime.fromtimestamp(epoch, zone or timezone.get_current_timezone()), pattern)


def _text(moment: datetime, pattern: str) -> str:
    """``moment.strftime(pattern)``, with the two patterns of the screens written out by hand: strftime
    parses its pattern on every call, and a list prints one time a row."""
    if pattern == MINUTE:
        return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} {moment.hour:02d}:{moment.minute:02d}"
    if pattern == SECOND:
        day = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        return f"{day} {moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
    return moment.strftime(pattern)


def posts_url() -> str:
    """The post list's path, ``/cms/posts/``: every post's links are this prefix, its id and a suffix."""
    return path_of("cms:post_list")


@dataclass(frozen=True)
class ListLinks:
    """The post list's own links, from its path."""

    list: str

    @classmethod
    def of(cls) -> ListLinks:
        return cls(posts_url())

    @property
    def add(self) -> str:
        return f"{self.list}add/"

    @property
    def bulk_delete(self) -> str:
        return f"{self.list}delete/"


@dataclass(frozen=True)
class PostLinks:
    """Every screen of one post, from the list's path (one ``reverse`` for the page)."""

    pk: int
    prefix: str

    @classmethod
    def of(cls, pk: int) -> PostLinks:
        return cls(pk, posts_url())

    @cached_property
    def detail(self) -> str:
        return f"{self.prefix}{self.pk}/"

    @property
    def edit(self) -> str:
        return f"{self.detail}edit/"

    @property
    def delete(self) -> str:
        return f"{self.detail}delete/"

    @property
    def history(self) -> str:
        return f"{self.detail}history/"

    @property
    def compare(self) -> str:
        return f"{self.detail}compare/"

    @property
    def comments(self) -> str:
        return f"{self.detail}comments/"

    @property
    def comments_anchor(self) -> str:
        return f"{self.detail}#comments"

    @property
    def comment_add(self) -> str:
        return f"{self.detail}comments/add/"

    def comment_delete(self, comment_id: int) -> str:
        return f"{self.detail}comments/{comment_id}/delete/"

    def revert(self, number: int) -> str:
        return f"{self.detail}revisions/{number}/revert/"


# --- the post list ------------------------------------------------------------------------------

POST_ROW = """
      <tr data-post="{0}">
        <td class="select"><input type="checkbox" name="ids" value="{0}" id="select-{0}" aria-label="Select {1}"></td>
        <td><a href="{2}{0}/">{1}</a></td>
        <td>{3}</td>
        <td>{4}</td>
        <td><time datetime="{5}">{6}</time></td>
        <td class="num">{7}</td>
        <td class="num">{8}</td>
      </tr>"""


def escape(text: str) -> str:
    """``text`` with &, <, >, " and ' escaped, as Django's ``escape`` writes them; a plain str, to be
    placed in a row that is marked safe once whole."""
    return _escape(text, quote=True)


def post_rows(posts: list[PostSummary], prefix: str) -> SafeString:
    """The post list's table body rows."""
    prefix, zone = escape(prefix), timezone.get_current_timezone()
    rows = []
    for p in posts:
        updated = datetime.fromtimestamp(p.updated_at, UTC)  # one datetime a row: the attribute's and the text's
        rows.append(POST_ROW.format(
            int(p.id), escape(p.title), prefix, escape(p.author), escape(p.status), updated.isoformat(),
            _text(updated.astimezone(zone), MINUTE), int(p.version), int(p.num_comments),
        ))  # fmt: skip
    return mark_safe("".join(rows))  # every text in them is escaped above


OPTION = '\n  <option value="{}"{}>{}</option>\n'


def select(field) -> SafeString:
    """A valid choice field's ``<select>`` as Django's widget writes it, without its widget templates (a
    field with errors, which carries the error's ARIA attributes, is left to the widget)."""
    if field.errors:
        return field.as_widget()
    chosen = str(field.value() or "")
    options = format_html_join(
        "", OPTION, ((v, mark_safe(" selected") if v == chosen else "", label) for v, label in field.field.choices)
    )
    return format_html('<select name="{}" id="{}">{}\n</select>', field.html_name, field.auto_id, options)


_blank_selects: dict[tuple[type, str], SafeString] = {}


def blank_select(form_class: type, name: str) -> SafeString:
    """``select`` of an unbound form's field (no choice made), rendered once per process: it never changes."""
    if (form_class, name) not in _blank_selects:
        _blank_selects[form_class, name] = select(form_class()[name])
    return _blank_selects[form_class, name]


# --- one post -----------------------------------------------------------------------------------

RECENT_COMMENT = """
  <div class="comment" data-comment="{0}">
    <p><strong>{1}</strong> <span class="muted">{2}</span></p>
    <p class="pre-wrap">{3}</p>
    <p><a class="button secondary" href="{4}">Delete</a></p>
  </div>"""


POST_HEAD = """<h1>{0}</h1>
<div class="toolbar">
  <a class="button" href="{1}">Edit</a>
  <a class="button secondary" href="{2}">History ({3} revision{4})</a>
  <a class="button danger" href="{5}">Delete</a>
</div>
<dl class="owner">
  <dt>Author</dt><dd>{6}</dd>
  <dt>Status</dt><dd>{7}</dd>
  <dt>Version</dt><dd>{8}{9}</dd>
  <dt>Last saved</dt><dd>{10} by {11}</dd>
  <dt>Created</dt><dd>{12}</dd>
</dl>
<article class="card post-body pre-wrap">{13}</article>
"""


def post_head(post, links: PostLinks, revisions_kept: int) -> SafeString:
    """The post page from its title to its body: one format string rather than some twenty template nodes."""
    zone = timezone.get_current_timezone()
    return mark_safe(POST_HEAD.format(  # every text in it is escaped here
        escape(post.title), escape(links.edit), escape(links.history), int(revisions_kept),
        "" if revisions_kept == 1 else "s", escape(links.delete), escape(post.author), escape(post.status),
        int(post.version), f" · “{escape(post.comment)}”" if post.comment else "",
        when(post.updated_at, SECOND, zone), escape(post.last_saved_by), when(post.created_at, SECOND, zone),
        escape(post.body),
    ))  # fmt: skip


def _comments(row: str, links: PostLinks, comments: list[Comment]) -> SafeString:
    zone = timezone.get_current_timezone()
    rows = [
        row.format(
            int(c.id), escape(c.author), when(c.at, MINUTE, zone), escape(c.text), escape(links.comment_delete(c.id))
        )
        for c in comments
    ]
    return mark_safe("".join(rows))  # every text in them is escaped above


def recent_comments(links: PostLinks, comments: list[Comment]) -> SafeString:
    """The post page's embedded newest comments."""
    return _comments(RECENT_COMMENT, links, comments)


_blank_forms: dict[type, SafeString] = {}


def blank_form(form_class: type) -> SafeString:
    """The fields of an empty, unbound form (no initial data), rendered once per process: it never changes."""
    if form_class not in _blank_forms:
        _blank_forms[form_class] = render_to_string("includes/form_fields.html", {"form": form_class()})
    return _blank_forms[form_class]


# --- the history --------------------------------------------------------------------------------

CURRENT_ROW = """
    <tr class="current" data-revision="{0}">
      <td class="num">{0} <span class="muted">(current)</span></td>
      <td>{1}</td>
      <td>{2}</td>
      <td>{3}</td>
      <td>{4}</td>
      <td>{5}</td>
    </tr>"""

REVISION_ROW = (
    """
    <tr data-revision="{0}">
      <td class="num">{0}</td>
      <td>{1}</td>
      <td>{2}</td>
      <td>{3}</td>
      <td>{4}</td>
      <td>
        {5}<a href="{6}?a={0}">Compare with current</a>
        <form method="post" action="{7}" class="inline">
          """
    '<input type="hidden" name="csrfmiddlewaretoken" value="{8}">'
    '<input type="hidden" name="author" value="{9}"><input type="hidden" name="title" value="{10}">'
    '<input type="hidden" name="revision_title" value="{11}"><button type="submit" class="link">Revert to this</button>'
    """
        </form>
      </td>
    </tr>"""
)


def _previous(compare: str, number: int, tail: str = "") -> str:
    """The link comparing version ``number`` with the one before it ("" for the first); ``compare`` escaped."""
    if number <= 1:
        return ""
    return f'<a href="{compare}?a={number - 1}&amp;b={number}">Compare with previous</a>{tail}'


def _changed(fields: tuple[str, ...]) -> str:
    return escape(", ".join(fields)) or "—"


def history_rows(
    links: PostLinks, current, revisions: list[HistoryRow], csrf_token: str, first_page: bool
) -> SafeString:
    """The history table's rows: the current version first on the first page, then one page of revisions."""
    compare, zone = escape(links.compare), timezone.get_current_timezone()
    rows = []
    if first_page:
        rows.append(CURRENT_ROW.format(
            int(current.version), when(current.updated_at, SECOND, zone), escape(current.last_saved_by),
            escape(current.comment), _changed(current.changed), _previous(compare, int(current.version)),
        ))  # fmt: skip
    token, author, title = escape(csrf_token), escape(current.author), escape(current.title)
    for r in revisions:
        number = int(r.number)
        rows.append(REVISION_ROW.format(
            number, when(r.updated_at, SECOND, zone), escape(r.by), escape(r.comment), _changed(r.changed),
            _previous(compare, number, " ·\n        "), compare, escape(links.revert(number)), token, author, title,
            escape(r.title),
        ))  # fmt: skip
    return mark_safe("".join(rows))  # every text in them is escaped above


# --- all comments -------------------------------------------------------------------------------

COMMENT_ROW = """
    <tr data-comment="{0}">
      <td>{1}</td>
      <td>{2}</td>
      <td class="pre-wrap">{3}</td>
      <td><a href="{4}">Delete</a></td>
    </tr>"""


def comment_rows(links: PostLinks, comments: list[Comment]) -> SafeString:
    """The comment list's table rows."""
    return _comments(COMMENT_ROW, links, comments)


# --- a compare ----------------------------------------------------------------------------------

_MARKS = {"del": "<del>{}</del>", "ins": "<ins>{}</ins>"}


def segments(diffed: list[tuple[str, str]]) -> SafeString:
    """A diff's (kind, text) segments as markup: deleted text in <del>, inserted in <ins>, all escaped."""
    return mark_safe("".join(_MARKS.get(kind, "{}").format(escape(text)) for kind, text in diffed))
