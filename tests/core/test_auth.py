"""Sign-in: every page needs it, failures are rate limited, successes are recorded (seeds 001, 004)."""

import hashlib
import re
import time

from django.contrib.auth import get_user_model
from django.test import Client, override_settings, tag
from django.urls import URLPattern, URLResolver, get_resolver

from config import keys, store
from config.invariants import violations
from config.keyspace import keyspace
from config.redis import client
from tests.base import PASSWORD, RedisTestCase, run_concurrently

PUBLIC = {"login", "healthz", "admin_login"}
_CONVERTER = re.compile(r"<(?:(\w+):)?\w+>")
_SAMPLES = {"int": "1", "id": "1", None: "1", "uuid": "00000000-0000-4000-8000-000000000001"}


def every_url(patterns=None, prefix=""):
    """(name, path) for every route the resolver knows, with sample values for its converters."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin":
                continue  # Django's own admin checks its own permissions (tests.core.test_roles)
            yield from every_url(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            sample = _CONVERTER.sub(lambda m: _SAMPLES.get(m.group(1), "a"), route)
            yield entry.name, "/" + sample.lstrip("^").rstrip("$")


class LoginRequiredTest(RedisTestCase):
    sign_in = False

    def test_every_url_redirects_an_anonymous_user_to_the_login(self):
        checked = 0
        for name, path in every_url():
            if name in PUBLIC:
                continue
            with self.subTest(path=path):
                response = self.client.get(path)
                self.assertEqual(response.status_code, 302, path)
                self.assertTrue(response["Location"].startswith("/accounts/login/?next="), response["Location"])
                checked += 1
        self.assertGreaterEqual(checked, 3)

    def test_the_login_page_and_healthz_are_public(self):
        self.assertEqual(self.client.get("/accounts/login/").status_code, 200)
        self.assertEqual(self.client.get("/healthz").status_code, 200)

    def test_sign_in_then_out(self):
        self.make_staff("ann")
        response = self.client.post("/accounts/login/", {"username": "ann", "password": PASSWORD})
        self.assertRedirects(response, "/", fetch_redirect_response=False)
        self.assertContains(self.client.get("/"), "ann")
        self.assertEqual(self.client.get("/accounts/logout/").status_code, 405)  # logout is a POST
        self.client.post("/accounts/logout/")
        self.assertEqual(self.client.get("/").status_code, 302)

    def test_the_session_lives_in_redis_under_a_digest_of_its_id(self):
        self.client.force_login(self.make_staff("ann"))
        session_id = self.client.cookies["sessionid"].value
        (session_key,) = client().scan_iter(match="django:*")
        self.assertEqual(session_key, f"django:1:session:{hashlib.sha256(session_id.encode()).hexdigest()}")
        self.assertNotIn(session_id, session_key)
        self.assertEqual(keyspace.match(session_key).modeling, "Session (django-redis cache backend)")
        self.assertEqual(self.client.get("/").status_code, 200)  # and the app finds it from the cookie


@tag("cluster")
class RateLimitTest(RedisTestCase):
    sign_in = False

    def fail(self, username="ann", address="10.0.0.1", password="wrong"):
        return Client(REMOTE_ADDR=address).post("/accounts/login/", {"username": username, "password": password})

    def test_the_sixth_failure_for_a_username_is_refused_with_a_clear_message(self):
        self.make_staff("ann")
        for n in range(5):
            response = self.fail(address=f"10.0.0.{n + 1}")
            self.assertContains(response, "Please enter a correct username and password")
        response = self.fail(address="10.0.0.9", password=PASSWORD)  # even the right password
        self.assertContains(response, "Too many failed sign-ins for this username or from this address")
        self.assertContains(response, "Try again in 5 minutes")
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_five_failures_from_one_address_lock_out_other_usernames(self):
        self.make_staff("bob")
        for n in range(5):
            self.fail(username=f"user{n}", address="10.1.1.1")
        response = self.fail(username="bob", address="10.1.1.1", password=PASSWORD)
        self.assertContains(response, "Too many failed sign-ins")
        other = Client(REMOTE_ADDR="10.2.2.2").post("/accounts/login/", {"username": "bob", "password": PASSWORD})
        self.assertEqual(other.status_code, 302)

    def test_refusals_do_not_extend_the_window_and_it_moves_on(self):
        self.make_staff("ann")
        for _ in range(5):
            self.fail()
        for _ in range(3):
            self.assertContains(self.fail(password=PASSWORD), "Too many failed sign-ins")
        user_key = keys.failed_signins_user("ann")
        self.assertEqual(client().zcard(user_key), 5)  # refused attempts took no slot
        self.assertGreater(client().pttl(user_key), 0)
        # Age the failures past the 5-minute window, as time would.
        past = (time.time() - 301) * 1000
        for key in (user_key, keys.failed_signins_address("10.0.0.1")):
            client().zadd(key, {member: past for member in client().zrange(key, 0, -1)})
        response = self.fail(password=PASSWORD)
        self.assertEqual(response.status_code, 302)

    def test_a_success_forgives_the_username_but_not_the_address(self):
        self.make_staff("ann")
        for _ in range(3):
            self.fail()
        self.assertEqual(self.fail(password=PASSWORD).status_code, 302)
        self.assertEqual(client().zcard(keys.failed_signins_user("ann")), 0)
        self.assertEqual(client().zcard(keys.failed_signins_address("10.0.0.1")), 3)

    def test_usernames_that_are_not_key_safe_become_a_digest(self):
        key = keys.failed_signins_user("x:* [evil]\n")
        self.assertRegex(key, r"^core:\{signins\}:window:user:sha256-[0-9a-f]{24}$")
        self.assertEqual(keys.failed_signins_user("Ann"), "core:{signins}:window:user:ann")

    def test_concurrent_attempts_never_take_more_than_five_slots(self):
        allowed = []

        def attempt():
            allowed.append(store.take_signin_attempt("ann", "10.9.9.9").allowed)

        run_concurrently(attempt, [()] * 20)
        self.assertEqual(allowed.count(True), 5)
        self.assertEqual(client().zcard(keys.failed_signins_user("ann")), 5)
        self.assertEqual(violations(["core"]), [])


@tag("cluster")
class SignInRecordsTest(RedisTestCase):
    sign_in = False

    def sign_in_as(self, username):
        Client().post("/accounts/login/", {"username": username, "password": PASSWORD})

    def test_each_sign_in_is_listed_and_counted_and_shown_on_the_dashboard(self):
        for name in ("ann", "bob"):
            self.make_staff(name)
        for name in ("ann", "bob", "ann", "ann"):
            self.sign_in_as(name)
        recent = client().lrange(keys.signins_recent(), 0, -1)
        self.assertEqual([store._signin(r).username for r in recent], ["ann", "ann", "bob", "ann"])
        self.assertEqual(client().zscore(keys.signins_count(), "ann"), 3)
        self.assertEqual(client().zscore(keys.signins_count(), "bob"), 1)

        self.client.force_login(get_user_model().objects.get(username="bob"))
        page = self.client.get("/").content.decode()
        most_active = page.split('id="most-active"')[1].split("</section>")[0]
        self.assertRegex(most_active, r"ann</td><td class=\"num\">3<")
        self.assertRegex(most_active, r"bob</td><td class=\"num\">2<")  # and bob's forced sign-in
        recent_section = page.split('id="recent-signins"')[1].split("</section>")[0]
        self.assertEqual(recent_section.count("<tr><td>"), 5)

    @override_settings(SIGNINS_KEPT=3)
    def test_the_recent_list_is_capped(self):
        self.make_staff("ann")
        for _ in range(5):
            self.sign_in_as("ann")
        self.assertEqual(client().llen(keys.signins_recent()), 3)
        self.assertEqual(client().zscore(keys.signins_count(), "ann"), 5)

    def test_concurrent_sign_ins_are_all_counted_and_the_invariants_hold(self):
        from django.utils import timezone

        def sign_ins(name):
            for _ in range(30):
                store.record_signin(name, "127.0.0.1", timezone.now())

        run_concurrently(sign_ins, [(f"user{i}",) for i in range(8)])
        self.assertEqual(client().llen(keys.signins_recent()), 50)
        self.assertEqual(sum(score for _, score in client().zrange(keys.signins_count(), 0, -1, withscores=True)), 240)
        self.assertEqual(violations(["core"]), [])
