"""The catalog in the benchmark: products with reviews, against products, details, images, reviews.

Redis (the embedded pattern, the aggregate pattern and the polymorphic
pattern): a product is one hash holding its details, images, its 3 newest
reviews and its review aggregate, and sorted indexes order the list. A review
write keeps all of that current. SQL: the normalized tables, nothing derived;
the aggregate and the newest three are computed at read time.
"""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal
from urllib.parse import quote

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
PAGE = 25
RATING_FIELDS = ("name", "brand", "price", "num_reviews", "sum_ratings")
TYPE = "phone"
BENCH = Actor("bench", link=lambda entity, pk: f"/catalog/products/{pk}/" if entity == "product" else "")
MEMORY_PROBE = 5_000  # products written without reviews, to tell a product's bytes from a review's

SCHEMA = """
CREATE TABLE products (
    id INTEGER PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL, brand TEXT NOT NULL,
    sku TEXT NOT NULL UNIQUE, model TEXT, price_cents INTEGER, created_at {real} NOT NULL);
CREATE INDEX products_type_created ON products (type, created_at);
CREATE TABLE product_details (
    product_id INTEGER PRIMARY KEY REFERENCES products (id), description TEXT, manufacturer TEXT,
    dimensions TEXT, weight TEXT, image TEXT);
CREATE TABLE product_images (
    product_id INTEGER NOT NULL REFERENCES products (id), position INTEGER NOT NULL, url TEXT NOT NULL,
    PRIMARY KEY (product_id, position)) {without_rowid};
CREATE TABLE product_reviews (
    id {pk}, product_id INTEGER NOT NULL REFERENCES products (id), author TEXT NOT NULL,
    rating INTEGER NOT NULL, comment TEXT NOT NULL, published_at {real} NOT NULL);
CREATE INDEX product_reviews_newest ON product_reviews (product_id, published_at);
CREATE INDEX product_reviews_rating ON product_reviews (product_id, rating);
"""


# The DBA's precomputation, as the Redis model keeps it: each product's review count and rating sum (the
# aggregate pattern), the product counts (Redis's set sizes), kept by triggers in the writing statement's
# transaction; and the indexes that give each read's order, ties as Redis orders its members (as text).
DBA_SCHEMA = """
ALTER TABLE products ADD COLUMN num_reviews INTEGER NOT NULL DEFAULT 0,
                     ADD COLUMN sum_ratings BIGINT NOT NULL DEFAULT 0;
UPDATE products p SET num_reviews = r.n, sum_ratings = r.total
  FROM (SELECT product_id, COUNT(*) AS n, SUM(rating) AS total FROM product_reviews GROUP BY product_id) r
 WHERE r.product_id = p.id;
CREATE INDEX products_by_rating ON products (
    (CASE WHEN num_reviews > 0 THEN sum_ratings::float8 / num_reviews ELSE 0 END) DESC, (id::text) DESC);
CREATE INDEX product_reviews_newest_first ON product_reviews (product_id, published_at DESC, (id::text) DESC);
CREATE TABLE product_counts (type TEXT PRIMARY KEY, products INTEGER NOT NULL);  -- '' is the whole catalog
INSERT INTO product_counts SELECT type, COUNT(*) FROM products GROUP BY type;
INSERT INTO product_counts SELECT '', COUNT(*) FROM products;

CREATE FUNCTION product_reviews_aggregate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE products SET num_reviews = num_reviews + 1, sum_ratings = sum_ratings + NEW.rating
         WHERE id = NEW.product_id;
        RETURN NEW;
    END IF;
    UPDATE products SET num_reviews = num_reviews - 1, sum_ratings = sum_ratings - OLD.rating
     WHERE id = OLD.product_id;
    RETURN OLD;
END $$;
CREATE TRIGGER product_reviews_aggregate AFTER INSERT OR DELETE ON product_reviews
    FOR EACH ROW EXECUTE FUNCTION product_reviews_aggregate();

CREATE FUNCTION product_counts_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO product_counts VALUES (NEW.type, 1)
            ON CONFLICT (type) DO UPDATE SET products = product_counts.products + 1;
        UPDATE product_counts SET products = products + 1 WHERE type = '';
        RETURN NEW;
    END IF;
    UPDATE product_counts SET products = products - 1 WHERE type IN (OLD.type, '');
    RETURN OLD;
END $$;
CREATE TRIGGER product_counts_kept AFTER INSERT OR DELETE ON products
    FOR EACH ROW EXECUTE FUNCTION product_counts_kept();
"""


def _type_table(slug: str) -> str:
    return f"product_{slug}"  # slugs come from the type registry, never from input


