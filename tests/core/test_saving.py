"""The one save flow (``config.saving``) on every app's edit form: its three buttons and their
messages, and two people editing the same object, where the second save is refused."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from unittest import mock

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from config import keys
from config.redis import client
from tests.base import PASSWORD, RedisTestCase, run_concurrently


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


ADD_FORMS = {
    "product": (
        "/catalog/products/add/?type=earbuds",
        {"type": "earbuds", "name": "Once Buds", "images": "", "tags": ""},
    ),
    "course": ("/school/courses/add/", {"code": "CS-707", "title": "Once", "capacity": "30"}),
    "post": ("/cms/posts/add/", {"title": "Once", "body": "Text.", "author": "ann", "status": "draft", "comment": ""}),
    "location": ("/orgchart/locations/add/", {"name": "Onceville"}),
}


def token_of(response) -> str:
    """The one-time token the add form the response shows carries."""
    found = re.search(r'<input type="hidden" name="once" value="([^"]+)"', response.content.decode())
    assert found, "the add form carries no one-time token"
    return found.group(1)


class AddOnceTest(RedisTestCase):
    """Every add form saves once: a second post of the same form shows what the first one made."""

    def test_a_second_post_of_every_add_form_goes_to_what_the_first_made(self):
        for name, (url, data) in ADD_FORMS.items():
            with self.subTest(form=name):
                token = token_of(self.client.get(url))
                first = self.client.post(url, {**data, "once": token})
                self.assertEqual(first.status_code, 302, first.content[:2000])
                pk = int(first.url.rstrip("/").rsplit("/", 1)[1])
                self.assertEqual(client().get(keys.form_token(token)).rsplit(":", 1)[1], str(pk))
                before = snapshot()
                again = self.client.post(url, {**data, "once": token})  # a double click, or Back and Save
                self.assertRedirects(again, first.url, fetch_redirect_response=False)
                self.assertEqual(snapshot(), before)  # nothing written
                self.assertContains(self.client.get(again.url), "This form was already sent and saved once")

    def test_a_new_form_gets_a_new_token_and_adds_again(self):
        url, data = ADD_FORMS["post"]
        first = self.client.post(url, {**data, "once": token_of(self.client.get(url))})
        second = self.client.post(url, {**data, "once": token_of(self.client.get(url))})
        self.assertNotEqual(first.url, second.url)

    def test_a_refused_save_gives_its_token_back_so_the_corrected_form_saves(self):
        from tests.orgchart.helpers import location

        location("Austin")
        url = "/orgchart/locations/add/"
        token = token_of(self.client.get(url))
        refused = self.client.post(url, {"name": "austin", "once": token})
        self.assertContains(refused, "already called")
        self.assertIsNone(client().get(keys.form_token(token)))
        self.assertIn(f'name="once" value="{token}"', refused.content.decode())  # the same form, the same token
        saved = self.client.post(url, {"name": "Boston", "once": token})
        self.assertEqual(saved.status_code, 302)

    def test_a_post_while_the_first_is_still_saving_adds_nothing(self):
        url, data = ADD_FORMS["location"]
        token = token_of(self.client.get(url))
        client().set(keys.form_token(token), "", ex=60)  # claimed by a save that has not finished
        with mock.patch("config.saving.SETTLE_WAITS", 2), mock.patch("config.saving.SETTLE_PAUSE", 0):
            before = snapshot()
            response = self.client.post(url, {**data, "once": token})
        self.assertContains(response, "being saved from another click or tab", status_code=409)
        self.assertEqual(snapshot(), before)

    def test_of_many_posts_racing_with_one_token_exactly_one_claims_it(self):
        from config.store import once

        won = []
        run_concurrently(
            lambda n: won.append(n) if once.claim_form_token("r" * 22) else None, [(n,) for n in range(16)]
        )
        self.assertEqual(len(won), 1)
        self.assertEqual(client().get(keys.form_token("r" * 22)), "")  # claimed, its save not yet recorded
        self.assertGreater(client().ttl(keys.form_token("r" * 22)), 0)  # and it goes away by itself

    def test_a_damaged_token_is_refused_over_the_form(self):
        url, data = ADD_FORMS["location"]
        response = self.client.post(url, {**data, "once": "x" * 5})
        self.assertContains(response, "This form is incomplete or damaged")


class ActionsAnswerGetTest(RedisTestCase):
    """A GET of an action's URL lands on the page that holds the action's form, never a bare 405."""

    def test_every_post_only_action_redirects_to_its_page(self):
        from tests.catalog.helpers import make_product
        from tests.orgchart.helpers import employee

        product, post, person = make_product(), _post(), employee("Ann")
        expected = {
            f"/catalog/products/{product}/reviews/add/": f"/catalog/products/{product}/#add-review",
            "/catalog/products/delete/": "/catalog/products/",
            f"/cms/posts/{post}/comments/add/": f"/cms/posts/{post}/#comment-form",
            "/cms/posts/delete/": "/cms/posts/",
            f"/orgchart/employees/{person}/move/": f"/orgchart/employees/{person}/#chain",
            "/school/students/delete/": "/school/students/",
            "/school/courses/3/enrol/": "/school/courses/3/",
            "/exchange/catalog/preview/": "/exchange/catalog/",
            "/exchange/catalog/export/": "/exchange/catalog/",
            f"/exchange/catalog/jobs/{JOB}/confirm/": f"/exchange/catalog/jobs/{JOB}/",
        }
        for path, page in expected.items():
            with self.subTest(path=path):
                self.assertRedirects(self.client.get(path), page, fetch_redirect_response=False)
        self.assertEqual(self.client.put(f"/cms/posts/{post}/comments/add/").status_code, 405)


JOB = "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f"  # any job's id: the GET answers before the job is looked up


class ExpiredSessionTest(RedisTestCase):
    """A post that meets an expired session comes back, after signing in, to its form with the input."""

    def sign_in_again(self, next_path: str):
        return self.client.post(
            "/accounts/login/", {"username": self.user.username, "password": PASSWORD, "next": next_path}, follow=True
        )

    def test_an_add_form_is_refilled_after_signing_in_again(self):
        self.client.logout()  # the session expired while the form was open
        typed = {"title": "Typed before expiry", "body": "Kept.", "author": "ann", "status": "draft", "comment": ""}
        response = self.client.post("/cms/posts/add/", {**typed, "once": "a" * 22})
        self.assertRedirects(response, "/accounts/login/?next=/cms/posts/add/", fetch_redirect_response=False)
        posts = lambda: {key: value for key, value in snapshot().items() if key.startswith("cms:")}  # noqa: E731
        before = posts()
        page = self.sign_in_again("/cms/posts/add/")
        self.assertEqual(page.redirect_chain[-1][0], "/cms/posts/add/")
        self.assertContains(page, "You were signed out before this was sent")
        self.assertContains(page, 'value="Typed before expiry"')
        self.assertContains(page, "Kept.</textarea>")
        self.assertEqual(posts(), before)  # shown again, not saved behind the user's back
        self.assertNotContains(self.client.get("/cms/posts/add/"), "Typed before expiry")  # once only

    def test_a_post_from_another_site_or_with_files_is_not_kept(self):
        self.client.logout()
        typed = {"title": "Planted", "body": "By another site.", "author": "ann", "status": "draft"}
        elsewhere = Client(enforce_csrf_checks=True)  # no CSRF token: what another site's form sends
        elsewhere.cookies = self.client.cookies
        self.assertEqual(elsewhere.post("/cms/posts/add/", typed).status_code, 302)  # to sign in, as any post
        with_file = {**typed, "title": "With a file", "file": SimpleUploadedFile("a.txt", b"x")}
        self.assertEqual(self.client.post("/cms/posts/add/", with_file).status_code, 302)
        page = self.sign_in_again("/cms/posts/add/")
        self.assertNotContains(page, "Planted")
        self.assertNotContains(page, "With a file")
        self.assertNotContains(page, "You were signed out before this was sent")

    def test_a_review_comes_back_to_the_products_page_with_its_text(self):
        from tests.catalog.helpers import make_product

        product = make_product()
        self.client.logout()
        self.client.post(
            f"/catalog/products/{product}/reviews/add/", {"author": "Ann", "rating": "4", "comment": "Loud."}
        )
        page = self.sign_in_again(f"/catalog/products/{product}/reviews/add/")
        self.assertEqual(page.redirect_chain[-1][0], f"/catalog/products/{product}/#add-review")
        self.assertContains(page, 'value="Ann"')
        self.assertContains(page, "Loud.</textarea>")
        from catalog import keys as catalog_keys

        self.assertEqual(client().zcard(catalog_keys.product_reviews(product)), 0)

    def test_a_move_comes_back_to_the_employees_page_with_the_manager_typed(self):
        from orgchart import store as orgchart_store
        from tests.orgchart.helpers import employee

        ann, bob = employee("Ann"), employee("Bob")
        self.client.logout()
        self.client.post(f"/orgchart/employees/{ann}/move/", {"manager": "Bob"})
        page = self.sign_in_again(f"/orgchart/employees/{ann}/move/")
        self.assertEqual(page.redirect_chain[-1][0], f"/orgchart/employees/{ann}/#chain")
        self.assertContains(page, 'name="manager" id="id_manager" value="Bob"')
        self.assertIsNone(orgchart_store.get_employee(ann).manager)  # shown again, not moved
        self.assertIsNone(orgchart_store.get_employee(bob).manager)

    def test_a_post_with_a_file_is_not_kept(self):
        self.client.logout()
        self.client.post("/exchange/catalog/preview/", {"file": SimpleUploadedFile("a.zip", b"PK")})
        self.assertNotIn("saving.stashed_post", self.client.session)
