"""The bot API (issue 29): bot accounts owned by a person, their scoped API tokens
(a keyed digest each), challenges' kept seats, tables that start once full. The token a
bot account had (its unkeyed SHA-256) becomes its first token, still working."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def keep_tokens(apps, schema_editor):
    accounts = apps.get_model("play", "BotAccount")
    tokens = apps.get_model("play", "ApiToken")
    for account in accounts.objects.exclude(token_hash=""):
        tokens.objects.create(
            account=account,
            label="command line",
            digest="sha256:" + account.token_hash,
            hint="bhz_",
            scopes="play read",
        )


def restore_tokens(apps, schema_editor):
    accounts = apps.get_model("play", "BotAccount")
    tokens = apps.get_model("play", "ApiToken")
    for account in accounts.objects.all():
        kept = tokens.objects.filter(
            account=account, digest__startswith="sha256:", revoked_at__isnull=True
        ).first()
        account.token_hash = kept.digest[7:] if kept else f"none-{account.pk}"
        account.save(update_fields=["token_hash"])


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0003_columns_sized_from_their_bounds"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="botaccount",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="bots",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="invited",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="challenges",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="table",
            name="start_when_full",
            field=models.BooleanField(default=False),
        ),
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("label", models.CharField(max_length=60)),
                ("digest", models.CharField(max_length=80, unique=True)),
                ("hint", models.CharField(max_length=12)),
                (
                    "scopes",
                    models.CharField(help_text="space-separated: play read enter", max_length=32),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("last_used_at", models.DateTimeField(blank=True, null=True)),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                (
                    "account",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tokens",
                        to="play.botaccount",
                    ),
                ),
            ],
            options={
                "ordering": ("-created_at",),
            },
        ),
        migrations.RunPython(keep_tokens, restore_tokens),
        migrations.RemoveField(
            model_name="botaccount",
            name="token_hash",
        ),
    ]
