"""The Redis panel's command list, built in Python: its cost per command is a few string joins.

The panel lists every command of every page, so what it does per command is
kept to constant work: the hidden prefixes and the key browser's URL are
computed once per panel, each argument is escaped once, and a key name too
long to carry in a link is shown cut, with its length, and not linked.

On a Redis Cluster the summary also counts the round trips per node, and each
round trip names its node; on one server nothing of that shows.
"""

from __future__ import annotations

from functools import cache
from html import escape
from urllib.parse import quote

from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeString

from config.keybrowser import behind
from config.keybrowser.behind import HIDDEN
from config.keybrowser.display import NAME_SHOWN, hidden_prefixes
from config.trace import Trace

LISTED = behind.MAX_COMMANDS  # commands listed in the panel at most; "keys behind this screen" has the keys


@cache
def _url(name: str, script_prefix: str) -> str:
    return reverse(name)


def url(name: str) -> str:
    """``reverse(name)`` once per process (and script prefix): the panel's links never change."""
    return _url(name, get_script_prefix())


def _ms(value: float) -> str:
    return f"{value:.2f}"


def _plural(count: int) -> str:
    return "" if count == 1 else "s"


def panel_html(trace: Trace, path: str = "", oob: bool = False) -> SafeString:
    """The whole panel: a summary of the round trips, the commands, and the link to their keys."""
    screen, session = trace.round_trip_count("data"), trace.round_trip_count("django")
    commands = trace.command_count()
    summary = (
        f'Redis: <strong data-round-trips="{len(trace.round_trips)}">{screen} round trip{_plural(screen)}</strong>'
        f" for this screen{f', +{session} for the session' if session else ''} · "
        f"{commands} command{_plural(commands)}, {_ms(trace.ms())} ms"
    )
    nodes = trace.per_node()
    if nodes:
        counted = ", ".join(
            f'<span class="node" data-node="{escape(node)}" data-round-trips="{count}">{escape(node)} ×{count}</span>'
            for node, count in nodes.items()
        )
        summary += f' · <span class="per-node">round trips per node: {counted}</span>'
    behind_link = f"{url('keybrowser:behind')}?t={behind.token(trace, path)}"
    swap = ' hx-swap-oob="true"' if oob else ""
    return SafeString(  # safe: numbers, a signed token, and commands_html, which escapes
        f'<section id="redis-panel" class="redis-panel"{swap} aria-label="Redis commands of this page">'
        f'<details><summary>{summary}</summary><ol class="round-trips">{commands_html(trace)}</ol></details>'
        f'<a class="keys-behind" href="{escape(behind_link)}">keys behind this screen</a></section>'
    )


def commands_html(trace: Trace) -> SafeString:
    """The ``<li>`` of every round trip with its commands; the keys link to the key browser.

    Every piece of text is escaped here (``escape``), so marking the joined
    result safe marks nothing that came from Redis unescaped.
    """
    if not trace.round_trips:
        return SafeString('<li class="empty">No Redis commands on this page.</li>')
    hidden = tuple(p.decode() for p in hidden_prefixes())
    key_link = url("keybrowser:browse") + "?key="
    parts: list[str] = []
    add = parts.append
    budget = LISTED
    for trip in trace.round_trips:
        count = len(trip.commands)
        head = f"{trip.kind} · {count} command{_plural(count)} · {_ms(trip.ms)} ms"
        if trip.origin == "django":
            head += " · session/cache"
        if trip.node:
            head += f" · node {trip.node}"
        add(f'<li class="trip trip-{escape(trip.origin)}"><span class="trip-head">{escape(head)}')
        if trip.error:
            add(f' · <strong class="error">{escape(trip.error)}</strong>')
        add("</span><ul>")
        listed = trip.commands[:budget]
        budget -= len(listed)
        for command in listed:
            add(f"<li><code>{escape(command.name)}</code>")
            for text, key in zip(command.args, command.arg_keys):
                if key.startswith(hidden) or text.startswith(hidden):
                    add(f' <span class="arg">{HIDDEN}</span>')
                elif not key:
                    add(f' <span class="arg">{escape(text)}</span>')
                elif len(key) > NAME_SHOWN:
                    size = len(key.encode())
                    add(f' <span class="arg">{escape(text)} <span class="muted">({size} bytes)</span></span>')
                else:
                    add(f' <a href="{key_link}{quote(key, safe="")}">{escape(text)}</a>')
            add("</li>")
        if len(listed) < count:
            add(f'<li class="muted">{count - len(listed)} more not listed here: see the keys behind this screen</li>')
        add("</ul></li>")
    return SafeString("".join(parts))  # safe: every piece above is escaped
