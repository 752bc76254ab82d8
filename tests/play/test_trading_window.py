"""The trading window (play/clock.py, play/driver.py): while a person sits at a table of
bots, a bot's trading phase stays open ``trade_seconds`` for people to trade in; the
bots answer the offers made to them within it, end trading once it closes (or once
every person has passed), and keep no offer of their own open past it. Tables without
a window keep the bots' pace. Judged by the driver's look at given times."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from uuid import uuid4

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from bohnanza_core.bots.turns import fallback
from bohnanza_core.commands import MakeOffer
from bohnanza_core.engine import awaiting
from bohnanza_core.events import OfferAccepted, OfferDeclined, TradingEnded
from bohnanza_core.state import GameState, Phase
from play import clock, driver, live
from play.authority import NotYourSeat
from play.models import BotAccount, Seat, Table, running_table
from play.tables import create_table, open_table, start
from replays.store import games, loaded, reset_games

pytestmark = pytest.mark.django_db

SHORT = {"beans": ["wax", "blue", "chili", "stink"]}


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    reset_games()
    loaded.clear()
    driver._chances.clear()
    yield
    driver._bots.clear()
    driver._chances.clear()
    loaded.clear()
    reset_games()


def _table(trade_seconds: int, seats: list[str] | None = None) -> Table:
    ann = User.objects.create_user("ann", password="pw")
    table = create_table(ann, "classic", 3, seats=seats or ["open", "heuristic", "heuristic"],
                         overrides=SHORT, trade_seconds=trade_seconds)
    return start(table, ann)


def _state(table: Table) -> GameState:
    return games().game(table.game_id).state


def _record(table: Table) -> list[Any]:
    return games().record(table.game_id)


def _to_a_bots_trading(table: Table, now: datetime) -> GameState:
    """Play ann's moves by default and the bots' by the driver (at ``now``) until a
    bot's trading phase begins."""
    for _ in range(400):
        state = _state(table)
        if state.phase is Phase.TRADING and state.active != 0:
            return state
        if awaiting(state)[0] == 0:
            live.submit(table.id, table.game_id, fallback(state, 0), "user:ann", person=True)
        else:
            driver.next_step(table.id, now=now)
    raise AssertionError("no bot's trading phase came")


def _table_now(table: Table) -> Table:
    return running_table(table.pk)


def test_a_bots_trading_phase_waits_for_the_window_then_ends() -> None:
    table = _table(15)
    t0 = timezone.now()
    state = _to_a_bots_trading(table, t0)
    bot = state.active
    # Looked at within the window, again and again: the bots trade among themselves
    # (offers, answers), the bot on turn does not end trading; once they have done,
    # the driver waits for the window's end.
    for look in range(30):
        step, _ = driver.next_step(table.id, now=t0 + timedelta(seconds=min(look, 14)))
        assert _state(table).phase is Phase.TRADING
        if step.kind == "wait":
            break
    assert step.kind == "wait"
    stored = _table_now(table)
    assert stored.trade_turn == state.turn
    assert stored.trade_deadline is not None
    assert stored.trade_deadline <= t0 + timedelta(seconds=15, milliseconds=1)
    assert step.at == stored.trade_deadline
    # Past it, the bot ends trading (its own move, recorded as the bot's).
    for _ in range(10):
        driver.next_step(table.id, now=t0 + timedelta(seconds=16))
        if _state(table).phase is not Phase.TRADING:
            break
    ended = [e for e in _record(table) if isinstance(e.event, TradingEnded)]
    assert ended[-1].event.seat == bot
    assert ended[-1].actor == "bot:heuristic"


def test_a_bot_answers_a_persons_offer_inside_the_window() -> None:
    table = _table(15)
    t0 = timezone.now()
    state = _to_a_bots_trading(table, t0)
    bot = state.active
    driver.next_step(table.id, now=t0)  # the window opens
    state = _state(table)
    card = state.hands[0][0]
    offer = MakeOffer(seat=0, gives=(card,), wants=(), to=bot)  # a gift: easy to take
    live.submit(table.id, table.game_id, offer, "user:ann", person=True)
    for _ in range(10):
        driver.next_step(table.id, now=t0 + timedelta(seconds=2))
        answers = [e for e in _record(table)
                   if isinstance(e.event, OfferAccepted | OfferDeclined)
                   and e.event.seat == bot]
        if answers:
            break
    assert answers, "the bot never answered ann's offer"
    assert answers[-1].actor == "bot:heuristic"


