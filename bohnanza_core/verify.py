"""The audit of a game record: was it played by the rules, on a fair deck, unaltered?

:func:`verify_text` reads an exported file and :func:`verify_record` checks entries
already in memory (the web audit page); both give a :class:`Verdict` made of six
checks, in the order an arbiter would ask:

1. **file**: the export reads back (docs/export.md); whose view it holds; a ruleset
   that names a preset only for its exact rules (:func:`_file_check`);
2. **chain**: every entry carries the hash of the one before, and the last one
   hashes to the head (the header's, or one a player was shown: ``expected_head``);
   every hidden value the file shows opens its salted commitment in the chain;
3. **seed**: the seed and the game's salt hash to the commitment made in the first
   event, and the last event reveals that same seed and salt;
4. **shuffles**: every shuffle and reshuffle is recomputed from the seed;
5. **rules**: every decision is replayed through the rules and the result compared
   with the record, event by event (:func:`bohnanza_core.rederive.rederive`);
6. **actors**: who the record credits each decision to (:func:`_actors_check`): one
   player a seat until it is handed to its bot (the clock and the absence rule play
   for anyone), and a ruling never by one who played the game.

Beside the checks, the verdict says who played each seat (:attr:`Verdict.played`) and
how the game ended, or that the record ends before it does (:attr:`Verdict.ending`).

A seat's or a spectator's file holds its hidden values only as commitments. While the
game runs it is checked as far as it can be: the file, the chain and the actors; the
shuffles and the rules are reported as not checked (``Verdict.complete`` is false).
Once the game has ended, the seed and salt it reveals are checked against the
commitment and then derive the whole game again (:func:`_seen_checks`): every event,
as the file's perspective sees it, must be the file's, and every hidden value's
commitment the one the file holds, so the view is audited as whole as the full record.

The verdict names the first bad event. A change that breaks the chain but not the
rules (say, a timestamp edited) is pinned on the entry before the break; a change
the rules notice is pinned where they notice it, which is exactly the changed,
missing, inserted or moved event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from bohnanza_core.commitments import seed_commitment
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import (
    GAME_OVER_TYPES,
    DeckShuffled,
    DiscardPileReshuffled,
    Event,
    GameEnded,
    GameStarted,
    GameStopped,
    SeatHandedToBot,
    StopReason,
)
from bohnanza_core.export import ExportError, GameFile, read_jsonl
from bohnanza_core.jsonlimits import MAX_LINES
from bohnanza_core.narrate import MACHINE_ACTORS, command_seat
from bohnanza_core.record import Entry, check_chain, commitments_for
from bohnanza_core.rederive import rederive
from bohnanza_core.rulesets import preset_mismatch
from bohnanza_core.views import SPECTATOR, Perspective

FULL_RECORD_NEEDED = "needs the full record (the 'everything' export of a finished game)"
UNFINISHED = "the record ends before the game does: it holds no result"


@dataclass(frozen=True)
class Check:
    """One question of the audit and its answer. ``first_bad`` is 1-based. A check
    that the file cannot answer (a seat's view holds no shuffle orders) is
    ``skipped``: not failed, but not passed either."""

    name: str
    ok: bool
    detail: str
    first_bad: int | None = None
    skipped: bool = False


@dataclass(frozen=True)
class Verdict:
    """``ok``: no check failed. ``complete``: every check was made (the full record);
    a seat's or a spectator's file is at best ok and incomplete."""

    ok: bool
    first_bad: int | None
    summary: str
    checks: tuple[Check, ...]
    events: int
    finished: bool
    head: str | None
    complete: bool = True
    seats: tuple[str, ...] = ()
    tags: tuple[tuple[str, str], ...] = ()
    """The record's seat names and tag pairs (``GameStarted``), as it says of itself:
    the chain check says whether anyone changed them since."""
    played: tuple[str, ...] = ()
    """Per seat, who the record credits its decisions to, in order, with the seat's
    handover to its bot: ``user:ann (#4-#25, 7 decisions); handed to the heuristic bot
    at #26 (left, by user:ann); bot:heuristic@builtin (#31-#740, 98 decisions)``."""
    ending: str = ""
    """How the game ended (by the rules, or stopped by the platform: why, by whom),
    with the ranks; or that the record ends before it does."""

    @property
    def who_played(self) -> list[tuple[int, str, str]]:
        """Each seat's number, name and who played it (:attr:`played`), for a page."""
        return [(seat, name, self.played[seat] if seat < len(self.played) else "")
                for seat, name in enumerate(self.seats)]

    @property
    def word(self) -> str:
        """The verdict in a word, as ``bohnanza verify`` prints it."""
        if not self.ok:
            return "INVALID"
        if not self.complete:
            return "VALID AS FAR AS IT GOES"
        return "VALID" if self.finished else "VALID SO FAR"

    def report(self) -> str:
        """The verdict as the ``bohnanza verify`` command prints it: the verdict, each
        check, then who played the game, how it ended and what it belongs to (its
        tags)."""
        lines = [f"{self.word}: {self.summary}"]
        for check in self.checks:
            mark = "skip" if check.skipped else "ok  " if check.ok else "FAIL"
            lines.append(f"  [{mark}] {check.name:<8} {check.detail}")
        lines += described(self.seats, self.tags, self.played)
        if self.ending:
            lines.append(f"  ending: {self.ending}")
        return "\n".join(lines)


def described(seats: Sequence[str], tags: Sequence[tuple[str, str]],
              played: Sequence[str] = ()) -> list[str]:
    """The lines that say who played a game and where: each seat by its name and, for a
    competition's game, its entrant, then who the record credits its decisions to;
    then the other tags (competition, round, table)."""
    lookup = dict(tags)
    lines = []
    if seats:
        lines.append("  seats:")
        for seat, name in enumerate(seats):
            entrant = lookup.get(f"seat_{seat}_entrant")
            lines.append(f"    {seat}: {name}" + (f" ({entrant})" if entrant else ""))
            if seat < len(played) and played[seat]:
                lines.append(f"       played by {played[seat]}")
    others = [(key, value) for key, value in tags if not key.startswith("seat_")]
    if others:
        lines.append("  tags:")
        lines += [f"    {key}: {value}" for key, value in others]
    return lines


def given_head(text: str) -> str:
    """A head hash as a person gives it (``--head``, the verify page's field): a SHA-256
    hex digest in either case, spaces around it ignored; ValueError, saying why,
    for anything else (a prefix once read as the record's being altered)."""
    head = text.strip().lower()
    if len(head) != 64 or any(c not in "0123456789abcdef" for c in head):
        raise ValueError(f"{text[:80]!r} is not a head hash: 64 hexadecimal digits, as "
                         "the table and the audit page show it")
    return head


def _refused(summary: str, check: Check) -> Verdict:
    return Verdict(False, check.first_bad, summary, (check,), 0, False, None)


def verify_text(text: str, expected_head: str | None = None) -> Verdict:
    """Audit an exported game file (the JSON Lines of docs/export.md)."""
    return read_and_verify(text, expected_head)[1]


def read_and_verify(text: str, expected_head: str | None = None, *,
                    max_lines: int = MAX_LINES) -> tuple[GameFile | None, Verdict]:
    """The file read (None if it cannot be) and its verdict, the file read once (an
    upload is also compared with a stored game, or imported); ``max_lines`` bounds an
    upload tighter than the file format does."""
    try:
        game = read_jsonl(text, max_lines=max_lines)
    except ExportError as exc:
        return None, _refused(f"the file cannot be read: {exc}",
                              Check("file", False, str(exc)))
    return game, verify_file(game, expected_head)


def verify_file(game: GameFile, expected_head: str | None = None) -> Verdict:
    """Audit a file already read (:func:`bohnanza_core.export.read_jsonl`)."""
    if game.perspective != "everything":
        return verify_view(game, expected_head=expected_head)
    return verify_record(game.entries, game.head, expected_head=expected_head)


def _named(verdict: Verdict, entries: Sequence[Entry]) -> Verdict:
    """The verdict with the record's seats and tags (its first event's), who played
    each seat and how the game ended."""
    start = entries[0].event if entries else None
    if not isinstance(start, GameStarted):
        return verdict
    return dataclasses.replace(verdict, seats=start.seats, tags=start.tags,
                               played=_played(entries, start.seats),
                               ending=_ending(entries))


@dataclass
class _Stretch:
    """One actor's run of decisions at a seat."""

    actor: str
    first: int
    last: int
    decisions: int = 1

    def __str__(self) -> str:
        span = f"#{self.first}" if self.first == self.last else f"#{self.first}-#{self.last}"
        word = "decision" if self.decisions == 1 else "decisions"
        return f"{self.actor} ({span}, {self.decisions} {word})"


def _credits(entries: Sequence[Entry], names: Sequence[str]
             ) -> tuple[list[list[_Stretch | str]], list[tuple[int, str]]]:
    """Per seat, its players' stretches and its handovers (as words) in record order,
    the machine actors' decisions (clock, absence) left out as playing for anyone;
    and where a seat's decision is credited to another than the one playing it since
    its last handover (event number, what is wrong)."""
    seats = len(names)
    runs: list[list[_Stretch | str]] = [[] for _ in range(seats)]
    holder: list[_Stretch | None] = [None] * seats
    wrong: list[tuple[int, str]] = []
    for n, entry in enumerate(entries, start=1):
        event, actor = entry.event, entry.actor
        if actor is None or isinstance(event, GameStopped):
            continue
        if isinstance(event, SeatHandedToBot):
            if 0 <= event.seat < seats:
                runs[event.seat].append(f"handed to the {event.bot} bot at #{n} "
                                        f"({event.reason}, by {actor})")
                holder[event.seat] = None
            continue
        try:
            seat = command_seat(event)
        except IllegalMove:  # a command naming no seat: the rules check refuses it
            continue
        if seat is None or not 0 <= seat < seats or actor in MACHINE_ACTORS:
            continue
        current = holder[seat]
        if current is None:
            stretch = _Stretch(actor, n, n)
            holder[seat] = stretch
            runs[seat].append(stretch)
        elif current.actor == actor:
            current.last, current.decisions = n, current.decisions + 1
        else:
            wrong.append((n, f"seat {seat}'s decision ({names[seat]}) is credited to "
                             f"{actor}, while {current.actor} plays it (no handover "
                             "between)"))
    return runs, wrong


def _played(entries: Sequence[Entry], names: Sequence[str]) -> tuple[str, ...]:
    seats = len(names)
    runs, _ = _credits(entries, names)
    machine = [dict.fromkeys(sorted(MACHINE_ACTORS), 0) for _ in range(seats)]
    for entry in entries:
        if entry.actor in MACHINE_ACTORS and not isinstance(entry.event, GameStopped):
            try:
                seat = command_seat(entry.event)
            except IllegalMove:
                continue
            if seat is not None and 0 <= seat < seats:
                machine[seat][entry.actor] += 1
    played = []
    for seat in range(seats):
        parts = [str(run) for run in runs[seat]]
        parts += [f"the {actor} ({count} {'decision' if count == 1 else 'decisions'})"
                  for actor, count in machine[seat].items() if count]
        played.append("; ".join(parts) or "no decision credited")
    return tuple(played)


def _ending(entries: Sequence[Entry]) -> str:
    """How the record's game ended, in words."""
    last, n = entries[-1], len(entries)
    event = last.event
    if isinstance(event, GameEnded):
        ending = f"#{n}, by the rules"
    elif isinstance(event, GameStopped):
        ending = f"#{n}, stopped by the platform: {event.reason}, by {last.actor or 'nobody named'}"
    else:
        return UNFINISHED
    ranks = ", ".join(str(rank) for rank in event.ranks)
    coins = ", ".join(str(coin) for coin in event.coins)
    return f"{ending}; ranks {ranks} (coins {coins})"


def _actors_check(entries: Sequence[Entry]) -> Check:
    """Who the record credits decisions to: a seat's decisions to one player until the
    seat is handed to its bot (the clock and the absence rule play for anyone), and
    a ruling never to one who played a seat of the game. A record without actors (one
    chained offline, ``None`` throughout) passes: there is nobody to check."""
    start = entries[0].event
    assert isinstance(start, GameStarted)
    runs, wrong = _credits(entries, start.seats)
    players = {run.actor for seat in runs for run in seat if isinstance(run, _Stretch)}
    last = entries[-1]
    if (isinstance(last.event, GameStopped) and last.event.reason is StopReason.RULING
            and last.actor in players):
        wrong.append((len(entries), f"the ruling is credited to {last.actor}, who played "
                                    "in this game"))
    if wrong:
        n, why = min(wrong)
        return Check("actors", False, f"#{n}: {why}", n)
    credited = sum(1 for entry in entries if entry.actor is not None)
    return Check("actors", True, f"{credited} decisions credited; each seat played by one "
                 "player at a time, the clock and the absence rule aside")


def verify_view(game: GameFile, *, expected_head: str | None = None) -> Verdict:
    """Audit a seat's or a spectator's file as far as it goes: the chain (hidden values
    enter it only as commitments, so it re-hashes from any perspective's file) and,
    once the game has ended, the seed revealed against its commitment."""
    entries = game.entries
    if not entries:
        check = Check("file", False, "#1: a game begins with GameStarted", 1)
        return _refused("this is not a game record", check)
    hidden = sum(1 for entry in entries for name in entry.event.SECRET
                 if getattr(entry.event, name) is None)
    file = _file_check(entries, f"{len(entries)} events, the {game.perspective} view: "
                       f"{hidden} hidden value(s) appear only as commitments")
    chain, head = _chain_check(entries, game.head, expected_head)
    seed = _seed_check(entries)
    actors = _actors_check(entries)
    checks = [file, chain, seed]
    seen = _seen_checks(entries, game.perspective) if seed.ok and not seed.skipped else None
    if seen is None:
        for name in ("shuffles", "rules"):
            checks.append(Check(name, True, f"not checked: {FULL_RECORD_NEEDED}",
                                skipped=True))
    else:
        checks += seen
    checks.append(actors)
    bad = [c.first_bad for c in checks if not c.ok and c.first_bad is not None]
    ok = all(c.ok for c in checks)
    if ok and seen is not None:
        summary = (f"{len(entries)} events of the {game.perspective} view; the chain is "
                   "intact, the seed revealed at the end matches its commitment, and from "
                   "it every hidden card and every event follows by the rules")
        last = entries[-1].event
        return _named(Verdict(True, None, summary, tuple(checks), len(entries),
                              isinstance(last, GAME_OVER_TYPES), head), entries)
    if ok:
        summary = (f"{len(entries)} events; as far as the {game.perspective} view can see, "
                   "the chain is intact" + (" and the seed revealed at the end matches its "
                                            "commitment" if not seed.skipped else "")
                   + f"; checking the shuffles and the rules {FULL_RECORD_NEEDED}")
    else:
        failed = ", ".join(c.name for c in checks if not c.ok)
        summary = f"the first bad event is #{min(bad) if bad else 1} ({failed} failed)"
    last = entries[-1].event
    return _named(Verdict(ok, min(bad) if bad else None, summary, tuple(checks),
                          len(entries), isinstance(last, GAME_OVER_TYPES), head,
                          complete=False),
                  entries)


def _perspective_named(name: str, seats: int) -> Perspective | None:
    """The perspective an export's header names (``spectator``, ``seat 2``)."""
    if name == "spectator":
        return SPECTATOR
    word, _, number = name.partition(" ")
    if word == "seat" and number.isascii() and number.isdigit() and int(number) < seats:
        return int(number)
    return None


def _seen_checks(entries: Sequence[Entry], perspective_name: str) -> list[Check] | None:
    """The shuffles and the rules of a seat's or a spectator's file of a game that has
    ended (its seed and salt revealed, and checked against the commitment): the rules
    derive the whole game again from the seed and the file's decisions; each event, as
    the file's perspective sees it, must be the file's, and each hidden value's
    commitment the one the file holds. None where that cannot be done (a perspective
    the header does not name plainly)."""
    start, last = entries[0].event, entries[-1].event
    assert isinstance(start, GameStarted)
    perspective = _perspective_named(perspective_name, len(start.seats))
    if perspective is None or not isinstance(last, GAME_OVER_TYPES):
        return None
    derived: list[Event] = []
    rules = rederive([entry.event for entry in entries], perspective=perspective,
                     revealed=(last.seed, last.salt), derived=derived)
    shuffles = [n for n, entry in enumerate(entries, start=1)
                if isinstance(entry.event, DeckShuffled | DiscardPileReshuffled)]
    hidden_bad = next((n for n, (entry, full) in enumerate(zip(entries, derived, strict=False),
                                                            start=1)
                       if full.SECRET and commitments_for(full, n, last.salt)
                       != entry.commitments), None)
    if hidden_bad is not None and (rules.first_bad is None or hidden_bad < rules.first_bad):
        what = "shuffled order" if hidden_bad in shuffles else "hidden card"
        check = Check("shuffles" if hidden_bad in shuffles else "rules", False,
                      f"#{hidden_bad}: the {what} the file commits to is not the one the "
                      "seed gives", hidden_bad)
        other = Check("rules" if check.name == "shuffles" else "shuffles", True,
                      "not checked past the first bad event", skipped=True)
        return sorted([check, other], key=lambda c: c.name != "shuffles")
    checked = [n for n in shuffles if n <= rules.events_checked]
    shuffled = (Check("shuffles", True, f"{len(checked)} of {len(shuffles)} shuffles "
                      "recomputed from the revealed seed; each commitment the file holds is "
                      "the order's") if len(checked) == len(shuffles) else
                Check("shuffles", True, f"{len(checked)} of {len(shuffles)} shuffles "
                      "recomputed from the revealed seed; the others come after the rules' "
                      "first bad event and were not checked", skipped=True))
    reason = (f"every event, as the {perspective_name} view sees it, follows from the rules "
              "and the revealed seed" if rules.ok else rules.reason)
    return [shuffled, Check("rules", rules.ok, reason, rules.first_bad)]


def _chain_check(entries: Sequence[Entry], head: str | None,
                 expected_head: str | None) -> tuple[Check, str]:
    """The chain check against the file's head and, if given, the one a player was
    shown; with the head the entries hash to."""
    chain = check_chain(entries, head)
    if chain.ok and expected_head is not None and chain.head != expected_head:
        chain = check_chain(entries, expected_head)
    return Check("chain", chain.ok, chain.reason, chain.broken_at), chain.head


def _seed_check(entries: Sequence[Entry]) -> Check:
    """The seed and the game's salt against the commitment of the first event: from
    the first event where the record holds them (the full record), and from the
    last where the game has ended and revealed them (any perspective)."""
    start = entries[0].event
    assert isinstance(start, GameStarted)
    last = entries[-1].event
    if start.seed is not None and start.salt is not None:
        if seed_commitment(start.seed, start.salt) != start.seed_commitment:
            return Check("seed", False, "#1: the seed does not match the commitment "
                         f"{start.seed_commitment[:12]}... made at the start", 1)
        if isinstance(last, GAME_OVER_TYPES):
            if (last.seed, last.salt) != (start.seed, start.salt):
                return Check("seed", False, f"#{len(entries)}: the seed revealed at the end "
                             "is not the one committed to at the start", len(entries))
            return Check("seed", True, "the seed revealed at the end matches the commitment "
                         "made at the start")
        return Check("seed", True, "the seed matches its commitment (the game has not "
                     "ended, so it is not revealed yet)")
    if isinstance(last, GAME_OVER_TYPES):
        if seed_commitment(last.seed, last.salt) != start.seed_commitment:
            return Check("seed", False, f"#{len(entries)}: the seed revealed at the end does "
                         "not match the commitment made at the start", len(entries))
        return Check("seed", True, "the seed revealed at the end matches the commitment "
                     "made at the start")
    return Check("seed", True, "not checked: the seed is revealed when the game ends",
                 skipped=True)


def _file_check(entries: Sequence[Entry], detail: str) -> Check:
    """The record's account of itself: a ruleset named after a preset must carry
    exactly its rules or list what it changes as house rules, even where the change
    alters no event (docs/rulesets.md, "Presets named honestly")."""
    start = entries[0].event
    assert isinstance(start, GameStarted)
    mismatch = preset_mismatch(start.ruleset)
    if mismatch is not None:
        return Check("file", False, f"#1: {mismatch}", 1)
    return Check("file", True, detail)


def verify_record(
    entries: Sequence[Entry], head: str | None = None, *, expected_head: str | None = None
) -> Verdict:
    """Audit a record: ``head`` is the head it claims, ``expected_head`` one a player
    was shown (either may be None)."""
    if not entries or not isinstance(entries[0].event, GameStarted):
        check = Check("file", False, "#1: a game begins with GameStarted", 1)
        return _refused("this is not a game record", check)
    if entries[0].event.seed is None:
        check = Check("file", False, "#1: the seed is not in this record: an audit of the "
                      f"rules {FULL_RECORD_NEEDED}", 1)
        return _refused("this is not the full record", check)
    checks = [_file_check(entries, f"{len(entries)} events, full record")]

    chain = check_chain(entries, head)
    if chain.ok and expected_head is not None and chain.head != expected_head:
        chain = check_chain(entries, expected_head)
    checks.append(Check("chain", chain.ok, chain.reason, chain.broken_at))

    seed = _seed_check(entries)
    checks.append(seed)

    events = [entry.event for entry in entries]
    rules = rederive(events)
    shuffles = [i + 1 for i, e in enumerate(events)
                if isinstance(e, DeckShuffled | DiscardPileReshuffled)]
    checked = [seq for seq in shuffles if seq <= rules.events_checked]
    if rules.first_bad is not None and rules.first_bad in shuffles:
        checks.append(Check("shuffles", False, f"#{rules.first_bad}: the order of the cards "
                            "does not follow from the seed", rules.first_bad))
    elif len(checked) < len(shuffles):
        # Not a pass: the shuffles after the rules' first bad event were never reached.
        checks.append(Check("shuffles", True, f"{len(checked)} of {len(shuffles)} shuffles "
                            "recomputed from the seed and equal; the others come after the "
                            "rules' first bad event and were not checked", skipped=True))
    else:
        checks.append(Check("shuffles", True, f"{len(checked)} of {len(shuffles)} shuffles "
                            "recomputed from the seed and equal"))
    checks.append(Check("rules", rules.ok, rules.reason, rules.first_bad))
    actors = _actors_check(entries)
    checks.append(actors)

    candidates = [c.first_bad for c in (checks[0], seed, actors) if c.first_bad is not None]
    if rules.first_bad is not None and (chain.ok or rules.first_bad <= (chain.broken_at or 0)):
        candidates.append(rules.first_bad)
    elif not chain.ok and chain.broken_at is not None:
        candidates.append(max(1, chain.broken_at - 1))
    first_bad = min(candidates) if candidates else None
    ok = all(check.ok for check in checks)
    if ok:
        summary = (f"{len(entries)} events; the chain is intact, the deck is fair and every "
                   "event follows from the rules")
        if not rules.finished:
            summary += f"; but {UNFINISHED}"
    else:
        failed = ", ".join(c.name for c in checks if not c.ok)
        summary = f"the first bad event is #{first_bad} ({failed} failed)"
        if first_bad is not None and first_bad > 1 and first_bad == chain.broken_at:
            # The rules and the chain disagree at the same event: either it is where
            # events were removed, inserted or moved, or the one before was changed in
            # a way the rules allow and this is its first consequence.
            summary += (f"; or #{first_bad - 1} was changed in a way the rules allow, "
                        f"and #{first_bad} is its first consequence")
    return _named(Verdict(ok, first_bad, summary, tuple(checks), len(entries),
                          rules.finished, chain.head), entries)


__all__ = ["Check", "Verdict", "described", "given_head", "read_and_verify", "verify_file",
           "verify_record", "verify_text", "verify_view"]
