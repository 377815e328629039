"""Hardening: headers, secrets, every kind of Redis error as the 503 page, error pages,
numbers from the URL, links from stored data, and the sign-in limiter's address."""

import threading
import time
from contextlib import suppress

import redis
from django.test import Client, RequestFactory, override_settings, tag
from redis.backoff import NoBackoff
from redis.retry import Retry

from cms import keys as cms_keys
from cms import store as cms
from config import keys, store, views
from config.activity import Actor, Event
from config.forms import client_address
from config.middleware import failure_of
from config.redis import client, redacted
from tests.base import PASSWORD, RedisTestCase
from tests.core.test_auth import every_url
from tests.core.test_plumbing import ScratchServer

# A valid new CMS post: a write that reaches Redis.
POST_FORM = {"title": "A post", "body": "Some text", "author": "ann", "status": "draft"}

PASSWORD_SPELLINGS = [
    ("redis://user:s3cret@host:6380/0", "redis://user:***@host:6380/0"),
    ("rediss://:s3cret@host/1", "rediss://:***@host/1"),
    ("redis://s3cret@host", "redis://***@host"),
    ("redis://u:s3%40cret@host", "redis://u:***@host"),
    ("redis://host:6379/0?password=s3cret", "redis://host:6379/0?password=***"),
    ("redis://host?PassWord=s3cret&db=2", "redis://host?PassWord=***&db=2"),
    ("unix:///run/redis.sock?password=s3cret&db=1", "unix:///run/redis.sock?password=***&db=1"),
    ("unix://:s3cret@/run/redis.sock", "unix://:***@/run/redis.sock"),
    ("redis://u:s3cret@host:99999999/", "(hidden)"),
]


class HeadersTest(RedisTestCase):
    def test_every_page_has_the_policy_and_signed_in_pages_are_never_stored(self):
        response = self.client.get("/")
        csp = response["Content-Security-Policy"]
        for directive in ("default-src 'self'", "object-src 'none'", "frame-ancestors 'none'"):
            self.assertIn(directive, csp)
        self.assertNotIn("unsafe-inline", csp)
        self.assertIn("no-store", response["Cache-Control"])
        self.assertEqual(response["X-Frame-Options"], "DENY")
        self.assertEqual(response["X-Content-Type-Options"], "nosniff")
        self.assertEqual(response["Referrer-Policy"], "same-origin")
        self.assertEqual(response["Cross-Origin-Opener-Policy"], "same-origin")

    def test_no_template_has_inline_script_or_handlers(self):
        import re
        from pathlib import Path

        from django.conf import settings

        inline = re.compile(
            r"<script(?![^>]*\bsrc=)|<style|<[a-z][^<>]*\s(on[a-z]+|style|hx-on[:-]?[a-z:-]*)\s*=|javascript:", re.I
        )
        found = [
            f"{path.relative_to(settings.BASE_DIR)}: {m.group(0)}"
            for path in Path(settings.BASE_DIR, "templates").rglob("*.html")
            for m in inline.finditer(path.read_text())
        ]
        self.assertEqual(found, [])