def test_a_bot_answers_even_while_a_person_owes_an_answer_to_its_own_offer() -> None:
    """The most urgent seat is ann's (the bot's offer to her is open): the bot still
    answers her counter-offer, where it waited for her before."""
    table = _table(15)
    t0 = timezone.now()
    state = _to_a_bots_trading(table, t0)
    bot = state.active
    driver.next_step(table.id, now=t0)
    state = _state(table)
    if not any(o.proposer == bot and o.counterparty in (0, None)
               for o in state.offers.values()):
        face = state.face_up[0]
        live.submit(table.id, table.game_id,
                    MakeOffer(seat=bot, gives=(face,), wants=(), to=0), "bot:heuristic")
    state = _state(table)
    waiting = awaiting(state)
    assert 0 in waiting and waiting.index(0) < waiting.index(bot)
    gift = MakeOffer(seat=0, gives=(state.hands[0][0],), wants=(), to=bot)
    live.submit(table.id, table.game_id, gift, "user:ann", person=True)
    number = max(_state(table).offers)
    for _ in range(10):
        driver.next_step(table.id, now=t0 + timedelta(seconds=3))
        if number not in _state(table).offers:
            break
    assert number not in _state(table).offers
    assert _state(table).phase is Phase.TRADING  # answered inside the window


def test_the_window_closes_early_once_every_person_has_passed() -> None:
    table = _table(15)
    t0 = timezone.now()
    state = _to_a_bots_trading(table, t0)
    driver.next_step(table.id, now=t0)
    with pytest.raises(NotYourSeat):
        clock.pass_trading(table.id, 1, "user:ann")
    assert clock.pass_trading(table.id, 0, "user:ann") == state.turn
    for _ in range(10):
        driver.next_step(table.id, now=t0 + timedelta(seconds=1))
        if _state(table).phase is not Phase.TRADING:
            break
    assert _state(table).phase is not Phase.TRADING
    # There is nothing to pass in outside a trading phase.
    if _state(table).phase is not Phase.TRADING:
        with pytest.raises(clock.NotTrading):
            clock.pass_trading(table.id, 0, "user:ann")


def _assert_the_bots_keep_their_pace(table: Table, t0: datetime) -> None:
    """From a bot's trading phase, the driver's looks at one moment end it: no window
    (ann answers at once what a bot offers her meanwhile: the phase waits for that)."""
    _to_a_bots_trading(table, t0)
    for _ in range(20):
        state = _state(table)
        if state.phase is not Phase.TRADING:
            break
        if awaiting(state)[0] == 0:
            live.submit(table.id, table.game_id, fallback(state, 0), "user:ann", person=True)
        else:
            driver.next_step(table.id, now=t0)
    assert _state(table).phase is not Phase.TRADING
    assert _table_now(table).trade_deadline is None


def test_without_a_window_the_bots_keep_their_pace() -> None:
    _assert_the_bots_keep_their_pace(_table(0), timezone.now())


def test_a_bot_account_is_waited_for_by_no_window() -> None:
    """A bot account (an outside program) at a table of built-in bots: the bots keep
    their pace, as at a table of bots only, though the table sets a window."""
    table = _table(15)
    BotAccount.objects.create(user=User.objects.get(username="ann"))
    t0 = timezone.now()
    _assert_the_bots_keep_their_pace(table, t0)
    assert clock.read_frame(table.id, t0) is None  # nothing to count down


def test_a_persons_own_trading_phase_has_no_window() -> None:
    """On ann's turn no window opens (she ends her own trading phase): a bot's offer
    to her stays open past the table's trade seconds, until she answers it or ends
    trading."""
    table = _table(15)
    t0 = timezone.now()
    for _ in range(400):
        state = _state(table)
        if state.phase is Phase.TRADING and state.active == 0:
            break
        if awaiting(state)[0] == 0:
            live.submit(table.id, table.game_id, fallback(state, 0), "user:ann", person=True)
        else:
            driver.next_step(table.id, now=t0)
    driver.next_step(table.id, now=t0)
    state = _state(table)
    card = state.hands[1][0]
    live.submit(table.id, table.game_id, MakeOffer(seat=1, gives=(card,), wants=(), to=0),
                "bot:heuristic")
    number = max(_state(table).offers)
    driver.next_step(table.id, now=t0 + timedelta(seconds=5))
    assert number in _state(table).offers
    for _ in range(5):
        driver.next_step(table.id, now=t0 + timedelta(seconds=20))
    assert number in _state(table).offers
    assert Table.objects.get(pk=table.pk).trade_turn != _state(table).turn


def test_the_clock_frame_says_deadlines_banks_and_the_window() -> None:
    ann = User.objects.create_user("ann", password="pw")
    table = start(create_table(ann, "classic", 3, seats=["open", "heuristic", "heuristic"],
                               overrides=SHORT, move_seconds=30, game_seconds=120,
                               trade_seconds=15), ann)
    now = timezone.now()
    Seat.objects.filter(table=table, number=0).update(bank_used=20.5)
    Table.objects.filter(pk=table.pk).update(
        clock_seat=0, clock_version=7, clock_started=now,
        clock_deadline=now + timedelta(seconds=30 + 99.5), trade_turn=1,
        trade_deadline=now + timedelta(seconds=15))
    stored = _table_now(table)
    frame = clock.clock_frame(stored, stored.seats.all(), now)
    ms = int(now.timestamp() * 1000)
    assert frame["type"] == "clock" and frame["now"] == ms
    assert (frame["seat"], frame["version"]) == (0, 7)
    assert frame["deadline"] == ms + 129_500
    assert frame["bank"] == 99.5
    assert frame["banks"] == [99.5, 120, 120]
    assert frame["trade"] == {"turn": 1, "deadline": ms + 15_000, "seconds": 15,
                              "passed": []}
    # A table of people only without a clock has nothing to count down.
    bob = User.objects.create_user("bob", password="pw")
    alone = create_table(bob, "classic", 3, seats=["open", "open", "open"], trade_seconds=15)
    alone = running_table(alone.pk)
    assert not clock.has_clocks(alone, alone.seats.all())


