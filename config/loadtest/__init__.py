"""The load test's machinery: scenarios registered per app, HTTP clients, the ledger of writes.

An app's ``loadtest.py`` registers one scenario class, autodiscovered like ``seeds``:

    @scenario("cms", weight=3)
    class Posts(Scenario):
        def setup(self): ...           # once per client, after sign-in: find sample ids
        def step(self): ...            # one user action: GET pages, POST forms

A step talks to the server only through ``self.http`` (a signed-in client with
its own session and CSRF token) and records each acknowledged write with
``self.ledger.ack(key, what, check)``: ``check()`` runs after the load,
against Redis through the app's store, and is true when the write is there. A
later write of the same ``key`` (a delete after an add) replaces the earlier
expectation, so the ledger holds what the final state must show.

``manage.py loadtest`` runs them against gunicorn on loopback, on a scratch
Redis of its own. The package, by concern: ``forms`` (a page's forms),
``http`` (the signed-in clients and what they measured), ``ledger`` (the
acknowledged writes), ``scenarios`` (the registry and the core scenario),
``report`` (options and the report) and ``run`` (one run, start to end).
"""

from config.loadtest.forms import Form, forms, post_forms
from config.loadtest.http import UNAVAILABLE_MARKERS, Failed, Faults, Http, Response, Sample, Stats, Unavailable
from config.loadtest.ledger import Expectation, Ledger
from config.loadtest.report import FaultReport, Options, Report, comparison, percentile
from config.loadtest.run import LoadTest, free_port
from config.loadtest.scenarios import Dashboard, Registry, Scenario, ids_in, registry, scenario, text_of

__all__ = [
    "UNAVAILABLE_MARKERS", "Dashboard", "Expectation", "Failed", "FaultReport", "Faults", "Form", "Http", "Ledger",
    "LoadTest", "Options", "Registry", "Report", "Response", "Sample", "Scenario", "Stats", "Unavailable", "comparison",
    "forms", "free_port", "ids_in", "percentile", "post_forms", "registry", "scenario", "text_of",
]  # fmt: skip
