"""List state and paging over Redis, the list spec, the htmx partial and the confirmation
form: what every list screen and every delete page builds on."""

from unittest import mock
from urllib.parse import urlencode

from django import forms
from django.core.cache import caches
from django.http import Http404, QueryDict
from django.template import engines
from django.template.base import render_value_in_context
from django.template.loader import render_to_string
from django.test import RequestFactory, SimpleTestCase
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from config.activity import Actor
from config.listing import ListSpec, list_state, page_of
from orgchart import store
from tests.base import RedisTestCase


class VaryingLinkTest(SimpleTestCase):
    @given(
        query=st.dictionaries(st.sampled_from(("q", "o", "page", "type", "other")), st.text(max_size=12), max_size=5),
        name=st.sampled_from(("o", "type", "q")),
        values=st.lists(st.text(max_size=12), max_size=4),
    )
    @hypothesis_settings(max_examples=300, deadline=None)
    def test_a_varying_link_is_the_query_it_stands_for(self, query, name, values):
        """Links encoded once with a mark (chips, column heads) are ``query``'s own strings, for any
        state and value: the mark's own text (NUL, "%00") included."""
        try:
            state = list_state(QueryDict(urlencode(query)), ("name", "price"), "name", ("type",))
        except Http404:
            return  # a malformed page number: no state, no links
        link = state.varying(name)
        for value in (*values, "\x00", "%00", ""):
            self.assertEqual(link(value), state.query(**{name: value, "page": 1}), value)
        for key, head in state.heads.items():
            self.assertEqual(head.href, state.query(o="-" + key if state.order == key else key, page=1))


class ListStateTest(RedisTestCase):
    sign_in = False

    def state(self, query, **kwargs):
        return list_state(QueryDict(query), sorts=("name", "price"), default_order="name", filters=("type",), **kwargs)

    def test_reads_search_sort_page_and_filters(self):
        state = self.state("q=+ear+&o=-price&page=3&type=earbuds&other=x", per_page=10)
        self.assertEqual((state.q, state.order, state.page, state.offset), ("ear", "-price", 3, 20))
        self.assertEqual(state.filters, {"type": "earbuds"})
        self.assertTrue(state.descending)
        self.assertEqual(state.sort_key, "price")

    def test_an_unknown_sort_falls_back_to_the_default(self):
        self.assertEqual(self.state("o=password").order, "name")

    def test_a_malformed_page_is_a_404(self):
        for query in ("page=x", "page=0", "page=-2"):
            with self.subTest(query=query), self.assertRaises(Http404):
                self.state(query)

    def test_links_keep_the_state_and_toggle_the_sort(self):
        state = self.state("q=ear&o=price&page=2&type=earbuds")
        self.assertEqual(state.query(page=3), "?q=ear&o=price&page=3&type=earbuds")
        self.assertEqual(state.sort_link("price"), "?q=ear&o=-price&type=earbuds")
        self.assertEqual(state.sort_link("name"), "?q=ear&o=name&type=earbuds")

    def test_each_sortable_column_head_is_prepared_once_with_its_link_and_mark(self):
        state = self.state("q=ear&o=-price&page=2")
        self.assertEqual(state.heads["price"].href, "?q=ear&o=price")
        self.assertEqual(state.heads["price"].mark, "▼")
        self.assertEqual((state.heads["name"].href, state.heads["name"].mark), ("?q=ear&o=name", ""))
        self.assertIs(state.heads, state.heads)  # computed once per page
        template = engines["django"].from_string(
            "{% load dashboard %}{{ state|sort_query:'price' }} {{ state|sort_mark:'price' }} "
            "{{ state.heads.name.href }}{{ state.heads.name.mark }}"
        )
        html = template.render({"state": state})
        self.assertEqual(html, "?q=ear&amp;o=price ▼ ?q=ear&amp;o=name")

    def test_page_of_wraps_a_page_read_from_redis(self):
        state = self.state("page=2", per_page=10)
        page = page_of(list(range(10, 20)), 25, state)
        self.assertEqual((page.number, page.paginator.num_pages, page.start_index()), (2, 3, 11))
        self.assertTrue(page.has_next())
        with self.assertRaises(Http404):
            page_of([], 25, self.state("page=4", per_page=10))
        self.assertEqual(page_of([], 0, self.state("")).paginator.num_pages, 1)  # an empty list is page 1

    def test_the_pagination_partial_links_pages_with_htmx_when_given_a_target(self):
        state = self.state("q=ear&page=2", per_page=10)
        html = pager('{% pagination page state "#rows" %}', page_of(list(range(10)), 25, state), state)
        self.assertIn('rel="prev" href="?q=ear&amp;o=name"', html)
        page3 = "?q=ear&amp;o=name&amp;page=3"
        self.assertIn(f'href="{page3}" hx-get="{page3}" hx-target="#rows"', html)
        self.assertIn("Page 2 of 3 · 25 in all", html)

    def test_a_fragment_pager_links_to_its_own_path(self):
        state = self.state("page=2", per_page=10)
        html = pager('{% pagination page state "#rows" "/x/1/rows/" %}', page_of(list(range(10)), 25, state), state)
        self.assertIn('href="/x/1/rows/?o=name&amp;page=3" hx-get="/x/1/rows/?o=name&amp;page=3"', html)

    def test_the_pager_is_kept_rendered_by_every_value_it_prints(self):
        caches["fragments"].clear()
        state = self.state("q=ear&page=2", per_page=10)
        page = page_of(list(range(10)), 25, state)
        html = pager('{% pagination page state "#rows" %}', page, state)
        with mock.patch("django.template.base.render_value_in_context", wraps=render_value_in_context) as rendered:
            self.assertEqual(pager('{% pagination page state "#rows" %}', page, state), html)
        self.assertEqual(rendered.call_count, 0)  # kept: no link, number or size printed again
        moved = pager('{% pagination page state "#list" %}', page, state)
        self.assertIn('hx-target="#list"', moved)
        self.assertNotIn('hx-target="#rows"', moved)
        self.assertIn("26 in all", pager("{% pagination page state %}", page_of(list(range(10)), 26, state), state))
        other = self.state("q=earbuds&page=2", per_page=10)
        searched = pager("{% pagination page state %}", page_of(list(range(10)), 25, other), other)
        self.assertIn('value="earbuds"', searched)