class SecretsTest(RedisTestCase):
    sign_in = False

    def test_no_spelling_of_a_redis_url_shows_its_password(self):
        for url, shown in PASSWORD_SPELLINGS:
            with self.subTest(url=url):
                self.assertEqual(redacted(url), shown)
                self.assertNotIn("s3cret", redacted(url))

    @override_settings(SECURE_SSL_REDIRECT=True)
    def test_healthz_answers_a_plain_http_probe_when_everything_else_redirects_to_https(self):
        self.assertEqual(self.client.get("/healthz").status_code, 200)
        self.assertEqual(self.client.get("/accounts/login/").status_code, 301)

    def test_healthz_tells_an_anonymous_visitor_its_status_alone(self):
        response = self.client.get("/healthz")
        self.assertEqual(response.json(), {"redis": "up"})
        self.assertNotIn(b"version", response.content)
        self.client.force_login(self.make_staff("ann", role="viewer"))
        self.assertIn("version", self.client.get("/healthz").json())

    def test_a_password_protected_redis_never_shows_its_password_on_the_503_page(self):
        scratch = ScratchServer()
        self.addCleanup(scratch.close)
        admin = redis.Redis(unix_socket_path=str(scratch.server.socket))
        admin.config_set("requirepass", "s3cret")
        self.addCleanup(
            lambda: redis.Redis(unix_socket_path=str(scratch.server.socket), password="s3cret").config_set(
                "requirepass", ""
            )
        )
        for url in (
            f"unix://:s3cret@{scratch.server.socket}",
            f"unix://{scratch.server.socket}?password=s3cret",
        ):
            with self.subTest(url=url), _pointing_at(url):
                browser = Client(raise_request_exception=False)
                browser.force_login(self.make_staff(f"ann{len(url)}", role="editor"))
                self.assertEqual(browser.get("/").status_code, 200)
                redis.Redis.from_url(url).config_set("maxmemory", 1)  # writes now fail with OOM
                try:
                    response = browser.post("/cms/posts/add/", POST_FORM)
                finally:
                    redis.Redis.from_url(url).config_set("maxmemory", 0)
                self.assertEqual(response.status_code, 503)
                self.assertContains(response, "out of memory", status_code=503)
                self.assertContains(response, str(scratch.server.socket), status_code=503)  # signed in: where
                self.assertNotContains(response, "s3cret", status_code=503)


def _pointing_at(url):
    from copy import deepcopy

    from django.conf import settings

    caches = deepcopy(settings.CACHES)
    caches["default"]["LOCATION"] = url
    return override_settings(REDIS_URL=url, CACHES=caches)


class RedisErrorKindsTest(RedisTestCase):
    """Each error provoked for real on a scratch server of the test's own."""

    sign_in = False

    def setUp(self):
        super().setUp()
        self.scratch = ScratchServer()
        self.addCleanup(self.scratch.close)
        self.admin = redis.Redis(unix_socket_path=str(self.scratch.server.socket), retry=Retry(NoBackoff(), 0))
        self.enterContext(self.scratch.settings())
        self.browser = Client(raise_request_exception=False)
        self.browser.force_login(self.make_staff("ann", role="editor"))
        self.assertEqual(self.browser.get("/").status_code, 200)

    def test_busy_from_a_long_script_is_the_503_page(self):
        self.admin.config_set("lua-time-limit", 50)
        spin = "local s = redis.call('TIME')[1] while true do if redis.call('TIME')[1] - s > 20 then break end end"
        runner = threading.Thread(target=_swallow, args=(self.scratch.server.socket, spin))
        runner.start()
        self.addCleanup(runner.join)
        self.addCleanup(self._kill_script)
        _wait_for(lambda: _replies_with(self.admin, "BUSY"))
        response = self.browser.get("/")
        self.assertEqual(response.status_code, 503)
        self.assertContains(response, "busy running a long script", status_code=503)
        self.assertNotContains(response, "Traceback", status_code=503)

    def _kill_script(self):
        for _ in range(100):
            try:
                self.admin.script_kill()
                return
            except redis.ResponseError as exc:
                if "NOTBUSY" in str(exc):
                    return
            time.sleep(0.02)

    def test_readonly_and_masterdown_on_a_replica_are_the_503_page(self):
        self.admin.execute_command("REPLICAOF", "127.0.0.1", "1")  # a primary that never answers
        self.addCleanup(self.admin.execute_command, "REPLICAOF", "NO", "ONE")
        self.assertEqual(self.browser.get("/").status_code, 200)  # stale reads are still served

        response = self.browser.post("/cms/posts/add/", POST_FORM)
        self.assertEqual(response.status_code, 503)
        self.assertContains(response, "read-only replica", status_code=503)
        # After a write the outcome is unknown, and the page says how to check it.
        self.assertContains(response, "The outcome of your change is unknown", status_code=503)
        self.assertContains(response, 'href="/cms/posts/add/"', status_code=503)
        self.assertNotContains(response, "Nothing was changed", status_code=503)

        self.admin.config_set("replica-serve-stale-data", "no")
        self.addCleanup(self.admin.config_set, "replica-serve-stale-data", "yes")
        response = self.browser.get("/")
        self.assertEqual(response.status_code, 503)
        self.assertContains(response, "lost its link to its primary", status_code=503)

    def test_out_of_memory_is_the_503_page(self):
        self.admin.config_set("maxmemory", 1)
        self.addCleanup(self.admin.config_set, "maxmemory", 0)
        response = self.browser.post("/cms/posts/add/", POST_FORM)
        self.assertEqual(response.status_code, 503)
        self.assertContains(response, "out of memory", status_code=503)
        signin = Client(raise_request_exception=False).post("/accounts/login/", {"username": "x", "password": "y"})
        self.assertEqual(signin.status_code, 503)

    def test_a_server_refusing_writes_still_serves_the_lists(self):
        """SORT may write (its STORE), so a server out of memory and a read-only replica refuse it: the lists
        and child pages ask it inside their scripts, which then read the page themselves."""
        post = cms.create_post({**POST_FORM, "title": "A post to list"}, actor=Actor("ann"), comment="", at=time.time())
        cms.add_comment(post.id, author="cat", text="A comment to list", actor=Actor("ann"), at=time.time())

        def lists_read() -> None:
            self.assertContains(self.browser.get("/cms/posts/"), "A post to list")
            self.assertContains(self.browser.get(f"/cms/posts/{post.id}/comments/"), "A comment to list")
            self.assertEqual(self.browser.get("/catalog/products/").status_code, 200)

        self.admin.config_set("maxmemory", 1)
        self.addCleanup(self.admin.config_set, "maxmemory", 0)
        with self.assertRaises(redis.exceptions.OutOfMemoryError):
            self.admin.sort(cms_keys.by_updated(), by="nosort")
        lists_read()
        self.admin.config_set("maxmemory", 0)
        self.admin.execute_command("REPLICAOF", "127.0.0.1", "1")  # a primary that never answers
        self.addCleanup(self.admin.execute_command, "REPLICAOF", "NO", "ONE")
        with self.assertRaises(redis.exceptions.ReadOnlyError):
            self.admin.sort(cms_keys.by_updated(), by="nosort")
        lists_read()

    def test_loading_is_named_as_such(self):
        # A server loading its data answers LOADING only for the instant of a restart: too short
        # to meet reliably, so this checks how redis-py's LOADING error is told apart.
        self.assertEqual(failure_of(redis.BusyLoadingError("LOADING Redis is loading"))["kind"], "LOADING")


