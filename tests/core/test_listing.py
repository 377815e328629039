"""List state and paging over Redis: what every list screen builds on."""

from django.http import Http404, QueryDict
from django.template.loader import render_to_string

from config.listing import list_state, page_of
from tests.base import RedisTestCase


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
        html = render_to_string(
            "includes/pagination.html", {"page": page_of(list(range(10)), 25, state), "state": state, "target": "#rows"}
        )
        self.assertIn('rel="prev" href="?q=ear&amp;o=name"', html)
        page3 = "?q=ear&amp;o=name&amp;page=3"
        self.assertIn(f'href="{page3}" hx-get="{page3}" hx-target="#rows"', html)
        self.assertIn("Page 2 of 3 · 25 in all", html)

    def test_a_fragment_pager_links_to_its_own_path(self):
        state = self.state("page=2", per_page=10)
        html = render_to_string(
            "includes/pagination.html",
            {"page": page_of(list(range(10)), 25, state), "state": state, "target": "#rows", "base": "/x/1/rows/"},
        )
        self.assertIn('href="/x/1/rows/?o=name&amp;page=3" hx-get="/x/1/rows/?o=name&amp;page=3"', html)


class HtmxCsrfTest(RedisTestCase):
    def test_every_page_gives_htmx_the_csrf_token(self):
        response = self.client.get("/")
        token = response.context["csrf_token"]
        self.assertContains(response, f'hx-headers=\'{{"X-CSRFToken": "{token}"}}\'')
        self.assertContains(response, '<script src="/static/js/htmx.min.js" defer></script>')
