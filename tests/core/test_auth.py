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
from config.redis import client, raw_client
from config.store import signins
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
        (session_key,) = client().scan_iter(match="django:*:session:*")
        self.assertEqual(session_key, f"django:1:session:{hashlib.sha256(session_id.encode()).hexdigest()}")
        self.assertNotIn(session_id, session_key)
        self.assertEqual(keyspace.match(session_key).modeling, "Session (django-redis cache backend)")
        self.assertEqual(self.client.get("/").status_code, 200)  # and the app finds it from the cookie


@tag("cluster")
class RateLimitTest(RedisTestCase):
    sign_in = False

    def fail(self, username="ann", address="10.0.0.1", password="wrong"):
        return Client(REMOTE_ADDR=address).post("/accounts/login/", {"username": username, "password": password})

    def test_the_sixth_failure_for_a_username_from_one_address_is_refused_with_a_clear_message(self):
        self.make_staff("ann")
        for _ in range(5):
            self.assertContains(self.fail(), "Please enter a correct username and password")
        response = self.fail(password=PASSWORD)  # even the right password
        self.assertContains(response, "Too many failed sign-ins for this username or from this address")
        self.assertContains(response, "Try again in 5 minutes")
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_a_strangers_failures_never_lock_the_user_out_from_another_address(self):
        self.make_staff("ann")
        for _ in range(8):  # five wrong passwords, then the refusals a stranger keeps sending
            self.fail(address="203.0.113.9")
        self.assertContains(self.fail(address="203.0.113.9", password=PASSWORD), "Too many failed sign-ins")
        self.assertEqual(self.fail(address="10.0.0.1", password=PASSWORD).status_code, 302)
        events = client().xrange(keys.SIGNIN_EVENTS)
        self.assertEqual(len(events), 1)  # one lock-out, of ann from the stranger's address only
        self.assertIn("ann from 203.0.113.9 after 5 failed sign-ins", " ".join(events[0][1].values()))

    def test_one_persons_typos_never_lock_out_a_colleague_behind_the_same_address(self):
        self.make_staff("ann")
        self.make_staff("bob")
        for _ in range(5):
            self.fail(username="ann", address="10.1.1.1")
        self.assertContains(self.fail(username="ann", address="10.1.1.1", password=PASSWORD), "Too many failed")
        self.assertEqual(self.fail(username="bob", address="10.1.1.1", password=PASSWORD).status_code, 302)

    @override_settings(SIGNIN_ADDRESS_FAILURE_LIMIT=12)
    def test_an_address_trying_many_usernames_is_stopped_at_its_own_higher_limit(self):
        self.make_staff("bob")
        for n in range(12):
            self.assertContains(self.fail(username=f"user{n}", address="10.1.1.1"), "Please enter a correct")
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
        user_key = keys.failed_signins_user("ann", "10.0.0.1")
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
        self.assertEqual(client().zcard(keys.failed_signins_user("ann", "10.0.0.1")), 0)
        self.assertEqual(client().zcard(keys.failed_signins_address("10.0.0.1")), 3)

    def test_usernames_that_are_not_key_safe_become_a_digest(self):
        key = keys.failed_signins_user("x:* [evil]\n", "10.0.0.1")
        self.assertRegex(key, r"^core:\{signins\}:window:user:sha256-[0-9a-f]{24}:10\.0\.0\.1$")
        self.assertEqual(keys.failed_signins_user("Ann", "::1"), "core:{signins}:window:user:ann:--1")

    def test_concurrent_attempts_never_take_more_than_five_slots(self):
        allowed = []

        def attempt():
            allowed.append(signins.take_signin_attempt("ann", "10.9.9.9").allowed)

        run_concurrently(attempt, [()] * 20)
        self.assertEqual(allowed.count(True), 5)
        self.assertEqual(client().zcard(keys.failed_signins_user("ann", "10.9.9.9")), 5)
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
                signins.record_signin(name, "127.0.0.1", timezone.now())

        run_concurrently(sign_ins, [(f"user{i}",) for i in range(8)])
        self.assertEqual(client().llen(keys.signins_recent()), 50)
        self.assertEqual(sum(score for _, score in client().zrange(keys.signins_count(), 0, -1, withscores=True)), 240)
        self.assertEqual(violations(["core"]), [])


