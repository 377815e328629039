"""The catalog's export format: products (every field a person entered, the type's own fields
under ``attrs``) and reviews, one file each.

Left out and rebuilt by the import: the rating aggregate (num_reviews, sum_ratings), the embedded
three newest reviews, the edit revision, and every index (created, sort, names, SKUs, types,
tags). Each value is checked with the product and review forms' own fields. The import writes
through the bulk writers (``store.restore_products``, ``store.restore_reviews``): products with
their own ids and times, hundreds a script, then the reviews thousands a script with each
product's aggregate, 3 newest and sort scores written at the end, exactly what ``store.create``
and one ``store.add_review`` per review would leave; one event for each entity.
"""

from __future__ import annotations

from functools import cache

from catalog import forms, keys, store, types
from catalog.documents import DESCRIBING, NAMING, Product, sku_key
from config.exchange import store as exchange
from config.exchange.spec import AppExchange, Entity, Record

_BASE = (*NAMING[1:], *DESCRIBING)  # every text field but the type
_FIELDS = forms.ProductForm.base_fields
_REVIEW = forms.ReviewForm.base_fields


def _export_products():
    for pk, row in exchange.documents(exchange.ids(keys.product), {"doc": (keys.product, "hash")}):
        p = Product.from_hash(pk, row["doc"])
        yield {
            "id": pk, "type": p.type, **{name: getattr(p, name) for name in _BASE},
            "price": None if p.price is None else str(p.price), "images": p.images, "videos": p.videos,
            "tags": p.tags, "attrs": p.attrs, "created_at": p.created_at, "updated_at": p.updated_at,
        }  # fmt: skip


@cache
def _type_form_field(field: types.TypeField):
    """A type field's form field, built once: cleaning a value leaves a field as it was."""
    return field.form_field()


def _clean_product(record: Record) -> dict:
    kind = record.choice("type", types.TYPES)
    doc = {"id": record.id(), "type": kind}
    for name in _BASE:
        text = record.text(name, multiline=name == "description")
        doc[name] = (record.form_field(name, _FIELDS[name], text) if text is not None else None) or ""
    price = record.doc.get("price")
    record.read.add("price")
    doc["price"] = record.form_field("price", _FIELDS["price"], None if price is None else str(price))
    for name in ("images", "videos"):
        urls = record.texts(name)
        doc[name] = record.form_field(name, _FIELDS[name], "\n".join(urls or [])) or []
    tags = record.texts("tags")
    doc["tags"] = record.form_field("tags", _FIELDS["tags"], ",".join(tags or [])) or []
    attrs = record.mapping("attrs") or {}
    spec = types.get(kind or "")
    own = {f.name: f for f in spec.fields} if spec else {}
    for name in sorted(set(attrs) - set(own)):
        record.fail(f"attrs.{name}", f"not a field of {kind}")
    doc["attrs"] = {}
    for name, field in own.items():
        value = attrs.get(name)
        record.form_field(f"attrs.{name}", _type_form_field(field), value)
        if value not in (None, ""):
            doc["attrs"][name] = str(value)
    doc["created_at"], doc["updated_at"] = record.number("created_at"), record.number("updated_at")
    if doc["sku"]:
        first = record.state.setdefault("skus", {}).setdefault(sku_key(doc["sku"]), record.where)
        if first != record.where:
            record.fail("sku", f"SKU {doc['sku']} is already used (first at {first})")
    return doc


def _restore_products(docs, writer) -> None:
    # Each doc holds a product's own fields; its revision is what a create, then an edit, leave.
    products = (Product(**doc, rev=1 if doc["updated_at"] == doc["created_at"] else 2) for doc in docs)
    store.restore_products(products, actor=writer.actor)


def _export_reviews():
    for pk, row in exchange.documents(exchange.ids(keys.review), {"doc": (keys.review, "hash")}):
        fields = row["doc"]
        yield {
            "id": pk, "product": int(fields.get("product") or 0), "author": fields.get("author", ""),
            "rating": int(fields.get("rating") or 0), "comment": fields.get("comment", ""),
            "published_at": float(fields.get("published_at") or 0),
        }  # fmt: skip


def _clean_review(record: Record) -> dict:
    author = record.text("author", required=True)
    comment = record.text("comment", multiline=True)
    return {
        "id": record.id(),
        "product": record.ref("product", "products"),
        "author": record.form_field("author", _REVIEW["author"], author) if author else None,
        "rating": record.integer("rating", 0, 5),  # imported sources rate 0-5
        "comment": record.form_field("comment", _REVIEW["comment"], comment) if comment is not None else None,
        "published_at": record.number("published_at"),
    }


def _restore_reviews(docs, writer) -> None:
    reviews = (
        (doc["product"], doc["id"], store.NewReview(doc["author"], doc["rating"], doc["comment"], doc["published_at"]))
        for doc in docs
    )
    exported = max(writer.exported.get("review", 0), writer.highest.get("reviews", 0))
    store.restore_reviews(reviews, actor=writer.actor, exported=exported)


EXCHANGE = AppExchange(
    app="catalog",
    label="The catalog",
    entities=(
        Entity("products", _export_products, _clean_product, _restore_products, key=keys.product),
        Entity("reviews", _export_reviews, _clean_review, _restore_reviews, key=keys.review),
    ),
    counters={entity: keys.ids(entity, 0) for entity in store.ENTITIES},  # their names: see read_counters
    read_counters=store.last_ids,  # each entity's highest id, whatever the partition count
    raise_counters=store.raise_ids,
    counter_keys=store.counter_keys,
)
