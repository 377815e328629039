from django.test import tag
from django.urls import reverse

from config.redis import client
from orgchart import keys, store
from tests.base import RedisTestCase
from tests.orgchart.helpers import location, org
from tests.orgchart.test_graph import SPEC


@tag("cluster")
class EmployeeScreensTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        store.load_scripts()
        self.where = location("Seattle")
        self.ids = org(SPEC, self.where)

    def test_list_is_one_round_trip_and_a_search_two(self):
        with self.assertRoundTrips(1):
            self.client.get("/orgchart/employees/")
        with self.assertRoundTrips(2):  # the matching ids (one letter: its piece's set), then their rows
            response = self.client.get("/orgchart/employees/?q=d")
        self.assertContains(response, "Doug")
        self.assertContains(response, "Dee")
        self.assertNotContains(response, ">Ann<")
        self.assertContains(response, "Inverted index")

    def test_the_location_list_is_one_round_trip_with_head_counts(self):
        location("Austin")
        with self.assertRoundTrips(1):
            response = self.client.get("/orgchart/locations/")
        self.assertEqual(
            [(loc.name, n) for loc, n in response.context["page"].object_list], [("Austin", 0), ("Seattle", 7)]
        )

    def test_list_sorts_descending_and_pages(self):
        for i in range(30):
            store.save_employee(None, {"name": f"Zed {i:02}", "manager": self.ids["Eve"]}, actor=store.Actor("t"))
        response = self.client.get("/orgchart/employees/?o=-name")
        names = [e.name for e in response.context["page"].object_list]
        self.assertEqual(names[0], "Zed 29")
        self.assertEqual(len(names), 25)
        self.assertContains(response, "Page 1 of 2")
        past = self.client.get("/orgchart/employees/?page=9", follow=True)  # past the end: the last page, said
        self.assertEqual(past.redirect_chain, [("/orgchart/employees/?page=2", 302)])
        self.assertContains(past, "Page 9 is past the end of the list")

    def test_detail_shows_chain_depth_and_reports_by_depth(self):
        with self.assertRoundTrips(1):
            response = self.client.get(f"/orgchart/employees/{self.ids['Fay']}/")
        self.assertContains(response, '<dd id="depth-value">3</dd>', html=True)
        chain = response.content.decode().split('id="chain"')[1].split("</ol>")[0]
        self.assertLess(chain.index("Doug"), chain.index("Ann"))
        self.assertLess(chain.index("Ann"), chain.index("Cid"))
        with self.assertRoundTrips(1):  # one script walks up and down, beside the SORT of the direct reports
            response = self.client.get(f"/orgchart/employees/{self.ids['Doug']}/?depth=2")
        self.assertEqual(response.context["report"].rows, [(1, 2, 2), (2, 3, 5)])
        at_depth = response.content.decode().split('id="at-depth"')[1].split("</ul>")[0]
        for name in ("Cid", "Dee", "Eve"):
            self.assertIn(name, at_depth)
        self.assertNotIn("Fay", at_depth)

    def test_depth_partial_for_htmx(self):
        response = self.client.get(f"/orgchart/employees/{self.ids['Doug']}/?depth=3", headers={"HX-Request": "true"})
        self.assertContains(response, 'id="by-depth"')
        self.assertNotContains(response, "<h1>")
        self.assertContains(response, "Fay")

    def test_unknown_or_malformed_id_is_404(self):
        self.assertEqual(self.client.get("/orgchart/employees/999/").status_code, 404)
        self.assertEqual(self.client.get("/orgchart/employees/abc/").status_code, 404)
        self.assertEqual(self.client.get("/orgchart/tree/?root=x").status_code, 400)
        self.assertEqual(self.client.get("/orgchart/tree/?root=999").status_code, 404)

    def test_add_with_errors_beside_fields_writes_nothing(self):
        before = client().dbsize()
        response = self.client.post(
            "/orgchart/employees/add/", {"name": "doug", "title": "x", "manager": "Nobody Here", "location": ""}
        )
        self.assertContains(response, "No employee is called &#x27;Nobody Here&#x27;.")
        response = self.client.post("/orgchart/employees/add/", {"name": "doug", "manager": "Ann"})
        self.assertContains(response, "is already called")
        self.assertEqual(client().dbsize(), before)

    def test_add_then_redirect_with_message(self):
        response = self.client.post(
            "/orgchart/employees/add/",
            {"name": "Gus <b>", "title": "Intern", "manager": "Eve", "location": self.where, "full_time": ""},
            follow=True,
        )
        self.assertContains(response, "Saved Gus &lt;b&gt;.")
        pk = client().hget(keys.employee_by_name(), "gus <b>")
        self.assertEqual(client().hget(keys.employee(pk), "full_time"), "0")
        self.assertEqual(store.get_employee(self.ids["Doug"]).total, 7)

    def test_save_and_add_another_and_save_and_continue_editing(self):
        data = {"title": "Intern", "manager": "Eve", "location": self.where, "full_time": ""}
        response = self.client.post("/orgchart/employees/add/", {**data, "name": "Hal", "_addanother": "1"})
        self.assertRedirects(response, "/orgchart/employees/add/", fetch_redirect_response=False)
        response = self.client.post("/orgchart/employees/add/", {**data, "name": "Ivy", "_continue": "1"}, follow=True)
        pk = client().hget(keys.employee_by_name(), "ivy")
        self.assertEqual(response.redirect_chain[-1][0], f"/orgchart/employees/{pk}/edit/")
        self.assertContains(response, "Saved Ivy. You may edit it again below.")
        self.assertContains(response, "Save and add another")

    def test_move_refuses_a_cycle_with_a_clear_error(self):
        before = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        response = self.client.post(f"/orgchart/employees/{self.ids['Ann']}/move/", {"manager": "Fay"})
        self.assertContains(response, "that would make a cycle", status_code=400)
        response = self.client.post(f"/orgchart/employees/{self.ids['Ann']}/move/", {"manager": "Ann"})
        self.assertContains(response, "cannot report to themselves", status_code=400)
        self.assertEqual(before, {k: client().dump(k) for k in client().scan_iter("orgchart:*")})

    def test_move_and_edit_through_the_screens(self):
        response = self.client.post(f"/orgchart/employees/{self.ids['Cid']}/move/", {"manager": "Bob"}, follow=True)
        self.assertContains(response, "Moved Cid under Bob.")
        self.assertIn(str(self.ids["Cid"]), client().smembers(keys.reports(self.ids["Bob"])))
        response = self.client.get(f"/orgchart/employees/{self.ids['Cid']}/edit/")
        self.assertContains(response, f'value="#{self.ids["Bob"]}"')

    def test_delete_asks_who_takes_over_then_does_it(self):
        response = self.client.get(f"/orgchart/employees/{self.ids['Ann']}/delete/")
        self.assertContains(response, 'value="Doug"')
        response = self.client.post(f"/orgchart/employees/{self.ids['Ann']}/delete/", {"successor": "Fay"})
        self.assertContains(response, "Fay is in this employee&#x27;s own team: pick someone outside it.")
        self.assertTrue(client().exists(keys.employee(self.ids["Ann"])))
        response = self.client.post(f"/orgchart/employees/{self.ids['Ann']}/delete/", {"successor": "Bob"}, follow=True)
        self.assertContains(response, "Deleted Ann.")
        self.assertFalse(client().exists(keys.employee(self.ids["Ann"])))
        self.assertEqual(store.get_employee(self.ids["Bob"]).direct, 3)

    def test_writes_need_post(self):
        before = store.get_employee(self.ids["Ann"])
        moved = self.client.get(f"/orgchart/employees/{self.ids['Ann']}/move/", {"manager": "Bob"})
        self.assertRedirects(moved, f"/orgchart/employees/{self.ids['Ann']}/#chain")  # its form's page, no move
        self.assertEqual(store.get_employee(self.ids["Ann"]), before)


class TreeAndPathScreensTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        store.load_scripts()
        self.ids = org(SPEC)

    def test_tree_starts_at_the_top_in_one_round_trip(self):
        with self.assertRoundTrips(1):
            response = self.client.get("/orgchart/tree/")
        self.assertContains(response, "Doug")
        self.assertContains(response, "2 direct · 6 in all")
        self.assertContains(response, "Tree and graph pattern: lazy tree")

    def test_each_expansion_is_one_round_trip(self):
        url = reverse("orgchart:tree_children", args=[self.ids["Ann"]])
        with self.assertRoundTrips(1):
            response = self.client.get(url, headers={"HX-Request": "true"})
        self.assertContains(response, "Cid")
        self.assertContains(response, "1 direct · 1 in all")
        self.assertContains(response, "Dee")
        self.assertNotContains(response, "<h1>")
        self.assertRedirects(self.client.get(url), f"/orgchart/tree/?root={self.ids['Ann']}")
        missing = self.client.get("/orgchart/tree/999/children/", headers={"HX-Request": "true"})
        self.assertEqual(missing.status_code, 404)

    def test_path_finder(self):
        with self.assertRoundTrips(2):  # the names in one HMGET, then one script walks up from both
            response = self.client.get("/orgchart/path/", {"a": "Fay", "b": f"#{self.ids['Eve']}"})
        self.assertContains(response, "5 degrees of separation")
        self.assertEqual([e.name for e in response.context["path"].steps], ["Fay", "Cid", "Ann", "Doug", "Bob", "Eve"])
        response = self.client.get("/orgchart/path/", {"a": "Nobody", "b": "Eve"})
        self.assertContains(response, "No employee is called")
        with self.assertRoundTrips(1):  # ids need no lookup; the missing one shows in the chains' read
            response = self.client.get("/orgchart/path/", {"a": f"#{self.ids['Cid']}", "b": "#999"})
        self.assertContains(response, "one of them does not exist")


