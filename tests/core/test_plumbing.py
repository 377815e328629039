"""Command trace, health check, the 503 page and recovery, durability across a crash."""

import shutil
import tempfile
import threading
import time
from copy import deepcopy
from unittest import mock

from django.conf import settings
from django.test import Client, override_settings, tag

from config import keys, store, trace
from config.activity import Event
from config.embedded import EmbeddedRedis
from config.redis import client, on_cluster, redacted
from tests.base import RedisTestCase, run_concurrently
from tests.keybrowser.helpers import panel_commands


class CommandKeysTest(RedisTestCase):
    sign_in = False

    def test_keys_are_found_where_each_command_keeps_them(self):
        cases = {
            ("HGET", "a", "f"): ("a",),
            ("DEL", "a", "b"): ("a", "b"),
            ("MSET", "a", "1", "b", "2"): ("a", "b"),
            ("EVALSHA", "sha", "2", "k1", "k2", "arg"): ("k1", "k2"),
            ("ZUNIONSTORE", "dest", "2", "s1", "s2", "WEIGHTS", "1", "2"): ("dest", "s1", "s2"),
            ("OBJECT", "ENCODING", "k"): ("k",),
            ("SCAN", "0", "MATCH", "x*"): (),
            ("SMOVE", "a", "b", "m"): ("a", "b"),
        }
        for args, expected in cases.items():
            with self.subTest(args=args):
                self.assertEqual(trace.Command.of(args).keys, expected)

    def test_long_arguments_are_cut_short(self):
        command = trace.Command.of(("SET", "k", "x" * 500, *range(20)))
        self.assertLessEqual(len(command.args[1]), trace.ARG_CHARS)
        self.assertEqual(command.args[-1], f"…(+{22 - trace.ARGS_SHOWN})")


class TraceTest(RedisTestCase):
    def test_a_pipeline_is_one_round_trip_and_a_transaction_shows_multi_exec(self):
        with trace.recording() as recorded:
            pipe = client().pipeline(transaction=True)
            pipe.set("{t}:a", 1)
            pipe.incr("{t}:b")
            pipe.execute()
            client().get("{t}:a")
        self.assertEqual(recorded.round_trip_count(), 2)
        first, second = recorded.round_trips
        self.assertEqual([c.name for c in first.commands], ["MULTI", "SET", "INCRBY", "EXEC"])
        self.assertEqual(first.kind, "transaction")
        self.assertEqual(second.kind, "command")
        self.assertEqual(recorded.touched_keys(), ["{t}:a", "{t}:b"])

    def test_recording_keeps_the_arguments_and_works_out_what_is_shown_only_when_asked(self):
        with mock.patch.object(trace, "command_keys", wraps=trace.command_keys) as keys_of:
            with trace.recording() as recorded:
                pipe = client().pipeline(transaction=False)
                for i in range(500):
                    pipe.set(f"{{t}}:{i}", "v" * 100)
                pipe.execute()
            # A page of many commands pays a tuple for each; on a cluster, its keys too, for its node.
            routed = 500 if on_cluster() else 0
            self.assertEqual(keys_of.call_count, routed)
            self.assertEqual(recorded.command_count(), 500)
            (trip,) = recorded.round_trips
            shown = trip.commands[7]
            self.assertEqual((shown.name, shown.keys), ("SET", ("{t}:7",)))
            self.assertEqual(shown.args, ("{t}:7", "v" * (trace.ARG_CHARS - 1) + "…"))
            self.assertEqual(keys_of.call_count, routed or 1)
            self.assertEqual(str(trip.commands[7]), str(shown))
            self.assertEqual(keys_of.call_count, routed or 1)  # worked out once

    def test_watched_reads_are_round_trips_of_their_own(self):
        with self.assertRoundTrips(3) as recorded, client().pipeline(transaction=True) as pipe:
            pipe.watch("t:a")
            pipe.get("t:a")
            pipe.multi()
            pipe.set("t:a", 2)
            pipe.execute()
        self.assertEqual([t.commands[0].name for t in recorded.round_trips], ["WATCH", "GET", "MULTI"])

    def test_the_helper_fails_on_a_wrong_count(self):
        with self.assertRaises(AssertionError), self.assertRoundTrips(1):
            client().get("t:a")
            client().get("t:b")

    def test_every_page_shows_its_round_trips_commands_and_key_links(self):
        with self.assertRoundTrips(1) as recorded:
            response = self.client.get("/")
        total = recorded.round_trip_count(None)  # the session and its user's cache entry are in the panel too
        self.assertGreaterEqual(total, 2)
        self.assertContains(
            response, f'data-round-trips="{total}">1 round trip</strong> for this screen, +2 for the session'
        )
        self.assertContains(response, f"{recorded.command_count(None)} commands")
        listed = panel_commands(response.content.decode())  # loaded when the panel is opened
        self.assertIn('href="/keys/?key=core%3A%7Bsignins%7D%3Arecent"', listed)
        self.assertIn("session/cache", listed)

    def test_an_htmx_partial_gets_the_panel_out_of_band(self):
        response = self.client.get("/keys/", HTTP_HX_REQUEST="true")
        self.assertContains(response, 'id="redis-panel" class="redis-panel" hx-swap-oob="true"')


