"""The Redis panel of every page: its work does not grow with the commands a page sends."""

import re
from html import unescape
from unittest import mock
from urllib.parse import quote

from django import urls
from django.core import signing
from django.template.base import Node
from django.test import SimpleTestCase, tag

from config.keybrowser import behind, panel
from config.redis import raw_client
from config.trace import Command, RoundTrip, Trace
from tests.keybrowser.helpers import KeysTestCase
from tests.keybrowser.helpers import panel_commands as listed


def trace_of(count: int, key: str = "catalog:{{catalog}}:product:{}") -> Trace:
    commands = [Command.of((b"HGETALL", key.format(i).encode())) for i in range(count)]
    session = [Command.of((b"GET", b"django:sessions:cacheabc"))]
    return Trace([RoundTrip(session, 0.1, "django", "command"), RoundTrip(commands, 0.4, "data", "pipeline")])


NODES = ("127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002")


def cluster_trace_of(count: int) -> Trace:
    """The same commands as ``trace_of``, sent as on a 3-primary cluster: a pipeline's share per node."""
    commands = [Command.of((b"HGETALL", f"catalog:{{catalog}}:product:{i}".encode())) for i in range(count)]
    session = [Command.of((b"GET", b"django:sessions:cacheabc"))]
    shares = [RoundTrip(commands[n::3], 0.1, "data", "pipeline", node=node, wave=1) for n, node in enumerate(NODES)]
    return Trace([RoundTrip(session, 0.1, "django", "command", node=NODES[1]), *shares])


