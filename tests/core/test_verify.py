"""The audit of an exported game (docs/export.md, "The audit"): the hash chain, the
seed, the shuffles and the rules, and a verdict that names the first bad event.

Tampering is done to the file, the way a cheat would: by editing lines. A careless
cheat leaves the hashes alone; a careful one renumbers the events and recomputes every
hash and the head, so the chain in the file is whole again. Both are caught, and the
verdict points at the event that was changed, removed, moved or inserted."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from bohnanza_core import SPECTATOR, ruleset_for
from bohnanza_core.cli import main
from bohnanza_core.commitments import value_salt
from bohnanza_core.events import (
    BeanPlanted,
    CardDealt,
    CardDrawn,
    CardSource,
    GameEnded,
    OfferMade,
    ThirdFieldBought,
)
from bohnanza_core.export import RECORD_KEYS, event_from_json, export_jsonl
from bohnanza_core.games import Games, play_bot_game, stored_form
from bohnanza_core.record import (
    GENESIS,
    Entry,
    canonical_entry,
    chain,
    check_chain,
    commitments_for,
)
from bohnanza_core.simulator import bot_classes, play_game
from bohnanza_core.verify import verify_text
from tests.core.invariants import sample_events


@pytest.fixture(scope="module")
def game() -> list[Any]:
    record = play_game(ruleset_for("classic", 4),
                       bot_classes(["heuristic", "nontrading", "random", "heuristic"]), "audit")
    return record.events


def _lines(events: list[Any]) -> list[dict[str, Any]]:
    text = export_jsonl(events)
    return [json.loads(line) for line in text.splitlines()]


def _parse(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _text(lines: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n"


def _careful(lines: list[dict[str, Any]]) -> str:
    """What a careful cheat does after editing: renumber, re-salt and re-commit every
    hidden value (the full record holds the game's salt), re-chain, new head."""
    header, body = lines[0], lines[1:]
    salt = body[0]["salt"]
    previous = GENESIS
    for seq, line in enumerate(body, start=1):
        line["seq"] = seq
        line["previous_hash"] = previous
        event = event_from_json({k: v for k, v in line.items()
                                 if k == "type" or k not in RECORD_KEYS})
        if event.SECRET:
            line["salts"] = {name: value_salt(salt, seq, name) for name in event.SECRET}
        previous = Entry(seq, event, line["actor"], line["at"], previous,
                         commitments_for(event, seq, salt)).hash
    header = {**header, "events": len(body), "head": previous}
    return _text([header, *body])


def _index(events: list[Any], kind: type, nth: int = 0) -> int:
    return [i for i, e in enumerate(events) if isinstance(e, kind)][nth]


def test_an_honest_game_is_valid(game: list[Any]) -> None:
    verdict = verify_text(export_jsonl(game))
    assert verdict.ok, verdict.report()
    assert verdict.first_bad is None
    assert verdict.finished
    assert [c.name for c in verdict.checks] == ["file", "chain", "seed", "shuffles", "rules",
                                            "actors"]
    assert verdict.report().startswith("VALID: ")
    assert verdict.head == chain(game)[-1].hash


@pytest.mark.parametrize("careful", [False, True], ids=["careless", "careful"])
def test_an_altered_event_is_pinpointed(game: list[Any], careful: bool) -> None:
    lines = _lines(game)
    i = _index(game, CardDrawn, 10)
    lines[i + 1]["card"] = (lines[i + 1]["card"] + 1) % 104
    text = _careful(lines) if careful else _text(lines)
    verdict = verify_text(text)
    assert not verdict.ok
    assert verdict.first_bad == i + 1, verdict.report()
    rules = {c.name: c for c in verdict.checks}["rules"]
    assert not rules.ok and rules.first_bad == i + 1


def test_a_careful_cheat_is_caught_by_the_head_players_were_shown(game: list[Any]) -> None:
    shown = chain(game)[-1].hash
    lines = _lines(game)
    i = _index(game, CardDrawn, 3)
    lines[i + 1]["card"] = (lines[i + 1]["card"] + 1) % 104
    verdict = verify_text(_careful(lines), expected_head=shown)
    checks = {c.name: c for c in verdict.checks}
    assert not checks["chain"].ok and "head" in checks["chain"].detail
    assert verdict.first_bad == i + 1


def test_an_edit_the_rules_cannot_see_breaks_the_chain_there(game: list[Any]) -> None:
    lines = _lines(game)
    i = _index(game, OfferMade, 2)
    lines[i + 1]["actor"] = "someone else"
    verdict = verify_text(_text(lines))
    checks = {c.name: c for c in verdict.checks}
    assert checks["rules"].ok and not checks["chain"].ok
    assert checks["chain"].first_bad == i + 2
    assert verdict.first_bad == i + 1


def test_the_last_event_altered_changes_the_head(game: list[Any]) -> None:
    lines = _lines(game)
    lines[-1]["coins"] = [c + 1 for c in lines[-1]["coins"]]
    verdict = verify_text(_text(lines))
    assert verdict.first_bad == len(game)
    assert not {c.name: c for c in verdict.checks}["chain"].ok


@pytest.mark.parametrize("careful", [False, True], ids=["careless", "careful"])
def test_a_removed_event_is_pinpointed(game: list[Any], careful: bool) -> None:
    lines = _lines(game)
    i = _index(game, CardDrawn, 7)
    del lines[i + 1]
    if careful:
        text = _careful(lines)
    else:
        lines[0]["events"] -= 1
        for seq, line in enumerate(lines[1:], start=1):
            line["seq"] = seq
        text = _text(lines)
    verdict = verify_text(text)
    assert verdict.first_bad == i + 1, verdict.report()
    # Where the chain breaks at the same event, the verdict names the other reading.
    assert (f"or #{i} was changed in a way the rules allow" in verdict.summary) != careful


@pytest.mark.parametrize("careful", [False, True], ids=["careless", "careful"])
def test_reordered_events_are_pinpointed(game: list[Any], careful: bool) -> None:
    lines = _lines(game)
    i = _index(game, CardDrawn, 12)
    lines[i + 1], lines[i + 2] = lines[i + 2], lines[i + 1]
    lines[i + 1]["seq"], lines[i + 2]["seq"] = i + 1, i + 2
    verdict = verify_text(_careful(lines) if careful else _text(lines))
    assert verdict.first_bad == i + 1, verdict.report()


@pytest.mark.parametrize("careful", [False, True], ids=["careless", "careful"])
def test_an_inserted_event_is_pinpointed(game: list[Any], careful: bool) -> None:
    lines = _lines(game)
    i = _index(game, CardDrawn, 5)
    forged = {**lines[i + 1], "card": (lines[i + 1]["card"] + 3) % 104}
    lines.insert(i + 1, forged)
    if careful:
        text = _careful(lines)
    else:
        lines[0]["events"] += 1
        for seq, line in enumerate(lines[1:], start=1):
            line["seq"] = seq
        text = _text(lines)
    verdict = verify_text(text)
    assert verdict.first_bad == i + 1, verdict.report()


def test_a_forged_seed_is_caught_at_the_first_event(game: list[Any]) -> None:
    lines = _lines(game)
    lines[1]["seed"] = "another seed"
    verdict = verify_text(_careful(lines))
    checks = {c.name: c for c in verdict.checks}
    assert not checks["seed"].ok and checks["seed"].first_bad == 1
    assert verdict.first_bad == 1


def test_a_seed_revealed_differently_at_the_end_is_caught(game: list[Any]) -> None:
    lines = _lines(game)
    lines[-1]["seed"] = "not the one"
    verdict = verify_text(_careful(lines))
    checks = {c.name: c for c in verdict.checks}
    assert not checks["seed"].ok
    assert verdict.first_bad == len(game)


def test_a_shuffle_that_does_not_follow_from_the_seed(game: list[Any]) -> None:
    lines = _lines(game)
    order = lines[2]["order"]
    order[0], order[1] = order[1], order[0]
    verdict = verify_text(_careful(lines))
    checks = {c.name: c for c in verdict.checks}
    assert not checks["shuffles"].ok and checks["shuffles"].first_bad == 2
    assert verdict.first_bad == 2


def test_a_seat_file_is_audited_as_far_as_it_goes(game: list[Any]) -> None:
    """A seat's file re-hashes (its hidden values are there as commitments); while the
    game runs, that is all; once it has ended, the seed it reveals derives every
    hidden card and every event again, each as the seat sees it."""
    shown = chain(game)[-1].hash
    seat = verify_text(export_jsonl(game, 1), expected_head=shown)
    assert seat.ok and seat.complete, seat.report()
    assert seat.report().startswith("VALID: ") and "seat 1 view" in seat.summary
    checks = {c.name: c for c in seat.checks}
    assert checks["chain"].ok and checks["seed"].ok and not checks["seed"].skipped
    assert not checks["shuffles"].skipped and not checks["rules"].skipped
    assert "recomputed from the revealed seed" in checks["shuffles"].detail
    # A game in progress: no seed to check yet, and so neither shuffles nor rules.
    running = verify_text(export_jsonl(game[:300], SPECTATOR))
    assert running.ok and not running.complete, running.report()
    assert running.report().startswith("VALID AS FAR AS IT GOES: ")
    checks = {c.name: c for c in running.checks}
    assert checks["seed"].skipped and checks["shuffles"].skipped and checks["rules"].skipped
    assert "[skip] rules" in running.report()
    # One of seat 1's own cards changed: it no longer opens its commitment.
    lines = _parse(export_jsonl(game, 1))
    i = next(n for n, line in enumerate(lines) if line.get("type") == "CardDrawn"
             and line["seat"] == 1 and n > 100)
    lines[i]["card"] = (lines[i]["card"] + 1) % 104
    bad = verify_text(_text(lines))
    assert not bad.ok and bad.first_bad == i, bad.report()  # the rules name it itself
    # Another seat's commitment changed: the chain breaks there too.
    lines = _parse(export_jsonl(game, 1))
    j = next(n for n, line in enumerate(lines) if line.get("type") == "CardDrawn"
             and line["seat"] == 2 and n > 100)
    lines[j]["commitments"]["card"] = "0" * 64
    assert verify_text(_text(lines)).first_bad == j
    # The seed revealed at the end, altered: the commitment made at the start catches it.
    lines = _parse(export_jsonl(game, SPECTATOR))
    lines[-1]["seed"] = "guess"
    assert not {c.name: c for c in verify_text(_text(lines)).checks}["seed"].ok


def _rechained(lines: list[dict[str, Any]]) -> str:
    """A view's lines chained again as they now are, as a careful cheat would."""
    from bohnanza_core.export import read_jsonl

    entries = read_jsonl(_text(lines)).entries  # reading checks no chain
    previous = GENESIS
    for line, entry in zip(lines[1:], entries, strict=True):
        line["previous_hash"] = previous
        previous = Entry(entry.seq, entry.event, entry.actor, entry.at, previous,
                         entry.commitments).hash
    return _text([{**lines[0], "head": previous}, *lines[1:]])


def test_a_hidden_card_committed_to_falsely_is_caught_once_the_seed_is_out(
        game: list[Any]) -> None:
    """The end reveals the game's salt, so a cheat can commit to any card in a
    spectator's file and chain it again; the seed then says which card it was."""
    from bohnanza_core.commitments import commit
    from bohnanza_core.record import secret_texts

    lines = _parse(export_jsonl(game, SPECTATOR))
    salt = lines[-1]["salt"]
    i = next(n for n, line in enumerate(lines) if line.get("type") == "CardDrawn"
             and n > 100)
    other = CardDrawn(seat=lines[i]["seat"], card=(game[i - 1].card + 1) % 104)
    lines[i]["commitments"]["card"] = commit(value_salt(salt, i, "card"),
                                             secret_texts(other)[0])
    verdict = verify_text(_rechained(lines))
    assert not verdict.ok and verdict.first_bad == i, verdict.report()
    rules = {c.name: c for c in verdict.checks}["rules"]
    assert rules.detail == (f"#{i}: the hidden card the file commits to is not the one "
                            "the seed gives")
    # A deck order committed to falsely is a shuffle's failure.
    lines = _parse(export_jsonl(game, SPECTATOR))
    k = next(n for n, line in enumerate(lines) if line.get("type") == "DeckShuffled")
    shuffled = game[k - 1]
    forged = type(shuffled)(order=tuple(reversed(shuffled.order)))
    lines[k]["commitments"]["order"] = commit(value_salt(salt, k, "order"),
                                              secret_texts(forged)[0])
    verdict = verify_text(_rechained(lines))
    assert not verdict.ok and verdict.first_bad == k
    assert not {c.name: c for c in verdict.checks}["shuffles"].ok


def test_a_file_with_salts_and_commitments_wrong_is_refused(game: list[Any]) -> None:
    lines = _parse(export_jsonl(game, 1))
    i = next(n for n, line in enumerate(lines) if line.get("type") == "CardDealt"
             and line["seat"] == 1)
    for change, message in (
        (lambda line: line.pop("salts"), "the shown 'card' needs its salt"),
        (lambda line: line.update(salts={"card": "xyz"}), "the shown 'card' needs its salt"),
        (lambda line: line.update(card=None), "the hidden 'card' needs its commitment"),
        (lambda line: line.update(salts={"card": "0" * 32, "seat": "0" * 32}),
         "CardDealt hides no field(s) seat"),
        (lambda line: line.update(salts=[1]), "'salts' must be an object"),
    ):
        edited = [dict(line) for line in lines]
        change(edited[i])
        verdict = verify_text(_text(edited))
        assert not verdict.ok and f"line {i + 1}: {message}" in verdict.summary, message


def test_a_malformed_file_is_refused_clearly(game: list[Any]) -> None:
    broken = verify_text("{nope\n")
    assert not broken.ok and "line 1: not JSON" in broken.summary
    empty = verify_text("")
    assert not empty.ok and "empty" in empty.summary


def test_a_game_in_progress_verifies_up_to_where_it_is(game: list[Any]) -> None:
    verdict = verify_text(export_jsonl(game[:200]))
    assert verdict.ok, verdict.report()
    assert not verdict.finished


def test_the_fast_canonical_form_is_the_reference_one(game: list[Any]) -> None:
    actors = ['Ännä "q" \\ ✓' if i % 3 == 0 else None for i in range(len(game))]
    for entry in chain(game, actors=actors, times=["2026-11-30T10:00:00+00:00"] * len(game)):
        assert entry.canonical() == entry.reference_canonical()
    for entry in chain(list(sample_events().values())):
        assert entry.canonical() == entry.reference_canonical()


# The layout of an entry (docs/export.md, "The hash chain"), pinned to known bytes: the
# CardDealt of the docs' worked example and a decision with an actor to escape.
KNOWN_ENTRIES = (
    (b'{"actor":null,"at":"2026-11-30T10:00:00.120000+00:00","event":{"card":"17204f60a1c1'
     b'bb6edfc6e56266fe53b9ffa3b75074da836cb7991cf6cfc59243","seat":0,"type":"CardDealt"},"p'
     b'revious_hash":"0000000000000000000000000000000000000000000000000000000000000000","se'
     b'q":3}',
     "663745ac07f6e7109790c29706b6647aae0f67ac62294ca0dd7271d2f1f739c9"),
    ('{"actor":"Ännä \\"q\\" \\\\ ✓","at":null,"event":{"card":11,"field":0,"seat":0,'
     '"source":"hand","type":"BeanPlanted"},"previous_hash":"663745ac07f6e7109790c29706b'
     '6647aae0f67ac62294ca0dd7271d2f1f739c9","seq":19}'.encode(),
     "0e38e807cc234daf40ca38184262e28928c014e2b6980b7965383435a17d9917"),
)


def _known_entries() -> list[Entry]:
    dealt = CardDealt(seat=0, card=11)
    first = Entry(3, dealt, None, "2026-11-30T10:00:00.120000+00:00", GENESIS,
                  commitments_for(dealt, 3, "00112233445566778899aabbccddeeff"))
    planted = BeanPlanted(seat=0, card=11, field=0, source=CardSource.HAND)
    return [first, Entry(19, planted, 'Ännä "q" \\ ✓', None, first.hash)]


def test_the_entry_layout_is_the_known_one() -> None:
    """The one writer of the layout (record.entry_bytes), through the fast form and the
    reference one, gives these exact bytes and hashes; and they are the canonical JSON
    the docs define (keys sorted, no spaces, UTF-8)."""
    for entry, (known, digest) in zip(_known_entries(), KNOWN_ENTRIES, strict=True):
        assert entry.canonical() == known == entry.reference_canonical()
        assert entry.hash == digest == hashlib.sha256(known).hexdigest()
        event = json.loads(known)["event"]
        defined = {"seq": entry.seq, "event": event, "actor": entry.actor, "at": entry.at,
                   "previous_hash": entry.previous_hash}
        assert json.dumps(defined, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False).encode() == known


def test_the_store_chains_in_the_same_layout() -> None:
    """Game._seal writes the layout through record.entry_bytes: its rows are the
    entries' canonical bytes, the hidden values after them."""
    app = Games(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game = play_bot_game(app, ruleset_for("classic", 3), ["heuristic"] * 3, "layout",
                         players=['user:Ännä "q"', "bot:heuristic", "bot:heuristic"])
    rows = app.recorder.select_events(game.id)
    entries = app.record(game.id)
    for row, entry in zip(rows[1:], entries[1:], strict=True):  # the first: the library's
        assert row.state.partition(b"\n")[0] == entry.canonical() == canonical_entry(
            entry.seq, entry.event, entry.actor, entry.at, entry.previous_hash,
            entry.commitments)
        assert row.state == stored_form(entry)
    assert check_chain(entries, game.head_hash).ok


# -- the command line ----------------------------------------------------------------


def test_cli_verify_exit_codes(game: list[Any], tmp_path: Any, capsys: Any) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(export_jsonl(game), encoding="utf-8")
    assert main(["verify", str(good)]) == 0
    assert "VALID" in capsys.readouterr().out

    lines = _lines(game)
    i = _index(game, CardDrawn, 4)
    lines[i + 1]["card"] = (lines[i + 1]["card"] + 1) % 104
    bad = tmp_path / "bad.jsonl"
    bad.write_text(_text(lines), encoding="utf-8")
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"the first bad event is #{i + 1}" in out and "[FAIL] rules" in out

    assert main(["verify", str(good), "--head", "0" * 64]) == 1
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cli_verify_takes_the_head_in_either_case_and_refuses_what_is_no_hash(
        game: list[Any], tmp_path: Any, capsys: Any) -> None:
    good = tmp_path / "good.jsonl"
    text = export_jsonl(game)
    good.write_text(text, encoding="utf-8")
    head = json.loads(text.splitlines()[0])["head"]
    assert main(["verify", str(good), "--head", f" {head.upper()} "]) == 0
    capsys.readouterr()
    for given in ("xyz", head[:12]):
        assert main(["verify", str(good), "--head", given]) == 2
        assert "is not a head hash: 64 hexadecimal digits" in capsys.readouterr().err


def test_cli_verify_names_what_is_wrong_with_a_file_that_is_no_text(
        game: list[Any], tmp_path: Any, capsys: Any) -> None:
    text = export_jsonl(game)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(text.replace("classic", "clässic", 1).encode("latin-1"))
    assert main(["verify", str(latin)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID: the file cannot be read: ")
    assert "is not UTF-8 text (byte " in out
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode())  # an editor's byte-order mark
    assert main(["verify", str(marked)]) == 0


def test_a_junk_line_is_named_where_it_is_not_as_a_wrong_count(game: list[Any]) -> None:
    lines = export_jsonl(game).splitlines()
    lines.insert(11, "junk")
    verdict = verify_text("\n".join(lines) + "\n")
    assert verdict.checks[0].detail == "line 12: not JSON (Expecting value)"


def test_cli_verify_reads_stdin(game: list[Any], monkeypatch: Any, capsys: Any) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(export_jsonl(game)))
    assert main(["verify", "-"]) == 0
    assert isinstance(game[-1], GameEnded)


@pytest.fixture(scope="module")
def quiet_game() -> list[Any]:
    """A game in which no field is bought and nobody ties."""
    return play_game(ruleset_for("classic", 4), bot_classes(["nontrading"] * 4),
                     "honest:0").events


def _with_ruleset(game: list[Any], **changes: Any) -> str:
    """The game with its ruleset changed, re-chained as a careful cheat would."""
    lines = _lines(game)
    lines[1]["ruleset"] = {**lines[1]["ruleset"], **changes}
    return _careful(lines)


CLOCKWISE = "seated furthest clockwise from the starting player"


def test_a_preset_name_over_other_rules_is_refused(quiet_game: list[Any]) -> None:
    """Issue 8, item 7: a record named classic, without house rules, whose third field
    costs 9 coins and whose tie-break is clockwise, passed; the difference changes no
    event of this game (no field bought, no tie), so only the name can tell."""
    game = quiet_game
    assert not any(isinstance(e, ThirdFieldBought) for e in game)
    assert game[-1].tie_break is None
    verdict = verify_text(_with_ruleset(game, third_field_cost=9, tie_break=CLOCKWISE))
    assert not verdict.ok and verdict.first_bad == 1, verdict.report()
    file = verdict.checks[0]
    assert (file.name, file.ok, file.first_bad) == ("file", False, 1)
    assert "#1: ruleset 'classic' differs from classic (3-5 players)" in file.detail
    assert "third_field_cost=9 (classic: 3)" in file.detail
    assert f"tie_break={CLOCKWISE} (classic: more cards in hand)" in file.detail
    assert [c.name for c in verdict.checks if not c.ok] == ["file"]
    assert "the first bad event is #1 (file failed)" in verdict.report()


def test_house_rules_that_say_what_they_change_pass(quiet_game: list[Any]) -> None:
    game = quiet_game
    honest = _with_ruleset(game, third_field_cost=9, tie_break=CLOCKWISE,
                           name="classic (house rules)",
                           house_rules=["third_field_cost", "tie_break"])
    assert verify_text(honest).ok
    half = _with_ruleset(game, third_field_cost=9, tie_break=CLOCKWISE,
                         name="classic (house rules)", house_rules=["tie_break"])
    verdict = verify_text(half)
    assert not verdict.ok
    assert "house_rules lists tie_break, but what differs from classic (3-5 players) is: " \
           "third_field_cost, tie_break" in verdict.checks[0].detail


def _platform_game() -> tuple[list[Any], list[str | None]]:
    """A 3-seat game as the platform records it: each seat's decisions credited to its
    account, bob's seat handed to its bot half-way, the clock playing once for cy,
    the game ended by the rules."""
    from bohnanza_core import legal_commands, new_game, play
    from bohnanza_core.commands import HandSeatToBot
    from bohnanza_core.events import Handover
    from bohnanza_core.record import command_actors

    state, events = new_game(ruleset_for("classic", 3), ("ann", "bob", "cy"), seed="who")
    accounts = ["user:ann", "user:bob", "user:cy"]
    actors: list[str | None] = [None] * len(events)
    handed = clocked = False
    while not state.finished:
        if not handed and len(events) > 200:
            happened = play(state, HandSeatToBot(seat=1, bot="heuristic",
                                                 reason=Handover.LEFT))
            events += happened
            actors += ["user:bob"] + [None] * (len(happened) - 1)
            accounts[1], handed = "bot:heuristic@builtin", True
            continue
        seat, command = next((s, c) for s in range(3) for c in legal_commands(state, s)[::-1]
                             if type(c).__name__ != "OfferShape")
        happened = play(state, command)
        events += happened
        actor = accounts[seat]
        if not clocked and seat == 2 and len(events) > 100:
            actor, clocked = "clock", True
        actors += [actor] + [None] * (len(happened) - 1)
    # Only the events that open a command carry an actor, as the platform stores them.
    opening = command_actors(events, ("ann", "bob", "cy"))
    return events, [actor if opened is not None else None
                    for actor, opened in zip(actors, opening, strict=True)]


def _export(events: list[Any], actors: list[str | None]) -> str:
    from bohnanza_core.export import export_record
    from bohnanza_core.views import EVERYTHING

    return export_record(chain(events, actors=actors), EVERYTHING)


def test_the_verdict_says_who_played_each_seat_and_how_the_game_ended() -> None:
    events, actors = _platform_game()
    verdict = verify_text(_export(events, actors))
    assert verdict.ok and verdict.word == "VALID", verdict.report()
    ann, bob, cy = verdict.played
    assert ann.startswith("user:ann (#") and "handed" not in ann
    assert bob.startswith("user:bob (#") and "; handed to the heuristic bot at #" in bob
    assert "(left, by user:bob); bot:heuristic@builtin (#" in bob
    assert cy.startswith("user:cy (#") and cy.endswith("; the clock (1 decision)")
    assert verdict.ending.startswith(f"#{len(events)}, by the rules; ranks ")
    report = verdict.report()
    assert "       played by user:ann (#" in report and "  ending: #" in report


def test_a_decision_credited_to_another_than_its_seats_player_is_caught() -> None:
    """A careful forger re-chains a record after crediting one of bob's moves to
    mallory: the chain is whole, the rules hold, the actors do not."""
    events, actors = _platform_game()
    n = [i for i, actor in enumerate(actors) if actor == "user:bob"][1]
    forged = [*actors]
    forged[n] = "user:mallory"
    verdict = verify_text(_export(events, forged))
    assert not verdict.ok and verdict.first_bad == n + 1
    check = next(c for c in verdict.checks if c.name == "actors")
    assert check.detail == (f"#{n + 1}: seat 1's decision (bob) is credited to "
                            "user:mallory, while user:bob plays it (no handover between)")


def test_a_ruling_by_one_who_played_is_caught_and_an_arbiters_is_told() -> None:
    from bohnanza_core import play
    from bohnanza_core.commands import StopGame
    from bohnanza_core.engine import new_game
    from bohnanza_core.events import StopReason
    from bohnanza_core.rederive import rederive

    events, actors = _platform_game()
    cut = next(i for i in range(300, len(events)) if actors[i] is not None)
    state = rederive(events[:cut]).state
    assert state is not None
    del new_game
    stopped = play(state, StopGame(reason=StopReason.RULING, ranks=(3, 1, 1)))
    for judge, ok in (("arbiter:judy", True), ("user:bob", False)):
        verdict = verify_text(_export([*events[:cut], *stopped],
                                      [*actors[:cut], judge, *[None] * (len(stopped) - 1)]))
        assert verdict.ok is ok, verdict.report()
        if ok:
            assert verdict.ending == (f"#{cut + len(stopped)}, stopped by the platform: ruling, "
                                      f"by arbiter:judy; ranks 3, 1, 1 (coins "
                                      f"{', '.join(map(str, stopped[-1].coins))})")
        else:
            assert "the ruling is credited to user:bob, who played in this game" in \
                verdict.report()


def test_a_record_cut_before_the_end_says_it_holds_no_result(game: list[Any]) -> None:
    verdict = verify_text(export_jsonl(game[:300]))
    assert verdict.ok and not verdict.finished
    assert verdict.word == "VALID SO FAR"
    assert verdict.summary.endswith("but the record ends before the game does: it holds no "
                                    "result")
    assert verdict.ending == "the record ends before the game does: it holds no result"


def test_a_forged_seed_is_told_in_a_line_not_the_whole_ruleset(game: list[Any]) -> None:
    lines = _lines(game)
    lines[1]["seed"] = "forged"
    verdict = verify_text(_careful(lines))
    assert not verdict.ok
    assert all(len(check.detail) < 400 for check in verdict.checks), verdict.report()