@tag("cluster")
class EventStreamTest(RedisTestCase):
    @override_settings(EVENTS_MAXLEN=5)
    def test_each_stream_is_capped_and_the_dashboard_merges_the_latest_of_all(self):
        streams = [keys.events("school"), keys.events("cms")]
        for n in range(12):
            pipe = client().pipeline(transaction=True)
            store.queue_event(
                pipe, Event("ann", "created", "test", "thing", str(n), f"Thing {n}", f"/things/{n}/"), streams[n % 2]
            )
            pipe.execute()
            time.sleep(0.002)  # each event in a later millisecond: two streams order the same millisecond apart
        self.assertEqual([client().xlen(stream) for stream in streams], [5, 5])
        with self.assertRoundTrips(1):
            feed = store.activity(events=5).events
        self.assertEqual([e.object_id for e in feed], ["11", "10", "9", "8", "7"])  # newest first, both streams
        page = self.client.get("/").content.decode()
        activity = page.split('id="activity"')[1].split("</section>")[0]
        self.assertIn('<a href="/things/11/">Thing 11</a>', activity)
        self.assertIn('href="/things/2/"', activity)  # the oldest either stream kept
        self.assertNotIn('href="/things/1/"', activity)

    def test_stored_text_is_escaped(self):
        pipe = client().pipeline(transaction=True)
        store.queue_event(
            pipe, Event("<b>x</b>", "created", "test", "thing", "1", "<script>alert(1)</script>"), keys.events("cms")
        )
        pipe.execute()
        response = self.client.get("/")
        self.assertNotContains(response, "<script>alert(1)</script>")
        self.assertContains(response, "&lt;script&gt;alert(1)&lt;/script&gt;")


