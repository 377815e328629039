"""No command holds Redis: every page under SLOWLOG, beside keys of other owners
(``manage.py benchmark --slowlog N``).

Redis runs one command at a time, so one that walks a large structure makes every other client
wait. A scratch redis-server (never the development data) is seeded at the chosen scale through
the apps' seeders, N string keys of no app (``other:{n}``) are added by pipeline, and
``slowlog-log-slower-than`` is set to the bound. Then, as an administrator with Django's test
client, the memory walk of ``/keys/memory/`` is run afresh (its "measure again") and every GET
page reachable from the sidebar's screens by their links is fetched, a few of each URL shape:
SLOWLOG RESET before each, SLOWLOG GET after it. The report names every page that left an entry,
and on how many of its fetches (``crawl``), the server running first in line (``first_in_line``).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections import Counter, deque
from html import unescape
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from django.urls import Resolver404, resolve, reverse

BOUND_US = 2_000  # a command over this holds Redis too long
PER_SHAPE = 3  # pages fetched of each URL shape
MAX_PAGES = 1_000
FETCHES = 5  # of a page that left an entry, at most
WALKS = 3  # memory walks
BATCH = 10_000
LOG_LEN = 100_000  # SLOWLOG entries kept: a memory walk's over WALK_US, a page's at any threshold
WALK_US = 100  # the memory walk's threshold: its longest command is reported whatever it is
SIDEBAR = ("dashboard", "catalog:product_list", "school:course_list", "cms:post_list", "orgchart:employee_list",
           "keybrowser:browse", "keybrowser:memory", "keybrowser:server", "exchange:index")  # fmt: skip
SEARCHED = ("a", "ph", "pro")  # what each search box is given: a common letter, short prefixes
SEARCH_BOX = re.compile(r'<input[^>]*\bname="q"[^>]*>')
LEFT_OUT = ("/admin/", "/accounts/", "/static/", "/healthz")  # not the dashboard's Redis pages
LINK = re.compile(r'\b(?:href|hx-get)="([^"#]*)')
HREF = re.compile(r'\bhref="([^"#]*)')
OURS = {"SLOWLOG", "CONFIG"}  # the crawl's own commands
CHOICES = {"o"}  # the query parameter whose value picks another index to read (either direction)


def add_foreign(count: int) -> None:
    """``count`` small strings no app owns, ``other:{n}``, pipelined."""
    from config.redis import raw_client

    redis = raw_client()
    for start in range(0, count, BATCH):
        pipe = redis.pipeline(transaction=False)
        for n in range(start, min(start + BATCH, count)):
            pipe.set(f"other:{n}", b"x")
        pipe.execute()


def seed(scale: str, only: tuple[str, ...] = ()) -> int:
    """Every app's data at ``scale`` (or ``only`` those apps'), through its seeder (as ``manage.py seed``);
    records written."""
    from config import seeding

    return sum(s.run(seeding.context(s.app, scale)) for s in seeding.registry.ordered(only or None))


def said(args: list) -> str:
    """An entry's command as the report names it: its name and arguments, a script's keys and arguments
    after its digest or the first line of its source (SLOWLOG keeps 32 arguments of 128 bytes at most)."""
    words = [a.decode("utf-8", "replace") if isinstance(a, bytes) else str(a) for a in args]
    name = words[0].upper()
    if name == "EVAL":
        words = [name, words[1].strip().splitlines()[0], *words[3:]]
    elif name == "EVALSHA":
        words = [name, *words[3:]]
    return " ".join(words)


def short(text: str, most: int = 70) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def logged(redis) -> list[tuple[float, str]]:
    """SLOWLOG's entries since its last reset, the crawl's own left out: (ms, command), longest first.
    Read raw (each argument apart, not joined by spaces as redis-py's ``slowlog_get`` does)."""
    entries = [(e[2] / 1000, said(e[3])) for e in redis.execute_command("SLOWLOG", "GET", LOG_LEN)]
    return sorted(((ms, c) for ms, c in entries if c.split(" ")[0] not in OURS), reverse=True)


def shape(url: str) -> str:
    """A URL's shape: its route (ids and slugs as their converters) and its query's parameter names,
    with the value of a sort or type choice, which picks another index to read."""
    parts = urlsplit(url)
    try:
        route = resolve(parts.path).route
    except Resolver404:
        route = parts.path
    query = parse_qsl(parts.query, keep_blank_values=True)
    names = sorted({f"{k}={v.lstrip('-')}" if k in CHOICES else k for k, v in query})
    return route + ("?" + "&".join(names) if names else "")


def links(url: str, html: str) -> list[tuple[str, bool]]:
    """The page's GET links to the dashboard's own Redis pages, in document order, then its search box's
    target (an autocomplete's, or the page's own) given each of ``SEARCHED``; each with whether only
    htmx asks for it (an ``hx-get`` no plain link names): the crawl then asks as htmx does."""
    path = urlsplit(url).path
    found = [unescape(raw) for raw in LINK.findall(html)]
    plain = {urlsplit(unescape(raw)).path for raw in HREF.findall(html)}
    for box in SEARCH_BOX.findall(html):
        target = unescape(re.search(r'hx-get="([^"]*)"', box).group(1)) if "hx-get=" in box else path
        found += [f"{target or path}?q={term}" for term in SEARCHED]
    kept = []
    for target in found:
        target = path + target if target.startswith("?") else target
        parts = urlsplit(target)
        if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith(LEFT_OUT):
            continue
        if not parts.path.endswith(".zip"):  # a whole app's export: a job's work, not a page
            kept.append((target, parts.path not in plain and parts.path != path))
    return kept


def served(browser, redis, url: str, htmx: bool = False):
    """One fetch of ``url`` (``htmx``: as htmx asks for a fragment): its response, its body and SLOWLOG's
    entries meanwhile."""
    redis.slowlog_reset()
    response = browser.get(url, secure=True, headers={"HX-Request": "true"} if htmx else {})
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response, body, logged(redis)


def crawl(
    browser, redis, per_shape=PER_SHAPE, limit=MAX_PAGES, fetches=FETCHES, bound_us=BOUND_US, progress=print
) -> list[dict]:
    """Breadth first from the sidebar's screens: each page once, at most ``per_shape`` of a shape, ``limit``
    in all, SLOWLOG at ``bound_us``. A page that left an entry is fetched again, with every command logged,
    while each fetch's longest is over the bound, ``fetches`` times at most: SLOWLOG times a command by the
    clock, so on a busy machine one preempted mid-command is logged too, and the next fetch shows what the
    same commands take; one slow by itself is over the bound on every fetch. ``worst``: each fetch's longest
    command, in ms."""
    start = [reverse(name) for name in SIDEBAR]
    queue, seen, shapes, pages = deque((url, False) for url in start), set(start), Counter(), []
    while queue and len(pages) < limit:
        url, htmx = queue.popleft()
        kind = shape(url)
        if shapes[kind] >= per_shape and url not in start:
            continue
        shapes[kind] += 1
        response, body, entries = served(browser, redis, url, htmx)
        worst = [entries[0][0] if entries else 0.0]
        if entries:
            redis.config_set("slowlog-log-slower-than", 0)
            while min(worst) * 1000 >= bound_us and len(worst) < fetches:  # SLOWLOG logs at the bound too
                again = served(browser, redis, url, htmx)[2]
                worst.append(again[0][0] if again else 0.0)
            redis.config_set("slowlog-log-slower-than", bound_us)
        pages.append({"url": url, "shape": kind, "status": response.status_code, "entries": entries, "worst": worst})
        if len(pages) % 50 == 0:
            progress(f"{len(pages)} pages crawled, {len(queue)} links waiting")
        if response.status_code == 200 and "html" in response.get("Content-Type", ""):
            for link, by_htmx in links(url, body.decode("utf-8", "replace")):
                if link not in seen:
                    seen.add(link)
                    queue.append((link, by_htmx))
    return pages


def memory_walk(browser, redis, walks: int = WALKS) -> dict:
    """``/keys/memory/``'s walk run afresh (its "measure again" button) ``walks`` times: the commands one
    sent (INFO commandstats) and its longest (SLOWLOG at ``WALK_US``), the least of the walks'."""
    redis.config_set("slowlog-log-slower-than", WALK_US)
    times: dict[str, list[float]] = {}
    for walk in range(walks):
        redis.slowlog_reset()
        before = _served(redis)
        started = time.perf_counter()
        response = browser.post(reverse("keybrowser:memory"), secure=True)
        seconds = time.perf_counter() - started
        commands = _served(redis) - before - 1  # the INFO reading before
        if response.status_code != 302:
            raise AssertionError(f"measuring /keys/memory/ answered {response.status_code}")
        for ms, command in logged(redis):
            each = times.setdefault(command, [0.0] * walks)
            each[walk] = max(ms, each[walk])
    ms, command = max(((min(each), c) for c, each in times.items()), default=(0.0, ""))
    each_walk = [max((each[n] for each in times.values()), default=0.0) for n in range(walks)]
    return {"commands": commands, "seconds": seconds, "longest_ms": ms, "longest": command, "walks": each_walk}


def _served(redis) -> int:
    return sum(int(stats["calls"]) for stats in redis.info("commandstats").values())


def sweep(browser, redis, threshold_us: int = BOUND_US, progress=print, **crawling) -> dict:
    """The memory walks, then the crawl at ``threshold_us`` (``crawling``: ``crawl``'s bounds), on
    whatever Redis the clients point at; SLOWLOG's settings put back afterwards."""
    old = redis.config_get("slowlog-*")
    redis.config_set("slowlog-max-len", LOG_LEN)
    try:
        walk = memory_walk(browser, redis, crawling.pop("walks", WALKS))
        redis.config_set("slowlog-log-slower-than", threshold_us)
        pages = crawl(browser, redis, bound_us=threshold_us, progress=progress, **crawling)
    finally:
        for name, value in old.items():
            redis.config_set(name, value)
        redis.slowlog_reset()
    return {"threshold_ms": threshold_us / 1000, "memory_walk": walk, "pages": pages}


def first_in_line(pid: int) -> int:
    """The server's threads at nice -20 for the sweep, where the system allows it; the nice value they run
    at. SLOWLOG times a command by the clock: on a machine whose CPUs other processes keep busy, a server
    at the default priority waits for its turn mid-command, and a 1 ms command is logged at several. First
    in line, it runs a command through, as a server with a CPU of its own would; it is idle between the
    crawl's requests, so others lose little."""
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            os.setpriority(os.PRIO_PROCESS, int(task.name), -20)
    except (PermissionError, FileNotFoundError, ProcessLookupError):
        return 0
    return -20


def measure(scale: str, foreign: int, progress=print, only: tuple[str, ...] = ()) -> dict:
    """A scratch server seeded at ``scale`` (``only`` some apps) with ``foreign`` keys of no app, swept."""
    from django.utils import timezone

    from config.benchmark import placement
    from config.benchmark.pages import signed_in_client
    from config.benchmark.suite import scratch_database, scratch_redis
    from config.redis import raw_client

    with tempfile.TemporaryDirectory(prefix="rdash-slowlog-") as tmp, scratch_redis(Path(tmp)) as server:
        started = time.perf_counter()
        progress(f"seeding {', '.join(only) or 'every app'} at {scale} scale")
        records = seed(scale, only)
        progress(f"adding {foreign:,} keys of no app")
        add_foreign(foreign)
        redis = raw_client()
        seconds = time.perf_counter() - started
        loaded = {"records": records, "foreign": foreign, "dbsize": redis.dbsize(), "load_seconds": seconds}
        with scratch_database(), placement.client_pinned() as servers:  # client and server apart, as in the suite
            placement.pin_server(server.pid(), servers)
            loaded["server_nice"] = first_in_line(server.pid())
            result = sweep(signed_in_client(), redis, progress=progress)
    command = f"python manage.py benchmark --slowlog {foreign} --scale {scale}" + "".join(f" --only {a}" for a in only)
    return {"command": command, "scale": scale, "only": list(only),
            "at": timezone.now().strftime("%Y-%m-%d %H:%M UTC"), **loaded, **result}  # fmt: skip


def text(figures: dict) -> list[str]:
    """The report: what was crawled, the memory walk, and each page that left an entry over the bound."""
    pages, bound, walk = figures["pages"], figures["threshold_ms"], figures["memory_walk"]
    failed = ", ".join(f"{p['url']} {p['status']}" for p in pages if p["status"] >= 400)
    held = [p for p in pages if min(p["worst"]) >= bound]
    lines = [
        f"`{figures['command']}` ({figures['at']}): {figures['dbsize']:,} keys, {figures['foreign']:,} of them "
        f"of no app; SLOWLOG threshold {bound:g} ms; the server at nice {figures.get('server_nice', 0)}.",
        f"Crawled {len(pages)} pages of {len({p['shape'] for p in pages})} URL shapes as an administrator"
        + (f"; an error answered: {failed}." if failed else "."),
        f"/keys/memory/ measured afresh {len(walk['walks'])} times: {walk['commands']:,} commands in "
        f"{walk['seconds']:.1f} s a walk; the longest in every walk {walk['longest_ms']:.2f} ms "
        f"(`{short(walk['longest'] or '-')}`); the longest of each walk "
        + ", ".join(f"{ms:.2f}" for ms in walk["walks"])
        + " ms.",
        f"Pages with a command over {bound:g} ms on every fetch: {len(held)}.",
    ]
    over = [p for p in pages if p["entries"]]
    if over:
        lines += ["", "| page | fetches over the bound | longest command (first fetch) | longest ms, each fetch |",
                  "|---|---|---|---|"]  # fmt: skip
    for p in sorted(over, key=lambda p: (-min(p["worst"]), -p["worst"][0])):
        url = p["url"] if len(p["url"]) <= 60 else p["url"][:59] + "…"
        over_bound = f"{sum(1 for ms in p['worst'] if ms >= bound)} of {len(p['worst'])}"
        each = ", ".join(f"{ms:.2f}" for ms in p["worst"])
        lines.append(f"| `{url}` | {over_bound} | `{short(p['entries'][0][1])}` | {each} |")
    return lines
