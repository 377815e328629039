"""Screens follow the role: a viewer meets no write control on any screen, an editor no
administrator control, and the sidebar names who is signed in and in which role."""

import re
from html import unescape
from urllib.parse import urlsplit

from django.core.management import call_command
from django.test import Client, tag
from django.urls import Resolver404, resolve

from config import roles
from tests.base import RedisTestCase
from tests.core.test_auth import every_url

FORM = re.compile(r"<form\b[^>]*>", re.IGNORECASE)
POSTED = re.compile(r"""method=["']?post""", re.IGNORECASE)
LINK = re.compile(r"""\b(?:href|hx-get|hx-post|action)="([^"]*)\"""")
ADMINISTRATOR_PATHS = ("/keys/", "/exchange/", "/admin/")
SKIPPED = {"logout", "healthz", "login", "admin_login"}


# Screens whose sample path shows no candidate: the finders with a search that finds some.
FINDERS = [f"/school/find/{picker}/1/?q={q}" for picker, q in (("course-student", "a"), ("student-course", "C"))]


def screens() -> list[str]:
    """Every route a signed-in user can open, with the seeded objects' ids."""
    return sorted({path for name, path in every_url() if name not in SKIPPED} | set(FINDERS))


def links(html: str) -> set[str]:
    return {unescape(url) for url in LINK.findall(html)}


def route_name(url: str) -> str | None:
    path = urlsplit(url).path
    if not path.startswith("/"):
        return None
    try:
        return resolve(path).url_name
    except Resolver404:
        return None


def write_controls(html: str) -> list[str]:
    """What on a page would write: a posting form other than signing out, a link to a write page
    (an add or edit form, a delete or any other action) or to a bulk action."""
    found = [form for form in FORM.findall(html) if POSTED.search(form) and "/accounts/logout/" not in form]
    for url in links(html):
        name = route_name(url)
        if name and (roles.is_write_page(name) or name.endswith("bulk_delete")):
            found.append(url)
    return found


@tag("slow")
class ScreensFollowTheRoleTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        call_command("seed", verbosity=0)

    def walk(self, role: str):
        """(path, status, html) of every screen as a member of ``role``."""
        browser = Client()
        browser.force_login(self.make_staff(role, role=role))
        for path in screens():
            response = browser.get(path)
            if "text/html" in response.get("Content-Type", ""):
                yield path, response.status_code, response.content.decode()

    def test_a_viewer_sees_no_write_control_on_any_screen(self):
        read, refused = 0, 0
        for path, status, html in self.walk(roles.VIEWER):
            with self.subTest(path=path):
                self.assertEqual(write_controls(html), [])
                if status == 403:  # a write page, or the key browser: said in the layout, nothing to send
                    self.assertIn("Not allowed", html)
                    refused += 1
                elif status == 200:
                    read += 1
                    if "<html" in html:  # a page, not an htmx fragment
                        self.assertIn('<span class="role" data-role="viewer">Viewer</span>', html)
        self.assertGreater(read, 20)
        self.assertGreater(refused, 10)

    def test_an_editor_sees_write_controls_but_no_administrator_control(self):
        writes = 0
        for path, status, html in self.walk(roles.EDITOR):
            with self.subTest(path=path):
                administering = [url for url in links(html) if url.startswith(ADMINISTRATOR_PATHS)]
                self.assertEqual(administering, [])
                self.assertNotIn("Key browser", html)
                if status == 200 and "<html" in html:
                    self.assertIn('<span class="role" data-role="editor">Editor</span>', html)
                    writes += bool(write_controls(html))
        self.assertGreater(writes, 15)  # the same screens offer an editor their forms


class RoleInTheSidebarTest(RedisTestCase):
    sign_in = False

    def test_the_sidebar_names_the_user_and_the_role(self):
        for username, role, label in (
            ("vera", "viewer", "Viewer"),
            ("ed", "editor", "Editor"),
            ("root", "administrator", "Administrator"),
        ):
            browser = Client()
            browser.force_login(self.make_staff(username, role=role))
            page = browser.get("/catalog/products/").content.decode()
            with self.subTest(role=role):
                self.assertIn(
                    f'<span class="who">{username}</span> <span class="role" data-role="{role}">{label}</span>', page
                )
                self.assertEqual("Add product" in page, role != "viewer")

    def test_a_viewer_asking_for_a_write_page_is_told_and_shown_no_form(self):
        viewer = Client()
        viewer.force_login(self.make_staff("vera", role="viewer"))
        for path in (
            "/catalog/products/add/",
            "/cms/posts/1/edit/",
            "/school/courses/1/delete/",
            "/orgchart/employees/add/",
        ):
            with self.subTest(path=path):
                response = viewer.get(path)
                self.assertContains(response, "can read the", status_code=403)
                self.assertEqual(write_controls(response.content.decode()), [])
