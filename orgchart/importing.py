"""Reading the e-book's org chart files (the RedisGraph bulk-loader format of the companion
repository's tree-and-graph pattern), where names are the identifiers.

The files are read as published: a header row, the ``relationship`` column of REPORTS_TO, and
``full_time`` in the source's own words ("Full Time"/"Part Time", yes/no, true/false). Every
value rewritten on the way in is counted in the report with one example. Everything is checked
before anything is written: each refusal names its file, line and field, and one refusal means
no write at all. Names follow the web form's rules (whitespace collapsed, required, at most
100 characters, no control characters). The cycle check walks each person once: linear in the
head count, so a 200,000-person chain is checked as fast as a flat org.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from config.exchange.report import Report
from config.store import Refused
from orgchart import conf
from orgchart.documents import fold
from orgchart.forms import NAME_MAX

FILES = {
    "Employee.csv": ("name", "title"),
    "Location.csv": ("name",),
    "REPORTS_TO.csv": ("src", "dest"),
    "WORKS_AT.csv": ("src_employee", "dest_location", "full_time"),
}
# full_time in the words sources use, compared without case, spaces, dashes or underscores.
TRUE = frozenset({"true", "t", "1", "yes", "y", "fulltime", "full", "ft"})
FALSE = frozenset({"false", "f", "0", "no", "n", "parttime", "part", "pt"})
_SEPARATORS = re.compile(r"[\s_-]+")
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode's control characters (category Cc)


@dataclass
class Person:
    name: str
    title: str = ""
    manager: str | None = None  # a folded name
    location: str | None = None  # a folded name
    full_time: bool = True


@dataclass
class OrgData:
    """The graph read from the files, ready for ``store.import_graph``."""

    people: dict[str, Person] = field(default_factory=dict)  # folded name -> person, in file order
    locations: dict[str, str] = field(default_factory=dict)  # folded name -> name
    cycle_steps: int = 0  # people visited by the cycle check: at most one visit each


class ImportRefused(Refused):
    """The files were refused; ``report`` says where and why, ``errors`` as lines."""

    def __init__(self, report: Report):
        self.report = report
        self.lines = report.refusal_lines()
        super().__init__("\n".join(self.lines))


def control_character(text: str) -> str | None:
    """The first control character of ``text`` (tab and newline included), as U+XXXX, or None."""
    found = CONTROL.search(text)
    return f"U+{ord(found[0]):04X}" if found else None


def _decode(path: Path, report: Report) -> str | None:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        report.refuse(
            f"{path.name}:{line}", "", f"not UTF-8 (byte 0x{data[exc.start]:02X}); save the file as UTF-8 and retry"
        )
        return None


def _rows(path: Path, report: Report):
    """(line number, cells) of each data row; a header row naming the columns is skipped."""
    columns = FILES[path.name]
    if not path.exists():
        report.refuse(path.name, "", f"file not found in {path.parent}")
        return
    text = _decode(path, report)
    if text is None:
        return
    reader = csv.reader(io.StringIO(text, newline=""))
    line = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            limit = csv.field_size_limit()
            reason = f"a field over the CSV limit of {limit} characters" if "field limit" in str(exc) else str(exc)
            report.refuse(f"{path.name}:{reader.line_num}", "", f"unreadable CSV: {reason}")
            return
        number, line = line, reader.line_num + 1  # a quoted field may span lines: report where it starts
        if not "".join(cells).strip():
            continue
        if number == 1 and [c.strip().casefold() for c in cells[: len(columns)]] == list(columns):
            continue
        if len(cells) < len(columns):
            report.refuse(f"{path.name}:{number}", "", f"expected {', '.join(columns)}; got {len(cells)} column(s)")
            continue
        yield number, cells


def _text(cell: str, where: str, name: str, report: Report, required: bool) -> str | None:
    """A name or title by the web form's rules; None (and a refusal) when it breaks one."""
    bad = control_character(cell)
    if bad:
        report.refuse(where, name, f"contains the control character {bad}")
        return None
    value = " ".join(cell.split())
    if required and not value:
        report.refuse(where, name, "a name is required")
        return None
    if len(value) > NAME_MAX:
        report.refuse(where, name, f"longer than {NAME_MAX} characters ({len(value)})")
        return None
    if value != cell:
        report.rewrote(name, cell, value)
    return value


def _full_time(cell: str, where: str, report: Report) -> bool | None:
    word = _SEPARATORS.sub("", cell.casefold())
    if word not in TRUE | FALSE:
        report.refuse(where, "full_time", f"must be yes or no (Full Time/Part Time, true/false), not {cell!r}")
        return None
    value = word in TRUE
    if cell not in ("true", "false"):
        report.rewrote("WORKS_AT.full_time", cell, "true" if value else "false")
    return value


