""" "Keys behind this screen": a page's command trace, carried to the key browser.

The Redis panel of every page links to the browser with the page's round
trips and keys in a signed token in the URL, so the browser shows exactly
what that page sent without storing anything (it is read-only) and without
running the page again. Django's session and cache keys are masked before
they leave: a session key is a secret and must never sit in a URL.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.core import signing

from config.keybrowser.display import NAME_SHOWN, hidden_prefixes
from config.trace import ARG_CHARS, Command, Trace

SALT = "config.keybrowser.behind"
MAX_TOKEN = 3400  # characters: the whole URL stays under the 4 KB request line of common servers (gunicorn: 4,094)
MAX_KEYS = 100
MAX_TRIPS = 40  # round trips carried; the count of the rest is kept
MAX_COMMANDS = 12  # commands carried in all, whatever the page sent (the panel lists as many)
# Commands whose keys are carried, up to MAX_KEYS: those the token carries, so that no other
# command of the page is parsed (a pipeline of hundreds costs its panel nothing more).
KEYS_EXAMINED = MAX_COMMANDS
HIDDEN = "‹session/cache key›"


def _hidden_strings() -> tuple[str, ...]:
    return tuple(p.decode() for p in hidden_prefixes())


def _shown(command: Command, hidden: tuple[str, ...]) -> list:
    """A command as the token carries it: its name, then each shown argument, a key as a
    one-item list (so the list can link it), a session or cache key masked, and a key too
    long to link as its cut text with its length."""
    shown: list = [command.name]
    for text, key in zip(command.args, command.arg_keys):
        if text.startswith(hidden) or (key and key.startswith(hidden)):
            shown.append(HIDDEN)
        elif not key:
            shown.append(text)
        elif len(key) > NAME_SHOWN:
            shown.append(f"{text} ({len(key.encode())} bytes)")
        else:
            shown.append([key])
    return shown


def command_text(command: Command, hidden: tuple[str, ...] | None = None) -> str:
    """The command as one line, its session and cache keys masked."""
    return str(BehindCommand.of(_shown(command, _hidden_strings() if hidden is None else hidden)))


def token(trace: Trace, path: str = "") -> str:
    """The signed trace (compressed when it must be), its size bounded whatever the page sent.

    At most MAX_TRIPS round trips and MAX_COMMANDS commands are carried, and
    the keys of the first KEYS_EXAMINED commands short enough to link
    (NAME_SHOWN bytes); then commands are cut per round trip until the token
    fits in a URL. Every page builds one, so its cost is bounded: the goal is
    a whole panel under 0.3 ms, whatever the page sent.
    """
    hidden = _hidden_strings()
    budget, trips = MAX_COMMANDS, []
    for t in trace.round_trips[:MAX_TRIPS]:
        shown = [_shown(c, hidden) for c in t.commands[:budget]]
        budget -= len(shown)
        trips.append([t.origin, t.kind, round(t.ms, 2), len(t.commands), shown, t.node or "", (t.error or "")[:200]])
    keys: dict[str, None] = {}
    commands = (c for t in trace.round_trips for c in t.commands)
    for examined, command in enumerate(commands, 1):
        if len(keys) >= MAX_KEYS or examined > KEYS_EXAMINED:
            break
        keys.update((k, None) for k in command.keys if len(k) <= NAME_SHOWN and not k.startswith(hidden))
    keys = list(keys)[:MAX_KEYS]
    # Smaller and smaller until it fits: at most six signings, whatever the page sent. The prefix table is
    # of the keys carried, so it is cut with them.
    for shown_count, limit_keys in ((None, MAX_KEYS), (25, MAX_KEYS), (10, 50), (3, 50), (1, 10), (0, 10)):
        prefixes, rests = _packed(keys[:limit_keys])
        payload = {
            "p": path[:300],
            "kp": prefixes,
            "k": rests,
            "t": [[o, kind, ms, n, shown[:shown_count], *rest] for o, kind, ms, n, shown, *rest in trips],
        }
        signed = _signed(payload)
        if len(signed) <= MAX_TOKEN:
            return signed
    prefixes, rests = _packed(keys[:10])
    return _signed({"p": path[:300], "kp": prefixes, "k": rests, "t": []})


def _packed(keys: list[str]) -> tuple[list[str], list[list]]:
    """The keys as a table of their prefixes (each up to its last ``:``) and, key by key, its
    prefix's place in it and the rest: a page's keys share a few prefixes (fifty reviews, a
    sensor's hours), which written once keep most tokens small enough to go uncompressed."""
    places: dict[str, int] = {}
    packed = []
    for key in keys:
        head, colon, rest = key.rpartition(":")
        if not colon:
            packed.append([-1, key])
            continue
        place = places.get(head)
        if place is None:
            place = places[head] = len(places)
        packed.append([place, rest])
    return [f"{head}:" for head in places], packed


def _unpacked(data: dict) -> list[str]:
    """The keys of a token (``_packed``); a token made before the keys were packed lists them whole."""
    if "kp" not in data:
        return [str(k) for k in data["k"]]
    prefixes = [str(p) for p in data["kp"]]
    return [str(rest) if place < 0 else prefixes[place] + str(rest) for place, rest in data["k"]]


# JSON of at most this many bytes fits in MAX_TOKEN as it is (base64 adds a third, the signature and
# its timestamp some 60 characters).
RAW_FITS = (MAX_TOKEN - 80) * 3 // 4


class _Serialized:
    """``signing.dumps``'s serializer for a payload already serialized; ``signing.loads`` reads it
    back as JSON, as Django's own serializer writes it."""

    def dumps(self, obj: bytes) -> bytes:
        return obj


def _signed(payload: dict) -> str:
    """The payload signed, compressed only when it would not fit in a URL as it is: most pages' traces
    fit, and zlib's set-up (its window and tables, some 256 kB) costs a page more than the rest of
    the signing."""
    data = json.dumps(payload, separators=(",", ":")).encode()
    return signing.dumps(data, salt=SALT, serializer=_Serialized, compress=len(data) > RAW_FITS)


@dataclass(frozen=True)
class BehindCommand:
    name: str
    args: tuple[tuple[str, str], ...]  # (shown text, the key it names or "")

    @classmethod
    def of(cls, shown) -> BehindCommand:
        """From the token's form (``_shown``); a command as plain text (an older token) has no links."""
        if isinstance(shown, str):
            return cls(shown, ())
        name, *rest = shown
        args = []
        for arg in rest:
            if isinstance(arg, list):
                key = str(arg[0])
                args.append((key if len(key) <= ARG_CHARS else key[: ARG_CHARS - 1] + "…", key))
            else:
                args.append((str(arg), ""))
        return cls(str(name), tuple(args))

    def __str__(self) -> str:
        return " ".join((self.name, *(text for text, _ in self.args)))


@dataclass(frozen=True)
class BehindTrip:
    origin: str
    kind: str
    ms: float
    count: int  # commands sent; more than len(commands) when the token had to cut
    commands: list[BehindCommand]
    node: str = ""  # the cluster node it went to; "" on one server
    error: str = ""


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
        BehindTrip(
            str(origin), str(kind), float(ms), int(count), [BehindCommand.of(c) for c in commands], *map(str, rest[:2])
        )
        for origin, kind, ms, count, commands, *rest in data["t"]
    ]
    return Behind(str(data.get("p", "")), _unpacked(data), trips)
