"""Live tables under load (prints figures; never a test).

    .venv/bin/python bench/live.py [--tables 100] [--rates 0.5,1,2] [--seconds 15]

Production's shape (README, "Running in production"): two ``daphne`` processes with
``DJANGO_DEBUG=0``, the store on PostgreSQL (a database of its own on 127.0.0.1:5432,
dropped at the end) and the Redis channel layer (127.0.0.1:6379, database 11, flushed):
the settings' default, channels_redis's pub/sub layer (``BOHNANZA_CHANNEL_LAYER=core``
for its core layer).
``--tables`` tables of four websocket clients (people by session cookie, bot accounts by
API token, seats split between the two servers) play short games through the protocol
(docs/protocol.md), each client seeing only its seat's frames; each table moves at a
fixed pace, one command per ``1/rate`` seconds, the rate raised stage by stage
(``--rates``, ``--seconds`` each).

Per stage it prints p50 and p99 **from a command sent to the last seat's update** (the
fourth seat told the game moved on from that version), and the highest rate before p99
passes 50 ms; then **where the CPU goes** in the stage, per command delivered: the two
daphnes, the bench's own clients (this process), the PostgreSQL backends of the bench's
database, Redis and the whole machine (``/proc``), and the **floor**: the commands a
second these cores could carry if they ran nothing but this. Tables that stalled (with
what the store holds for one), refused commands and errors in the servers' logs are
counted, so a run that lost updates shows it. The **baseline**, measured in the same
run on the same servers under the same load: the protocol's ``ping`` round trip
(daphne and the consumer, no store, no channel layer). Then **where the time goes**,
in one process on the same services: a table driver's look (``driver.next_step``, at a
table where it has nothing to play), the store write (``Games.play_on``), building
every perspective's update (``live.updates``), drawing one seat's frame
(``live.answer_for``) and one ``group_send`` through Redis, per command.

Target: 100 tables x 4 clients, one command per table per second: p99 at most 50 ms.
How to read the output, the latest figures and the commands that measured them:
docs/performance.md, "Live tables (bench/live.py)"; why the servers work as they do:
docs/serving.md, "Live tables".

The **outside bots' mode** (``--modes outside``, or after the people's by default):
``--outside-tables`` tables (100), each with one bot account's client of the client
package (clients/python, playing examples/remote_bot.py's heuristic) and three built-in
bots driven by the servers, for ``--outside-seconds``. It prints p50 and p99 **from a
bot's command to the state frame reflecting it** (the frame carrying the command's
``ref``), the same per 5-second window (every table's game starts at once: the first
seconds are the busiest; ``--outside-settle`` sets how long the tables play before the
measurement), the ping baseline, refusals and CPU per bot command, beside the people's
mode's figures of the same run. Target: p99 at most 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import ClientConnection  # noqa: E402
from websockets.exceptions import InvalidHandshake  # noqa: E402

from tests.services.live_servers import (  # noqa: E402
    Daphne,
    SeatClient,
    free_port,
    migrate,
    seat_tables,
    server_env,
)

REDIS_URL = "redis://127.0.0.1:6379/11"
POSTGRES = "postgres://postgres@127.0.0.1:5432/"
TARGET_MS = 50.0
WINDOW = 5.0
"""Seconds of the outside bots' mode's timeline windows."""


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Pace:
    """One table's pace: a command at most every ``1/rate`` seconds, the rate read
    from the stage running."""

    def __init__(self, bench: Bench, offset: float) -> None:
        # Tables start spread over one period, not all at once.
        self.bench, self.next_at = bench, time.perf_counter() + offset / bench.rate

    async def __call__(self) -> None:
        now = time.perf_counter()
        self.next_at = max(self.next_at, now)
        await asyncio.sleep(self.next_at - now)
        self.next_at += 1.0 / self.bench.rate


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used (``/proc/<pid>/stat``); 0 if it
    is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def named_pids(name: str) -> list[int]:
    """Processes whose command name is ``name`` (the services' servers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


class Cpu:
    """Where the CPU goes during a stage, per process kind: the two daphnes, the bench's
    own clients (this process), PostgreSQL (the backends serving the bench's database)
    and Redis, and the whole machine (``/proc/stat``), so that what the bench's clients
    cost the shared cores is known beside what the servers cost."""

    def __init__(self, daphnes: list[Daphne], database: str) -> None:
        self.daphnes, self.database = daphnes, database
        self.redis = named_pids("redis-server")

    def postgres(self) -> list[int]:
        import psycopg
        with psycopg.connect(POSTGRES + "postgres", autocommit=True) as db:
            rows = db.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s",
                              (self.database,)).fetchall()
        return [int(r[0]) for r in rows]

    def sample(self) -> dict[str, float]:
        machine = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        busy = sum(int(x) for i, x in enumerate(machine[:8]) if i not in (3, 4))
        return {
            "daphnes": sum(cpu_seconds(d.process.pid) for d in self.daphnes
                           if d.process is not None),
            "bench clients": time.process_time(),
            **{f"postgres {p}": cpu_seconds(p) for p in self.postgres()},
            "redis": sum(cpu_seconds(p) for p in self.redis),
            "machine": busy / CLOCK_TICKS,
        }


