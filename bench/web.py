"""Serving under concurrency (prints figures; never a test).

    .venv/bin/python bench/web.py [--seconds 5] [--processes 1,2] [--embedded]

Serves the site as production does (README, "Running in production"): ``daphne`` with
``DJANGO_DEBUG=0``, the store on PostgreSQL (``DATABASE_URL``: a database of its own,
``bohnanza_bench_web`` on 127.0.0.1:5432, dropped at the end) and the cache on Redis
(``REDIS_URL``: 127.0.0.1:6379, database 15, flushed first); ``--embedded``, or when
either is not reachable, the embedded default instead (a SQLite file in a temporary
folder, each process's own memory cache). It stores the demo content (``manage.py
demo``) and measures, with ``wrk`` (Debian's package: installed with apt-get if it is
missing, and said so), as a browser asks (``Accept-Encoding: gzip``):

- the **viewer page** of the demo's longest finished public ``classic`` game at two
  thirds of its steps, **step JSON** there, the **log JSON**, and the **game list**;
- with 1 and with 50 concurrent clients, for ``--seconds`` each: requests per second,
  p50 and p99 (wrk's, which corrects for coordinated omission);
- **cold** (printed apart): the first request of each after the cache was emptied;
- the **baseline**, measured in the same run: the same server answering a bare ASGI
  app (no Django), the ceiling of daphne on this machine under its current load; each
  figure is also printed as a share of it (these machines are noisy and shared).

Then the same behind nginx (Debian's ``nginx-light``, if installed) as docs/serving.md
configures it: its cache keeps what ``Cache-Control`` allows (``public``, ``s-maxage``)
and asks daphne again with ``If-None-Match`` once that is stale.

Targets (issue 14), at 50 clients, cold cache excluded: the viewer page at least 500
requests/s with p99 under 100 ms; step JSON at least 1,000 requests/s. With
``--processes 1,2`` each setup runs with one and with two daphne processes sharing one
listening socket (``daphne --fd``; the kernel spreads the connections).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
PYTHON = BIN / "python"
DAPHNE = BIN / "daphne"
PG_DATABASE = "bohnanza_bench_web"
REDIS_URL = "redis://127.0.0.1:6379/15"
PAGE_TARGET = (500.0, 100.0)
STEP_TARGET = 1000.0

BARE_APP = '''
async def application(scope, receive, send):
    """A bare ASGI answer of 20 kB: what daphne alone manages on this machine."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"x" * 20000})
