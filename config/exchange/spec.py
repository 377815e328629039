"""How an app describes its exchange format (``<app>/exchange.py``): its entities, each with how to export
it, check one imported document (``Record``) and write the documents back through the app's own store."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from config.exchange import store
from config.exchange.report import Report

Seen = dict[str, set]  # entity name -> the ids read so far (for references between files)


@dataclass(frozen=True)
class Writer:
    """What an entity's ``restore`` gets: who writes, and the app's id counters."""

    actor: object  # config.activity.Actor("import")
    counters: dict[str, str]  # counter name -> its INCR key
    exported: dict[str, int] = field(default_factory=dict)  # the counters as the export found them (manifest)
    highest: dict[str, int] = field(default_factory=dict)  # entity name -> the highest id its file holds

    def next_id(self, counter: str, pk: int) -> None:
        """Make the app's next INCR of ``counter`` hand out ``pk``, as an import keeps its ids."""
        store.set_counter(self.counters[counter], pk - 1)


@dataclass(frozen=True)
class Entity:
    name: str  # the file's stem and the count's label: "products" -> products.jsonl
    export: Callable[[], Iterator[dict]]  # the documents in file order
    clean: Callable[[Record], dict]  # one imported document, checked and normalized
    restore: Callable[[Iterator[dict], Writer], None]  # writes the cleaned documents through the store
    order: tuple[str, ...] = ("id",)  # fields whose values ascend strictly through the file
    # Checks of the whole file (references forward, cycles), from ``record.state``: (where, field, reason).
    verify: Callable[[dict, Seen], Iterable[tuple[str, str, str]]] | None = None
    # The key function of one document by its id (keys.product …), for the preview's counts of what an
    # import adds, changes and deletes. None: a relation or a series.
    key: store.KeyOf | None = None


@dataclass(frozen=True)
class AppExchange:
    app: str
    label: str
    entities: tuple[Entity, ...]
    counters: dict[str, str] = field(default_factory=dict)  # counter name -> INCR key
    notes: str = ""  # what the format leaves out, shown on the import screen
    # An app whose counters are not one key a name (the catalog's, one a partition) reads and raises them.
    read_counters: Callable[[], dict[str, int]] | None = None
    raise_counters: Callable[[dict[str, int]], None] | None = None
    # Every key of the app's id counters, where more than ``counters`` holds: the app holds data when one exists.
    counter_keys: Callable[[], list[str]] | None = None

    def every_counter_key(self) -> list[str]:
        return self.counter_keys() if self.counter_keys else list(self.counters.values())


_MISSING = object()
_SPACES = re.compile(r"\s+")


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode's control characters (category Cc)


def control_character(text: str, allowed: str = "") -> str | None:
    """The first control character of ``text`` not in ``allowed``, as U+XXXX, or None."""
    for found in _CONTROL.finditer(text):
        if found[0] not in allowed:
            return f"U+{ord(found[0]):04X}"
    return None