def _swallow(socket, script):
    with suppress(redis.RedisError):  # killed by SCRIPT KILL
        redis.Redis(unix_socket_path=str(socket), socket_timeout=60).eval(script, 0)


def _replies_with(admin, word) -> bool:
    try:
        admin.ping()
    except redis.ResponseError as exc:
        return str(exc).startswith(word)
    return False


def _wait_for(condition, tries=500):
    for _ in range(tries):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError("the condition never came")


class ErrorPagesTest(RedisTestCase):
    def test_a_missing_page_is_the_apps_own_inside_its_layout(self):
        response = self.client.get("/no/such/page/")
        self.assertEqual(response.status_code, 404)
        self.assertContains(response, "Not found", status_code=404)
        self.assertContains(response, 'class="sidebar"', status_code=404)
        self.assertContains(response, 'href="/catalog/products/"', status_code=404)  # navigation when signed in
        self.assertNotContains(response, "URLconf", status_code=404)
        anonymous = Client().get("/no/such/page/")
        self.assertEqual(anonymous.status_code, 404)
        self.assertNotContains(anonymous, 'href="/catalog/products/"', status_code=404)

    def test_a_bad_host_is_the_400_page(self):
        response = Client().get("/accounts/login/", HTTP_HOST="evil.example")
        self.assertEqual(response.status_code, 400)
        self.assertContains(response, "Bad request", status_code=400)
        self.assertNotContains(response, "ALLOWED_HOSTS", status_code=400)

    def test_the_500_page_is_in_the_layout(self):
        request = RequestFactory().get("/")
        request.user = self.user
        request.session = {}
        response = views.server_error(request)
        self.assertEqual(response.status_code, 500)
        self.assertIn(b'class="sidebar"', response.content)
        self.assertIn(b"Server error", response.content)

    def test_a_refused_csrf_token_is_the_403_page(self):
        strict = Client(enforce_csrf_checks=True)
        strict.force_login(self.user)
        response = strict.post("/cms/posts/add/", {})
        self.assertEqual(response.status_code, 403)
        self.assertContains(response, "Nothing was written", status_code=403)
        self.assertContains(response, 'class="sidebar"', status_code=403)

    def test_the_sign_in_page_as_next_of_a_signed_in_user_leads_to_the_dashboard(self):
        response = self.client.get("/accounts/login/?next=/accounts/login/")
        self.assertEqual(response.status_code, 302)
        self.assertEqual(response["Location"], "/")