@tag("cluster")
class LocationScreensTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.where = location("Seattle")
        self.other = location("Austin")
        self.ids = org(SPEC, self.where)

    def test_location_page_is_two_round_trips(self):
        store.record_readings(self.where, [(1767600000 - d, 20.0) for d in (40 * 86400, 2 * 86400, 3600, 0)])
        with self.assertRoundTrips(2):
            response = self.client.get(f"/orgchart/locations/{self.where}/")
        self.assertContains(response, "Staff (7)")
        self.assertContains(response, "Latest reading")
        self.assertContains(response, "<svg", count=3)
        self.assertContains(response, "Bucket pattern")

    def test_the_unfiltered_staff_form_is_rendered_once_and_the_same_on_every_page(self):
        first = self.client.get(f"/orgchart/locations/{self.where}/")
        again = self.client.get(f"/orgchart/locations/{self.other}/")
        widgets = [t.name for t in again.templates if t.name.startswith(("django/forms/", "includes/autocomplete"))]
        self.assertEqual(widgets, [])  # the fields' HTML was kept from the first page: no widget rendered
        for response in (first, again):
            self.assertContains(response, "Who report to")
            self.assertContains(response, 'name="under"')

    def test_latest_reading_and_chart_captions(self):
        store.record_readings(self.where, [(1767600000 - 3600, 18.5), (1767600000, 21.375)])
        response = self.client.get(f"/orgchart/locations/{self.where}/")
        self.assertContains(
            response,
            "Latest reading: <strong>21.38 °C</strong> at "
            '<time datetime="2026-01-05T08:00:00+00:00">2026-01-05 08:00:00 UTC</time>. '
            "The charts read 66 keys: one per bucket.",
        )
        self.assertContains(response, "2 of 24 hours with readings · bars from min to max")
        self.assertContains(response, '<p class="muted chart-empty">Only 1 of these 30 days has readings so far')

    def test_staff_reporting_to_filter(self):
        store.load_scripts()
        with self.assertRoundTrips(3):  # the page (no readings yet), the name typed, one script walking Ann's subtree
            response = self.client.get(f"/orgchart/locations/{self.where}/", {"under": "Ann"})
        listed = response.content.decode().split('id="reporting"')[1].split("</ul>")[0]
        self.assertEqual([n for n in SPEC if f">{n}<" in listed], ["Cid", "Dee", "Fay"])

    def test_list_add_rename_delete(self):
        response = self.client.get("/orgchart/locations/")
        self.assertContains(response, "Seattle")
        self.assertContains(response, '<td class="num">7</td>', html=True)
        response = self.client.post("/orgchart/locations/add/", {"name": "seattle"})
        self.assertContains(response, "is already called")
        self.client.post(f"/orgchart/locations/{self.where}/edit/", {"name": "Tacoma", "version": "1"})
        self.assertEqual(store.get_employee(self.ids["Fay"]).location_name, "Tacoma")
        response = self.client.post(f"/orgchart/locations/{self.where}/delete/", {"successor": self.other}, follow=True)
        self.assertContains(response, "Deleted Tacoma.")
        self.assertEqual(client().scard(keys.staff(self.other)), 7)
        self.assertFalse(client().exists(keys.location(self.where), keys.staff(self.where)))
        self.assertEqual(store.get_employee(self.ids["Fay"]).location_name, "Austin")


