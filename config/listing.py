"""List screens: their state (search, sort, filters, page), paging over Redis, and htmx partials.

A list screen declares a ``ListSpec`` once (sorts, default order, filters and their form, extra
parameters, page size) and reads its state with ``spec.read(request)``: the one place a query
string is parsed. The app's store returns a page and its total in one round trip, ``page_of``
wraps them in Django's own Page so the pagination partial works whatever the backend, and
``render_list`` renders the screen, or only its partial for htmx. ``?per=`` picks a page size
among ``PAGE_SIZES``; a page past the end redirects to the last one (``PastEndMiddleware``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import ClassVar, NamedTuple
from urllib.parse import quote_plus, urlencode

from django.contrib import messages
from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse

# ASCII digits only (``int`` would take "٣", " 3", "+3" and "3_0"), and few of them: the offset
# stays far inside the 64-bit range Redis accepts.
_PAGE = re.compile(r"[1-9][0-9]{0,8}")
# Stands for the one value that varies in ``ListState.varying``'s links; a value holding it is
# encoded as "%00" too, which ``varying`` checks.
_MARK = "\x00"
_MARK_ENCODED = quote_plus(_MARK)
# The page sizes a list offers (``?per=``), beside its own default: a bounded choice, so a link can
# never ask Redis for an unbounded page.
PAGE_SIZES = (10, 25, 50, 100)


@dataclass(frozen=True)
class ListState:
    q: str = ""
    order: str = ""
    page: int = 1
    filters: dict[str, str] = field(default_factory=dict)
    per_page: int = 25
    # Repeated parameters kept in every link after the others, as (name, values) pairs.
    extra: tuple[tuple[str, tuple], ...] = ()
    form: object = field(default=None, compare=False, repr=False)  # the bound filter form, if any
    sorts: tuple[str, ...] = ()  # the columns it may be sorted by: each gets its head's link once (``heads``)
    default_per_page: int = 0  # the list's own page size: ``?per=`` is kept in links only when it differs

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    @property
    def descending(self) -> bool:
        return self.order.startswith("-")

    @property
    def sort_key(self) -> str:
        return self.order.lstrip("-")

    def query(self, **changes) -> str:
        """The query string of this state with some parameters changed."""
        per = self.per_page if self.default_per_page and self.per_page != self.default_per_page else ""
        params = {"q": self.q, "o": self.order, "page": self.page, **self.filters, "per": per}
        params.update(changes)
        kept = [(k, v) for k, v in params.items() if v not in ("", None) and not (k == "page" and v == 1)]
        kept += [(name, value) for name, values in self.extra for value in values]
        return "?" + urlencode(kept)

    def kept_params(self) -> list[tuple[str, str]]:
        """Every parameter but the page and its size, as (name, value): the page size form's hidden inputs."""
        params = [(k, str(v)) for k, v in {"q": self.q, "o": self.order, **self.filters}.items() if v]
        return params + [(name, str(value)) for name, values in self.extra for value in values]

    @property
    def page_sizes(self) -> list[int]:
        """The sizes the page size choice offers: the shared ones and the list's own."""
        return sorted({*PAGE_SIZES, self.default_per_page or self.per_page})

    def varying(self, name: str) -> Callable[[str], str]:
        """``self.query(**{name: value}, page=1)`` for many values (a page's chips, its column heads),
        the other parameters encoded once with a mark where the value goes (``urlencode`` quotes each
        value with ``quote_plus``, so the string is the same). An empty value, or a state already
        holding the mark's encoding, asks ``query`` itself."""
        base = self.query(**{name: _MARK, "page": 1})
        reliable = base.count(_MARK_ENCODED) == 1

        def query(value: str) -> str:
            if not value or not reliable:
                return self.query(**{name: value, "page": 1})
            return base.replace(_MARK_ENCODED, quote_plus(value), 1)

        return query

    def sort_link(self, key: str) -> str:
        """Toggle between ascending and descending for a column, back to page 1."""
        head = self.heads.get(key)
        if head is not None:
            return head.href
        order = "-" + key if self.order == key else key
        return self.query(o=order, page=1)

    @cached_property
    def heads(self) -> dict[str, SortHead]:
        """Each sortable column's head, once per page: ``state.heads.name.href`` and ``.mark``."""
        heads, ordered = {}, self.varying("o")
        for key in self.sorts:
            order = "-" + key if self.order == key else key
            mark = ("▼" if self.descending else "▲") if self.sort_key == key else ""
            heads[key] = SortHead(ordered(order), mark)
        return heads


class SortHead(NamedTuple):  # a tuple: built a few to a page, and cheaper to build than a frozen dataclass
    href: str  # the query string that sorts by the column, toggling the direction, back to page 1
    mark: str  # ▲ or ▼ beside the column the list is sorted by, else ""


