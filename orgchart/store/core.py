"""What every part of the graph store shares: limits, the script runner (its Lua in ``lua/*.lua``),
name-index paging and the summary rows screens show.

Writes are server-side scripts (``config.store.scripts``), one round trip each, atomic, with no WATCH loop. Every
key a script can name in advance is passed in KEYS: the object written, the other end of the edge
being set, the indexes, the event stream. The exception is the keys a script reaches by following
an edge it reads from a document: the manager fields up the chain of command, the members of a
report or staff set. Their names are built in the script from the prefixes ``keys.graph_prefixes``
passes in ARGV, never hard-coded. On Redis Cluster the org chart's graph keys would all carry one
hash tag (one slot), so such a walk stays on one node; every walk is bounded (by the depth of the
tree going up, by ``conf.walk_budget()`` people going down).
"""

from __future__ import annotations

from config.activity import Actor
from config.redis import client
from config.store import EditConflict
from config.store.scripts import execute, load, lua, outcome, queue_script, register, run_script
from config.store.sorting import queue_sort
from orgchart import conf, keys
from orgchart.documents import Employee, fold

APP = "orgchart"
MAX_DEPTH = 10  # the deepest ``REPORTS_TO*N`` a screen asks for
NODE_LIMIT = 100  # children shown per tree node, reports shown per depth
_LEX_END = "\U0010ffff"


class Script:
    """A graph script, called with the key prefixes and the event's arguments ahead of its own
    (``config.store.scripts`` sends it)."""

    registry: list[Script] = []

    def __init__(self, *names: str):
        """``names``: its ``lua/*.lua`` files, joined after the key prefixes: the shared ``prelude`` first
        where the body calls it (the server builds each function anew on every call, so a walk that calls
        none goes without)."""
        self.source = register(lua(__file__, "prefixes", *names))
        Script.registry.append(self)

    def __call__(self, keys_: list[str], args: list, actor: Actor | None = None, link: str = ""):
        return run_script(self.source, keys_, self._argv(args, actor, link))

    def read(self, keys_: list[str], args: list) -> list:
        """Run a read alone (no event arguments): one script call costs the client less than a pipeline of one."""
        return run_script(self.source, keys_, [*keys.graph_prefixes(), 0, "", "", *args])

    def queue(self, pipe, keys_: list[str], args: list, actor: Actor | None = None, link: str = "") -> None:
        """Queue a call on a plain pipeline: a read, or with ``actor`` a write and its event.
        A write queued beside other commands is safe to send again only if a NOSCRIPT stopped it."""
        argv = self._argv(args, actor, link) if actor else [*keys.graph_prefixes(), 0, "", "", *args]
        queue_script(pipe, self.source, keys_, argv)

    @staticmethod
    def _argv(args: list, actor: Actor | None, link: str) -> list:
        return [*keys.graph_prefixes(), conf.events_maxlen(), actor.name if actor else "", link, *args]


class Flat:
    """A script's reply read front to back. Every read script answers one flat array of values:
    Redis 6.2 sends each nested table of a Lua reply to the socket by a write() of its own, and
    the client reads them by as many recv() calls, where a flat array goes out in one."""

    def __init__(self, reply: list):
        self.reply, self.at = reply, 0

    def one(self):
        value = self.reply[self.at]
        self.at += 1
        return value

    def take(self, count: int) -> list:
        part = self.reply[self.at : self.at + count]
        self.at += count
        return part

    def list(self) -> list:
        """A list the script put with ``put_list``: its length, then its items."""
        return self.take(self.one())

    def rows(self) -> list[Employee]:
        """Rows the script put with ``put_rows``: their count, then each id and summary fields."""
        return sorted_rows(self.take(self.one() * (1 + len(Employee.SUMMARY_FIELDS))))

    def hash(self) -> dict:
        """A hash the script put with ``put_list`` (HGETALL's field, value pairs)."""
        flat = self.list()
        return dict(zip(flat[::2], flat[1::2]))


def load_scripts() -> None:
    """SCRIPT LOAD every graph script: one round trip (a wave to every primary of a cluster), so a later
    call never pays a NOSCRIPT."""
    load(*(script.source for script in Script.registry))


def written(reply: list, document=None, pk: int | None = None) -> list:
    """The payload of a write script's ``ok`` reply; any other reply raises its store error
    (``config.store.scripts.outcome``). A ``conflict`` carries the stored hash, made here the
    ``document`` (``Employee`` or ``Location``) that the conflict page sets beside the form."""
    try:
        return outcome(reply)
    except EditConflict as conflict:
        flat = conflict.current
        conflict.current = document.from_hash(pk, dict(zip(flat[::2], flat[1::2])))
        raise


def events_key() -> str:
    """The activity stream every write appends its event to, in the write's own script."""
    return keys.EVENTS


def pipeline():
    return client().pipeline(transaction=False)


def member(name: str, pk: int) -> str:
    return f"{fold(name)}\0{pk}"


def member_id(entry: str) -> int:
    return int(entry.rsplit("\0", 1)[1])


def summaries(pks, rows) -> list[Employee]:
    return [Employee.from_summary(int(pk), row) for pk, row in zip(pks, rows) if row and row[0] is not None]


def by_name(employee: Employee) -> str:
    return fold(employee.name)


def search_range(q: str) -> tuple[str, str]:
    if not q:
        return "-", "+"
    return "[" + fold(q), "[" + fold(q) + _LEX_END


NAME_PAGE = Script("prelude", "name_page")


def name_page(index: str, state, rows: str) -> tuple[int, list]:
    """The count matching ``state.q`` (a prefix) and one page of a lexical name index, each row's
    fields read in the same script (``rows``: 'employee' or 'location'), flat: one round trip."""
    low, high = search_range(state.q)
    pipe = pipeline()
    args = [low, high, state.offset, state.per_page, "1" if state.descending else "0", rows]
    NAME_PAGE.queue(pipe, [index], args)
    reply = execute(pipe)[0]
    return reply[0], reply[1:]


def queue_sorted_children(pipe, set_key: str, offset: int = 0, count: int = NODE_LIMIT) -> None:
    """One command for the fields of up to ``count`` members of an id set, in name order."""
    get = ["#"] + [f"{keys.employee_pattern()}->{name}" for name in Employee.SUMMARY_FIELDS]
    queue_sort(pipe, set_key, start=offset, num=count, by=f"{keys.employee_pattern()}->name", get=get, alpha=True)


def sorted_rows(reply) -> list[Employee]:
    width = 1 + len(Employee.SUMMARY_FIELDS)
    rows = [reply[i : i + width] for i in range(0, len(reply), width)]
    return [Employee.from_summary(int(row[0]), row[1:]) for row in rows if row[1] is not None]
