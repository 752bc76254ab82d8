"""Production settings from the environment, and the site as served with debug off.

Settings are read by running config/settings.py afresh under a patched environment.
What needs Django itself started with debug off (`check --deploy`, serving) runs in
subprocesses, each on a throwaway SQLite file: the developer's var/ database is never
touched.
"""

import contextlib
import json
import os
import runpy
import socket
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_FILE = ROOT / "config" / "settings.py"

VARIABLES = (
    "DJANGO_DEBUG", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DJANGO_SECURE",
    "DJANGO_SECURE_SSL_REDIRECT", "DJANGO_SESSION_COOKIE_SECURE", "DJANGO_CSRF_COOKIE_SECURE",
    "DJANGO_SECURE_HSTS_SECONDS", "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "DJANGO_SECURE_HSTS_PRELOAD", "DJANGO_SECURE_PROXY_SSL_HEADER",
    "DJANGO_CSRF_TRUSTED_ORIGINS", "DJANGO_LOG_LEVEL", "BOHNANZA_MAX_UPLOAD_BYTES",
    "BOHNANZA_LOGIN_FAILURE_LIMIT", "BOHNANZA_LOGIN_COOLOFF_MINUTES",
    "REDIS_URL", "DATABASE_URL", "BOHNANZA_CACHE_MAX_ENTRIES", "BOHNANZA_CACHE_SECONDS",
    "BOHNANZA_DB_POOL_SIZE", "BOHNANZA_CHANNEL_LAYER", "BOHNANZA_CHANNEL_CAPACITY",
    "CELERY_VISIBILITY_TIMEOUT",
)


