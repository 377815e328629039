"""The path converter for document ids: what ``INCR app:ids:entity`` can hand out.

``<id:pk>`` matches 1 to 18 digits with no leading zero, so ``0``, ``-1``,
``abc``, ``007``, ``../`` or a number past Redis's 64-bit counters never reach
a view: the resolver answers 404 and no key is touched.
"""


class IdConverter:
    regex = "[1-9][0-9]{0,17}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))