class Bench:
    def __init__(self, rates: list[float], seconds: float, cpu: Cpu | None = None
                 ) -> None:
        self.rates, self.seconds = rates, seconds
        self.rate = rates[0]
        self.stages: list[tuple[float, float, float]] = []  # (rate, start, end)
        self.pings: list[tuple[float, float]] = []  # (sent at, round trip)
        self.cpu = cpu
        self.used: list[dict[str, float]] = []  # CPU seconds per kind, per stage
        self.loads: list[float] = []  # the 1-minute load average at each stage's end

    async def ping(self, port: int, table: str) -> None:
        """The baseline: a spectator's ``ping`` round trips, ten a second, until the
        last stage ends."""
        client = SeatClient(port, table, None)
        socket = await client.open()
        ref = 0
        while len(self.stages) < len(self.rates):
            ref += 1
            sent = time.perf_counter()
            await socket.send(f'{{"type": "ping", "ref": {ref}}}')
            while True:
                frame = await socket.recv()
                if '"pong"' in frame and f'"ref":{ref}' in frame:
                    break
            self.pings.append((sent, time.perf_counter() - sent))
            await asyncio.sleep(0.1)
        await socket.close()

    async def run_stages(self) -> None:
        for rate in self.rates:
            self.rate = rate
            print(f"stage {rate} commands per table per second", flush=True)
            # The first seconds of a stage are the tables settling into its pace.
            await asyncio.sleep(min(2.0, self.seconds / 5))
            before = self.cpu.sample() if self.cpu is not None else {}
            start = time.perf_counter()
            await asyncio.sleep(self.seconds)
            end = time.perf_counter()
            if self.cpu is not None:
                after = self.cpu.sample()
                used = {k: after[k] - before.get(k, 0.0) for k in after
                        if not k.startswith("postgres ")}
                # The backends serving the bench's database (a pool's, mostly the same
                # ones throughout): each one's CPU during the stage.
                used["postgres"] = sum(v - before.get(k, 0.0) for k, v in after.items()
                                       if k.startswith("postgres "))
                self.used.append(used)
            self.loads.append(os.getloadavg()[0])
            self.stages.append((rate, start, end))

    def stage_of(self, at: float) -> float | None:
        for rate, start, end in self.stages:
            if start <= at < end:
                return rate
        return None


def latencies(tables: list[list[SeatClient]]) -> list[tuple[float, float]]:
    """(sent at, seconds until the last seat was told) for every command sent."""
    out = []
    for seats in tables:
        for client in seats:
            for version, sent in client.sent.items():
                told = [c.moved.get(version) for c in seats]
                if all(t is not None for t in told):
                    out.append((sent, max(t for t in told if t is not None) - sent))
    return out


