"""The catalog's invariants: every derived value agrees with its source of truth.

Sources of truth: the product hashes and the review hashes with each product's review set. Derived: the embed
and the aggregate on each product (checked with the shared machinery's ``aggregate`` and ``expected_embed``),
the sort, search, SKU, type and tag indexes, each type's creation index, and the tag cloud's counts.
"""

from __future__ import annotations

from catalog import keys, store, types
from catalog.store import REVIEWS, checks
from config.invariants import Violation, gram_drift, invariant
from config.store import batched


def _product_chunks():
    """Products, 500 a round trip."""
    for chunk in batched(checks.iter_product_ids()):
        yield list(checks.products_by_id(chunk).values())


def _of_reviews(product_id: int | str, message: str) -> Violation:
    """A product's review-derived field that disagrees with its reviews: its hash and its review set."""
    return Violation(f"product {product_id}: {message}", [keys.product(product_id), keys.product_reviews(product_id)])


def _count_violations():
    """num_reviews against ZCARD, 500 products a round trip."""
    for chunk in batched(checks.iter_product_ids()):
        for product_id, (stored, actual) in checks.review_counts(chunk).items():
            if stored != actual:
                yield product_id, _of_reviews(product_id, f"num_reviews is {stored}, its review set holds {actual}")


def _sum_violations():
    for products in _product_chunks():
        totals = REVIEWS.aggregates([p.id for p in products])
        for product in products:
            stored, (_, total) = product.sum_ratings, totals[product.id]
            if stored != total:
                yield product.id, _of_reviews(product.id, f"sum_ratings is {stored}, its reviews sum to {total}")


def _repairing(found):
    """A repair that rebuilds the review-derived fields of every product ``found`` names."""

    def repair():
        for product_id in sorted({product_id for product_id, _ in found()}):
            REVIEWS.repair(product_id)

    return repair


@invariant("catalog", "num_reviews equals the ZCARD of the product's review set", repair=_repairing(_count_violations))
def review_counts():
    yield from (violation for _, violation in _count_violations())


@invariant("catalog", "sum_ratings equals the sum of the product's review ratings", repair=_repairing(_sum_violations))
def rating_sums():
    yield from (violation for _, violation in _sum_violations())


def _wrong_embeds():
    """(product, the embed it should hold) wherever recent_reviews is not the 3 newest."""
    for products in _product_chunks():
        expected = REVIEWS.expected_embeds([p.id for p in products])
        for product in products:
            if product.recent_reviews != expected[product.id]:
                yield product, expected[product.id]


def _repair_embeds():
    for product, _ in list(_wrong_embeds()):
        REVIEWS.repair(product.id)


@invariant("catalog", "recent_reviews holds the 3 newest reviews", repair=_repair_embeds)
def recent_reviews():
    for product, expected in _wrong_embeds():
        held, newest = [item.get("id") for item in product.recent_reviews], [item["id"] for item in expected]
        yield _of_reviews(product.id, f"recent_reviews holds {held}, the newest are {newest}")


def _index_violations_of(products):
    entries = checks.index_entries(products)
    for product in products:
        found, member, p = entries[product.id], str(product.id), keys.partition_of(product.id)
        if found.created is None:
            yield Violation(f"product {product.id} is missing from the product index", [keys.products(p)])
        for name, score in checks.expected_scores(product).items():
            held = found.scores[name]
            if held is None or abs(held - score) > 1e-6:
                yield Violation(
                    f"product {product.id}: {name} index holds {held}, expected {score}", [keys.sort_index(name, p)]
                )
        if found.lex is None:
            yield Violation(f"product {product.id}: name {product.name!r} is not in the name index", [keys.names(p)])
        if product.sku and found.sku_owner != member:
            yield Violation(f"product {product.id}: SKU {product.sku} points to {found.sku_owner}", [keys.skus()])
        if not found.in_type:
            yield Violation(f"product {product.id} is missing from its type set", [keys.type_index(product.type, p)])
        for tag, present in found.tags.items():
            if not present:
                yield Violation(f"product {product.id} is missing from tag set {tag!r}", [keys.tag_index(tag, p)])


def _held_by_indexes() -> tuple[dict[str, checks.Held], list[Violation]]:
    """What the indexes hold, per product id, in one pass; and the entries in another partition."""
    held: dict[str, checks.Held] = {}
    misplaced = []
    for p, kind, value, product_id in checks.index_members():
        if p >= 0 and product_id.isdigit() and keys.partition_of(product_id) != p:
            misplaced.append(Violation(f"partition {p}'s {kind} index holds product {product_id} of another partition"))
            continue
        entry = held.setdefault(product_id, checks.Held())
        if kind == "type":
            entry.types.add(value)
        elif kind == "tag":
            entry.tags.add(value)
        elif kind == "name":
            entry.names += 1
        elif kind == "sku":
            entry.skus += 1
    return held, misplaced


