"""Shared screens: a form with several errors sums them up at the top; signing out says so."""

from django.test import SimpleTestCase

from tests.base import RedisTestCase


class FormErrorsTest(RedisTestCase):
    def test_several_errors_are_summed_up_at_the_top_and_each_stays_beside_its_field(self):
        self.user.is_superuser = True
        self.user.save()
        response = self.client.post("/school/courses/add/", {"code": "", "title": "", "capacity": "0"})
        self.assertContains(response, 'id="error-summary"')
        self.assertContains(response, "Please correct the 3 errors below.")
        self.assertContains(response, '<a href="#id_code">Code</a>')
        self.assertContains(response, 'class="field-error"', count=3)

    def test_one_error_is_summed_up_too_so_it_is_seen_below_the_fold(self):
        self.user.is_superuser = True
        self.user.save()
        response = self.client.post("/school/courses/add/", {"code": "CS-1", "title": "", "capacity": "30"})
        self.assertContains(response, 'id="error-summary"', count=1)
        self.assertContains(response, "Please correct the error below.")
        self.assertContains(response, '<a href="#id_title">Title</a>: This field is required.')
        self.assertContains(response, 'class="field-error"', count=1)


class SignOutTest(RedisTestCase):
    def test_signing_out_says_so_on_the_sign_in_page(self):
        response = self.client.post("/accounts/logout/", follow=True)
        self.assertContains(response, "staff signed out.")
        self.assertContains(response, "Sign in")


class SidebarTest(RedisTestCase):
    """The sidebar (``includes/nav.html``) shows the links of the permissions read with the user
    (``roles.RoleBackend``, cached in Redis): it follows a change of group on the very next page."""

    sign_in = False

    def sidebar(self, path: str = "/") -> str:
        body = self.client.get(path).content.decode()
        return body[body.index('<nav class="sidebar"') : body.index("</nav>")]

    def test_each_role_sees_its_links_and_the_current_section_is_marked(self):
        viewer = self.make_staff("viewer", role="viewer")
        self.client.force_login(viewer)
        nav = self.sidebar("/catalog/products/")
        self.assertIn('<li><a href="/catalog/products/" aria-current="page">Catalog</a></li>', nav)
        self.assertIn('<li><a href="/">Dashboard</a></li>', nav)
        self.assertNotIn("Key browser", nav)
        self.assertNotIn("Import / export", nav)
        self.assertNotIn("Users and groups", nav)
        self.assertIn('<span class="who">viewer</span>', nav)

        self.client.force_login(self.make_staff("admin", role="administrator"))
        nav = self.sidebar("/keys/")
        self.assertIn('<li><a href="/keys/" aria-current="page">Key browser</a></li>', nav)
        self.assertIn('<li><a href="/exchange/">Import / export</a></li>', nav)
        self.assertIn('<li><a href="/admin/">Users and groups</a></li>', nav)
        self.assertIn('<li><a href="/catalog/products/">Catalog</a></li>', nav)

    def test_a_change_of_group_shows_on_the_next_page(self):
        from django.contrib.auth.models import Group

        user = self.make_staff("moving", role="viewer")
        self.client.force_login(user)
        self.assertNotIn("Key browser", self.sidebar())
        user.groups.set([Group.objects.get(name="administrator")])
        self.assertIn("Key browser", self.sidebar())
        self.assertEqual(self.client.get("/keys/").status_code, 200)
        user.groups.set([Group.objects.get(name="editor")])
        self.assertNotIn("Key browser", self.sidebar())
        self.assertEqual(self.client.get("/keys/").status_code, 403)

    def test_a_change_of_a_groups_permissions_shows_on_the_next_page(self):
        from django.contrib.auth.models import Group, Permission

        self.client.force_login(self.make_staff("editing", role="editor"))
        self.assertNotIn("Import / export", self.sidebar())
        editor = Group.objects.get(name="editor")
        editor.permissions.add(Permission.objects.get(codename="exchange_data"))
        self.assertIn("Import / export", self.sidebar())

    def test_a_page_reads_the_user_and_its_permissions_with_no_query(self):
        self.client.force_login(self.make_staff("counted", role="administrator"))
        self.client.get("/catalog/products/")  # URL resolvers, templates, the layout's prepared links
        with self.assertNumQueries(0):
            body = self.client.get("/catalog/products/").content.decode()
        self.assertIn("Key browser", body)  # has_perm answered from the user's cache entry
        self.assertIn('class="redis-panel', body)  # and the panel, for the same permission


class TemplateLoadingTest(SimpleTestCase):
    def test_templates_are_compiled_once_per_process_by_djangos_cached_loader(self):
        from django.template import engines

        engine = engines["django"].engine
        first = engine.get_template("base.html")
        self.assertIs(engine.get_template("base.html").nodelist, first.nodelist)


class EmptyStateTest(SimpleTestCase):
    def render(self, source: str, **context) -> str:
        from django.template import engines

        return engines["django"].from_string("{% load dashboard %}" + source).render(context)

    def test_title_text_and_action_each_escaped(self):
        html = self.render(
            '{% empty_state title=t text="Add one." action_url=u action_label=label %}',
            t="<script>x</script>",
            u='/add/?a=1&b="2"',
            label="Add <b>",
        )
        self.assertIn('<p class="empty-title">&lt;script&gt;x&lt;/script&gt;</p>', html)
        self.assertIn("<p>Add one.</p>", html)
        self.assertIn('<a class="button" href="/add/?a=1&amp;b=&quot;2&quot;">Add &lt;b&gt;</a>', html)

    def test_no_text_nor_action_when_not_given(self):
        html = self.render('{% empty_state title="Nothing yet." %}')
        self.assertEqual(html, '<div class="empty-state">\n  <p class="empty-title">Nothing yet.</p>\n</div>\n')
