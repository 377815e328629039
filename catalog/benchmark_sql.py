"""The catalog's relational twin in the benchmark: the normalized schema (nothing derived), the DBA's
precomputation beside it, and each question answered three ways: hand-written SQL, the DBA's one
statement, and the Django ORM. Their SQL is one source for the benchmark and the screens' twins.
"""

from __future__ import annotations

from decimal import Decimal

from catalog import types

PAGE = 25

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


def type_table(slug: str) -> str:
    return f"product_{slug}"  # slugs come from the type registry, never from input


def cents(price) -> int | None:
    return None if price is None else int(price * 100)


def price_cents(text: str) -> int | None:
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
FROM products p JOIN {type_table(slug)} t ON t.product_id = p.id
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
JOIN {type_table(slug)} t ON t.product_id = p.id
WHERE c.type = ? ORDER BY p.created_at DESC LIMIT ?"""


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
