"""Registry of the invariants that ``manage.py check_integrity`` runs.

Every piece of derived data (counters, embedded copies, reverse sets, indexes,
rollups, caps) has an invariant in its app's ``integrity.py``:

    @invariant("catalog", "num_reviews equals the size of the review set", repair=fix_counts)
    def review_counts():
        for product_id, stored, actual in store.review_counts():
            if stored != actual:
                yield Violation(f"product {product_id}: {stored} != {actual}", keys=[...])

A check yields violations; an optional ``repair`` puts the derived data right
from its source of truth and is run by ``check_integrity --repair``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Violation:
    message: str
    keys: tuple[str, ...] = ()

    def __init__(self, message: str, keys: Iterable[str] = ()):
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "keys", tuple(keys))


@dataclass(frozen=True)
class Invariant:
    app: str
    name: str
    check: Callable[[], Iterable[Violation]]
    repair: Callable[[], None] | None = None


@dataclass
class Registry:
    invariants: list[Invariant] = field(default_factory=list)

    def add(self, app: str, name: str, repair: Callable[[], None] | None = None):
        def decorate(check):
            self.invariants = [i for i in self.invariants if (i.app, i.name) != (app, name)]
            self.invariants.append(Invariant(app, name, check, repair))
            return check

        return decorate

    def for_apps(self, apps: Iterable[str] | None = None) -> list[Invariant]:
        wanted = set(apps) if apps else None
        return [i for i in self.invariants if wanted is None or i.app in wanted]


registry = Registry()
invariant = registry.add


def violations(apps: Iterable[str] | None = None) -> list[tuple[Invariant, Violation]]:
    """Run the invariants of ``apps`` (all when None); return every violation."""
    return [(inv, v) for inv in registry.for_apps(apps) for v in inv.check()]


def gram_drift(
    noun: str, text: str, missing: dict, extra: dict, piece_key: Callable[[str], str], shown=lambda piece: piece
) -> Iterator[Violation]:
    """The violations of a name index's drift, as every app's search index reports it: for each id,
    the pieces (``missing``) that should list it and do not, and those (``extra``) listing it that its
    ``text`` ("name", "title") does not hold, five of each named with their keys."""
    for pk in sorted(set(missing) | set(extra), key=int):
        lost, stray = sorted(missing.get(pk, ()))[:5], sorted(extra.get(pk, ()))[:5]
        if lost:
            pieces = [shown(piece) for piece in lost]
            yield Violation(f"{noun} {pk}: its {text}'s pieces {pieces} do not list it", map(piece_key, lost))
        if stray:
            pieces = [shown(piece) for piece in stray]
            yield Violation(
                f"{noun} {pk} is listed under {pieces}, which its {text} does not hold", map(piece_key, stray)
            )
