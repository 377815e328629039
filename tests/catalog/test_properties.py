"""Stateful property tests of the catalog: products added, edited (fresh and stale), deleted; reviews added and deleted.

Random sequences go through ``catalog.store``; after every step the catalog
invariants hold and a plain model agrees with what Redis returns: each
product's fields, revision, review count, rating sum and embedded newest
three, its review page, the SKU lookup, and the list's totals by type and tag.
"""

from django.test import SimpleTestCase
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from catalog import store
from catalog.documents import Product
from config.activity import Actor
from config.invariants import violations
from tests.base import RedisMixin, flush_test_redis

PICK = st.integers(0, 10**6)
SKUS = st.sampled_from(["A-1", "B-2", "C-3", "D.4", "e_5"])
TAGS = st.lists(st.sampled_from(["wireless", "budget", "gaming", "kitchen"]), unique=True, max_size=3)
KINDS = st.sampled_from(
    [("appliance", {"power_watts": "2200", "energy_class": "A"}), ("earbuds", {"battery_life": "8", "fit": "in-ear"})]
)
NAMES = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=30).map(
    lambda text: text.strip() or "x"
)
PROP = Actor("prop")
BOUNDED = hypothesis_settings(max_examples=12, stateful_step_count=25, deadline=None)


class Catalog(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        flush_test_redis()
        self.clock = 1_800_000_000.0
        self.model: dict[int, dict] = {}  # id -> name, sku, type, tags, rev, reviews [(id, rating)] newest first

    def tick(self) -> float:
        self.clock += 1
        return self.clock

    def pick(self, n: int) -> int:
        ids = sorted(self.model)
        return ids[n % len(ids)]

    def owner(self, sku: str) -> int | None:
        return next((pk for pk, p in self.model.items() if p["sku"].casefold() == sku.casefold()), None)

    @rule(name=NAMES, sku=SKUS, kind=KINDS, tags=TAGS)
    def add(self, name, sku, kind, tags):
        slug, attrs = kind
        product = Product(type=slug, name=name, brand="Acme", sku=sku, tags=tags, attrs=dict(attrs))
        pk = store.new_product_id()
        try:
            store.create(pk, product, actor=PROP, at=self.tick())
        except store.SkuTaken:
            assert self.owner(sku) is not None
            return
        assert self.owner(sku) is None
        self.model[pk] = {"name": name, "sku": sku, "type": slug, "tags": tags, "rev": 1, "reviews": []}

    @precondition(lambda self: self.model)
    @rule(which=PICK, name=NAMES, sku=SKUS, kind=KINDS, tags=TAGS, stale=st.booleans())
    def edit(self, which, name, sku, kind, tags, stale):
        pk = self.pick(which)
        current = self.model[pk]
        rev = current["rev"] - 1 if stale else current["rev"]
        slug, attrs = kind
        product = Product(type=slug, name=name, brand="Acme", sku=sku, tags=tags, attrs=dict(attrs))
        try:
            store.update(pk, product, rev, actor=PROP, at=self.tick())
        except store.EditConflict:
            assert stale
            return
        except store.SkuTaken:
            assert not stale and self.owner(sku) not in (None, pk)
            return
        assert not stale and self.owner(sku) in (None, pk)
        current.update(name=name, sku=sku, type=slug, tags=tags, rev=current["rev"] + 1)

    @precondition(lambda self: self.model)
    @rule(which=PICK, rating=st.integers(1, 5), author=NAMES)
    def review(self, which, rating, author):
        pk = self.pick(which)
        review_id = store.add_review(pk, author, rating, "", actor=PROP, at=self.tick())
        self.model[pk]["reviews"].insert(0, (review_id, rating))

    @precondition(lambda self: any(p["reviews"] for p in self.model.values()))
    @rule(which=PICK)
    def unreview(self, which):
        reviewed = sorted(pk for pk, p in self.model.items() if p["reviews"])
        reviews = self.model[reviewed[which % len(reviewed)]]["reviews"]
        review_id, _ = reviews.pop(which % len(reviews))
        store.delete_review(review_id, actor=PROP)

    @precondition(lambda self: self.model)
    @rule(which=PICK)
    def delete(self, which):
        pk = self.pick(which)
        store.delete(pk, actor=PROP)
        reviews = self.model.pop(pk)["reviews"]
        assert store.get(pk) is None
        assert all(store.get_review(review_id) is None for review_id, _ in reviews)
        try:
            store.delete(pk, actor=PROP)
        except store.NotFound:
            return
        raise AssertionError("a deleted product was deleted again")

    @invariant()
    def the_catalog_invariants_hold(self):
        assert violations(["catalog"]) == []

    @invariant()
    def redis_agrees_with_the_model(self):
        for pk, expected in self.model.items():
            product = store.get(pk)
            assert (product.name, product.sku, product.type, product.rev) == (
                expected["name"],
                expected["sku"],
                expected["type"],
                expected["rev"],
            )
            assert sorted(product.tags) == sorted(expected["tags"])
            assert product.num_reviews == len(expected["reviews"])
            assert product.sum_ratings == sum(rating for _, rating in expected["reviews"])
            assert [r.id for r in product.recent] == [rid for rid, _ in expected["reviews"][:3]]
            page = store.review_page(pk, 0, 100)
            assert [(r.id, r.rating) for r in page.reviews] == expected["reviews"]
            assert store.sku_owner(expected["sku"]) == pk
        listed = store.list_products(store.ProductQuery(limit=100))
        assert listed.total == len(self.model)
        for tag in ("wireless", "kitchen"):
            tagged = store.list_products(store.ProductQuery(tags_all=(tag,), limit=100))
            assert tagged.total == sum(tag in p["tags"] for p in self.model.values())
        typed = store.list_products(store.ProductQuery(type="earbuds", limit=100))
        assert typed.total == sum(p["type"] == "earbuds" for p in self.model.values())


class CatalogPropertiesTest(RedisMixin, SimpleTestCase):
    def test_products_and_reviews_follow_the_model(self):
        run_state_machine_as_test(Catalog, settings=BOUNDED)
