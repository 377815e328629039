"""The catalog in the benchmark: products with reviews, against products, details, images, reviews.

Redis (the embedded pattern, the aggregate pattern and the polymorphic
pattern): a product is one hash holding its details, images, its 3 newest
reviews and its review aggregate, and sorted indexes order the list. A review
write keeps all of that current. SQL (``benchmark_sql``): the normalized tables,
nothing derived; the aggregate and the newest three are computed at read time.
"""

from __future__ import annotations

import random
from collections import Counter
from urllib.parse import quote

from catalog import benchmark_sql as sql
from catalog import keys, seeds, types
from catalog import store as catalog
from catalog.documents import tag_slug
from config.activity import Actor
from config.benchmark import Load, Operation, Part, part
from config.benchmark.sql import timed_load
from config.seeding import SEED_EPOCH
from config.store.ngramtext import words

SIZES = {"tiny": (30, 4), "demo": (2_000, 10), "large": (100_000, 10)}  # products, reviews per product (average)
BATCH = 200  # products (with their reviews) per script, as the seeder
RATING_FIELDS = ("name", "brand", "price", "num_reviews", "sum_ratings")
TYPE = "phone"
BENCH = Actor("bench", link=lambda entity, pk: f"/catalog/products/{pk}/" if entity == "product" else "")
MEMORY_PROBE = 5_000  # products written without reviews, to tell a product's bytes from a review's


