"""The context processor behind the layout's banner for an interrupted import: the apps whose
import must be recovered, worked out only when a page shows it (a look at the journal's files,
no Redis round trip)."""

from django.utils.functional import SimpleLazyObject

from config.exchange import journal


def interrupted_imports(request) -> dict:
    return {"interrupted_imports": SimpleLazyObject(journal.interrupted)}