def _cents(price) -> int | None:
    return None if price is None else int(price * 100)


def _price_cents(text: str) -> int | None:
    """A stored price ("19.99", "" when unset) in cents, as the SQL side holds it."""
    return int(Decimal(text) * 100) if text else None


# --- the SQL each side sends, one source for the benchmark and the screens' "In SQL" twins ----------

COUNT_PRODUCTS = "SELECT COUNT(*) FROM products"
LIST_BY_RATING = """SELECT p.id, p.name, p.brand, p.price_cents, COUNT(r.rating), AVG(r.rating)
FROM products p LEFT JOIN product_reviews r ON r.product_id = p.id
GROUP BY p.id
ORDER BY COALESCE(AVG(r.rating), 0) DESC, CAST(p.id AS TEXT) DESC
LIMIT ?"""
DETAIL = (
    """SELECT p.name, p.brand, p.price_cents, d.description, d.manufacturer
FROM products p JOIN product_details d ON d.product_id = p.id WHERE p.id = ?""",
    "SELECT url FROM product_images WHERE product_id = ? ORDER BY position",
    "SELECT COUNT(*), AVG(rating) FROM product_reviews WHERE product_id = ?",
    """SELECT id, author, rating, comment, published_at FROM product_reviews WHERE product_id = ?
ORDER BY published_at DESC, CAST(id AS TEXT) DESC LIMIT 3""",
)


def of_type_sql(slug: str) -> tuple[str, str]:
    """The count and the page of one type JOIN that type's own table."""
    columns = ", ".join(f"t.{name}" for name in types.get(slug).field_names)
    page = f"""SELECT p.id, p.name, {columns}
FROM products p JOIN {_type_table(slug)} t ON t.product_id = p.id
WHERE p.type = ? ORDER BY p.created_at DESC LIMIT ?"""
    return "SELECT COUNT(*) FROM products WHERE type = ?", page


_AVERAGE = "CASE WHEN p.num_reviews > 0 THEN p.sum_ratings::float8 / p.num_reviews"
DBA_LIST_BY_RATING = f"""SELECT c.products, p.id, p.name, p.brand, p.price_cents, p.num_reviews, {_AVERAGE} END
FROM product_counts c CROSS JOIN products p WHERE c.type = ''
ORDER BY ({_AVERAGE} ELSE 0 END) DESC, (p.id::text) DESC LIMIT ?"""
DBA_DETAIL = f"""SELECT p.name, p.brand, p.price_cents, d.description, d.manufacturer,
       ARRAY(SELECT url FROM product_images WHERE product_id = p.id ORDER BY position),
       p.num_reviews, {_AVERAGE} END,
       (SELECT COALESCE(json_agg(json_build_array(id, author, rating, comment, published_at)
                                 ORDER BY published_at DESC, id::text DESC), '[]')
          FROM (SELECT id, author, rating, comment, published_at FROM product_reviews
                 WHERE product_id = p.id ORDER BY published_at DESC, id::text DESC LIMIT 3) r)
FROM products p JOIN product_details d ON d.product_id = p.id WHERE p.id = ?"""


def dba_of_type_sql(slug: str) -> str:
    """The type's count from its row beside the newest page of the type JOIN its own table."""
    columns = ", ".join(f"t.{name}" for name in types.get(slug).field_names)
    return f"""SELECT c.products, p.id, p.name, {columns}
FROM product_counts c JOIN products p ON p.type = c.type
JOIN {_type_table(slug)} t ON t.product_id = p.id
WHERE c.type = ? ORDER BY p.created_at DESC LIMIT ?"""


