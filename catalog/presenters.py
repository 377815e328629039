"""The catalog screens' repeated parts, built once in Python rather than by the template per row.

A list of 25 products is some 600 template variable lookups, a localized number
per cell and a link per row when a template loops over it; here each row is a
few string joins. Every stored value is escaped (``html.escape``, the same
escaping as Django's templates) before it is joined, and the joined whole is
then marked safe; links are built from a path computed once per page, numbers
formatted once. The markup is the one the templates wrote.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from functools import cache, lru_cache
from html import escape
from urllib.parse import quote

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from catalog import types
from catalog.documents import Review, split_tags, tag_slug
from catalog.forms import ProductFilterForm, ReviewForm
from catalog.templatetags.catalog_tags import web_link
from config.templatetags.dashboard import sort_mark, sort_query

DASH = "—"
_CENT = Decimal("0.01")
NUMERIC = ("int", "decimal")
SORTED_COLUMNS = (("name", "Name", ""), ("price", "Price", ""), ("rating", "Rating", ' data-sort="rating"'),
                  ("reviews", "Reviews", ""))  # fmt: skip


def price_text(price: Decimal | None) -> str:
    """A price as ``{{ price }}`` shows it (no thousands separator here): "—" when unset."""
    return DASH if price is None else f"{price:f}"


def rating_text(average: float | None) -> str:
    """An average as ``|floatformat:2`` shows it (halves rounded up): "—" with no review."""
    if average is None:
        return DASH
    return str(Decimal(repr(average)).quantize(_CENT, rounding=ROUND_HALF_UP))


def _num(field) -> str:
    return ' class="num"' if field.kind in NUMERIC else ""


def rating_of(count: int, total: int) -> str:
    """``rating_text`` of the average ``total / count``, from the integers: half up to two places by
    integer arithmetic, the same text as the float's (a tie is a fraction of 200, which a float's
    ``repr`` shows exactly), without building a Decimal per row."""
    if not count:
        return DASH
    cents = (total * 200 + count) // (2 * count)
    return f"{cents // 100}.{cents % 100:02d}"


@lru_cache(maxsize=64)  # the registry's types, and a few unknown slugs an import may have stored
def _type_cell(slug: str) -> str:
    """A type's cell text, escaped: its label, or the slug when the registry has none, or "—"."""
    kind = types.TYPES.get(slug) or types.get(slug)
    return escape(kind.label if kind else slug) or DASH


def product_rows(rows, type_columns, products_path: str) -> SafeString:
    """The list's ``<tr>`` rows: checkbox, linked name, type, brand, SKU, the chosen type's
    fields, tags, price, rating and review count."""
    path = escape(products_path)
    cells = [(f.name, f'<td{_num(f)} data-field="{escape(f.name)}">') for f in type_columns]
    out = []
    for row in rows:
        pk, name = row.id, escape(row.name)
        if cells:
            attrs = row.attrs
            own = "".join(f"{td}{escape(attrs[n]) if attrs.get(n) else DASH}</td>" for n, td in cells)
        else:
            own = ""
        tags = "".join(f'<span class="tag">{escape(tag)}</span> ' for tag in row.tags)
        out.append(
            f'<tr data-product="{pk}">\n'
            f'        <td class="select"><input type="checkbox" name="ids" value="{pk}" id="select-{pk}" '
            f'aria-label="Select {name}"></td>\n'
            f'        <td><a href="{path}{pk}/">{name}</a></td>\n'
            f"        <td>{_type_cell(row.type)}</td>\n"
            f"        <td>{escape(row.brand)}</td>\n"
            f'        <td class="mono">{escape(row.sku)}</td>\n'
            f"        {own}\n"
            f"        <td>{tags}</td>\n"
            f'        <td class="num">{price_text(row.price)}</td>\n'
            f'        <td class="num rating">{rating_of(row.num_reviews, row.sum_ratings)}</td>\n'
            f'        <td class="num">{row.num_reviews}</td>\n'
            f"      </tr>"
        )
    return mark_safe("\n      ".join(out))  # every stored value above is escaped


def sort_headers(state) -> dict[str, SafeString]:
    """The sortable column headers by column: a link toggling the order, with ▲ or ▼ on the sorted one."""
    heads = {}
    for key, label, extra in SORTED_COLUMNS:
        q = escape(sort_query(state, key))
        mark = sort_mark(state, key)
        link = f'<a href="{q}" hx-get="{q}" hx-target="#results" hx-push-url="true"{extra}>{label} {mark}</a>'
        heads[key] = mark_safe(link)  # the query string is escaped, the rest is fixed text
    return heads


def _unit(field) -> str:
    return f" ({escape(field.unit)})" if field.unit else ""


def type_header_cells(type_columns) -> SafeString:
    cells = (f'<th{_num(f)} data-type-field="{escape(f.name)}">{escape(f.label)}{_unit(f)}</th>' for f in type_columns)
    return mark_safe("".join(cells))  # labels and units escaped


