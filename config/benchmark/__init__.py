"""The benchmark: each modeling pattern against the e-book's normalized SQL schema, side by side.

Each app's ``benchmark.py`` registers a ``Part`` (``registry``): its records,
how they load into Redis (through the app's store) and into the normalized
tables, its questions and its pages. ``suite`` starts the scratch servers (a
Redis, a PostgreSQL cluster, a SQLite file), loads every part, has
``runner`` check that every side answers alike and then time the sides
interleaved request by request; ``pages`` times whole pages beside a plain
view sending the same round trips; ``seeding`` sets the load rate beside
``redis-benchmark``; ``report`` prints it all; ``keybrowser`` measures the
key browser on a million keys.
"""

from config.benchmark.registry import Extra, Load, Operation, Part, part, registry

__all__ = ["Extra", "Load", "Operation", "Part", "part", "registry"]
