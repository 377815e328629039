"""The script runner: one reply shape decoded into the error family, and scripts a server lost."""

from config.redis import client, on_cluster
from config.store import EditConflict, NotFound, Refused, scripts
from tests.base import RedisTestCase, flush_scripts

# Answers as ARGV[1] asks, the way every write script answers; "write" increments KEYS[1] first.
REPLY = scripts.register("""
if ARGV[1] == 'write' then return {'ok', redis.call('INCR', KEYS[1])} end
if ARGV[1] == 'missing' then return {'missing', 'post 7 does not exist', 'post'} end
if ARGV[1] == 'refused' then return {'refused', 'code', 'Code taken.', 'capacity', 'Too low.'} end
if ARGV[1] == 'conflict' then return {'conflict', 'version', redis.call('GET', KEYS[1]) or ''} end
return {'ok'}
""")


class Taken(Refused):
    """A store's own kind of refusal."""


def answer(kind: str, refused: type[Refused] = Refused) -> list:
    return scripts.outcome(scripts.run_script(REPLY, ["scripts:n"], [kind]), refused)


class OutcomeTest(RedisTestCase):
    sign_in = False

    def test_ok_is_its_payload(self):
        self.assertEqual(answer("write"), [1])
        self.assertEqual(answer("nothing"), [])
        self.assertEqual(client().get("scripts:n"), "1")

    def test_missing_is_not_found_with_its_field(self):
        with self.assertRaises(NotFound) as raised:
            answer("missing")
        self.assertEqual((raised.exception.message, raised.exception.field), ("post 7 does not exist", "post"))

    def test_refused_carries_every_fields_message(self):
        with self.assertRaises(Taken) as raised:
            answer("refused", Taken)
        self.assertEqual((raised.exception.field, raised.exception.message), ("code", "Code taken."))
        self.assertEqual(raised.exception.errors, {"code": "Code taken.", "capacity": "Too low."})

    def test_a_conflict_carries_the_current_state(self):
        client().set("scripts:n", "4")
        with self.assertRaises(EditConflict) as raised:
            answer("conflict")
        self.assertEqual(raised.exception.current, ["version", "4"])


class LostScriptTest(RedisTestCase):
    sign_in = False

    def test_a_call_is_one_round_trip_and_a_lost_script_is_loaded_again(self):
        with self.assertRoundTrips(1):
            answer("write")
        flush_scripts()
        loads = ["SCRIPT LOAD"] * (len(client().primaries()) if on_cluster() else 1)  # to each primary in turn
        with self.assertRoundTrips(2 + len(loads)) as trace:  # NOSCRIPT, SCRIPT LOAD, the call again
            self.assertEqual(answer("write"), [2])
        self.assertEqual([t.commands[0].name for t in trace.trips("data")], ["EVALSHA", *loads, "EVALSHA"])

    def test_a_pipeline_of_reads_is_sent_again_whole_once_its_scripts_are_loaded(self):
        client().set("scripts:n", "4")
        flush_scripts()
        pipe = client().pipeline(transaction=False)
        scripts.queue_script(pipe, REPLY, ["scripts:n"], ["conflict"])
        pipe.get("scripts:n")
        self.assertEqual(scripts.execute(pipe), [["conflict", "version", "4"], "4"])

    def test_a_pipeline_of_writes_sends_again_only_the_refused_calls(self):
        pipe = client().pipeline(transaction=False)
        pipe.incr("scripts:n")
        scripts.queue_script(pipe, REPLY, ["scripts:n"], ["write"])
        flush_scripts()
        self.assertEqual(scripts.execute(pipe, writes=True), [1, ["ok", 2]])
        self.assertEqual(client().get("scripts:n"), "2")  # the INCR ran once

    def test_load_queues_on_a_pipeline_ahead_of_its_calls(self):
        flush_scripts()
        pipe = client().pipeline(transaction=False)
        scripts.load(REPLY, pipe=pipe)
        scripts.queue_script(pipe, REPLY, ["scripts:n"], ["write"])
        self.assertEqual(pipe.execute()[-1], ["ok", 1])
