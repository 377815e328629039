"""Reading a catalog import: JSON as people have it, normalized, checked whole before anything is written.

Two shapes are read, both a JSON list of products:

- the polymorphic pattern's (the e-book's companion ``polymorphic-pattern/js/data.json``):
  a type in any spelling ("game console") with the base fields and the type's
  own fields beside them, in camelCase or snake_case;
- the aggregate pattern's (``aggregate-pattern/js/data.json``): products by
  name with their reviews, and no type.

Values are read in the source's own words ("8 hours" → 8, "SSD" → ssd, "In-ear" → in-ear, yes/no/true/false),
then checked by the very forms the screens use. What was rewritten is counted per field with one example; what
cannot be read is refused with its record and field, and then nothing at all is written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from catalog import types
from catalog.documents import Product, sku_key, tag_slugs
from catalog.forms import ProductForm
from catalog.store import NewReview
from config.store import Refused

MAX_DEPTH = 20  # a product is a few levels deep; deeper is not a catalog file
RATINGS = range(0, 6)  # the e-book's sample data rates 0 to 5 stars
PRICE = re.compile(r"^\s*[$€£]?\s*(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?:USD|EUR|GBP)?\s*\Z", re.I)
NUMBER_WORDS = re.compile(r"^\s*(\d+)\s*(?:stars?|/\s*5)?\s*\Z", re.I)
BASE_KEYS = {*ProductForm.BASE, *ProductForm.DETAILS, "type", "reviews"}
REVIEW_KEYS = {"author", "rating", "comment"}


class Unreadable(Refused):
    """The file as a whole cannot be read (encoding, JSON, nesting, shape)."""


@dataclass(frozen=True)
class Problem:
    record: int
    field: str
    message: str
    name: str = ""

    def __str__(self) -> str:
        named = f" ({self.name[:60]})" if self.name else ""
        return f"record {self.record}{named}: {self.field}: {self.message}"


@dataclass
class Rewrites:
    """How many values of one field were rewritten, and the first as an example."""

    count: int = 0
    example: tuple[int, str, str] | None = None  # record, as written, as stored

    def add(self, record: int, before, after: str) -> None:
        self.count += 1
        if self.example is None:
            self.example = (record, _shown(before), after)


@dataclass
class Plan:
    """What an import would write, what it rewrote on the way, and what it refuses."""

    items: list[tuple[Product, list[NewReview]]] = field(default_factory=list)
    rewrites: dict[str, Rewrites] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def reviews(self) -> int:
        return sum(len(reviews) for _, reviews in self.items)

    def rewrote(self, name: str, record: int, before, after: str) -> None:
        self.rewrites.setdefault(name, Rewrites()).add(record, before, after)

    def rewrite_lines(self) -> list[str]:
        lines = []
        for name, rewrites in sorted(self.rewrites.items()):
            record, before, after = rewrites.example
            plural = "value" if rewrites.count == 1 else "values"
            lines.append(
                f"{name}: {rewrites.count} {plural} rewritten, e.g. record {record} {before} → {_shown(after)}"
            )
        return lines


def _shown(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


def _depth(value, limit: int) -> int:
    """How deep ``value`` nests, walked without recursion; stops counting past ``limit``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > limit:
            return depth
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return deepest


def read_records(data: bytes) -> list:
    """The file's records: UTF-8 (a BOM is fine), JSON, a list, nested at most MAX_DEPTH deep."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 text (byte {exc.start})") from None
    try:
        records = json.loads(text)
    except RecursionError:
        raise Unreadable(f"nested too deeply to read (a product is at most {MAX_DEPTH} levels deep)") from None
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if isinstance(records, dict) and isinstance(records.get("products"), list):
        records = records["products"]
    if not isinstance(records, list):
        raise Unreadable("expected a JSON list of products")
    if _depth(records, MAX_DEPTH) > MAX_DEPTH:
        raise Unreadable(f"nested too deeply to read (a product is at most {MAX_DEPTH} levels deep)")
    return records


def snake(name: str) -> str:
    """``batteryLife`` → ``battery_life``; snake_case passes through."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", str(name)).lower()


def plan(records: list, now: float) -> Plan:
    """Read every record, collecting every problem rather than stopping at the first. Reviews are
    published a second apart, ending at ``now``; a SKU repeated by a later record is cleared there."""
    result, owners = Plan(), {}
    for index, record in enumerate(records):
        found = _read_record(result, index, record, now)
        if found is None:
            continue
        product, reviews = found
        if product.sku:
            first = owners.setdefault(sku_key(product.sku), index)
            if first != index:
                result.rewrote("sku (repeated in the file: cleared)", index, product.sku, "")
                product.sku = ""
        result.items.append((product, reviews))
    return result


