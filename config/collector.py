"""The cyclic garbage collector as a worker serving requests wants it (the ``gc`` module's advice
for servers), set by ``config/wsgi.py`` and by the benchmark's pages, which time what a worker does;
and as a bulk load wants it (``frozen``), set by the benchmark's timed loads.

- What start-up loaded (Django, the apps, the URLconf: most of a worker's objects) lives as long
  as the process: it is frozen out of the collector's reach, so a full pass scans only what
  requests keep, a few ms instead of tens.
- A page allocates thousands of short-lived objects, which reference counting frees at once; the
  default threshold (700 more allocations than frees) still starts a collection every two to four
  pages, some 0.2 ms each in the middle of a page. At ``YOUNG`` it starts one every few dozen
  pages, for the few cycles requests leave behind.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 20_000  # allocations net of frees before the youngest generation is collected


def tune_for_serving() -> None:
    """Collect what start-up left, freeze the rest, and raise the youngest generation's threshold."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG, *gc.get_threshold()[1:])


@contextmanager
def serving() -> Iterator[None]:
    """``tune_for_serving`` for a block (the benchmark's pages), the collector restored after it."""
    saved = gc.get_threshold()
    tune_for_serving()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*saved)


@contextmanager
def frozen() -> Iterator[None]:
    """What the process holds, frozen out of the collector's reach for a block: a bulk load. A load
    allocates lists by the million, each collection of the oldest generation then scans every object
    the process holds (the benchmark's other data sets: millions). The large sensor load reached 17.6 %
    of its ceiling among them unfrozen, 22.1 % frozen (20.8 % alone); a seeding process holds its own
    records only. Collected first, unfrozen after."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
