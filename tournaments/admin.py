"""The admin of the tournaments app: django-celery-beat's schedules are taken out of it.
A competition makes and owns its periodic tasks (``tournaments.core.beat``: its ticks
and the look at its live tables); an edit by hand in the admin would only break its
rounds, and its forms (crontab and solar fields) would be pages more for every outside
input to reach."""

from django.contrib import admin
from django_celery_beat import models as beat

for model in (beat.PeriodicTask, beat.IntervalSchedule, beat.CrontabSchedule,
              beat.SolarSchedule, beat.ClockedSchedule):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
