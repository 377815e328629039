"""The catalog screens: what the user sees, what Redis holds after, and the round trips."""

import json
from unittest import mock

from django.core.cache import caches
from django.core.cache.utils import make_template_fragment_key
from django.template.base import render_value_in_context
from django.template.loader import render_to_string
from django.test import tag

from catalog import keys, store
from catalog.forms import ProductFilterForm
from config.redis import client
from tests.base import RedisTestCase
from tests.catalog.helpers import SKU_TRIP, make_product, review

EARBUDS_POST = {
    "type": "earbuds",
    "name": "Sonique Air 2",
    "brand": "Sonique",
    "sku": "SQ-AIR-2",
    "model": "SA2",
    "price": "129.50",
    "description": "Small and loud.",
    "images": "https://img.example.com/1.jpg\nhttps://img.example.com/2.jpg",
    "videos": "",
    "tags": "Wireless, noise-cancelling",
    "battery_life": "30",
    "connection_type": "bluetooth",
    "fit": "in-ear",
}


def product_keys():
    return sorted(client().scan_iter(match=keys.product("*")))


@tag("cluster")
class ProductAddTest(RedisTestCase):
    def test_add_starts_with_the_type_chooser(self):
        response = self.client.get("/catalog/products/add/")
        self.assertContains(response, 'href="/catalog/products/add/?type=earbuds"')
        self.assertContains(response, 'href="/catalog/products/add/?type=game_console"')

    def test_each_type_gets_its_own_form_section(self):
        response = self.client.get("/catalog/products/add/?type=earbuds")
        self.assertContains(response, 'name="battery_life"')
        self.assertNotContains(response, 'name="hdmi_ports"')
        response = self.client.get("/catalog/products/add/?type=game_console")
        self.assertContains(response, 'name="hdmi_ports"')
        self.assertNotContains(response, 'name="battery_life"')
        self.assertEqual(self.client.get("/catalog/products/add/?type=toaster").status_code, 404)

    def test_adding_earbuds_stores_one_hash_with_its_type_fields_and_redirects_to_it(self):
        response = self.client.post("/catalog/products/add/", EARBUDS_POST)
        (key,) = product_keys()
        product_id = int(key.rsplit(":", 1)[1])
        self.assertRedirects(response, f"/catalog/products/{product_id}/", fetch_redirect_response=False)
        stored = client().hgetall(key)
        self.assertEqual(
            (stored["battery_life"], stored["fit"], stored["tags"]), ("30", "in-ear", "wireless,noise-cancelling")
        )
        self.assertNotIn("hdmi_ports", stored)
        page = self.client.get(response.url)
        self.assertContains(page, "Sonique Air 2")
        self.assertContains(page, 'data-field="battery_life">30 hours')
        self.assertContains(page, "Added earbuds")

    def test_commas_separate_tags_and_each_is_made_a_slug_and_the_user_is_told(self):
        response = self.client.post(
            "/catalog/products/add/", {**EARBUDS_POST, "tags": "UX test, 5g, ux-test"}, follow=True
        )
        (key,) = product_keys()
        self.assertEqual(client().hget(key, "tags"), "ux-test,5g")
        product_id = key.rsplit(":", 1)[1]
        self.assertTrue(client().sismember(keys.tag_index("ux-test", keys.partition_of(product_id)), product_id))
        self.assertContains(response, "saved “UX test” as ux-test")

    def test_past_the_image_bound_is_a_field_error_and_nothing_is_written(self):
        images = "\n".join(f"https://img.example.com/{n}.jpg" for n in range(11))
        response = self.client.post("/catalog/products/add/", {**EARBUDS_POST, "images": images})
        self.assertContains(response, "At most 10 images (you gave 11).")
        self.assertEqual(product_keys(), [])
        videos = "\n".join(f"https://v.example.com/{n}.mp4" for n in range(4))
        response = self.client.post("/catalog/products/add/", {**EARBUDS_POST, "videos": videos})
        self.assertContains(response, "At most 3 videos (you gave 4).")
        self.assertEqual(list(client().scan_iter(match="catalog:*")), [])

    def test_bad_type_fields_tags_and_a_taken_sku_are_field_errors(self):
        taken = make_product(sku="SQ-AIR-2")
        before = product_keys()
        post = {**EARBUDS_POST, "battery_life": "-3", "tags": "fine, !!!", "fit": "sideways"}
        response = self.client.post("/catalog/products/add/", post)
        self.assertContains(response, f"SKU SQ-AIR-2 is already used by product {taken}.")
        self.assertContains(response, "Ensure this value is greater than or equal to 1.")
        self.assertContains(response, "Not a tag")
        self.assertContains(response, "Select a valid choice.")
        self.assertEqual(product_keys(), before)


