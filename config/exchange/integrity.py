"""``check_integrity`` reports an interrupted import: until recovered, the app holds neither dataset."""

from django.apps import apps
from django.utils.module_loading import module_has_submodule

from config.exchange import journal
from config.invariants import Violation, invariant


def _check(app: str):
    def check():
        if app in journal.interrupted():
            step = journal.Journal(app).step()
            yield Violation(
                f"an import of {app} was interrupted ({step}): its data is neither the old nor the new; "
                f"run `python manage.py import_data --recover {app}`",
                [],
            )

    return check


for config in apps.get_app_configs():
    if config.name != "config" and module_has_submodule(config.module, "exchange"):  # config.exchange is this
        invariant(config.label, "no interrupted import")(_check(config.label))
