"""How the trigram index reads text: folded words (runs of letters and digits), their pieces, the words a
vocabulary keeps, and a query with what checks a name against it. Plain Python, no Redis: the index
(``config.store.ngrams``) and the apps' writers and checks share it."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

N = 3
# The longest word a vocabulary keeps: a word of L characters has L - 3 entries of up to 2L bytes, so a
# name of one 120-letter word cost 38 KB of vocabulary; a longer word puts its name among the long ones.
KEPT_LENGTH = 24
_WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """NFKD, combining marks dropped, casefolded, NFKC: "Café" and "CAFE" fold alike (ASCII: lowercase)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text or "")
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFKC", bare.casefold())


def words(text: str) -> list[str]:
    """The folded words of ``text``: runs of letters and digits."""
    return _WORD.findall(fold(text))


def word_grams(word: str) -> list[str]:
    """The three-character pieces of one folded word, in order (none when it is shorter than three)."""
    return [word[i : i + N] for i in range(len(word) - N + 1)]


def short_grams(word: str) -> set[str]:
    """The one- and two-character pieces of one folded word: what a query of one or two characters is."""
    return {word[i : i + size] for size in (1, 2) for i in range(len(word) - size + 1)}


def grams(text: str) -> set[str]:
    """Every three-character piece of every word of ``text`` (none for words shorter than three)."""
    return {gram for word in words(text) for gram in word_grams(word)}


def all_grams(text: str) -> set[str]:
    """Every piece of one to three characters of every word of ``text``: the gram sets it is listed in."""
    return {gram for word in words(text) for gram in (*word_grams(word), *short_grams(word))}


def kept(word: str) -> bool:
    """Whether a vocabulary keeps ``word``: four characters or more, and at most KEPT_LENGTH."""
    return N < len(word) <= KEPT_LENGTH


def kept_words(text: str) -> set[str]:
    """The folded words of ``text`` a vocabulary keeps (``kept``)."""
    return {word for word in words(text) if kept(word)}


def suffixes(word: str) -> list[str]:
    """A kept word's vocabulary entries, each suffix of four or more then the word (``"edge\x00clearedge"``):
    a word is inside ``word`` when a suffix starts with it."""
    return [f"{word[i:]}\x00{word}" for i in range(len(word) - N)]


@dataclass(frozen=True)
class Query:
    """A search, read as the index reads names: the pieces to intersect, and what checks the candidates."""

    long: tuple[str, ...]  # words of three characters or more: each a substring of the name
    short: tuple[str, ...]  # shorter words: each a substring of the name too, one piece of its own
    grams: tuple[str, ...] = field(default=())

    @classmethod
    def parse(cls, text: str) -> Query:
        found = words(text)
        long = tuple(dict.fromkeys(w for w in found if len(w) >= N))
        short = tuple(dict.fromkeys(w for w in found if len(w) < N))
        return cls(long, short, tuple(sorted({g for w in long for g in grams(w)} | set(short))))

    @property
    def usable(self) -> bool:
        """Whether the index can answer it (it has a word)."""
        return bool(self.grams)

    @property
    def exact(self) -> bool:
        """Whether holding every piece is matching: each word is one piece (three characters or fewer)."""
        return all(len(w) <= N for w in (*self.long, *self.short))

    def matches(self, name: str) -> bool:
        """Whether ``name`` really holds the query: every word inside it (the name folded once)."""
        folded = fold(name)
        return all(w in folded for w in self.long) and all(w in folded for w in self.short)
