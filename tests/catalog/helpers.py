"""Building catalog data through the store, as the screens would."""

from decimal import Decimal

from catalog import store
from catalog.documents import Product
from config.activity import Actor
from config.benchmark.pages import capturing

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
