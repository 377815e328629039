"""The catalog's stored documents and their hash fields.

A product is one hash: the list fields, the detail fields (one-to-one, embedded), its images and videos as
JSON lists (bounded one-to-many, embedded), its type's own fields (polymorphic), its tags, and the fields the
review machinery keeps (``recent_reviews``, ``num_reviews``, ``sum_ratings``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

from catalog import types

SCHEMA = 1
MAX_IMAGES = 10
MAX_VIDEOS = 3
MAX_TAGS = 20
TAG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
TAG_MAX = 32

# The fields a product stores as plain text, in the hash's order (the price between the two).
NAMING = ("type", "name", "brand", "sku", "model")
DESCRIBING = ("image", "description", "manufacturer", "dimensions", "weight")
# The fields the list page reads (HMGET / SORT GET): never details, images or reviews.
LIST_FIELDS = ("name", "brand", "sku", "type", "price", "tags", "num_reviews", "sum_ratings")


def is_tag(text: str) -> bool:
    return isinstance(text, str) and len(text) <= TAG_MAX and bool(TAG.match(text))


def split_tags(text: str) -> list[str]:
    """Comma-separated tags as written, stripped, empty ones dropped: "UX test, 5g" is two tags."""
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def tag_slug(text: str) -> str:
    """A tag as written, made a slug: accents folded, lowercased, every other run of characters one
    dash ("UX test" → "ux-test", "Noise Cancelling!" → "noise-cancelling"); "" when nothing is left."""
    folded = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", folded).strip("-")


def tag_slugs(text: str) -> list[tuple[str, str]]:
    """(as written, its slug) for each comma-separated tag, a repeated slug once, order kept."""
    found: dict[str, str] = {}
    for raw in split_tags(text):
        found.setdefault(tag_slug(raw), raw)
    return [(raw, slug) for slug, raw in found.items()]


def sku_key(sku: str) -> str:
    """The SKU as the index holds it: uppercased, so lookups ignore case."""
    return sku.strip().upper()


def name_key(name: str) -> str:
    """The name as the prefix index holds it: NFKC, casefolded, no NUL."""
    return unicodedata.normalize("NFKC", name).casefold().replace("\x00", "")


_ALPHABET = " 0123456789abcdefghijklmnopqrstuvwxyz"
NAME_SCORE_CHARS = 10  # 37**10 < 2**53: the score stays an exact float


def name_score(name: str) -> float:
    """A score that orders names like their first 10 characters (space, digits, a-z): Redis sorts by
    score; ties past the 10th fall back to the id. Accents fold to ASCII; any other character is a space."""
    folded = unicodedata.normalize("NFKD", name_key(name)).encode("ascii", "ignore").decode()
    score = 0
    for ch in folded[:NAME_SCORE_CHARS].ljust(NAME_SCORE_CHARS):
        score = score * len(_ALPHABET) + max(_ALPHABET.find(ch), 0)
    return float(score)


def searched_text(name: str | None, sku: str | None) -> str:
    """What the name index lists a product under: its name and its SKU, so that any part of either finds it
    (an SKU's digits, "4471" of "SPX-4471")."""
    return f"{name or ''} {sku or ''}".strip()


def text_scores(product) -> dict[str, float]:
    """The scores of the columns a list sorts as text (type slug, brand, SKU), as ``name_score`` orders."""
    return {"type": name_score(product.type or ""), "brand": name_score(product.brand or ""),
            "sku": name_score(product.sku or "")}  # fmt: skip


def price_score(price: Decimal | None) -> float:
    """Unpriced products sort as 0."""
    return float(price) if price is not None else 0.0


def average(count: int, total: int) -> float | None:
    return total / count if count else None


def type_fields(slug: str, attrs: dict[str, str]) -> list[tuple[types.TypeField, str]]:
    """(field, value) for the fields of the type ``slug``, in the registry's order ("" when absent)."""
    kind = types.get(slug)
    return [(f, attrs.get(f.name, "")) for f in kind.fields] if kind else []


def _decimal(text: str | None) -> Decimal | None:
    try:
        return Decimal(text) if text else None
    except InvalidOperation:
        return None


@dataclass
class Product:
    type: str
    name: str
    brand: str
    sku: str
    model: str = ""
    price: Decimal | None = None
    image: str = ""
    description: str = ""
    manufacturer: str = ""
    dimensions: str = ""
    weight: str = ""
    images: list[str] = field(default_factory=list)
    videos: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)  # the type's own fields
    id: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    rev: int = 0  # bumped by every edit: a stale edit form is refused
    num_reviews: int = 0
    sum_ratings: int = 0
    recent_reviews: list[dict[str, str]] = field(default_factory=list)
    schema: int = SCHEMA

    @property
    def product_type(self) -> types.ProductType | None:
        return types.get(self.type)

    @property
    def average(self) -> float | None:
        return average(self.num_reviews, self.sum_ratings)

    @property
    def recent(self) -> list[Review]:
        """The embedded copies of the 3 newest reviews: no review hash is read."""
        return [Review.from_fields(item, self.id) for item in self.recent_reviews]

    @property
    def type_fields(self) -> list[tuple[types.TypeField, str]]:
        return type_fields(self.type, self.attrs)

    def to_hash(self) -> dict[str, str]:
        """The editable fields (the review machinery owns the embed and the aggregate)."""
        kind = self.product_type
        own = {name: str(self.attrs[name]) for name in (kind.field_names if kind else ()) if name in self.attrs}
        return {
            "schema": str(self.schema),
            **{name: getattr(self, name) for name in NAMING},
            "price": "" if self.price is None else str(self.price),
            **{name: getattr(self, name) for name in DESCRIBING},
            "images": json.dumps(self.images),
            "videos": json.dumps(self.videos),
            "tags": ",".join(self.tags),
            "created_at": repr(self.created_at),
            "updated_at": repr(self.updated_at),
            "rev": str(self.rev),
            **own,
        }

    @classmethod
    def from_hash(cls, product_id: int, data: dict[str, str]) -> Product:
        kind = types.get(data.get("type", ""))
        names = kind.field_names if kind else ()
        return cls(
            id=product_id,
            **{name: data.get(name, "") for name in (*NAMING, *DESCRIBING)},
            price=_decimal(data.get("price")),
            images=json.loads(data.get("images") or "[]"),
            videos=json.loads(data.get("videos") or "[]"),
            tags=[t for t in (data.get("tags") or "").split(",") if t],
            attrs={name: data[name] for name in names if name in data},
            created_at=float(data.get("created_at") or 0),
            updated_at=float(data.get("updated_at") or 0),
            rev=int(data.get("rev") or 0),
            num_reviews=int(data.get("num_reviews") or 0),
            sum_ratings=int(data.get("sum_ratings") or 0),
            recent_reviews=json.loads(data.get("recent_reviews") or "[]"),
            schema=int(data.get("schema") or SCHEMA),
        )


