"""SKU claims: uniqueness across partitions, where no product script can see the SKU index.

With one partition the SKU index shares the products' slot, and each product write checks and writes it inside
its own script (``queue_indexes``). With several, the index lives in a slot of its own (``keys.skus``), and a
write that gives a product a SKU claims it there first: one script takes every SKU it is given for its
product, or none when another product holds one (SkuTaken). The product's own script follows; if that one
refuses, the claim is released. An edit releases the SKU it gave up, and a delete its product's, after their
product script. So a claim always comes first and a release last: between the two scripts of a write, the
index may hold a SKU for a product that does not hold it (yet, or any more), never the other way round, and a
writer that dies between them leaves exactly that, which ``check_integrity`` reports and its repair rebuilds.
"""

from __future__ import annotations

from collections.abc import Iterable

from catalog import keys
from config.store.scripts import lua, register, run_script

_CLAIM = register(lua(__file__, "claim_skus"))
_RELEASE = register(lua(__file__, "release_skus"))


def _pairs(owned: Iterable[tuple[str, int]]) -> list[str]:
    return [part for sku, product_id in owned for part in (sku, str(product_id))]


def claim(owned: Iterable[tuple[str, int]]) -> list[str]:
    """Take each (SKU as the index holds it, product id), all or none: ``["ok"]`` or the refusal."""
    args = _pairs(owned)
    return run_script(_CLAIM, [keys.skus()], args) if args else ["ok"]


def release(owned: Iterable[tuple[str, int]]) -> None:
    """Give back each (SKU, product id) the product holds."""
    args = _pairs(owned)
    if args:
        run_script(_RELEASE, [keys.skus()], args)


def take(batch, owned: list[tuple[str, int]], holder: str = "") -> list[str]:
    """Make a product write's (SKU, product id) its own: with one partition, checks its ``batch`` makes
    (each SKU unset, or held by ``holder``); with several, a claim now. ``["ok"]``, or the refusal."""
    if keys.SKUS_WITH_PRODUCTS:
        for sku, _ in owned:
            batch.require_owner(keys.skus(), sku, holder)
        return ["ok"]
    return claim(owned)


def give_back(owned: list[tuple[str, int]]) -> None:
    """With several partitions, release SKUs after a product write's script (with one, its script did)."""
    if not keys.SKUS_WITH_PRODUCTS:
        release(owned)
