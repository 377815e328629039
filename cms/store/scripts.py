"""The server-side scripts of the post writes (``lua/*.lua``): each checks and writes in one round trip.

A script is the one atomic step of its write: it reads what decides the
write (the version, the current author, the comment set), refuses with a
reply that says why and writes nothing, or writes the post, its revision,
its index entries and its event together. No key name is built inside Lua:
the store passes each key it touches, so the scripts would run on a cluster
whose keys share a slot, and a script never reaches a key it was not given.
"""

from __future__ import annotations

from config.store.scripts import load, lua, register

SAVE = register(lua(__file__, "save"))  # save an edit, or restore a revision as a new version
DELETE = register(lua(__file__, "delete"))  # a post with everything that refers to it, if still as read
HISTORY = register(lua(__file__, "history"))  # the history page's fields and one page of revisions
SET_STATUS = register(lua(__file__, "set_status"))  # publish or unpublish many posts at once


def load_scripts() -> None:
    """Load every script into the server's cache now, so the first write pays no extra round trip."""
    load(SAVE, DELETE, HISTORY)
