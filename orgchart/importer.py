"""Reading the e-book's org chart files (the RedisGraph bulk-loader format), where names are the
identifiers. Everything is checked before anything is written: each error names its file and
line, and one bad line means no write at all."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from orgchart.documents import fold

FILES = {
    "Employee.csv": ("name", "title"),
    "Location.csv": ("name",),
    "REPORTS_TO.csv": ("src", "dest"),
    "WORKS_AT.csv": ("src_employee", "dest_location", "full_time"),
}
TRUE, FALSE = {"true", "1", "yes", "y", "t", "full", "full_time"}, {"false", "0", "no", "n", "f", "part", "part_time"}
NAME_MAX = 100


@dataclass
class Person:
    name: str
    title: str = ""
    manager: str | None = None  # a name
    location: str | None = None  # a name
    full_time: bool = True


@dataclass
class OrgData:
    """The graph read from the files, ready for ``store.import_graph``."""

    people: dict[str, Person] = field(default_factory=dict)  # folded name -> person, in file order
    locations: dict[str, str] = field(default_factory=dict)  # folded name -> name


class ImportError_(Exception):
    def __init__(self, errors: list[str]):
        super().__init__("\n".join(errors))
        self.errors = errors


def _rows(path: Path, columns: tuple[str, ...], errors: list[str]):
    """(line number, cells) of each data row; a header row naming the columns is skipped."""
    if not path.exists():
        errors.append(f"{path.name}: file not found in {path.parent}")
        return
    with path.open(newline="", encoding="utf-8-sig") as handle:
        for number, cells in enumerate(csv.reader(handle), start=1):
            cells = [c.strip() for c in cells]
            if not any(cells):
                continue
            if number == 1 and [c.casefold() for c in cells[: len(columns)]] == list(columns):
                continue
            if len(cells) < len(columns):
                errors.append(f"{path.name}:{number}: expected {', '.join(columns)}; got {len(cells)} column(s)")
                continue
            yield number, cells


def _name(cell: str, where: str, errors: list[str]) -> str | None:
    name = " ".join(cell.split())
    if not name:
        errors.append(f"{where}: empty name")
        return None
    if len(name) > NAME_MAX:
        errors.append(f"{where}: name longer than {NAME_MAX} characters")
        return None
    return name


def read(directory: str | Path) -> OrgData:
    """Parse and check the four files; raises ``ImportError_`` with every error found."""
    base = Path(directory)
    errors: list[str] = []
    data = OrgData()
    first_line: dict[str, str] = {}
    for folded, name in _unique_names(base / "Location.csv", "location", first_line, errors):
        data.locations[folded] = name
    for folded, name, cells in _unique_names(base / "Employee.csv", "employee", first_line, errors, rows=True):
        data.people[folded] = Person(name, cells[1][:NAME_MAX])
    for number, cells in _rows(base / "REPORTS_TO.csv", FILES["REPORTS_TO.csv"], errors):
        where = f"REPORTS_TO.csv:{number}"
        src, dest = fold(cells[0]), fold(cells[1])
        unknown = [c for c, f in ((cells[0], src), (cells[1], dest)) if f not in data.people]
        if unknown:
            errors.append(f"{where}: unknown employee {', '.join(map(repr, unknown))}")
            continue
        person = data.people[src]
        if person.manager is not None:
            errors.append(
                f"{where}: {person.name!r} already reports to {data.people[person.manager].name!r} "
                f"({first_line['R' + src]}): two managers for one person"
            )
            continue
        if src == dest or _reaches(data, dest, src):
            errors.append(f"{where}: {person.name!r} reporting to {data.people[dest].name!r} makes a cycle")
            continue
        person.manager = dest
        first_line["R" + src] = where
    for number, cells in _rows(base / "WORKS_AT.csv", FILES["WORKS_AT.csv"], errors):
        where = f"WORKS_AT.csv:{number}"
        src, dest, flag = fold(cells[0]), fold(cells[1]), cells[2].casefold()
        if src not in data.people:
            errors.append(f"{where}: unknown employee {cells[0]!r}")
            continue
        if dest not in data.locations:
            errors.append(f"{where}: unknown location {cells[1]!r}")
            continue
        if flag not in TRUE | FALSE:
            errors.append(f"{where}: full_time must be true or false, not {cells[2]!r}")
            continue
        person = data.people[src]
        if person.location is not None:
            errors.append(f"{where}: {person.name!r} already works at {data.locations[person.location]!r}")
            continue
        person.location, person.full_time = dest, flag in TRUE
    if errors:
        raise ImportError_(errors)
    return data


def _unique_names(path: Path, kind: str, first_line: dict[str, str], errors: list[str], rows: bool = False):
    """(folded name, name[, cells]) of each row of a node file, refusing empty and duplicate names."""
    for number, cells in _rows(path, FILES[path.name], errors):
        where = f"{path.name}:{number}"
        name = _name(cells[0], where, errors)
        if name is None:
            continue
        mark = kind[0].upper() + fold(name)
        if mark in first_line:
            errors.append(f"{where}: duplicate {kind} {name!r} (first at {first_line[mark]})")
            continue
        first_line[mark] = where
        yield (fold(name), name, cells) if rows else (fold(name), name)


def _reaches(data: OrgData, start: str, goal: str) -> bool:
    """Whether ``goal`` is ``start`` or above it through the manager edges read so far."""
    seen, cur = set(), start
    while cur is not None and cur not in seen:
        if cur == goal:
            return True
        seen.add(cur)
        cur = data.people[cur].manager
    return False