class LocationDeleteTest(RedisTestCase):
    def sensor_keys(self, pk: int) -> list[str]:
        return sorted(client().scan_iter(keys.sensor_pattern().replace("sensor-*", f"sensor-{pk}")))

    def test_delete_removes_the_sensor_buckets_and_leaves_a_tombstone_that_refuses_readings(self):
        where, other = location("Seattle"), location("Austin")
        org(SPEC, where)
        store.record_readings(where, [(1767571200 - 3600 * i, 20.0) for i in range(24 * 40)])  # 40 days
        store.record_readings(other, [(1767571200, 20.0)])
        self.assertGreater(len(self.sensor_keys(where)), 1900)
        response = self.client.post(f"/orgchart/locations/{where}/delete/", {"successor": ""}, follow=True)
        self.assertContains(response, "Deleted Seattle.")
        self.assertEqual(self.sensor_keys(where), [keys.temp_latest(where)])
        self.assertEqual(list(client().hgetall(keys.temp_latest(where))), ["deleted"])
        self.assertFalse(client().exists(keys.location(where)))
        self.assertTrue(client().exists(keys.temp_latest(other)))
        self.assertEqual(store.get_employee(store.resolve_employee("Fay")).location, None)
        with self.assertRaises(store.NotFound):
            store.record_readings(where, [(1767571200 + 60, 21.0), (1767571200 + 7200, 22.0)])
        self.assertEqual(self.sensor_keys(where), [keys.temp_latest(where)])
        from config.invariants import violations

        self.assertEqual(violations(["orgchart"]), [])

    def test_the_two_steps_are_two_round_trips_and_no_command_holds_every_bucket(self):
        where = location("Seattle")
        store.record_readings(where, [(1767571200 - 3600 * i, 20.0) for i in range(24 * 40)])  # ~2,000 buckets
        with self.assertRoundTrips(2) as recorded:  # the graph's script and a read; the tombstone and UNLINKs
            self.assertEqual(store.delete_location(where, None, actor=store.Actor("t")), "Seattle")
        self.assertEqual(self.sensor_keys(where), [keys.temp_latest(where)])
        sent = [command for trip in recorded.trips("data") for command in trip.commands]
        unlinks = [len(command.keys) for command in sent if command.name == "UNLINK"]
        self.assertEqual(max(unlinks), store.UNLINK_CHUNK)
        self.assertEqual(sum(unlinks), len(keys.sensor_keys(where, 1767571200 - 3600 * 959, 1767571200)))
        self.assertTrue(all(len(command.keys) <= store.UNLINK_CHUNK for command in sent), "one command, every key")

    def test_a_reading_between_the_two_steps_is_removed_too(self):
        where = location("Seattle")
        store.record_readings(where, [(1767571200, 20.0)])
        pipe_first, pipe_last = client().hmget(keys.temp_latest(where), "first", "ts")
        store.record_readings(where, [(1767571200 + 5 * 86400, 21.0)])  # a new day's buckets, after the read
        store.forget_sensor(where, (pipe_first, pipe_last))
        self.assertEqual(self.sensor_keys(where), [keys.temp_latest(where)])

    def test_readings_racing_a_delete_leave_nothing_but_the_tombstone(self):
        import threading

        from config.invariants import violations
        from tests.base import run_concurrently

        places = [location(f"Site {n}") for n in range(4)]
        for pk in places:
            store.record_readings(pk, [(1767571200 + 600 * i, 20.0) for i in range(50)])
        started, stored = threading.Barrier(len(places) * 2), []

        def feed(pk: int) -> None:  # hours after the ones stored: each batch makes new buckets
            started.wait()
            for batch in range(30):
                hour = 1767571200 + 86400 + 3600 * batch
                try:
                    stored.append(store.record_readings(pk, [(hour + 60 * i, 21.0) for i in range(3)]))
                except store.NotFound:
                    return

        def delete(pk: int) -> None:
            started.wait()
            store.delete_location(pk, None, actor=store.Actor("t"))

        run_concurrently(lambda kind, pk: kind(pk), [(kind, pk) for pk in places for kind in (feed, delete)])
        for pk in places:
            self.assertEqual(self.sensor_keys(pk), [keys.temp_latest(pk)])
            self.assertEqual(list(client().hgetall(keys.temp_latest(pk))), ["deleted"])
        self.assertEqual(violations(["orgchart"]), [])

    def test_a_delete_stopped_between_its_steps_is_reported_and_repaired(self):
        from config.invariants import registry

        where, other = location("Seattle"), location("Austin")
        store.record_readings(where, [(1767571200 + 600 * i, 20.0) for i in range(20)])
        store.record_readings(other, [(1767571200, 20.0)])
        client().delete(keys.location(where))  # the graph's step alone, as when the process dies after it
        client().hset(keys.temp_latest(other), "deleted", "1")  # and a living location's sensor tombstoned
        gone = location("Boise")  # and a delete whose bucket step stopped after its tombstone
        store.record_readings(gone, [(1767571200, 20.0)])
        client().delete(keys.location(gone))
        client().delete(keys.temp_latest(gone))  # the tombstone holds no reading
        client().hset(keys.temp_latest(gone), "deleted", "1")
        (check,) = [inv for inv in registry.for_apps(["orgchart"]) if inv.name.startswith("sensor data belongs")]
        found = list(check.check())
        self.assertEqual([v.keys for v in found], [(keys.temp_latest(pk),) for pk in (where, other, gone)])
        self.assertIn(f"location {gone} was deleted but its sensor still holds buckets", found[2].message)
        self.assertIn(f"location {where} holds sensor data but the location does not exist", found[0].message)
        self.assertIn(f"location {other} exists but its sensor is tombstoned", found[1].message)
        check.repair()
        self.assertEqual(list(check.check()), [])
        self.assertEqual(self.sensor_keys(where), [keys.temp_latest(where)])
        self.assertEqual(self.sensor_keys(gone), [keys.temp_latest(gone)])
        self.assertEqual(store.record_readings(other, [(1767571200 + 60, 20.0)]), 1)  # readings land again


