"""The bulk Sender: writes run in order on one thread, a failed batch stops the ones after it."""

import sys
import threading

from django.test import SimpleTestCase, tag

from config.store.sending import Sender


@tag("cluster")
class SenderTest(SimpleTestCase):
    def test_with_depth_two_a_write_waits_its_turn_while_the_caller_goes_on(self):
        release, ran = threading.Event(), []

        def first():
            release.wait(10)
            ran.append(1)
            return "one"

        with Sender("test", depth=2) as sender:
            sender.send(first)
            sender.send(lambda: ran.append(2) or "two")  # handed over while the first still runs
            self.assertEqual(ran, [])
            release.set()
            sender.send(lambda: ran.append(3) or "three")  # a third waits for the first to be written
            self.assertEqual(ran[:1], [1])
        self.assertEqual(ran, [1, 2, 3])
        self.assertEqual(sender.results, ["one", "two", "three"])

    def test_nothing_after_a_failed_batch_is_written_and_its_error_is_raised(self):
        release, ran = threading.Event(), []

        def failing():
            release.wait(10)
            raise ValueError("refused")

        with self.assertRaises(ValueError), Sender("test", depth=2) as sender:
            sender.send(failing)
            sender.send(lambda: ran.append("after"))
            release.set()
        self.assertEqual(ran, [])

    def test_the_switch_interval_is_short_while_a_threaded_sender_is_open_and_restored_after(self):
        before = sys.getswitchinterval()
        with Sender("outer"):
            inside = sys.getswitchinterval()
            with Sender("inner"):
                pass
            self.assertEqual(sys.getswitchinterval(), inside)  # the inner one's end leaves it to the outer
        self.assertLessEqual(inside, 0.0005)
        self.assertEqual(sys.getswitchinterval(), before)
        with Sender("alone", threaded=False) as sender:
            self.assertEqual(sys.getswitchinterval(), before)  # no thread, nothing to hand the GIL to
            sender.send(lambda: "now")
        self.assertEqual(sender.results, ["now"])
