"""Ids drawn from Redis in blocks: one INCRBY hands this process the next ``ID_BLOCK`` ids of an entity.

Two processes never hold the same block; the block saves the round trip that drew one id per document.
The write's script refuses an id the counter has not reached (the data was reset since) or that a
document holds, and the writer draws a new block once. Ids skipped are never reused: unique, not dense.
"""

from __future__ import annotations

import os
import threading

from config.redis import client

ID_BLOCK = 100  # ids one INCRBY reserves for this process


class IdBlock:
    """Ids reserved from one Redis counter for this process (a fork draws its own). The id of count n is
    ``n * stride + offset``: a partitioned app's counters hand out ids that name their partition."""

    def __init__(self, counter_key: str, stride: int = 1, offset: int = 0):
        self.counter_key, self.stride, self.offset = counter_key, stride, offset
        self.lock = threading.Lock()
        self.pid, self.next, self.last = 0, 1, 0

    def take(self) -> int:
        with self.lock:
            if self.pid != os.getpid() or self.next > self.last:
                self._draw()
            self.next += 1
            return (self.next - 1) * self.stride + self.offset

    def holds_ids(self) -> bool:
        """Whether this process's block has an id left (a ``take`` sends nothing)."""
        with self.lock:
            return self.pid == os.getpid() and self.next <= self.last

    def count_of(self, taken: int) -> int:
        """The count that handed out the id ``taken``: what a write's script checks the counter has reached."""
        return (taken - self.offset) // self.stride

    def put_back(self, taken: int) -> None:
        """An id the write did not use (nothing was written): the next write takes it."""
        with self.lock:
            if self.next == self.count_of(taken) + 1:
                self.next = self.count_of(taken)

    def drop(self) -> None:
        """Forget the block (the script refused one of its ids): the next ``take`` draws a new one."""
        with self.lock:
            self.next, self.last = 1, 0

    def reserve(self) -> None:
        """Draw a block now (a server does it at its first write)."""
        self.drop()
        self.put_back(self.take())

    def _draw(self) -> None:
        self.last = client().incrby(self.counter_key, ID_BLOCK)
        self.next, self.pid = self.last - ID_BLOCK + 1, os.getpid()
