"""Hostile requests, checked over every URL the resolver knows, so new pages are covered unedited."""

import re

from django.test import Client, SimpleTestCase, tag

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


# Numbers as a hostile client writes them: other scripts' digits, fullwidth, superscript, far past
# 64 bits (and past Python's 4,300-digit int() limit), signs, exponents, spaces, empty.
BAD_NUMBERS = ("١٢٣", "１２", "²", "1" + "0" * 400, "9" * 5000, "-1", "1e3", "1 2", "")
NEVER_FUZZED = {"logout", "admin_login", "exchange:download"}


def query_names() -> list[str]:
    """Every query parameter a page may read: each GET form's fields and the names the views read."""
    import importlib

    from django import forms

    names = {"page", "o", "q", "cursor", "acc", "as", "t", "pattern", "key", "auto", "c", "op", "a", "b", "depth",
             "under", "kp", "k", "next"}  # fmt: skip
    for module in ("catalog.forms", "school.forms", "cms.forms", "orgchart.forms", "config.keybrowser.forms"):
        for value in vars(importlib.import_module(module)).values():
            if isinstance(value, type) and issubclass(value, forms.BaseForm):
                names.update(value.base_fields)
    return sorted(names)


@tag("slow")
class NumberFuzzTest(RedisTestCase):
    """Every GET route of a seeded dashboard that answers 200, each query parameter given every bad
    number (with and without a bad ``page``, which most lists read first): a clear refusal (404,
    a form error, the page without it), never a 500."""

    def test_no_bad_number_in_a_query_is_a_server_error(self):
        from io import StringIO

        from django.core.management import call_command

        call_command("seed", "--scale", "demo", stdout=StringIO(), stderr=StringIO())
        self.client.force_login(self.make_staff("root", is_superuser=True))
        self.client.raise_request_exception = False
        names = query_names()
        paths = [path.replace("/a/", "/orgchart/", 1) for name, path in every_url() if name not in NEVER_FUZZED]
        paths = [path for path in paths if self.client.get(path).status_code == 200]
        self.assertGreater(len(paths), 20)
        failures = []
        for bad in BAD_NUMBERS:
            for path in paths:
                for query in ({n: bad for n in names}, {n: bad for n in names if n != "page"}):
                    status = self.client.get(path, query).status_code
                    if status >= 500:
                        failures.append((path, bad[:12], len(query), status))
        self.assertEqual(failures, [])

    def test_no_bad_number_in_a_path_is_a_server_error(self):
        self.client.raise_request_exception = False
        for _name, route in id_routes():
            for bad in BAD_NUMBERS:
                path = "/" + re.sub(r"<\w+:\w+>", "1", _ID.sub(bad.strip() or "x", route, count=1))
                with self.subTest(path=path[:80]):
                    self.assertEqual(self.client.get(path).status_code, 404)


class ImportedIdTest(SimpleTestCase):
    def test_an_imported_id_of_any_length_or_script_is_refused_with_a_reason(self):
        from config.exchange.report import Report
        from config.exchange.spec import Record

        for bad in (*BAD_NUMBERS, "9" * 19, 10**400, -(10**400), 2**53 + 1, 1e400, float("nan"), True, [1], {"1": 1}):
            with self.subTest(bad=repr(bad)[:20]):
                record = Record({"id": bad}, "employees", "employees.jsonl:1", {}, Report())
                self.assertIsNone(record.id())
                self.assertEqual([name for name, _reason in record.errors], ["id"])
        record = Record({"id": " 12 "}, "employees", "employees.jsonl:1", {}, Report())
        self.assertEqual(record.id(), 12)