def _chip(q: str, text: str, attrs: str = "") -> str:
    q = escape(q)
    return f'<a href="{q}" hx-get="{q}" hx-target="#results" hx-push-url="true"{attrs}>{text}</a>'


def type_chips(state, chips, chosen: str, catalog_size: int) -> SafeString:
    """ "all types" and one chip per type with its count, the chosen one marked current."""
    current = 'aria-current="true"'
    of_type = state.varying("type")
    out = [_chip(of_type(""), f"all types · {catalog_size}", f" {current}" if not chosen else " ")]
    for kind, count in chips:
        slug = escape(kind.slug)
        mark = f' data-type="{slug}" {current}' if chosen == kind.slug else f' data-type="{slug}" '
        out.append(_chip(of_type(kind.slug), f"{escape(kind.label)} · {count}", mark))
    return mark_safe("\n    ".join(out))  # labels, slugs and query strings escaped


def tag_chips(state, cloud, chosen) -> SafeString:
    """One chip per tag of the cloud with its count; a chosen one is marked and drops it when followed
    (the links ``tag_query`` builds, the tags already chosen read once for the whole cloud)."""
    held = list(dict.fromkeys(tag_slug(t) for t in split_tags(state.filters.get("tags_all", ""))))
    with_tags = state.varying("tags_all")
    out = []
    for tag, count in cloud:
        text = escape(tag)
        mark = f' data-tag="{text}"'
        if tag in chosen:
            mark += ' aria-current="true" title="Chosen: select to drop it"'
        kept = [t for t in held if t != tag] if tag in held else [*held, tag]
        out.append(_chip(with_tags(",".join(kept)), f"{text} · {count}", mark))
    return mark_safe("\n    ".join(out))  # tags and query strings escaped


_VALUE = "\x01value\x01"  # where the typed search goes in the rendered box; escaping leaves it as it is


@cache
def _search_box_around(url: str) -> tuple[str, str]:
    """The list's search box (``includes/autocomplete.html``) rendered once a process for ``url``, cut
    where the value goes."""
    context = {"name": "q", "id": "id_q", "url": url, "label": "Search", "value": _VALUE, "mode": "go",
               "placeholder": "any part of a name, or a SKU"}  # fmt: skip
    before, after = render_to_string("includes/autocomplete.html", context).split(_VALUE)
    return before, after


def search_box(value: str, url: str) -> SafeString:
    """The search box with ``value`` typed in: the include's own markup (rendered once, above),
    the value escaped as the template would."""
    before, after = _search_box_around(url)
    return mark_safe(before + escape(value) + after)  # the value escaped; the rest is the template's


def filter_fields(form) -> SafeString | None:
    """The filter form's fields other than the search, as ``{{ field }}`` renders them unbound or
    valid; None when a field has errors (the template then renders them with their messages)."""
    if form.errors:
        return None
    out = []
    for field in form:
        if field.name == "q":
            continue
        value = field.value()
        label = f'<label for="{field.id_for_label}">{escape(str(field.label))}</label>'
        if field.name == "type":
            held = "" if value is None else str(value)
            options = "".join(
                f'<option value="{escape(str(v))}"{" selected" if str(v) == held else ""}>{escape(str(text))}</option>'
                for v, text in field.field.choices
            )
            widget = f'<select name="type" id="{field.auto_id}">{options}</select>'
        else:
            attr = f' value="{escape(str(value))}"' if value not in (None, "") else ""
            widget = (
                f'<input type="text" name="{field.html_name}"{attr} maxlength="{field.field.max_length}" '
                f'id="{field.auto_id}">'
            )
        out.append(f'<div class="field">\n      {label}\n      {widget}\n    </div>')
    return mark_safe("\n    ".join(out))  # values, labels and choices escaped


# --- the product page -------------------------------------------------------------------


def _or_dash(text: str) -> str:
    return escape(text) if text else DASH