def read_settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    """The settings module's names as it computes them under exactly ``env``."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS_FILE))


TEST_ONLY = ("DJANGO_ALLOW_ASYNC_UNSAFE",)
"""Variables the test run may have set (tests/e2e/conftest.py) that production never has."""


def production_env(tmp_path: Path, **env: str) -> dict[str, str]:
    """The environment of a production process: debug off, a real secret key, its own
    database file, and ``env``."""
    base = {name: value for name, value in os.environ.items()
            if name not in VARIABLES + TEST_ONLY}
    return {**base, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": get_random_secret_key(),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'production.sqlite3'}", **env}


# -- settings ------------------------------------------------------------------------


def test_debug_off_alone_keeps_plain_http_working(monkeypatch: pytest.MonkeyPatch) -> None:
    names = read_settings(monkeypatch, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 50)

    assert names["SECURE_SSL_REDIRECT"] is False
    assert names["SESSION_COOKIE_SECURE"] is False
    assert names["CSRF_COOKIE_SECURE"] is False
    # Sent only over HTTPS, so harmless to plain HTTP; but this host only, no preload.
    assert names["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert names["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert names["SECURE_HSTS_PRELOAD"] is False
    assert "SECURE_PROXY_SSL_HEADER" not in names
    assert names["CSRF_TRUSTED_ORIGINS"] == []
    assert names["LOGGING"]["loggers"]["replays"]["level"] == "INFO"


def test_debug_on_sends_no_hsts(monkeypatch: pytest.MonkeyPatch) -> None:
    assert read_settings(monkeypatch)["SECURE_HSTS_SECONDS"] == 0


def test_secure_turns_on_the_production_set(monkeypatch: pytest.MonkeyPatch) -> None:
    names = read_settings(monkeypatch, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 50,
                          DJANGO_SECURE="1")

    assert names["SECURE_SSL_REDIRECT"] is True
    assert names["SESSION_COOKIE_SECURE"] is True
    assert names["CSRF_COOKIE_SECURE"] is True
    assert names["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert names["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert names["SECURE_HSTS_PRELOAD"] is True


def test_each_part_can_be_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    names = read_settings(
        monkeypatch, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 50, DJANGO_SECURE="1",
        DJANGO_SECURE_SSL_REDIRECT="0", DJANGO_SECURE_HSTS_SECONDS="3600",
        DJANGO_SECURE_HSTS_PRELOAD="no", DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS="off",
        DJANGO_SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
        DJANGO_CSRF_TRUSTED_ORIGINS="https://bohnanza.example, https://www.bohnanza.example",
        DJANGO_LOG_LEVEL="warning", BOHNANZA_MAX_UPLOAD_BYTES="1048576",
        BOHNANZA_LOGIN_FAILURE_LIMIT="3", BOHNANZA_LOGIN_COOLOFF_MINUTES="60",
    )

    assert names["SECURE_SSL_REDIRECT"] is False
    assert names["SESSION_COOKIE_SECURE"] is True
    assert names["SECURE_HSTS_SECONDS"] == 3600
    assert names["SECURE_HSTS_PRELOAD"] is False
    assert names["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert names["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert names["CSRF_TRUSTED_ORIGINS"] == ["https://bohnanza.example",
                                             "https://www.bohnanza.example"]
    assert names["LOGGING"]["loggers"]["django"]["level"] == "WARNING"
    assert names["LOGGING"]["loggers"]["django.db.backends"]["level"] == "WARNING"
    assert names["BOHNANZA_MAX_REQUEST_BYTES"] == 1048576 + 64 * 1024
    assert names["DATA_UPLOAD_MAX_MEMORY_SIZE"] == names["BOHNANZA_MAX_REQUEST_BYTES"]
    assert names["AXES_FAILURE_LIMIT"] == 3
    assert names["AXES_COOLOFF_TIME"].total_seconds() == 3600


def test_sql_is_never_logged_with_its_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    names = read_settings(monkeypatch, DJANGO_LOG_LEVEL="DEBUG")

    assert names["LOGGING"]["loggers"]["bohnanza_core"]["level"] == "DEBUG"
    assert names["LOGGING"]["loggers"]["django.db.backends"]["level"] == "INFO"


@pytest.mark.parametrize(("name", "value", "complaint"), [
    ("DJANGO_LOG_LEVEL", "LOUD", "DJANGO_LOG_LEVEL must be DEBUG, INFO"),
    ("BOHNANZA_MAX_UPLOAD_BYTES", "5MB", "BOHNANZA_MAX_UPLOAD_BYTES must be a whole number"),
    ("BOHNANZA_LOGIN_FAILURE_LIMIT", "0", "BOHNANZA_LOGIN_FAILURE_LIMIT must be at least 1"),
    ("DJANGO_SECURE_HSTS_SECONDS", "-1", "DJANGO_SECURE_HSTS_SECONDS must be at least 0"),
])
def test_bad_values_stop_the_settings(monkeypatch: pytest.MonkeyPatch, name: str, value: str,
                                      complaint: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=complaint):
        read_settings(monkeypatch, **{name: value})


def test_the_cache_is_bounded_memory_by_default_and_redis_with_redis_url(
        monkeypatch: pytest.MonkeyPatch) -> None:
    default = read_settings(monkeypatch)["CACHES"]["default"]
    assert default["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert default["OPTIONS"]["MAX_ENTRIES"] == 2000
    assert default["TIMEOUT"] == 24 * 3600
    small = read_settings(monkeypatch, BOHNANZA_CACHE_MAX_ENTRIES="50",
                          BOHNANZA_CACHE_SECONDS="60")["CACHES"]["default"]
    assert (small["OPTIONS"]["MAX_ENTRIES"], small["TIMEOUT"]) == (50, 60)
    shared = read_settings(monkeypatch, REDIS_URL="redis://cache.example:6379/2")
    assert shared["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert shared["CACHES"]["default"]["LOCATION"] == "redis://cache.example:6379/2"
    with pytest.raises(ImproperlyConfigured, match="BOHNANZA_CACHE_MAX_ENTRIES"):
        read_settings(monkeypatch, BOHNANZA_CACHE_MAX_ENTRIES="lots")


def test_postgresql_goes_through_a_pool_not_persistent_connections(
        monkeypatch: pytest.MonkeyPatch) -> None:
    database = read_settings(monkeypatch, DATABASE_URL="postgres://u@db.example:5432/b",
                             BOHNANZA_DB_POOL_SIZE="7")["DATABASES"]["default"]
    assert database["CONN_MAX_AGE"] == 0
    assert database["OPTIONS"]["pool"]["max_size"] == 7
    sqlite = read_settings(monkeypatch, DATABASE_URL="sqlite:////tmp/x.sqlite3")
    assert "pool" not in sqlite["DATABASES"]["default"].get("OPTIONS", {})


@pytest.mark.parametrize(("timeout", "look_every"), [("300", 10), ("5", 1), ("30", 6)])
def test_a_dead_workers_redis_tasks_are_looked_for_within_a_fifth_of_their_timeout(
        monkeypatch: pytest.MonkeyPatch, timeout: str, look_every: int) -> None:
    options = read_settings(monkeypatch, CELERY_VISIBILITY_TIMEOUT=timeout)[
        "CELERY_BROKER_TRANSPORT_OPTIONS"]
    assert options["visibility_timeout"] == int(timeout)
    # kombu looks every interval x throttle seconds
    assert options["unacked_restore_interval"] * options["unacked_restore_throttle"] == \
        look_every
    # the lock a look holds outlives a worker killed holding it no longer than a look's
    # interval (kombu's default, 300 s, held every dead worker's tasks back that long)
    assert options["unacked_mutex_expire"] == look_every


def test_compression_sees_every_answer_last(monkeypatch: pytest.MonkeyPatch) -> None:
    middleware = read_settings(monkeypatch)["MIDDLEWARE"]
    assert middleware.index("django.middleware.gzip.GZipMiddleware") == 1


# -- manage.py check --deploy --------------------------------------------------------


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_check_deploy_is_clean_with_the_production_variables(tmp_path: Path) -> None:
    done = check_deploy(production_env(
        tmp_path, DJANGO_SECURE="1", DJANGO_ALLOWED_HOSTS="bohnanza.example",
        DJANGO_SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto"))

    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout
    assert "WARNING" not in done.stdout + done.stderr


def test_check_deploy_warns_without_them(tmp_path: Path) -> None:
    done = check_deploy(production_env(tmp_path))

    assert done.returncode != 0
    for warning in ("security.W008", "security.W012", "security.W016"):
        assert warning in done.stderr


# -- serving with debug off ----------------------------------------------------------

DEBUG_OFF_SCRIPT = textwrap.dedent("""
    import json, sys
    import django
    django.setup()
    from django.conf import settings
    from django.test import Client

    def body(response):
        if response.streaming:
            return b"".join(response.streaming_content).decode()
        return response.content.decode()

    settings.ROOT_URLCONF = "tests.config.failing_urls"
    # As the TLS proxy forwards them: the answers are the same as over plain HTTP
    # with DJANGO_SECURE off, plus the HTTPS headers.
    client = Client(raise_request_exception=False, headers={"X-Forwarded-Proto": "https"})
    home = client.get("/")
    css = client.get("/static/css/site.css")
    admin_css = client.get("/static/admin/css/base.css")
    failed = client.post("/fail/", {"hand": "secret-cards-in-hand"})
    failed_json = client.get("/fail.json")
    plain = Client().get("/")
    json.dump({
        "debug": settings.DEBUG,
        "home": [home.status_code, body(home)],
        "css": [css.status_code, css["Content-Type"], css["Cache-Control"], body(css)],
        "admin_css": admin_css.status_code,
        "failed": [failed.status_code, body(failed)],
        "failed_json": [failed_json.status_code, failed_json["Content-Type"], body(failed_json)],
        "plain": [plain.status_code, plain.get("Location")],
        "hsts": home.get("Strict-Transport-Security"),
    }, sys.stdout)