class WideTreeTest(RedisTestCase):
    def test_a_wide_node_expands_a_page_at_a_time(self):
        from orgchart.importing import OrgData, Person

        data = OrgData()
        data.people["boss"] = Person("Boss")
        for i in range(store.NODE_LIMIT + 5):
            data.people[f"r{i:03}"] = Person(f"R{i:03}", manager="boss")
        boss = store.import_graph(data, actor=store.Actor("t")).first_employee
        url = reverse("orgchart:tree_children", args=[boss])
        first = self.client.get(url, headers={"HX-Request": "true"}).content.decode()
        self.assertEqual(first.count('class="leaf"'), store.NODE_LIMIT)
        self.assertIn(f"?offset={store.NODE_LIMIT}", first)
        with self.assertRoundTrips(1):
            rest = self.client.get(f"{url}?offset={store.NODE_LIMIT}", headers={"HX-Request": "true"})
        self.assertEqual(rest.content.decode().count('class="leaf"'), 5)
        self.assertContains(rest, "R104")
        self.assertNotContains(rest, "Show the next ones")
        self.assertNotContains(rest, '<ul class="tree">')
        self.assertEqual(self.client.get(f"{url}?offset=x", headers={"HX-Request": "true"}).status_code, 400)
        page = self.client.get(f"/orgchart/tree/?root={boss}&offset={store.NODE_LIMIT}")
        self.assertContains(page, "R100")
        self.assertNotContains(page, "R099")


class MoveToTheTopTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.ids = org(SPEC)

    def test_a_blank_manager_asks_first_and_writes_nothing(self):
        before = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        response = self.client.post(f"/orgchart/employees/{self.ids['Cid']}/move/", {"manager": ""})
        self.assertContains(response, "Move Cid to the top of the org?")
        self.assertContains(response, "will no longer report to Ann")
        self.assertContains(response, 'name="to_top"')
        self.assertEqual(before, {k: client().dump(k) for k in client().scan_iter("orgchart:*")})
        response = self.client.post(
            f"/orgchart/employees/{self.ids['Cid']}/move/", {"manager": "", "to_top": "on"}, follow=True
        )
        self.assertContains(response, "Moved Cid to the top of the org.")
        self.assertIn(str(self.ids["Cid"]), client().smembers(keys.roots()))
        self.assertEqual(store.get_employee(self.ids["Ann"]).total, 1)

    def test_a_named_manager_needs_no_confirmation(self):
        response = self.client.post(f"/orgchart/employees/{self.ids['Fay']}/move/", {"manager": "Doug"}, follow=True)
        self.assertContains(response, "Moved Fay under Doug.")