async def load(daphnes: list[Daphne], tables: list[dict[str, Any]], bench: Bench,
               bots_draw: bool = False) -> list[list[SeatClient]]:
    # Each table's seats alternate between the servers, the first seat's server
    # alternating from table to table: every game starts with seat 0 to play, and the
    # tables' turns keep in step, so with seat 0 always on one server the store writes
    # and updates of nearly every table swung from one server to the other and back
    # every few seconds (85% of a core against 36%, in 2 s samples).
    # The bot accounts' clients ask for frames without the drawing, as
    # examples/remote_bot.py does (``?html=0``), unless ``bots_draw``.
    seated = [[SeatClient(daphnes[(n + i) % 2].port, t["table"], credential, keep=2,
                          html=True if bots_draw else None)
               for n, credential in enumerate(t["seats"])] for i, t in enumerate(tables)]
    # Connecting is not what is measured: 16 handshakes at a time (400 at once
    # exhaust the servers' database pools, and daphne drops the rest).
    gate = asyncio.Semaphore(16)

    async def open_one(client: SeatClient) -> ClientConnection:
        # A loaded machine's daphne drops a handshake now and then (its 5 s handshake
        # timeout): try again, three times at most.
        for attempt in range(3):
            async with gate:
                try:
                    return await client.open()
                except (OSError, InvalidHandshake):
                    if attempt == 2:
                        raise
                    client.connections.pop()
        raise AssertionError("unreachable")

    started = time.perf_counter()
    sockets = await asyncio.gather(*(open_one(c) for seats in seated for c in seats))
    print(f"{len(sockets)} clients connected in {time.perf_counter() - started:.1f} s",
          flush=True)
    playing = []
    for n, (seats, table_sockets) in enumerate(zip(seated, [sockets[i:i + 4] for i in
                                             range(0, len(sockets), 4)], strict=True)):
        pace = Pace(bench, n / len(seated))
        playing += [asyncio.create_task(c.play(s, quiet=3600, pace=pace))
                    for c, s in zip(seats, table_sockets, strict=True)]
    pings = [asyncio.create_task(bench.ping(d.port, tables[0]["table"])) for d in daphnes]
    # The clients' own garbage collector must not stand in the figures: what is set up
    # is frozen out of its sight, and it does not run during the stages (what the
    # clients leave in cycles meanwhile is a few megabytes). A full collection of this
    # process, every 4 s or so, had held all 400 clients for 180-520 ms, the slowest
    # commands of a run (docs/performance.md).
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        await bench.run_stages()
    finally:
        gc.enable()
    await asyncio.gather(*pings)
    await look_at_idle(bench, seated)
    # The clients stop by their sockets closing (``play`` returns), the cancellation
    # after it only a backstop: a client whose cancellation was swallowed (Python
    # 3.11's ``wait_for``, which it used then) once waited an hour for a frame, and
    # that looked like every table of a pub/sub run stalling at once (docs/performance.md).
    await asyncio.gather(*(socket.close() for socket in sockets), return_exceptions=True)
    for task in playing:
        task.cancel()
    await asyncio.gather(*playing, return_exceptions=True)
    return seated


async def look_at_idle(bench: Bench, seated: list[list[SeatClient]]) -> None:
    """For a table that sent no command in the last stage, what the store holds: a
    spectator's first frame (the whole view, rebuilt from the store) on each server."""
    start, end = bench.stages[-1][1:]
    idle = [seats for seats in seated
            if not any(start <= at < end for c in seats for at in c.sent.values())]
    if not idle:
        return
    for port in sorted({c.port for c in idle[0]}):
        watcher = SeatClient(port, idle[0][0].table, None)
        try:
            socket = await watcher.open()
            frame = json.loads(await asyncio.wait_for(socket.recv(), timeout=30))
            await socket.close()
            print(f"an idle table as stored, seen through port {port}: "
                  f"v{frame.get('version')} awaiting "
                  f"{frame.get('answer', {}).get('table', {}).get('awaiting')}", flush=True)
        except Exception as error:  # a diagnosis: say what happened
            print(f"an idle table through port {port}: {error!r}", flush=True)


def timeline(bench: Bench, seated: list[list[SeatClient]], window: float) -> None:
    """p50, p99 and the slowest command per ``window`` seconds of each stage: whether
    the slow commands are spread out (a queue) or come together (a pause)."""
    samples = latencies(seated)
    for rate, start, end in bench.stages:
        print(f"stage {rate:g}/s, per {window:g} s: commands, p50, p99, slowest (ms)")
        at = start
        while at < end:
            got = sorted(d * 1000 for sent, d in samples if at <= sent < at + window)
            if got:
                print(f"  {at - start:6.1f} s {len(got):5d} {pct(got, 0.5):7.1f} "
                      f"{pct(got, 0.99):7.1f} {got[-1]:7.1f}")
            at += window


