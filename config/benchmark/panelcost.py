"""What the Redis panel costs a page, at a few commands and at thousands.

Every page ends with the panel, built from the page's trace. Its cost must not
grow with the commands listed (the goal: under 0.3 ms whatever their number),
so it is timed here over traces of 10, 100 and 5,000 commands, as a page
sends them: the session's GET, then the screen's commands in one pipeline,
each naming its own key.
"""

from __future__ import annotations

import gc
import time

from django.urls import set_script_prefix

from config.benchmark.registry import Extra
from config.benchmark.runner import Timing
from config.keybrowser import panel
from config.trace import Command, RoundTrip, Trace

SIZES = (10, 100, 5_000)
GOAL_MS = 0.3
BATCH = 20  # traces recorded ahead of their panels


def trace_of(count: int) -> Trace:
    """A page's trace: the session's GET, then ``count`` commands on ``count`` keys in one pipeline."""
    session = [Command.of((b"GET", b"django:sessions:cache0123456789"))]
    commands = [Command.of((b"HMGET", f"catalog:product:{n}".encode(), b"name", b"price")) for n in range(count)]
    return Trace([RoundTrip(session, 0.1, "django", "command"), RoundTrip(commands, 0.4, "data", "pipeline")])


def measure(runs: int) -> list[Extra]:
    """The panel's median time over ``runs`` builds, for each size. Each build gets a trace of its own,
    recorded beforehand as the client records it while the page runs: what the panel works out from
    the commands (their keys, on demand) is counted as a page pays it, not found done by a run before."""
    set_script_prefix("/")
    found = []
    for count in SIZES:
        timing = Timing()
        panel.panel_html(trace_of(count), "/catalog/products/")  # warm: the links are reversed once per process
        for done in range(0, runs, BATCH):
            traces = [trace_of(count) for _ in range(min(BATCH, runs - done))]
            gc.collect()  # the garbage of building them is the benchmark's, not the panel's
            for trace in traces:
                started = time.perf_counter()
                panel.panel_html(trace, "/catalog/products/")
                timing.samples.append(time.perf_counter() - started)
        found.append(Extra(f"panel:{count}", f"Redis panel of a page with {count:,} commands", timing.median_ms))
    return found


def goal(extras: list[dict]) -> str | None:
    """The goal's line, from the report's extras; None when the panel was not measured."""
    timed = [x for x in extras if x["key"].startswith("panel:")]
    if not timed:
        return None
    worst = max(x["ms"] for x in timed)
    verdict = "met" if worst <= GOAL_MS else "not met"
    return f"- the Redis panel under {GOAL_MS:g} ms whatever the number of commands: {verdict} (at most {worst:.3f} ms)"