class NumbersFromTheUrlTest(RedisTestCase):
    """Only ASCII digits, bounded: a superscript or a number past 64 bits is a 400 or clamped, never a 500."""

    def setUp(self):
        super().setUp()
        self.ids = org(SPEC)

    def test_tree_offsets_and_roots(self):
        children = reverse("orgchart:tree_children", args=[self.ids["Doug"]])
        for url in (
            "/orgchart/tree/?offset=²",
            "/orgchart/tree/?root=²",
            "/orgchart/tree/?root=-1",
            "/orgchart/tree/?root=0",
        ):
            self.assertEqual(self.client.get(url).status_code, 400, url)
        self.assertEqual(self.client.get(f"/orgchart/tree/?root={2**64}").status_code, 400)
        self.assertEqual(self.client.get(f"{children}?offset=²", headers={"HX-Request": "true"}).status_code, 400)
        response = self.client.get(f"/orgchart/tree/?offset={2**64}")
        self.assertEqual(response.status_code, 200)  # clamped: past the last child, an empty level
        self.assertNotContains(response, "Ann")

    def test_depth_and_typed_ids(self):
        for depth in ("²", str(2**64), "-1"):
            response = self.client.get(f"/orgchart/employees/{self.ids['Doug']}/", {"depth": depth})
            self.assertEqual(response.context["report"].depth, 1, depth)
        for typed in ("#²", f"#{2**64}", "#"):
            response = self.client.get("/orgchart/path/", {"a": typed, "b": "Eve"})
            self.assertContains(response, "No employee is called", msg_prefix=typed)


class FormRoundTripsTest(RedisTestCase):
    def test_the_employee_forms_read_in_one_round_trip(self):
        store.load_scripts()
        ids = org(SPEC, location("Seattle"))
        with self.assertRoundTrips(1):  # the employee and the location menu
            response = self.client.get(f"/orgchart/employees/{ids['Cid']}/edit/")
        self.assertContains(response, "Seattle")
        self.assertContains(response, f'value="#{ids["Ann"]}"')
        with self.assertRoundTrips(1):
            self.client.get("/orgchart/employees/add/")
        self.assertEqual(self.client.get("/orgchart/employees/999/edit/").status_code, 404)


class StaleEmployeeFormTest(RedisTestCase):
    def test_a_form_opened_before_a_move_cannot_undo_it(self):
        """Someone moves Cid under Bob while another has Cid's edit form open (manager: Ann): that
        form's save is the conflict page, which shows the new manager, and Cid stays under Bob."""
        ids = org(SPEC, location("Seattle"))
        url = f"/orgchart/employees/{ids['Cid']}/edit/"
        form = self.client.get(url).context["form"]
        data = {**{k: v for k, v in form.initial.items() if v is not None}, "title": "Lead"}
        self.assertEqual(data["version"], 1)
        self.client.post(f"/orgchart/employees/{ids['Cid']}/move/", {"manager": "Bob"})
        before = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        response = self.client.post(url, data)
        self.assertContains(response, "Someone else saved this employee while you were editing", status_code=409)
        row = f'<th scope="row">Reports to</th><td>#{ids["Bob"]}</td><td>#{ids["Ann"]}</td>'
        self.assertContains(response, row, status_code=409)
        self.assertContains(response, 'name="title" value="Lead"', status_code=409)
        self.assertContains(response, 'name="version" value="2"', status_code=409)
        self.assertEqual(before, {k: client().dump(k) for k in client().scan_iter("orgchart:*")})
        self.assertEqual(store.get_employee(ids["Cid"]).manager, ids["Bob"])


