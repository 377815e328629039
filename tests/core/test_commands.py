"""Management commands: seed (deterministic, --only, --reset), check_integrity, check --deploy."""

import os
import secrets
import subprocess
import sys
import tempfile
from io import StringIO

from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import override_settings, tag

from config import keys, seeding
from config.keyspace import keyspace
from config.redis import client, raw_client
from tests.base import RedisTestCase


def snapshot() -> dict:
    """Everything Redis holds but Django's sessions, in comparable form.

    Stream entry ids carry the time of the write, so only their fields count;
    the seed marker records when it ran, so only its scale and apps count.
    """
    r = raw_client()  # values may be binary (the org chart's sensor buckets)
    state = {}
    for raw_key in sorted(r.scan_iter(count=1000)):
        key = raw_key.decode()
        if key.startswith("django:"):
            continue
        kind = r.type(key).decode()
        if kind == "hash":
            value = r.hgetall(key)
            if key == keys.seed_marker():
                value.pop(b"at")
        elif kind == "zset":
            value = r.zrange(key, 0, -1, withscores=True)
        elif kind == "set":
            value = sorted(r.smembers(key))
        elif kind == "list":
            value = r.lrange(key, 0, -1)
        elif kind == "stream":
            value = [fields for _, fields in r.xrange(key)]
        else:
            value = r.get(key)
        state[key] = (kind, value, r.ttl(key) > 0)
    return state


def demo_seeder(ctx: seeding.SeedContext) -> int:
    """A seeder of the test's own: random values, written in one pipeline."""
    pipe = client().pipeline(transaction=True)
    for n in range(30):
        pipe.hset(f"testseed:{{t}}:item:{n}", mapping={"value": ctx.rng.randint(0, 10**9), "at": ctx.now.isoformat()})
        pipe.zadd("testseed:{t}:index", {str(n): ctx.rng.random()})
    pipe.execute()
    ctx.progress(30)
    return 30


@tag("slow")
class SeedCommandTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        keyspace.register_app("testseed", "testseed:")
        seeding.registry.add("testseed", order=99, estimate=lambda scale: 30)(demo_seeder)
        self.addCleanup(seeding.registry.seeders.pop, "testseed")
        self.addCleanup(keyspace.prefixes.pop, "testseed")

    def seed(self, *args):
        call_command("seed", *args, stdout=StringIO(), stderr=StringIO())

    def test_seeding_is_deterministic_across_runs_and_every_seeded_key_is_registered(self):
        # One demo seed serves both: seeding every app is the slow part.
        self.seed("--scale", "demo")
        first = snapshot()
        self.assertIn("testseed:{t}:index", first)
        self.assertGreater(len(first), 30)
        unregistered = [key for key in first if keyspace.match(key) is None and not key.startswith("testseed:")]
        self.assertEqual(unregistered, [])
        client().flushdb()
        self.seed("--scale", "demo")
        self.assertEqual(snapshot(), first)

    def test_only_and_reset_touch_only_the_chosen_app(self):
        client().set("core:unrelated", "stays")
        client().hset("testseed:{t}:item:999", "value", "stale")
        self.seed("--only", "testseed", "--reset")
        self.assertFalse(client().exists("testseed:{t}:item:999"))
        self.assertEqual(client().get("core:unrelated"), "stays")
        self.assertEqual(client().hget(keys.seed_marker(), "apps"), "testseed")
        self.assertEqual(client().hget(keys.seed_marker(), "scale"), "demo")
        seeded = [k for k in snapshot() if k.startswith("testseed:")]
        self.assertEqual(len(seeded), 31)

    def test_only_may_be_repeated(self):
        self.seed("--only", "testseed", "--only", "school")
        self.assertEqual(client().hget(keys.seed_marker(), "apps"), "school,testseed")

    def test_seeding_over_data_is_refused_and_writes_nothing(self):
        self.seed("--only", "testseed")
        before = snapshot()
        with self.assertRaisesMessage(CommandError, "testseed already holds data; nothing was seeded"):
            self.seed("--only", "testseed")
        self.assertEqual(snapshot(), before)

    def test_help_explains_scale_and_only(self):
        from config.management.commands.seed import Command

        text = " ".join(Command().create_parser("manage.py", "seed").format_help().split())
        self.assertIn("large: hundreds of thousands per app", text)
        self.assertIn("seed only these apps (any of: catalog", text)

    def test_an_unknown_app_is_refused(self):
        with self.assertRaisesMessage(CommandError, "no seeder for nosuchapp"):
            self.seed("--only", "nosuchapp")


