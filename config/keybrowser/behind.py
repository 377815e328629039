""" "Keys behind this screen": a page's command trace, carried to the key browser.

The Redis panel of every page links to the browser with the page's round
trips and keys in a signed token in the URL, so the browser shows exactly
what that page sent without storing anything (it is read-only) and without
running the page again. Django's session and cache keys are masked before
they leave: a session key is a secret and must never sit in a URL.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core import signing

from config.keybrowser.display import NAME_SHOWN, hidden_prefixes
from config.trace import Command, Trace

SALT = "config.keybrowser.behind"
MAX_TOKEN = 3000  # characters: the whole URL stays under the 4 KB request line of common servers
MAX_KEYS = 100
MAX_TRIPS = 40  # round trips carried; the count of the rest is kept
MAX_COMMANDS = 12  # commands carried in all, whatever the page sent (the panel lists as many)
KEYS_EXAMINED = 40  # commands whose keys are carried, up to MAX_KEYS
HIDDEN = "‹session/cache key›"


def _masked(arg: str, hidden: tuple[str, ...]) -> str:
    return HIDDEN if arg.startswith(hidden) else arg


def command_text(command: Command, hidden: tuple[str, ...] | None = None) -> str:
    if hidden is None:
        hidden = tuple(p.decode() for p in hidden_prefixes())
    return " ".join((command.name, *(_masked(a, hidden) for a in command.args)))


def token(trace: Trace, path: str = "") -> str:
    """The signed, compressed trace, its size bounded whatever the page sent.

    At most MAX_TRIPS round trips and MAX_COMMANDS commands are carried, and
    the keys of the first KEYS_EXAMINED commands short enough to link
    (NAME_SHOWN bytes); then commands are cut per round trip until the token
    fits in a URL. Every page builds one, so its cost is bounded: the goal is
    a whole panel under 0.3 ms, whatever the page sent.
    """
    hidden = tuple(p.decode() for p in hidden_prefixes())
    budget, trips = MAX_COMMANDS, []
    for t in trace.round_trips[:MAX_TRIPS]:
        texts = [command_text(c, hidden) for c in t.commands[:budget]]
        budget -= len(texts)
        trips.append([t.origin, t.kind, round(t.ms, 2), len(t.commands), texts])
    keys: dict[str, None] = {}
    commands = (c for t in trace.round_trips for c in t.commands)
    for examined, command in enumerate(commands, 1):
        if len(keys) >= MAX_KEYS or examined > KEYS_EXAMINED:
            break
        keys.update((k, None) for k in command.keys if len(k) <= NAME_SHOWN and not k.startswith(hidden))
    keys = list(keys)[:MAX_KEYS]
    # Smaller and smaller until it fits: at most six signings, whatever the page sent.
    for shown, limit_keys in ((None, MAX_KEYS), (25, MAX_KEYS), (10, 50), (3, 50), (1, 10), (0, 10)):
        payload = {
            "p": path[:300],
            "k": keys[:limit_keys],
            "t": [[o, kind, ms, n, texts[:shown]] for o, kind, ms, n, texts in trips],
        }
        signed = signing.dumps(payload, salt=SALT, compress=True)
        if len(signed) <= MAX_TOKEN:
            return signed
    return signing.dumps({"p": path[:300], "k": keys[:10], "t": []}, salt=SALT, compress=True)


@dataclass(frozen=True)
class BehindTrip:
    origin: str
    kind: str
    ms: float
    count: int  # commands sent; more than len(commands) when the token had to cut
    commands: list[str]


@dataclass(frozen=True)
class Behind:
    path: str
    keys: list[str]
    trips: list[BehindTrip]

    def round_trips(self, origin: str | None = None) -> int:
        return sum(1 for t in self.trips if origin is None or t.origin == origin)

    @property
    def session_trips(self) -> int:
        """Round trips of Django's session and cache, whose keys are not shown."""
        return self.round_trips("django")

    @property
    def command_count(self) -> int:
        return sum(t.count for t in self.trips)

    @property
    def cut(self) -> bool:
        return any(t.count > len(t.commands) for t in self.trips)


def read(signed: str) -> Behind:
    """The trace in a token; ``signing.BadSignature`` when it was not made here."""
    data = signing.loads(signed, salt=SALT)
    trips = [
        BehindTrip(str(origin), str(kind), float(ms), int(count), [str(c) for c in commands])
        for origin, kind, ms, count, commands in data["t"]
    ]
    return Behind(str(data.get("p", "")), [str(k) for k in data["k"]], trips)