@tag("cluster")
class ProductListTest(RedisTestCase):
    def test_the_list_is_one_round_trip_and_shows_the_average_or_a_dash(self):
        rated = make_product("Rated Buds", tags=["wireless"])
        make_product("Silent Buds", sku="SB-1")
        review(rated, 5)
        review(rated, 4)
        with self.assertRoundTrips(1):
            response = self.client.get("/catalog/products/")
        self.assertContains(response, f'<a href="/catalog/products/{rated}/">Rated Buds</a>', html=True)
        self.assertContains(response, '<td class="num rating">4.50</td>', html=False)
        self.assertContains(response, '<td class="num rating">—</td>', html=False)

    def test_a_search_alone_shows_the_empty_filter_fields_without_rendering_a_widget(self):
        make_product("Air Buds", tags=["wireless"])
        bound = ProductFilterForm({"q": "air"})
        fields = render_to_string("catalog/product_list.html#filter-fields", {"filters": bound})
        self.assertHTMLEqual(
            fields, render_to_string("catalog/product_list.html#filter-fields", {"filters": ProductFilterForm()})
        )
        response = self.client.get("/catalog/products/", {"q": "air"})
        self.assertEqual([t.name for t in response.templates if t.name.startswith("django/forms/")], [])
        self.assertContains(response, fields, html=False)
        self.assertContains(response, "Air Buds")
        chosen = self.client.get("/catalog/products/", {"q": "air", "tags_all": "wireless"})
        self.assertContains(chosen, 'value="wireless"')  # a chosen filter shows in its field

    def test_the_chosen_filter_fields_are_rendered_once_for_the_same_values_and_follow_them(self):
        caches["fragments"].clear()
        make_product("Air Buds", tags=["wireless"])

        def widgets(response) -> list[str]:
            return [t.name for t in response.templates if t.name.startswith("django/forms/")]

        first = self.client.get("/catalog/products/", {"tags_all": "wireless"})
        self.assertTrue(widgets(first))
        again = self.client.get("/catalog/products/", {"tags_all": "wireless", "o": "name"})
        self.assertEqual(widgets(again), [])  # the same values: the fields as first rendered
        self.assertContains(again, 'name="tags_all" value="wireless"', html=False)
        refused = self.client.get("/catalog/products/", {"tags_all": "<??>"})
        self.assertContains(refused, "Not a tag")
        self.assertContains(refused, 'value="&lt;??&gt;"', html=False)
        other = self.client.get("/catalog/products/", {"tags_any": "wireless"})
        self.assertNotContains(other, "Not a tag")
        self.assertContains(other, 'name="tags_any" value="wireless"', html=False)
        self.assertNotContains(other, 'name="tags_all" value=', html=False)

    def test_the_chips_are_rendered_once_for_the_same_counts_and_follow_a_change(self):
        caches["fragments"].clear()
        make_product("Best Buds", tags=["wireless"])
        make_product("Box", type="game_console", tags=["wireless"])
        self.client.get("/catalog/products/?o=name")  # what a first page renders once, other chips
        with mock.patch("django.template.base.render_value_in_context", wraps=render_value_in_context) as rendered:
            first = self.client.get("/catalog/products/")
            values = rendered.call_count
            rendered.reset_mock()
            again = self.client.get("/catalog/products/")
        chips = first.content.count(b"data-type=") + first.content.count(b"data-tag=")
        self.assertGreater(chips, 2)
        self.assertLessEqual(rendered.call_count, values - 4 * chips)  # no chip's href, label or count again
        self.assertContains(again, 'data-tag="wireless">wireless · 2</a>', html=False)
        make_product("Cable", tags=["wireless"])
        self.assertContains(self.client.get("/catalog/products/"), 'data-tag="wireless">wireless · 3</a>', html=False)

    def test_the_rows_and_heads_are_kept_rendered_by_their_values_and_follow_a_change(self):
        caches["fragments"].clear()
        buds = make_product("Best Buds", tags=["wireless"], price="10.00")
        make_product("Box", type="game_console", tags=["wireless"])

        def kept(page, name: str, *values) -> str:
            html = caches["fragments"].get(make_template_fragment_key(name, values))
            self.assertIsNotNone(html, f"{name} {values}")
            self.assertIn(html, page.content.decode())
            return html

        page = self.client.get("/catalog/products/?o=name")
        can_write = page.context["layout"].can_write
        rows = page.context["rows"]
        self.assertEqual([kept(page, "catalog-row", row, can_write).count("<tr") for row in rows], [1, 1])
        kept(page, "catalog-head", page.context["state"].heads, can_write, page.context["columns"])
        review(buds, 4)
        changed = self.client.get("/catalog/products/?o=name")
        self.assertContains(changed, '<td class="num rating">4.00</td>', html=False)  # a new entry, not the kept row
        self.assertNotIn(changed.context["rows"][0], rows)
        kept(changed, "catalog-row", changed.context["rows"][0], can_write)
        self.assertContains(self.client.get("/catalog/products/?o=-name"), "Name ▼")  # the heads follow the order

    def test_the_issue_example_query_filters_and_sorts(self):
        best = make_product("Best Buds", tags=["wireless", "noise-cancelling"])
        worse = make_product("Worse Buds", tags=["wireless", "noise-cancelling"])
        make_product("Refurb Buds", tags=["wireless", "noise-cancelling", "refurbished"])
        make_product("Box", type="game_console", tags=["wireless", "noise-cancelling"])
        review(best, 5)
        review(worse, 2)
        url = "/catalog/products/?tags_all=wireless,noise-cancelling&tags_none=refurbished&type=earbuds&o=-rating"
        with self.assertRoundTrips(2):  # the tag names to count, then the list with its live counts
            response = self.client.get(url)
        rows = [row.name for row in response.context["page"].object_list]
        self.assertEqual(rows, ["Best Buds", "Worse Buds"])

    def test_a_list_too_large_to_count_says_its_counts_are_the_catalogs(self):
        make_product("Best Buds", tags=["wireless"])
        make_product("Box", type="game_console", tags=["wireless"])
        make_product("Cable Buds", tags=["wired"])
        response = self.client.get("/catalog/products/?tags_all=wireless")
        self.assertNotContains(response, 'id="counts-hint"')
        self.assertNotContains(response, 'data-tag="wired"')  # the live counts: no listed product carries it
        with mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", 1), self.assertRoundTrips(2):
            response = self.client.get("/catalog/products/?tags_all=wireless")
        self.assertContains(response, 'id="counts-hint"')
        self.assertContains(response, "These counts are the whole catalog's")
        self.assertContains(response, 'data-tag="wired"')  # the catalog's cloud
        self.assertEqual([row.name for row in response.context["page"].object_list], ["Box", "Best Buds"])

    def test_a_capped_search_says_so_and_that_its_counts_are_the_catalogs(self):
        for name in ("Best Buds", "Cable Buds", "Quiet Buds", "Sport Buds"):
            make_product(name, tags=["wireless"])
        make_product("Cable Box", type="game_console", tags=["wired"])
        response = self.client.get("/catalog/products/?q=buds")
        self.assertNotContains(response, 'id="capped-hint"')
        self.assertNotContains(response, 'id="counts-hint"')
        self.assertNotContains(response, 'data-tag="wired"')  # the live counts: no match carries it
        # one name a partition: four matches cap the search in one partition at least
        with (
            mock.patch("catalog.store.prefetch.SEARCH_LIMIT", 1),
            mock.patch("catalog.store.SEARCH_LIMIT", 1),  # the number the page shows
            self.assertRoundTrips(2),
        ):
            response = self.client.get("/catalog/products/?q=buds+b")  # a short word: the pieces are searched
        self.assertContains(response, "More than 1 names match “buds b”: only the first are searched, and the counts")
        self.assertNotContains(response, 'id="counts-hint"')  # the list's size is not why: the search's cap is
        self.assertContains(response, 'data-tag="wired"')  # the catalog's cloud
        self.assertLess(len(response.context["page"].object_list), 4)

    def test_a_chosen_type_shows_its_own_fields_as_columns_in_one_round_trip(self):
        wired = {"battery_life": "31", "connection_type": "wired", "fit": "ear-hook"}
        make_product("Alpha Buds", sku="AB-1", attrs=wired)
        make_product("Box", type="game_console", tags=["wireless"])
        response = self.client.get("/catalog/products/")
        self.assertNotContains(response, "data-type-field")
        self.assertNotContains(response, "Battery life")
        with self.assertRoundTrips(2):
            response = self.client.get("/catalog/products/?type=earbuds")
        self.assertContains(response, '<th class="num" data-type-field="battery_life">Battery life (hours)</th>')
        self.assertContains(response, '<th data-type-field="fit">Fit</th>', html=True)
        self.assertContains(response, '<td class="num" data-field="battery_life">31</td>', html=True)
        self.assertContains(response, '<td data-field="connection_type">wired</td>', html=True)
        self.assertNotContains(response, "HDMI ports")
        self.assertNotContains(response, ">Box<")
        with self.assertRoundTrips(2):
            response = self.client.get("/catalog/products/?type=game_console&tags_all=wireless&o=name")
        self.assertContains(response, '<td data-field="gpu">RDNA 2</td>', html=True)
        self.assertContains(response, '<th class="num" data-type-field="hdmi_ports">HDMI ports</th>', html=True)
        self.assertNotContains(response, "Alpha Buds")

    def test_a_search_is_two_round_trips(self):
        make_product("Alpha Buds", sku="AB-1")
        make_product("Beta Buds", sku="BB-1")
        with self.assertRoundTrips(2):
            response = self.client.get("/catalog/products/?q=alp")
        self.assertContains(response, "Alpha Buds")
        self.assertNotContains(response, "Beta Buds")
        response = self.client.get("/catalog/products/?q=bb-1")
        self.assertContains(response, "Beta Buds")

    def test_invalid_tag_filters_are_reported_and_ignored(self):
        make_product("Alpha Buds")
        response = self.client.get("/catalog/products/?tags_all=%3F%3F%3F")
        self.assertContains(response, "Not a tag")
        self.assertContains(response, "Alpha Buds")
        self.assertFalse(any("?" in k for k in client().scan_iter(match="catalog:*")))

    def test_htmx_gets_the_results_partial_and_empty_states_show(self):
        response = self.client.get("/catalog/products/")
        self.assertContains(response, "The catalog is empty.")
        make_product("Alpha Buds", tags=["wireless"])
        response = self.client.get("/catalog/products/?tags_all=wired", headers={"HX-Request": "true"})
        self.assertContains(response, "No product matches these filters.")
        self.assertNotContains(response, "<html")
        past = self.client.get("/catalog/products/?page=9", follow=True)  # past the end: the last page, said
        self.assertEqual(past.redirect_chain, [("/catalog/products/", 302)])
        self.assertContains(past, "Page 9 is past the end of the list: this is its last page, 1.")

    def test_stored_text_is_escaped(self):
        make_product("<script>alert(1)</script> Buds", sku="XSS-1")
        response = self.client.get("/catalog/products/")
        self.assertNotContains(response, "<script>alert(1)</script>")
        self.assertContains(response, "&lt;script&gt;")


