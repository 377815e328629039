"""Hostile requests, checked over every URL the resolver knows, so new pages are covered unedited."""

import re

from django.test import Client

from tests.base import RedisTestCase
from tests.core.test_auth import every_url
from tests.core.test_commands import snapshot

BAD_IDS = ("0", "-1", "abc", "007", "99999999999999999999", "../", "%00", "1%2F..")
_ID = re.compile(r"<id:\w+>")


def id_routes():
    """Routes with an <id:...> converter, as (name, route) pairs, from the resolver."""
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(patterns, prefix):
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, route)
            elif isinstance(entry, URLPattern) and _ID.search(route):
                yield entry.name, route

    return list(walk(get_resolver().url_patterns, ""))


class CsrfTest(RedisTestCase):
    def test_every_url_refuses_a_post_without_the_csrf_token(self):
        strict = Client(enforce_csrf_checks=True)
        strict.force_login(self.user)
        for _name, path in every_url():
            with self.subTest(path=path):
                self.assertEqual(strict.post(path, {"x": "1"}).status_code, 403, path)

    def test_the_sign_in_form_needs_the_token_too(self):
        response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "a", "password": "b"})
        self.assertEqual(response.status_code, 403)


class MalformedIdTest(RedisTestCase):
    def test_malformed_and_out_of_range_ids_are_404s_that_touch_no_key(self):
        routes = id_routes()
        self.assertGreater(len(routes), 0, "no route takes an <id:...>: the apps' detail pages should")
        before = snapshot()
        for _name, route in routes:
            for bad in BAD_IDS:
                path = "/" + _ID.sub(bad, route, count=1)
                path = re.sub(r"<\w+:\w+>", "1", path)
                with self.subTest(path=path), self.assertRoundTrips(0):
                    self.assertEqual(self.client.get(path).status_code, 404)
                    self.assertEqual(self.client.post(path).status_code, 404)
        self.assertEqual(snapshot(), before)
