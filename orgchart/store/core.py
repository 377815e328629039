"""What every part of the graph store shares: limits, the script runner and its Lua prelude,
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
from config.store.scripts import execute, load, outcome, queue_script, register, run_script
from config.store.sorting import queue_sort
from orgchart import conf, keys
from orgchart.documents import Employee, fold

APP = "orgchart"
MAX_DEPTH = 10  # the deepest ``REPORTS_TO*N`` a screen asks for
NODE_LIMIT = 100  # children shown per tree node, reports shown per depth
_LEX_END = "\U0010ffff"

# Shared by every script. ARGV[1..4] are the key-name pieces of keys.graph_prefixes(); ARGV[5..7]
# the event's stream cap, actor and link; a script's own arguments start at ARGV[8].
# The key prefixes every script is sent (``keys.graph_prefixes``): all a script that only walks needs.
PREFIXES = """
local E, RS, L, SS = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
"""
PRELUDE = (
    PREFIXES
    + """local function emp(id) return E .. id end
local function reports(id) return E .. id .. RS end
local function staff(id) return L .. id .. SS end
local SUMMARY = {'name', 'title', 'location', 'location_name', 'manager', 'full_time', 'direct', 'total'}
local function summary(id) return redis.call('HMGET', E .. id, unpack(SUMMARY)) end
-- Replies are flat arrays (see ``Flat``): a row is its id then its summary fields, a list its
-- length then its items.
local function put_row(out, id)
  out[#out + 1] = id
  local row = summary(id)
  for i = 1, #SUMMARY do out[#out + 1] = row[i] end
end
local function put_rows(out, ids, limit)
  local n = math.min(#ids, limit or #ids)
  out[#out + 1] = n
  for i = 1, n do put_row(out, ids[i]) end
end
local function put_list(out, list)
  out[#out + 1] = #list
  for i = 1, #list do out[#out + 1] = list[i] end
end
local function event(stream, verb, entity, id, label, link)
  redis.call('XADD', stream, 'MAXLEN', ARGV[5], '*', 'actor', ARGV[6], 'verb', verb, 'app', 'orgchart',
    'entity', entity, 'object_id', id, 'label', label, 'link', link)
end
-- Write scripts answer as every store's do (``config.store.scripts.outcome``, decoded by ``written``).
local function refuse(field, message) return {'refused', field, message} end
local function missing(message) return {'missing', message} end
local function conflict(key) return {'conflict', unpack(redis.call('HGETALL', key))} end
-- SADD/SREM of many members, a thousand at a time (Lua's unpack has a stack limit).
local function each_chunk(members, call)
  for i = 1, #members, 1000 do call({unpack(members, i, math.min(i + 999, #members))}) end
end
"""
)


class Script:
    """A graph script: the shared prelude and its body, called with the key prefixes and the event's
    arguments ahead of its own (``config.store.scripts`` sends it)."""

    registry: list[Script] = []

    def __init__(self, body: str, prelude: str = PRELUDE):
        """``prelude``: the shared functions the body calls. A script that calls none of them (the subtree
        walk) takes ``PREFIXES`` alone: the server builds each function anew on every call."""
        self.source = register(prelude + body)
        Script.registry.append(self)

    def __call__(self, keys_: list[str], args: list, actor: Actor | None = None, link: str = ""):
        return run_script(self.source, keys_, self._argv(args, actor, link))

    def read(self, keys_: list[str], args: list) -> list:
        """Run a read alone: one script call costs the client less than a pipeline of one. No event
        arguments."""
        return run_script(self.source, keys_, [*keys.graph_prefixes(), 0, "", "", *args])

    def queue(self, pipe, keys_: list[str], args: list, actor: Actor | None = None, link: str = "") -> None:
        """Queue a call on a plain pipeline (see ``run``): a read, or with ``actor`` a write and its event.
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


# KEYS: a lexical name index (``folded name\0id`` members). ARGV: low, high (ZRANGEBYLEX bounds),
# offset, count, '1' for descending, what each row reads: 'employee' (the summary fields) or
# 'location' (the name and the head count). Flat: the count in range, then one page of rows (id
# and fields each): the list's index and its rows in one round trip. The range's first member's rank
# (all share score 0) turns the page into a range of ranks: ZRANGEBYLEX … LIMIT offset would step over
# every member before the page, a deep page of a large org tens of thousands of them in one command.
NAME_PAGE = Script(
    """
local low, high, offset, count = ARGV[8], ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
local total = redis.call('ZLEXCOUNT', KEYS[1], low, high)
local members = {}
if total > offset and count > 0 then
  local first = 0
  if low ~= '-' then
    first = redis.call('ZRANK', KEYS[1], redis.call('ZRANGEBYLEX', KEYS[1], low, high, 'LIMIT', 0, 1)[1])
  end
  local last = first + total - 1
  if ARGV[12] == '1' then
    members = redis.call('ZRANGE', KEYS[1], math.max(last - offset - count + 1, first), last - offset)
    for i = 1, math.floor(#members / 2) do
      members[i], members[#members + 1 - i] = members[#members + 1 - i], members[i]
    end
  else
    members = redis.call('ZRANGE', KEYS[1], first + offset, math.min(first + offset + count, last + 1) - 1)
  end
end
local out, nul = {total}, string.char(0)
for _, entry in ipairs(members) do
  local id = string.sub(entry, string.find(entry, nul, 1, true) + 1)
  if ARGV[13] == 'employee' then
    put_row(out, id)
  else
    out[#out + 1] = id
    out[#out + 1] = redis.call('HGET', L .. id, 'name')
    out[#out + 1] = redis.call('SCARD', staff(id))
  end
end
return out
"""
)


def name_page(index: str, state, rows: str) -> tuple[int, list]:
    """The count matching ``state.q`` (a prefix) and one page of a lexical name index, flat: each
    row its id then its fields, read in the same script (``rows``: 'employee', the summary fields,
    or 'location', the name and head count): one round trip."""
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