class CachedUserTest(RedisTestCase):
    """The user and its permissions come from Redis with the session (``roles.RoleBackend``): no SQL on a
    signed-in page, and every change of what the user may do seen by its very next request."""

    sign_in = False

    def setUp(self):
        super().setUp()
        self.ann = self.make_staff("ann", role="administrator")
        response = self.client.post("/accounts/login/", {"username": "ann", "password": PASSWORD})
        self.assertEqual(response.status_code, 302)

    def page(self, path="/keys/"):
        """A page, with no SQL query: the user, its groups' permissions and the session all from Redis."""
        with self.assertNumQueries(0):
            return self.client.get(path)

    def test_the_first_page_after_sign_in_sends_no_sql(self):
        response = self.page("/")
        self.assertContains(response, "Key browser")
        self.assertEqual(self.page().status_code, 200)
        cached = list(client().scan_iter(match="django:*:{auth}-user-*"))
        self.assertEqual(cached, [f"django:1:{{auth}}-user-{self.ann.pk}"])

    def test_a_change_of_group_is_seen_by_the_next_request(self):
        from django.contrib.auth.models import Group

        self.assertEqual(self.page().status_code, 200)
        self.ann.groups.set([Group.objects.get(name="viewer")])
        self.assertEqual(self.client.get("/keys/").status_code, 403)
        self.assertEqual(self.page().status_code, 403)  # cached again, as it now is
        Group.objects.get(name="administrator").user_set.add(self.ann)  # from the group's side
        self.assertEqual(self.client.get("/keys/").status_code, 200)

    def test_a_change_of_a_groups_or_a_users_permissions_is_seen_by_the_next_request(self):
        from django.contrib.auth.models import Group, Permission

        browse = Permission.objects.get(codename="browse_keys")
        Group.objects.get(name="administrator").permissions.remove(browse)
        self.assertEqual(self.client.get("/keys/").status_code, 403)
        self.ann.user_permissions.add(browse)
        self.assertEqual(self.client.get("/keys/").status_code, 200)
        self.ann.user_permissions.clear()
        self.assertEqual(self.client.get("/keys/").status_code, 403)
        Group.objects.get(name="administrator").permissions.add(browse)
        self.assertEqual(self.client.get("/keys/").status_code, 200)
        self.assertEqual(self.page().status_code, 200)

    def test_a_deleted_group_takes_its_permissions_with_it_at_once(self):
        from django.contrib.auth.models import Group

        self.assertEqual(self.page().status_code, 200)
        Group.objects.get(name="administrator").delete()  # its memberships go by cascade, with no m2m signal
        self.assertEqual(self.client.get("/keys/").status_code, 403)

    def test_a_deactivated_user_is_signed_out_by_the_next_request(self):
        self.assertEqual(self.page().status_code, 200)
        self.ann.is_active = False
        self.ann.save()
        response = self.client.get("/")
        self.assertEqual(response.status_code, 302)
        self.assertTrue(response["Location"].startswith("/accounts/login/"))

    def test_a_new_password_signs_out_the_sessions_made_with_the_old_one(self):
        self.assertEqual(self.page().status_code, 200)
        self.ann.set_password("another-horse-battery-staple")
        self.ann.save()
        response = self.client.get("/")
        self.assertEqual(response.status_code, 302)
        self.assertTrue(response["Location"].startswith("/accounts/login/"))

    def test_a_user_no_longer_staff_is_signed_out_by_the_next_request(self):
        self.assertEqual(self.page().status_code, 200)
        self.ann.is_staff = False
        self.ann.save()
        self.assertEqual(self.client.get("/").status_code, 302)

    def test_an_entry_built_before_a_change_is_not_used_after_it(self):
        """The race the stamps close: a request that read the rows before a change committed stores an
        entry under the stamps it read first, which the change has replaced."""
        from config import roles

        self.assertEqual(self.page().status_code, 200)
        name = f"django:1:{{auth}}-user-{self.ann.pk}"
        stale = raw_client().get(name)
        self.ann.groups.clear()
        raw_client().set(name, stale)  # the slow request's entry, written after the change
        self.assertEqual(self.client.get("/keys/").status_code, 403)
        self.assertFalse(roles.RoleBackend().get_user(self.ann.pk).has_perm(roles.BROWSE_KEYS))