def product_sections(product, *, price: str, average: str, tags: str, type_fields: str, images: str,
                     videos: str) -> SafeString:  # fmt: skip
    """The product page's product card, type fields card and details card: the markup the template
    wrote (``|default:"—"``, ``|linebreaksbr``, ``|pluralize``), one string instead of some 30
    template lookups. The other arguments are this module's own safe parts."""
    kind = product.product_type
    label = (kind.label if kind else "") or product.type
    src = web_link(product.image)
    if src:
        image = (f'<div class="image-frame"><img class="product-image" src="{escape(src)}" '
                 f'alt="{escape(product.name)}" width="160" height="160" data-fallback></div>')  # fmt: skip
    elif product.image:
        image = f'<p class="mono unlinked" data-field="image">{escape(product.image)}</p>'
    else:
        image = ""
    model = f"<dt>Model</dt><dd>{escape(product.model)}</dd>" if product.model else ""
    count = product.num_reviews
    typed = ""
    if product.type:
        heading = escape(label[:1].upper() + label[1:])
        typed = (
            f'<section class="card" id="type-fields" data-type="{escape(product.type)}">\n'
            f"    <h2>{heading} fields</h2>\n"
            f'    <dl class="owner">\n'
            f"      {type_fields}\n"
            f"    </dl>\n"
            f"  </section>"
        )
    description = ""
    if product.description:
        text = escape(product.description.replace("\r\n", "\n").replace("\r", "\n")).replace("\n", "<br>")
        description = f"<p>{text}</p>"
    return mark_safe(  # every stored value escaped; the other parts are this module's safe strings
        f'<div class="grid">\n'
        f'  <section class="card" id="product">\n'
        f"    <h2>Product</h2>\n"
        f"    {image}\n"
        f'    <dl class="owner">\n'
        f'      <dt>Type</dt><dd data-field="type">{_or_dash(label)}</dd>\n'
        f"      <dt>Brand</dt><dd>{_or_dash(product.brand)}</dd>\n"
        f'      <dt>SKU</dt><dd class="mono">{_or_dash(product.sku)}</dd>\n'
        f"      {model}\n"
        f"      <dt>Price</dt><dd>{price}</dd>\n"
        f'      <dt>Average rating</dt><dd id="average">{average} <span class="muted">(<span id="num-reviews">'
        f"{count}</span> review{'' if count == 1 else 's'}, sum {product.sum_ratings})</span></dd>\n"
        f'      <dt>Tags</dt><dd id="tags">{tags}</dd>\n'
        f"    </dl>\n"
        f"  </section>\n"
        f"  {typed}\n"
        f"</div>\n"
        f'<section class="card" id="details">\n'
        f"  <h2>Details</h2>\n"
        f"  {description}\n"
        f'  <dl class="owner">\n'
        f"    <dt>Manufacturer</dt><dd>{_or_dash(product.manufacturer)}</dd>\n"
        f"    <dt>Dimensions</dt><dd>{_or_dash(product.dimensions)}</dd>\n"
        f"    <dt>Weight</dt><dd>{_or_dash(product.weight)}</dd>\n"
        f"    <dt>Images ({len(product.images)}/10)</dt><dd>{images}</dd>\n"
        f"    <dt>Videos ({len(product.videos)}/3)</dt><dd>{videos}</dd>\n"
        f"  </dl>\n"
        f"</section>"
    )


def tag_links(tags: list[str], products_path: str) -> SafeString:
    """Each tag a link to the list filtered by it; "—" with none."""
    path = escape(products_path)
    links = "".join(
        f'<a class="tag" href="{path}?tags_all={escape(quote(tag, safe="/"))}">{escape(tag)}</a> ' for tag in tags
    )
    return mark_safe(links or DASH)  # tags escaped (and quoted in the link)


def type_field_items(fields) -> SafeString:
    """The type's fields as ``<dt>``/``<dd>`` pairs, the unit after a value, "—" for none."""
    items = (
        f'<dt>{escape(spec.label)}</dt><dd data-field="{escape(spec.name)}">'
        f"{escape(value) + (f' {escape(spec.unit)}' if spec.unit else '') if value else DASH}</dd>"
        for spec, value in fields
    )
    return mark_safe("".join(items))  # labels, names, values and units escaped


def media_links(urls: list[str], noun: str) -> SafeString:
    """Numbered links to stored web addresses (``web_link``); anything else shown as text."""
    out = []
    for n, url in enumerate(urls, start=1):
        href = web_link(url)
        shown = (
            f'<a href="{escape(href)}" rel="noopener nofollow">{noun} {n}</a>'
            if href
            else f'<span class="mono unlinked">{escape(url)}</span>'
        )
        out.append(shown + " ")
    return mark_safe("".join(out) or DASH)  # addresses escaped


# --- reviews ----------------------------------------------------------------------------


def review_items(reviews: list[Review], product_path: str) -> SafeString:
    """Reviews as ``<li>`` items (stars, author, time, comment, delete link); ``product_path`` is
    the product's page, which the delete link extends."""
    path = escape(product_path)
    out = []
    for review in reviews:
        published = review.published
        comment = f"\n  <p>{escape(review.comment)}</p>" if review.comment else ""
        out.append(
            f'<li class="review" data-review="{review.id}">\n'
            f'  <strong class="stars" aria-label="{review.rating} out of 5">{review.rating}★</strong>\n'
            f'  <span class="author">{escape(review.author)}</span>\n'
            f'  <time class="muted" datetime="{published.isoformat()}">{published:%Y-%m-%d %H:%M}</time>'
            f"{comment}\n"
            f'  <a class="muted" href="{path}reviews/{review.id}/delete/">delete</a>\n'
            f"</li>\n"
        )
    return mark_safe("".join(out))  # authors and comments escaped


@cache
def empty_filter_fields() -> SafeString:
    """The list's filter fields with nothing chosen: the same on every unfiltered list, rendered once."""
    return filter_fields(ProductFilterForm())


@cache
def empty_review_fields() -> SafeString:
    """The add-review form's fields, unbound: the same on every product page, rendered once."""
    return mark_safe(
        "".join(render_to_string("includes/field.html", {"field": field}) for field in ReviewForm())
    )  # Django's own widget rendering of a form with no data
