"""When each competition game went in: a round whose games stop coming in while some are
missing is seen to have stalled, and its missing deals are sent again (issue 28). Rows
stored before this migration take the time it ran."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0006_one_competitions_core"),
    ]

    operations = [
        migrations.AddField(
            model_name="competitiongame",
            name="stored_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now,
                help_text="when it went in: a round whose games stop coming in while some "
                          "are missing is seen to have stalled "
                          "(tournaments.core.rounds.watch)"),
        ),
    ]
