"""The CMS's tunable defaults, read from Django settings (a deployment or a test may change them)."""

from functools import partial

from django.conf import settings

DEFAULTS = {
    # Revisions kept per post (0 keeps every one): the oldest beyond it go in the save's own script. It
    # bounds a post's size, and so its line in an export (config.exchange.files.MAX_LINE).
    "CMS_REVISIONS_KEPT": 100,
    "CMS_DIFF_BUDGET": 100_000,  # comparisons one field's diff may make before it shows changed blocks whole
}


def get(name: str) -> int:
    return int(getattr(settings, name, DEFAULTS[name]) or 0)


revisions_kept = partial(get, "CMS_REVISIONS_KEPT")  # 0 keeps all
diff_budget = partial(get, "CMS_DIFF_BUDGET")  # see cms/diff.py
