"""The browse form's fields are each form's own, and the first page's fields never show a filter."""

import copy

from django.core.cache import caches
from django.forms import BaseForm
from django.http import QueryDict
from django.test import SimpleTestCase

from config.keybrowser.forms import BrowseForm
from tests.keybrowser.helpers import KeysTestCase


def _deep_copied(data) -> BrowseForm:
    """The form as Django builds it: every field deep-copied, choices included."""
    form = BrowseForm(data)
    form.fields = copy.deepcopy(dict(BrowseForm.base_fields))
    return form


def _html(form: BrowseForm) -> str:
    form.is_valid()
    return "".join(str(form[name]) for name in form.fields) + repr(form.errors)


class BrowseFormCopyTest(SimpleTestCase):
    def test_fields_widgets_and_their_attrs_are_each_forms_own(self):
        first, second = BrowseForm({}), BrowseForm({})
        first.fields["pattern"].widget.attrs["autofocus"] = True
        first.fields["type"].error_messages["invalid_choice"] = "changed"
        first.fields["cursor"].validators.append(lambda value: None)
        for form in (second, BrowseForm({})):
            self.assertNotIn("autofocus", form.fields["pattern"].widget.attrs)
            self.assertNotEqual(form.fields["type"].error_messages["invalid_choice"], "changed")
            self.assertEqual(form.fields["cursor"].validators, BrowseForm.base_fields["cursor"].validators)
        self.assertNotIn("autofocus", BrowseForm.base_fields["pattern"].widget.attrs)
        for name in BrowseForm.base_fields:
            self.assertIsNot(first.fields[name], BrowseForm.base_fields[name])
            self.assertIsNot(first.fields[name].widget, BrowseForm.base_fields[name].widget)

    def test_the_form_renders_and_validates_as_a_deep_copied_one(self):
        for data in (
            {},
            {"pattern": "catalog:", "match": "contains", "type": "hash"},
            {"pattern": '<b>"x"</b>', "match": "glob"},
            {"pattern": "a*" * 9, "match": "glob", "type": "nope"},
            {"match": "other", "cursor": "x"},
        ):
            with self.subTest(data=data):
                self.assertEqual(_html(BrowseForm(data)), _html(_deep_copied(data)))

    def test_it_is_still_a_django_form(self):
        self.assertTrue(issubclass(BrowseForm, BaseForm))
        self.assertEqual(list(BrowseForm({}).fields), ["pattern", "match", "type", "cursor"])


class FilterFieldsTest(KeysTestCase):
    def test_the_first_page_shows_no_filter(self):
        response = self.client.get("/keys/")
        self.assertContains(response, '<input type="text" name="pattern" maxlength="200" id="id_pattern">', html=True)
        self.assertContains(response, '<option value="" selected>any type</option>', html=True)

    def test_the_kept_fields_of_the_first_page_never_show_a_filter(self):
        """Without a filter the fields are a fragment kept in the process: a filtered page before or
        after never leaks into it."""
        caches["fragments"].clear()
        for query in ({}, {"pattern": "zz", "type": "set"}, {}, {"cursor": "0"}):
            response = self.client.get("/keys/", query)
            if query.get("pattern"):
                self.assertContains(response, 'value="zz"')
                self.assertContains(response, '<option value="set" selected>')
            else:
                self.assertNotContains(response, 'value="zz"')
                self.assertContains(response, '<option value="" selected>any type</option>', html=True)

    def test_a_filter_shows_what_was_asked_escaped(self):
        response = self.client.get("/keys/", {"pattern": 'a"<b', "match": "glob", "type": "hash"})
        self.assertContains(response, 'value="a&quot;&lt;b"')
        self.assertContains(response, '<option value="glob" selected>')
        self.assertContains(response, '<option value="hash" selected>')
        self.assertContains(response, '<label for="id_match" class="visually-hidden">Match</label>')


class UnfilteredFormTest(SimpleTestCase):
    """A query with none of the form's fields (the first page, the menu's link) reads one form,
    bound and validated once per process; any field in it gets a form of its own."""

    def test_a_query_without_fields_gets_the_one_validated_form(self):
        for query in (QueryDict(""), QueryDict("listed=50")):
            with self.subTest(query=query.urlencode()):
                form = BrowseForm.of(query)
                self.assertIs(form, BrowseForm.of(QueryDict("")))
                self.assertTrue(form.is_valid())
                fresh = BrowseForm({})
                self.assertTrue(fresh.is_valid())
                self.assertEqual(form.cleaned_data, fresh.cleaned_data)
                self.assertEqual((form.glob(), form.exact()), (b"*", b""))
                self.assertEqual(_html(form), _html(BrowseForm({})))

    def test_a_query_with_a_field_gets_a_form_of_its_own(self):
        for query in ("pattern=a", "cursor=12", "type=", "match=glob&pattern=x*"):
            with self.subTest(query=query):
                form = BrowseForm.of(QueryDict(query))
                self.assertIsNot(form, BrowseForm.of(QueryDict("")))
                self.assertEqual(dict(form.data), dict(QueryDict(query)))
