"""The one save flow (``config.saving``) on every app's edit form: its three buttons and their
messages, and two people editing the same object, where the second save is refused."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from config.redis import client
from tests.base import RedisTestCase


def posted(value) -> str:
    """A form's initial value as the browser sends it back."""
    if isinstance(value, list | tuple):
        return "\n".join(str(item) for item in value)
    return str(value)


def loaded(response) -> dict[str, str]:
    """What the edit form the response shows would send, unchanged."""
    return {name: posted(value) for name, value in response.context["form"].initial.items() if value is not None}


def snapshot() -> dict[str, bytes]:
    """Every key of the data (not the sessions) with its value."""
    return {key: client().dump(key) for key in client().scan_iter(count=1000) if "session" not in key}


@dataclass
class Case:
    """One app's edit form: how to make an object (its id), its URLs, the field two people change,
    and the words of the message a save leaves."""

    make: Callable[[], int]
    base: str  # the list's path: the object's page is base + id
    field: str
    label: str
    saved: str  # the message after saving with ``field`` set to "Second" (or "First")
    extra: dict | None = None  # what the form needs beyond its initial values


def _product() -> int:
    from tests.catalog.helpers import make_product

    return make_product()


def _course() -> int:
    from tests.school.helpers import course

    return course()


def _post() -> int:
    from cms import store
    from config.activity import Actor

    data = {"title": "Hello", "body": "Body text.", "author": "ann", "status": "draft"}
    return store.create_post(data, actor=Actor("ann"), comment="", at=1_767_600_000.0).id


def _employee() -> int:
    from tests.orgchart.helpers import employee

    return employee("Ann", title="Engineer")


def _location() -> int:
    from tests.orgchart.helpers import location

    return location("Seattle")


CASES = {
    "product": Case(_product, "/catalog/products/", "name", "Name", "Saved “{}”.", {"images": "", "tags": ""}),
    "course": Case(_course, "/school/courses/", "title", "Title", "The course “CS-101 {}” was changed."),
    "post": Case(_post, "/cms/posts/", "title", "Title", "Saved “{}” as version"),
    "employee": Case(_employee, "/orgchart/employees/", "title", "Title", "Saved Ann."),
    "location": Case(_location, "/orgchart/locations/", "name", "Name", "Saved {}."),
}


class SaveButtonsTest(RedisTestCase):
    """Save, Save and add another, Save and continue editing: where each goes and what it says."""

    def test_each_button_of_every_edit_form(self):
        buttons = {
            "": ("{base}{pk}/", ""),
            "_addanother": ("{base}add/", " You may add another below."),
            "_continue": ("{base}{pk}/edit/", " You may edit it again below."),
        }
        for name, case in CASES.items():
            pk = case.make()
            for number, (button, (target, said)) in enumerate(buttons.items()):
                with self.subTest(entity=name, button=button or "Save"):
                    value = f"Value {number}"
                    data = {**loaded(self.client.get(f"{case.base}{pk}/edit/")), **(case.extra or {})}
                    data[case.field] = value
                    if button:
                        data[button] = "1"
                    response = self.client.post(f"{case.base}{pk}/edit/", data)
                    url = target.format(base=case.base, pk=pk)
                    self.assertEqual(response.status_code, 302, response.content[:3000])
                    self.assertTrue(response.url.startswith(url), (response.url, url))
                    page = self.client.get(response.url)
                    message = case.saved.format(value)
                    self.assertContains(page, message)
                    if said:
                        self.assertContains(page, said.strip())

    def test_a_refusal_of_the_store_is_shown_beside_its_field_and_nothing_is_written(self):
        from tests.orgchart.helpers import location

        location("Austin")
        pk = _location()
        data = {**loaded(self.client.get(f"/orgchart/locations/{pk}/edit/")), "name": "austin"}
        before = snapshot()
        response = self.client.post(f"/orgchart/locations/{pk}/edit/", data)
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.context["form"].errors["name"], ["Another location (#1) is already called 'austin'."])
        self.assertEqual(snapshot(), before)

    def test_an_edit_without_its_version_is_refused(self):
        for name, case in CASES.items():
            with self.subTest(entity=name):
                pk = case.make()
                data = {**loaded(self.client.get(f"{case.base}{pk}/edit/")), **(case.extra or {})}
                del data["version"]
                before = snapshot()
                response = self.client.post(f"{case.base}{pk}/edit/", {**data, case.field: "Changed"})
                self.assertEqual(response.status_code, 200)
                self.assertContains(response, "This form is incomplete or damaged")
                self.assertEqual(snapshot(), before)


class TwoEditorsTest(RedisTestCase):
    """Two people open the same edit form; the first saves; the second's save is refused with the
    conflict page (409), which shows the first one's change beside the second's input, keeps that
    input, and carries the stored version; Redis is as the first save left it. Saving again, after
    that look, goes through."""

    def test_every_edit_form(self):
        for name, case in CASES.items():
            with self.subTest(entity=name):
                pk = case.make()
                url = f"{case.base}{pk}/edit/"
                mine = {**loaded(self.client.get(url)), **(case.extra or {})}
                theirs = {**loaded(self.client.get(url)), **(case.extra or {})}
                self.assertEqual(mine["version"], theirs["version"])
                response = self.client.post(url, {**theirs, case.field: "First"})
                self.assertEqual(response.status_code, 302)
                before = snapshot()
                response = self.client.post(url, {**mine, case.field: "Second"})
                self.assertEqual(response.status_code, 409)
                self.assertContains(response, f"Someone else saved this {name} while you were editing", status_code=409)
                if name == "post":  # the CMS shows the saves made meanwhile and their diff
                    self.assertContains(response, "<del>Hello</del><ins>First</ins>", status_code=409)
                else:
                    row = f'<th scope="row">{case.label}</th><td>First</td><td>Second</td>'
                    self.assertContains(response, row, status_code=409)
                self.assertContains(response, f'name="{case.field}" value="Second"', status_code=409)
                self.assertEqual(snapshot(), before)
                again = response.context["form"].data["version"]
                self.assertNotEqual(again, mine["version"])
                self.assertContains(response, f'name="version" value="{again}"', status_code=409)
                response = self.client.post(url, {**mine, case.field: "Second", "version": again})
                self.assertEqual(response.status_code, 302)
                self.assertEqual(response.url, f"{case.base}{pk}/")
                page = self.client.get(url)
                self.assertEqual(page.context["form"].initial[case.field], "Second")

    def test_an_object_deleted_while_its_form_was_open_is_a_404_and_nothing_is_written(self):
        from unittest import mock

        from orgchart import store
        from orgchart.documents import Location
        from tests.orgchart.helpers import ACTOR

        pk = _location()
        store.delete_location(pk, None, actor=ACTOR)
        before = snapshot()
        # The page read the location just before another request deleted it: the save finds it gone.
        with (
            mock.patch.object(store, "get_location", return_value=Location(pk, "Seattle", version=1)),
            mock.patch.object(store, "save_location", wraps=store.save_location) as saving,
        ):
            response = self.client.post(f"/orgchart/locations/{pk}/edit/", {"name": "Tacoma", "version": "1"})
        self.assertEqual(saving.call_count, 1)  # the 404 is the save's answer
        self.assertEqual(response.status_code, 404)
        self.assertEqual(snapshot(), before)
