"""A large org built fast, and what one move or read of it costs at the server.

The org chart's scale check (``manage.py orgchart_scale``) and its tests build an org here
through the store's bulk import, then count what an operation makes the server do: the commands
it runs (scripts included) and the longest single command (SLOWLOG). Counting, not timing, is
what the tests compare at two sizes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from config.activity import Actor
from orgchart import store
from orgchart.documents import fold
from orgchart.importing import OrgData, Person
from orgchart.store import measure

ACTOR = Actor("scale")


def build(people: int, tops: int = 4, branching: tuple[int, int] = (2, 5), seed: int = 7) -> OrgData:
    """One chief, ``tops`` vice presidents under them, then each level filled with 2 to 5 reports
    per person until ``people``: each vice president heads about a quarter of the org."""
    rng = random.Random(seed)
    data = OrgData()
    data.people["p0"] = Person("P0", "Chief")
    level = []
    for i in range(1, min(tops, people - 1) + 1):
        data.people[f"p{i}"] = Person(f"P{i}", "Vice President", "p0")
        level.append(f"p{i}")
    count = len(data.people)
    while count < people:
        below = []
        for boss in level:
            for _ in range(rng.randint(*branching)):
                if count >= people:
                    break
                name = f"P{count}"
                data.people[fold(name)] = Person(name, "Engineer", boss)
                below.append(fold(name))
                count += 1
        level = below
    return data


def chain(depth: int, below: int, prefix: str = "c") -> OrgData:
    """A chain of ``depth`` managers, the last with ``below`` people under one head: the same
    depth whatever the size of the subtree, for counting a move at two sizes."""
    data = OrgData()
    boss = None
    for i in range(depth):
        name = f"{prefix}{i}"
        data.people[name] = Person(name.upper(), manager=boss)
        boss = name
    head = f"{prefix}head"
    data.people[head] = Person(head.upper(), manager=boss)
    for i in range(below - 1):
        data.people[f"{prefix}r{i}"] = Person(f"{prefix.upper()}R{i}", manager=head if i < 10 else f"{prefix}r{i % 10}")
    return data


def load(data: OrgData) -> dict[str, int]:
    """Import ``data`` by the bulk path; its ids by folded name."""
    done = store.import_graph(data, actor=ACTOR, atomic=False)
    return {folded: done.first_employee + i for i, folded in enumerate(data.people)}


@dataclass(frozen=True)
class Cost:
    commands: int  # commands the server ran, those inside scripts included
    longest_us: int  # the longest single command, from SLOWLOG (0: none over its threshold)
    longest: str  # its name
    median_us: int  # the median of the commands SLOWLOG logged


def cost(operation) -> tuple[object, Cost]:
    """Run ``operation()`` and count what it made the server do."""
    restore = measure.slowlog_start()
    before = measure.commands_run()
    result = operation()
    commands = measure.commands_run() - before
    return result, Cost(commands, *measure.slowlog_longest(restore))


def deepest(ids: dict[str, int], data: OrgData, under: str) -> int:
    """The deepest person below ``under`` (by folded name): where a move's walks are longest."""
    best, best_depth = under, 0
    for folded in data.people:
        depth, cur = 0, folded
        while cur is not None and cur != under:
            cur = data.people[cur].manager
            depth += 1
        if cur == under and depth > best_depth:
            best, best_depth = folded, depth
    return ids[best]
