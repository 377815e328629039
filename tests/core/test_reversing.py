"""The {% url %} builtin: Django's tag, each URL reversed once per process."""

from unittest import mock

from django.template import Context, Template
from django.test import SimpleTestCase, override_settings
from django.urls import NoReverseMatch, path, set_script_prefix

from config import urlpaths
from config.templatetags import reversing


def _view(request, pk):
    return None


urlpatterns = [path("elsewhere/<int:pk>/", _view, name="dashboard")]


class UrlTagTest(SimpleTestCase):
    def setUp(self):
        reversing._reversed.clear()

    def render(self, text: str, **context) -> str:
        return Template(text).render(Context(context))

    def test_each_url_is_reversed_once_and_rendered_as_django_does(self):
        with mock.patch.object(reversing, "reverse", wraps=reversing.reverse) as reverse:
            for _ in range(3):
                self.assertEqual(self.render("{% url 'dashboard' %}"), "/")
                self.assertEqual(self.render("{% url 'catalog:product_detail' pk %}", pk=7), "/catalog/products/7/")
                self.assertEqual(self.render("{% url 'catalog:product_detail' pk=pk %}", pk=8), "/catalog/products/8/")
            self.assertEqual(reverse.call_count, 3)
            kept = self.render("{% url 'catalog:product_detail' 9 as u %}[{{ u }}]")
            self.assertEqual(kept, "[/catalog/products/9/]")
            self.assertEqual(reverse.call_count, 4)

    def test_a_missing_url_raises_unless_kept_in_a_variable(self):
        with self.assertRaises(NoReverseMatch):
            self.render("{% url 'no-such-view' %}")
        self.assertEqual(self.render("{% url 'no-such-view' as u %}[{{ u }}]"), "[]")

    def test_an_argument_that_is_not_a_plain_value_is_reversed_each_time(self):
        class Id(int):
            """An int of its own class: a model's field could be such a value."""

        with mock.patch.object(reversing, "reverse", wraps=reversing.reverse) as reverse:
            for _ in range(2):
                self.assertEqual(self.render("{% url 'catalog:product_detail' pk %}", pk=Id(5)), "/catalog/products/5/")
            self.assertEqual(reverse.call_count, 2)

    def test_another_urlconf_is_followed(self):
        self.assertEqual(self.render("{% url 'dashboard' %}"), "/")
        with override_settings(ROOT_URLCONF=__name__):
            self.assertEqual(self.render("{% url 'dashboard' 3 %}"), "/elsewhere/3/")
        self.assertEqual(self.render("{% url 'dashboard' %}"), "/")


class UrlPathsTest(SimpleTestCase):
    """``config.urlpaths``: the paths the screens build their links on, each reversed once per
    URL configuration and script prefix."""

    def test_each_path_is_reversed_once(self):
        urlpaths._reversed.cache_clear()
        urlpaths._reversed_all.cache_clear()
        with mock.patch.object(urlpaths, "reverse", wraps=urlpaths.reverse) as reverse:
            for _ in range(3):
                self.assertEqual(urlpaths.path_of("catalog:product_detail", 7), "/catalog/products/7/")
                self.assertEqual(
                    urlpaths.paths_of("dashboard", "catalog:product_add"),
                    {"dashboard": "/", "product_add": "/catalog/products/add/"},
                )
            self.assertEqual(reverse.call_count, 3)

    def test_another_urlconf_or_script_prefix_is_followed(self):
        with override_settings(ROOT_URLCONF=__name__):
            self.assertEqual(urlpaths.path_of("dashboard", 3), "/elsewhere/3/")
        set_script_prefix("/mounted/")
        try:
            self.assertEqual(urlpaths.paths_of("dashboard")["dashboard"], "/mounted/")
        finally:
            set_script_prefix("/")
        self.assertEqual(urlpaths.paths_of("dashboard")["dashboard"], "/")