""")


@pytest.fixture(scope="module")
def debug_off(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """What the site answers with debug off (behind a TLS proxy, DJANGO_SECURE on), and
    what it logged to stderr."""
    env = production_env(tmp_path_factory.mktemp("debug-off"), DJANGO_SECURE="1",
                         DJANGO_SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto")
    done = subprocess.run([sys.executable, "-c", DEBUG_OFF_SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_static_files_are_served_with_debug_off(debug_off: tuple[dict[str, Any], str]) -> None:
    answers, _ = debug_off
    assert answers["debug"] is False
    status, page = answers["home"]
    assert status == 200
    assert 'href="/static/css/site.css"' in page
    status, content_type, cache_control, css = answers["css"]
    assert status == 200
    assert content_type.startswith("text/css")
    assert cache_control == "max-age=60, public"
    assert ".site-header" in css
    assert answers["admin_css"] == 200  # app static files too, with no collectstatic run


def test_500_page_and_traceback_on_stderr_with_debug_off(
        debug_off: tuple[dict[str, Any], str]) -> None:
    answers, stderr = debug_off
    status, page = answers["failed"]
    assert status == 500
    assert "Something went wrong" in page
    assert "the view failed on purpose" not in page
    status, content_type, body = answers["failed_json"]
    assert (status, content_type) == (500, "application/json")
    assert json.loads(body)["error"].startswith("Server error")
    assert "ERROR django.request: Internal Server Error: /fail/" in stderr
    assert "RuntimeError: the view failed on purpose" in stderr
    assert "secret-cards-in-hand" not in stderr


def test_https_behind_a_proxy(debug_off: tuple[dict[str, Any], str]) -> None:
    answers, _ = debug_off
    assert answers["plain"] == [301, "https://testserver/"]
    assert answers["hsts"] == "max-age=31536000; includeSubDomains; preload"


# -- a real daphne ---------------------------------------------------------------------


@dataclass(frozen=True)
class Daphne:
    url: str
    log: Path


@pytest.fixture(scope="module")
def daphne(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daphne]:
    """Daphne serving config.asgi with debug off, on a socket bound here and handed
    over (--fd): connections wait in its backlog until daphne is up, no polling."""
    folder = tmp_path_factory.mktemp("daphne")
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    log = folder / "stderr.log"
    with log.open("w") as stderr:
        server = subprocess.Popen(
            [sys.executable, "-m", "daphne", "--fd", str(listener.fileno()), "-v", "0",
             "config.asgi:application"],
            cwd=ROOT, env=production_env(folder), pass_fds=[listener.fileno()],
            stdout=subprocess.DEVNULL, stderr=stderr)
    listener.close()
    try:
        yield Daphne(f"http://127.0.0.1:{port}", log)
    finally:
        server.terminate()
        server.wait(timeout=30)


def fetch(url: str, data: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def test_daphne_serves_a_styled_site_with_debug_off(daphne: Daphne) -> None:
    status, _, page = fetch(daphne.url + "/")
    assert status == 200
    assert b'href="/static/css/site.css"' in page
    status, content_type, css = fetch(daphne.url + "/static/css/site.css")
    assert status == 200
    assert content_type.startswith("text/css")
    assert b".site-header" in css


def test_daphne_answers_json_errors_and_413(daphne: Daphne) -> None:
    status, content_type, body = fetch(daphne.url + "/replays/no-such.json")
    assert (status, content_type) == (404, "application/json")
    assert json.loads(body) == {"error": "Nothing at /replays/no-such.json."}

    from django.conf import settings

    size = settings.BOHNANZA_MAX_REQUEST_BYTES + 1
    answer = _raw(daphne.url, b"POST /replays/import/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Content-Type: application/octet-stream\r\n"
                              b"Accept: application/json\r\n"
                              b"Content-Length: %d\r\n\r\n" % size, b"x" * size)
    head, body = answer.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 413 ") and b"Content-Type: application/json" in head
    assert "5 MB" in json.loads(body)["error"]
    # Answered by daphne's request, before the body was received, let alone read.
    assert (f"WARNING config.limits: Refused a {size}-byte request body while it arrived"
            in daphne.log.read_text())


def _raw(url: str, request: bytes, then: bytes = b"") -> bytes:
    """Send ``request`` (and ``then``, if the server is still listening) over a plain
    socket and read the answer until the server closes the connection."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=20) as connection:
        connection.sendall(request)
        if then:  # refused and closed before it was all sent, as it should be: no matter
            with contextlib.suppress(OSError):
                connection.sendall(then)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
        return answer


