"""Import products (and their reviews) from a JSON file: all of them, or none."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog import importing, store, types
from config.activity import Actor


class Command(BaseCommand):
    help = (
        "Import a JSON list of products: the e-book's polymorphic-pattern file (a type in any spelling, "
        "camelCase or snake_case fields, values such as '8 hours' or 'In-ear') or its aggregate-pattern file "
        "(products by name with their reviews). Reports what it normalized; any record it cannot read "
        "imports nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true", help="Check and report, write nothing.")

    def handle(self, *args, file: Path, dry_run: bool = False, **options):
        try:
            records = importing.read_records(file.read_bytes())
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror or exc}") from None
        except importing.Unreadable as exc:
            raise CommandError(f"{file}: {exc}; nothing imported") from None
        now = time.time()
        plan = importing.plan(records, now)
        if plan.problems:
            lines = [str(p) for p in plan.problems]
            raise CommandError(f"nothing imported: {len(lines)} problem(s) in {file}\n" + "\n".join(lines))
        if plan.rewrites:
            self.stdout.write("Normalized:")
            for line in plan.rewrite_lines():
                self.stdout.write(f"  {line}")
        if dry_run:
            self.stdout.write(f"Would import {len(plan.items)} products and {plan.reviews} reviews (dry run).")
            return
        try:
            ids = store.import_products(plan.items, actor=Actor("import"), at=now)
        except store.SkuTaken as taken:
            raise CommandError(f"nothing imported: sku: {taken.message}") from None
        for product_id, (product, reviews) in zip(ids, plan.items):
            kind = types.get(product.type)
            about = ", ".join(part for part in (kind.label if kind else "no type", product.sku) if part)
            self.stdout.write(f"#{product_id} {product.name} ({about}): {len(reviews)} reviews")
        self.stdout.write(self.style.SUCCESS(f"Imported {len(ids)} products and {plan.reviews} reviews from {file}."))
