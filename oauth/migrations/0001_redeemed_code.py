import django.db.models.deletion
from django.db import migrations, models
from oauth2_provider.settings import oauth2_settings


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("oauth2_provider", "0022_refreshtoken_token_family_index"),
    ]

    operations = [
        migrations.CreateModel(
            name="RedeemedCode",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("code_digest", models.CharField(db_index=True, max_length=64)),
                ("access_token_checksum", models.CharField(max_length=64)),
                ("token_family", models.UUIDField(blank=True, null=True)),
                ("expires", models.DateTimeField(db_index=True)),
                (
                    "application",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, to=oauth2_settings.APPLICATION_MODEL
                    ),
                ),
            ],
        ),
    ]
