"""One run: a scratch Redis, gunicorn on loopback, the clients, the faults, then the verification."""

from __future__ import annotations

import http.client
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import suppress

from config.loadtest.http import Failed, Faults, Http, Stats, Unavailable
from config.loadtest.ledger import Ledger
from config.loadtest.report import FaultReport, Options, Report, percentile
from config.loadtest.scenarios import registry


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ScratchCluster:
    """The load test's Redis as a 3-primary loopback cluster with a replica each (``--cluster``).

    Its fault is one primary killed (``kill``): not the one the URL names, so a client built
    afterwards (the verification's) still finds the cluster through it."""

    def __init__(self, data_dir):
        from config.cluster import LocalCluster

        self.cluster = LocalCluster(primaries=3, replicas=1, data_dir=data_dir)

    @property
    def url(self) -> str:
        return self.cluster.url

    def ensure_running(self) -> None:
        if not self.cluster.nodes:
            self.cluster.start()

    def kill(self) -> None:
        self.cluster.primary_nodes[1].kill()

    def wait_taken_over(self, timeout: float) -> None:
        """Until a replica serves the killed primary's slots and every live node says the cluster is ok."""
        self.cluster.wait_healthy(timeout)

    def stop(self) -> None:
        self.cluster.stop()


class LoadTest:
    """One run. Everything it starts (Redis, gunicorn) lives in a temporary directory and dies with it."""

    HOST = "127.0.0.1"  # loopback only, whatever the options say

    def __init__(self, options: Options, log: Callable[[str], None] = print):
        self.options, self.log = options, log
        self.faults = Faults()
        self.fault_reports: list[FaultReport] = []
        self.kill_at: float | None = None
        self.ledgers: list[Ledger] = []
        self.clients: dict[int, tuple] = {}  # worker -> (its Http, rng, ready scenarios), kept across ramp steps

    def run(self) -> Report:
        import shutil
        import tempfile
        from pathlib import Path

        from config.embedded import EmbeddedRedis

        self.dir = Path(tempfile.mkdtemp(prefix="rdash-load-"))
        if self.options.cluster:
            self.redis = ScratchCluster(self.dir / "cluster")
        else:
            self.redis = EmbeddedRedis(self.dir / "redis", self.options.appendfsync)
        self.server = None
        try:
            self.redis.ensure_running()
            self.port = self.options.port or free_port()
            env = self._env()
            sessions = self._prepare(env)
            self._start_server(env)
            from django.test import override_settings

            self.ledgers = [Ledger() for _ in sessions]
            with override_settings(REDIS_URL=self.redis.url):  # for the scenarios' direct store writes
                report = self._ramp(sessions) if self.options.ramp else self._tally(*self._drive(sessions))
            self._stop_server()
            log = (self.dir / "gunicorn.log").read_text(errors="replace")
            report.server_tracebacks = log.count("Traceback")
            if report.server_tracebacks:
                first = log.index("Traceback")
                report.server_log = log[max(0, log.rfind("\n", 0, max(0, first - 200))) : first + 4000]
            self._verify(report)
            return report
        finally:
            self._stop_server()
            self.redis.stop()
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- setting up

    def _env(self) -> dict[str, str]:
        import os
        import secrets

        env = {k: v for k, v in os.environ.items() if k not in {"REDIS_TEST_URL", "DJANGO_SETTINGS_MODULE"}}
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            REDIS_URL=self.redis.url,
            DATABASE_URL=f"sqlite:///{self.dir / 'db.sqlite3'}",
            VAR_DIR=str(self.dir),
            SECRET_KEY=secrets.token_urlsafe(50),
            DEBUG="0",
            ALLOWED_HOSTS=self.HOST,
            # Plain HTTP on loopback: the cookies cannot be Secure-only, nothing redirects to https.
            SESSION_COOKIE_SECURE="0",
            CSRF_COOKIE_SECURE="0",
            SECURE_SSL_REDIRECT="0",
            SECURE_HSTS_SECONDS="0",
        )
        return env

    def _prepare(self, env: dict[str, str]) -> list[tuple[str, str]]:
        """Migrate, seed and sign in the staff users, in a child process on the scratch databases."""
        import json
        import subprocess
        import sys

        from django.conf import settings

        out = self.dir / "sessions.json"
        command = [sys.executable, "manage.py", "loadtest", "--prepare", str(out)]
        command += ["--clients", str(self.options.clients), "--scale", self.options.scale]
        self.log(f"seeding ({self.options.scale}) and signing in {self.options.clients} staff users")
        done = subprocess.run(command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode:
            raise RuntimeError(f"preparing the scratch data failed:\n{done.stdout}\n{done.stderr}")
        return [tuple(pair) for pair in json.loads(out.read_text())]

    def _start_server(self, env: dict[str, str]) -> None:
        import subprocess
        import sys

        from django.conf import settings

        o = self.options
        command = [
            sys.executable, "-m", "gunicorn", "config.wsgi:application",
            "--bind", f"{self.HOST}:{self.port}",
            "--worker-class", "gthread", "--workers", str(o.workers), "--threads", str(o.threads),
            "--timeout", "60", "--graceful-timeout", "5", "--keep-alive", "30",
        ]  # fmt: skip
        self.log(f"starting gunicorn on {self.HOST}:{self.port}")
        self.server_log = open(self.dir / "gunicorn.log", "w")  # noqa: SIM115  (closed in _stop_server)
        self.server = subprocess.Popen(
            command, cwd=settings.BASE_DIR, env=env, stdout=self.server_log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{(self.dir / 'gunicorn.log').read_text()[-3000:]}")
            try:
                probe = http.client.HTTPConnection(self.HOST, self.port, timeout=2)
                probe.request("GET", "/healthz", headers={"Host": f"{self.HOST}:{self.port}"})
                if probe.getresponse().status == 200:
                    probe.close()
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("gunicorn did not answer /healthz within 60 s")

    def _stop_server(self) -> None:
        import subprocess

        if self.server is None:
            return
        if self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(15)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.server_log.close()
        self.server = None

    # -- the load

    def _ramp(self, sessions: list[tuple[str, str]]) -> Report:
        """1, 2, 4 ... clients, each step ``seconds`` long: the requests per second each step served and its p95,
        and the most any step served within the p95 target. The same clients go on from step to step."""
        steps, count = [], 1
        while count < len(sessions):
            steps.append(count)
            count *= 2
        steps.append(len(sessions))
        # Every user is set up before the first step, as in a plain run: a user joining later would find
        # objects that the others made meanwhile and may delete.
        setup_stats = [Stats() for _ in sessions]
        for n, session in enumerate(sessions):
            self._setup(n, session, setup_stats[n])
        every_stats, first, total, done = [], None, 0.0, []
        for count in steps:
            stats, ledgers, start, elapsed = self._drive(sessions[:count])
            step = self._tally(stats, ledgers, start, elapsed)
            done.append((count, step.throughput(), 1000 * percentile(step.latencies, 0.95)))
            self.log(f"  {count} clients: {done[-1][1]:.1f} req/s, p95 {done[-1][2]:.1f} ms")
            every_stats += stats
            first = start if first is None else first
            total += elapsed
        for stats in setup_stats:  # a setup's errors are the run's too (its requests are not timed)
            every_stats.append(Stats(errors=stats.errors))
        report = self._tally(every_stats, self.ledgers, first, total)
        report.steps = done
        return report

    def _setup(self, n: int, session: tuple[str, str], stats: Stats) -> None:
        """Client ``n``'s user: its HTTP client and its scenarios, each set up (finding what to work on)."""
        http_ = Http(self.HOST, self.port, session, stats, self.faults)
        rng = random.Random(f"loadtest:{n}")
        users = []
        for user in [cls(http_, self.ledgers[n], rng, n) for _, cls in sorted(registry.scenarios.items())]:
            http_.app = user.app
            if _attempt(http_, user.setup) == "ok":
                users.append(user)  # a scenario whose setup failed (an error already) takes no steps
        self.clients[n] = (http_, rng, users)

    def _drive(self, sessions: list[tuple[str, str]]) -> tuple[list[Stats], list[Ledger], float, float]:
        o = self.options
        stats = [Stats() for _ in sessions]
        ledgers = self.ledgers[: len(sessions)]
        start = [0.0]
        # The clock starts as the last client is ready, before any of them takes a step.
        ready = threading.Barrier(len(sessions) + 1, action=lambda: start.__setitem__(0, time.monotonic()))
        stop = threading.Event()

        def client(n: int) -> None:
            try:
                if n not in self.clients:
                    self._setup(n, sessions[n], stats[n])
                http_, rng, users = self.clients[n]
                http_.stats = stats[n]  # a later ramp step: the same user goes on, counted afresh
            finally:
                ready.wait()
            if not users:
                return
            weights = [user.weight for user in users]
            while not stop.is_set():
                user = rng.choices(users, weights)[0]
                http_.app = user.app
                if _attempt(http_, user.step) == "unavailable":
                    time.sleep(0.05)  # Redis is down on purpose: do not spin

        threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(len(sessions))]
        for thread in threads:
            thread.start()
        ready.wait()
        self.log(f"driving {len(sessions)} clients for {o.seconds:g} s: {', '.join(sorted(registry.scenarios))}")
        fault = threading.Thread(target=self._inject_faults, args=(start[0],), daemon=True)
        fault.start()
        time.sleep(o.seconds)
        stop.set()
        fault.join()
        for thread in threads:
            thread.join(60)
        elapsed = time.monotonic() - start[0]
        for http_, _, _ in self.clients.values():
            http_.close()
        return stats, ledgers, start[0], elapsed

    def _inject_faults(self, start: float) -> None:
        o = self.options
        kinds = (("kill-redis", o.kill_redis), ("stop-redis", o.stop_redis), ("kill-primary", o.kill_primary))
        planned = [k for k, on in kinds if on]
        for n, kind in enumerate(planned):
            at = start + o.seconds * (n + 1) / (len(planned) + 1) - o.outage / 2
            time.sleep(max(0.0, at - time.monotonic()))
            self.log(f"fault: {kind}")
            self.faults.open()
            began = time.monotonic()
            if kind == "kill-primary":
                self.kill_at = began
                self.redis.kill()
                self.redis.wait_taken_over(timeout=30)  # the node timeout, then a replica's election
            elif kind == "kill-redis":
                self.kill_at = began
                self.redis.kill()
            else:
                self.redis.stop()
            if kind != "kill-primary":
                time.sleep(o.outage)
                self.redis.ensure_running()  # loads the append-only file
            self.faults.close()
            self.fault_reports.append(FaultReport(kind, began - start, time.monotonic() - began))

    def _tally(self, stats: list[Stats], ledgers: list[Ledger], start: float, elapsed: float) -> Report:
        report = Report(self.options, port=self.port, seconds=elapsed, faults=self.fault_reports)
        every = [s for st in stats for s in st.samples if s.started >= start]
        samples = [s for s in every if s.method != "STORE"]
        report.store_writes = sum(s.method == "STORE" and s.status == 200 for s in every)
        report.requests = len(samples)
        report.writes = sum(s.method == "POST" for s in samples)
        report.reads = report.requests - report.writes
        report.latencies = sorted(s.seconds for s in samples if s.status and s.status != 503)
        report.errors = [e for st in stats for e in st.errors]
        per_app = Counter(s.app for s in samples)
        acked = Counter()
        for ledger in ledgers:
            acked.update(ledger.acknowledged)
        report.by_app = {app: (per_app[app], acked[app]) for app in per_app | acked}
        timed: dict[tuple[str, str], list[float]] = {}
        for sample in samples:
            if sample.status and sample.status != 503:
                kind = "writes" if sample.method == "POST" else "reads"
                timed.setdefault((sample.app, kind), []).append(sample.seconds)
        for where, seconds in timed.items():
            seconds.sort()
            report.latency_by_app[where] = (1000 * percentile(seconds, 0.5), 1000 * percentile(seconds, 0.95))
        report.acknowledged = sum(acked.values())
        report.doubtful = sum(ledger.doubtful for ledger in ledgers)
        for st in stats:
            report.refused.update(st.refused)
        self.expectations = [e for ledger in ledgers for e in ledger.expected.values()]
        for fault in self.fault_reports:
            began = start + fault.at
            back = began + fault.down_for
            during = [s for s in samples if s.started <= back and s.started + s.seconds >= began]
            fault.unavailable = sum(s.status == 503 for s in during)
            fault.served_after = sum(s.status in (200, 302) for s in samples if s.started > back)
            if not fault.served_after:
                report.errors.append(f"{fault.kind}: no request succeeded after Redis came back")
        return report

    # -- afterwards

    def _verify(self, report: Report) -> None:
        """Every acknowledged write is in Redis, and every invariant holds."""
        from io import StringIO

        from django.core.management import call_command
        from django.test import override_settings

        with override_settings(REDIS_URL=self.redis.url):
            for expectation in self.expectations:
                try:
                    found = expectation.check()
                except Exception as error:  # a check that cannot read its data counts the write as lost
                    found, expectation.what = False, f"{expectation.what} ({type(error).__name__}: {error})"
                report.checked += 1
                window = self.kill_at is not None and self.kill_at - self.options.fsync_interval <= expectation.at
                window = window and expectation.at <= self.kill_at
                for fault in self.fault_reports:
                    if fault.kind in ("kill-redis", "kill-primary"):
                        if window:
                            fault.in_window += 1
                            fault.in_window_lost += not found
                        elif expectation.at < self.kill_at:
                            fault.before_window += 1
                if not found and not window:
                    report.lost.append(f"{expectation.app}: {expectation.what}")
            out = StringIO()
            with suppress(SystemExit):  # its exit status 1 on violations; the output says which
                call_command("check_integrity", stdout=out)
        lines = [line for line in out.getvalue().splitlines() if line.strip()]
        report.integrity = lines[-1] if lines else "no output"
        counted = re.search(r"(\d+) violation\(s\)", report.integrity)
        report.violations = int(counted.group(1)) if counted else 0
        for line in lines[:-1]:
            report.errors.append(f"integrity: {line}")


def _attempt(http_: Http, action: Callable[[], None]) -> str:
    """Run one scenario action: "ok", "failed" (counted already) or "unavailable" (Redis down on purpose)."""
    try:
        action()
    except Unavailable:
        return "unavailable"
    except Failed:
        return "failed"
    except Exception as error:  # a scenario that breaks is an error of the run, not a silent dead client
        http_.stats.errors.append(f"{http_.app}: {type(error).__name__}: {error}")
        return "failed"
    return "ok"
