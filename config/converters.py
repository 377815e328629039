"""The path converter for document ids: what ``INCR app:ids:entity`` can hand out.

``<id:pk>`` matches 1 to 18 ASCII digits with no leading zero, so ``0``, ``-1``, ``abc``, ``007``,
``../``, digits of another script (``١٢٣``, ``１２``, ``²``) or a number past Redis's 64-bit counters
never reach a view: the resolver answers 404. ``parse_id`` reads a query string's id the same way.
"""

from __future__ import annotations

import re

ID_PATTERN = "[1-9][0-9]{0,17}"
_ID = re.compile(ID_PATTERN, re.ASCII)


def parse_id(text: str) -> int | None:
    """``text`` as an id, or None for anything ``<id:...>`` would not match. Never calls
    ``int`` on what is not plain ASCII digits (``'²'.isdigit()`` is true) nor on thousands
    of digits (past Python's limit on ``int(str)``)."""
    return int(text) if _ID.fullmatch(text) else None


class IdConverter:
    regex = ID_PATTERN

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))