@part("catalog", order=10)
class Catalog(Part):
    dba_schema = DBA_SCHEMA
    schema = SCHEMA + "".join(
        f"CREATE TABLE {_type_table(t.slug)} (product_id INTEGER PRIMARY KEY REFERENCES products (id), "
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
            "1": {"postgres": (COUNT_PRODUCTS, LIST_BY_RATING), "dba": (DBA_LIST_BY_RATING,)},
            "2": {"postgres": DETAIL, "dba": (DBA_DETAIL,)},
            "3": {"postgres": of_type_sql(TYPE), "dba": (dba_of_type_sql(TYPE),)},
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
                ((p.id, p.type, p.name, p.brand, p.sku, p.model, _cents(p.price), p.created_at) for p, _ in products),
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
                    _type_table(kind.slug),
                    ((p.id, *(p.attrs.get(n) for n in names)) for p, _ in products if p.type == kind.slug),
                )

        return [timed_load(db, "catalog", len(products) + self.reviews, write)]

    # -- the questions

    def operations(self, runs: int) -> list[Operation]:
        product, at = self.detail, self.now
        catalog.reserve_review_ids()  # the process's block of review ids, drawn once as a running server has it
        return [
            Operation("1", "product list by average rating, with counts", lambda n: list_by_rating(),
                      lambda db, n: sql_list_by_rating(db), lambda a, n: orm_list_by_rating(a),
                      dba=lambda db, n: dba_list_by_rating(db)),
            Operation("2", "product detail with its 3 newest reviews", lambda n: detail(product),
                      lambda db, n: sql_detail(db, product), lambda a, n: orm_detail(a, product),
                      dba=lambda db, n: dba_detail(db, product)),
            Operation("3", f"products of one type ({TYPE}) with its fields", lambda n: of_type(TYPE),
                      lambda db, n: sql_of_type(db, TYPE), lambda a, n: orm_of_type(a, TYPE),
                      dba=lambda db, n: dba_of_type(db, TYPE)),
            Operation(
                "9", "add a review with all its derived data",
                lambda n: add_review(product, n, at + n),
                lambda db, n: sql_add_review(db, product, n, at + n),
                lambda a, n: orm_add_review(a, product, n, at + n),
                dba=lambda db, n: dba_add_review(db, product, n, at + n),
                check=Operation("9", "read back", lambda n: _added(detail(product)),
                                lambda db, n: _added(sql_detail(db, product)),
                                lambda a, n: _added(orm_detail(a, product)),
                                dba=lambda db, n: _added(dba_detail(db, product))),
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
    total, rows = catalog.product_page(RATING_FIELDS, order="-rating", limit=PAGE)
    return total, [_rating_row(*row) for row in rows]


def _rating_row(pk: str, name: str, brand: str, price: str, count: str, ratings: str) -> tuple:
    n = int(count or 0)
    return int(pk), name, brand, _price_cents(price), n, int(ratings) / n if n else None


def detail(product_id: int) -> tuple:
    """2. A product with its details, images, aggregate and 3 newest reviews: one HGETALL."""
    p = catalog.get(product_id)
    recent = [(r.id, r.author, r.rating, r.comment, r.published_at) for r in p.recent]
    return (p.name, p.brand, _cents(p.price), p.description, p.manufacturer, p.images, p.num_reviews, p.average, recent)


def of_type(slug: str) -> tuple:
    """3. The newest products of one type with the type's own fields (polymorphic): a page of the type's
    creation index joined to the name and those fields, one round trip (``product_page``)."""
    total, rows = catalog.product_page(("name", *types.TYPES[slug].field_names), type=slug, limit=PAGE)
    return total, [(int(row[0]), row[1], [value or "" for value in row[2:]]) for row in rows]


def add_review(product_id: int, n: int, at: float) -> int:
    """9. A review with everything derived from it (embed, aggregate, sort indexes, event): one script,
    its id from the process's block (one INCRBY every 100 reviews)."""
    review = (product_id, f"bench{n % 7}", 1 + n % 5, f"Benchmark review {n}.")
    return catalog.add_review(*review, actor=BENCH, at=at)


# --- hand-written SQL ---------------------------------------------------------------------


def sql_list_by_rating(db) -> tuple:
    """1. GROUP BY with AVG over every review, then the page (ties in the order Redis keeps them)."""
    (total,) = db.one(COUNT_PRODUCTS)
    return total, db.all(LIST_BY_RATING, (PAGE,))


def sql_detail(db, product_id: int) -> tuple:
    """2. The product JOIN its details, its images, the aggregate and the 3 newest reviews."""
    product, images, aggregate, newest = DETAIL
    name, brand, cents, description, manufacturer = db.one(product, (product_id,))
    images = [url for (url,) in db.all(images, (product_id,))]
    count, avg = db.one(aggregate, (product_id,))
    recent = db.all(newest, (product_id,))
    return name, brand, cents, description, manufacturer, images, count, avg, recent


def sql_of_type(db, slug: str) -> tuple:
    """3. The newest products of one type JOIN that type's own table."""
    count, page = of_type_sql(slug)
    (total,) = db.one(count, (slug,))
    rows = db.all(page, (slug, PAGE))
    return total, [(row[0], row[1], ["" if v is None else v for v in row[2:]]) for row in rows]


def sql_add_review(db, product_id: int, n: int, at: float) -> None:
    """9. One INSERT in its own transaction: the normalized schema keeps nothing derived."""
    with db.transaction():
        db.execute(
            "INSERT INTO product_reviews (product_id, author, rating, comment, published_at) VALUES (?, ?, ?, ?, ?)",
            (product_id, f"bench{n % 7}", 1 + n % 5, f"Benchmark review {n}.", at),
        )


# --- the DBA's SQL: one statement each, on DBA_SCHEMA --------------------------------------


def dba_list_by_rating(db) -> tuple:
    """1. The page straight from the rating index, the aggregate read from its columns, the count from
    its row."""
    return db.page_with_total(DBA_LIST_BY_RATING, (PAGE,))


def dba_detail(db, product_id: int) -> tuple:
    """2. The product, its details, its images and its 3 newest reviews in one row (arrays and JSON)."""
    *head, recent = db.one(DBA_DETAIL, (product_id,))
    return (*head, [tuple(review) for review in recent])


def dba_of_type(db, slug: str) -> tuple:
    """3. The type's count from its row, beside the newest page of the type JOIN its own table."""
    rows = db.all(dba_of_type_sql(slug), (slug, PAGE))
    total = rows[0][0] if rows else 0
    return total, [(row[1], row[2], ["" if v is None else v for v in row[3:]]) for row in rows]


def dba_add_review(db, product_id: int, n: int, at: float) -> None:
    """9. One INSERT: its trigger keeps the product's aggregate in the same transaction."""
    db.execute(
        "INSERT INTO product_reviews (product_id, author, rating, comment, published_at) VALUES (?, ?, ?, ?, ?)",
        (product_id, f"bench{n % 7}", 1 + n % 5, f"Benchmark review {n}.", at),
    )


# --- the Django ORM -------------------------------------------------------------------------


def orm_list_by_rating(alias: str) -> tuple:
    from django.db.models import Avg, Count, FloatField, TextField, Value
    from django.db.models.functions import Cast, Coalesce

    from config.benchmark.models import Product

    products = Product.objects.using(alias)
    rows = (
        products.annotate(n=Count("reviews__rating"), avg=Avg("reviews__rating"))
        .order_by(Coalesce("avg", Value(0.0), output_field=FloatField()).desc(), Cast("id", TextField()).desc())
        .values_list("id", "name", "brand", "price_cents", "n", "avg")[:PAGE]
    )
    return products.count(), list(rows)


def orm_detail(alias: str, product_id: int) -> tuple:
    """One query: the product JOIN its details (``select_related``), its aggregate, its images and its
    3 newest reviews annotated on as subqueries (``ArraySubquery`` of ``JSONObject`` for the reviews)."""
    from django.contrib.postgres.expressions import ArraySubquery
    from django.db.models import Avg, Count, OuterRef, Subquery, TextField
    from django.db.models.functions import Cast, JSONObject

    from config.benchmark.models import Product, ProductImage, Review

    reviews = Review.objects.using(alias).filter(product_id=OuterRef("pk"))
    aggregate = reviews.order_by().values("product_id")
    newest = reviews.order_by("-published_at", Cast("id", TextField()).desc()).values(
        row=JSONObject(id="id", author="author", rating="rating", comment="comment", at="published_at")
    )[:3]
    images = ProductImage.objects.using(alias).filter(product_id=OuterRef("pk")).order_by("position").values("url")
    p = (
        Product.objects.using(alias).select_related("details")
        .annotate(
            n=Subquery(aggregate.annotate(n=Count("*")).values("n")),
            avg=Subquery(aggregate.annotate(avg=Avg("rating")).values("avg")),
            image_urls=ArraySubquery(images), recent=ArraySubquery(newest),
        )
        .get(pk=product_id)
    )  # fmt: skip
    d = p.details
    recent = [(r["id"], r["author"], r["rating"], r["comment"], r["at"]) for r in p.recent]
    return p.name, p.brand, p.price_cents, d.description, d.manufacturer, p.image_urls, p.n or 0, p.avg, recent


def orm_of_type(alias: str, slug: str) -> tuple:
    from config.benchmark.models import Product, type_table

    kind = types.get(slug)
    table = type_table(slug, kind.field_names)
    total = Product.objects.using(alias).filter(type=slug).count()
    rows = table.objects.using(alias).select_related("product").filter(product__type=slug)
    rows = rows.order_by("-product__created_at")[:PAGE]
    return total, [(r.product.id, r.product.name, [getattr(r, name) or "" for name in kind.field_names]) for r in rows]


def orm_add_review(alias: str, product_id: int, n: int, at: float) -> None:
    from config.benchmark.models import Review

    Review.objects.using(alias).create(
        product_id=product_id, author=f"bench{n % 7}", rating=1 + n % 5, comment=f"Benchmark review {n}.",
        published_at=at,
    )  # fmt: skip