class Record:
    """One document read from a file: each reader returns the field's clean value, notes a value it had
    to rewrite (under ``entity.field``) and collects what it cannot accept."""

    def __init__(self, doc: dict, entity: str, where: str, seen: Seen, report: Report, state: dict | None = None):
        self.doc, self.entity, self.where, self.seen, self.report = doc, entity, where, seen, report
        self.state = {} if state is None else state  # kept across one file's records, for ``Entity.verify``
        self.errors: list[tuple[str, str]] = []
        self.read: set[str] = set()

    def fail(self, name: str, reason: str) -> None:
        self.errors.append((name, reason))

    def _get(self, name: str, required: bool):
        self.read.add(name)
        value = self.doc.get(name, _MISSING)
        if value is _MISSING or value is None:
            if required:
                self.fail(name, "required")
            return _MISSING
        return value

    def _rewrote(self, name: str, before, after) -> None:
        self.report.rewrote(f"{self.entity}.{name}", before, after)

    def integer(self, name: str, minimum: int | None = None, maximum: int | None = None, required=True) -> int | None:
        value = self._get(name, required)
        if value is _MISSING:
            return None
        number = value
        if isinstance(value, str) and re.fullmatch(r"\s*[+-]?[0-9]+\s*", value):
            if len(value.strip().lstrip("+-")) > 19:  # past any bound, and int() refuses thousands of digits
                self.fail(name, f"must be a whole number of at most 19 digits, not one of {len(value.strip())}")
                return None
            number = int(value)
            self._rewrote(name, value, number)
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        if isinstance(number, bool) or not isinstance(number, int):
            self.fail(name, f"must be a whole number, not {value!r}")
            return None
        if minimum is not None and number < minimum or maximum is not None and number > maximum:
            self.fail(name, f"must be between {minimum} and {maximum}, not {number}")
            return None
        return number

    def id(self, name: str = "id") -> int | None:
        return self.integer(name, 1, 2**53)

    def ref(self, name: str, entity: str, required: bool = True) -> int | None:
        """An id of a document of ``entity`` read before (in its own file, or earlier in this one)."""
        if not required and self.doc.get(name) is None:
            self.read.add(name)
            return None
        pk = self.integer(name, 1, 2**53, required=required)
        if pk is not None and pk not in self.seen.get(entity, ()):
            self.fail(name, f"no {entity.rstrip('s')} has id {pk}")
            return None
        return pk

    def number(self, name: str, required: bool = True) -> float | None:
        value = self._get(name, required)
        if value is _MISSING:
            return None
        number = value
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                number = None
            else:
                self._rewrote(name, value, number)
        if isinstance(number, int) and not isinstance(number, bool) and abs(number) > 2**63:
            number = None  # past any stored number, and past what a float holds exactly (or at all)
        if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number):
            self.fail(name, f"must be a number, not {value!r}")
            return None
        return float(number) if isinstance(number, float) else number

    def text(
        self, name: str, max_length: int | None = None, required: bool = False, multiline: bool = False
    ) -> str | None:
        """A string: one-line text has its whitespace collapsed, as the forms do; multi-line text keeps
        tabs and newlines. Control characters are refused."""
        value = self._get(name, required)
        if value is _MISSING:
            return "" if not required else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            self._rewrote(name, value, str(value))
            value = str(value)
        if not isinstance(value, str):
            self.fail(name, f"must be text, not {type(value).__name__}")
            return None
        bad = control_character(value, "\t\n\r" if multiline else "")
        if bad:
            self.fail(name, f"contains the control character {bad}")
            return None
        clean = value if multiline else _SPACES.sub(" ", value).strip()
        if clean != value:
            self._rewrote(name, value, clean)
        if required and not clean.strip():
            self.fail(name, "required")
            return None
        if max_length is not None and len(clean) > max_length:
            self.fail(name, f"longer than {max_length} characters ({len(clean)})")
            return None
        return clean

    def choice(self, name: str, choices: Iterable[str], required: bool = True) -> str | None:
        """One of ``choices``, in any case and spacing (rewritten to the stored spelling)."""
        value = self.text(name, required=required)
        if not value:
            return value
        by_fold = {_fold(c): c for c in choices}
        found = by_fold.get(_fold(value))
        if found is None:
            self.fail(name, f"{value!r} is not one of {', '.join(sorted(by_fold.values()))}")
            return None
        if found != value:
            self._rewrote(name, value, found)
        return found

    def boolean(self, name: str, default: bool | None = None) -> bool | None:
        """true/false, or the source's own words: yes/no, 1/0, "Full Time"/"Part Time"."""
        value = self._get(name, default is None)
        if value is _MISSING:
            return default
        if isinstance(value, bool):
            return value
        word = _fold(str(value))
        if word in _TRUE | _FALSE:
            self._rewrote(name, value, word in _TRUE)
            return word in _TRUE
        self.fail(name, f"must be true or false (yes/no), not {value!r}")
        return None

    def texts(self, name: str, max_items: int | None = None, max_length: int | None = None) -> list[str] | None:
        value = self._get(name, False)
        if value is _MISSING:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(name, "must be a list of text")
            return None
        if max_items is not None and len(value) > max_items:
            self.fail(name, f"at most {max_items} items ({len(value)})")
            return None
        for item in value:
            bad = control_character(item)
            if bad or (max_length is not None and len(item) > max_length):
                self.fail(
                    name, f"item {item[:40]!r} " + (f"contains {bad}" if bad else f"over {max_length} characters")
                )
                return None
        return list(value)

    def mapping(self, name: str) -> dict | None:
        return self._container(name, dict, "must be an object")

    def list(self, name: str) -> list | None:
        return self._container(name, list, "must be a list")

    def _container(self, name: str, kind: type, refusal: str):
        """The field's value when it is a ``kind`` (empty when absent), else None with ``refusal``."""
        value = self._get(name, False)
        if value is _MISSING:
            return kind()
        if not isinstance(value, kind):
            self.fail(name, refusal)
            return None
        return value

    def form_field(self, name: str, form_field, value=_MISSING):
        """``value`` (by default the document's own) through one field of the app's web form, so an import
        follows the screen's rules; the cleaned value, or None with its message."""
        from django.core.exceptions import ValidationError

        if value is _MISSING:
            value = self._get(name, False)
            value = None if value is _MISSING else value
        try:
            return form_field.clean(value)
        except ValidationError as exc:
            self.fail(name, " ".join(exc.messages))
            return None

    def form(self, form_class, names: Iterable[str], **values):
        """The app's web form over the fields ``names`` (``values`` override them), or None with its messages."""
        data = {}
        for name in names:
            value = values[name] if name in values else self._get(name, False)
            data[name] = "" if value is _MISSING or value is None else value
        bound = form_class(data=data)
        if bound.is_valid():
            return bound
        for name, messages in bound.errors.items():
            self.fail(name if name != "__all__" else "", " ".join(messages))
        return None

    def unknown(self) -> list[str]:
        return sorted(set(self.doc) - self.read)


_TRUE = frozenset({"true", "t", "1", "yes", "y", "on", "fulltime", "full", "ft"})
_FALSE = frozenset({"false", "f", "0", "no", "n", "off", "parttime", "part", "pt"})


def _fold(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text.casefold())
