"""Import products (and their reviews) from a JSON file: all of them, or none."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog import store, types
from catalog.documents import Product, sku_key
from catalog.forms import ProductForm, ReviewForm
from catalog.store import NewReview
from config.activity import Actor

BASE_KEYS = {*ProductForm.BASE, *ProductForm.DETAILS, "type", "reviews"}


def snake(name: str) -> str:
    """``batteryLife`` → ``battery_life``; snake_case passes through."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", str(name)).lower()


def _form_value(value):
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return "" if value is None else str(value)


def parse_record(record, now: float) -> tuple[Product, list[NewReview]]:
    """One record, validated by the same forms as the screens; raises ValueError with the reason.

    Reviews are published a second apart, ending at ``now``, in the file's order (the last is newest).
    """
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    data = {snake(k): v for k, v in record.items()}
    kind = types.get(data.get("type") or "")
    if kind is None:
        raise ValueError(f"unknown type {data.get('type')!r}; known: {', '.join(types.TYPES)}")
    unknown = sorted(set(data) - BASE_KEYS - set(kind.field_names))
    if unknown:
        raise ValueError(f"fields not of a {kind.label}: {', '.join(unknown)}")
    fields = {k: _form_value(v) for k, v in data.items() if k != "reviews"}
    if isinstance(data.get("tags"), list):
        fields["tags"] = ",".join(str(t) for t in data["tags"])
    form = ProductForm({**fields, "type": kind.slug}, product_type=kind)
    if not form.is_valid():
        raise ValueError("; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()))
    raw = data.get("reviews") or []
    if not isinstance(raw, list):
        raise ValueError("reviews: not a list")
    parsed = []
    for n, review in enumerate(raw):
        bound = ReviewForm(review if isinstance(review, dict) else {})
        if not bound.is_valid():
            problems = "; ".join(f"{name}: {' '.join(errors)}" for name, errors in bound.errors.items())
            raise ValueError(f"review {n}: {problems}")
        parsed.append(bound.cleaned_data)
    first = now - len(parsed) + 1
    reviews = [NewReview(r["author"], r["rating"], r["comment"], first + i) for i, r in enumerate(parsed)]
    return form.to_product(), reviews


class Command(BaseCommand):
    help = "Import a JSON list of products with their type's fields, tags and reviews; a bad record imports nothing."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        try:
            records = json.loads(file.read_text())
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read {file}: {exc}") from None
        if not isinstance(records, list):
            raise CommandError(f"{file}: expected a JSON list of products")
        items, errors, seen, now = [], [], {}, time.time()
        for index, record in enumerate(records):
            try:
                product, reviews = parse_record(record, now)
            except ValueError as exc:
                errors.append(f"record {index}: {exc}")
                continue
            if sku_key(product.sku) in seen:
                errors.append(f"record {index}: sku {product.sku} repeats record {seen[sku_key(product.sku)]}")
            seen.setdefault(sku_key(product.sku), index)
            items.append((product, reviews))
        if errors:
            raise CommandError("nothing imported:\n" + "\n".join(errors))
        batch = items
        try:
            ids = store.import_products(batch, actor=Actor("import"), at=now)
        except store.SkuTaken as taken:
            message = f"nothing imported: SKU {taken.sku} was taken by product {taken.owner} meanwhile"
            raise CommandError(message) from None
        for product_id, (product, reviews) in zip(ids, batch):
            kind = types.get(product.type)
            self.stdout.write(f"#{product_id} {product.name} ({kind.label}, {product.sku}): {len(reviews)} reviews")
        total = sum(len(r) for _, r in batch)
        self.stdout.write(self.style.SUCCESS(f"Imported {len(ids)} products and {total} reviews from {file}."))
