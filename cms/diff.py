"""Word-level diff of two texts, as segments the template escapes itself.

The diff is a list of (kind, text) pairs, kind one of "same", "del", "ins";
the template wraps them in <del>/<ins> with autoescaping on, so stored text
never reaches the page unescaped and no markup is built in Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from cms.documents import CONTENT, Post

_TOKENS = re.compile(r"\s+|[^\s]+")
WORD_DIFFED = ("title", "body")  # the others are short values, shown as old -> new


def words(text: str) -> list[str]:
    return _TOKENS.findall(text)


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    a, b = words(old), words(new)
    segments: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            segments.append(("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            segments.append(("del", "".join(a[i1:i2])))
        if j2 > j1:
            segments.append(("ins", "".join(b[j1:j2])))
    return segments


@dataclass(frozen=True)
class FieldChange:
    name: str
    old: str
    new: str

    @property
    def segments(self) -> list[tuple[str, str]]:
        return word_diff(self.old, self.new) if self.name in WORD_DIFFED else []


def compare(old: Post, new: Post) -> list[FieldChange]:
    """Only the content fields that differ, in form order."""
    return [FieldChange(name, getattr(old, name), getattr(new, name)) for name in new.differs_from(old.content())]


assert set(WORD_DIFFED) <= set(CONTENT)