def read(directory: str | Path) -> tuple[OrgData, Report]:
    """Parse and check the four files; raises ``ImportRefused`` with every refusal found."""
    base = Path(directory)
    report = Report()
    data = OrgData()
    first_line: dict[str, str] = {}
    for folded, name, _ in _unique_names(base / "Location.csv", "location", first_line, report):
        data.locations[folded] = name
    for folded, name, cells in _unique_names(base / "Employee.csv", "employee", first_line, report):
        title = _text(cells[1], first_line["E" + folded], "Employee.title", report, required=False)
        data.people[folded] = Person(name, title or "")
    edge_line: dict[str, int] = {}
    for number, cells in _rows(base / "REPORTS_TO.csv", report):
        where = f"REPORTS_TO.csv:{number}"
        src, dest = fold(cells[0]), fold(cells[1])
        unknown = [(n, c) for n, c, f in (("src", cells[0], src), ("dest", cells[1], dest)) if f not in data.people]
        for column, cell in unknown:
            report.refuse(where, column, f"unknown employee {cell!r}")
        if unknown:
            continue
        person = data.people[src]
        if person.manager is not None:
            report.refuse(
                where, "src", f"{person.name!r} already reports to {data.people[person.manager].name!r} "
                f"(REPORTS_TO.csv:{edge_line[src]}): two managers for one person",
            )  # fmt: skip
            continue
        person.manager, edge_line[src] = dest, number
    _check_cycles(data, edge_line, report)
    for name in too_deep({pk: p.manager for pk, p in data.people.items()}):
        person = data.people[name]
        report.refuse(f"REPORTS_TO.csv:{edge_line[name]}", "dest", depth_refusal(person.name))
    for number, cells in _rows(base / "WORKS_AT.csv", report):
        where = f"WORKS_AT.csv:{number}"
        src, dest = fold(cells[0]), fold(cells[1])
        if src not in data.people:
            report.refuse(where, "src_employee", f"unknown employee {cells[0]!r}")
            continue
        if dest not in data.locations:
            report.refuse(where, "dest_location", f"unknown location {cells[1]!r}")
            continue
        flag = _full_time(cells[2], where, report)
        if flag is None:
            continue
        person = data.people[src]
        if person.location is not None:
            place = data.locations[person.location]
            report.refuse(where, "src_employee", f"{person.name!r} already works at {place!r}")
            continue
        person.location, person.full_time = dest, flag
    if not report.ok:
        raise ImportRefused(report)
    report.counts.update(employees=len(data.people), locations=len(data.locations))
    report.counts.update(reports_to=len(edge_line), works_at=sum(p.location is not None for p in data.people.values()))
    return data, report


def _unique_names(path: Path, kind: str, first_line: dict[str, str], report: Report):
    """(folded name, name, cells) of each row of a node file, refusing bad and duplicate names."""
    field = f"{path.stem}.name"
    for number, cells in _rows(path, report):
        where = f"{path.name}:{number}"
        name = _text(cells[0], where, field, report, required=True)
        if name is None:
            continue
        mark = kind[0].upper() + fold(name)
        if mark in first_line:
            report.refuse(where, "name", f"duplicate {kind} {name!r} (first at {first_line[mark]})")
            continue
        first_line[mark] = where
        yield mark[1:], name, cells


def _check_cycles(data: OrgData, edge_line: dict[str, int], report: Report) -> None:
    """Refuse every cycle of manager edges, naming the edge that closes it (the last in the file).

    Each person has at most one manager, so walking up from each person not yet seen, and
    stopping at anyone seen before, visits everyone once: a walk that meets its own trail
    has found a cycle."""
    walk_of: dict[str, int] = {}
    for walk, start in enumerate(data.people):
        trail, cur = [], start
        while cur is not None and cur not in walk_of:
            walk_of[cur] = walk
            trail.append(cur)
            cur = data.people[cur].manager
        data.cycle_steps += len(trail)
        if cur is not None and walk_of[cur] == walk:
            cycle = trail[trail.index(cur) :]
            closing = max(cycle, key=edge_line.__getitem__)
            person = data.people[closing]
            report.refuse(
                f"REPORTS_TO.csv:{edge_line[closing]}", "dest",
                f"{person.name!r} reporting to {data.people[person.manager].name!r} makes a cycle",
            )  # fmt: skip


def too_deep(managers: dict) -> list:
    """The first node of each branch deeper than ``conf.max_depth()`` levels in a forest given as
    {node: manager or None}, the tops at level 1: each node walked once (a cycle ends a walk)."""
    limit, level, found = conf.max_depth(), {}, []
    for start in managers:
        trail, on_trail, cur = [], set(), start
        while cur is not None and cur not in level and cur not in on_trail:
            trail.append(cur)
            on_trail.add(cur)
            cur = managers.get(cur)
        below = level.get(cur, 0) if cur is not None else 0
        for node in reversed(trail):
            below += 1
            level[node] = below
            if below == limit + 1:
                found.append(node)
    return found


def depth_refusal(name: str) -> str:
    limit = conf.max_depth()
    return (
        f"{name!r} would be more than {limit} levels down the chain of command, the most the org chart "
        f"allows (ORGCHART_MAX_DEPTH): report to someone higher up"
    )