@dataclass(slots=True)
class ProductRow:
    """One line of the product list: only the fields the list shows. Not frozen: a frozen dataclass sets
    each field through ``object.__setattr__``, a cost a list page pays per row."""

    id: int
    name: str
    brand: str
    sku: str
    type: str
    price: Decimal | None
    tags: list[str]
    num_reviews: int
    sum_ratings: int
    attrs: dict[str, str] = field(default_factory=dict)  # the type's own fields, when the list has one type

    @property
    def type_fields(self) -> list[tuple[types.TypeField, str]]:
        return type_fields(self.type, self.attrs)

    @classmethod
    def from_values(cls, product_id: str, values: list[str | None], own: tuple[str, ...] = ()) -> ProductRow:
        """From a SORT ... GET row: the ``LIST_FIELDS`` then the ``own`` type fields, unpacked by position
        (pinned by a module-level check), so no dict is built per row."""
        name, brand, sku, kind, price, tags, num_reviews, sum_ratings = values[:_LIST_WIDTH]
        return cls(
            int(product_id),
            name or "",
            brand or "",
            sku or "",
            kind or "",
            _decimal(price),
            [t for t in tags.split(",") if t] if tags else [],
            int(num_reviews) if num_reviews else 0,
            int(sum_ratings) if sum_ratings else 0,
            {n: v for n, v in zip(own, values[_LIST_WIDTH:]) if v is not None} if own else {},
        )


_LIST_WIDTH = len(LIST_FIELDS)
assert LIST_FIELDS == ("name", "brand", "sku", "type", "price", "tags", "num_reviews", "sum_ratings"), (
    "ProductRow.from_values unpacks the list fields in this order"
)


@dataclass(frozen=True)
class Review:
    id: int
    product: int
    author: str
    rating: int
    comment: str
    published_at: float

    @property
    def published(self) -> datetime:
        return datetime.fromtimestamp(self.published_at, UTC)

    @classmethod
    def from_fields(cls, data: dict[str, str], product: int = 0) -> Review:
        """From a review hash (with its id), a page row or an embedded copy."""
        return cls(
            id=int(data["id"]),
            product=int(data.get("product") or product),
            author=data.get("author") or "",
            rating=int(data.get("rating") or 0),
            comment=data.get("comment") or "",
            published_at=float(data.get("published_at") or 0),
        )