@tag("slow")
class PageNumbersTest(RedisTestCase):
    def test_no_page_number_is_a_server_error_on_any_list(self):
        from django.core.management import call_command

        call_command("seed", verbosity=0)
        lists = [path for _name, path in every_url() if "/1" not in path and not path.startswith("/accounts")]
        for path in lists:
            for page in ("99999999999999999999", "²", "٣", "+2", "2_0", "-1", "0", " 2", "1e3", "999999999"):
                with self.subTest(path=path, page=page):
                    status = self.client.get(path, {"page": page}).status_code
                    self.assertIn(status, (200, 302, 400, 404, 405), f"{path}?page={page}")

    def test_no_link_repeats_an_unbounded_query_string(self):
        import re

        from django.core.management import call_command

        from config.keybrowser.behind import MAX_TOKEN

        call_command("seed", verbosity=0)
        huge = "x" * 20_000
        params = {"q": huge, "author": huge, "status": huge, "type": huge, "under": huge, "op": huge, "o": huge}
        for path in ("/catalog/products/", "/cms/posts/", "/school/courses/", "/orgchart/employees/"):
            with self.subTest(path=path):
                page = self.client.get(path, params).content.decode()
                links = re.findall(r'href="([^"]*)"', page)
                behind = [h for h in links if h.startswith("/keys/behind/?t=")]  # the panel's signed trace
                self.assertEqual(len(behind), 1)
                self.assertLessEqual(len(behind[0]), len("/keys/behind/?t=") + MAX_TOKEN, path)
                longest = max((len(h) for h in links if h not in behind), default=0)
                self.assertLess(longest, 1000, path)

    def test_a_page_past_the_last_is_the_last_and_a_malformed_one_a_404(self):
        past = self.client.get("/cms/posts/", {"page": "2"})  # the list shrank under the link: its last page
        self.assertRedirects(past, "/cms/posts/", fetch_redirect_response=False)
        self.assertEqual(self.client.get("/cms/posts/", {"page": "99999999999999999999"}).status_code, 404)
        self.assertEqual(self.client.get("/cms/posts/", {"page": "1"}).status_code, 200)


class ActivityLinksTest(RedisTestCase):
    def test_only_http_links_and_paths_on_this_site_become_links(self):
        links = {
            "javascript:alert(1)": False,
            "JavaScript:alert(1)": False,
            " javascript:alert(1)": False,
            "data:text/html,<b>x</b>": False,
            "//evil.example/x": False,
            "/\\evil.example": False,
            "java\tscript:alert(1)": False,
            "/catalog/products/1/": True,
            "https://example.com/x": True,
        }
        for n, link in enumerate(links):
            pipe = client().pipeline(transaction=True)
            store.queue_event(
                pipe, Event("ann", "created", "test", "thing", str(n), f"Thing {n}", link), keys.events("cms")
            )
            pipe.execute()
        page = self.client.get("/").content.decode()
        activity = page.split('id="activity"')[1].split("</section>")[0]
        for n, (link, allowed) in enumerate(links.items()):
            with self.subTest(link=link):
                self.assertIn(f"Thing {n}", activity)
                linked = f">Thing {n}</a>" in activity
                self.assertEqual(linked, allowed)
        self.assertNotIn("javascript:", activity.lower())


