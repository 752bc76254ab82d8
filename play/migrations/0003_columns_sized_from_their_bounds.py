"""A table's text columns as long as what they hold (issue 26): a bot's name as the
bots' registry bounds it, 38 characters (a bot's seat is named ``<bot> <seat number>``,
which must stay within the engine's 40), and a preset's name, 10."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0002_takeover"),
    ]

    operations = [
        migrations.AlterField(
            model_name="seat",
            name="bot",
            field=models.CharField(blank=True, max_length=38),
        ),
        migrations.AlterField(
            model_name="table",
            name="preset",
            field=models.CharField(max_length=10),
        ),
        migrations.AlterField(
            model_name="table",
            name="replacement_bot",
            field=models.CharField(default="heuristic", max_length=38),
        ),
    ]
