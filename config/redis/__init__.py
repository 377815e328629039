"""The one place that builds Redis clients (with ``REDIS_URL`` unset, of the embedded server).

``client()`` decodes replies to ``str`` for the domain code, ``raw_client()`` keeps bytes for the key
browser, which must show binary values safely; both traced (``config.trace``). ``redis+cluster://host:port``
(``rediss+cluster://`` with TLS) names a Redis Cluster by any one of its nodes: the clients, and Django's
cache and sessions (``DjangoConnectionFactory``), are then redis-py's ``RedisCluster``. See docs/cluster.md.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import redis
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django_redis.pool import ConnectionFactory
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from config.embedded import embedded_url
from config.redis.cluster import DjangoTracedRedisCluster, TracedRedisCluster
from config.redis.traced import TracedRedis

# Query parameters that carry a credential in a Redis URL (redis-py reads
# ``password`` and ``username`` from the query too, also of a unix socket URL).
_SECRET_PARAMS = {"password", "pass", "passwd", "pwd", "auth", "secret", "token", "requirepass"}


def redacted(url: str) -> str:
    """The URL without its password in any spelling, safe to show; one that cannot be parsed is hidden."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        parts.port  # noqa: B018  (raises on a malformed port)
    except ValueError:
        return "(hidden)"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0] if ":" in userinfo else userinfo
        # A lone "x@" is a username to redis-py, yet often a password written by mistake.
        netloc = (f"{user}:***@" if ":" in userinfo else "***@") + host
    masked = [(k, "***" if k.lower() in _SECRET_PARAMS else v) for k, v in query]
    shown = f"{parts.scheme}://{netloc}{parts.path}"
    return f"{shown}?{urlencode(masked, safe='*/:')}" if masked else shown


CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://`` or ``rediss+cluster://``)."""
    return url.partition("://")[0].lower() in CLUSTER_SCHEMES


def node_url(url: str) -> str:
    """A cluster URL as redis-py reads it: the scheme without ``+cluster``."""
    scheme, sep, rest = url.partition("://")
    return f"{CLUSTER_SCHEMES.get(scheme.lower(), scheme)}{sep}{rest}"


# Connection errors and MOVED replies before the client reads the slot map again. At redis-py's 5, a
# transaction's one retry after a failover went back to the dead primary: 503 pages once the cluster was
# whole again. At 1 the first error reads the map and the retry goes to the new primary.
REINITIALIZE_STEPS = 1


def _cluster_client(url: str, cls: type[TracedRedisCluster], decode: bool, **options) -> TracedRedisCluster:
    return cls.from_url(node_url(url), decode_responses=decode, reinitialize_steps=REINITIALIZE_STEPS, **options)


class DjangoConnectionFactory(ConnectionFactory):
    """django-redis's connection factory, building one traced RedisCluster for a cluster URL."""

    def connect(self, url: str):
        if not is_cluster_url(url):
            return super().connect(url)
        timeout = self.options.get("SOCKET_TIMEOUT") or settings.REDIS_SOCKET_TIMEOUT
        connect_timeout = self.options.get("SOCKET_CONNECT_TIMEOUT") or settings.REDIS_CONNECT_TIMEOUT
        return _shared(
            ("django", url, timeout, connect_timeout),
            lambda: _cluster_client(
                url,
                DjangoTracedRedisCluster,
                False,
                **{**_connection_options(), "socket_timeout": timeout, "socket_connect_timeout": connect_timeout},
            ),
        )

    def disconnect(self, connection) -> None:
        if isinstance(connection, RedisCluster):
            return  # shared by every request; reset_clients closes it
        super().disconnect(connection)


def connection_retry() -> Retry:
    """One quick retry, for every client: a dropped connection is re-opened at once, a dead server is a
    503 page fast. Never on a timeout: the server may have run the command, a write would apply twice."""
    return Retry(ExponentialBackoff(cap=0.05, base=0.01), 1, supported_errors=(redis.ConnectionError,))


def _connection_options() -> dict:
    # A slow server fails the request within REDIS_SOCKET_TIMEOUT.
    return {
        "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
        "socket_connect_timeout": settings.REDIS_CONNECT_TIMEOUT,
        "retry": connection_retry(),
        "health_check_interval": 30,
    }


_built: dict[object, TracedRedis | TracedRedisCluster] = {}
_build_lock = threading.Lock()


def _shared(kind, build):
    """One client per kind for the process, built once even when threads ask together: a spare one's
    ``Redis.__del__`` would close the pool a pipeline still uses ("Bad file descriptor")."""
    built = _built.get(kind)
    if built is None:
        with _build_lock:
            built = _built.get(kind)
            if built is None:
                built = build()
                _built[kind] = built
    return built


def _client(decode: bool) -> TracedRedis | TracedRedisCluster:
    url = settings.REDIS_URL
    if is_cluster_url(url):
        return _shared(decode, lambda: _cluster_client(url, TracedRedisCluster, decode, **_connection_options()))
    return _shared(decode, lambda: TracedRedis.from_url(url, decode_responses=decode, **_connection_options()))


def client() -> TracedRedis | TracedRedisCluster:
    """The domain client: replies decoded to ``str``."""
    return _client(True)


def raw_client() -> TracedRedis | TracedRedisCluster:
    """Replies as bytes, for showing binary values without breaking."""
    return _client(False)


def on_cluster() -> bool:
    """Whether the clients talk to a Redis Cluster."""
    return is_cluster_url(settings.REDIS_URL)


def scan_beside(key: str, cursor: int, match: str, count: int, _type: str = "") -> tuple[int, list]:
    """One SCAN step over the keys of ``key``'s node: a cursor over an app whose keys share its hash tag."""
    redis_client = client()
    if not isinstance(redis_client, RedisCluster):
        cursor, found = redis_client.scan(cursor, match=match, count=count, _type=_type or None)  # not TYPE ''
        return int(cursor), found
    args = ["SCAN", cursor, "MATCH", match, "COUNT", count] + (["TYPE", _type] if _type else [])
    ((cursor, found),) = redis_client.on_nodes([(redis_client.get_node_from_key(key), tuple(args))])
    return int(cursor), found


def reset_clients() -> None:
    with _build_lock:
        for built in _built.values():
            built.close()
        _built.clear()


def is_dev_server() -> bool:
    """Whether the clients point at the development data under ``var/``."""
    dev_url = embedded_url(Path(settings.VAR_DIR) / "redis")
    return dev_url == settings.REDIS_URL or os.environ.get("REDIS_URL") == settings.REDIS_URL


@receiver(setting_changed)
def _rebuild_on_url_change(setting, **kwargs):
    if setting in {"REDIS_URL", "REDIS_SOCKET_TIMEOUT", "REDIS_CONNECT_TIMEOUT"}:
        reset_clients()