class ScratchServer:
    """A redis-server of the test's own, to stop and kill without harming the others."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="rdash-scratch-")
        self.server = EmbeddedRedis(self.dir)
        self.server.ensure_running()

    def settings(self):
        caches = deepcopy(settings.CACHES)
        caches["default"]["LOCATION"] = self.server.url
        return override_settings(REDIS_URL=self.server.url, CACHES=caches)

    def close(self):
        self.server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class RedisDownTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.scratch = ScratchServer()
        self.addCleanup(self.scratch.close)

    def test_healthz_reports_up_then_down(self):
        with self.scratch.settings():
            self.assertEqual(self.client.get("/healthz").json(), {"redis": "up"})  # anonymous: status alone
            self.client.force_login(self.make_staff("ann"))
            up = self.client.get("/healthz").json()
            self.assertEqual(up["redis"], "up")
            self.assertRegex(up["version"], r"^\d+\.\d+\.\d+$")
            self.assertIsInstance(up["used_memory"], int)
            self.assertEqual(up["keys"], 5)  # the session, its user's cache entry and stamp, the sign-in's two records
            self.scratch.server.stop()
            response = self.client.get("/healthz")
            self.assertEqual(response.status_code, 503)
            self.assertEqual(response.json()["redis"], "down")

    def test_pages_answer_503_while_redis_is_down_and_recover_after(self):
        with self.scratch.settings():
            browser = Client(raise_request_exception=False)
            browser.force_login(self.make_staff("ann"))
            self.assertEqual(browser.get("/").status_code, 200)

            self.scratch.server.stop()
            for path in ("/", "/keys/?key=core:{signins}:events", "/accounts/login/"):
                with self.subTest(path=path):
                    response = browser.get(path)
                    self.assertEqual(response.status_code, 503)
                    self.assertContains(response, "Redis is unreachable", status_code=503)
                    # The session is in Redis, so nobody is known to be signed in: no address shown.
                    self.assertNotContains(response, self.scratch.server.url, status_code=503)
                    self.assertNotContains(response, "Traceback", status_code=503)
            signin = Client(raise_request_exception=False).post("/accounts/login/", {"username": "a", "password": "b"})
            self.assertEqual(signin.status_code, 503)

            self.scratch.server.ensure_running()
            response = browser.get("/")
            self.assertEqual(response.status_code, 200)  # and still signed in: the session survived
            self.assertContains(response, "ann")

    def test_the_error_page_never_shows_the_password(self):
        self.assertEqual(redacted("redis://user:s3cret@host:6380/0"), "redis://user:***@host:6380/0")
        self.assertEqual(redacted("rediss://:s3cret@host/1"), "rediss://:***@host/1")
        self.assertEqual(redacted("unix:///tmp/r.sock"), "unix:///tmp/r.sock")


class DurabilityTest(RedisTestCase):
    sign_in = False

    def test_writes_acknowledged_a_second_before_a_sigkill_survive_it(self):
        scratch = ScratchServer()
        self.addCleanup(scratch.close)
        with scratch.settings():
            pipe = client().pipeline(transaction=True)
            for n in range(100):
                pipe.hset(f"durable:{n}", mapping={"n": n})
            pipe.execute()
            time.sleep(1.5)  # past one appendfsync everysec interval
            pid = scratch.server.pid()
            scratch.server.kill()
            self.assertFalse(scratch.server.is_running())
            scratch.server.ensure_running()
            self.assertNotEqual(scratch.server.pid(), pid)
            self.assertEqual(client().hget("durable:99", "n"), "99")
            self.assertEqual(client().dbsize(), 100)


class PanelLinkTest(RedisTestCase):
    def test_a_key_cut_short_still_links_to_the_whole_key(self):
        long_key = "core:" + "x" * 100
        client().set(long_key, 1)
        command = trace.Command.of(("GET", long_key))
        self.assertTrue(command.args[0].endswith("…"))
        self.assertEqual(command.parts, [(command.args[0], long_key)])


class ClientBuildTest(RedisTestCase):
    sign_in = False

    def test_threads_asking_at_once_share_one_client(self):
        from config.redis import reset_clients

        reset_clients()
        start, built = threading.Barrier(16), []

        def ask():
            start.wait()
            built.append(client())

        run_concurrently(ask, [()] * 16)
        self.assertEqual(len({id(c) for c in built}), 1)
        self.assertTrue(client().ping())

    def test_a_client_used_by_many_threads_stays_exact(self):
        kept = client()  # as redis-py's register_script keeps the client it was given
        kept.delete("plumbing:count")
        run_concurrently(lambda: [kept.incr("plumbing:count") for _ in range(300)], [()] * 8)
        self.assertEqual(kept.get("plumbing:count"), "2400")

    def test_a_timeout_closes_the_connection_so_its_late_reply_is_never_read(self):
        from config.redis import reset_clients

        with override_settings(REDIS_SOCKET_TIMEOUT=0.1):
            mine = client()
            mine.set("plumbing:after", "right")
            with self.assertRaises(store_timeout()):
                mine.execute_command("DEBUG", "SLEEP", "0.4")
            time.sleep(0.5)  # the server answers the sleep: to a closed connection
            self.assertEqual(mine.get("plumbing:after"), "right")
        reset_clients()

    def test_a_dropped_connection_is_opened_again_and_the_command_sent(self):
        if on_cluster():
            self.skipTest("one server's connection pool")
        first = client().client_id()
        client().connection_pool.make_connection().send_command("CLIENT", "KILL", "ID", first)
        time.sleep(0.05)
        self.assertNotEqual(client().client_id(), first)


class ScriptCallTest(RedisTestCase):
    sign_in = False

    def test_a_script_call_answers_as_execute_command_and_is_traced(self):
        from config.store.scripts import load, run_script

        client().sadd("plumbing:raw", "a", "b")
        source = "return {redis.call('SCARD', KEYS[1]), ARGV[1], ARGV[2]}"
        load(source)
        with trace.recording() as collected:
            got = run_script(source, ["plumbing:raw"], [7, 0.25])
        self.assertEqual(got, [2, "7", "0.25"])
        self.assertEqual(got, client().execute_command("EVAL", source, 1, "plumbing:raw", 7, 0.25))
        self.assertEqual([c.name for t in collected.round_trips for c in t.commands], ["EVALSHA"])

    def test_an_error_reply_is_raised_as_redis_py_raises_it(self):
        from redis.exceptions import NoScriptError

        with self.assertRaises(NoScriptError):
            client().execute_command("EVALSHA", "0" * 40, 0)


def store_timeout():
    from redis.exceptions import TimeoutError as RedisTimeout

    return RedisTimeout