def list_state(
    params: QueryDict,
    sorts: tuple[str, ...] = (),
    default_order: str = "",
    filters: tuple[str, ...] = (),
    per_page: int = 25,
    max_q: int = 100,
    max_filter: int = 200,
) -> ListState:
    """Read ``?q=&o=&page=`` and the named filters: an unknown sort is the default, a bad page a 404."""
    order = params.get("o", default_order)
    if order.lstrip("-") not in sorts:
        order = default_order
    raw = params.get("page", "1")
    if not _PAGE.fullmatch(raw):
        raise Http404("Invalid page number")
    page = int(raw)
    # Filter values are cut like the search, so no link on the page repeats an unbounded query.
    chosen = {name: params[name][:max_filter] for name in filters if params.get(name)}
    # A page size outside the choice is the list's own, as an unknown sort is its default.
    per = params.get("per", "")
    size = int(per) if per.isascii() and per.isdigit() and int(per) in PAGE_SIZES else per_page
    q = params.get("q", "").strip()[:max_q]
    return ListState(q, order, page, chosen, size, sorts=tuple(sorts), default_per_page=per_page)


@dataclass(frozen=True)
class ListSpec:
    """What one list screen reads from its query string, declared once beside its view."""

    sorts: tuple[str, ...] = ()
    default_order: str = ""
    filters: tuple[str, ...] = ()
    # A form over the filters: a value it refuses is left out of the state (and of every link),
    # and the bound form is the state's ``form``, for the page to show beside its fields.
    filter_form: type | None = None
    # Repeated parameters kept in every link, each read by its parser (which may raise Http404).
    extra: dict[str, Callable[[list[str]], list]] = field(default_factory=dict)
    per_page: int = 25

    def read(self, request: HttpRequest) -> ListState:
        """The screen's state: an unknown sort is the default, a malformed page a 404."""
        params = request.GET
        state = list_state(params, self.sorts, self.default_order, self.filters, self.per_page)
        extra = tuple((name, tuple(parse(params.getlist(name)))) for name, parse in self.extra.items())
        if self.filter_form is None:
            return replace(state, extra=extra)
        form = self.filter_form(params)
        form.is_valid()
        valid = {name: value for name, value in state.filters.items() if name not in form.errors}
        return replace(state, filters=valid, extra=extra, form=form)


@dataclass(frozen=True)
class Listed:
    """One kind of object whose screens are named ``<app>:<name>_<view>``, for an app's shared templates."""

    app: ClassVar[str] = ""  # set by the app's subclass
    name: str
    plural: str

    def url(self, view: str, *args) -> str:
        return reverse(f"{self.app}:{self.name}_{view}", args=args)

    @property
    def list_url(self) -> str:
        return self.url("list")

    @property
    def add_url(self) -> str:
        return self.url("add")

    @property
    def detail_name(self) -> str:
        return f"{self.app}:{self.name}_detail"


def render_list(
    request: HttpRequest, template: str, context: dict, partial: str = "results", status: int = 200
) -> HttpResponse:
    """Render a screen, or for htmx (not a boosted link) only its ``{% partialdef %}``."""
    if request.htmx and not request.htmx.boosted:
        template = f"{template}#{partial}"
    return render(request, template, context, status=status)


class _Counted:
    """Stands in for an object list of known length; Paginator only needs count()."""

    def __init__(self, total: int):
        self.total = total

    def count(self) -> int:
        return self.total


class _ReachingPaginator(Paginator):
    """A Paginator whose pages stop at ``reachable`` items while its count stays the whole total."""

    def __init__(self, total: int, reachable: int, per_page: int):
        super().__init__(_Counted(total), per_page, allow_empty_first_page=True)
        self.reachable = reachable

    @cached_property
    def num_pages(self) -> int:
        return Paginator(_Counted(self.reachable), self.per_page, allow_empty_first_page=True).num_pages


def page_of(items: list, total: int, state: ListState, reachable: int | None = None) -> Page:
    """A Django Page from one page of items already read, and the total; ``reachable``, where pages stop
    short of the total (a partitioned catalog's result window). A page past the last raises ``PastEnd``."""
    if reachable is None or reachable >= total:
        paginator = Paginator(_Counted(total), state.per_page, allow_empty_first_page=True)
    else:
        paginator = _ReachingPaginator(total, reachable, state.per_page)
    if state.page > paginator.num_pages:
        raise PastEnd(paginator.num_pages)
    return Page(items, state.page, paginator)


class PastEnd(Http404):
    """A page number past a list's last page: the last page and a message by ``PastEndMiddleware``, else a 404."""

    def __init__(self, last: int):
        super().__init__("That page is past the end of the list")
        self.last = last


class PastEndMiddleware:
    """Sends a GET past a list's end to its last page, saying so: a list may shrink under a bookmark."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, PastEnd) or request.method != "GET":
            return None
        params = request.GET.copy()
        asked = params.get("page", "")
        if exception.last > 1:
            params["page"] = str(exception.last)
        else:
            params.pop("page", None)
        messages.info(request, f"Page {asked} is past the end of the list: this is its last page, {exception.last}.")
        return redirect(f"{request.path}?{params.urlencode()}" if params else request.path)


_ANY_ID = 987_654_321_987  # a valid ``<id:...>`` that no other part of a path holds


def url_for_each(name: str, *args) -> Callable[[int], str]:
    """``reverse(name, args=[*args, pk])`` for every row of a page, reversed once with a placeholder id."""
    head, _, tail = reverse(name, args=[*args, _ANY_ID]).rpartition(str(_ANY_ID))
    return lambda pk: f"{head}{pk}{tail}"
