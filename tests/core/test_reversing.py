"""``config.urlpaths``: paths reversed once per process, for the screens that still build links on them."""

from unittest import mock

from django.test import SimpleTestCase, override_settings
from django.urls import path, set_script_prefix

from config import urlpaths


def _view(request, pk):
    return None


urlpatterns = [path("elsewhere/<int:pk>/", _view, name="dashboard")]


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
