"""Building catalog data through the store, as the screens would."""

from decimal import Decimal

from catalog import keys, store
from catalog.documents import Product
from config.activity import Actor
from config.benchmark.pages import capturing
from config.redis import client

EARBUDS = {"battery_life": "24", "connection_type": "bluetooth", "fit": "in-ear"}
CONSOLE = {"storage_type": "ssd", "usb_ports": "3", "hdmi_ports": "1", "gpu": "RDNA 2"}


TESTER = Actor("tester")


def make_product(name="Sonique Buds", type="earbuds", sku=None, tags=(), price="99.00", attrs=None, at=None):
    attrs = attrs if attrs is not None else (EARBUDS if type == "earbuds" else CONSOLE)
    product = Product(
        type=type,
        name=name,
        brand=name.split()[0],
        sku=sku or name.upper().replace(" ", "-")[:30],
        price=Decimal(price) if price else None,
        tags=list(tags),
        attrs=dict(attrs),
    )
    product_id = store.new_product_id()
    store.create(product_id, product, actor=TESTER, at=at)
    return product_id


def review(product_id, rating, author="ann", at=None, comment=""):
    return store.add_review(product_id, author, rating, comment, actor=TESTER, at=at)


def sent_commands():
    """The whole arguments of every command the traced clients send, in order (the trace cuts them)."""
    return capturing()


def part(product_id) -> int:
    """The partition holding a product: the ``p`` of the indexes it is in."""
    return keys.partition_of(product_id)


def product_count() -> int:
    """The products of every partition's creation index."""
    return sum(client().zcard(keys.products(p)) for p in keys.partitions())


def holders_of(index_key, *args) -> set[str]:
    """The members of one index (``keys.ngram``, ``keys.type_index``, ``keys.tag_index``: a set) in
    every partition."""
    return set().union(*(client().smembers(index_key(*args, p)) for p in keys.partitions()))


# Round trips a SKU's claim (or release) adds to a product write with several partitions, where the
# SKU index lives in a slot of its own (``catalog.store.skus``); none with one partition.
SKU_TRIP = 0 if keys.SKUS_WITH_PRODUCTS else 1

# The first product id one bulk write hands out in an empty catalog; the next ones follow it (its item k
# goes to partition k mod PARTITIONS, with the count k // PARTITIONS + 1: the id PARTITIONS + k).
FIRST_ID = keys.id_in(0, 1)


def waves(trace) -> list[list]:
    """The commands of each wave of a trace, in order: on a cluster, a plain pipeline's round trips to
    several nodes went out together (one wave), each holding its node's commands."""
    grouped, last = [], None
    for trip in trace.round_trips:
        if trip.wave and trip.wave == last:
            grouped[-1] += trip.commands
        else:
            grouped.append(list(trip.commands))
        last = trip.wave
    return grouped
