"""Django settings for the Bohnanza platform.

The embedded default needs no server: a SQLite file under ``var/``, the in-memory
channel layer, and Celery messages in files under ``var/celery/`` for a worker process.
Production settings come from the environment (see README.md).
"""

import os
from datetime import timedelta
from pathlib import Path

import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

# Django's generic classes (ModelAdmin[Model], QuerySet[Model]) subscriptable at run
# time, as django-stubs types them.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
# Its owner's alone: the SQLite database holds every running game's seed and salt, the
# Celery folder a competition's messages. `run.py` also gives everything it starts a
# umask of 077 and takes the group's and others' bits off what var/ holds from before.
VAR_DIR.mkdir(mode=0o700, exist_ok=True)


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


def env_int(name: str, default: int, minimum: int = 0) -> int:
    """Read a whole-number environment variable; a typo stops the settings from loading
    rather than silently falling back to the default."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        number = int(value.strip().replace("_", ""))
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}.")
    return number


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

# HTTPS. DJANGO_SECURE=1 turns on the production set that `manage.py check --deploy`
# asks for; each DJANGO_<SETTING> below overrides its part. It is off by default because
# the redirect and secure cookies break plain-HTTP use (`run.py start` on 127.0.0.1).
# HSTS is on whenever debug is off: SecurityMiddleware sends it only on HTTPS requests,
# so it cannot break plain-HTTP use, and a site reached over HTTPS should stay on it.
_secure = env_flag("DJANGO_SECURE", default=False)
SECURE_SSL_REDIRECT = env_flag("DJANGO_SECURE_SSL_REDIRECT", default=_secure)
SESSION_COOKIE_SECURE = env_flag("DJANGO_SESSION_COOKIE_SECURE", default=_secure)
CSRF_COOKIE_SECURE = env_flag("DJANGO_CSRF_COOKIE_SECURE", default=_secure)
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS",
                              default=0 if DEBUG and not _secure else 365 * 24 * 3600)
# includeSubDomains and preload commit every subdomain to HTTPS (preload: for as long
# as browsers ship the list), so only DJANGO_SECURE, not debug being off, implies them.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_flag("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS",
                                          default=_secure)
SECURE_HSTS_PRELOAD = env_flag("DJANGO_SECURE_HSTS_PRELOAD", default=_secure)
# Behind a TLS proxy: the header the proxy sets to "https" (e.g. X-Forwarded-Proto).
# Set it only if the proxy always sets or strips that header: a client could forge it.
_PROXY_SSL_HEADER = os.environ.get("DJANGO_SECURE_PROXY_SSL_HEADER", "").strip()
if _PROXY_SSL_HEADER:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _PROXY_SSL_HEADER.upper().replace("-", "_"), "https")
# Origins (scheme and host, e.g. https://bohnanza.example) allowed to post forms when
# they differ from the Host the server sees, as behind some proxies.
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

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
    "axes",
    "django_celery_beat",
    # django-csp: its system checks of CONTENT_SECURITY_POLICY (the middleware is below).
    "csp",
    "replays",
    "play",
    "tournaments",
    "analyses",
    # The bot API, and django-ninja (its docs page's static files).
    "botapi",
    "ninja",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Compresses what goes out (gzip, with Django's random padding against BREACH);
    # first, so that it sees every answer last. Answers a view has compressed already
    # (replays/caching.py keeps finished games' answers compressed) pass untouched.
    # Public pages carry no CSRF token (docs/serving.md, "Compression").
    "django.middleware.gzip.GZipMiddleware",
    # The Content-Security-Policy (CONTENT_SECURITY_POLICY below) on every answer,
    # refusals and error pages included.
    "config.csp.ContentSecurityPolicyMiddleware",
    # Static files before anything touches sessions or the database.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # The reader's language (cookie, else Accept-Language) before anything may answer,
    # so that a refusal (413, a JSON error) is in it too and no thread keeps the last
    # request's language. It reads no session.
    "django.middleware.locale.LocaleMiddleware",
    # Before anything reads the body (CSRF reads POST): 413 from Content-Length alone.
    # Under ASGI config/asgi.py has already refused such requests before Django ran.
    "config.limits.BodySizeLimitMiddleware",
    # Outside every middleware that may answer an error (CSRF, method checks).
    "config.errors.JsonErrorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A view's database error that means the database is unavailable: 503, not 500.
    "config.errors.DatabaseUnavailableMiddleware",
    # Last, as django-axes asks: turns a locked-out login into the lockout answer.
    "axes.middleware.AxesMiddleware",
]

# The pages run the site's own scripts and stylesheets from /static/ and nothing else:
# no inline script or style (config/csp.py says why not nonces), no plugin, no <base>
# elsewhere, no other site framing them (but the replay embed, replays/views/viewer.py,
# which any site may frame), forms posted only here, and fetches and websockets only to
# this host (config/csp.py adds the websocket origin).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

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

    # Under ASGI every request runs in a thread of its own, and Django keeps one
    # connection per thread: persistent connections (CONN_MAX_AGE) then pile up, one per
    # request for their whole age, until PostgreSQL refuses more ("too many clients";
    # bench/web.py met it at 50 concurrent clients). A connection pool per process
    # (Django's, psycopg_pool) lends each request one and takes it back at its end.
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 2, "max_size": env_int("BOHNANZA_DB_POOL_SIZE", default=20, minimum=2),
            "timeout": 10}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "bohnanza.sqlite3"),
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
    _layer = os.environ.get("BOHNANZA_CHANNEL_LAYER", "") or "pubsub"
    if _layer == "pubsub":
        # channels_redis's pub/sub layer (RedisPubSubChannelLayer): a group send is one
        # PUBLISH, not several round trips and a Lua script, and no message waits in a
        # per-process queue. bench/live.py, 100 tables at one command a second, in
        # turns under the same load: the daphnes' CPU a command 15 ms against 33-38 ms,
        # Redis's 0.4 ms against 2-3 ms (docs/serving.md). Messages are delivered at
        # most once: a seat that misses one (Redis restarting) sees the gap in
        # versions, or hears nothing after its command, and asks for its view again
        # (docs/protocol.md). The "stall" that kept it opt-in was the bench's own
        # clients hanging at its end (bench/live.py, ``load``), not the layer.
        # redis-py 8 reads with a 5 s socket timeout by default; 15 s as the core
        # layer's below (the pub/sub layer polls every 0.1 s itself). Ours sends a
        # command's updates in one round trip (play/layers.py).
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "play.layers.PubSubChannelLayer",
                "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 15}]},
            }
        }
    elif _layer == "core":
        # channels_redis's default layer: every message for a process's consumers
        # waits in one Redis key per process (up to a minute), and channels_redis
        # drops a message, logging it only at INFO, once that key holds ``capacity``
        # (100 by default): a process serving 200 seats, five group sends a command,
        # reached it under load and seats silently missed updates (bench/live.py: half
        # the tables stalled).
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                # redis-py 8 reads with a 5 s socket timeout by default, the same 5 s
                # that channels_redis blocks for in BZPOPMIN while a consumer waits: the
                # read then races the server's empty answer and an idle consumer dies
                # with "Timeout reading from ..." (redis/redis-py#4091,
                # django/channels_redis#422). A timeout well above the blocking one
                # keeps dead connections detectable. A socket_timeout in REDIS_URL's
                # query string still wins.
                "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 15}],
                           "capacity": env_int("BOHNANZA_CHANNEL_CAPACITY", default=5000,
                                               minimum=100)},
            }
        }
    else:
        raise ImproperlyConfigured("BOHNANZA_CHANNEL_LAYER: pubsub (the default) or core")
else:
    # Embedded default: one process, no server.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Cache ----------------------------------------------------------------------

# What is expensive and never changes for a finished game (its narrated log, its
# steps, its pages) is built once and kept here (replays/caching.py), under keys that
# hold everything that changes the answer. Embedded default: this process's memory,
# bounded by BOHNANZA_CACHE_MAX_ENTRIES (entries are compressed answers, a few kB
# each). Production: Redis at REDIS_URL, shared by every ASGI process; bound it with
# Redis's own `maxmemory` and `maxmemory-policy allkeys-lru` (docs/serving.md).
CACHE_TIMEOUT = env_int("BOHNANZA_CACHE_SECONDS", default=24 * 3600, minimum=1)
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "TIMEOUT": CACHE_TIMEOUT,
            "KEY_PREFIX": "bohnanza",
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "bohnanza",
            "TIMEOUT": CACHE_TIMEOUT,
            "OPTIONS": {"MAX_ENTRIES": env_int("BOHNANZA_CACHE_MAX_ENTRIES", default=2000,
                                               minimum=10)},
        }
    }

# Live tables (play/driver.py): how long a bot waits before it moves, in milliseconds,
# so that people at the table see each move happen.
PLAY_BOT_PACE_SECONDS = env_int("BOHNANZA_BOT_PACE_MS", default=1000) / 1000

# How often each web process looks for new running tables that move on their own (a
# league fixture's table made by a Celery worker, with a bot to move first or a clock),
# in milliseconds: a person waiting at such a table waits at most this long.
PLAY_SWEEP_SECONDS = env_int("BOHNANZA_SWEEP_MS", default=5000) / 1000

# How long a seated person may stay away from a running game (every connection to it
# closed) before the table's bot plays their seat: a new table's default, which its
# creator may change. "never" (or 0): nobody is replaced for being away.
_ABSENCE = os.environ.get("BOHNANZA_ABSENCE_SECONDS", "").strip().lower()
PLAY_ABSENCE_SECONDS = 0 if _ABSENCE == "never" else env_int("BOHNANZA_ABSENCE_SECONDS",
                                                               default=300)

# How long a trading phase stays open while a person sits at the table (play/clock.py):
# a bot on turn ends trading only then, or once every person has passed. A table's
# creator may change it; 0: bots trade at their pace.
PLAY_TRADE_SECONDS = env_int("BOHNANZA_TRADE_SECONDS", default=15)

# --- Celery (read by config/celery.py, names prefixed CELERY_) ----------------

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
if not CELERY_BROKER_URL:
    # Embedded default: no broker server. Messages are files in var/celery/queue/
    # (kombu's filesystem transport), run by the worker process `python3 run.py start`
    # starts beside the site (`celery -A config worker`). A message is taken from the
    # folder when a worker reads it, so a worker killed mid-task loses it: `manage.py
    # tournament resume` (run by run.py start) sends a competition's missing games again.
    CELERY_QUEUE_DIR = Path(os.environ.get("CELERY_QUEUE_DIR", VAR_DIR / "celery" / "queue"))
    CELERY_QUEUE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    # A host named, though the folders are what the transport reads: kombu warns "No
    # hostname was supplied" on every connection (every manage.py call that sends a
    # task) when a URL names none.
    CELERY_BROKER_URL = "filesystem://localhost/"
    # Kombu's filesystem transport, each message written in the queue folder's sibling
    # "staging" (var/celery/staging/) and renamed into the queue whole: kombu's own lets
    # a worker read a message half-written and die of it (config/kombu_filesystem.py).
    CELERY_BROKER_TRANSPORT = "config.kombu_filesystem:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_QUEUE_DIR),
        "data_folder_out": str(CELERY_QUEUE_DIR),
        # Where kombu keeps its exchange tables: beside the queue, never the working
        # directory (its default, "control/", wrote files into the checkout).
        "control_folder": str(CELERY_QUEUE_DIR.parent / "control"),
        "polling_interval": 0.2,
    }
# A task is acknowledged when it has run, and given back when its worker dies, so a
# broker (Redis, RabbitMQ) delivers it again; tasks are idempotent (tournaments.tasks).
# Deals a competition's task plays and stores together (one commit, one broker round
# trip): tournaments/tasks.py, bench/tournament.py.
TOURNAMENT_BATCH = env_int("BOHNANZA_TOURNAMENT_BATCH", default=4, minimum=1)
# Crash recovery without a person (tournaments/core/rounds.py, watch): the beat looks at
# each running competition every WATCH seconds; a round none of whose missing bots' games
# has come in for STALL seconds is recorded stalled and its missing deals sent again.
TOURNAMENT_WATCH_SECONDS = env_int("BOHNANZA_TOURNAMENT_WATCH_SECONDS", default=10, minimum=1)
TOURNAMENT_STALL_SECONDS = env_int("BOHNANZA_TOURNAMENT_STALL_SECONDS", default=60, minimum=1)
# What one account may ask of the workers (tournaments/quotas.py; staff and the command
# line are exempt): games in any 24 hours (a running ladder's day of ticks counts every
# day), competitions, ladders and leagues running at once, and the shortest ladder tick.
TOURNAMENT_QUOTAS = {
    "games_per_day": env_int("BOHNANZA_QUOTA_GAMES_PER_DAY", default=5000),
    "running_competitions": env_int("BOHNANZA_QUOTA_COMPETITIONS", default=3),
    "running_ladders": env_int("BOHNANZA_QUOTA_LADDERS", default=2),
    "running_leagues": env_int("BOHNANZA_QUOTA_LEAGUES", default=3),
    "shortest_tick_seconds": env_int("BOHNANZA_QUOTA_SHORTEST_TICK", default=60, minimum=10),
}

# Game analysis (analyses/, docs/analysis.md): playouts a decision of the analyses asked
# for on the site, and what one account may ask for (staff exempt): analyses in any 24
# hours, and under way at once.
ANALYSIS_PLAYOUTS = env_int("BOHNANZA_ANALYSIS_PLAYOUTS", default=1000, minimum=1)
ANALYSIS_QUOTAS = {
    "per_day": env_int("BOHNANZA_QUOTA_ANALYSES_PER_DAY", default=10),
    "running": env_int("BOHNANZA_QUOTA_ANALYSES_RUNNING", default=1, minimum=1),
}

CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Redis: a task not acknowledged within this many seconds (its worker died) is delivered
# again. Longer than any one task (a duplicate set of 7 games takes well under a second).
# kombu looks for such tasks only every interval x throttle seconds (10 x 10 by default:
# a dead worker's tasks came back up to 100 s after their timeout); here every fifth of
# the timeout, at most every 10 s, each look one scan of the unacknowledged index.
# A look holds a lock in Redis (one for every queue of the database) that outlives a
# worker killed while holding it by its expiry, 300 s by default: no dead worker's task
# came back meanwhile, anyone's. A look takes milliseconds; the lock expires as soon as
# the next look is due (a second look finding a task already moved back moves nothing).
_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", default=300, minimum=1)
_LOOK_EVERY = max(1, min(10, _VISIBILITY_TIMEOUT // 5))
CELERY_BROKER_TRANSPORT_OPTIONS = {
    **globals().get("CELERY_BROKER_TRANSPORT_OPTIONS", {}),
    "visibility_timeout": _VISIBILITY_TIMEOUT,
    "unacked_restore_interval": _LOOK_EVERY,
    "unacked_restore_throttle": 1,
    "unacked_mutex_expire": _LOOK_EVERY,
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Ladders' ticks are periodic tasks in the database (django-celery-beat), one a ladder,
# read by the beat the worker runs (`celery -A config worker --beat`).
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# The workers' heartbeat (tournaments/core/workers.py): the beat sends it every
# WORKER_HEARTBEAT_SECONDS, a worker stamps a row; /health/ answers 503 and a running
# competition's page says so once it is older than WORKER_SILENCE_SECONDS while a
# competition waits for the workers. A heartbeat not run within its interval expires
# (none pile up in the queue of a dead worker).
WORKER_HEARTBEAT_SECONDS = env_int("BOHNANZA_WORKER_HEARTBEAT_SECONDS", default=5, minimum=1)
WORKER_SILENCE_SECONDS = env_int("BOHNANZA_WORKER_SILENCE_SECONDS", default=60, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "workers seen": {"task": "tournaments.workers_seen", "schedule": WORKER_HEARTBEAT_SECONDS,
                     "options": {"expires": WORKER_HEARTBEAT_SECONDS}},
}
# The queue the tasks go to and the workers read (several platforms on one broker).
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "bohnanza")

# --- Passwords and sign-in ----------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Internationalisation -----------------------------------------------------

# English, Hungarian and Finnish: the languages of the rulebooks the platform follows.
# LocaleMiddleware picks the reader's choice (the language switch sets a cookie), else
# the browser's Accept-Language, else English. Catalogues: locale/<code>/LC_MESSAGES/
# django.po, compiled to django.mo in git (see locale/README.md).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("hu", "Magyar"), ("fi", "Suomi")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files -------------------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where `manage.py collectstatic` puts the files for a proxy or CDN to serve; WhiteNoise
# serves it too. Created here so WhiteNoise does not warn about a missing folder. A
# proxy that reads them from disk, as another user, needs DJANGO_STATIC_ROOT outside
# var/ (which is its owner's alone).
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", "").strip() or VAR_DIR / "static")
STATIC_ROOT.mkdir(parents=True, exist_ok=True)

# WhiteNoise serves /static/ from the app server, debug or not (daphne's runserver
# serves static files only in debug). It finds files the way `runserver` does, through
# the staticfiles finders, read once at start-up: no collectstatic step to forget or
# to leave stale after a deploy, and `run.py start` with DJANGO_DEBUG=0 is styled. The
# price is no precompressed or content-hashed copies (so a short cache lifetime), which
# these few small files do not need; a manifest storage would also make every
# {% static %} fail until collectstatic had run, tests included.
WHITENOISE_USE_FINDERS = True

# --- Accounts -------------------------------------------------------------------

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "replays:game_list"
LOGOUT_REDIRECT_URL = "play:home"

# Sign-in throttling (django-axes): after BOHNANZA_LOGIN_FAILURE_LIMIT failed sign-ins
# for one username from one address, that pair is refused (429, the sign-in page says
# why) until BOHNANZA_LOGIN_COOLOFF_MINUTES pass without another try. Keyed on the pair,
# so a stranger cannot lock a player out from elsewhere. Behind a proxy, the address is
# the client's only if the ASGI server takes it from the proxy (daphne --proxy-headers).
# AxesStandaloneBackend comes first and only checks the lockout; it needs `request` in
# authenticate(): tests use force_login, or client.login(request=HttpRequest(), ...).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("BOHNANZA_LOGIN_FAILURE_LIMIT", default=5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("BOHNANZA_LOGIN_COOLOFF_MINUTES", default=15,
                                              minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "config.signin.lockout_response"
# Only failures are kept (to count them), not a row for every sign-in.
AXES_DISABLE_ACCESS_LOG = True
# No start-up banner, and failures logged with only the (masked) lockout parameters.
AXES_VERBOSE = False

# --- Event store (replays/store.py) --------------------------------------------------

# The eventsourcing persistence module of the Games application: this project's own,
# on Django's connections, so events and read models share one database.
EVENT_STORE_PERSISTENCE_MODULE = os.environ.get("EVENT_STORE_PERSISTENCE_MODULE",
                                                "replays.persistence")
EVENT_STORE_DB_ALIAS = "default"

# Catch the read models (the game list) up after every stored command, in the process
# that stored it. Turn off where `manage.py run_projections` follows the store instead.
READ_MODELS_CATCH_UP = env_flag("READ_MODELS_CATCH_UP", default=True)
# /health/ answers 503 once a stored event has waited this long for a read model
# (replays.health): the catch-up keeps failing, or run_projections is not running.
READ_MODELS_STALL_SECONDS = env_int("READ_MODELS_STALL_SECONDS", 60, minimum=1)

# --- Request bodies -------------------------------------------------------------

# The largest file anyone uploads: a game export to import or verify (the views' own
# limits are 5 MB and 2 MB). A request body may be that plus room for the form around
# it; a larger one is answered 413 from its Content-Length before any of it is read
# (config/limits.py: as ASGI middleware in config/asgi.py, as Django middleware for
# WSGI). Django's own limits are set to the same number: nothing within it is refused
# by Django, and an accepted upload stays in memory instead of going to a temp file.
BOHNANZA_MAX_UPLOAD_BYTES = env_int("BOHNANZA_MAX_UPLOAD_BYTES", default=5 * 1024 * 1024,
                                    minimum=1024)
BOHNANZA_MAX_REQUEST_BYTES = BOHNANZA_MAX_UPLOAD_BYTES + 64 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = BOHNANZA_MAX_REQUEST_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = BOHNANZA_MAX_REQUEST_BYTES

# --- Logging --------------------------------------------------------------------

# Everything goes to stderr, for the service manager or container to collect: Django's
# request errors (500s with their traceback, 4xx as warnings), the apps' loggers and
# the server's. DJANGO_LOG_LEVEL sets the level of those loggers (default INFO); other
# libraries log warnings and worse. Nothing here logs request bodies, and the SQL
# logger stays above DEBUG whatever the level.
LOG_LEVEL = os.environ.get("DJANGO_LOG_LEVEL", "").strip().upper() or "INFO"
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"DJANGO_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {LOG_LEVEL!r}."
    )
# The SQL logger's DEBUG records carry query parameters (stored events: hands, seeds).
_SQL_LOG_LEVEL = "INFO" if LOG_LEVEL == "DEBUG" else LOG_LEVEL
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    # A share or invitation link's token is written [hidden] (config/logfilters.py).
    "filters": {"secrets": {"()": "config.logfilters.HideSecrets"}},
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "formatter": "plain",
            "filters": ["secrets"],
        },
    },
    "root": {"handlers": ["stderr"], "level": "WARNING"},
    "loggers": {
        # No handlers of their own: records go up to the root's, where pytest's caplog
        # sees them too. Naming "django" drops Django's debug-only console handler.
        **{name: {"handlers": [], "level": LOG_LEVEL}
           for name in ("django", "daphne", "axes", "config", "bohnanza_core", "replays",
                        "play", "tournaments", "analyses")},
        "django.db.backends": {"handlers": [], "level": _SQL_LOG_LEVEL},
    },
}
