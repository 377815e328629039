"""What the catalog screens show, prepared for their templates: texts, numbers and links, no markup.

The templates write every row, chip and card; here each list row gets its link (one ``reverse`` for the page,
``url_for_each``), its type's label and its price and rating as the screens print them. Rows and chips are
dicts: the template language finds a key at its first try, where an attribute costs it a failed lookup first,
and a list page reads a few hundred of them. The template keeps the rows', the column heads' and the chips'
HTML in the fragment cache, keyed by their content (a row's dict is every value its ``<tr>`` shows, nothing
else): the same row renders once, and a changed one is a new entry.
"""

from __future__ import annotations

from functools import cache, lru_cache

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString

from catalog import types
from catalog.documents import Review, split_tags, tag_slug
from catalog.forms import ProductFilterForm, ReviewForm
from config.listing import url_for_each
from config.templatetags.formats import money

DASH = "—"
NUMERIC = ("int", "decimal")


def rating_of(count: int, total: int) -> str:
    """The average ``total / count`` as ``|floatformat:2`` shows it (halves up; "—" with no review), by
    integer arithmetic: a tie is a fraction of 200, exact in a float's ``repr``, so the text is the same."""
    if not count:
        return DASH
    cents = (total * 200 + count) // (2 * count)
    return f"{cents // 100}.{cents % 100:02d}"


@lru_cache(maxsize=64)  # the registry's types, and a few unknown slugs an import may have stored
def type_label(slug: str) -> str:
    """A type's cell text: its label, or the slug when the registry has none, or "—"."""
    kind = types.TYPES.get(slug) or types.get(slug)
    return (kind.label if kind else slug) or DASH


def type_columns(fields) -> list[dict]:
    """The chosen type's own columns: name, label, unit and whether they hold numbers."""
    return [{"name": f.name, "label": f.label, "unit": f.unit, "numeric": f.kind in NUMERIC} for f in fields]


def product_rows(rows, columns: list[dict]) -> list[dict]:
    """The list's rows: the list fields, the row's link, and its cells as printed."""
    detail = url_for_each("catalog:product_detail")
    return [
        {
            "id": row.id,
            "name": row.name,
            "url": detail(row.id),
            "type": type_label(row.type),
            "brand": row.brand,
            "sku": row.sku,
            "tags": row.tags,
            "price": money(row.price),
            "rating": rating_of(row.num_reviews, row.sum_ratings),
            "reviews": row.num_reviews,
            "cells": [{**c, "text": row.attrs.get(c["name"]) or DASH} for c in columns],
        }  # fmt: skip
        for row in rows
    ]


def _chip(query: str, label: str, count: int, value: str = "", current: bool = False) -> dict:
    """A filter chip: the list's query string with it, its text and count, and whether it is chosen."""
    return {"query": query, "label": label, "count": count, "value": value, "current": current}


def type_chips(state, chips, chosen: str, catalog_size: int) -> list[dict]:
    """ "all types" and one chip per type with its count, the chosen one current. "all types" counts what
    the type chips count together (every product has one type), ``catalog_size`` where none is counted."""
    of_type = state.varying("type")
    every = sum(count for _, count in chips) if chips else catalog_size
    return [
        _chip(of_type(""), "all types", every, current=not chosen),
        *(_chip(of_type(k.slug), k.label, count, k.slug, chosen == k.slug) for k, count in chips),
    ]


def tag_chips(state, cloud, chosen) -> list[dict]:
    """One chip per tag of the cloud with its count; a chosen one is marked and drops it when followed."""
    held = list(dict.fromkeys(tag_slug(t) for t in split_tags(state.filters.get("tags_all", ""))))
    with_tags = state.varying("tags_all")
    chips = []
    for tag, count in cloud:
        kept = [t for t in held if t != tag] if tag in held else [*held, tag]
        chips.append(_chip(with_tags(",".join(kept)), tag, count, tag, tag in chosen))
    return chips


def review_items(reviews: list[Review], product_id: int) -> list[dict]:
    """Reviews as ``catalog/review_items.html`` lists them: their fields, time and delete link."""
    delete = url_for_each("catalog:review_delete", product_id)
    items = []
    for r in reviews:
        published = r.published
        items.append({
            "id": r.id, "rating": r.rating, "author": r.author, "comment": r.comment, "delete_url": delete(r.id),
            "iso": published.isoformat(), "published": timezone.localtime(published).strftime("%Y-%m-%d %H:%M"),
        })  # fmt: skip
    return items


def filter_fields(form) -> SafeString | None:
    """The list's filter fields when nothing is chosen in them (no form, or a search alone), rendered
    once (``empty_filter_fields``); else None, for the page to render the bound form's."""
    if form is None or not any(form.data.get(name) for name in form.fields if name != "q"):
        return empty_filter_fields()
    return None


@cache
def empty_filter_fields() -> SafeString:
    """The list's filter fields with nothing chosen: the same on every unfiltered list, rendered once."""
    return render_to_string("catalog/product_list.html#filter-fields", {"filters": ProductFilterForm()})


@cache
def empty_review_fields() -> SafeString:
    """The add-review form's fields, unbound: the same on every product page, rendered once."""
    return render_to_string("catalog/product_detail.html#review-fields", {"review_form": ReviewForm()})
