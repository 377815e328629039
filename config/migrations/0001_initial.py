from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Access",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
            ],
            options={
                "managed": False,
                "default_permissions": (),
                "permissions": [
                    ("write_catalog", "Can change the catalog"),
                    ("write_school", "Can change the school"),
                    ("write_cms", "Can change the CMS"),
                    ("write_orgchart", "Can change the org chart"),
                    ("browse_keys", "Can use the key browser (every record, sign-in addresses)"),
                    ("see_failed_signins", "Can see failed sign-ins"),
                ],
            },
        ),
    ]