def test_daphne_refuses_a_declared_oversize_body_before_it_arrives(daphne: Daphne) -> None:
    """Issue 8, item 6: a 50 MB upload was received whole before the 413; one that
    declares 50 MB and sends nothing held the connection. Now the headers are enough
    (without the fix, this read times out waiting for a body that never comes)."""
    answer = _raw(daphne.url, b"POST /replays/verify/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Content-Type: application/octet-stream\r\n"
                              b"Content-Length: 52428800\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"5 MB" in answer
    assert "while it arrived" in daphne.log.read_text()


def test_daphne_stops_receiving_a_chunked_body_past_the_limit(daphne: Daphne) -> None:
    from django.conf import settings

    piece = b"x" * (1024 * 1024)
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece)
                      for _ in range(settings.BOHNANZA_MAX_REQUEST_BYTES // len(piece) + 2))
    answer = _raw(daphne.url, b"POST /replays/verify/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Accept: application/json\r\n"
                              b"Transfer-Encoding: chunked\r\n\r\n", chunks + b"0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"].startswith("The request is")


def test_the_channel_layer_is_in_memory_alone_and_redis_with_redis_url(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With REDIS_URL, channels_redis's pub/sub layer; its default ("core") layer by
    name, keeping up to BOHNANZA_CHANNEL_CAPACITY messages for a process (not
    channels_redis's 100, past which it dropped seats' updates under load); a name it
    does not know stops the settings."""
    alone = read_settings(monkeypatch)["CHANNEL_LAYERS"]["default"]
    assert alone["BACKEND"] == "channels.layers.InMemoryChannelLayer"
    url = "redis://layer.example:6379/3"
    layer = read_settings(monkeypatch, REDIS_URL=url)["CHANNEL_LAYERS"]["default"]
    assert layer["BACKEND"] == "play.layers.PubSubChannelLayer"
    assert layer["CONFIG"]["hosts"][0]["address"] == url
    named = read_settings(monkeypatch, REDIS_URL=url, BOHNANZA_CHANNEL_LAYER="pubsub")
    assert named["CHANNEL_LAYERS"]["default"] == layer
    core = read_settings(monkeypatch, REDIS_URL=url, BOHNANZA_CHANNEL_LAYER="core"
                         )["CHANNEL_LAYERS"]["default"]
    assert core["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert core["CONFIG"]["capacity"] == 5000
    assert core["CONFIG"]["hosts"][0]["address"] == url
    roomy = read_settings(monkeypatch, REDIS_URL=url, BOHNANZA_CHANNEL_LAYER="core",
                          BOHNANZA_CHANNEL_CAPACITY="200")
    assert roomy["CHANNEL_LAYERS"]["default"]["CONFIG"]["capacity"] == 200
    with pytest.raises(ImproperlyConfigured, match="BOHNANZA_CHANNEL_LAYER: pubsub"):
        read_settings(monkeypatch, REDIS_URL=url, BOHNANZA_CHANNEL_LAYER="rabbit")
    with pytest.raises(ImproperlyConfigured, match="BOHNANZA_CHANNEL_CAPACITY"):
        read_settings(monkeypatch, REDIS_URL=url, BOHNANZA_CHANNEL_LAYER="core",
                      BOHNANZA_CHANNEL_CAPACITY="10")