class SignInLimiterTest(RedisTestCase):
    sign_in = False

    def test_the_client_address_comes_from_the_trusted_proxies_only(self):
        factory = RequestFactory()
        spoofed = factory.get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7")
        self.assertEqual(client_address(spoofed), "10.0.0.9")  # no proxy trusted: the header is ignored
        with override_settings(TRUSTED_PROXY_COUNT=1):
            self.assertEqual(client_address(spoofed), "203.0.113.7")  # what our one proxy saw
        with override_settings(TRUSTED_PROXY_COUNT=2):
            self.assertEqual(client_address(spoofed), "1.2.3.4")
        with override_settings(TRUSTED_PROXY_COUNT=1):
            missing = factory.get("/", REMOTE_ADDR="10.0.0.9")
            self.assertEqual(client_address(missing), "10.0.0.9")
            junk = factory.get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR="not-an-ip")
            self.assertEqual(client_address(junk), "unknown")

    @override_settings(TRUSTED_PROXY_COUNT=1)
    def test_behind_a_proxy_one_attacker_cannot_lock_out_everyone(self):
        self.make_staff("ann")
        self.make_staff("bob")
        attacker = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.66")
        for _ in range(6):
            attacker.post("/accounts/login/", {"username": "ann", "password": "wrong"})
        bob = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.20")  # same proxy, another client
        response = bob.post("/accounts/login/", {"username": "bob", "password": PASSWORD})
        self.assertEqual(response.status_code, 302)

    def test_a_lock_out_is_in_the_activity_stream_once_and_administrators_see_the_failures(self):
        self.make_staff("ann")
        for _ in range(7):
            Client(REMOTE_ADDR="10.0.0.1").post("/accounts/login/", {"username": "ann", "password": "wrong"})
        events = client().xrange(keys.SIGNIN_EVENTS)
        locked = [fields for _id, fields in events if fields["verb"] == "locked out"]
        self.assertEqual(len(locked), 1)
        self.assertEqual(locked[0]["object_id"], "ann")
        self.assertEqual(client().llen(keys.signins_failed()), 7)

        admin = Client()
        admin.force_login(self.make_staff("root", role="administrator"))
        page = admin.get("/").content.decode()
        self.assertIn('id="failed-signins"', page)
        failures = page.split('id="failed-signins"')[1].split("<tbody>")[1].split("</section>")[0]
        self.assertEqual(failures.count("wrong password"), 5)
        self.assertEqual(failures.count("refused by the limit"), 2)
        self.assertIn("locked out", page.split('id="activity"')[1])

        viewer = Client()
        viewer.force_login(self.make_staff("vera", role="viewer"))
        self.assertNotContains(viewer.get("/"), 'id="failed-signins"')


class TechnicalErrorPageTest(RedisTestCase):
    """Under `make dev` (DEBUG=1) a 500 is Django's technical page: settings, request metadata
    and each frame's variables, none of which may show a Redis password."""

    def report(self, url: str, password: str) -> str:
        import sys

        from django.views.debug import ExceptionReporter

        def connect(url=url, options={"password": password, "host": "redis.internal"}, urls=(url,)):  # noqa: B006
            raise ConnectionError("Error 111 connecting to redis.internal:6379")

        request = RequestFactory().get("/", HTTP_X_ORIGIN=f"proxied for {url}")
        request.META["REDIS_URL"] = url  # runserver passes the environment along as metadata
        try:
            connect()
        except ConnectionError:
            return ExceptionReporter(request, *sys.exc_info()).get_traceback_html()

    def test_the_technical_500_page_masks_redis_urls_everywhere(self):
        import secrets

        password = secrets.token_hex(8)  # never in this file's source, which the page quotes
        url = f"redis://dashboard:{password}@redis.internal:6379/0"
        with override_settings(DEBUG=True, REDIS_URL=url, EXTRA_URLS={"primary": [url]}):
            html = self.report(url, password)
        self.assertIn("connecting to redis.internal:6379", html)  # the page is there, the error shown
        self.assertFalse(password in html, "the password is on the page")
        self.assertGreaterEqual(html.count("redis://dashboard:***@redis.internal:6379/0"), 5)
