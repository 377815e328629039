"""Progress of an export or an import (``runner.Bar``): tqdm bars for the commands, the job's row for
the job page."""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone
from tqdm import tqdm


class Bars:
    """tqdm progress bars for the exchange commands: one bar per file, closed when the next opens."""

    def __init__(self, stream, enabled: bool = True):
        self.stream, self.enabled, self.bar = stream, enabled, None

    def __call__(self, label: str, total: int | None):
        self.close()
        self.bar = tqdm(total=total, desc=f"{label:<22}", unit="doc", disable=not self.enabled, file=self.stream)
        return self.bar.update

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Recorded:
    """A background job's progress on its ``ExchangeJob`` row: one UPDATE per ``runner.STEP`` documents."""

    def __init__(self, job_id):
        from config.models import ExchangeJob

        self.jobs = ExchangeJob.objects.filter(pk=job_id)

    def __call__(self, label: str, total: int | None):
        self.jobs.update(step=label[:100], done=0, total=total, heard=timezone.now())
        return self.advance

    def advance(self, n: int) -> None:
        self.jobs.update(done=F("done") + n, heard=timezone.now())
