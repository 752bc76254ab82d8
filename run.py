#!/usr/bin/env python3
"""Bootstrap the platform on a machine with only Python 3.11+ and pip.

    python3 run.py start   install, migrate, store demo games, serve the site
    python3 run.py test    install, then ruff, mypy, lint-imports, manage.py check,
                           pytest [ARGS...]

Both first make sure ``.venv`` holds ``requirements.lock`` and the project (editable);
the install is skipped while ``requirements.lock``, ``pyproject.toml``, ``setup.py`` and
the sources of the modules compiled with mypyc are unchanged (an edited source is
compiled again). The install compiles the engine and the bots with the venv's mypyc
(``--no-build-isolation``) where a C compiler is present, else installs them pure;
it says which. ``test`` without test paths (the whole suite) also runs ``tests/core``
(but the ``slow`` games and the property search) a second time on the pure modules
(``BOHNANZA_PURE_PYTHON=1``), alongside the suite.
"""

import contextlib
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Callable
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
MARKER = VENV / ".bohnanza-install-sha256"
VAR = ROOT / "var"
PRIVATE_UMASK = 0o077
"""The umask of run.py and everything it starts: files 0600, folders 0700."""
INSTALL_INPUTS = ("requirements.lock", "pyproject.toml", "setup.py", "bohnanza_core/build.py")
PYTEST_NO_TESTS = 5


def say(message: str) -> None:
    print(f"==> {message}", flush=True)


def venv_env() -> dict[str, str]:
    """The environment with the virtualenv's scripts first on PATH."""
    env = dict(os.environ)
    env["VIRTUAL_ENV"] = str(VENV)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env.pop("PYTHONHOME", None)
    return env


def run(*args: str) -> None:
    """Run a command in the project folder; stop with its exit code if it fails."""
    print("$ " + " ".join(args), flush=True)
    code = subprocess.run(args, cwd=ROOT, env=venv_env(), check=False).returncode
    if code != 0:
        say(f"failed (exit code {code}): {' '.join(args)}")
        sys.exit(code)


