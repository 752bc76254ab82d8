"""The Celery application "bohnanza".

Its configuration comes from Django's settings, from the names prefixed ``CELERY_``
(see ``config/settings.py``): with ``CELERY_BROKER_URL`` set, tasks go to that broker
(Redis or RabbitMQ) for workers to run; without it, tasks run eagerly in the calling
process, so the embedded default needs no broker server.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("bohnanza")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
