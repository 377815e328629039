"""Permissions of the dashboard: the data lives in Redis, so the model holds no rows.

Django's groups and permissions need a model to hang permissions on; ``Access`` is that model,
unmanaged (no table). The roles (groups) that use them are in ``config.roles``.
"""

import uuid

from django.conf import settings
from django.db import models


class Access(models.Model):
    class Meta:
        managed = False
        default_permissions = ()
        permissions = [
            ("write_catalog", "Can change the catalog"),
            ("write_school", "Can change the school"),
            ("write_cms", "Can change the CMS"),
            ("write_orgchart", "Can change the org chart"),
            ("browse_keys", "Can use the key browser (every record, sign-in addresses)"),
            ("see_failed_signins", "Can see failed sign-ins"),
            ("exchange_data", "Can export and import an app's data (replaces it whole)"),
        ]

    def __str__(self) -> str:
        return "dashboard access"


class ExchangeJob(models.Model):
    """One upload on an Import / export screen, or one export, through its background work: the
    check (the dry run), the wait for the confirm, the import; or the export. The job page reads
    its progress and outcome here; the task queue (``django_tasks_db``) only runs the work."""

    class Phase(models.TextChoices):
        CHECKING = "checking", "checking"
        CHECKED = "checked", "checked, waiting for the confirm"
        IMPORTING = "importing", "importing"
        EXPORTING = "exporting", "exporting"
        DONE = "done", "done"
        REFUSED = "refused", "refused"
        FAILED = "failed", "failed"
        EXPIRED = "expired", "expired"

    RUNNING = (Phase.CHECKING, Phase.IMPORTING, Phase.EXPORTING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    app = models.CharField(max_length=32)
    kind = models.CharField(max_length=8, default="import")  # import or export
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    folder = models.CharField(max_length=64)  # the staged upload's (or the export's) folder name
    file_name = models.CharField(max_length=255, blank=True)
    replace = models.BooleanField(default=False)
    merge = models.BooleanField(default=False)  # add and update by id, delete nothing
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.CHECKING)
    step = models.CharField(max_length=100, blank=True)  # what the worker reads or writes now
    done = models.BigIntegerField(default=0)
    total = models.BigIntegerField(null=True)
    plan = models.JSONField(default=dict)  # the check's counts, normalizations and refusals
    counts = models.JSONField(default=dict)  # what the import wrote
    reason = models.TextField(blank=True)  # why it failed
    worker = models.CharField(max_length=64, blank=True)  # host:pid of the worker running it
    task = models.CharField(max_length=64, blank=True)  # the current task result's id
    created = models.DateTimeField(auto_now_add=True)
    heard = models.DateTimeField(auto_now=True)  # the last word from its worker (or a change)
    ended = models.DateTimeField(null=True)  # when the check or the import ended

    class Meta:
        default_permissions = ()
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.kind} {self.app} {self.phase}"
