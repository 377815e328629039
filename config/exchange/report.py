"""What an import did to its input: the values it rewrote (per field, a count and one example) and the
records it refused (where, which field, why), each value it quotes cut with its size (``shortened``)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

REFUSALS_KEPT = 1000  # a file of garbage lists its first thousand refusals and counts the rest
# Characters of one value a refusal or a rewrite quotes, and of a whole refusal line: a value can be megabytes.
VALUE_SHOWN = 200
LINE_SHOWN = 1000
# A value as ``repr`` quotes it, escaped quotes included (unrolled: no backtracking on long values).
_QUOTED = re.compile(r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'|\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\"")


def shortened(text: str, limit: int = LINE_SHOWN) -> str:
    """``text`` with each quoted value cut to ``VALUE_SHOWN`` characters, then the whole to ``limit``."""
    if len(text) <= limit:
        return text
    text = _QUOTED.sub(_cut_quoted, text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters in all)"


def _cut_quoted(match: re.Match) -> str:
    value = match.group()
    if len(value) <= VALUE_SHOWN + 2:
        return value
    return f"{value[: VALUE_SHOWN + 1]}…{value[0]} ({len(value) - 2:,} characters)"


@dataclass
class Rewrite:
    count: int
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.count} rewritten, e.g. {self.before!r} → {self.after!r}"


@dataclass(frozen=True)
class Refusal:
    where: str  # "WORKS_AT.csv:2", "products.jsonl:14"
    field: str  # "" when the whole record is refused
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.field}: {self.reason}" if self.field else f"{self.where}: {self.reason}"


@dataclass
class Report:
    """Counts per entity, rewrites per field, refusals in the order found."""

    counts: Counter = field(default_factory=Counter)
    rewrites: dict[str, Rewrite] = field(default_factory=dict)
    refusals: list[Refusal] = field(default_factory=list)
    refused: int = 0  # every refusal, including those past REFUSALS_KEPT

    def rewrote(self, name: str, before, after) -> None:
        """Note that field ``name`` was read as ``after`` from the source's ``before``."""
        seen = self.rewrites.get(name)
        if seen is None:
            self.rewrites[name] = Rewrite(1, shortened(str(before), VALUE_SHOWN), shortened(str(after), VALUE_SHOWN))
        else:
            seen.count += 1

    def refuse(self, where: str, name: str, reason: str) -> None:
        self.refused += 1
        if len(self.refusals) < REFUSALS_KEPT:
            where, name = shortened(where, VALUE_SHOWN), shortened(name, VALUE_SHOWN)
            self.refusals.append(Refusal(where, name, shortened(reason)))

    @property
    def ok(self) -> bool:
        return not self.refused

    def refusal_lines(self) -> list[str]:
        lines = [str(r) for r in self.refusals]
        if self.refused > len(self.refusals):
            lines.append(f"… and {self.refused - len(self.refusals)} more")
        return lines

    def rewrite_lines(self) -> list[str]:
        return [f"{name}: {rewrite}" for name, rewrite in sorted(self.rewrites.items())]