class WriteScreenRoundTripTest(RedisTestCase):
    """Each write screen's POST: the reads the form needs, then one script (two where an id or a key is read first)."""

    def setUp(self):
        super().setUp()
        self.product_id = make_product("Counted Buds", sku="CB-1", tags=["wireless"])
        review(self.product_id, 4)

    def test_adding_a_product_is_the_sku_check_and_one_script(self):
        self.client.post("/catalog/products/add/", {**EARBUDS_POST, "sku": "NEW-0"})  # draws the process's block
        # HGET of the SKU index (the form's error); the script, its id from the process's block (with several
        # partitions, after the SKU's claim)
        with self.assertRoundTrips(2 + SKU_TRIP) as trace, self.assertCommands(2 + SKU_TRIP):
            response = self.client.post("/catalog/products/add/", {**EARBUDS_POST, "sku": "NEW-1"})
        self.assertEqual(response.status_code, 302)
        self.assertEqual([t.commands[0].name for t in trace.trips("data")], ["HGET", *["EVALSHA"] * (1 + SKU_TRIP)])
        added = store.sku_owner("NEW-1")
        self.assertEqual(response["Location"], f"/catalog/products/{added}/")
        self.assertEqual(added, store.sku_owner("NEW-0") + keys.PARTITIONS)  # the next id of the same block

    def test_saving_an_edit_that_keeps_its_sku_is_the_read_and_one_script(self):
        form = self.client.get(f"/catalog/products/{self.product_id}/edit/").context["form"]
        post = {**{k: v for k, v in form.initial.items() if v is not None}, "images": "", "tags": "sport"}
        with self.assertRoundTrips(2), self.assertCommands(2):  # HGETALL (the form's product); the script
            response = self.client.post(f"/catalog/products/{self.product_id}/edit/", {**post, "name": "Renamed"})
        self.assertEqual(response.status_code, 302)

    def test_adding_a_review_is_one_round_trip_and_deleting_one_two(self):
        url = f"/catalog/products/{self.product_id}/reviews/add/"
        # The script alone: its id from the process's block (drawn by setUp's review), and it answers the
        # product's name for the message.
        with self.assertRoundTrips(1) as trace, self.assertCommands(1):
            self.client.post(url, {"author": "Zed", "rating": "5"})
        self.assertEqual([t.commands[0].name for t in trace.trips("data")], ["EVALSHA"])
        name = store.get(self.product_id).name
        self.assertContains(
            self.client.get(f"/catalog/products/{self.product_id}/"), f"Your review of “{name}” was added."
        )
        newest = store.get(self.product_id).recent[0].id
        with self.assertRoundTrips(2), self.assertCommands(3):  # the review and the newest ids; the script
            response = self.client.post(f"/catalog/products/{self.product_id}/reviews/{newest}/delete/", follow=False)
        self.assertEqual(response.status_code, 302)

    def test_deleting_a_product_is_two_round_trips(self):
        # HGETALL and ZRANGE of its reviews; the script (with several partitions, then the SKU's release)
        with self.assertRoundTrips(2 + SKU_TRIP), self.assertCommands(3 + SKU_TRIP):
            self.client.post(f"/catalog/products/{self.product_id}/delete/")
        self.assertIsNone(store.get(self.product_id))


