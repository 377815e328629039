"""Roles: Django groups and permissions, enforced on every write, the key browser and the admin."""

from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client, tag

from config import roles
from config.middleware import section_of
from tests.base import PASSWORD, RedisTestCase
from tests.core.test_auth import every_url
from tests.core.test_commands import snapshot


def app_routes():
    """(name, path) of every route under an app's URL space or the key browser, from the resolver."""
    from django.urls import resolve

    for name, path in every_url():
        section = section_of(resolve(path.split("?")[0]) if _resolves(path) else None)
        if section in roles.WRITE_PERMISSIONS or section == "keys":
            yield name, path, section


def _resolves(path: str) -> bool:
    from django.urls import Resolver404, resolve

    try:
        resolve(path)
    except Resolver404:
        return False
    return True


class GroupsTest(RedisTestCase):
    sign_in = False

    def test_the_three_groups_exist_from_the_migrations_with_their_permissions(self):
        def names(role):
            group = Group.objects.get(name=role)
            return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}

        self.assertEqual(names("viewer"), set())
        self.assertEqual(names("editor"), set(roles.WRITE_PERMISSIONS.values()))
        self.assertEqual(
            names("administrator"),
            {*roles.WRITE_PERMISSIONS.values(), roles.BROWSE_KEYS, roles.SEE_FAILED_SIGNINS, roles.EXCHANGE_DATA}
            | {f"auth.{v}_{m}" for v in ("add", "change", "delete", "view") for m in ("user", "group")},
        )

    def test_migrate_again_keeps_them_exact(self):
        Group.objects.get(name="viewer").permissions.add(*Group.objects.get(name="editor").permissions.all())
        call_command("migrate", verbosity=0)
        self.assertFalse(Group.objects.get(name="viewer").permissions.exists())


@tag("slow")
class ViewerWritesNothingTest(RedisTestCase):
    sign_in = False

    def test_every_post_route_of_every_app_answers_403_to_a_viewer_and_writes_nothing(self):
        call_command("seed", verbosity=0)
        viewer = Client()
        viewer.force_login(self.make_staff("vera", role="viewer"))
        before = snapshot()
        checked = set()
        for _name, path, section in app_routes():
            with self.subTest(path=path):
                response = viewer.post(path, {"x": "1", "name": "changed", "title": "changed"})
                self.assertEqual(response.status_code, 403, path)
                self.assertContains(response, "Not allowed", status_code=403)
                self.assertContains(response, 'class="sidebar"', status_code=403)  # the app's page, in its layout
                checked.add(section)
        self.assertEqual(checked, {*roles.WRITE_PERMISSIONS, "keys"})
        self.assertEqual(snapshot(), before)

    def test_a_viewer_reads_every_app_but_not_the_key_browser(self):
        viewer = Client()
        viewer.force_login(self.make_staff("vera", role="viewer"))
        for path in ("/", "/catalog/products/", "/school/courses/", "/cms/posts/", "/orgchart/employees/"):
            with self.subTest(path=path):
                self.assertEqual(viewer.get(path).status_code, 200)
        self.assertEqual(viewer.get("/keys/").status_code, 403)
        self.assertEqual(viewer.get("/keys/tree/").status_code, 403)
        home = viewer.get("/").content.decode()
        self.assertNotIn("Key browser", home)
        self.assertNotIn('id="redis-panel"', home)  # the panel names keys: the same permission
        self.assertNotIn("/admin/", home)


class EditorTest(RedisTestCase):
    sign_in = False

    def test_an_editor_writes_in_the_apps_but_has_no_key_browser(self):
        editor = Client()
        editor.force_login(self.make_staff("ed", role="editor"))
        for _name, path, section in app_routes():
            with self.subTest(path=path):
                status = editor.post(path, {}).status_code
                if section == "keys":
                    self.assertEqual(status, 403)
                else:
                    self.assertNotEqual(status, 403, path)
                    self.assertLess(status, 500, path)

    def test_a_staff_member_without_a_role_reads_like_a_viewer(self):
        browser = Client()
        browser.force_login(self.make_staff("nobody", role=None))
        self.assertEqual(browser.get("/catalog/products/").status_code, 200)
        self.assertEqual(browser.post("/catalog/products/add/", {}).status_code, 403)


class StaffOnlyTest(RedisTestCase):
    sign_in = False

    def test_a_user_without_is_staff_cannot_sign_in(self):
        from django.contrib.auth import get_user_model

        get_user_model().objects.create_user("outsider", password=PASSWORD, is_staff=False)
        response = self.client.post("/accounts/login/", {"username": "outsider", "password": PASSWORD})
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "Please enter a correct username and password")
        self.assertEqual(self.client.get("/").status_code, 302)

    def test_a_session_of_someone_no_longer_staff_is_signed_out(self):
        user = self.make_staff("ann")
        self.client.force_login(user)
        self.assertEqual(self.client.get("/").status_code, 200)
        user.is_staff = False
        user.save()
        response = self.client.get("/catalog/products/")
        self.assertEqual(response.status_code, 302)
        self.assertTrue(response["Location"].startswith("/accounts/login/"))
        self.assertEqual(self.client.get("/").status_code, 302)  # and stays signed out


class AdminSiteTest(RedisTestCase):
    sign_in = False

    def test_the_admin_signs_in_through_the_dashboards_own_form(self):
        response = self.client.get("/admin/")
        self.assertEqual(response.status_code, 302)
        landed = self.client.get(response["Location"])
        self.assertEqual(landed.status_code, 302)
        self.assertEqual(landed["Location"], "/accounts/login/?next=/admin/")

    def test_administrators_manage_users_and_see_the_link_others_do_not(self):
        admin = Client()
        admin.force_login(self.make_staff("root", role="administrator"))
        self.assertEqual(admin.get("/admin/auth/user/").status_code, 200)
        self.assertEqual(admin.get("/admin/auth/group/").status_code, 200)
        self.assertContains(admin.get("/"), 'href="/admin/"')

        editor = Client()
        editor.force_login(self.make_staff("ed", role="editor"))
        self.assertEqual(editor.get("/admin/auth/user/").status_code, 403)
        self.assertNotContains(editor.get("/"), 'href="/admin/"')

    def test_the_admin_sign_in_is_rate_limited_too(self):
        self.make_staff("ann")
        for _ in range(5):
            self.client.post("/accounts/login/?next=/admin/", {"username": "ann", "password": "wrong"})
        response = self.client.post("/accounts/login/?next=/admin/", {"username": "ann", "password": PASSWORD})
        self.assertContains(response, "Too many failed sign-ins")


class ServeAdminTest(RedisTestCase):
    sign_in = False

    def test_the_admin_that_make_run_creates_is_a_superuser_even_if_it_existed_without(self):
        from django.contrib.auth import get_user_model

        from config.management.commands.serve import Command

        get_user_model().objects.create_user("admin", password=PASSWORD, is_staff=False)
        Command().ensure_admin()
        admin = get_user_model().objects.get(username="admin")
        self.assertTrue(admin.is_superuser)
        self.assertTrue(admin.is_staff)