def test_the_step_before_the_final_harvest_is_found() -> None:
    """A finished game's frame names the version before its final harvest: the end of
    the live table shows the fields as they were then."""
    from bohnanza_core.bots import BOTS
    from bohnanza_core.rulesets import ruleset_for
    from bohnanza_core.simulator import play_game

    events = list(play_game(ruleset_for("duel", 2), [BOTS["heuristic"]] * 2, "end").events)
    first = next(i for i, e in enumerate(events)
                 if type(e).__name__ == "FieldHarvested" and e.final)
    assert live._before_final_harvest(events[first - 3:], first - 3) == first
    assert live._before_final_harvest(events[:first], 0) is None


@pytest.mark.parametrize("site_seconds", [0, 9])
def test_a_competitions_table_takes_the_sites_trading_window(
        site_seconds: int, settings: Any) -> None:
    """A table opened for others (a competition's game with people) has the site's
    window, as a table made on the lobby's form does, not the model's own default."""
    settings.PLAY_TRADE_SECONDS = site_seconds
    ann = User.objects.create_user("ann", password="pw")
    table = open_table(ann, "classic", SHORT, [(ann, ""), (None, "heuristic"),
                                               (None, "random")],
                       game_id=uuid4(), seed="s",
                       players=["user:ann", "heuristic@builtin", "random@builtin"],
                       tournament="t", actor="system", move_seconds=60, game_seconds=0)
    assert Table.objects.get(pk=table.pk).trade_seconds == site_seconds


def test_a_bot_counters_a_persons_offer_it_declines_then_declines_it() -> None:
    """Ann offers the bot on turn terms it declines but would trade on otherwise: it
    offers its own terms back to her (its move, inside the window), then declines hers."""
    from bohnanza_core.bots import HeuristicBot
    from bohnanza_core.bots.fields import farm
    from bohnanza_core.commands import DeclineOffer
    from bohnanza_core.events import OfferMade
    from bohnanza_core.state import Offer

    table = _table(15)
    t0 = timezone.now()
    for attempt in range(40):
        now = t0 + timedelta(seconds=30 * attempt)
        state = _to_a_bots_trading(table, now)
        for _ in range(30):  # the bots trade among themselves first, then wait
            if driver.next_step(table.id, now=now)[0].kind == "wait":
                break
        state = _state(table)
        bot = state.active
        # Terms the bot declines and counters, found by asking a fresh copy of it.
        probe = HeuristicBot(bot, "probe")
        seen = driver.view(state, bot)
        terms = None
        for card in state.hands[0][:2]:
            for face in state.face_up:
                wants = ((state.kinds[face], 1),)
                offer = Offer(state.next_offer, 0, bot, (card,), wants)
                if probe._answer(probe._holdings_now(seen, farm(seen, bot)),
                                 [offer]).__class__ is DeclineOffer and HeuristicBot(
                        bot, "probe").counter(seen, offer) is not None:
                    terms = (card, wants)
        if terms is not None:
            break
        for _ in range(40):  # past this phase: the window closes, the bot ends trading
            if _state(table).phase is not Phase.TRADING:
                break
            driver.next_step(table.id, now=t0 + timedelta(seconds=30 * attempt + 20))
    assert terms is not None, "no offer to counter came up"
    live.submit(table.id, table.game_id,
                MakeOffer(seat=0, gives=(terms[0],), wants=terms[1], to=bot), "user:ann",
                person=True)
    number = max(_state(table).offers)
    for _ in range(10):
        driver.next_step(table.id, now=now + timedelta(seconds=1))
        if number not in _state(table).offers:
            break
    after = [e for e in _record(table)
             if isinstance(e.event, OfferMade | OfferDeclined)
             and getattr(e.event, "offer", 0) > number - 1]
    made = [e for e in after if isinstance(e.event, OfferMade) and e.event.offer > number
            and e.event.proposer == bot]
    assert made and made[0].event.counterparty == 0
    assert made[0].actor == "bot:heuristic"
    declined = [e for e in after if isinstance(e.event, OfferDeclined)
                and e.event.offer == number]
    assert declined and declined[0].actor == "bot:heuristic"
    assert after.index(made[0]) < after.index(declined[0])
    assert _state(table).phase is Phase.TRADING  # inside the window