def pager(tag: str, page, state) -> str:
    """The pagination a list's template shows, through its tag."""
    return engines["django"].from_string("{% load dashboard %}" + tag).render({"page": page, "state": state})


class _KindForm(forms.Form):
    kind = forms.ChoiceField(choices=[("a", "A"), ("b", "B")], required=False)


def _ids(values):
    if not all(value.isdigit() for value in values):
        raise Http404("ids are digits")
    return [int(value) for value in dict.fromkeys(values)]


class ListSpecTest(RedisTestCase):
    sign_in = False

    def read(self, spec, query):
        return spec.read(RequestFactory().get("/list/?" + query))

    def test_a_spec_reads_sort_default_order_filters_and_page_size_once(self):
        spec = ListSpec(sorts=("name", "price"), default_order="-price", filters=("kind",), per_page=10)
        state = self.read(spec, "q=ear&o=name&page=2&kind=b&other=x")
        self.assertEqual((state.q, state.order, state.page, state.offset), ("ear", "name", 2, 10))
        self.assertEqual(state.filters, {"kind": "b"})
        self.assertEqual(self.read(spec, "o=password").order, "-price")
        for query in ("page=x", "page=0", "page=%D9%A3", "page=+3"):
            with self.subTest(query=query), self.assertRaises(Http404):
                self.read(spec, query)

    def test_a_filter_its_form_refuses_is_left_out_of_the_state_and_its_links(self):
        spec = ListSpec(filters=("kind",), filter_form=_KindForm)
        refused = self.read(spec, "kind=zzz&q=x")
        self.assertEqual(refused.filters, {})
        self.assertEqual(refused.query(page=2), "?q=x&page=2")
        self.assertIn("kind", refused.form.errors)  # the page shows why, beside the field
        kept = self.read(spec, "kind=a")
        self.assertEqual((kept.filters, kept.form.cleaned_data["kind"]), ({"kind": "a"}, "a"))

    def test_extra_parameters_are_parsed_and_kept_in_every_link_after_the_others(self):
        spec = ListSpec(filters=("op",), extra={"c": _ids})
        state = self.read(spec, "c=3&op=union&c=1&c=3&page=2")
        self.assertEqual(state.extra, (("c", (3, 1)),))
        self.assertEqual(state.query(page=3), "?page=3&op=union&c=3&c=1")
        self.assertEqual(self.read(spec, "").query(), "?")
        with self.assertRaises(Http404):
            self.read(spec, "c=x")

    def test_a_spec_without_a_filter_form_carries_none(self):
        self.assertIsNone(self.read(ListSpec(), "").form)