@tag("cluster")
class CheckIntegrityTest(RedisTestCase):
    sign_in = False

    def run_check(self, *args):
        out = StringIO()
        try:
            call_command("check_integrity", *args, stdout=out)
        except SystemExit as exit:
            return exit.code, out.getvalue()
        return 0, out.getvalue()

    def test_a_clean_store_passes(self):
        code, out = self.run_check()
        self.assertEqual(code, 0, out)
        self.assertIn("invariants hold", out)

    def test_verbose_runs_say_each_invariant_as_it_goes(self):
        code, out = self.run_check("--only", "core", "--verbosity", "2")
        self.assertEqual(code, 0, out)
        self.assertRegex(out, r"core: every event stream is capped … ok \(\d+\.\d s\)")

    @override_settings(EVENTS_MAXLEN=3, SIGNINS_KEPT=2)
    def test_violations_are_reported_with_their_keys_and_repaired(self):
        for n in range(5):
            client().xadd(keys.events("cms"), {"n": n})
            client().lpush(keys.signins_recent(), f'{{"user": "ann", "addr": "", "at": {n}}}')
        client().zadd(keys.failed_signins_user("ann", "10.0.0.1"), {"x": 1})  # no TTL
        client().zadd(keys.signins_count(), {"ann": 1})  # fewer than listed

        code, out = self.run_check("--only", "core")
        self.assertEqual(code, 1)
        self.assertIn("5 events kept in core:{cms}:events, cap is 3  [core:{cms}:events]", out)
        self.assertIn("5 recent sign-ins kept, cap is 2", out)
        self.assertIn("core:{signins}:window:user:ann:10.0.0.1 has no TTL", out)
        self.assertIn("'ann' appears 5 times in recent sign-ins but has a count of 1", out)

        code, out = self.run_check("--only", "core", "--repair")
        self.assertEqual(client().xlen(keys.events("cms")), 3)
        self.assertEqual(client().llen(keys.signins_recent()), 2)
        self.assertGreater(client().ttl(keys.failed_signins_user("ann", "10.0.0.1")), 0)
        self.assertEqual(code, 0, out)
        self.assertEqual(client().zscore(keys.signins_count(), "ann"), 2)  # raised to the 2 still listed


class DeployCheckTest(RedisTestCase):
    sign_in = False

    def test_check_deploy_passes_with_debug_off_and_a_real_secret(self):
        env = {
            **os.environ,
            "DEBUG": "0",
            "HTTPS": "1",
            "SECRET_KEY": secrets.token_urlsafe(60),
            "ALLOWED_HOSTS": "dashboard.example.com",
            "REDIS_URL": settings.REDIS_URL,
            "VAR_DIR": tempfile.mkdtemp(prefix="rdash-deploy-"),
        }
        result = subprocess.run(
            [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
        )
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("no issues", result.stdout)


class ServeSeedsEmptyAppsTest(RedisTestCase):
    """``make run`` seeds only the apps that hold no data: imported data is never doubled."""

    sign_in = False

    def test_an_app_with_data_is_left_alone_and_an_empty_one_is_seeded(self):
        from config.management.commands.serve import Command as Serve

        saved = dict(seeding.registry.seeders)
        self.addCleanup(lambda: (seeding.registry.seeders.clear(), seeding.registry.seeders.update(saved)))
        seeding.registry.seeders.clear()
        for app in ("testseed", "testfull"):
            keyspace.register_app(app, f"{app}:")
            self.addCleanup(keyspace.prefixes.pop, app)
            seeding.registry.add(app, order=99)(demo_seeder if app == "testseed" else _fail_if_run)
        client().set("testfull:item:1", "imported")

        out = StringIO()
        Serve(stdout=out, stderr=StringIO()).seed_empty_apps()
        self.assertIn("Seeding the demo data of testseed ", out.getvalue())
        self.assertEqual([k for k in snapshot() if k.startswith("testfull:")], ["testfull:item:1"])
        self.assertIn("testseed:{t}:index", snapshot())


def _fail_if_run(ctx):
    raise AssertionError("an app holding data was seeded again")
