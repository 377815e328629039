"""Key names of the cross-cutting pieces: staff activity, sign-in limits, seeding.

Each key is declared once, on the function that builds it (``keyspace.declarer``). Django's own
cache and session keys live under ``django:`` (the cache's KEY_PREFIX), the domain apps under their
own prefixes, so a key's owner shows in its name.

The sign-in keys share the hash tag ``{signins}``: a sign-in's script and transactions touch several
of them at once, which on a Redis Cluster must be in one slot (docs/cluster.md).
"""

import hashlib
import re

from config.keyspace import keyspace, register, register_app

APP = "core"
PREFIX = "core:"
register_app(APP, PREFIX)
register_app("django", "django:")
key = keyspace.declarer(APP)

_USERNAME = re.compile(r"^[\w.@+-]{1,150}\Z")

SIGNINS = "core:{signins}:"  # the sign-in keys' prefix, with their hash tag
FAILURE_WINDOWS = SIGNINS + "window:"  # the failed sign-in windows, per username and per address


@key(
    "list",
    "Login system (the Redis login-system tutorial): capped list",
    "The latest successful staff sign-ins, newest first (LPUSH + LTRIM).",
    why="A list keeps insertion order, so the newest N are an LRANGE from the left. LTRIM in the same "
    "transaction keeps it bounded whatever the traffic.",
    screens=("dashboard",),
)
def signins_recent() -> str:
    return SIGNINS + "recent"


@key(
    "zset",
    "Login system (the Redis login-system tutorial): counter ranking",
    "Sign-ins per staff member; the dashboard's most active staff (ZINCRBY, ZREVRANGE).",
    why="A sorted set is a counter and a ranking at once: ZINCRBY bumps one user, ZREVRANGE reads the top "
    "without any index to maintain.",
    screens=("dashboard",),
)
def signins_count() -> str:
    return SIGNINS + "count"


@key(
    "list",
    "Login system (the Redis login-system tutorial): capped list",
    "The latest failed sign-ins (username tried, address, refused or locked), newest first; "
    "administrators see them on the dashboard.",
    why="The same capped list as the successful sign-ins: LPUSH + LTRIM in the failure's own script.",
    screens=("dashboard",),
)
def signins_failed() -> str:
    return SIGNINS + "failed"


_EVENT_TAGS: list[str] = []  # every stream's hash tag, in the order registered


def register_event_stream(tag: str) -> str:
    """Declare (and name) the activity stream of the slot group ``tag`` (an app, a catalog partition):
    the dashboard merges every stream registered here, known without a SCAN."""
    if tag not in _EVENT_TAGS:
        _EVENT_TAGS.append(tag)
    return events(tag)


def event_streams() -> list[str]:
    """Every registered activity stream's key."""
    return [events(tag) for tag in _EVENT_TAGS]


@key(
    "stream",
    "Event log: capped stream",
    "Every write of one slot group (an app, a catalog partition): who, what, which object, link; "
    "capped with XADD MAXLEN. The dashboard merges the newest of every group's stream.",
    why="A stream is an append-only log with ids ordered by time, read newest first with XREVRANGE. "
    "MAXLEN on each XADD keeps it bounded, in the same transaction as the write it records. "
    "One stream per slot group, tagged like the keys its writes touch, keeps each write inside one "
    "hash slot on a Redis Cluster (docs/cluster.md); the merge costs a few entries per stream.",
    screens=("dashboard",),
    pattern="core:{*}:events",
)
def events(tag: str) -> str:
    """The activity stream of the slot group ``tag``: the hash tag of the keys its writes touch."""
    return f"core:{{{tag}}}:events"


SIGNIN_EVENTS = register_event_stream("signins")  # lock-outs, written by the failed sign-in's script


@key(
    "hash",
    "Marker",
    "What `manage.py seed` last loaded (scale, apps, when); `make run` seeds only when it is absent.",
    screens=("dashboard",),
)
def seed_marker() -> str:
    return "core:seed"


@key(
    "zset",
    "Sliding-window rate limit (the key-value design notes)",
    "Failed sign-ins for one username from one client address in the last window, scored by time.",
    scores="time",
    why="Scores are timestamps, so ZREMRANGEBYSCORE drops what left the window and ZCARD counts the rest. "
    "Counting a username per address means a stranger's guesses lock out nobody but the stranger, "
    "and one person's typos nobody else. The key expires with its window, so idle users leave nothing behind.",
    screens=("login",),
    pattern=FAILURE_WINDOWS + "user:*:*",
)
def failed_signins_user(username: str, address: str) -> str:
    """A username is user input: it becomes part of a key only when it has the shape of a
    Django username (no colon), else its digest stands in for it. ``address`` is checked by
    ``ipaddress``; an IPv6 address's colons become dashes, so the key keeps its segments."""
    name = username.casefold()
    if not _USERNAME.match(name):
        name = "sha256-" + hashlib.sha256(username.encode()).hexdigest()[:24]
    return f"{FAILURE_WINDOWS}user:{name}:{address.replace(':', '-')}"


@key(
    "zset",
    "Sliding-window rate limit (the key-value design notes)",
    "Failed sign-ins from one client address in the last window, whatever the username, scored by time.",
    scores="time",
    why="The same window per address, with a higher limit (colleagues may share an address), stops one "
    "client from trying many usernames. It expires with its window.",
    screens=("login",),
)
def failed_signins_address(address: str) -> str:
    """``address`` is an IP address already checked by ``ipaddress``."""
    return f"{FAILURE_WINDOWS}addr:{address}"


@key(
    "string",
    "Idempotency token (SET NX)",
    "One add form's one-time token: empty while its save runs, then the app, entity and id it "
    "created; a second post of the same form is shown that object instead of making another.",
    why="SET NX claims the token atomically, so of two posts of one form (a double click, Back and Save) "
    "exactly one saves; the key expires after a day, by when no page still holds the form.",
    screens=("every add form",),
)
def form_token(token: str) -> str:
    """``token`` is checked by the form (``config.saving.ONCE_PATTERN``) before it names a key."""
    return f"core:once:{token}"


# Django's own keys: named by django-redis (config/cachekeys.py), registered here so the
# key browser can name their owner.
register(
    "django",
    "django:*:session:*",
    "string",
    "Session (django-redis cache backend)",
    "A signed-in user's session, named after a SHA-256 digest of the session id, never the id itself.",
    why="Sessions are opaque pickled strings with a TTL, under the cache KEY_PREFIX so they never mix with "
    "domain keys. The digest keeps session ids, which are sign-in cookies, out of every key listing.",
)
register(
    "django",
    "django:*:*",
    "string",
    "Cache entry (django-redis)",
    "Django's cache, under the KEY_PREFIX `django` and the cache version.",
)
