"""The stored documents, their schema versions, and conversion to and from hash fields.

People follow the e-book's schema version example: schema 1 is ``{name, email}``, schema 2
``{name, contact, emails: list}``. Reads accept both; every write stores schema 2, produced by
``translate`` (the one place that knows how to upgrade), so a document is upgraded when it is next
written, never at read time.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

COURSE_SCHEMA = 1
PERSON_SCHEMA = 2


@dataclass(frozen=True)
class Course:
    id: int
    code: str
    title: str
    description: str = ""
    capacity: int = 30
    schema: int = COURSE_SCHEMA

    @property
    def label(self) -> str:
        return f"{self.code} {self.title}"

    def to_hash(self) -> dict[str, str]:
        return {name: str(getattr(self, name)) for name in ("code", "title", "description", "capacity", "schema")}

    @classmethod
    def from_hash(cls, pk: int, fields: dict[str, str]) -> Course:
        text = [fields.get(name, "") for name in ("code", "title", "description")]
        return cls(pk, *text, _int(fields.get("capacity"), 0), _int(fields.get("schema"), COURSE_SCHEMA))


def translate(fields: dict[str, str]) -> dict[str, str]:
    """Any stored person hash -> schema 2 fields (the e-book's translate function); schema 2 passes through."""
    if fields.get("schema") == "2":
        return {k: fields[k] for k in ("schema", "name", "contact", "emails") if k in fields}
    email = fields.get("email", "")
    emails = json.dumps([email] if email else [])
    return {"schema": "2", "name": fields.get("name", ""), "contact": email, "emails": emails}


@dataclass(frozen=True)
class Person:
    """An instructor or a student, whatever schema it is stored at."""

    id: int
    name: str
    contact: str = ""
    emails: list[str] = field(default_factory=list)
    schema: int = PERSON_SCHEMA

    @property
    def label(self) -> str:
        return self.name

    @property
    def other_emails(self) -> list[str]:
        return [e for e in self.emails if e != self.contact]

    def to_hash(self) -> dict[str, str]:
        """Always schema 2: writing a document is what upgrades it."""
        emails = [self.contact, *(e for e in self.emails if e != self.contact)] if self.contact else list(self.emails)
        return {"schema": "2", "name": self.name, "contact": self.contact, "emails": json.dumps(emails)}

    @classmethod
    def from_hash(cls, pk: int, fields: dict[str, str]) -> Person:
        """Reads both versions, leaving the stored version visible in ``schema``."""
        upgraded = translate(fields)
        name, contact = upgraded.get("name", ""), upgraded.get("contact", "")
        return cls(pk, name, contact, _emails(upgraded.get("emails")), _int(fields.get("schema"), 1))


def schema_one_hash(name: str, email: str) -> dict[str, str]:
    """A legacy schema-1 person, as the demo seeder stores part of them."""
    return {"schema": "1", "name": name, "email": email}


# Which fields a list reads with HMGET for each entity; enough for both schemas.
LIST_FIELDS = {
    "course": ("code", "title", "capacity", "schema"),
    "instructor": ("name", "schema", "email", "contact", "emails"),
    "student": ("name", "schema", "email", "contact", "emails"),
}
# A roster row (a course's page, the set algebra) shows a student's name and contact: at either schema
# those need no list of emails, which would be read and decoded as JSON for each of the page's rows.
ROW_FIELDS = ("name", "schema", "email", "contact")


def from_fields(entity: str, pk: int, fields: dict[str, str]) -> Course | Person:
    return Course.from_hash(pk, fields) if entity == "course" else Person.from_hash(pk, fields)


def from_hmget(entity: str, pk: int, values: list[str | None], names=None) -> Course | Person | None:
    """``from_fields`` of an HMGET (or ``SORT … GET``) of ``names`` (``LIST_FIELDS[entity]`` unless given);
    None when the hash is gone."""
    fields = {name: value for name, value in zip(names or LIST_FIELDS[entity], values) if value is not None}
    return from_fields(entity, pk, fields) if fields else None


def sort_label(entity: str, fields: dict[str, str]) -> str:
    """What the lexicographic index sorts and searches by: course code, person name."""
    text = fields.get("code" if entity == "course" else "name", "")
    return text.casefold()


def schema_problem(entity: str, fields: dict[str, str]) -> str:
    """Why a stored hash is not a valid document of its schema, or ''."""
    if entity == "course":
        missing = [k for k in ("code", "title", "capacity") if not fields.get(k)]
        if missing:
            return f"missing {', '.join(missing)}"
        return "" if fields["capacity"].isdigit() else "capacity is not a number"
    version = fields.get("schema")
    if version == "1":
        return "" if "name" in fields and "email" in fields else "schema 1 needs name and email"
    if version == "2":
        if not {"name", "contact", "emails"} <= set(fields):
            return "schema 2 needs name, contact and emails"
        try:
            emails = json.loads(fields["emails"])
        except ValueError:
            return "emails is not JSON"
        return "" if isinstance(emails, list) else "emails is not a list"
    return f"unknown schema {version!r}"


def fingerprint(fields: dict[str, str]) -> str:
    """A short digest of a stored hash: the edit form's version. SHA-1 over the fields in byte order,
    each name and value prefixed with its length in bytes, as the save script computes it in Redis."""
    parts = []
    for name, value in sorted(fields.items()):
        for text in (name, value):
            raw = text.encode()
            parts.append(b"%d:%s" % (len(raw), raw))
    return hashlib.sha1(b"".join(parts)).hexdigest()[:16]


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _emails(raw: str | None) -> list[str]:
    if not raw:
        return []
    try:
        value = json.loads(raw)
    except ValueError:
        return []
    return [str(e) for e in value] if isinstance(value, list) else []
