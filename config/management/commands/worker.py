"""The background worker of the Import / export jobs: django_tasks_db's ``db_worker``, which
``manage.py serve`` starts beside the web server, with what the jobs need around it.

- At its start, a job left running by a worker that died (SIGKILL, a crash) is marked failed
  and the import it interrupted is rolled back (``config.exchange.jobs.reap``).
- While it runs, a housekeeping thread says it lives on each job it runs, reaps the jobs of other
  workers that died and removes the uploads nobody confirmed (``jobs.sweep``).
- SIGTERM or SIGINT stop the running job at once, as Ctrl-C stops ``import_data`` (an import
  rolls back), rather than after it: an import may run for minutes, and ``serve`` stops
  everything within seconds. A job cut short by a SIGKILL after that is reaped at the next start.
"""

from __future__ import annotations

import logging
import os
import signal
import threading

from django.db import close_old_connections
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker

from config.exchange import jobs

HOUSEKEEPING_SECONDS = 5  # between two heartbeats; well within EXCHANGE_WORKER_SILENCE
log = logging.getLogger("config.exchange.jobs")


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGINT arrived while a job ran: raised in it, so it stops and cleans up."""


class Worker(db_worker.Worker):
    def shutdown(self, signum, frame) -> None:
        if not self.running or not self.running_task:
            super().shutdown(signum, frame)  # idle, or the second signal: the library's exit
            return
        self.running = False
        raise Interrupted(f"stopped by {signal.strsignal(signum)}")


def housekeeping(stop: threading.Event, worker: str) -> None:
    """Every ``HOUSEKEEPING_SECONDS``: this worker's heartbeat, other workers' dead jobs reaped,
    unconfirmed uploads swept. An error (the database locked a moment) waits for the next round."""
    while not stop.wait(HOUSEKEEPING_SECONDS):
        try:
            jobs.heartbeat(worker)
            jobs.reap()
            jobs.sweep()
        except Exception:
            log.exception("worker housekeeping")
        finally:
            close_old_connections()


class Command(db_worker.Command):
    help = (
        "Run the background jobs of the Import / export screens (checks, imports, exports): "
        "django_tasks_db's db_worker, recovering a dead worker's job at its start and sweeping unconfirmed "
        "uploads. `manage.py serve` starts one beside the web server."
    )

    def handle(self, *, verbosity, queue_name, interval, batch, backend_name, startup_delay, reload, max_tasks,
               worker_id, exclude_queues, **options) -> None:  # fmt: skip
        self.configure_logging(verbosity)
        worker = Worker(
            queue_names=queue_name.split(","),
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=exclude_queues.split(",") if exclude_queues else [],
        )
        if reload and not batch:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()  # the reloaded child runs the jobs; its parent only watches
            run_with_reloader(self.run, worker)
        else:
            worker.configure_signals()
            self.run(worker)

    def run(self, worker: Worker) -> None:
        for job in jobs.reap():
            self.stdout.write(f"Job {job.pk} ({job.kind} of {job.app}) had lost its worker: marked failed.")
        jobs.sweep()
        self.stdout.flush()
        close_old_connections()
        stop = threading.Event()
        keeper = threading.Thread(target=housekeeping, args=(stop, jobs.worker_id()), daemon=True)
        keeper.start()
        try:
            worker.run()
        finally:
            stop.set()
