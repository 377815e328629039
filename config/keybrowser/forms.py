"""The browse filters: a name pattern, how to read it, a Redis type, a SCAN cursor."""

from __future__ import annotations

from functools import cache

from django import forms

from config.keyspace import REDIS_TYPES
from config.store import glob_escape

MAX_PATTERN = 200
MAX_WILDCARDS = 8  # SCAN MATCH cost grows with the stars of a glob: keep it sane


class BrowseForm(forms.Form):
    pattern = forms.CharField(required=False, max_length=MAX_PATTERN, strip=False, label="Key name")
    match = forms.ChoiceField(
        required=False,
        choices=[
            ("prefix", "starts with"),
            ("contains", "contains"),
            ("glob", "glob pattern (* ? [ ] \\ as Redis reads them)"),
        ],
        label="Match",
    )
    type = forms.ChoiceField(required=False, choices=[("", "any type")] + [(t, t) for t in sorted(REDIS_TYPES)])
    cursor = forms.CharField(required=False, max_length=20)

    def clean_cursor(self) -> int:
        text = self.cleaned_data.get("cursor") or "0"
        if not (text.isascii() and text.isdigit()) or int(text) >= 2**64:
            raise forms.ValidationError("A SCAN cursor is a whole number below 2^64.")
        return int(text)

    def clean(self):
        data = super().clean()
        pattern = data.get("pattern") or ""
        # Every star counts, escaped or not: in ``\\*`` the backslash is escaped and the star is a wildcard.
        if data.get("match") == "glob" and pattern.count("*") > MAX_WILDCARDS:
            self.add_error("pattern", f"At most {MAX_WILDCARDS} * in a glob.")
        return data

    FILTERS = ("pattern", "match", "type")

    @classmethod
    def of(cls, query) -> BrowseForm:
        """The bound form of a request's query: with none of its fields in it (the first page, what
        the menu links to) the one ``unfiltered`` form, validated once per process."""
        if not any(name in query for name in cls.base_fields):
            return unfiltered()
        return cls(query)

    @property
    def filtered(self) -> bool:
        """Whether the query asks for a filter: without one (the first page, each "load more") the
        fields show the same on every page, so the page keeps their HTML as a fragment."""
        return any(name in self.data for name in self.FILTERS)

    def exact(self) -> bytes:
        """The text as a whole key name, when it is not a glob."""
        if self.cleaned_data.get("match") == "glob":
            return b""
        return (self.cleaned_data.get("pattern") or "").encode()

    def glob(self) -> bytes:
        """The SCAN MATCH pattern: the user's text escaped, unless they chose a glob."""
        pattern = self.cleaned_data.get("pattern") or ""
        mode = self.cleaned_data.get("match") or "prefix"
        if mode == "glob":
            return (pattern or "*").encode()
        escaped = glob_escape(pattern)
        return (f"*{escaped}*" if mode == "contains" else f"{escaped}*").encode()


@cache
def unfiltered() -> BrowseForm:
    """The form of a query with no field: no filter, the first SCAN page. The same on every such page,
    so it is bound and validated once; the pages only read it."""
    form = BrowseForm({})
    form.full_clean()
    return form
