#!/usr/bin/env python3
"""A bot account playing live tables from outside with the built-in ``heuristic`` bot's
logic, written against the documented view alone (docs/protocol.md: the ``state``
frame, its ``answer.table``, ``facts`` and ``legal``), on the client package
``clients/python`` (``pip install ./clients/python``). Nothing of the platform is
imported: this is what a bot author writes.

    python examples/remote_bot.py http://127.0.0.1:8000 TOKEN
    python examples/remote_bot.py http://127.0.0.1:8000 TOKEN --challenge bot:heuristic,bot:random
    python examples/remote_bot.py http://127.0.0.1:8000 TABLE_ID TOKEN

TOKEN is the bot account's API token (docs/bots.md). With the server and the token
alone it is a long-lived bot: it reads the account's event stream, accepts every
challenge (or only those ``--accept-from`` names; it declines the others) and plays
every game it is seated at, until stopped (Ctrl-C), ``--games N`` are over, or another
stream for the token replaces its own. ``--challenge`` first challenges the seats
named (built-in bots ``bot:<name>``, accounts ``user:<name>``; its own seat first).
With a TABLE_ID it plays that one table, at which the account must sit.

The bot's one yardstick is a field's *potential*: the coins it is on its way to, the
beanometer read between its steps. A bean is worth what it adds to a field's
potential; a bean that fits no field costs a harvest (the progress thrown away) and a
tempo. It harvests a field at the top step, plants what fits, trades away beans it
cannot use for beans it grows, accepts offers that leave it better off, and buys the
third field when it pays (the same rules as bohnanza_core/bots/heuristic.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from bohnanza_client import BEANOMETER, Account, Player, State, TableClient, coins_for

Field = tuple[str | None, int]
"""A field as the bot weighs it: its kind (None: empty) and its beans."""
Command = dict[str, Any]

MISFIT_PENALTY = 0.6
NEW_FIELD_COST = 0.15
ACCEPT_MARGIN = 0.05
GIFT_MARGIN = 0.4
KEEP_WEIGHT = 0.6
COIN_WEIGHT = 0.05
OFFERS_PER_TURN = 4
BUY_TURNS_LEFT = 4
BUY_PAYBACK = 2.0
LEAVE_HARVEST_LOSS = 0.35
LEFTOVER_OFFERED = "they stay on the table for the next player"
"""The ``leftover_face_up`` rule (facts.rules) under which planting the turned-over
cards is optional for the active player."""
RECEIVED_AT_ONCE = "at once, before trading goes on"
"""The ``received_cards_planted`` rule under which traded beans are planted at once."""


# -- bean sense ------------------------------------------------------------------------


def _potentials(kind: str) -> tuple[float, ...]:
    steps = [(needed, coins) for coins, needed in enumerate(BEANOMETER[kind], start=1) if needed]
    table = [0.0]
    for beans in range(1, steps[-1][0] + 1):
        low_needed, low_coins = 0, 0
        for needed, coins in steps:
            if needed > beans:
                table.append(low_coins + (coins - low_coins) * (beans - low_needed)
                             / (needed - low_needed))
                break
            low_needed, low_coins = needed, coins
        else:
            table.append(float(low_coins))
    return tuple(table)


POTENTIAL = {kind: _potentials(kind) for kind in BEANOMETER}


def potential(kind: str, beans: int) -> float:
    table = POTENTIAL[kind]
    return table[min(beans, len(table) - 1)]


def growth(kind: str, beans: int, more: int) -> float:
    return potential(kind, beans + more) - potential(kind, beans)


def harvest_loss(kind: str, beans: int) -> float:
    return potential(kind, beans) - coins_for(kind, beans)


def at_top(kind: str, beans: int) -> bool:
    return beans >= len(POTENTIAL[kind]) - 1


def farm(state: State, seat: int) -> list[Field]:
    return [(f.kind, f.beans) for f in state.fields(seat)]


def matching_field(fields: list[Field], kind: str) -> int | None:
    best, best_beans = None, -1
    for index, (field_kind, beans) in enumerate(fields):
        if field_kind == kind and beans > best_beans:
            best, best_beans = index, beans
    return best


def field_for(fields: list[Field], kind: str) -> int | None:
    found = matching_field(fields, kind)
    if found is not None:
        return found
    return next((i for i, (k, _) in enumerate(fields) if k is None), None)


def empty_field(fields: list[Field]) -> int | None:
    return next((i for i, (k, _) in enumerate(fields) if k is None), None)


def groups(kinds: list[str]) -> list[tuple[str, int]]:
    """Each kind once, in the order it first comes, with its count."""
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return list(counts.items())


def misfits(fields: list[Field], kinds: list[str]) -> int:
    empty = sum(1 for k, _ in fields if k is None)
    counts = sorted((n for kind, n in groups(kinds) if matching_field(fields, kind) is None),
                    reverse=True)
    left = 0
    for count in counts:
        if empty:
            empty -= 1
        else:
            left += count
    return left


def harvestable(state: State, seat: int, fields: list[Field]) -> list[int]:
    return [i for i, (k, _) in enumerate(fields) if k is not None and state.may_harvest(seat, i)]


def cheapest_harvest(plot: list[Field]) -> tuple[int, float]:
    best, best_loss = 0, float("inf")
    for index, (kind, beans) in enumerate(plot):
        if kind is not None and harvest_loss(kind, beans) < best_loss:
            best, best_loss = index, harvest_loss(kind, beans)
    return best, best_loss


def load_value(fields: list[Field], kinds: list[str]) -> float:
    """What planting ``kinds`` (all of them) adds to ``fields``."""
    plot = list(fields)
    value = 0.0
    rest: list[tuple[int, str]] = []
    for kind, count in groups(kinds):
        index = matching_field(plot, kind)
        if index is None:
            rest.append((count, kind))
            continue
        beans = plot[index][1]
        value += growth(kind, beans, count)
        plot[index] = (kind, beans + count)
    for count, kind in sorted(rest, reverse=True):
        target = empty_field(plot)
        if target is not None:
            value += potential(kind, count) - NEW_FIELD_COST
        else:
            target, loss = cheapest_harvest(plot)
            value += potential(kind, count) - loss - MISFIT_PENALTY
        plot[target] = (kind, count)
    return value


def hand_value(fields: list[Field], hand_kinds: list[str], position: int) -> float:
    kind = hand_kinds[position]
    index = matching_field(fields, kind)
    if index is not None:
        return growth(kind, fields[index][1], 1) * max(0.3, 1.0 - 0.1 * position)
    if hand_kinds[:position + 3].count(kind) > 1:
        return 0.3
    if position <= 1:
        return 0.05 if any(k is None for k, _ in fields) else -0.4
    return 0.05


def most_common(cards: Sequence[int], kinds: list[str]) -> int:
    best, best_count = cards[0], 0
    for position, card in enumerate(cards):
        count = kinds.count(kinds[position])
        if count > best_count or (count == best_count and card < best):
            best, best_count = card, count
    return best


def best_wanted(fields: list[Field]) -> str | None:
    best, best_gain = None, 0.0
    for kind, beans in fields:
        if kind is not None and growth(kind, beans, 1) > best_gain:
            best, best_gain = kind, growth(kind, beans, 1)
    return best


class Holdings:
    """This seat's side of a trade: fields, hand, the turned-over cards if active, its
    trade area, and so what it must plant."""

    def __init__(self, state: State, seat: int, fields: list[Field]) -> None:
        self.state, self.fields = state, fields
        self.hand = state.hand()
        self.hand_kinds = [state.kind(c) for c in self.hand]
        self.face_up = state.face_up if seat == state.active else ()
        area = state.trade_area(seat)
        self.load = [state.kind(c) for c in area + self.face_up]
        self.base = load_value(fields, self.load)

    def hand_value(self, position: int) -> float:
        return hand_value(self.fields, self.hand_kinds, position)

    def awkward(self) -> list[int]:
        return [p for p in range(min(2, len(self.hand))) if self.hand_value(p) < 0]

    def shed_gain(self, kind: str) -> float:
        rest = list(self.load)
        rest.remove(kind)
        return load_value(self.fields, rest) - self.base

    def gain(self, give: Sequence[int], get: list[str]) -> float:
        load = list(self.load)
        for card in give:
            if card in self.face_up:
                load.remove(self.state.kind(card))
        gain = load_value(self.fields, load + get) - self.base
        for card in give:
            if card not in self.face_up:
                gain -= self.hand_value(self.hand.index(card))
        return gain

    def payment(self, wants: list[list[Any]]) -> list[int] | None:
        chosen: list[int] = []
        for kind, count in wants:
            costs = [(-self.shed_gain(kind), c) for c in self.face_up
                     if self.state.kind(c) == kind]
            costs += [(self.hand_value(p), self.hand[p]) for p in range(len(self.hand))
                      if self.hand_kinds[p] == kind]
            if len(costs) < count:
                return None
            chosen += [card for _, card in sorted(costs)[:count]]
        return chosen


# -- the bot ---------------------------------------------------------------------------


class Heuristic:
    """The heuristic bot's decisions on a :class:`State` (commands as JSON objects)."""

    def __init__(self) -> None:
        self.turn = -1
        self.tried: set[tuple[Any, ...]] = set()
        self.proposed = False

    def decide(self, state: State) -> Command | None:
        seat = state.seat
        if seat is None or state.finished:
            return None
        if state.turn != self.turn:
            self.turn, self.tried, self.proposed = state.turn, set(), False
        chance = (state.phase == "trading" and seat != state.active and not self.proposed)
        if not (state.awaited or chance):
            return None
        fields = farm(state, seat)
        for index, (kind, beans) in enumerate(fields):
            if kind is not None and at_top(kind, beans) and state.may_harvest(seat, index):
                return {"kind": "harvest", "field": index}
        if self.should_buy(state, seat):
            return {"kind": "buy_third_field"}
        if state.phase == "planting from the hand":
            return self.plant_from_hand(state, seat, fields)
        if state.phase == "trading":
            return self.trade(state, seat, fields)
        if state.phase == "planting turned-over and traded beans":
            area = state.trade_area(seat)
            if area:
                return self.plant(state, seat, fields, area, optional=False)
            if seat == state.active and state.face_up:
                optional = state.rules["leftover_face_up"] == LEFTOVER_OFFERED
                return self.plant(state, seat, fields, state.face_up, optional=optional)
            return None
        if state.phase == "planting the opponent's leftovers":
            return self.plant_leftovers(state, seat, fields)
        return None

    # -- fields and harvests

    def turns_left(self, state: State) -> float:
        rules = state.rules
        if state.ending:
            return 0.0
        piles = max(0, rules["ends_on_run_out"] - state.runs_out - 1)
        pile = max(len(state.discard_pile), len(state.table["card_kinds"]) // 3)
        cards = state.draw_pile_size + piles * pile
        return float(cards / (rules["face_up_cards"] + rules["draw_cards"]) / state.players)

    def should_buy(self, state: State, seat: int) -> bool:
        cost = state.rules["third_field_cost"]
        if cost is None or state.coins(seat) < cost or state.third_field_bought(seat):
            return False
        earnings = state.coins(seat) / max(1.0, state.turn / state.players)
        left = self.turns_left(state)
        return (len(state.fields(seat)) < state.rules["max_fields"]
                and state.phase != "final harvest" and left >= BUY_TURNS_LEFT
                and left * earnings >= BUY_PAYBACK * cost)

    def harvest(self, state: State, seat: int, fields: list[Field], keep: set[str],
                among: list[int] | None = None) -> Command:
        best, best_score = 0, float("inf")
        for index in harvestable(state, seat, fields) if among is None else among:
            kind, beans = fields[index]
            assert kind is not None
            score = harvest_loss(kind, beans) - COIN_WEIGHT * coins_for(kind, beans)
            score += KEEP_WEIGHT if kind in keep else 0.0
            if score < best_score:
                best, best_score = index, score
        return {"kind": "harvest", "field": best}

    def plant_from_hand(self, state: State, seat: int, fields: list[Field]) -> Command:
        hand = state.hand()
        planted = state.planted
        if planted >= state.rules["planting_from_hand"] or not hand:
            return self.discard_or_end(state, fields, hand)
        front = state.kind(hand[0])
        index = field_for(fields, front)
        if planted == 0 and index is None:
            return self.harvest(state, seat, fields, {state.kind(c) for c in hand[1:3]})
        if index is not None:
            return {"kind": "plant_from_hand", "field": index}
        return self.discard_or_end(state, fields, hand)

    def discard_or_end(self, state: State, fields: list[Field], hand: Sequence[int]) -> Command:
        if state.rules["discard_from_hand_after_planting"] and hand:
            kinds = [state.kind(c) for c in hand]
            values = [hand_value(fields, kinds, p) for p in range(len(hand))]
            worst = min(range(len(hand)), key=values.__getitem__)
            if values[worst] < 0:
                return {"kind": "discard_card", "card": hand[worst]}
        return {"kind": "end_planting"}

    def next_kinds(self, state: State) -> set[str]:
        return {state.kind(c) for c in state.hand()[:2]}

    def worth_a_field(self, state: State, fields: list[Field], kind: str,
                      kinds: list[str]) -> bool:
        hand = state.hand()
        if not hand:
            return True
        front = state.kind(hand[0])
        return front == kind or matching_field(fields, front) is not None or kinds.count(kind) > 1

    def plant(self, state: State, seat: int, fields: list[Field], cards: Sequence[int],
              optional: bool) -> Command:
        kinds = [state.kind(c) for c in cards]
        if not optional and misfits(fields, kinds):
            keep = set(kinds) | self.next_kinds(state)
            options = [i for i in harvestable(state, seat, fields) if fields[i][0] not in keep]
            if options:
                return self.harvest(state, seat, fields, keep, options)
        for position, kind in enumerate(kinds):
            index = matching_field(fields, kind)
            if index is not None:
                return {"kind": "plant_card", "card": cards[position], "field": index}
        empty = empty_field(fields)
        if empty is not None:
            card = most_common(cards, kinds)
            if not optional or self.worth_a_field(state, fields, state.kind(card), kinds):
                return {"kind": "plant_card", "card": card, "field": empty}
        if optional:
            if empty is None and self.spite_harvest(state, seat, fields, kinds):
                return self.harvest(state, seat, fields, set())
            return {"kind": "end_planting"}
        return self.harvest(state, seat, fields, set(kinds) | self.next_kinds(state))

    def spite_harvest(self, state: State, seat: int, fields: list[Field],
                      kinds: list[str]) -> bool:
        if not any(matching_field(farm(state, other), kind) is not None
                   for other in range(state.players) if other != seat for kind in kinds):
            return False
        losses = [harvest_loss(k, n) for i, (k, n) in enumerate(fields)
                  if k is not None and i in harvestable(state, seat, fields)]
        return bool(losses) and min(losses) <= LEAVE_HARVEST_LOSS

    def plant_leftovers(self, state: State, seat: int, fields: list[Field]) -> Command:
        face_up = state.face_up
        kinds = [state.kind(c) for c in face_up]
        for position, kind in enumerate(kinds):
            index = matching_field(fields, kind)
            if index is not None:
                return {"kind": "plant_card", "card": face_up[position], "field": index}
        empty = empty_field(fields)
        if empty is not None:
            card = most_common(face_up, kinds)
            if self.worth_a_field(state, fields, state.kind(card), kinds):
                return {"kind": "plant_card", "card": card, "field": empty}
        return {"kind": "discard_card", "card": face_up[0]}

    # -- trading

    def trade(self, state: State, seat: int, fields: list[Field]) -> Command | None:
        area = state.trade_area(seat)
        if area and state.rules["received_cards_planted"] == RECEIVED_AT_ONCE:
            return self.plant(state, seat, fields, area, optional=False)
        mine = [o for o in state.offers if self.may_answer(state, seat, o)]
        if mine:
            return self.answer(state, seat, Holdings(state, seat, fields), mine)
        if seat == state.active:
            if len(self.tried) < OFFERS_PER_TURN:
                for gives, wants, to in self.offers(state, seat, Holdings(state, seat, fields)):
                    said = (tuple(gives), tuple(map(tuple, wants)), to)
                    if said not in self.tried:
                        self.tried.add(said)
                        return {"kind": "make_offer", "gives": list(gives),
                                "wants": [list(w) for w in wants], "to": to}
            return {"kind": "end_trading"}
        if not self.proposed and seat not in state.awaiting:
            self.proposed = True
            return self.proposal(state, seat, Holdings(state, seat, fields))
        return None

    def may_answer(self, state: State, seat: int, offer: dict[str, Any]) -> bool:
        if offer["proposer"] == seat or seat in offer["declined_by"]:
            return False
        if offer["counterparty"] is None:
            return seat != state.active
        return bool(offer["counterparty"] == seat)

    def answer(self, state: State, seat: int, mine: Holdings,
               offers: list[dict[str, Any]]) -> Command:
        best: tuple[float, Command] | None = None
        for offer in offers:
            cards = mine.payment(offer["wants"])
            if cards is None:
                continue
            gain = mine.gain(cards, [state.kind(c) for c in offer["gives"]])
            if gain > ACCEPT_MARGIN and (best is None or gain > best[0]):
                best = (gain, {"kind": "accept_offer", "offer": offer["offer"], "cards": cards})
        if best is not None:
            return best[1]
        return {"kind": "decline_offer", "offer": offers[0]["offer"]}

    def offers(self, state: State, seat: int, mine: Holdings
               ) -> Iterator[tuple[tuple[int, ...], tuple[tuple[str, int], ...], int | None]]:
        shed = [(mine.shed_gain(state.kind(c)), c) for c in mine.face_up]
        shed = [(gain, card) for gain, card in shed if gain > ACCEPT_MARGIN]
        unwanted = [card for _, card in shed] + [mine.hand[p] for p in mine.awkward()]
        if not unwanted:
            return
        giftable = {card for gain, card in shed if gain >= GIFT_MARGIN}
        wanted = best_wanted(mine.fields)
        for step in range(1, state.players):
            other = (seat + step) % state.players
            theirs = farm(state, other)
            useful = tuple(c for c in unwanted if field_for(theirs, state.kind(c)) is not None)
            if not useful:
                continue
            if wanted is not None:
                yield useful, ((wanted, 1),), other
            gift = tuple(c for c in useful if c in giftable)
            if gift:
                yield gift, (), other
        if giftable:
            yield tuple(sorted(giftable)), (), None

    def proposal(self, state: State, seat: int, mine: Holdings) -> Command | None:
        grown = [state.kind(c) for c in state.face_up
                 if matching_field(mine.fields, state.kind(c)) is not None]
        awkward = mine.awkward()
        if not grown and not awkward:
            return None
        theirs = farm(state, state.active)
        gives = [mine.hand[p] for p in awkward if field_for(theirs, mine.hand_kinds[p]) is not None]
        best: tuple[float, list[list[Any]]] | None = None
        for kind, count in groups(grown):
            gain = mine.gain(gives, [kind] * count)
            if gain > ACCEPT_MARGIN and (best is None or gain > best[0]):
                best = (gain, [[kind, count]])
        if best is not None:
            return {"kind": "make_offer", "gives": gives, "wants": best[1], "to": state.active}
        if gives and mine.gain(gives, []) > ACCEPT_MARGIN:
            return {"kind": "make_offer", "gives": gives, "wants": [], "to": state.active}
        return None


async def play(server: str, table_id: str, token: str) -> State:
    async with TableClient(server, table_id, token=token) as table:
        last = await table.play(Heuristic().decide)
        for refusal in table.refusals:
            print("refused:", refusal.code, refusal.reason, file=sys.stderr)
        return last


async def serve(server: str, token: str, *, accept_from: Sequence[str] | None = None,
                challenge: Sequence[str] = (), games: int | None = None,
                ruleset: str = "classic", move_seconds: int = 0) -> Player:
    """Accept challenges and play every game the account's stream announces."""
    account = Account(server, token)
    print("playing as", account.me()["username"], file=sys.stderr)
    player = Player(account, lambda: Heuristic().decide, accept_from=accept_from)
    if challenge:
        table = account.challenge(["me", *challenge], ruleset=ruleset,
                                  move_seconds=move_seconds)
        print("challenged", ", ".join(challenge), "at", table["id"], file=sys.stderr)
    await player.run(games=games)
    return player


def arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s SERVER [TABLE_ID] TOKEN [options]")
    parser.add_argument("server", help="the site's address, e.g. http://127.0.0.1:8000")
    parser.add_argument("rest", nargs="+", metavar="[TABLE_ID] TOKEN",
                        help="the bot account's token; with a table's id first, play "
                             "that table only")
    parser.add_argument("--accept-from", action="append", metavar="NAME",
                        help="accept challenges from this account only (repeatable; "
                             "default: anyone's)")
    parser.add_argument("--challenge", metavar="SEATS", default="",
                        help="first challenge these seats, comma-separated "
                             "(bot:heuristic,bot:random)")
    parser.add_argument("--ruleset", default="classic", help="the challenge's ruleset")
    parser.add_argument("--move-seconds", type=int, default=0,
                        help="the challenge's clock (seconds a move; 0: none)")
    parser.add_argument("--games", type=int, default=None,
                        help="stop after this many games (default: never)")
    found = parser.parse_args(argv)
    if len(found.rest) > 2:
        parser.error("SERVER [TABLE_ID] TOKEN: too many arguments")
    return found


def main(argv: Sequence[str] | None = None) -> None:
    found = arguments(sys.argv[1:] if argv is None else argv)
    if len(found.rest) == 2:  # one table
        last = asyncio.run(play(found.server, *found.rest))
        print("game over:", last.result)
        return
    seats = [seat.strip() for seat in found.challenge.split(",") if seat.strip()]
    with contextlib.suppress(KeyboardInterrupt):
        player = asyncio.run(serve(found.server, found.rest[0], accept_from=found.accept_from,
                                   challenge=seats, games=found.games,
                                   ruleset=found.ruleset, move_seconds=found.move_seconds))
        print(f"{len(player.results)} games played", file=sys.stderr)


if __name__ == "__main__":
    main()
