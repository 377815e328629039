"""The list readers build documents straight from HMGET values: the same documents as from the fields."""

from django.test import SimpleTestCase
from hypothesis import given
from hypothesis import strategies as st

from school.documents import LIST_FIELDS, from_fields, from_hmget

VALUE = st.one_of(st.none(), st.text(max_size=12), st.sampled_from(["1", "2", "3", "30", "x", '["a@b.c"]', "[1]"]))


class FromHmgetTest(SimpleTestCase):
    @given(st.sampled_from(sorted(LIST_FIELDS)), st.lists(VALUE, min_size=5, max_size=5))
    def test_same_document_as_from_fields(self, entity, raw):
        values = raw[: len(LIST_FIELDS[entity])]
        fields = {k: v for k, v in zip(LIST_FIELDS[entity], values) if v is not None}
        expected = from_fields(entity, 7, fields) if fields else None
        self.assertEqual(from_hmget(entity, 7, values), expected)

    def test_a_gone_hash_is_none(self):
        for entity, fields in LIST_FIELDS.items():
            self.assertIsNone(from_hmget(entity, 7, [None] * len(fields)))
