"""Django settings for the Bohnanza platform.

The embedded default needs no server: a SQLite file under ``var/``, the in-memory
channel layer and Celery tasks run eagerly. Production settings come from the
environment (see README.md).
"""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
VAR_DIR.mkdir(exist_ok=True)


def env_flag(name: str, default: bool) -> bool:
    """Read a yes/no environment variable ("1", "true", "yes", "on" mean yes)."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated environment variable."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# --- Security -----------------------------------------------------------------

DEBUG = env_flag("DJANGO_DEBUG", default=True)

_DEV_SECRET_KEY = "django-insecure-dev-only-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _DEV_SECRET_KEY
if not DEBUG and SECRET_KEY == _DEV_SECRET_KEY:
    raise ImproperlyConfigured(
        "DJANGO_DEBUG is off but DJANGO_SECRET_KEY is not set: "
        "set a secret key for any deployment that is not a developer's machine."
    )

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])

# --- Applications -------------------------------------------------------------

INSTALLED_APPS = [
    # Daphne first: its runserver command serves the ASGI application.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "replays",
    "play",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# --- Database -----------------------------------------------------------------

# The embedded default is one SQLite file holding the event store and every read
# model; DATABASE_URL (e.g. postgres://user@127.0.0.1:5432/bohnanza) moves all of it
# to PostgreSQL. SQLite gets WAL (readers never wait for the writer) and IMMEDIATE
# transactions (a writer takes the lock up front instead of failing on upgrade).
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
if DATABASE_URL:
    import dj_database_url

    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "bohnanza.sqlite3",
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            "TEST": {"NAME": VAR_DIR / "test-bohnanza.sqlite3"},
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channels -----------------------------------------------------------------

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # Production: any number of ASGI servers share one Redis channel layer.
    # Needs the channels-redis package, which Channels imports only here.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    # Embedded default: one process, no server.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Celery (read by config/celery.py, names prefixed CELERY_) ----------------

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
if not CELERY_BROKER_URL:
    # Embedded default: no broker server. Tasks run eagerly, in the process that
    # calls them (.delay() / .apply_async() run the task at once and return its
    # result), and their exceptions propagate to the caller. The in-memory broker
    # URL only keeps Celery from ever reaching for amqp://localhost.
    CELERY_BROKER_URL = "memory://"
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_EAGER_PROPAGATES = True

# --- Passwords ----------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Internationalisation -----------------------------------------------------

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files -------------------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"

# --- Accounts -------------------------------------------------------------------

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "replays:game_list"
LOGOUT_REDIRECT_URL = "play:home"

# --- Event store (replays/store.py) --------------------------------------------------

# The eventsourcing persistence module of the Games application: this project's own,
# on Django's connections, so events and read models share one database.
EVENT_STORE_PERSISTENCE_MODULE = os.environ.get("EVENT_STORE_PERSISTENCE_MODULE",
                                                "replays.persistence")
EVENT_STORE_DB_ALIAS = "default"

# Catch the read models (the game list) up after every stored command, in the process
# that stored it. Turn off where `manage.py run_projections` follows the store instead.
READ_MODELS_CATCH_UP = env_flag("READ_MODELS_CATCH_UP", default=True)