def _reverse_violations():
    """Index entries naming a product that is gone, or a type, tag, name or SKU it no longer has."""
    held, misplaced = _held_by_indexes()
    yield from misplaced
    for chunk in batched(sorted(held), 1000):
        alive = checks.products_by_id([int(i) for i in chunk])
        for product_id in chunk:
            entry, product = held[product_id], alive.get(int(product_id))
            if product is None:
                yield Violation(f"the indexes hold product {product_id}, which does not exist", [])
                continue
            if entry.types != ({product.type} if product.type else set()):
                held_types = sorted(entry.types)
                yield Violation(f"product {product_id} is in type sets {held_types}, its type is {product.type}")
            if entry.tags != set(product.tags):
                yield Violation(
                    f"product {product_id} is in tag sets {sorted(entry.tags)}, it carries {sorted(product.tags)}"
                )
            if entry.names != 1:
                yield Violation(
                    f"product {product_id} has {entry.names} entries in the name index",
                    [keys.names(keys.partition_of(product_id))],
                )
            if entry.skus != (1 if product.sku else 0):
                yield Violation(f"product {product_id} owns {entry.skus} SKUs in the SKU index", [keys.skus()])


@invariant("catalog", "every index and tag set agrees with the product hashes", repair=checks.rebuild_indexes)
def indexes_agree():
    for products in _product_chunks():
        yield from _index_violations_of(products)
    yield from _reverse_violations()
    for p in keys.partitions():
        cloud, sizes = checks.tag_counts(p)
        for tag in sorted(set(cloud) | set(sizes)):
            if cloud.get(tag, 0) != sizes.get(tag, 0):
                yield Violation(
                    f"tag {tag!r}: the tag cloud counts {cloud.get(tag, 0)}, its set holds {sizes.get(tag, 0)}",
                    [keys.tags(p), keys.tag_index(tag, p)],
                )


def _type_created_violations():
    """Each product scored by its creation time in its own type's creation index and in no other; then
    every id those indexes hold names a product."""
    seen: set[str] = set()
    for chunk in batched(checks.iter_product_ids()):
        for product_id, entry in checks.type_entries(chunk).items():
            seen.add(str(product_id))
            for (p, slug), held in entry.scores.items():
                key = keys.type_created(slug, p)
                if slug != entry.type or p != keys.partition_of(product_id):
                    if held is not None:
                        message = f"product {product_id} is of type {entry.type}, the {slug} creation index holds it"
                        yield Violation(message, [key])
                elif held is None:
                    yield Violation(f"product {product_id} is missing from the {slug} creation index", [key])
                elif abs(held - entry.created_at) > 1e-6:
                    yield Violation(
                        f"product {product_id}: the {slug} creation index scores it {held}, "
                        f"it was created at {entry.created_at}",
                        [key, keys.product(product_id)],
                    )
    for p in keys.partitions():
        for slug in types.TYPES:
            for member in checks.type_created_members(slug, p):
                if member not in seen:
                    yield Violation(
                        f"the {slug} creation index holds product {member}, which does not exist",
                        [keys.type_created(slug, p)],
                    )


@invariant(
    "catalog",
    "each type's creation index holds exactly that type's products, scored by creation time",
    repair=checks.rebuild_indexes,
)
def type_creation_indexes():
    yield from _type_created_violations()


def _dangling():
    """(product id, review id, why) for every review reference or review hash that dangles."""
    for product_id, review_ids in checks.review_sets():
        for review_id in checks.missing_reviews(review_ids):
            yield product_id, review_id, "set"
    for chunk in batched(checks.iter_review_ids(), 1000):
        for review_id, (owner, listed) in checks.review_links(chunk).items():
            if not owner or not listed:
                yield owner, review_id, "hash"


def _repair_dangling():
    for product_id, review_id, where in list(_dangling()):
        if where == "set":
            checks.drop_review_refs(product_id, [review_id])
        else:
            checks.drop_orphan_review(int(review_id))


@invariant("catalog", "no review id dangles", repair=_repair_dangling)
def no_dangling_reviews():
    for product_id, review_id, where in _dangling():
        if where == "set":
            yield Violation(
                f"product {product_id}'s review set lists review {review_id}, which has no hash",
                [keys.product_reviews(product_id), keys.review(review_id)],
            )
        else:
            yield Violation(
                f"review {review_id} names product {product_id}, whose review set does not list it",
                [keys.review(review_id)],
            )


@invariant(
    "catalog",
    "the name index holds each product under exactly the pieces and words of its name",
    repair=checks.rebuild_name_grams,
)
def name_trigrams():
    for p, (missing, extra) in checks.name_gram_drift().items():
        yield from gram_drift("product", "name", missing, extra, store.NAMES[p].piece_key, _too_long)


def _too_long(piece: str) -> str:
    return piece or "(a word too long to keep)"


@invariant(
    "catalog",
    "the vocabulary holds exactly the words of four characters or more of the names",
    repair=checks.rebuild_name_grams,
)
def name_vocabulary():
    """A word missing is a search that misses every name holding it; an extra one, a word no name holds."""
    for p, (missing, extra) in checks.vocabulary_drift().items():
        for words, verb, which in ((missing, "lacks", "names hold"), (extra, "holds", "no name holds")):
            if words:
                message = f"the vocabulary {verb} the words {sorted(words)[:5]} ({len(words)} in all), which {which}"
                yield Violation(message, [keys.vocabulary(p)])


@invariant("catalog", "every product is where its id puts it under CATALOG_PARTITIONS")
def partition_layout():
    """Data written with another partition count is told, never moved (export and import move it)."""
    for key in checks.misplaced_products():
        yield Violation(
            f"{key} is laid out for another partition count than CATALOG_PARTITIONS={keys.PARTITIONS}: "
            "set the count the data was written with, or export it and import it with the new one",
            [key],
        )