def compiled_sources() -> list[str]:
    """The sources setup.py compiles (bohnanza_core/build.py, loaded by its path: the
    package itself may not import before the install)."""
    spec = importlib.util.spec_from_file_location("_bohnanza_build",
                                                  ROOT / "bohnanza_core" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    package = Path("bohnanza_core")
    return [build.source_path(module, package).as_posix() for module in build.COMPILED]


def install_fingerprint() -> str:
    digest = hashlib.sha256()
    for name in (*INSTALL_INPUTS, *compiled_sources()):
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0")
    return digest.hexdigest()


def ensure_installed() -> None:
    if not PYTHON.exists():
        say(f"creating the virtual environment {VENV}")
        venv.create(VENV, with_pip=True, clear=VENV.exists())
    fingerprint = install_fingerprint()
    if MARKER.exists() and MARKER.read_text().strip() == fingerprint:
        say("dependencies up to date (requirements.lock, pyproject.toml, setup.py and the "
            "compiled sources unchanged)")
        return
    say("installing requirements.lock and the project (editable; the engine compiled "
        "with mypyc)")
    MARKER.unlink(missing_ok=True)
    pip_install = (str(PYTHON), "-m", "pip", "install", "--disable-pip-version-check")
    run(*pip_install, "-r", "requirements.lock")
    # No build isolation: the venv's pinned mypy (mypyc) and setuptools do the build.
    run(*pip_install, "--no-deps", "--no-build-isolation", "-e", ".")
    run(str(PYTHON), "-c", "import bohnanza_core; print('==> engine build:', bohnanza_core.BUILD)")
    MARKER.write_text(fingerprint + "\n")


def keep_private(folder: Path) -> None:
    """Make ``folder`` (``var/``) its owner's alone, now and from now on: what it holds
    is secret (the SQLite database holds every running game's seed and salt, the Celery
    messages a competition's deals, the logs whatever a traceback shows). This process,
    and so everything it starts (the server, the worker, manage.py), gets the umask
    :data:`PRIVATE_UMASK`; ``folder`` is created 0700, and what it already holds from
    before (made under a looser umask) loses every bit for the group and others (a
    folder 0755 becomes 0700, a file 0644 0600), the owner's own entries only (a
    symbolic link is left alone: its target is elsewhere)."""
    os.umask(PRIVATE_UMASK)
    folder.mkdir(mode=0o700, exist_ok=True)
    owner = os.getuid() if hasattr(os, "getuid") else None
    for path in [folder, *folder.rglob("*")]:
        try:
            stat = path.lstat()
        except FileNotFoundError:  # removed meanwhile (a message taken, a journal)
            continue
        if path.is_symlink() or (owner is not None and stat.st_uid != owner):
            continue
        if stat.st_mode & PRIVATE_UMASK:
            with contextlib.suppress(FileNotFoundError):
                path.chmod(stat.st_mode & 0o7777 & ~PRIVATE_UMASK)


def start_pure_pass(output: IO[bytes]) -> subprocess.Popen[bytes]:
    """Start the core tests again on the pure modules (``BOHNANZA_PURE_PYTHON=1``), their
    output into ``output``, alongside the whole suite. Not the slow games nor the
    property search: compiled and pure play the same games byte for byte
    (tests/core/test_build.py). One worker of its own: the suite keeps the two cores of
    the README's machine some 70% busy, waiting on browsers, servers and workers, and
    this pass fills that (a minute after the suite, run one after the other)."""
    command = [str(PYTHON), "-m", "pytest", "-q", "-n", "1", "-m", "not slow", "tests/core",
               "--ignore", "tests/core/test_properties.py"]
    say("tests: alongside, the core tests on the pure modules: BOHNANZA_PURE_PYTHON=1 "
        + " ".join(command))
    return subprocess.Popen(command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT,
                            env={**venv_env(), "BOHNANZA_PURE_PYTHON": "1"})


def test(pytest_args: list[str]) -> None:
    say("lint: ruff check .")
    run(str(PYTHON), "-m", "ruff", "check", ".")
    say("types: mypy (configured in pyproject.toml)")
    run(str(PYTHON), "-m", "mypy")
    say("layers: lint-imports (the contracts of [tool.importlinter] in pyproject.toml)")
    run(str(BIN / "lint-imports"), "--no-cache", "--no-logo")
    say("Django system checks: manage.py check")
    run(str(PYTHON), "manage.py", "check")
    say("tests: pytest " + " ".join(pytest_args))
    command = [str(PYTHON), "-m", "pytest", *pytest_args]
    whole = not any(not arg.startswith("-") for arg in pytest_args)
    with tempfile.TemporaryFile() as pure_output:
        pure = start_pure_pass(pure_output) if whole else None
        print("$ " + " ".join(command), flush=True)
        try:
            code = subprocess.run(command, cwd=ROOT, env=venv_env(), check=False).returncode
        except BaseException:  # interrupted (Ctrl-C): the pass alongside stops too
            if pure is not None:
                pure.kill()
            raise
        if pure is not None:
            pure_code = pure.wait()
            say(f"tests: the core tests on the pure modules (exit code {pure_code}):")
            pure_output.seek(0)
            sys.stdout.buffer.write(pure_output.read())
            sys.stdout.flush()
            code = code or pure_code
    if code == PYTEST_NO_TESTS:
        say("failed: pytest collected no tests")
    elif code != 0:
        say(f"failed: pytest exit code {code}")
    else:
        say("all checks passed")
    sys.exit(code)


WORKER_PARENT = "BOHNANZA_WORKER_PARENT"
"""The environment variable naming the pid the worker watches (config/celery.py): when
that process is gone, the worker stops."""
STOP_SECONDS = 30
"""How long a stopping worker or server may take before it is killed."""


def _die_with_parent() -> None:
    """In a child before it runs (``preexec_fn``): on Linux, ask the kernel to send it
    SIGTERM when this process dies, however it dies (SIGKILL included)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def _child(command: list[str], log: IO[bytes] | None = None) -> "subprocess.Popen[bytes]":
    """A child process that stops when this one dies: the kernel's parent-death signal
    on Linux, and the worker's own watchdog on the parent pid anywhere. ``log``: its
    output (else this process's)."""
    env = venv_env()
    env[WORKER_PARENT] = str(os.getpid())
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT if log is not None else None,
                            preexec_fn=_die_with_parent if os.name == "posix" else None)


def start_worker(log_path: Path | None = None) -> "subprocess.Popen[bytes]":
    """A Celery worker process in the background (without CELERY_BROKER_URL: over files
    under var/celery/, no broker server), logging to var/celery/worker.log, running the
    beat that ticks the ladders and looks at the leagues' live tables
    (django-celery-beat's schedules in the database). It stops with this process
    (:func:`serve` stops it; if this process is killed, the parent-death signal and the
    worker's watchdog do)."""
    log_path = log_path or VAR / "celery" / "worker.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    say(f"a Celery worker in the background (log: {log_path})")
    with open(log_path, "ab") as log:
        worker = _child([str(PYTHON), "-m", "celery", "-A", "config", "worker",
                         "--loglevel", "INFO", "--concurrency", "2", "--beat"], log)
    say(f"worker pid {worker.pid}")
    return worker


def _stop(process: "subprocess.Popen[bytes]", name: str) -> None:
    """SIGTERM (a Celery worker's warm shutdown), then SIGKILL if it hangs."""
    if process.poll() is not None:
        return
    say(f"stopping the {name} (pid {process.pid})")
    process.terminate()
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


WORKER_RESTARTS = 5
"""How many times :func:`serve` starts a dead worker again within
:data:`WORKER_RESTART_SECONDS`; a worker that dies more often than that has a fault that
restarting does not mend, and is left stopped, loudly."""
WORKER_RESTART_SECONDS = 60.0
POLL_SECONDS = 0.5
"""How often :func:`serve` looks whether the worker still runs."""


def _ended(process: "subprocess.Popen[bytes]") -> str:
    code = process.returncode
    return f"killed by signal {-code}" if code < 0 else f"exit code {code}"


def serve(command: list[str], worker: "subprocess.Popen[bytes]",
          restart: "Callable[[], subprocess.Popen[bytes]] | None" = None) -> int:
    """Run the server as a child until it stops (Ctrl-C, SIGTERM to this process, or
    the server killed), then stop the worker too; returns the server's exit code.

    Nothing else watches the worker (the embedded default has no service manager), and
    without it ladders stop ticking and stalls go unnoticed while the site still
    serves: while the server runs, a worker that exits is said so and started again by
    ``restart``, at most :data:`WORKER_RESTARTS` times in :data:`WORKER_RESTART_SECONDS`."""
    import signal

    def terminated(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, terminated)
    print("$ " + " ".join(command), flush=True)
    server = _child(command)
    say(f"server pid {server.pid}")
    restarts: list[float] = []
    given_up = False
    try:
        while True:
            try:
                return server.wait(timeout=POLL_SECONDS)
            except subprocess.TimeoutExpired:
                pass
            if restart is None or given_up or worker.poll() is None:
                continue
            now = time.monotonic()
            restarts = [t for t in restarts if now - t < WORKER_RESTART_SECONDS]
            if len(restarts) >= WORKER_RESTARTS:
                given_up = True
                say(f"WORKER DOWN: the worker (pid {worker.pid}) stopped ({_ended(worker)}) "
                    f"{len(restarts) + 1} times in {WORKER_RESTART_SECONDS:g} s; not "
                    f"starting it again. No competition plays on until run.py start is "
                    f"run again (log: var/celery/worker.log)")
                continue
            restarts.append(now)
            say(f"the worker (pid {worker.pid}) stopped ({_ended(worker)}): starting it "
                f"again ({len(restarts)} of {WORKER_RESTARTS} in "
                f"{WORKER_RESTART_SECONDS:g} s)")
            worker = restart()
    except KeyboardInterrupt:
        return 130
    finally:
        _stop(server, "server")
        _stop(worker, "worker")


def server_command(port: str) -> list[str]:
    """The development server ``start`` runs: daphne's ``runserver`` (the ASGI
    application, websockets included) with ``--nostatic``. WhiteNoise, in the
    application, serves ``/static/`` already, debug or not (config/settings.py); the
    debug server's own static handler in front of it answered a path that climbs out of
    the static folder (``/static/..%2fconfig%2fsettings.py``) with a 500 where WhiteNoise
    answers 400."""
    return [str(PYTHON), "manage.py", "runserver", "--nostatic", f"127.0.0.1:{port}"]


def start() -> None:
    say("database: manage.py migrate")
    run(str(PYTHON), "manage.py", "migrate", "--noinput")
    say("demo: accounts and bot games in the event store (once)")
    run(str(PYTHON), "manage.py", "demo")
    run(str(PYTHON), "manage.py", "demo_tournament")
    worker = start_worker()
    try:
        # The competitions' missing games are sent again (a worker stopped mid-game
        # left them undone).
        run(str(PYTHON), "manage.py", "tournament", "resume")
        port = os.environ.get("PORT", "8000")
        say(f"serving the site at http://127.0.0.1:{port}/ (Ctrl-C stops it and the worker)")
        code = serve(server_command(port), worker, restart=start_worker)
    finally:
        _stop(worker, "worker")
    sys.exit(code)


def main(argv: list[str]) -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - run.py may be started by an older python3
        sys.exit("run.py needs Python 3.11 or newer")
    if not argv or argv[0] not in ("start", "test"):
        sys.exit("usage: python3 run.py start | python3 run.py test [PYTEST ARGS...]")
    os.chdir(ROOT)
    ensure_installed()
    keep_private(VAR)
    if argv[0] == "test":
        test(argv[1:])
    else:
        start()


if __name__ == "__main__":
    main(sys.argv[1:])