@part("catalog", order=10)
class Catalog(Part):
    dba_schema = sql.DBA_SCHEMA
    schema = sql.SCHEMA + "".join(
        f"CREATE TABLE {sql.type_table(t.slug)} (product_id INTEGER PRIMARY KEY REFERENCES products (id), "
        + ", ".join(f"{f.name} TEXT" for f in t.fields)
        + ");\n"
        for t in types.TYPES.values()
    )

    def generate(self) -> None:
        count, per_product = SIZES[self.scale]
        rng = random.Random(f"bench:{self.scale}:catalog")
        now = SEED_EPOCH.timestamp()
        self.now = now
        self.products = []
        for n in range(1, count + 1):
            product = seeds._product(rng, n, now - (count - n) * 60)
            self.products.append((product, seeds._reviews(rng, rng.randint(0, 2 * per_product), now)))
        self.reviews = sum(len(r) for _, r in self.products)

    @property
    def detail(self) -> int:
        """A product in the middle with at least 3 reviews, so the embed is full (ids are given by the load)."""
        middle = self.products[len(self.products) // 2 :] + self.products
        return next(p.id for p, reviews in middle if len(reviews) >= 3)

    def records(self) -> dict[str, int]:
        return {"products": len(self.products), "reviews": self.reviews}

    @classmethod
    def sql_texts(cls, dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
        return {
            "1": {"postgres": (sql.COUNT_PRODUCTS, sql.LIST_BY_RATING), "dba": (sql.DBA_LIST_BY_RATING,)},
            "2": {"postgres": sql.DETAIL, "dba": (sql.DBA_DETAIL,)},
            "3": {"postgres": sql.of_type_sql(TYPE), "dba": (sql.dba_of_type_sql(TYPE),)},
        }

    # -- loading

    def _write(self, items) -> None:
        catalog.write_batches(items, actor=BENCH, at=items[0][0].created_at, batch=BATCH)

    def load_redis(self, run) -> list[Load]:
        probe = [(product, []) for product, _ in self.products[:MEMORY_PROBE]]
        run.flush()
        per_product = run.timed("probe", len(probe), lambda: self._write(probe)).bytes / max(1, len(probe))
        run.flush()
        done = run.timed("catalog", len(self.products) + self.reviews, lambda: self._write(self.products))
        reviews_bytes = done.bytes - per_product * len(self.products)
        done.per_record = {"product": per_product, "review": reviews_bytes / max(1, self.reviews)}
        first = keys.id_in(0, 1)  # a bulk write into an empty catalog hands out the ids that follow it
        assert [p.id for p, _ in self.products] == list(range(first, first + len(self.products))), "Redis was not empty"
        return [done]

    def load_sql(self, db) -> list[Load]:
        products = self.products

        def write():
            db.insert(
                "products",
                (
                    (p.id, p.type, p.name, p.brand, p.sku, p.model, sql.cents(p.price), p.created_at)
                    for p, _ in products
                ),
            )
            db.insert(
                "product_details",
                ((p.id, p.description, p.manufacturer, p.dimensions, p.weight, p.image) for p, _ in products),
            )
            db.insert("product_images", ((p.id, i, url) for p, _ in products for i, url in enumerate(p.images)))
            review_ids = catalog.ids_in_an_empty_catalog([len(rs) for _, rs in products]).review_ids
            db.insert(
                "product_reviews",
                (
                    (review_id, p.id, r.author, r.rating, r.comment, r.at)
                    for (p, rs), ids in zip(products, review_ids)
                    for review_id, r in zip(ids, rs)
                ),
            )  # the ids Redis gave them
            for kind in types.TYPES.values():
                names = kind.field_names
                db.insert(
                    sql.type_table(kind.slug),
                    ((p.id, *(p.attrs.get(n) for n in names)) for p, _ in products if p.type == kind.slug),
                )

        return [timed_load(db, "catalog", len(products) + self.reviews, write)]

    # -- the questions

    def operations(self, runs: int) -> list[Operation]:
        product, at = self.detail, self.now
        catalog.reserve_review_ids()  # the process's block of review ids, drawn once as a running server has it
        return [
            Operation("1", "product list by average rating, with counts", lambda n: list_by_rating(),
                      lambda db, n: sql.sql_list_by_rating(db), lambda a, n: sql.orm_list_by_rating(a),
                      dba=lambda db, n: sql.dba_list_by_rating(db)),
            Operation("2", "product detail with its 3 newest reviews", lambda n: detail(product),
                      lambda db, n: sql.sql_detail(db, product), lambda a, n: sql.orm_detail(a, product),
                      dba=lambda db, n: sql.dba_detail(db, product)),
            Operation("3", f"products of one type ({TYPE}) with its fields", lambda n: of_type(TYPE),
                      lambda db, n: sql.sql_of_type(db, TYPE), lambda a, n: sql.orm_of_type(a, TYPE),
                      dba=lambda db, n: sql.dba_of_type(db, TYPE)),
            Operation(
                "9", "add a review with all its derived data",
                lambda n: add_review(product, n, at + n),
                lambda db, n: sql.sql_add_review(db, product, n, at + n),
                lambda a, n: sql.orm_add_review(a, product, n, at + n),
                dba=lambda db, n: sql.dba_add_review(db, product, n, at + n),
                check=Operation("9", "read back", lambda n: _added(detail(product)),
                                lambda db, n: _added(sql.sql_detail(db, product)),
                                lambda a, n: _added(sql.orm_detail(a, product)),
                                dba=lambda db, n: _added(sql.dba_detail(db, product))),
                write=True,
            ),
        ]  # fmt: skip

    @property
    def common_tag(self) -> str:
        """The tag most products carry: the broadest one-tag filter, whose chips count the most."""
        counts = Counter(tag_slug(tag) for product, _ in self.products for tag in product.tags)
        return min(counts, key=lambda tag: (-counts[tag], tag))

    def common_word(self, shortest: int) -> str:
        """The word of ``shortest`` letters or more that most products' names hold: the broadest search
        of such words (of three, a word may be one piece, whose set the list reads as a tag's; of four or
        more, the candidates are its pieces' intersection, each name checked)."""
        counts = Counter(
            word for product, _ in self.products for word in set(words(product.name)) if len(word) >= shortest
        )
        return min(counts, key=lambda word: (-counts[word], word))

    def pages(self) -> list[tuple[str, str]]:
        return [
            ("list", "/catalog/products/?o=-rating"),
            ("filtered", f"/catalog/products/?tags_all={quote(self.common_tag)}"),  # live counts: a second round trip
            ("search", f"/catalog/products/?q={quote(self.common_word(3))}"),  # the search, then the list
            ("long search", f"/catalog/products/?q={quote(self.common_word(4))}"),
            ("detail", f"/catalog/products/{self.detail}/"),
        ]

    def spread_writes(self):
        """A review of product n (every product in turn): on a cluster, writes that spread as the
        catalog's partitions do (``CATALOG_PARTITIONS``, docs/cluster.md)."""
        ids, at = [product.id for product, _ in self.products], self.now
        return [("add a review to product n", lambda n: add_review(ids[n % len(ids)], n, at + n))]


def _added(shown: tuple) -> tuple:
    """A product's detail with the ids of the reviews the benchmark added left out: each store gives its
    own (Redis one of the product's partition's block, SQL the next of its sequence), which agree only
    with one partition."""
    *head, recent = shown
    return (*head, [(None if author.startswith("bench") else pk, author, *rest) for pk, author, *rest in recent])


# --- Redis: the screens' own reads and writes -----------------------------------------------


def list_by_rating() -> tuple:
    """1. The list sorted by average rating: the aggregate pattern's sort index joined to the fields the
    question asks (name, brand, price and the aggregate), one round trip (``product_page``)."""
    total, rows = catalog.product_page(RATING_FIELDS, order="-rating", limit=sql.PAGE)
    return total, [_rating_row(*row) for row in rows]


def _rating_row(pk: str, name: str, brand: str, price: str, count: str, ratings: str) -> tuple:
    n = int(count or 0)
    return int(pk), name, brand, sql.price_cents(price), n, int(ratings) / n if n else None


def detail(product_id: int) -> tuple:
    """2. A product with its details, images, aggregate and 3 newest reviews: one HGETALL."""
    p = catalog.get(product_id)
    recent = [(r.id, r.author, r.rating, r.comment, r.published_at) for r in p.recent]
    return (
        p.name,
        p.brand,
        sql.cents(p.price),
        p.description,
        p.manufacturer,
        p.images,
        p.num_reviews,
        p.average,
        recent,
    )


def of_type(slug: str) -> tuple:
    """3. The newest products of one type with the type's own fields (polymorphic): a page of the type's
    creation index joined to the name and those fields, one round trip (``product_page``)."""
    total, rows = catalog.product_page(("name", *types.TYPES[slug].field_names), type=slug, limit=sql.PAGE)
    return total, [(int(row[0]), row[1], [value or "" for value in row[2:]]) for row in rows]


def add_review(product_id: int, n: int, at: float) -> int:
    """9. A review with everything derived from it (embed, aggregate, sort indexes, event): one script,
    its id from the process's block (one INCRBY every 100 reviews)."""
    review = (product_id, f"bench{n % 7}", 1 + n % 5, f"Benchmark review {n}.")
    return catalog.add_review(*review, actor=BENCH, at=at)
