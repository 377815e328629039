"""Every key of the catalog, each declared once on the function that names it.

Ids are integers, and the type and tag segments are checked against the type registry and the tag pattern
before they get here (``types.py``, ``documents.is_tag``): no user text becomes part of a key unvalidated.

The catalog is laid out in partitions (docs/cluster.md): a product, its reviews and its partition's indexes,
id counters and activity stream share one hash tag, so every write of one product stays in one slot. A
product's partition is its id modulo ``PARTITIONS`` (``partition_of``), and so is a review's, whose id is
drawn in its product's partition. Every index is one partition's (its ``p``); a list reads each partition's
part and merges them. With one partition, the tag is the app's own (``{catalog}``).
"""

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.keys import register_event_stream
from config.keyspace import keyspace, register_app

APP = "catalog"
PARTITIONS = settings.CATALOG_PARTITIONS  # fixed while data exists: changing it moves every key
if PARTITIONS < 1:
    raise ImproperlyConfigured(f"CATALOG_PARTITIONS must be 1 or more, not {PARTITIONS}")


def partitions() -> range:
    """Every partition's number, for the reads and checks that visit them all."""
    return range(PARTITIONS)


def partition_of(record_id: int | str) -> int:
    """The partition of a product, or of a review (its id is drawn in its product's partition)."""
    return int(record_id) % PARTITIONS


def id_in(p: int, count: int) -> int:
    """The id that count ``count`` of partition ``p``'s id counter hands out: it names its partition."""
    return count * PARTITIONS + p


def count_of(record_id: int | str) -> int:
    """The count of its partition's id counter that handed out ``record_id``."""
    return int(record_id) // PARTITIONS


def _tag(p: int | str) -> str:
    """The hash tag of partition ``p`` ("*": of any). One partition keeps the app's own tag."""
    return APP if PARTITIONS == 1 else f"{APP}.{p}"


def _tag_of(record_id: int | str) -> str:
    return _tag("*" if record_id == "*" else partition_of(record_id))


def any_layout_product() -> str:
    """A SCAN glob of every product hash, laid out for any partition count (``{catalog}``, ``{catalog.N}``)."""
    return f"catalog:{{{APP}*}}:product:*"


# The activity stream of each partition: a write appends to its own partition's, in its own script.
EVENT_STREAMS = tuple(register_event_stream(_tag(p)) for p in partitions())


def events(p: int) -> str:
    return EVENT_STREAMS[p]


def events_of(product_id: int | str) -> str:
    """The activity stream a write of this product (or of its reviews) appends to."""
    return EVENT_STREAMS[partition_of(product_id)]


register_app(APP, "catalog:")
key = keyspace.declarer(APP)

LIST = ("catalog:product_list",)
DETAIL = ("catalog:product_detail",)
PRODUCT_URL = "/catalog/products/{id}/"
SORTS = ("name", "price", "rating", "reviews", "type", "brand", "sku")
EBOOK = "8 Data Modeling Patterns in Redis"


