"""Django's admin for users: only a superuser makes, changes or removes a superuser, and nobody
grants a group or a permission they do not hold (config/admin.py)."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.test import Client

from tests.base import PASSWORD, RedisTestCase

User = get_user_model()


def change_form(user, **changes) -> dict:
    """What the user change form posts for ``user`` as it is, with ``changes``."""
    data = {
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "is_active": "on",
        "is_staff": "on",
        "groups": [str(g.pk) for g in user.groups.all()],
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "initial-date_joined_0": "2026-01-01",
        "initial-date_joined_1": "00:00:00",
    }
    data.update(changes)
    return data


class SuperuserGuardTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.root = self.make_staff("root", role="administrator")
        self.admin = User.objects.create_superuser("admin", "admin@example.com", PASSWORD)
        self.administrator = Client()
        self.administrator.force_login(self.root)

    def url(self, user, action="change") -> str:
        return f"/admin/auth/user/{user.pk}/{action}/"

    def test_an_administrator_cannot_make_itself_superuser(self):
        page = self.administrator.get(self.url(self.root))
        self.assertEqual(page.status_code, 200)
        self.assertNotContains(page, 'name="is_superuser"')
        self.assertNotContains(page, 'name="user_permissions"')
        everything = [str(p.pk) for p in Permission.objects.all()]
        data = change_form(self.root, first_name="Ro", is_superuser="on", user_permissions=everything)
        response = self.administrator.post(self.url(self.root), data)
        self.assertEqual(response.status_code, 302)  # saved, without what it may not change
        self.root.refresh_from_db()
        self.assertEqual(self.root.first_name, "Ro")
        self.assertFalse(self.root.is_superuser)
        self.assertEqual(self.root.user_permissions.count(), 0)

    def test_an_administrator_can_neither_change_nor_reset_nor_delete_a_superuser(self):
        self.assertNotContains(self.administrator.get(self.url(self.admin)), 'name="_save"')  # shown read-only
        for action in ("password", "delete"):
            with self.subTest(action=action):
                self.assertEqual(self.administrator.get(self.url(self.admin, action)).status_code, 403)
        new = {"password1": "a-new-Pass-phrase-1", "password2": "a-new-Pass-phrase-1", "usable_password": "true"}
        self.assertEqual(self.administrator.post(self.url(self.admin, "password"), new).status_code, 403)
        self.assertEqual(self.administrator.post(self.url(self.admin), change_form(self.admin)).status_code, 403)
        bulk = {"action": "delete_selected", "_selected_action": [str(self.admin.pk)], "post": "yes"}
        self.administrator.post("/admin/auth/user/", bulk)
        self.admin.refresh_from_db()
        self.assertTrue(self.admin.check_password(PASSWORD))
        self.assertTrue(self.admin.is_superuser)

    def test_groups_beyond_the_editors_own_permissions_are_neither_granted_nor_taken_away(self):
        auditors = Group.objects.create(name="auditors")
        auditors.permissions.add(Permission.objects.get(codename="delete_logentry"))  # no role holds it
        ed = self.make_staff("ed", role="editor")
        editor_group = Group.objects.get(name="editor")
        refused = self.administrator.post(self.url(ed), change_form(ed, groups=[str(auditors.pk)]))
        self.assertEqual(refused.status_code, 200)  # the form again, with its error
        self.assertFalse(ed.groups.filter(name="auditors").exists())

        ed.groups.add(auditors)  # a superuser's grant
        viewer = Group.objects.get(name="viewer")
        saved = self.administrator.post(self.url(ed), change_form(ed, groups=[str(viewer.pk)]))
        self.assertEqual(saved.status_code, 302)
        self.assertEqual(set(ed.groups.values_list("name", flat=True)), {"viewer", "auditors"})
        self.assertNotIn(editor_group, ed.groups.all())

    def test_an_administrator_cannot_widen_a_groups_permissions(self):
        editor_group = Group.objects.get(name="editor")
        before = set(editor_group.permissions.all())
        data = {"name": "editor", "permissions": [str(p.pk) for p in Permission.objects.all()]}
        self.administrator.post(f"/admin/auth/group/{editor_group.pk}/change/", data)
        self.assertEqual(set(editor_group.permissions.all()), before)

    def test_a_superuser_still_grants_superuser_status(self):
        superuser = Client()
        superuser.force_login(self.admin)
        response = superuser.post(self.url(self.root), change_form(self.root, is_superuser="on"))
        self.assertEqual(response.status_code, 302)
        self.root.refresh_from_db()
        self.assertTrue(self.root.is_superuser)
