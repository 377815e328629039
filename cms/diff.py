"""A bounded diff of two texts: lines first, then words inside the changed blocks only.

The result is a list of (kind, text) segments, kind "same", "del" or "ins"; the compare template
prints each escaped in <del>/<ins>. Not ``difflib.SequenceMatcher`` on the words: its cost grows
with the square of the words when texts differ a lot, and any signed-in user could make a server
thread pay it. Here:

1. The common head and tail are cut off first (linear).
2. The lines between are aligned on lines found exactly once in each text (patience diff's
   anchors, O(n log n)); only the gaps between anchors are searched, with Myers' O((N+M)·D).
3. Only inside each changed block of lines are the words diffed, the same way.
4. Every comparison and diagonal visited is one step; one field's diff may take
   ``CMS_DIFF_BUDGET`` steps. A gap that would cost more is shown whole (deleted, then
   inserted), and the result says so (``cut``) for the page to tell the reader.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cached_property

from cms import conf
from cms.documents import CONTENT, Post

_TOKENS = re.compile(r"\s+|[^\s]+")
WORD_DIFFED = ("title", "body")  # the others are short values, shown as old -> new


def words(text: str) -> list[str]:
    return _TOKENS.findall(text)


class _OverBudget(Exception):
    pass


@dataclass
class Diff:
    """The segments of a diff, the steps it took, and whether the budget cut it short."""

    segments: list[tuple[str, str]] = field(default_factory=list)
    steps: int = 0
    cut: bool = False
    budget: int = 0

    def spend(self, steps: int) -> None:
        self.steps += steps
        if self.steps > self.budget:
            raise _OverBudget

    def add(self, kind: str, text: str) -> None:
        if not text:
            return
        if self.segments and self.segments[-1][0] == kind:
            self.segments[-1] = (kind, self.segments[-1][1] + text)
        else:
            self.segments.append((kind, text))


def _edit_script(a: list[str], b: list[str], diff: Diff) -> list[tuple[str, int, int]]:
    """Myers' greedy shortest edit script from ``a`` to ``b``, as ("same" | "del" | "ins", i, j) steps;
    each diagonal visited and token compared is charged to ``diff`` (_OverBudget when it runs out)."""
    n, m = len(a), len(b)
    offset = n + m + 1
    v = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    found = None
    for d in range(n + m + 1):
        trace.append(v[offset - d - 1 : offset + d + 2])  # k in -d-1 .. d+1, before round d
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]  # down: an insertion
            else:
                x = v[offset + k - 1] + 1  # right: a deletion
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            diff.spend(1 + x - start)
            v[offset + k] = x
            if x >= n and y >= m:
                found = d
                break
        if found is not None:
            break
    script: list[tuple[str, int, int]] = []
    x, y = n, m
    for d in range(found, 0, -1):
        before = trace[d]  # index k + d + 1
        k = x - y
        down = k == -d or (k != d and before[k - 1 + d + 1] < before[k + 1 + d + 1])
        prev_k = k + 1 if down else k - 1
        prev_x = before[prev_k + d + 1]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            x, y = x - 1, y - 1
            script.append(("same", x, y))
        if x == prev_x:
            script.append(("ins", x, prev_y))
        else:
            script.append(("del", prev_x, y))
        x, y = prev_x, prev_y
    while x > 0 and y > 0:
        x, y = x - 1, y - 1
        script.append(("same", x, y))
    script.reverse()
    return script


def _common_ends(a: list[str], b: list[str], diff: Diff) -> tuple[int, int]:
    """How many tokens ``a`` and ``b`` share at the start and (after it) at the end."""
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    diff.steps += head + tail + 1  # linear and always paid: counted, never cut
    return head, tail


def _anchors(a: list[str], b: list[str], diff: Diff) -> list[tuple[int, int]]:
    """The longest same-order run of tokens found once in each of ``a`` and ``b`` (patience anchors)."""
    diff.steps += len(a) + len(b)
    seen_a: dict[str, int] = {}
    for i, token in enumerate(a):
        seen_a[token] = -1 if token in seen_a else i
    seen_b: dict[str, int] = {}
    for j, token in enumerate(b):
        seen_b[token] = -1 if token in seen_b else j
    pairs = [(i, seen_b[t]) for t, i in seen_a.items() if i >= 0 and seen_b.get(t, -1) >= 0]
    pairs.sort()
    # Longest increasing run of b positions (patience sorting), with back links.
    tops: list[int] = []  # b position ending the best run of each length
    ends: list[int] = []  # index into pairs of that run's last pair
    back = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        at = bisect_left(tops, j)
        back[n] = ends[at - 1] if at else -1
        if at == len(tops):
            tops.append(j)
            ends.append(n)
        else:
            tops[at], ends[at] = j, n
    diff.steps += len(pairs)
    run = []
    n = ends[-1] if ends else -1
    while n >= 0:
        run.append(pairs[n])
        n = back[n]
    return run[::-1]


def _align(a: list[str], b: list[str], diff: Diff) -> list[tuple[list[str], list[str]]]:
    """``a`` against ``b`` as (old, new) token runs, equal runs with old == new; a gap Myers cannot
    finish within the budget is one changed block (and ``diff.cut``)."""
    head, tail = _common_ends(a, b, diff)
    runs: list[tuple[list[str], list[str]]] = []
    if head:
        runs.append((a[:head], a[:head]))
    middle_a, middle_b = a[head : len(a) - tail], b[head : len(b) - tail]
    i0 = j0 = 0
    for i, j in [*_anchors(middle_a, middle_b, diff), (len(middle_a), len(middle_b))]:
        runs.extend(_gap(middle_a[i0:i], middle_b[j0:j], diff))
        if i < len(middle_a):
            runs.append(([middle_a[i]], [middle_b[j]]))
        i0, j0 = i + 1, j + 1
    if tail:
        runs.append((a[len(a) - tail :], a[len(a) - tail :]))
    return runs


def _gap(a: list[str], b: list[str], diff: Diff) -> list[tuple[list[str], list[str]]]:
    if not a and not b:
        return []
    try:
        script = _edit_script(a, b, diff)
    except _OverBudget:
        diff.cut = True
        return [(a, b)]
    runs: list[tuple[list[str], list[str]]] = []
    old: list[str] = []
    new: list[str] = []
    for kind, i, j in script:
        if kind == "same":
            if old or new:
                runs.append((old, new))
                old, new = [], []
            runs.append(([a[i]], [a[i]]))
        elif kind == "del":
            old.append(a[i])
        else:
            new.append(b[j])
    if old or new:
        runs.append((old, new))
    return runs


def text_diff(old: str, new: str, budget: int | None = None) -> Diff:
    """The diff of two texts, lines first and then words inside each changed block, within ``budget`` steps."""
    diff = Diff(budget=conf.diff_budget() if budget is None else budget)
    for old_lines, new_lines in _align(old.splitlines(keepends=True), new.splitlines(keepends=True), diff):
        if old_lines is new_lines or old_lines == new_lines:
            diff.add("same", "".join(old_lines))
            continue
        for old_words, new_words in _align(words("".join(old_lines)), words("".join(new_lines)), diff):
            if old_words == new_words:
                diff.add("same", "".join(old_words))
            else:
                diff.add("del", "".join(old_words))
                diff.add("ins", "".join(new_words))
    return diff


@dataclass(frozen=True)
class FieldChange:
    name: str
    old: str
    new: str

    @cached_property
    def diff(self) -> Diff:
        return text_diff(self.old, self.new) if self.name in WORD_DIFFED else Diff()

    @property
    def segments(self) -> list[tuple[str, str]]:
        return self.diff.segments


def compare(old: Post, new: Post) -> list[FieldChange]:
    """Only the content fields that differ, in form order."""
    return [FieldChange(name, getattr(old, name), getattr(new, name)) for name in new.differs_from(old.content())]


assert set(WORD_DIFFED) <= set(CONTENT)
