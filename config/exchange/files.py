"""The files of an export: one JSON Lines file per entity and ``manifest.json``; reading them back with
every problem named by file and line; and the zip the screens download and upload, unpacked within bounds."""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from config.exchange.report import Report
from config.store import Refused

FORMAT = 1
MANIFEST = "manifest.json"
# The bytes of one document's line, for the export and the import alike. A CMS post at the default cap of
# 100 revisions, each with a body of 20,000 characters of the widest JSON (6 bytes each), is 12 MB.
MAX_LINE = 64 * 1024 * 1024
MAX_DEPTH = 32  # nesting of one document; the formats need 3


def dumps(doc: dict) -> str:
    """The one formatting of a document: stable, so the same data gives the same bytes."""
    return json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class TooLong(Refused):
    """A document longer than ``MAX_LINE``: the export stops rather than write a file no import reads."""


def write_lines(path: Path, docs: Iterable[dict], advance=lambda n: None) -> int:
    count = 0
    with path.open("wb") as handle:
        for doc in docs:
            line = dumps(doc).encode("utf-8")
            if len(line) > MAX_LINE:
                named = f"id {doc['id']}" if "id" in doc else f"line {count + 1}"
                raise TooLong(
                    f"{path.name}: the document of {named} is {len(line):,} bytes written out, over the "
                    f"{MAX_LINE:,} bytes an import reads in one line"
                )
            handle.write(line + b"\n")
            count += 1
            advance(1)
    return count


def write_manifest(folder: Path, app: str, counts: dict[str, int], counters: dict[str, int]) -> None:
    manifest = {"format": FORMAT, "app": app, "counts": counts, "counters": counters}
    (folder / MANIFEST).write_text(json.dumps(manifest, sort_keys=True, indent=2) + "\n", encoding="utf-8")


def read_manifest(folder: Path, app: str, report: Report) -> dict:
    path = folder / MANIFEST
    if not path.exists():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        report.refuse(MANIFEST, "", f"unreadable: {exc}")
        return {}
    if not isinstance(manifest, dict):
        report.refuse(MANIFEST, "", "must be a JSON object")
        return {}
    if manifest.get("app") != app:
        report.refuse(MANIFEST, "app", f"this export is of {manifest.get('app')!r}, not {app!r}")
    if manifest.get("format") != FORMAT:
        report.refuse(MANIFEST, "format", f"format {manifest.get('format')!r} is not {FORMAT}")
    counters = manifest.get("counters")
    if not isinstance(counters, dict) or not all(isinstance(v, int) and v >= 0 for v in counters.values()):
        report.refuse(MANIFEST, "counters", "must map each counter to a whole number")
        return {}
    return manifest


def _depth(value, limit: int) -> bool:
    """Whether ``value`` nests deeper than ``limit`` (iterative: a hostile file cannot blow the stack)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if level > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return False


def _parsed(raw: bytes) -> dict | str:
    """The document of one line, or why it is refused."""
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte 0x{raw[exc.start]:02X} at column {exc.start + 1})"
    except RecursionError:
        return "nesting too deep to read"
    except ValueError as exc:
        return f"not JSON: {exc}"
    if not isinstance(doc, dict):
        return "each line must be one JSON object"
    return f"nested deeper than {MAX_DEPTH} levels" if _depth(doc, MAX_DEPTH) else doc


def read_lines(path: Path, report: Report) -> Iterator[tuple[int, dict]]:
    """(line number, document) of each line; an unreadable line is refused with its number."""
    with path.open("rb") as handle:
        number = 0
        while raw := handle.readline(MAX_LINE + 1):
            number += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                report.refuse(f"{path.name}:{number}", "", f"line longer than {MAX_LINE:,} bytes")
                while raw and not raw.endswith(b"\n"):  # skip the rest of it
                    raw = handle.readline(MAX_LINE)
                continue
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw.strip():
                continue
            doc = _parsed(raw)
            if isinstance(doc, str):
                report.refuse(f"{path.name}:{number}", "", doc)
                continue
            yield number, doc


def pack(folder: Path, target) -> None:
    """Zip the export in ``folder`` (its files only, sorted) into ``target`` (a path or a file object)."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                archive.write(path, path.name)


class Unreadable(Refused):
    """An upload that is not an export: the message says why."""


def unpack(source, folder: Path, allowed: set[str], max_bytes: int) -> list[str]:
    """Extract an uploaded zip into ``folder``: only the export's own file names, flat, and at most
    ``max_bytes`` once unpacked (counted as read, not from the zip's own claims)."""
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise Unreadable(f"not a zip file ({exc})") from None
    names = []
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        unknown = sorted(m.filename for m in members if m.filename not in allowed)
        if unknown:
            raise Unreadable(
                f"unexpected file(s) in the zip: {', '.join(unknown[:5])}; expected {', '.join(sorted(allowed))}"
            )
        total = 0
        for member in members:
            target = folder / member.filename
            try:
                with archive.open(member) as src, target.open("wb") as out:
                    while chunk := src.read(1 << 20):
                        total += len(chunk)
                        if total > max_bytes:
                            raise Unreadable(f"more than {max_bytes // (1024 * 1024)} MB once unpacked")
                        out.write(chunk)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
                raise Unreadable(f"{member.filename}: damaged in the zip ({exc})") from None
            names.append(member.filename)
    if not names:
        raise Unreadable("the zip holds no file")
    return names
