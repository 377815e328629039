"""Registry of every key pattern the project writes.

Each app's ``keys.py`` registers its patterns here when it is imported (at start-up). The dashboard
lists them, the key browser names a key's owner by them, ``seed --reset`` uses the app prefixes, and
tests check that every key Redis holds is registered.

Patterns are globs over ``:``-separated segments, where ``*`` stands for exactly one segment:
``catalog:product:*`` matches ``catalog:product:42`` but not ``catalog:product:42:reviews``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property

REDIS_TYPES = {"string", "hash", "list", "set", "zset", "stream"}


@dataclass(frozen=True)
class KeyPattern:
    app: str
    pattern: str
    type: str
    modeling: str  # the modeling pattern, as the e-book or seed names it
    serves: str  # what it is for, one line
    why: str = ""  # two sentences: why this structure
    screens: tuple[str, ...] = ()  # URL names of the screens that read or write it
    index: str = ""  # a key (set or sorted set of ids) that enumerates this pattern's keys, if one exists
    url: str = ""  # path of the screen showing one document of this pattern, "{id}" for its id segment
    scores: str = ""  # "time" where a sorted set's scores are Unix times: the key browser shows dates
    record: int = 0  # a string of fixed-size records (a bucket): bytes of one, so memory is told per record
    # The key of one document by its id, where the declaring function takes the id alone: its other
    # segments may follow from the id (a catalog partition's tag), which the glob cannot say.
    of_id: Callable[[str], str] | None = field(default=None, compare=False, repr=False)

    def key_of(self, ident: str) -> str:
        """The key of the document ``ident`` names: by the declaring function, else the glob's ``*``."""
        return self.of_id(ident) if self.of_id else self.pattern.replace("*", ident, 1)

    def screen_url(self, key: str) -> str:
        """The app screen for ``key``, when this pattern has one and the key holds an id."""
        if not self.url:
            return ""
        ids = [part for part, glob in zip(key.split(":"), self.segments) if glob == "*"]
        return self.url.format(id=ids[0]) if ids and ids[0].isdigit() else ""

    @cached_property
    def segments(self) -> list[str]:
        """Split once: the key browser asks on every row it shows."""
        return self.pattern.split(":")

    def matches(self, key: str) -> bool:
        parts = key.split(":")
        return len(parts) == len(self.segments) and all(
            fnmatchcase(part, glob) for part, glob in zip(parts, self.segments)
        )

    @cached_property
    def wildcards(self) -> int:
        return sum(1 for s in self.segments if any(c in s for c in "*?["))


@dataclass
class KeySpace:
    patterns: list[KeyPattern] = field(default_factory=list)
    prefixes: dict[str, str] = field(default_factory=dict)  # app -> key prefix

    def register(self, app: str, pattern: str, type: str, modeling: str, serves: str, **extra) -> KeyPattern:
        if type not in REDIS_TYPES:
            raise ValueError(f"{pattern}: unknown Redis type {type!r}")
        prefix = self.prefixes.get(app)
        if prefix and not pattern.startswith(prefix):
            raise ValueError(f"{pattern}: keys of {app} start with {prefix!r}")
        entry = KeyPattern(app, pattern, type, modeling, serves, **extra)
        self.patterns = [p for p in self.patterns if p.pattern != pattern] + [entry]
        return entry

    def register_app(self, app: str, prefix: str) -> None:
        self.prefixes[app] = prefix

    def declarer(self, app: str) -> Callable[..., Callable[[Callable[..., str]], Callable[..., str]]]:
        """A decorator factory for ``app``'s keys.py: each key is declared once, on its function.

        ``@key("hash", modeling, serves, why=..., screens=...)`` registers the glob the function
        returns when every required parameter is ``"*"``, so the name and its registration cannot
        drift apart. A function that rewrites its argument (a digest of user input, say) names its
        glob with ``pattern=``. The function keeps working as before and carries its entry as
        ``.entry``.
        """

        def key(
            type: str, modeling: str, serves: str, *, pattern: str = "", **extra
        ) -> Callable[[Callable[..., str]], Callable[..., str]]:
            def declare(build: Callable[..., str]) -> Callable[..., str]:
                required = [
                    p
                    for p in inspect.signature(build).parameters.values()
                    if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                ]
                glob = pattern or build(*["*"] * len(required))
                if len(required) == 1 and not pattern and glob.count("*") > 1:
                    extra["of_id"] = build  # the id fills more than the one segment of the glob
                build.entry = self.register(app, glob, type, modeling, serves, **extra)
                return build

            return declare

        return key

    def match(self, key: str) -> KeyPattern | None:
        """The most specific registered pattern for ``key``."""
        candidates = [p for p in self.patterns if p.matches(key)]
        return min(candidates, key=lambda p: p.wildcards, default=None)

    def by_app(self) -> dict[str, list[KeyPattern]]:
        grouped: dict[str, list[KeyPattern]] = {}
        for entry in sorted(self.patterns, key=lambda p: (p.app, p.pattern)):
            grouped.setdefault(entry.app, []).append(entry)
        return grouped

    def prefix(self, app: str) -> str:
        return self.prefixes[app]


keyspace = KeySpace()
register = keyspace.register
register_app = keyspace.register_app