def report(bench: Bench, seated: list[list[SeatClient]]) -> None:
    samples = latencies(seated)
    best = None
    print(f"{'rate/table':>10} {'cmds/s':>7} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'ping p50':>8} {'ping p99':>8} {'tables on':>9}")
    for rate, start, end in bench.stages:
        got = [d * 1000 for at, d in samples if start <= at < end]
        pings = [d * 1000 for at, d in bench.pings if start <= at < end]
        active = sum(1 for seats in seated
                     if any(start <= at < end for c in seats for at in c.sent.values()))
        p99 = pct(got, 0.99)
        print(f"{rate:>10.2f} {len(got) / (end - start):>7.1f} {pct(got, 0.5):>7.1f} "
              f"{p99:>7.1f} {pct(pings, 0.5):>8.1f} {pct(pings, 0.99):>8.1f} {active:>9}")
        if p99 <= TARGET_MS and (best is None or rate > best):
            best = rate
    finished = sum(1 for seats in seated if any(c.finished for c in seats))
    refused: dict[str, int] = {}
    for seats in seated:
        for c in seats:
            for reason, n in c.refused.items():
                refused[reason] = refused.get(reason, 0) + n
    print(f"tables whose game ended: {finished}; commands refused: "
          f"{sum(refused.values())} "
          + ", ".join(f"{n}x {r!r}" for r, n in sorted(refused.items(), key=lambda x: -x[1])[:3]))
    if bench.stages:
        start, end = bench.stages[-1][1:]
        idle = [seats for seats in seated
                if not any(start <= at < end for c in seats for at in c.sent.values())]
        if idle:
            print(f"tables that sent no command in the last stage: {len(idle)}; the first:")
            for c in idle[0]:
                last = next((f for f in reversed(c.frames) if f["type"] == "state"), None)
                print(f"  seat {c.credential[0] if c.credential else '-'}: "
                      f"{len(c.connections)} connection(s), last "
                      + ("none" if last is None else
                         f"v{last['since']}->v{last['version']} awaiting "
                         f"{last['answer']['table']['awaiting']} seat {last['seat']}")
                      + f", sent for {sorted(c.sent)[-3:]}")
    print(f"highest rate with p99 <= {TARGET_MS:.0f} ms: "
          + (f"{best} commands per table per second" if best is not None
             else "none of the rates tried"))
    if not bench.used:
        return
    cores = os.cpu_count() or 1
    print(f"where the CPU goes, per command delivered ({cores} cores; 'machine' is every "
          "process on it, other users' included):")
    kinds = list(bench.used[0])
    print(f"{'rate/table':>10} " + " ".join(f"{k:>13}" for k in kinds)
          + f" {'load avg':>8} {'floor cmd/s':>11}")
    for (rate, start, end), used, load1 in zip(bench.stages, bench.used, bench.loads,
                                               strict=True):
        done = sum(1 for at, _ in samples if start <= at < end) or 1
        per = {k: used[k] * 1000 / done for k in kinds}
        ours = per["daphnes"] + per["bench clients"] + per["postgres"] + per["redis"]
        print(f"{rate:>10.2f} " + " ".join(f"{per[k]:>10.2f} ms" for k in kinds)
              + f" {load1:>8.2f} {cores * 1000 / ours if ours else float('nan'):>11.0f}")
    print("  floor: the commands a second these cores could carry if they ran nothing but "
          "this (daphnes + bench clients + postgres + redis CPU per command)")


# -- the outside bots' mode ----------------------------------------------------------


