""" "Keys behind this screen": a page's command trace, carried to the key browser.

The Redis panel of every page links to the browser with the page's round trips and keys in a
signed token in the URL, so the browser shows exactly what that page sent without storing
anything (it is read-only) and without running the page again. Django's session and cache keys
are masked before they leave: a session key is a secret and must never sit in a URL.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core import signing

from config.keybrowser.display import NAME_SHOWN, hidden_prefixes
from config.trace import ARG_CHARS, ARGS_SHOWN, Command, Trace, as_text

SALT = "config.keybrowser.behind.v2"  # commands carried as sent: a link of the form before is refused, as forged
MAX_TOKEN = 3400  # characters: the whole URL stays under the 4 KB request line of common servers (gunicorn: 4,094)
MAX_KEYS = 100
MAX_TRIPS = 40  # round trips carried; the count of the rest is kept
MAX_COMMANDS = 12  # commands carried in all, whatever the page sent (the panel lists as many)
CARRIED_ARGS = ARGS_SHOWN  # a command's arguments carried after its name: as many as the list shows
HIDDEN = "‹session/cache key›"
# Smaller and smaller until it fits: (commands carried per round trip, keys carried beside them).
FITTING = ((None, MAX_KEYS), (3, 25), (1, 10), (0, 0))


def _hidden_strings() -> tuple[str, ...]:
    return tuple(p.decode() for p in hidden_prefixes())


@lru_cache(maxsize=8)
def _hidden_in(hidden: tuple[str, ...]) -> re.Pattern:
    """Finds a hidden prefix anywhere in a command's text: where none is, no argument starts with one."""
    return re.compile("|".join(map(re.escape, hidden)) or "(?!)")


def _carried(command: Command, hidden: tuple[str, ...]) -> tuple[int, list, list[str] | None]:
    """A command as the token carries it, worked out no further than a page must: its argument count;
    its name and first CARRIED_ARGS arguments as text (a session or cache key masked, one longer than
    NAME_SHOWN cut, with its length); its keys only where those arguments cannot tell them."""
    sent = command.sent
    texts: list = [arg if type(arg) is str else as_text(arg) for arg in sent[: CARRIED_ARGS + 1]]
    joined = "".join(texts)
    if len(joined) > NAME_SHOWN or _hidden_in(hidden).search(joined):
        for place, text in enumerate(texts):
            if text.startswith(hidden):
                texts[place] = HIDDEN
            elif len(text) > NAME_SHOWN:
                raw = sent[place]
                texts[place] = [text[:NAME_SHOWN], len(raw) if type(raw) is bytes else len(text.encode())]
    keys = None
    if command.given is not None or len(sent) > CARRIED_ARGS + 1:
        keys = [k for k in command.keys if len(k) <= NAME_SHOWN and not k.startswith(hidden)]
        named = set(keys)  # its keys known, what is not one is cut as the list will show it (a script's source)
        for place, text in enumerate(texts):
            if type(text) is list:
                text[0] = text[0][: ARG_CHARS + 1]
            elif len(text) > ARG_CHARS and text not in named:
                texts[place] = text[: ARG_CHARS + 1]
    return len(sent) - 1, texts, keys


def token(trace: Trace, path: str = "") -> str:
    """The signed trace, its size bounded whatever the page sent: at most MAX_TRIPS round trips and
    MAX_COMMANDS commands, each as sent (which arguments are keys is worked out when the token is
    read, so every page pays for a few strings a command), cut per round trip until it fits a URL."""
    hidden = _hidden_strings()
    budget, trips = MAX_COMMANDS, []
    for trip in trace.round_trips[:MAX_TRIPS]:
        carried = [_carried(c, hidden) for c in trip.commands[:budget]]
        budget -= len(carried)
        trips.append((trip, carried))
    for carried_count, carried_keys in FITTING:
        keys: list[str] = []  # the keys the commands' own carried arguments cannot tell, a span each
        shown = []
        for trip, carried in trips:
            commands = []
            for count, texts, own_keys in carried[:carried_count]:
                if own_keys is None:
                    commands.append([count, texts])
                    continue
                kept = own_keys[: max(0, carried_keys - len(keys))]
                commands.append([count, texts, len(keys), len(kept)])
                keys += kept
            shown.append([trip.origin, trip.kind, round(trip.ms, 2), len(trip.commands), commands])
            if trip.node or trip.error:
                shown[-1] += [trip.node or "", (trip.error or "")[:200]]
        payload = {"p": path[:300], "t": shown}
        if keys:
            payload["kp"], payload["k"] = _packed(keys)
        signed = _signed(payload)
        if len(signed) <= MAX_TOKEN:
            return signed
    return _signed({"p": path[:300], "t": []})


