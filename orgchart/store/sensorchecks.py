"""The sensors' data as the integrity check reads and repairs it: every bucket found by one SCAN,
each rollup beside what the level below gives, the owners of the sensor data, the retention's TTLs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from config.redis import client, raw_client, scan_beside
from orgchart import keys
from orgchart.store.sensors import decode_bucket, retention


def sensor_index() -> dict[str, dict[int, list[str]]]:
    """Every sensor key by kind ("raw", "hour", "day", "month", "latest") and location: one SCAN of
    them all (for the integrity check, which reads each kind of each location)."""
    found: dict[str, dict[int, list[str]]] = {kind: {} for kind in ("raw", "hour", "day", "month", "latest")}
    for key in client().scan_iter(match=keys.sensor_pattern(), count=1000):
        found[keys.sensor_kind(key)].setdefault(keys.sensor_location(key), []).append(key)
    return found


def raw_buckets(chunk: int = 500, index: dict[str, dict[int, list[str]]] | None = None):
    """(location, hour start, samples) of every raw bucket: SCAN (or ``index``'s, from ``sensor_index``),
    then GETs pipelined by ``chunk`` (for the integrity check)."""
    named = (index or sensor_index())["raw"]
    found = [
        (place, datetime.strptime(key.rsplit(":", 1)[1], "%Y%m%d%H").replace(tzinfo=UTC), key)
        for place, names in named.items()
        for key in names
    ]
    for i in range(0, len(found), chunk):
        pipe = raw_client().pipeline(transaction=False)
        for _, _, key in found[i : i + chunk]:
            pipe.get(key)
        for (place, hour, _), data in zip(found[i : i + chunk], pipe.execute()):
            yield place, hour, decode_bucket(int(hour.timestamp()), data)


def location_keys(location: int, glob: str) -> list[str]:
    """The keys matching ``glob`` among one location's sensor data: SCAN of the node serving its slot
    only (on a cluster the other primaries cannot hold them)."""
    found, cursor, anchor = [], 0, keys.temp_latest(location)
    while True:
        cursor, page = scan_beside(anchor, cursor, glob, 1000)
        found += page
        if not cursor:
            return found


def rollups_of(found: list[str]) -> dict[str, dict[str, str]]:
    """The rollup hashes named (one period of one location, from ``sensor_index``), by stamp."""
    pipe = client().pipeline(transaction=False)
    for key in found:
        pipe.hgetall(key)
    values = pipe.execute() if found else []
    return {key.rsplit(":", 1)[1]: value for key, value in zip(found, values)}


@dataclass(frozen=True)
class SensorOwners:
    """Which locations the stored sensor data belongs to (for the integrity check)."""

    latest: dict[int, dict[str, str]]  # location -> its latest hash (a tombstone: {'deleted': …})
    with_buckets: set[int]  # the locations with any bucket or rollup
    existing: set[int]  # those of all of them whose location hash exists


def sensor_owners() -> SensorOwners:
    """Every sensor's latest hash and whether its location exists, read in one pipelined round trip
    after the SCAN of ``sensor_index``."""
    index = sensor_index()
    latest_names = {place: names[0] for place, names in index["latest"].items()}
    with_buckets = {place for kind in ("raw", "hour", "day", "month") for place in index[kind]}
    places = sorted(set(latest_names) | with_buckets)
    pipe = client().pipeline(transaction=False)
    for place in places:
        pipe.exists(keys.location(place))
    for place in latest_names:
        pipe.hgetall(latest_names[place])
    replies = pipe.execute() if places else []
    existing = {place for place, found in zip(places, replies) if found}
    latest = dict(zip(latest_names, replies[len(places) :]))
    return SensorOwners(latest, with_buckets, existing)


def clear_tombstone(location: int) -> None:
    """Let a location's sensor take readings again (repair: its location exists)."""
    client().hdel(keys.temp_latest(location), "deleted")


_EXPIRING = ("raw", "hour", "day")


def buckets_without_ttl() -> list[tuple[str, str]]:
    """(key, period) of every raw bucket or hourly/daily rollup with no TTL (retention not enforced)."""
    found = []
    for period in _EXPIRING + (("month",) if retention().month else ()):
        pattern = keys.temp_raw("*", "*") if period == "raw" else keys.temp_rollup("*", period, "*")
        keys_ = list(client().scan_iter(match=pattern, count=1000))
        pipe = client().pipeline(transaction=False)
        for key in keys_:
            pipe.ttl(key)
        found += [(key, period) for key, ttl in zip(keys_, pipe.execute() if keys_ else []) if ttl == -1]
    return found


def expire_buckets(found: list[tuple[str, str]]) -> None:
    ttl = retention()
    pipe = client().pipeline(transaction=False)
    for key, period in found:
        pipe.expire(key, getattr(ttl, period))
    pipe.execute()


def rewrite_rollups(location: int, period: str, rows: dict[str, tuple[int, int, int, int]]) -> None:
    """Repair: overwrite rollups of one period from what the level below gives, in one transaction."""
    ttl = {"hour": retention().hour, "day": retention().day, "month": retention().month}[period]
    pipe = client().pipeline(transaction=True)
    for stamp, (count, total, low, high) in rows.items():
        key = keys.temp_rollup(location, period, stamp)
        pipe.delete(key)
        pipe.hset(key, mapping={"count": count, "sum": total, "min": low, "max": high})
        if ttl:
            pipe.expire(key, ttl)
    pipe.execute()