class StoredLinkTest(RedisTestCase):
    def test_stored_links_are_web_addresses_or_site_paths_and_anything_else_is_text(self):
        product_id = make_product("Linked Buds")
        client().hset(
            keys.product(product_id),
            mapping={
                "image": "javascript:alert(1)",
                "images": json.dumps(
                    ["https://img.example.com/1.jpg", "/static/p.svg", "data:text/html,<b>x</b>", "//e.x"]
                ),
                "videos": '["JaVaScRiPt:alert(2)", "http://v.example.com/a.mp4"]',
            },
        )
        response = self.client.get(f"/catalog/products/{product_id}/")
        self.assertContains(response, 'href="https://img.example.com/1.jpg"')
        self.assertContains(response, 'href="/static/p.svg"')
        self.assertContains(response, 'href="http://v.example.com/a.mp4"')
        for value in ("javascript:alert(1)", "data:text/html", "//e.x", "JaVaScRiPt:alert(2)"):
            self.assertNotContains(response, f'href="{value}')
            self.assertNotContains(response, f'src="{value}')
        self.assertContains(response, "data:text/html,&lt;b&gt;x&lt;/b&gt;")  # shown as text
        self.assertContains(response, '<p class="mono unlinked" data-field="image">javascript:alert(1)</p>', html=True)