def _packed(keys: list[str]) -> tuple[list[str], list[list]]:
    """The keys as a table of their prefixes (up to the last ``:``) and, key by key, its prefix's place
    and the rest: a page's keys share a few prefixes, which written once keep most tokens uncompressed."""
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
    """The keys of a token, as ``_packed`` wrote them."""
    prefixes = [str(p) for p in data.get("kp", ())]
    return [str(rest) if place < 0 else prefixes[place] + str(rest) for place, rest in data.get("k", ())]


# JSON of at most this many bytes fits in MAX_TOKEN as it is (base64 adds a third, the signature and
# its timestamp some 60 characters).
RAW_FITS = (MAX_TOKEN - 80) * 3 // 4


class _Serialized:
    """``signing.dumps``'s serializer for a payload already JSON, which ``signing.loads`` reads back."""

    def dumps(self, obj: bytes) -> bytes:
        return obj


def _signed(payload: dict) -> str:
    """The payload signed, compressed only when it would not fit in a URL as it is: most pages' traces
    fit, and zlib's set-up (its window and tables, some 256 kB) costs a page more than the rest of
    the signing."""
    data = json.dumps(payload, separators=(",", ":")).encode()
    return _signer(settings.SECRET_KEY, tuple(settings.SECRET_KEY_FALLBACKS)).sign_object(
        data, serializer=_Serialized, compress=len(data) > RAW_FITS
    )


@lru_cache(maxsize=4)
def _signer(secret: str, fallbacks: tuple[str, ...]) -> signing.TimestampSigner:
    """``signing.dumps``'s signer, made once per secret: making it reads the settings each time,
    a fifth of a page's signing. ``signing.loads`` checks what it signs."""
    return signing.TimestampSigner(key=secret, fallback_keys=list(fallbacks), salt=SALT)


@dataclass(frozen=True)
class BehindCommand:
    name: str
    args: tuple[tuple[str, str], ...]  # (shown text, the key it names or "")
    keys: tuple[str, ...] = ()  # the keys it names that the key browser may show

    @classmethod
    def of(cls, carried: list, table: list[str]) -> BehindCommand:
        """From the token's form (``_carried``): which arguments are keys (its span of ``table``, else
        those its name says), each cut for showing, one too long to carry with its length."""
        count, texts, *span = carried
        plain = tuple(str(t[0]) if isinstance(t, list) else str(t) for t in texts)
        given = table[span[0] : span[0] + span[1]] if span else None
        command = Command(plain, given)
        long = {str(t[0]): int(t[1]) for t in texts[1:] if isinstance(t, list)}
        keys = tuple(k for k in command.keys if k != HIDDEN and k not in long)
        args = []
        for text, shown in zip(plain[1:], command.args):
            if text in long:
                args.append((f"{shown} ({long[text]} bytes)", ""))
            else:
                args.append((shown, text if text in keys else ""))
        if count > CARRIED_ARGS:
            args.append((f"…(+{count - CARRIED_ARGS})", ""))
        return cls(command.name, tuple(args), keys)

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

    @property
    def unlisted(self) -> int:
        return self.count - len(self.commands)


@dataclass(frozen=True)
class Behind:
    path: str
    keys: list[str]
    trips: list[BehindTrip]

    def round_trips(self, origin: str | None = None) -> int:
        return sum(1 for t in self.trips if origin is None or t.origin == origin)

    @property
    def session_trips(self) -> int:
        return self.round_trips("django")

    @property
    def command_count(self) -> int:
        return sum(t.count for t in self.trips)

    @property
    def cut(self) -> bool:
        return any(t.count > len(t.commands) for t in self.trips)


def read(signed: str) -> Behind:
    """The trace in a token (``signing.BadSignature`` when not made here), with the keys its carried
    commands name, in order, at most MAX_KEYS."""
    data = signing.loads(signed, salt=SALT)
    table = _unpacked(data)
    trips = [
        BehindTrip(
            str(origin),
            str(kind),
            float(ms),
            int(count),
            [BehindCommand.of(c, table) for c in commands],
            *map(str, rest[:2]),
        )
        for origin, kind, ms, count, commands, *rest in data["t"]
    ]
    keys = dict.fromkeys(key for trip in trips for command in trip.commands for key in command.keys)
    return Behind(str(data.get("p", "")), list(keys)[:MAX_KEYS], trips)