async def outside_bots(daphnes: list[Daphne], tables: list[dict[str, Any]], seconds: float,
                       cpu: Cpu | None, settle: float = 2.0) -> dict[str, Any]:
    """``tables`` tables, each with one bot account's client (clients/python, playing
    examples/remote_bot.py's heuristic; seats split between the servers) and three
    built-in bots on the servers, for ``seconds``: each client's commands and when the
    state frame reflecting each (its ``ref``) came back. The tables move at the
    built-in bots' pace (``BOHNANZA_BOT_PACE_MS``) and the outside bot's own: it
    answers each frame the game awaits it in at once."""
    sys.path.insert(0, str(ROOT / "clients" / "python"))
    import importlib.util

    from bohnanza_client import TableClient
    spec = importlib.util.spec_from_file_location("remote_bot",
                                                  ROOT / "examples" / "remote_bot.py")
    assert spec is not None and spec.loader is not None
    remote = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(remote)
    clients = [TableClient(f"http://127.0.0.1:{daphnes[n % 2].port}", t["table"],
                           token=t["seats"][0][1], quiet=3600)
               for n, t in enumerate(tables)]
    gate = asyncio.Semaphore(16)

    async def open_one(client: TableClient) -> None:
        for attempt in range(3):
            async with gate:
                try:
                    await client.connect()
                    return
                except (OSError, InvalidHandshake):
                    if attempt == 2:
                        raise
    started = time.perf_counter()
    await asyncio.gather(*(open_one(c) for c in clients))
    print(f"{len(clients)} bot clients connected in {time.perf_counter() - started:.1f} s",
          flush=True)
    playing = [asyncio.create_task(c.play(remote.Heuristic().decide)) for c in clients]
    pings: list[tuple[float, float]] = []
    stop = asyncio.Event()

    async def ping(port: int) -> None:
        client = SeatClient(port, tables[0]["table"], None, html=False)
        socket = await client.open()
        ref = 0
        while not stop.is_set():
            ref += 1
            sent = time.perf_counter()
            await socket.send(f'{{"type": "ping", "ref": {ref}}}')
            while '"pong"' not in (frame := await socket.recv()) or f'"ref":{ref}' not in frame:
                pass
            pings.append((sent, time.perf_counter() - sent))
            await asyncio.sleep(0.1)
        await socket.close()

    pingers = [asyncio.create_task(ping(d.port)) for d in daphnes]
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        await asyncio.sleep(settle)  # settling in
        before = cpu.sample() if cpu is not None else {}
        start = time.perf_counter()
        await asyncio.sleep(seconds)
        end = time.perf_counter()
        after = cpu.sample() if cpu is not None else {}
    finally:
        gc.enable()
    stop.set()
    await asyncio.gather(*pingers, return_exceptions=True)
    await asyncio.sleep(1.0)  # the answers to the last commands of the measurement
    for task in playing:
        task.cancel()
    await asyncio.gather(*playing, return_exceptions=True)
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    used = {k: after[k] - before.get(k, 0.0) for k in after if not k.startswith("postgres ")}
    used["postgres"] = sum(v - before.get(k, 0.0) for k, v in after.items()
                           if k.startswith("postgres "))
    samples = [(c.sent[ref], c.reflected[ref] - c.sent[ref]) for c in clients
               for ref in c.sent if ref in c.reflected and start <= c.sent[ref] < end]
    refused: dict[str, int] = {}
    for c in clients:
        for r in c.refusals:
            refused[r.code] = refused.get(r.code, 0) + 1
    return {"samples": samples, "pings": [d for at, d in pings if start <= at < end],
            "start": start, "end": end, "used": used if cpu is not None else {},
            "refused": refused, "finished": sum(1 for c in clients
                                                if c.state is not None and c.state.finished),
            "unanswered": sum(1 for c in clients
                              for ref in c.sent.keys() - c.reflected.keys()
                              - {r.frame.get("ref") for r in c.refusals}
                              if start <= c.sent[ref] < end),
            "load": os.getloadavg()[0]}


