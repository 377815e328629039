"""Hostile requests, checked over every URL the resolver knows, so new pages are covered unedited."""

import re

from django.test import Client

from tests.base import PASSWORD, RedisTestCase
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


class UnreadBody:
    """A request body that records whether anything read it."""

    def __init__(self, size: int):
        self.size = size
        self.read_bytes = 0

    def read(self, size=-1):
        self.read_bytes += 1
        return b"x" * min(self.size, 65536 if size is None or size < 0 else size)

    readline = read


class BodyLimitTest(RedisTestCase):
    """The body is judged on its headers, before the CSRF check or a view reads it."""

    def post(self, path: str, client: Client | None = None, **meta):
        body = UnreadBody(int(meta.get("CONTENT_LENGTH", "0") or 0))
        meta.setdefault("CONTENT_TYPE", "multipart/form-data; boundary=XyZ")
        response = (client or self.client).generic("POST", path, **{"wsgi.input": body, **meta})
        return response, body

    def test_a_body_over_the_limit_is_refused_unread_even_for_a_signed_in_administrator(self):
        with self.settings(REQUEST_BODY_LIMIT=1000):
            response, body = self.post("/exchange/orgchart/preview/", CONTENT_LENGTH="1001")
        self.assertEqual(response.status_code, 413)
        self.assertIn(b"larger than", response.content)
        self.assertEqual(body.read_bytes, 0)

    def test_a_chunked_or_malformed_length_is_refused_unread(self):
        for meta, status in (
            ({"HTTP_TRANSFER_ENCODING": "chunked"}, 411),
            ({"CONTENT_LENGTH": "١٢٣"}, 400),
            ({"CONTENT_LENGTH": "-5"}, 400),
            ({"CONTENT_LENGTH": "9" * 400}, 413),
        ):
            with self.subTest(meta=meta):
                response, body = self.post("/accounts/login/", Client(), **meta)
                self.assertEqual(response.status_code, status)
                self.assertEqual(body.read_bytes, 0)

    def test_an_anonymous_upload_with_its_own_csrf_cookie_is_sent_to_sign_in_unread(self):
        anonymous = Client()
        anonymous.cookies["csrftoken"] = "a" * 32
        for path in ("/exchange/orgchart/preview/", "/catalog/", "/"):
            with self.subTest(path=path):
                response, body = self.post(path, anonymous, CONTENT_LENGTH="50000000", HTTP_X_CSRFTOKEN="a" * 32)
                self.assertEqual(response.status_code, 302)
                self.assertTrue(response["Location"].startswith("/accounts/login/?next="))
                self.assertEqual(body.read_bytes, 0)

    def test_the_sign_in_form_is_the_one_anonymous_post_and_a_small_one(self):
        response, body = self.post("/accounts/login/", Client(), CONTENT_LENGTH="20000")
        self.assertEqual(response.status_code, 413)
        self.assertEqual(body.read_bytes, 0)
        self.make_staff("ann")
        signed_in = Client().post("/accounts/login/", {"username": "ann", "password": PASSWORD})
        self.assertEqual(signed_in.status_code, 302)  # a real sign-in form is well within it
