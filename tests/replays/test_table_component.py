"""The table component and what the viewer builds around it: names people read, what
the next coin needs, stepping by decision, what changed at a step, the end-of-game
summary, no spoilers, and nothing a perspective may not see in any table answer."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.test import Client

from bohnanza_core.cards import BeanKind
from bohnanza_core.events import FieldHarvested, GameEnded, TurnStarted
from bohnanza_core.games import Game, Games
from bohnanza_core.views import EVERYTHING
from replays.summary import game_summary
from replays.table import display_player, next_coin
from replays.views.viewer import timeline
from tests.factories import bot_game, running_game

DATA_CARD = re.compile(r'data-card="(\d+)"')


@pytest.fixture
def finished(store: Games) -> Game:
    return bot_game("component-finished",
                    players=("user:ann", "bot:heuristic", "imported:Zed Z"))


def step_json(client: Client, game: Game, step: int, **params: str) -> dict[str, object]:
    response = client.get(f"/replays/games/{game.id}/steps/{step}.json", params)
    assert response.status_code == 200
    data = response.json()
    assert isinstance(data, dict)
    return data


def test_players_are_named_as_people_read_them() -> None:
    assert display_player("user:ann") == "ann"
    assert display_player("bot:heuristic") == "Heuristic bot"
    assert display_player("bot:nontrading") == "Non-trading bot"
    assert display_player("bot:mybot") == "mybot (bot)"
    assert display_player("imported:Zed") == "Zed (imported)"
    assert display_player("imported:user:ann") == "ann (imported)"
    assert display_player("imported:" + "x" * 200).endswith("… (imported)")


def test_what_the_next_coin_needs() -> None:
    assert next_coin(BeanKind.STINK, 3) == {"more": 2, "coins": 2}  # 3 pay 1, 5 pay 2
    assert next_coin(BeanKind.STINK, 1) == {"more": 2, "coins": 1}
    assert next_coin(BeanKind.GARDEN, 1) == {"more": 1, "coins": 2}  # no 1-coin step
    assert next_coin(BeanKind.GARDEN, 3) is None  # the most a garden field pays
    assert next_coin(BeanKind.COFFEE, 12) is None


def test_steps_by_decision_group_the_automatic_events(store: Games, finished: Game) -> None:
    entries = store.record(finished.id)
    line = timeline(entries)
    assert line.stops == tuple(sorted(set(line.stops))) and line.stops[-1] == len(entries)
    # Dealing goes by in one step: the first stop ends the setup, after every deal.
    first_decision = next(e.seq for e in entries[1:] if e.actor is not None)
    assert line.stops[0] == first_decision - 1
    assert all(line.groups[seq - 1] == first_decision for seq in
               range(first_decision, line.stops[1] + 1))
    # One stop a decision (and one for the setup), each group begun by a decision.
    assert len(line.stops) == len(set(line.groups) - {1}) + 1 < len(entries)
    for start in set(line.groups) - {1}:
        assert entries[start - 1].actor is not None
    assert [seq for _turn, seq in line.turns] == [
        e.seq for e in entries if isinstance(e.event, TurnStarted)]


def test_a_step_marks_what_its_decision_changed(client: Client, store: Games,
                                                finished: Game) -> None:
    entries = store.record(finished.id)
    harvest = next(e for e in entries if isinstance(e.event, FieldHarvested)
                   and e.event.coins > 0 and not e.event.final)
    data = step_json(client, finished, harvest.seq)
    html = str(data["html"])
    assert data["group"] == harvest.seq  # a harvest is a decision of its own
    seat = re.search(rf'data-seat="{harvest.event.seat}".*?</article>', html, re.S)
    assert seat is not None
    assert 'rt-coins chg chg-now' in seat.group(0)  # the coins just earned
    assert re.search(rf'class="rt-field[^"]*chg chg-now" data-field="{harvest.event.field + 1}"'
                     , seat.group(0)) or 'is-empty chg chg-now' in seat.group(0)


def test_the_summary_comes_only_at_the_end(client: Client, store: Games,
                                           finished: Game) -> None:
    assert "rt-summary" not in str(step_json(client, finished, finished.version - 1)["html"])
    page = client.get(f"/replays/games/{finished.id}/", {"step": 1}).content.decode()
    assert "rt-summary" not in page
    # No spoilers: the page's log stops at the end of the current turn (the script
    # fetches the rest when it is reached), and its later lines are marked for hiding.
    assert "log-GameEnded" not in page
    later = re.findall(r'<li data-seq="(\d+)"[^>]*class="([^"]*)"', page)
    assert len(later) > 1
    assert all("is-future" in classes for seq, classes in later if int(seq) > 1)
    end = str(step_json(client, finished, finished.version)["html"])
    assert "rt-summary" in end and "<svg" in end
    events = [e.event for e in store.record(finished.id)]
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    summary = game_summary(events, finished.state.seats, finished.players)
    assert summary is not None
    rows = {row["seat"]: row for row in summary["rows"]}
    for seat, coins in enumerate(ended.coins):
        assert rows[seat]["coins"] == coins
        assert rows[seat]["tally"].coins_by_turn[-1] == coins  # the chart ends at the score
        harvests = [e for e in events if isinstance(e, FieldHarvested) and e.seat == seat]
        assert rows[seat]["tally"].harvests == len(harvests)
    assert [row["rank"] for row in summary["rows"]] == sorted(ended.ranks)


def test_a_third_field_bought_is_no_harvest_in_the_summary(store: Games,
                                                          finished: Game) -> None:
    """The score's "Best harvest" names a harvest only; a third field bought (coins
    spent) is said beside the coins."""
    summary = game_summary([e.event for e in store.record(finished.id)],
                           finished.state.seats, finished.players)
    assert summary is not None
    row = next(r for r in summary["rows"] if r["seat"] == 0)
    row["tally"].third_field = 3
    html = render_to_string("table/_summary.html", {"s": summary})
    seat = re.search(r'<tr[^>]*data-seat="0">(.*?)</tr>', html, re.S)
    assert seat is not None
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", seat.group(1), re.S)
    coins, best = cells[2], cells[5]
    assert "3rd field for 3 coins" in coins and "3rd field" not in best


def test_chart_numbers_are_not_localised(client: Client, store: Games, finished: Game) -> None:
    client.cookies["django_language"] = "hu"
    html = str(step_json(client, finished, finished.version)["html"])
    svg = html[html.index("<svg"):html.index("</svg>")]
    for value in re.findall(r' (?:x|y|x1|x2|y1|y2)="([^"]*)"', svg):
        assert re.fullmatch(r"-?[0-9.]+", value), value
    for path in re.findall(r' d="([^"]*)"', svg):
        assert re.fullmatch(r"M[0-9.]+,[0-9.]+( H[0-9.]+ V[0-9.]+)*", path), path


def test_no_table_answer_of_a_running_game_shows_a_hand(client: Client, store: Games) -> None:
    game = running_game("component-running", commands=10)
    for step in range(1, game.version + 1):
        at = store.game(game.id, step).state
        hands = {card for hand in at.hands for card in hand}
        data = step_json(client, game, step)
        shown = {int(c) for c in DATA_CARD.findall(str(data["html"]))}
        assert not shown & hands, step
        assert "hand" not in str(data["table"]) or all(
            "hand" not in seat for seat in data["table"]["seats"])  # type: ignore[index]
        assert "rt-summary" not in str(data["html"])
        assert at.seed not in str(data)


def test_everything_shows_the_seed_only_in_the_audit_details(client: Client, store: Games,
                                                             finished: Game) -> None:
    html = str(step_json(client, finished, 50, perspective="everything")["html"])
    details = html[html.index('<details class="rt-audit">'):html.index("</details>")]
    assert finished.state.seed in details
    assert finished.state.seed not in html.replace(details, "")
    assert EVERYTHING == -2


def test_a_kept_drawing_is_the_one_drawn_afresh(store: Games, finished: Game) -> None:
    """The drawing keeps the cards, fields and seats it has drawn, for what they show
    (replays/drawing.py): at every step of a game, for every perspective, with each
    step's marks, what it draws with everything kept is what it draws afresh."""
    from bohnanza_core.engine import evolve
    from bohnanza_core.views import SPECTATOR, view
    from replays import drawing
    from replays.table import changes_of, table_context

    entries = store.record(finished.id)
    state = None
    contexts = []
    for entry in entries:
        state = evolve(state, entry.event)
        for perspective in (*range(state.players), SPECTATOR, EVERYTHING):
            events = [entry.event]
            contexts.append(table_context(
                view(state, perspective).as_dict(), finished.players, state.ruleset,
                step=entry.seq, head_hash="h", changed=changes_of(events),
                now=changes_of(events)))
    kept = [drawing.draw_regions(context) for context in contexts]
    assert len({html for regions in kept for _, html in regions}) > 100
    for context, regions in zip(contexts, kept, strict=True):
        for memo in (drawing._cards, drawing._fields, drawing._seats):
            memo.clear()
        assert drawing.draw_regions(context) == regions


def test_every_message_asked_for_in_an_f_string_is_named_for_the_catalogues() -> None:
    """xgettext does not look inside f-strings: a message the drawing asks for there and
    leaves out of IN_F_STRINGS would be dropped from the catalogues by makemessages."""
    from replays import drawing

    source = Path(drawing.__file__).read_text(encoding="utf-8")
    asked = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and token.string[:2].lower() in ("f'", 'f"'):
            asked |= set(re.findall(r'w\.gettext\("((?:[^"\\]|\\.)*)"\)', token.string))
            assert not re.search(r'w\.n?p?gettext\("[^"]*", ', token.string), (
                "a plural or a context in an f-string: ask for it before the f-string")
    assert asked and asked == set(drawing.IN_F_STRINGS)