def report_outside(run: dict[str, Any], people: Bench | None, people_seated: Any) -> None:
    """The outside bots' figures, beside the people's at the stage nearest their rate."""
    got = [d * 1000 for _, d in run["samples"]]
    span = run["end"] - run["start"]
    print("outside bots: a bot client at each table with three built-in bots; "
          "from a bot's command to the state frame reflecting it (its ref):")
    print(f"{'mode':>14} {'cmds/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'ping p50':>8} "
          f"{'ping p99':>8}")
    print(f"{'outside bots':>14} {len(got) / span:>7.1f} {pct(got, 0.5):>7.1f} "
          f"{pct(got, 0.99):>7.1f} {pct([p * 1000 for p in run['pings']], 0.5):>8.1f} "
          f"{pct([p * 1000 for p in run['pings']], 0.99):>8.1f}")
    if people is not None and people.stages:
        samples = latencies(people_seated)
        for rate, start, end in people.stages:
            mine = [d * 1000 for at, d in samples if start <= at < end]
            pings = [d * 1000 for at, d in people.pings if start <= at < end]
            print(f"{f'people {rate:g}/s':>14} {len(mine) / (end - start):>7.1f} "
                  f"{pct(mine, 0.5):>7.1f} {pct(mine, 0.99):>7.1f} {pct(pings, 0.5):>8.1f} "
                  f"{pct(pings, 0.99):>8.1f}")
        print("  (people: from a command to the last seat's update, docs above)")
    verdict = "reached" if pct(got, 0.99) <= TARGET_MS else "not reached"
    print(f"outside bots' p99 target ({TARGET_MS:.0f} ms): {verdict}; commands neither "
          f"reflected nor refused: {run['unanswered']}; refused: "
          + (", ".join(f"{n}x {c}" for c, n in sorted(run["refused"].items())) or "none")
          + f"; games ended: {run['finished']}; load average {run['load']:.2f}")
    print(f"  by {WINDOW:g} s window from the start of the measurement (commands, p50, p99 ms):")
    windows: dict[int, list[float]] = {}
    for at, d in run["samples"]:
        windows.setdefault(int((at - run["start"]) // WINDOW), []).append(d * 1000)
    print("  " + "; ".join(f"{n * WINDOW:g}-{(n + 1) * WINDOW:g} s: {len(w)}, {pct(w, 0.5):.0f}, "
                           f"{pct(w, 0.99):.0f}" for n, w in sorted(windows.items())))
    if run["used"] and got:
        per = {k: v * 1000 / len(got) for k, v in run["used"].items()}
        print("  CPU per bot command (the built-in bots' moves between them included): "
              + ", ".join(f"{k} {v:.1f} ms" for k, v in per.items()))


def where_the_time_goes(env: dict[str, str]) -> None:
    """Run :func:`decompose` in a process of its own, on the same services."""
    done = subprocess.run([sys.executable, str(Path(__file__)), "--decompose"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900)
    print(done.stdout, end="")
    if done.returncode:
        print(done.stderr[-3000:])


def decompose(commands: int = 60) -> None:
    """Per command, in one process: a table driver's look (at a table of people and
    bot accounts: the look plays nothing, it reads the table and who is connected), the
    store write, every perspective's update, one seat's frame drawn, one group_send
    through the channel layer."""
    import django
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from bohnanza_core.commands import Command
    from bohnanza_core.engine import OfferShape, awaiting, legal_commands
    from play import driver, live
    from play.models import Table
    from replays.store import games
    from tests.services.live_table import seated_table

    table = Table.objects.get(pk=seated_table(4)["table"])
    assert table.game_id is not None
    layer = get_channel_layer()
    assert layer is not None
    timing: dict[str, list[float]] = {k: [] for k in
                                      ("a driver's look", "store write", "updates (5 views)",
                                       "one frame drawn", "every frame (5)", "one group_send")}
    game = live.load(table.game_id, fresh=True)
    profile, sizes, sent = cProfile.Profile(), [], []
    shown: dict[str, str] = {}  # the regions one seat's connection holds
    for _ in range(commands):
        state = game.state
        if state.finished:
            break
        seat = awaiting(state)[0]
        command: Command = next(m for m in legal_commands(state, seat)
                                if not isinstance(m, OfferShape))
        since = game.version
        looked = time.perf_counter()
        driver.next_step(table.id)
        t0 = time.perf_counter()
        entries = games().play_on(game, command, "user:bench")
        t1 = time.perf_counter()
        ups = live.updates(table.id, game, [e.event for e in entries], since)
        t2 = time.perf_counter()
        # Drawn afresh (live._draw_answer): answer_for would hand the second client of
        # the same group and language the frame drawn for the first.
        drawn = live._draw_answer(next(iter(ups.values())), table)
        frame = drawn.frame
        t3 = time.perf_counter()
        for update in ups.values():
            live._draw_answer(update, table)
        t4 = time.perf_counter()
        profile.enable()  # another seat's frame, apart from the timing
        live._draw_answer(ups[live.seat_group(table.id, 1)], table)
        profile.disable()
        sizes.append(len(json.dumps(frame, separators=(",", ":"))))
        sent.append(len(live.frame_text(drawn, shown)))
        t5 = time.perf_counter()
        async_to_sync(layer.group_send)(live.seat_group(table.id, 0),
                                        {"type": "table.update", "update": ups[
                                            live.seat_group(table.id, 0)]})
        t6 = time.perf_counter()
        for key, took in zip(timing, (t0 - looked, t1 - t0, t2 - t1, t3 - t2, t4 - t3,
                                      t6 - t5), strict=True):
            timing[key].append(took * 1000)
    print(f"where the time goes, per command ({len(timing['store write'])} commands, "
          "one process, after the load run):")
    for key, values in timing.items():
        print(f"  {key:<20} p50 {statistics.median(values):6.2f} ms   "
              f"p99 {pct(values, 0.99):6.2f} ms")
    print(f"  a frame is {statistics.median(sizes) / 1024:.1f} kB whole, "
          f"{statistics.median(sent) / 1024:.1f} kB as one connection is sent it (the regions "
          "that changed; medians); a command costs "
          "the store write and the updates once, then one frame drawn per client (4 seats "
          "+ spectators) in the processes serving them")
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(14)
    print("drawing the frames, profiled (cumulative):")
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
    for line in lines[start:start + 15]:
        print("  " + line.replace(str(ROOT) + "/", "").replace(sys.prefix + "/", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rates", default="0.5,1,2")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--decompose", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--timeline", type=float, default=0.0, metavar="SECONDS",
                        help="also print p50, p99 and the slowest command per window of "
                        "SECONDS in each stage")
    parser.add_argument("--no-decompose", action="store_true",
                        help="skip the per-stage decomposition in one process")
    parser.add_argument("--modes", default="people,outside",
                        help="people (tables of four websocket clients), outside (a bot "
                        "client and three built-in bots a table), or both")
    parser.add_argument("--outside-tables", type=int, default=100,
                        help="tables in the outside bots' mode")
    parser.add_argument("--outside-seconds", type=float, default=30.0,
                        help="how long the outside bots' mode is measured")
    parser.add_argument("--outside-settle", type=float, default=2.0,
                        help="seconds the outside bots play before the measurement starts "
                             "(every table's game starts at once: the first seconds are "
                             "the busiest)")
    parser.add_argument("--bots-draw", action="store_true",
                        help="the bot accounts' clients ask for the table's drawing too "
                        "(as a browser would: the heavier load)")
    args = parser.parse_args()
    if args.decompose:
        decompose()
        return 0
    import psycopg
    import redis
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores")
    name = f"bohnanza_bench_live_{uuid4().hex[:8]}"
    with psycopg.connect(POSTGRES + "postgres", autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    redis.Redis.from_url(REDIS_URL).flushdb()
    env = server_env(POSTGRES + name, REDIS_URL)
    logs = Path(tempfile.mkdtemp(prefix="bench-live-"))
    files = [(logs / f"daphne{n}.log").open("w") for n in range(2)]
    daphnes = [Daphne(free_port(), env, f) for f in files]
    try:
        migrate(env)
        for daphne in daphnes:
            daphne.start()
        modes = set(args.modes.split(","))
        bench: Bench | None = None
        seated: Any = None
        if "people" in modes:
            started = time.perf_counter()
            tables = seat_tables(env, 4, args.tables)
            print(f"{len(tables)} tables seated in {time.perf_counter() - started:.1f} s; "
                  f"2 daphne processes; stages of {args.seconds:.0f} s", flush=True)
            bench = Bench([float(r) for r in args.rates.split(",")], args.seconds,
                          Cpu(daphnes, name))
            seated = asyncio.run(load(daphnes, tables, bench, args.bots_draw))
            print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            report(bench, seated)
            if args.timeline > 0:
                timeline(bench, seated, args.timeline)
        if "outside" in modes:
            started = time.perf_counter()
            bot_tables = seat_tables(env, 4, args.outside_tables, bots=True)
            print(f"{len(bot_tables)} outside bots' tables seated in "
                  f"{time.perf_counter() - started:.1f} s", flush=True)
            run = asyncio.run(outside_bots(daphnes, bot_tables, args.outside_seconds,
                                           Cpu(daphnes, name), args.outside_settle))
            report_outside(run, bench, seated)
        for f in files:
            f.flush()
        errors = sum(sum(1 for line in (logs / f"daphne{n}.log").open()
                         if " ERROR " in line) for n in range(2))
        print(f"errors in the servers' logs: {errors}" + (f" (see {logs})" if errors else ""))
        if not args.no_decompose:
            where_the_time_goes(env)
    finally:
        for daphne in daphnes:
            daphne.stop()
        for f in files:
            f.close()
        redis.Redis.from_url(REDIS_URL).flushdb()
        with psycopg.connect(POSTGRES + "postgres", autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    sys.exit(main())