class ProductDetailTest(RedisTestCase):
    def test_the_detail_is_one_round_trip_with_recent_reviews_from_the_embed(self):
        product_id = make_product("Detail Buds")
        for n, rating in enumerate((1, 2, 3, 4)):
            review(product_id, rating, author=f"author{n}", at=float(n + 1))
        with self.assertRoundTrips(1) as trace:
            response = self.client.get(f"/catalog/products/{product_id}/")
        self.assertEqual([c.name for c in trace.trips("data")[0].commands], ["HGETALL"])
        recent = [r.author for r in response.context["product"].recent]
        self.assertEqual(recent, ["author3", "author2", "author1"])
        self.assertContains(response, "author3")
        self.assertNotContains(response, "author0")  # the oldest is only in "All reviews"
        self.assertContains(response, "2.50")
        self.assertContains(response, 'data-field="fit">in-ear')

    def test_unknown_ids_are_404_and_touch_nothing(self):
        self.assertEqual(self.client.get("/catalog/products/41/").status_code, 404)
        self.assertEqual(self.client.get("/catalog/products/41/reviews/").status_code, 404)
        self.assertEqual(self.client.get("/catalog/products/abc/").status_code, 404)
        self.assertEqual(
            self.client.post("/catalog/products/41/reviews/add/", {"author": "a", "rating": "5"}).status_code, 404
        )
        counters = set(store.counter_keys())  # a block of review ids may have been drawn: no data
        self.assertEqual([k for k in client().scan_iter(match="catalog:*") if k not in counters], [])

    def test_all_reviews_page_twenty_at_a_time_newest_first_in_one_round_trip(self):
        product_id = make_product()
        for n in range(23):
            review(product_id, 1 + n % 5, author=f"writer{n:02d}", at=float(n + 1))
        with self.assertRoundTrips(1):
            response = self.client.get(f"/catalog/products/{product_id}/reviews/", headers={"HX-Request": "true"})
        self.assertNotContains(response, "<html")
        self.assertContains(response, "writer22")
        self.assertContains(response, "writer03")
        self.assertNotContains(response, "writer02")
        page2 = f"/catalog/products/{product_id}/reviews/?page=2"
        self.assertContains(response, f'href="{page2}" hx-get="{page2}" hx-target="#all-reviews"')
        response = self.client.get(page2)
        self.assertContains(response, "writer02")
        self.assertContains(response, "writer00")
        self.assertNotContains(response, "writer03")
        past = self.client.get(f"/catalog/products/{product_id}/reviews/?page=3", follow=True)  # the last page, said
        self.assertEqual(past.redirect_chain, [(f"/catalog/products/{product_id}/reviews/?page=2", 302)])
        self.assertContains(past, "Page 3 is past the end of the list")


