"""An import job may merge into the app's data rather than replace it."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("config", "0004_exchange_job")]

    operations = [
        migrations.AddField(model_name="exchangejob", name="merge", field=models.BooleanField(default=False)),
    ]