class EditToTheTopTest(RedisTestCase):
    def test_blanking_the_manager_on_edit_needs_the_explicit_choice(self):
        ids = org(SPEC)
        url = f"/orgchart/employees/{ids['Cid']}/edit/"
        before = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        response = self.client.post(url, {"name": "Cid", "title": "Lead", "manager": "", "version": "1"})
        self.assertContains(response, "tick “Report to nobody”")
        self.assertEqual(before, {k: client().dump(k) for k in client().scan_iter("orgchart:*")})
        self.client.post(url, {"name": "Cid", "title": "Lead", "manager": "", "to_top": "on", "version": "1"})
        self.assertIn(str(ids["Cid"]), client().smembers(keys.roots()))
        response = self.client.post("/orgchart/employees/add/", {"name": "Gus", "manager": ""})  # a new top
        self.assertEqual(response.status_code, 302)


class PageFormsTest(RedisTestCase):
    """The employee page's move form and the location page's filter: blank, then with the user's
    input and its errors, escaped."""

    def setUp(self):
        super().setUp()
        store.load_scripts()
        self.where = location("Seattle")
        self.ids = org(SPEC, self.where)

    def test_blank_forms_show_their_fields(self):
        page = self.client.get(f"/orgchart/employees/{self.ids['Cid']}/")
        self.assertContains(page, 'name="manager"')
        self.assertContains(page, "New manager")
        self.assertNotContains(page, 'class="field-error"')
        page = self.client.get(f"/orgchart/locations/{self.where}/")
        self.assertContains(page, '<label for="id_under">Who report to:</label>')
        self.assertContains(page, 'name="under" id="id_under" value=""')
        self.assertNotContains(page, 'class="field-error"')

    def test_a_submitted_form_shows_its_value_and_escaped_errors(self):
        page = self.client.get(f"/orgchart/locations/{self.where}/", {"under": "<i>nobody</i>"})
        error = "No employee is called &#x27;&lt;i&gt;nobody&lt;/i&gt;&#x27;."
        self.assertContains(page, f'<span class="field-error">{error}</span>')
        self.assertContains(page, 'value="&lt;i&gt;nobody&lt;/i&gt;"')
        self.assertNotContains(page, "<i>nobody")
        page = self.client.post(f"/orgchart/employees/{self.ids['Cid']}/move/", {"manager": "<b>x</b>"})
        self.assertEqual(page.status_code, 400)
        self.assertContains(page, "&lt;b&gt;x&lt;/b&gt;", status_code=400)
        self.assertNotContains(page, "<b>x</b>", status_code=400)


class PageLinksTest(RedisTestCase):
    """Every link and form of the org chart's pages goes to the screen ``orgchart/urls.py`` names."""

    def test_a_pages_links_are_the_reversed_ones(self):
        import re

        store.load_scripts()
        where = location("Seattle")
        ids = org(SPEC, where)
        ann, cid, doug = ids["Ann"], ids["Cid"], ids["Doug"]
        expected = {
            f"/orgchart/employees/{ann}/": [
                reverse("orgchart:employee_edit", args=[ann]),
                reverse("orgchart:employee_delete", args=[ann]),
                reverse("orgchart:employee_move", args=[ann]),
                reverse("orgchart:tree") + f"?root={ann}",
                reverse("orgchart:location_detail", args=[where]),
                reverse("orgchart:employee_detail", args=[doug]),  # the chain of command
                reverse("orgchart:employee_detail", args=[cid]),  # a direct report
                reverse("orgchart:employee_list"),
                reverse("orgchart:path"),
            ],
            f"/orgchart/locations/{where}/": [
                reverse("orgchart:location_edit", args=[where]),
                reverse("orgchart:location_delete", args=[where]),
                reverse("orgchart:employee_detail", args=[cid]),  # the staff
            ],
            "/orgchart/employees/": [
                reverse("orgchart:employee_list"),  # the search box's htmx target
                reverse("orgchart:employee_add"),
                reverse("orgchart:employee_detail", args=[cid]),
                reverse("orgchart:location_detail", args=[where]),
            ],
            "/orgchart/locations/": [
                reverse("orgchart:location_add"),
                reverse("orgchart:location_detail", args=[where]),
            ],
        }
        for url, links in expected.items():
            with self.subTest(url=url):
                page = self.client.get(url).content.decode()
                targets = set(re.findall(r'(?:href|action|hx-get)="([^"]*)"', page))
                for link in links:
                    self.assertIn(link, targets)