class HtmxPartialTest(RedisTestCase):
    """Every list screen picks its partial the same way: htmx gets the results, a boosted
    link and a plain request the whole page."""

    LISTS = (
        "/catalog/products/",
        "/school/courses/",
        "/school/students/",
        "/cms/posts/",
        "/orgchart/employees/",
        "/orgchart/locations/",
    )

    def test_htmx_gets_the_results_partial_and_a_boosted_link_the_whole_page(self):
        for url in self.LISTS:
            with self.subTest(url=url):
                whole = self.client.get(url)
                partial = self.client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results")
                boosted = self.client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_BOOSTED="true")
                self.assertContains(whole, "<html")
                self.assertContains(whole, '<div id="results"')
                self.assertNotContains(partial, "<html")
                self.assertTrue(partial.content.decode().lstrip().startswith('<div id="results"'))
                self.assertContains(boosted, "<html")


class SharedFormsTest(RedisTestCase):
    """The add and edit pages share one form include: Cancel goes back to the list when adding,
    to the object's page when editing; the org chart's delete pages share one template."""

    def test_cancel_goes_back_where_the_form_came_from(self):
        pk = store.save_location(None, "Lisbon", actor=Actor("t"))
        pages = {
            "/orgchart/locations/add/": "/orgchart/locations/",
            "/orgchart/employees/add/": "/orgchart/employees/",
            f"/orgchart/locations/{pk}/edit/": f"/orgchart/locations/{pk}/",
            "/school/courses/add/": "/school/courses/",
            "/cms/posts/add/": "/cms/posts/",
        }
        for url, back in pages.items():
            with self.subTest(url=url):
                self.assertContains(self.client.get(url), f'<a class="button secondary" href="{back}">Cancel</a>')
        delete = self.client.get(f"/orgchart/locations/{pk}/delete/")
        self.assertContains(delete, "<h1>Delete Lisbon?</h1>")
        self.assertContains(delete, '<form method="post" novalidate>')
        self.assertContains(delete, f'<a class="button secondary" href="/orgchart/locations/{pk}/">No, keep it</a>')


class ConfirmFormTest(RedisTestCase):
    sign_in = False

    def render(self, **context):
        return render_to_string("includes/confirm_form.html", context)

    def test_a_delete_posts_to_its_own_page_with_one_wording(self):
        html = self.render(cancel_url="/things/1/")
        self.assertIn('<form method="post">', html)
        self.assertIn('<button type="submit" class="danger">Yes, delete it</button>', html)
        self.assertIn('<a class="button secondary" href="/things/1/">No, keep it</a>', html)

    def test_another_change_names_its_action_hidden_values_and_words(self):
        html = self.render(
            cancel_url="/c/1/", action="/c/1/drop/", hidden=[("other", 7), ("next", "/c/1/?a=1&b=2")], yes="Yes, drop"
        )
        self.assertIn('<form method="post" action="/c/1/drop/">', html)
        self.assertIn('<input type="hidden" name="other" value="7">', html)
        self.assertIn('<input type="hidden" name="next" value="/c/1/?a=1&amp;b=2">', html)
        self.assertIn(">Yes, drop</button>", html)

    def test_a_choice_before_the_delete_shows_the_form_fields_with_their_errors(self):
        form = _KindForm({"kind": "zzz"})
        form.is_valid()
        html = self.render(cancel_url="/", form=form)
        self.assertIn('<form method="post" novalidate>', html)
        self.assertIn('name="kind"', html)
        self.assertIn("Select a valid choice", html)


class HtmxCsrfTest(RedisTestCase):
    def test_every_page_gives_htmx_the_csrf_token(self):
        response = self.client.get("/")
        token = response.context["csrf_token"]
        self.assertContains(response, f'hx-headers=\'{{"X-CSRFToken": "{token}"}}\'')
        self.assertContains(response, '<script src="/static/js/htmx.min.js" defer></script>')
