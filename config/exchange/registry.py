"""Every app's exchange format (its ``exchange.py``), and whether each app holds data."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module

from django.apps import apps
from django.utils.module_loading import module_has_submodule

from config.exchange import store
from config.exchange.spec import AppExchange


def exchanges() -> dict[str, AppExchange]:
    """Every app's format, from its ``exchange.py`` (``EXCHANGE``), in INSTALLED_APPS order."""
    found = {}
    for config in apps.get_app_configs():
        if module_has_submodule(config.module, "exchange"):
            described = getattr(import_module(f"{config.name}.exchange"), "EXCHANGE", None)
            if isinstance(described, AppExchange):
                found[described.app] = described
    return found


def holding(described: Iterable[AppExchange]) -> list[bool]:
    """Whether each app holds data: whether any of its id counters exists (every document draws its id
    from one; only clearing the app removes them), without a SCAN of every key of the server."""
    return store.any_exists([d.every_counter_key() for d in described])


def exchange_of(app: str) -> AppExchange:
    found = exchanges()
    if app not in found:
        raise KeyError(f"no exchange format for {app!r}; known: {', '.join(found)}")
    return found[app]
