"""The site's own URLs, reversed once per process.

``reverse()`` walks the URL patterns each time it is called, and
every page links to a few fixed screens. A URL depends only on its name, its
arguments, the URL configuration and the script prefix, so each is worked out
once for the configuration in force (a test that overrides ``ROOT_URLCONF`` or
the script prefix gets its own) and kept. Working out which configuration is in
force has a cost of its own, so a caller that needs several paths asks
for them together (``paths_of``).
"""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

__all__ = ["path_of", "paths_of"]


def _where() -> tuple:
    """What a reversed URL depends on besides its name and arguments."""
    return settings.ROOT_URLCONF, get_urlconf(), get_script_prefix()


@lru_cache(maxsize=8192)
def _reversed(name: str, args: tuple, where: tuple) -> str:
    return reverse(name, args=args)


@lru_cache(maxsize=256)
def _reversed_all(names: tuple[str, ...], where: tuple) -> dict[str, str]:
    return {name.rpartition(":")[2]: _reversed(name, (), where) for name in names}


def path_of(name: str, *args: str | int) -> str:
    """``reverse(name, args=args)``, worked out once per configuration. ``args`` are ids and slugs:
    a URL per object is kept too, up to the cache's bound."""
    return _reversed(name, args, _where())


def paths_of(*names: str) -> dict[str, str]:
    """The paths of screens that take no argument, by URL name without its namespace
    (``catalog:product_add`` is ``product_add``): one look-up of the configuration for all of them.
    The dict is shared: read it, never change it."""
    return _reversed_all(names, _where())