class ProductEditDeleteTest(RedisTestCase):
    def test_the_type_select_reloads_the_type_section(self):
        product_id = make_product()
        form = self.client.get(f"/catalog/products/{product_id}/edit/").context["form"]
        post = {**{k: v for k, v in form.initial.items() if v is not None}, "images": "", "tags": ""}
        post.update(type="monitor", name="Typed, not saved", _switch="1")
        response = self.client.post(f"/catalog/products/{product_id}/edit/", post, headers={"HX-Request": "true"})
        self.assertContains(response, 'name="refresh_rate"')
        self.assertContains(response, '<option value="monitor" selected>')
        self.assertContains(response, 'value="Typed, not saved"')  # the user's edit, not the stored name
        self.assertNotContains(response, "<html")  # the form alone, for htmx to swap
        self.assertNotContains(response, 'name="_switch"')  # Enter in a field presses Save, never Switch
        self.assertEqual(client().hget(keys.product(product_id), "name"), "Sonique Buds")  # nothing saved

    def test_switching_the_type_keeps_the_users_input_in_every_field_both_types_share(self):
        product_id = make_product("Wide View", type="monitor", attrs={"screen_size": "27", "refresh_rate": "144"})
        form = self.client.get(f"/catalog/products/{product_id}/edit/").context["form"]
        post = {**{k: v for k, v in form.initial.items() if v is not None}, "images": "", "tags": "sharp"}
        post.update(name="Edited name", screen_size="31.5", image="/static/img/products/monitor.svg", _switch="1")
        response = self.client.post(f"/catalog/products/{product_id}/edit/", {**post, "type": "phone"})
        shown = response.context["form"]
        self.assertEqual(response.status_code, 200)
        self.assertFalse(shown.is_bound)  # shown again, not checked: nothing is wrong yet
        self.assertContains(response, 'value="Edited name"')
        self.assertContains(response, 'name="screen_size" value="31.5"')  # monitor and phone both have it: the edit
        self.assertContains(response, 'value="sharp"')
        self.assertNotContains(response, 'name="refresh_rate"')
        self.assertContains(response, 'value="/static/img/products/phone.svg"')  # the type's own picture follows it
        self.assertEqual(client().hget(keys.product(product_id), "name"), "Wide View")  # nothing saved
        own = self.client.post(
            f"/catalog/products/{product_id}/edit/", {**post, "type": "", "image": "https://example.com/mine.png"}
        )
        self.assertContains(own, 'value="https://example.com/mine.png"')  # the user's own image stays
        untyped = self.client.post(f"/catalog/products/{product_id}/edit/", {**post, "type": ""})
        self.assertNotContains(untyped, "/static/img/products/")  # no type, no type's picture

    def test_switching_the_type_of_a_new_product_keeps_what_was_typed(self):
        response = self.client.post(
            "/catalog/products/add/?type=earbuds",
            {"type": "game_console", "name": "Typed name", "price": "12.50", "battery_life": "9", "_switch": "1"},
        )
        self.assertContains(response, "Add game console")
        self.assertContains(response, 'value="Typed name"')
        self.assertContains(response, 'value="12.50"')
        self.assertNotContains(response, 'name="battery_life"')
        self.assertContains(response, 'name="once" value="')  # a new product's form still saves once

    def test_saving_with_a_new_type_drops_the_old_fields(self):
        product_id = make_product(tags=["wireless"])
        form = self.client.get(f"/catalog/products/{product_id}/edit/").context["form"]
        post = {**{k: v for k, v in form.initial.items() if v is not None}, "tags": "wired", "images": ""}
        post.update(type="game_console", storage_type="ssd", usb_ports="2", hdmi_ports="1", gpu="X1")
        response = self.client.post(f"/catalog/products/{product_id}/edit/", post)
        self.assertRedirects(response, f"/catalog/products/{product_id}/")
        stored = client().hgetall(keys.product(product_id))
        self.assertEqual(stored["type"], "game_console")
        self.assertNotIn("battery_life", stored)
        self.assertEqual(stored["tags"], "wired")
        page = self.client.get(f"/catalog/products/{product_id}/")
        self.assertContains(page, 'data-field="gpu">X1')
        self.assertNotContains(page, "Battery life")

    def test_a_stale_edit_form_is_refused(self):
        product_id = make_product()
        form = self.client.get(f"/catalog/products/{product_id}/edit/").context["form"]
        post = {**{k: v for k, v in form.initial.items() if v is not None}, "images": "", "tags": ""}
        self.client.post(f"/catalog/products/{product_id}/edit/", {**post, "name": "First"})
        before = client().hgetall(keys.product(product_id))
        response = self.client.post(f"/catalog/products/{product_id}/edit/", {**post, "name": "Second"})
        self.assertContains(response, "Someone else saved this product while you were editing", status_code=409)
        # The other person's change beside mine; my input kept; the form now at the stored revision.
        self.assertContains(response, '<th scope="row">Name</th><td>First</td><td>Second</td>', status_code=409)
        self.assertContains(response, 'name="name" value="Second"', status_code=409)
        self.assertContains(response, f'name="version" value="{before["rev"]}"', status_code=409)
        self.assertEqual(client().hgetall(keys.product(product_id)), before)

    def test_delete_asks_then_removes_everything(self):
        product_id = make_product(tags=["wireless"])
        review(product_id, 5)
        response = self.client.get(f"/catalog/products/{product_id}/delete/")
        self.assertContains(response, "its 1 review")
        self.assertTrue(client().exists(keys.product(product_id)))
        response = self.client.post(f"/catalog/products/{product_id}/delete/", follow=True)
        self.assertContains(response, "Deleted")
        left = sorted(client().scan_iter(match="catalog:*"))
        self.assertLessEqual(set(left), set(store.counter_keys()))  # the id counters alone
        self.assertIn(keys.product_ids(keys.partition_of(product_id)), left)


