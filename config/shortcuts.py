"""View helpers shared by every app."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.http import Http404

from config.store import NotFound

T = TypeVar("T")


def or_404(read: Callable[..., T | None], *args, **kwargs) -> T:
    """``read(*args, **kwargs)``, or a 404 when it finds nothing (``None`` or ``NotFound``): an
    unknown id never reaches another key and never becomes a 500."""
    try:
        found = read(*args, **kwargs)
    except NotFound:
        found = None
    if found is None:
        raise Http404("No such object.")
    return found
