"""The exchange permission (each app's import and export), held by administrators (see config.roles)."""

from django.db import migrations

PERMISSIONS = [
    ("write_catalog", "Can change the catalog"),
    ("write_school", "Can change the school"),
    ("write_cms", "Can change the CMS"),
    ("write_orgchart", "Can change the org chart"),
    ("browse_keys", "Can use the key browser (every record, sign-in addresses)"),
    ("see_failed_signins", "Can see failed sign-ins"),
    ("exchange_data", "Can export and import an app's data (replaces it whole)"),
]


def sync(apps, schema_editor):
    from config.roles import sync_roles

    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [("config", "0002_roles")]

    operations = [
        migrations.AlterModelOptions(
            name="access",
            options={"default_permissions": (), "managed": False, "permissions": PERMISSIONS},
        ),
        migrations.RunPython(sync, migrations.RunPython.noop),
    ]