class ReviewViewTest(RedisTestCase):
    def test_adding_a_review_changes_the_average_and_the_recent_reviews(self):
        product_id = make_product()
        response = self.client.post(
            f"/catalog/products/{product_id}/reviews/add/", {"author": "Zed", "rating": "4", "comment": "Nice <b>"}
        )
        self.assertRedirects(response, f"/catalog/products/{product_id}/#reviews", fetch_redirect_response=False)
        page = self.client.get(f"/catalog/products/{product_id}/")
        self.assertContains(page, "4.00")
        self.assertContains(page, "Nice &lt;b&gt;")
        self.assertEqual(client().zcard(keys.product_reviews(product_id)), 1)

    def test_a_bad_rating_is_a_field_error_and_nothing_is_written(self):
        product_id = make_product()
        response = self.client.post(f"/catalog/products/{product_id}/reviews/add/", {"author": "Zed", "rating": "6"})
        self.assertContains(response, "Select a valid choice", status_code=400)
        self.assertEqual(client().zcard(keys.product_reviews(product_id)), 0)

    def test_deleting_a_review_asks_then_refills_the_embed(self):
        product_id = make_product()
        ids = [review(product_id, r, author=f"w{r}", at=float(r)) for r in (1, 2, 3, 4)]
        url = f"/catalog/products/{product_id}/reviews/{ids[-1]}/delete/"
        self.assertContains(self.client.get(url), "Delete this review?")
        self.client.post(url)
        recent = [r.author for r in store.get(product_id).recent]
        self.assertEqual(recent, ["w3", "w2", "w1"])

    def test_a_review_of_another_product_is_404(self):
        first, second = make_product(), make_product("Other Buds", sku="OB-1")
        review_id = review(first, 5)
        self.assertEqual(self.client.post(f"/catalog/products/{second}/reviews/{review_id}/delete/").status_code, 404)
        self.assertTrue(client().exists(keys.review(review_id)))


class ReviewErrorKeepsThePlaceTest(RedisTestCase):
    def test_a_refused_review_comes_back_focused_on_its_first_error(self):
        product_id = make_product("Focus Buds")
        response = self.client.post(f"/catalog/products/{product_id}/reviews/add/", {"author": "", "rating": "9"})
        self.assertEqual(response.status_code, 400)
        html = response.content.decode()
        self.assertRegex(html, r'<input[^>]*name="author"[^>]*autofocus')
        self.assertEqual(html.count("autofocus"), 1)
