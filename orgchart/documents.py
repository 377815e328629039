"""The stored documents of the org chart, and their conversion to and from hash fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

SCHEMA = 2  # 2: no materialized chain; the folded name is kept for the scripts


def fold(name: str) -> str:
    """The form of a name that indexes compare: case and surrounding space ignored."""
    return " ".join(name.split()).casefold()


def _int(value) -> int | None:
    return int(value) if value not in (None, "") else None


@dataclass
class Employee:
    """A node of the org chart. ``manager`` and ``location`` are its outgoing edges;
    ``direct`` and ``total`` are derived counts of the reports below it. The chain of command
    is not stored: the store walks up the ``manager`` fields."""

    id: int
    name: str
    title: str = ""
    location: int | None = None
    manager: int | None = None
    full_time: bool = True
    direct: int = 0
    total: int = 0
    location_name: str = ""  # embedded copy of the location's name, rewritten when it is renamed
    schema: int = SCHEMA
    version: int = 1  # counts the saves of what the edit form shows: its stale-edit token (0: never counted)

    # Fields a list or a tree node shows, in HMGET order.
    SUMMARY_FIELDS: ClassVar[tuple[str, ...]] = (
        "name",
        "title",
        "location",
        "location_name",
        "manager",
        "full_time",
        "direct",
        "total",
    )

    def to_hash(self) -> dict[str, str]:
        return {
            "schema": str(self.schema),
            "name": self.name,
            "title": self.title,
            "location": "" if self.location is None else str(self.location),
            "manager": "" if self.manager is None else str(self.manager),
            "full_time": "1" if self.full_time else "0",
            "direct": str(self.direct),
            "total": str(self.total),
            "location_name": self.location_name,
            "folded": fold(self.name),
            "version": str(self.version),
        }

    @classmethod
    def from_hash(cls, pk: int, data: dict) -> Employee:
        return cls(
            id=int(pk),
            name=data.get("name") or "",
            title=data.get("title") or "",
            location=_int(data.get("location")),
            manager=_int(data.get("manager")),
            full_time=data.get("full_time", "1") != "0",
            direct=int(data.get("direct") or 0),
            total=int(data.get("total") or 0),
            location_name=data.get("location_name") or "",
            schema=int(data.get("schema") or SCHEMA),
            version=int(data.get("version") or 0),
        )

    @classmethod
    def from_summary(cls, pk: int, values: list) -> Employee:
        return cls.from_hash(pk, dict(zip(cls.SUMMARY_FIELDS, values)))


@dataclass
class Location:
    id: int
    name: str
    schema: int = SCHEMA
    version: int = 1  # counts its saves: the stale-edit token of its form (0: never counted)

    def to_hash(self) -> dict[str, str]:
        return {"schema": str(self.schema), "name": self.name, "folded": fold(self.name), "version": str(self.version)}

    @classmethod
    def from_hash(cls, pk: int, data: dict) -> Location:
        return cls(
            id=int(pk),
            name=data.get("name") or "",
            schema=int(data.get("schema") or SCHEMA),
            version=int(data.get("version") or 0),
        )