@key(
    "string",
    "Id counter (INCR)",
    "The last id handed out for products and reviews: INCRBY 100 draws a block for one server process, "
    "INCRBY n a seeder's or an import's batch.",
    why="INCRBY is atomic, so two writers never get the same id, and ids survive restarts because they live "
    "in Redis, not in process memory; a block spares each add the round trip that drew its id.",
)
def ids(entity: str, p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:ids:{entity}"


def product_ids(p: int) -> str:
    return ids("product", p)


def review_ids(p: int) -> str:
    return ids("review", p)


@key(
    "hash",
    f"{EBOOK}: embedded, polymorphic, partial embed and aggregate patterns",
    "One product: list fields, details, images/videos as JSON, its type's own fields, the 3 newest "
    "reviews (recent_reviews) and num_reviews/sum_ratings.",
    why="Everything the product page shows is one HGETALL: details are embedded rather than referenced, "
    "bounded lists (≤10 images, ≤3 videos) ride along as JSON, and the newest reviews and the rating "
    "aggregate are copies kept right in each review's own script.",
    screens=(*LIST, *DETAIL, "catalog:product_edit"),
    index="catalog:{catalog}:index:products" if PARTITIONS == 1 else "",  # several: a SCAN lists them
    url=PRODUCT_URL,
)
def product(product_id: int | str) -> str:
    return f"catalog:{{{_tag_of(product_id)}}}:product:{product_id}"


def product_in(p: int, product_id: int | str) -> str:
    """``product`` of partition ``p``: with ``*``, that partition's products as SORT ... GET joins them."""
    return f"catalog:{{{_tag(p)}}}:product:{product_id}"


def product_glob(p: int) -> str:
    return product_in(p, "*")


@key(
    "zset",
    f"{EBOOK}: referenced one-to-many (unbounded)",
    "The ids of a product's reviews, scored by publication time.",
    scores="time",
    why="Reviews are unbounded, so they live in hashes of their own; this sorted set references them in "
    "time order, so a page of the newest is ZREVRANGE-shaped (SORT BY nosort GET joins the fields).",
    screens=(*DETAIL, "catalog:review_list"),
    url=PRODUCT_URL,
)
def product_reviews(product_id: int | str) -> str:
    return f"catalog:{{{_tag_of(product_id)}}}:product:{product_id}:reviews"


@key(
    "hash",
    f"{EBOOK}: referenced one-to-many (unbounded)",
    "One review: product, author, rating 0–5, comment, published_at.",
    why="A hash per review keeps the product hash small however many reviews it gets; the review names "
    "its product, so a delete finds the set and the aggregate to fix.",
    screens=("catalog:review_list", "catalog:review_delete"),
)
def review(review_id: int | str) -> str:
    return f"catalog:{{{_tag_of(review_id)}}}:review:{review_id}"


def review_glob(p: int) -> str:
    """Partition ``p``'s reviews as SORT ... GET joins them (``*`` is the id)."""
    return f"catalog:{{{_tag(p)}}}:review:*"


@key(
    "zset",
    "Index (sorted set of ids)",
    "Every product id, scored by creation time: enumerates products and orders the list by newest.",
    scores="time",
    why="A sorted set pages with ZRANGE offsets and joins with the type and tag sets inside Redis "
    "(ZINTERSTORE), so no screen ever loads every id.",
    screens=LIST,
)
def products(p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:index:products"


@key(
    "zset",
    f"{EBOOK}: sorted index kept with the aggregate",
    "Product ids scored by name (prefix code), price, average rating or review count, for the list sorts.",
    why="Redis sorts only by score, so each sortable column has its own sorted set, written in the same "
    "script as the field (the rating and count ones by each review's add and delete).",
    screens=LIST,
)
def sort_index(name: str, p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:index:by:{name}"


@key(
    "zset",
    "Lexicographic index (key-value design notes)",
    "`<casefolded name>\\0<id>` members at score 0: ZRANGEBYLEX finds names by prefix.",
    why="With every score equal a sorted set orders its members as bytes, so a prefix is a range "
    "[prefix, prefix\\xff] and search never scans products.",
    screens=LIST,
)
def names(p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:index:names"


@key(
    "hash",
    "Inverted index: unique key",
    "Uppercased SKU → product id: exact SKU search and SKU uniqueness.",
    why="A hash field per SKU is an O(1) lookup. With one partition each product write checks it inside "
    "its own script; with several it lives in a slot of its own, and a write claims its SKU there first "
    "(HSET only when free or already its own), so two products can never hold the same SKU.",
    screens=(*LIST, "catalog:product_add", "catalog:product_edit"),
)
def skus() -> str:
    return f"catalog:{{{APP if PARTITIONS == 1 else APP + '.skus'}}}:index:skus"


SKUS_WITH_PRODUCTS = PARTITIONS == 1  # the SKU index shares the product scripts' slot: they check it themselves


@key(
    "set",
    f"{EBOOK}: polymorphic pattern, one index per type",
    "The ids of the products of one type (earbuds, game_console, …).",
    why="All types share one product collection; a set per type is the e-book's `where type = …` "
    "without a search module, and intersects with tag sets inside Redis.",
    screens=LIST,
)
def type_index(type_slug: str, p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:index:type:{type_slug}"


@key(
    "zset",
    f"{EBOOK}: polymorphic pattern, a sorted index per type",
    "The ids of the products of one type, scored by creation time: the list filtered by type alone, "
    "newest or oldest first.",
    scores="time",
    why="The list's commonest filter is one type in the default order; a sorted set per type makes it a "
    "ZRANGE-shaped page (SORT ... BY nosort LIMIT GET) that costs the page, not an intersection of the "
    "whole creation index with the type set on every request. Written beside the type set in the "
    "product's own script.",
    screens=LIST,
)
def type_created(type_slug: str, p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:index:type:{type_slug}:created"


@key(
    "set",
    "Tag system (the Redis tags tutorial)",
    "The ids of the products carrying one tag.",
    why="Sets are made for tags: all-of is SINTER, any-of SUNION, none-of SDIFF, computed in Redis.",
    screens=LIST,
)
def tag_index(tag: str, p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:index:tag:{tag}"


@key(
    "zset",
    "Tag system (the Redis tags tutorial): tag cloud",
    "Every tag in use, scored by how many products carry it (the list's tag chips).",
    why="ZINCRBY in each product write keeps the counts, ZREMRANGEBYSCORE drops tags nobody uses, and "
    "ZREVRANGE reads the most used tags without touching the tag sets.",
    screens=LIST,
)
def tags(p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:index:tags"


@key(
    "zset",
    "Temporary result (expires)",
    "The filtered ids of one list query, scored by the sort column; deleted by the same transaction, "
    "EXPIRE 60 as a backstop.",
    why="Set algebra with a sort needs somewhere to put the intermediate result; a random name and a "
    "short TTL mean no two requests share one and nothing lingers.",
    screens=LIST,
)
def temp(token: str, p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:tmp:{token}"


@key(
    "set",
    "Temporary result (expires)",
    "One list query's intermediate id sets: the any-of union, the search hits, the combined filter.",
    why="SINTERSTORE/SUNIONSTORE/SDIFFSTORE work on plain sets, cheaper than sorted sets; only the final "
    "step pays for an order. Deleted by the same transaction, EXPIRE 60 as a backstop.",
    screens=LIST,
)
def temp_set(token: str, part: str, p: int | str) -> str:
    """A list query's intermediate set of ids in partition ``p`` (``part``: any, q, ids, word<n>)."""
    return f"catalog:{{{_tag(p)}}}:tmp:{token}:{part}"


@key(
    "set",
    "Inverted index: trigrams (n-grams) of a name",
    "The ids of the products whose name holds one three-character piece (`pho` holds Smartphone X).",
    why="A search for any part of a name is SINTER of its pieces' sets, which Redis answers by walking the "
    "smallest, so its cost follows the rarest piece, not the catalog; plain sets need no search module. "
    "Written in the product's own script, from the name the script checks is still stored.",
    screens=(*LIST, "catalog:product_suggest"),
)
def ngram(gram: str, p: int | str) -> str:
    """``gram`` is three folded letters or digits (``ngrams.grams``), never raw input."""
    return f"catalog:{{{_tag(p)}}}:ngram:{gram}"


@key(
    "set",
    "Inverted index: the words of a name",
    "The ids of the products whose name holds one word of 4 to 24 letters and digits (`clearedge`).",
    why="A search for part of a word is the union of the sets of the words holding it, found in the "
    "vocabulary: exactly its matches, with no name read to check them, where the pieces' intersection "
    "gives candidates whose every name must be read. Written in the product's own script, beside its pieces.",
    screens=LIST,
)
def word(text: str, p: int | str) -> str:
    """``text`` is a folded run of letters and digits (``ngrams.kept_words``), never raw input."""
    return f"catalog:{{{_tag(p)}}}:word:{text}"


@key(
    "zset",
    "Lexicographic index: the vocabulary of the names",
    "`<suffix>\\0<word>` at score 0, for each suffix of four characters or more of each word with a set.",
    why="A word is inside another when it starts one of that word's suffixes, so ZRANGEBYLEX of "
    "[word, word\\xff] lists the words holding it in one read of the vocabulary, not of the catalog. A "
    "write that leaves a word's set empty takes its entries out, in the product's own script.",
    screens=LIST,
)
def vocabulary(p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:vocabulary"


@key(
    "set",
    "Inverted index: names with a word too long to keep",
    "The ids of the products whose name holds a word longer than the vocabulary keeps (24 characters).",
    why="A word's vocabulary entries grow as its length squared (a name of one 120-letter word cost 38 KB), "
    "so such words are not kept; a search checks these few names by their pieces and their name instead, "
    "and stays exact. Written in the product's own script, beside its pieces.",
    screens=LIST,
)
def long_names(p: int | str) -> str:
    return f"catalog:{{{_tag(p)}}}:index:long-words"