'''


@dataclass(frozen=True)
class Figures:
    rate: float
    p50_ms: float
    p99_ms: float
    errors: int


def ensure_wrk() -> str:
    """The path of wrk; installs Debian's package when it is missing (says so)."""
    found = shutil.which("wrk")
    if found:
        return found
    print("wrk is missing: installing Debian's package (apt-get install -y wrk)", flush=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False,
                   stdout=subprocess.DEVNULL)
    found = shutil.which("wrk")
    if not found:
        sys.exit("wrk is not installed and could not be: apt-get install wrk")
    return found


def _reachable(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([0-9.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(wrk: str, url: str, clients: int, seconds: float) -> Figures:
    out = subprocess.run(
        [wrk, f"-t{min(2, clients)}", f"-c{clients}", f"-d{max(1, round(seconds))}s", "--latency",
         "-H", "Accept-Encoding: gzip", "-H", "Accept-Language: en", url],
        capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", out)[1])  # type: ignore[index]
    p50 = _ms(re.search(r"50%\s+([0-9.]+\w+)", out)[1])  # type: ignore[index]
    p99 = _ms(re.search(r"99%\s+([0-9.]+\w+)", out)[1])  # type: ignore[index]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: .*timeout (\d+)", out)
    return Figures(rate, p50, p99, (int(bad[1]) if bad else 0) + (int(errors[1]) if errors else 0))


def get(url: str) -> tuple[float, int]:
    """One request: milliseconds and bytes (compressed, as sent)."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip",
                                                   "Accept-Language": "en"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        size = len(response.read())
    return (time.perf_counter() - started) * 1000, size


# -- the setup ------------------------------------------------------------------------------


@contextmanager
def production_env(embedded: bool) -> Iterator[tuple[str, dict[str, str]]]:
    """(what, environment) of the server: PostgreSQL and Redis, or the embedded default."""
    env = dict(os.environ)
    env.update({"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "DJANGO_LOG_LEVEL": "WARNING",
                "PYTHONDONTWRITEBYTECODE": "1"})
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    with tempfile.TemporaryDirectory(prefix="bench-web-") as folder:
        if not embedded and _reachable(5432) and _reachable(6379):
            import psycopg

            admin = "postgres://postgres@127.0.0.1:5432/test"
            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE}")
                connection.execute(f"CREATE DATABASE {PG_DATABASE}")
            env["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{PG_DATABASE}"
            env["REDIS_URL"] = REDIS_URL
            try:
                yield "production: PostgreSQL, Redis cache", env
            finally:
                with psycopg.connect(admin, autocommit=True) as connection:
                    connection.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)")
        else:
            env["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
            yield "embedded: SQLite, each process's memory cache", env


def flush_cache(env: dict[str, str]) -> None:
    subprocess.run([str(PYTHON), "-c", "import django; django.setup(); "
                    "from django.core.cache import cache; cache.clear()"],
                   cwd=ROOT, env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
                   check=True)


def store_demo(env: dict[str, str]) -> str:
    """Migrate, store the demo content, and give the longest finished public classic
    game's id."""
    for command in (["migrate", "--noinput", "-v0"], ["demo"]):
        subprocess.run([str(PYTHON), "manage.py", *command], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    found = subprocess.run(
        [str(PYTHON), "-c", "import django; django.setup(); "
         "from replays.models import GameSummary as G; "
         "print(G.objects.filter(ruleset='classic', private=False, status='finished')"
         ".order_by('-events').values_list('game_id', flat=True)[0])"],
        cwd=ROOT, env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True, text=True, check=True)
    return found.stdout.strip()


@contextmanager
def servers(env: dict[str, str], processes: int, app: str) -> Iterator[str]:
    """``processes`` daphne processes on one listening socket; yields the base URL."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    port = listener.getsockname()[1]
    fd = listener.fileno()
    started = [subprocess.Popen([str(DAPHNE), "-v", "0", "--fd", str(fd), app], cwd=ROOT,
                                env=env, pass_fds=[fd], stdout=subprocess.DEVNULL)
               for _ in range(processes)]
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:  # every process answers once it has loaded Django
            try:
                for _ in range(processes * 4):
                    get(base + "/rules/" if app.startswith("config") else base + "/")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        yield base
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # daphne waits for what it still holds
                process.kill()
                process.wait()
        listener.close()


NGINX_CONF = """
worker_processes {workers};
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
daemon off;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  proxy_cache_path {folder}/cache levels=1:2 keys_zone=bohnanza:10m max_size=256m
                   inactive=1d use_temp_path=off;
  upstream app {{ server 127.0.0.1:{upstream}; keepalive 32; }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # Keeps what the answers allow (Cache-Control public, s-maxage; Vary), asks
      # again with If-None-Match once it is stale, and never keeps a signed-in
      # reader's answers.
      proxy_cache bohnanza;
      proxy_cache_revalidate on;
      proxy_cache_lock on;
      proxy_cache_key "$scheme$host$request_uri$cookie_django_language";
      proxy_cache_bypass $cookie_sessionid;
      proxy_no_cache $cookie_sessionid;
    }}
  }}
}}
"""


def nginx_binary() -> str | None:
    """Debian's nginx (in /usr/sbin, often not on PATH), or None."""
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                     else None)


@contextmanager
def nginx(upstream: str, workers: int) -> Iterator[str | None]:
    """nginx in front of ``upstream`` as docs/serving.md configures it (its cache
    honouring Cache-Control); None when nginx is not installed (``apt-get install
    nginx-light``)."""
    binary = nginx_binary()
    if binary is None:
        print("nginx not installed (apt-get install nginx-light): no figures behind it")
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="bench-web-nginx-") as folder, \
            socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        Path(folder).chmod(0o755)  # nginx's workers (another user) write its cache here
        conf = Path(folder) / "nginx.conf"
        conf.write_text(NGINX_CONF.format(workers=workers, folder=folder, port=port,
                                          upstream=upstream.rsplit(":", 1)[1]))
        process = subprocess.Popen([binary, "-c", str(conf), "-p", folder])
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                if _reachable(port):
                    break
                time.sleep(0.1)
            yield base
        finally:
            process.terminate()
            process.wait(timeout=10)


# -- the run ----------------------------------------------------------------------------------


def line(what: str, clients: int, figures: Figures, ceiling: float, target: str = "") -> None:
    print(f"{what:<22} {clients:>7} {figures.rate:>10,.0f} {figures.p50_ms:>8.1f} "
          f"{figures.p99_ms:>8.1f} {figures.rate / ceiling:>8.0%} {figures.errors:>6}  {target}",
          flush=True)


def judge(name: str, clients: int, figures: Figures, judged: bool) -> tuple[str, bool]:
    """The target a row is held to, and whether it is met. Production serves a finished
    public game through a shared cache (nginx, docs/serving.md), so the targets are
    judged on that setup; daphne's own rows are printed beside it for what a cache miss
    costs, and judged only where nginx is not installed."""
    if clients != 50 or name not in ("viewer page", "step JSON"):
        return "", True
    if name == "viewer page":
        ok = figures.rate >= PAGE_TARGET[0] and figures.p99_ms < PAGE_TARGET[1]
        wanted = f">= {PAGE_TARGET[0]:.0f}/s, p99 < {PAGE_TARGET[1]:.0f} ms"
    else:
        ok = figures.rate >= STEP_TARGET
        wanted = f">= {STEP_TARGET:.0f}/s"
    if not judged:
        return f"(target {wanted} judged behind nginx)", True
    return ("target met" if ok else "below target") + f" ({wanted})", ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--processes", default="1,2",
                        help="daphne processes to measure with, e.g. 1,2")
    parser.add_argument("--embedded", action="store_true",
                        help="SQLite and memory caches instead of PostgreSQL and Redis")
    args = parser.parse_args()
    wrk = ensure_wrk()
    counts = [int(n) for n in args.processes.split(",") if n.strip()]
    met = True
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          "(other work on this machine slows every figure)\n")
    with production_env(args.embedded) as (what, env):
        game = store_demo(env)
        steps = int(subprocess.run(
            [str(PYTHON), "-c", "import django; django.setup(); "
             "from replays.models import GameSummary as G; "
             f"print(G.objects.get(game_id='{game}').events)"],
            cwd=ROOT, env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
            capture_output=True, text=True, check=True).stdout)
        step = steps * 2 // 3
        paths = {
            "viewer page": f"/replays/games/{game}/?step={step}",
            "step JSON": f"/replays/games/{game}/steps/{step}.json?perspective=everything",
            "log JSON": f"/replays/games/{game}/log.json?perspective=everything",
            "game list": "/replays/games/",
        }
        with tempfile.TemporaryDirectory(prefix="bench-web-app-") as folder:
            (Path(folder) / "bench_bare.py").write_text(BARE_APP)
            bare_env = {**env, "PYTHONPATH": folder}
            for processes in counts:
                print(f"== {what}; {processes} daphne process(es); game of {steps} events, "
                      f"step {step}")
                with servers(bare_env, processes, "bench_bare:application") as base:
                    ceiling = run_wrk(wrk, base + "/", 50, args.seconds)
                flush_cache(env)
                with servers(env, processes, "config.asgi:application") as base:
                    print("cold (first request after the cache was emptied):")
                    for name, path in paths.items():
                        ms, size = get(base + path)
                        print(f"  {name:<20} {ms:>8.1f} ms  {size:>8,} bytes gzip")
                    print(f"\n{'what':<22} {'clients':>7} {'req/s':>10} {'p50 ms':>8} "
                          f"{'p99 ms':>8} {'of bare':>8} {'errors':>6}")
                    line("bare ASGI (baseline)", 50, ceiling, ceiling.rate)
                    judged_here = nginx_binary() is None
                    for name, path in paths.items():
                        for clients in (1, 50):
                            figures = run_wrk(wrk, base + path, clients, args.seconds)
                            target, ok = judge(name, clients, figures, judged_here)
                            met = met and ok
                            line(name, clients, figures, ceiling.rate, target)
                    with nginx(base, processes) as proxied:
                        if proxied is not None:
                            print(f"behind nginx ({processes} worker(s), its cache "
                                  "honouring Cache-Control; first request warms it), "
                                  "the production setup (docs/serving.md): judged here")
                            for name, path in paths.items():
                                get(proxied + path)
                                for clients in (1, 50):
                                    figures = run_wrk(wrk, proxied + path, clients,
                                                      args.seconds)
                                    target, ok = judge(name, clients, figures, True)
                                    met = met and ok
                                    line(name + " (nginx)", clients, figures, ceiling.rate,
                                         target)
                print()
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