def _read_record(result: Plan, index: int, record, now: float) -> tuple[Product, list[NewReview]] | None:
    if not isinstance(record, dict):
        result.problems.append(Problem(index, "(record)", "not a JSON object"))
        return None
    problems_before = len(result.problems)
    name = record.get("name") if isinstance(record.get("name"), str) else ""

    def refuse(field_name: str, message: str) -> None:
        result.problems.append(Problem(index, field_name, message, name))

    data = {}
    for key, value in record.items():
        snaked = snake(key)
        if snaked != key:
            result.rewrote("(field names)", index, key, snaked)
        data[snaked] = value
    kind = None
    raw_type = data.get("type")
    if raw_type not in (None, ""):
        kind = types.get(raw_type) if isinstance(raw_type, str) else None
        if kind is None:
            refuse("type", f"unknown type {_shown(raw_type)}; known: {', '.join(types.TYPES)}")
            return None
        if raw_type != kind.slug:
            result.rewrote("type", index, raw_type, kind.slug)
    own = {f.name: f for f in kind.fields} if kind else {}
    for key in sorted(set(data) - BASE_KEYS - set(own)):
        owner = next((t.label for t in types.TYPES.values() if key in t.field_names), None)
        if owner and kind:
            refuse(key, f"belongs to the {owner} type, not to {kind.label}")
        elif owner:
            refuse(key, f"belongs to the {owner} type, and this record names no type")
        else:
            refuse(key, "not a product field")
    fields = {"type": kind.slug if kind else ""}
    for key, value in data.items():
        if key in ("type", "reviews") or (key not in BASE_KEYS and key not in own):
            continue
        if key in own:
            try:
                stored = own[key].read(value)
            except ValueError as exc:
                refuse(key, str(exc))
                continue
            if stored != "" and str(value) != stored:
                result.rewrote(key, index, value, stored)
            fields[key] = stored
        elif key == "tags":
            fields[key] = _tags(result, index, value, refuse)
        elif key in ("images", "videos"):
            listed = value if isinstance(value, list) else [value] if value else []
            if any(isinstance(v, (dict, list)) for v in listed):
                refuse(key, "expected a list of web addresses")
            fields[key] = "\n".join(str(v) for v in listed)
        elif isinstance(value, (dict, list)):
            refuse(key, f"expected a single value, not a {type(value).__name__}")
        elif key == "price" and isinstance(value, str) and PRICE.match(value):
            amount = PRICE.match(value).group(1).replace(",", "")
            if amount != value:
                result.rewrote(key, index, value, amount)
            fields[key] = amount
        else:
            fields[key] = "" if value is None else str(value)
    if len(result.problems) > problems_before:
        return None
    form = ProductForm(fields, product_type=kind)
    if not form.is_valid():
        for key, errors in form.errors.items():
            refuse(key if key != "__all__" else "(record)", " ".join(errors))
        return None
    reviews = _reviews(data.get("reviews"), now, refuse)
    if reviews is None:
        return None
    return form.to_product(), reviews


def _tags(result: Plan, index: int, value, refuse) -> str:
    listed = value if isinstance(value, list) else str(value or "").split(",")
    if any(isinstance(v, (dict, list)) for v in listed):
        refuse("tags", "expected a list of tags")
        return ""
    pairs = tag_slugs(",".join(str(v) for v in listed))
    for raw, slug in pairs:
        if raw != slug and slug:
            result.rewrote("tags", index, raw, slug)
    return ",".join(slug or raw for raw, slug in pairs)  # an empty slug stays as written: the form refuses it


def _reviews(raw, now: float, refuse) -> list[NewReview] | None:
    if raw in (None, ""):
        return []
    if not isinstance(raw, list):
        refuse("reviews", "expected a list")
        return None
    read, bad = [], False
    for n, review in enumerate(raw):
        where = f"reviews[{n}]"
        if not isinstance(review, dict):
            refuse(where, "not a JSON object")
            bad = True
            continue
        data = {snake(k): v for k, v in review.items()}
        for key in sorted(set(data) - REVIEW_KEYS):
            refuse(f"{where}.{key}", "not a review field")
            bad = True
        author, comment, rating = data.get("author"), data.get("comment") or "", _rating(data.get("rating"))
        if not isinstance(author, str) or not author.strip() or len(author) > 80:
            refuse(f"{where}.author", "an author's name (at most 80 characters) is required")
            bad = True
        if rating is None:
            refuse(f"{where}.rating", f"{_shown(data.get('rating'))} is not a rating from 0 to 5")
            bad = True
        if not isinstance(comment, str) or len(comment) > 2000:
            refuse(f"{where}.comment", "expected text of at most 2,000 characters")
            bad = True
        if not bad:
            read.append((author.strip(), rating, comment.strip()))
    if bad:
        return None
    first = now - len(read) + 1
    return [NewReview(author, rating, comment, first + i) for i, (author, rating, comment) in enumerate(read)]


def _rating(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        found = NUMBER_WORDS.match(value)
        value = int(found.group(1)) if found else None
    return value if isinstance(value, int) and value in RATINGS else None
