"""A competition's games at once: a zip of their JSON Lines exports (docs/export.md,
"A competition's games"), streamed game by game, never holding more than one game and
the zip's pending bytes in memory.

Each stored game of the competition is one member, ``round-<r>/table-<t>.jsonl`` (from
1, zero-padded so the names sort), its full record (the "everything" perspective) if
it has ended, the spectator's view if a live game was stopped before it ended (scored
at its deadline, or by a ruling: its hidden cards stay hidden); last, ``games.jsonl``:
one line per game with its round, table (the game's place in the round), a knockout's
match (the bracket's table: the page's "Table 2 · games 3 to 4"), deal, id, member
name, entrants by seat, ranks and coins. Every game's own first event names its
competition, round, table and entrants (its tags), so a member read alone still says
who played it.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from typing import IO, Any, cast

from bohnanza_core.events import GameEnded
from bohnanza_core.export import export_record
from bohnanza_core.views import EVERYTHING, SPECTATOR
from replays.store import games
from tournaments.core.competition import Competition
from tournaments.models import CompetitionGame

INDEX = "games.jsonl"


class _Pipe:
    """Where the zip writes: bytes kept until the generator takes them. Not seekable,
    so :mod:`zipfile` writes each member's sizes after it (data descriptors) and never
    goes back: what is taken is never needed again."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.offset = 0

    def write(self, data: bytes) -> int:
        self.chunks.append(bytes(data))
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self.offset

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        return data


def member_name(r: int, index: int) -> str:
    return f"round-{r + 1:03d}/table-{index + 1:05d}.jsonl"


def games_zip(c: Competition) -> Iterator[bytes]:
    """The competition's stored games as a zip, in pieces as they are written (round by
    round, table by table); the index last."""
    pipe = _Pipe()
    store = games()
    index: list[dict[str, Any]] = []
    rows = (CompetitionGame.objects.filter(competition_id=c.id).order_by("round", "index")
            .values_list("game_id", "round", "index", "ranks", "coins").iterator(200))
    # The pipe is written to and told, all a zip being written asks of its file.
    with zipfile.ZipFile(cast(IO[bytes], pipe), "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=6) as archive:
        for game_id, r, i, ranks, coins in rows:
            if r >= len(c.rounds) or i >= len(c.rounds[r].games):
                continue
            entries = store.record(game_id)
            ended = isinstance(entries[-1].event, GameEnded)
            name = member_name(r, i)
            with archive.open(name, "w") as member:
                member.write(export_record(entries, EVERYTHING if ended else SPECTATOR)
                             .encode())
            del entries
            match = {"match": i // c.table + 1} if c.format == "knockout" else {}
            index.append({"round": r + 1, "table": i + 1, **match,
                          "deal": c.rounds[r].games[i].deal + 1, "game": str(game_id),
                          "file": name, "perspective": "everything" if ended else "spectator",
                          "entrants": c.entrants_at(r, i), "ranks": ranks, "coins": coins})
            yield pipe.take()
        archive.writestr(INDEX, "".join(json.dumps(line, ensure_ascii=False) + "\n"
                                        for line in index))
    yield pipe.take()


def file_name(c: Competition) -> str:
    """The download's name: the competition's name made safe for a file, and its id."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in c.name)[:60].strip("-")
    return f"{safe or 'competition'}-{str(c.id)[:8]}.zip"


__all__ = ["INDEX", "file_name", "games_zip", "member_name"]
