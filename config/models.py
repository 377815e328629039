"""Permissions of the dashboard: the data lives in Redis, so the model holds no rows.

Django's groups and permissions need a model to hang permissions on; ``Access``
is that model, unmanaged (no table). The roles (groups) that use them are in
``config.roles``.
"""

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
