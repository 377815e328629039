"""The Import / export screens' background jobs (config.exchange.jobs)."""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("config", "0003_exchange_permission"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ExchangeJob",
            fields=[
                ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ("app", models.CharField(max_length=32)),
                ("kind", models.CharField(default="import", max_length=8)),
                ("folder", models.CharField(max_length=64)),
                ("file_name", models.CharField(blank=True, max_length=255)),
                ("replace", models.BooleanField(default=False)),
                (
                    "phase",
                    models.CharField(
                        choices=[
                            ("checking", "checking"),
                            ("checked", "checked, waiting for the confirm"),
                            ("importing", "importing"),
                            ("exporting", "exporting"),
                            ("done", "done"),
                            ("refused", "refused"),
                            ("failed", "failed"),
                            ("expired", "expired"),
                        ],
                        default="checking",
                        max_length=16,
                    ),
                ),
                ("step", models.CharField(blank=True, max_length=100)),
                ("done", models.BigIntegerField(default=0)),
                ("total", models.BigIntegerField(null=True)),
                ("plan", models.JSONField(default=dict)),
                ("counts", models.JSONField(default=dict)),
                ("reason", models.TextField(blank=True)),
                ("worker", models.CharField(blank=True, max_length=64)),
                ("task", models.CharField(blank=True, max_length=64)),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("heard", models.DateTimeField(auto_now=True)),
                ("ended", models.DateTimeField(null=True)),
                (
                    "user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created"],
                "default_permissions": (),
            },
        ),
    ]
