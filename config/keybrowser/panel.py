"""The Redis panel at the foot of every page, built in Python.

Every page pays for its panel, so the page gets only the summary (round trips,
commands, time) and the signed token of its trace (``behind.token``), whose
size and cost are bounded whatever the page sent. The command list is built
from that token when the panel is opened (htmx, ``keybrowser:behind_commands``):
each argument escaped once, each key linked to the key browser, a session or
cache key masked, and a key name too long to carry in a link shown cut, with
its length, and not linked.

On a Redis Cluster the summary also counts the round trips per node, and each
round trip names its node; on one server nothing of that shows.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from django.utils.safestring import SafeString

from config.keybrowser import behind
from config.trace import Trace
from config.urlpaths import path_of, paths_of

LISTED = behind.MAX_COMMANDS  # commands listed in the panel at most; "keys behind this screen" has the keys


def _ms(value: float) -> str:
    return f"{value:.2f}"


def _plural(count: int) -> str:
    return "" if count == 1 else "s"


def panel_html(trace: Trace, path: str = "", oob: bool = False) -> SafeString:
    """The panel: a summary of the round trips and the link to their keys. The command list is
    loaded from the same signed token when the panel is opened, so a page pays for the summary
    and one signing, never for listing its commands. Round trips are counted as the page waits for
    them: on a cluster a pipeline's round trips to several nodes go out together and count once
    (``Trace.wave_count``); the round trips per node follow."""
    screen, session = trace.wave_count("data"), trace.wave_count("django")
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
    query = escape(f"?t={behind.token(trace, path)}")
    links = paths_of("keybrowser:behind_commands", "keybrowser:behind")
    swap = ' hx-swap-oob="true"' if oob else ""
    return SafeString(  # safe: numbers, escaped node names, and a signed token, escaped
        f'<section id="redis-panel" class="redis-panel"{swap} aria-label="Redis commands of this page">'
        f'<details hx-get="{links["behind_commands"]}{query}" hx-trigger="toggle once" '
        f'hx-target="find .round-trips" hx-swap="innerHTML"><summary>{summary}</summary>'
        f'<ol class="round-trips"><li class="muted">Loading the commands…</li></ol></details>'
        f'<a class="keys-behind" href="{links["behind"]}{query}">keys behind this screen</a></section>'
    )


def commands_html(screen: behind.Behind) -> SafeString:
    """The ``<li>`` of every round trip in a page's token with its commands; the keys link to the key browser.

    Every piece of text is escaped here (``escape``), so marking the joined
    result safe marks nothing that came from Redis unescaped.
    """
    if not screen.trips:
        return SafeString('<li class="empty">No Redis commands on this page.</li>')
    key_link = path_of("keybrowser:browse") + "?key="
    parts: list[str] = []
    add = parts.append
    for trip in screen.trips:
        count = len(trip.commands)
        head = f"{trip.kind} · {trip.count} command{_plural(trip.count)} · {_ms(trip.ms)} ms"
        if trip.origin == "django":
            head += " · session/cache"
        if trip.node:
            head += f" · node {trip.node}"
        add(f'<li class="trip trip-{escape(trip.origin)}"><span class="trip-head">{escape(head)}')
        if trip.error:
            add(f' · <strong class="error">{escape(trip.error)}</strong>')
        add("</span><ul>")
        for command in trip.commands:
            add(f"<li><code>{escape(command.name)}</code>")
            for text, key in command.args:
                if key:
                    add(f' <a href="{key_link}{quote(key, safe="")}">{escape(text)}</a>')
                else:
                    add(f' <span class="arg">{escape(text)}</span>')
            add("</li>")
        if count < trip.count:
            add(f'<li class="muted">{trip.count - count} more not listed here: see the keys behind this screen</li>')
        add("</ul></li>")
    return SafeString("".join(parts))  # safe: every piece above is escaped
