"""The layout's banner for an interrupted import: the apps to recover, worked out only when shown."""

from django.utils.functional import SimpleLazyObject

from config.exchange import journal


def interrupted_imports(request) -> dict:
    return {"interrupted_imports": SimpleLazyObject(journal.interrupted)}
