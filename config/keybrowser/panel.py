"""The Redis panel at the foot of every page (``includes/redis_panel.html``).

Every page pays for its panel, so the page gets only the summary (round trips, commands, time,
on a cluster per node) and the signed token of its trace (``behind.token``), bounded whatever
the page sent. The command list is rendered from that token when the panel is opened (htmx,
``keybrowser:behind_commands``): each key linked to the key browser, a session or cache key
masked, a name too long for a link shown cut, with its length, and not linked.
"""

from __future__ import annotations

from django.template.loader import render_to_string

from config.keybrowser import behind
from config.trace import Trace

LISTED = behind.MAX_COMMANDS  # commands listed in the panel at most; "keys behind this screen" has the keys


def panel_html(trace: Trace, path: str = "", oob: bool = False) -> str:
    """The panel: a summary of the round trips and the link to their keys. Round trips are counted
    as the page waits for them: a cluster pipeline's to several nodes count once (``wave_count``)."""
    context = {
        "round_trips": len(trace.round_trips),
        "screen": trace.wave_count("data"),
        "session": trace.wave_count("django"),
        "commands": trace.command_count(),
        "ms": trace.ms(),
        "nodes": trace.per_node(),
        "token": behind.token(trace, path),
        "oob": oob,
    }
    return render_to_string("includes/redis_panel.html", context)


def commands_html(screen: behind.Behind) -> str:
    """The ``<li>`` of every round trip in a page's token with its commands; the keys link to the key browser."""
    return render_to_string("keybrowser/_commands.html", {"screen": screen})
