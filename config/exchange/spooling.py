"""What the passes of an import or export share: the progress bar each is given, the counting that
advances it, and the spool the check pass keeps of the documents it accepts for the write pass."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

Bar = Callable[[str, int | None], Callable[[int], None]]  # (label, total) -> advance(n)


def _no_bar(label: str, total: int | None) -> Callable[[int], None]:
    return lambda n: None


STEP = 500  # records between two advances of a progress bar: a bar costs nothing per record


def _counted(docs: Iterable[dict], advance: Callable[[int], None]) -> Iterator[dict]:
    """``docs`` as they come, telling ``advance`` every ``STEP`` documents and at the end."""
    pending = 0
    for doc in docs:
        yield doc
        pending += 1
        if pending == STEP:
            advance(pending)
            pending = 0
    if pending:
        advance(pending)


SPOOL_BATCH = 1000  # cleaned documents per pickled batch in a spool file


def _spool(docs: Iterable[dict], path: Path) -> Iterator[dict]:
    """``docs`` as they come, each also kept in ``path`` (pickled in batches) for the write pass."""
    batch = []
    with path.open("wb") as handle:
        for doc in docs:
            batch.append(doc)
            if len(batch) == SPOOL_BATCH:
                handle.write(pickle.dumps(batch, pickle.HIGHEST_PROTOCOL))
                batch = []
            yield doc
        if batch:
            handle.write(pickle.dumps(batch, pickle.HIGHEST_PROTOCOL))


def _unspooled(path: Path) -> Iterator[dict]:
    """The documents ``_spool`` kept, in their order (a file this process wrote in its own folder)."""
    with path.open("rb") as handle:
        while True:
            try:
                batch = pickle.load(handle)
            except EOFError:
                return
            yield from batch