class PanelWorkTest(SimpleTestCase):
    def work(self, count: int, build=trace_of) -> tuple[int, int, int]:
        """(template nodes rendered, reverse() calls, commands signed into the link) of one panel
        over ``count`` commands."""
        trace = build(count)
        panel.panel_html(build(1), "/")  # warm, as after a first page: the template is parsed
        with (
            mock.patch.object(Node, "render_annotated", autospec=True, side_effect=Node.render_annotated) as nodes,
            mock.patch.object(urls, "reverse", wraps=urls.reverse) as reverse,
        ):
            html = panel.panel_html(trace, "/")
        token = unescape(re.search(r'href="/keys/behind/\?t=([^"]+)"', html).group(1))
        signed = signing.loads(token, salt=behind.SALT)
        return nodes.call_count, reverse.call_count, sum(len(t[4]) for t in signed["t"])

    def test_the_work_is_counted(self):
        """The counts above see the template's work: a panel with nodes to name renders more nodes."""
        nodes, reverses, _ = self.work(100)
        self.assertGreater(nodes, 10)
        self.assertEqual(reverses, 2)  # its two links
        self.assertGreater(self.work(100, cluster_trace_of)[0], nodes)

    def test_the_same_work_at_100_and_at_5000_commands(self):
        self.assertEqual(self.work(100), self.work(5000))

    def test_on_a_cluster_the_same_work_at_100_and_at_5000_commands(self):
        self.assertEqual(self.work(100, cluster_trace_of), self.work(5000, cluster_trace_of))

    def test_on_a_cluster_round_trips_are_counted_per_node(self):
        html = panel.panel_html(cluster_trace_of(30), "/")
        self.assertIn("1 round trip</strong> for this screen, +1 for the session", html)  # one wave to 3 nodes
        self.assertIn("round trips per node:", html)
        self.assertIn('data-node="127.0.0.1:7000" data-round-trips="1"', html)
        self.assertIn('data-node="127.0.0.1:7001" data-round-trips="2"', html)  # the session's GET too
        self.assertIn('data-node="127.0.0.1:7002" data-round-trips="1"', html)
        self.assertEqual(listed(html).count(" · node 127.0.0.1:700"), 4)

    def test_on_one_server_no_node_is_named(self):
        html = panel.panel_html(trace_of(30), "/")
        self.assertNotIn("per node", html + listed(html))
        self.assertNotIn("data-node", html)

    def test_a_page_parses_none_of_its_commands_the_opened_list_those_it_carries(self):
        for count in (100, 5000):
            with mock.patch.object(Command, "_parse", autospec=True, side_effect=Command._parse) as parse:
                html = panel.panel_html(trace_of(count), "/")
                self.assertEqual(parse.call_count, 0)  # each carried as sent, a few strings
                listed(html)
            self.assertEqual(parse.call_count, behind.MAX_COMMANDS)  # the session's GET and 11 of the page's

    def test_keys_past_the_carried_arguments_are_still_listed_and_linked(self):
        """A command of more arguments than the list shows carries its keys beside them: the keys behind
        the screen are all of them, and every shown one links."""
        names = [f"catalog:{{catalog}}:product:{n}" for n in range(12)]
        mget = Command.of((b"MGET", *(name.encode() for name in names)))
        html = panel.panel_html(Trace([RoundTrip([mget], 0.1, "data", "command")]), "/")
        token = unescape(re.search(r'href="/keys/behind/\?t=([^"]+)"', html).group(1))
        self.assertEqual(behind.read(token).keys, names)
        commands = listed(html)
        self.assertEqual(commands.count('<a href="/keys/?key=catalog%3A%7Bcatalog%7D%3Aproduct%3A'), 8)
        self.assertIn("…(+4)", commands)

    def test_a_session_key_anywhere_in_a_command_is_masked_before_it_is_signed(self):
        session = "django:sessions:cache" + "s3cr3t" * 5
        mget = Command.of(("MGET", "catalog:{catalog}:product:1", session, "catalog:{catalog}:product:2"))
        html = panel.panel_html(Trace([RoundTrip([mget], 0.1, "data", "command")]), "/")
        token = unescape(re.search(r'href="/keys/behind/\?t=([^"]+)"', html).group(1))
        self.assertNotIn("s3cr3t", str(signing.loads(token, salt=behind.SALT)))
        self.assertEqual(behind.read(token).keys, ["catalog:{catalog}:product:1", "catalog:{catalog}:product:2"])
        self.assertIn("‹session/cache key›", listed(html))

    def test_no_reverse_per_key_link(self):
        nodes, reverses, signed = self.work(200)
        self.assertEqual(reverses, 2)  # the panel's own two links, none per key
        self.assertEqual(signed, behind.MAX_COMMANDS)

    def test_the_page_carries_the_summary_not_the_command_list(self):
        html = panel.panel_html(trace_of(500), "/")
        self.assertIn("501 commands", html)
        self.assertNotIn("HGETALL", html)
        self.assertNotIn("/keys/?key=", html)
        self.assertIn('hx-get="/keys/behind/commands/?t=', html)
        self.assertIn('hx-trigger="toggle once"', html)

    def test_lists_a_bounded_number_of_commands_and_says_how_many_are_not(self):
        html = listed(panel.panel_html(trace_of(500), "/"))
        self.assertEqual(
            html.count('<a href="/keys/?key=catalog%3A%7Bcatalog%7D%3Aproduct%3A'), panel.LISTED - 1
        )  # + the GET
        self.assertIn(f"{500 - (panel.LISTED - 1)} more not listed here", html)
        self.assertIn("500 commands", html)
        self.assertIn("‹session/cache key›", html)
        self.assertNotIn("sessions:cacheabc", html)

    def test_a_failed_round_trip_is_named_with_its_error(self):
        get = Command.of((b"GET", b"catalog:{catalog}:product:1"))
        failed = RoundTrip([get], 0.1, "data", "command", "TimeoutError")
        html = listed(panel.panel_html(Trace([failed]), "/"))
        self.assertIn('<strong class="error">TimeoutError</strong>', html)

    def test_stored_text_is_escaped_in_the_list(self):
        hostile = '<script>alert("k")</script>'
        trace = Trace([RoundTrip([Command.of((b"SET", hostile.encode(), hostile.encode()))], 0.1, "data", "command")])
        html = listed(panel.panel_html(trace, "/"))
        self.assertNotIn("<script>", html)
        self.assertIn("&lt;script&gt;", html)
        self.assertIn(f'href="/keys/?key={quote(hostile, safe="")}"', html)

    def test_a_huge_key_name_is_cut_with_its_length_and_not_linked(self):
        huge = "k" * 1_000_000
        trace = Trace([RoundTrip([Command.of((b"GET", huge.encode()))], 0.1, "data", "command")])
        html = panel.panel_html(trace, "/")
        self.assertLess(len(html), 4000)
        commands = listed(html)
        self.assertIn("(1000000 bytes)", commands)
        self.assertNotIn('href="/keys/?key=kkk', commands)
        self.assertEqual(behind.read(re.search(r"\?t=([^\"]+)", html).group(1)).keys, [])


@tag("cluster")
class PanelPageTest(KeysTestCase):
    def test_a_page_with_a_huge_key_name_stays_small(self):
        huge = b"big:" + b"n" * 1_000_000
        raw_client().set(huge, b"x")
        response = self.client.get("/keys/?pattern=big:")
        self.assertEqual(response.status_code, 200)
        self.assertLess(len(response.content), 60_000)
        self.assertContains(response, "1,000,004 bytes")  # the key's row
        commands = listed(response.content.decode())
        self.assertLess(len(commands), 4000)
        self.assertIn("1000004 bytes", commands)
