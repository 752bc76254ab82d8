"""A long-lived bot: it reads its account's event stream, answers each challenge
(accepts it from anyone, or from the names allowed, and declines the others), and
plays every game the stream announces (``gameStart``) at that table's socket with a
:class:`~bohnanza_client.TableClient`, several at once if it is seated at several.

A notice may come twice (docs/bots.md): games are keyed by their table's id, each
played once.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Callable, Collection
from typing import Any

from bohnanza_client.account import Account, ApiError, table_id
from bohnanza_client.refusals import StreamReplaced
from bohnanza_client.state import State
from bohnanza_client.table import Decide, TableClient

Event = dict[str, Any]
PATIENCE = 3
"""How many times a call refused as ``rate_limited`` is tried again (after its
``Retry-After``)."""


class Player:
    """Plays every game ``account``'s stream announces.

    ``bot``: called once per game, a ``decide`` for it (a fresh bot object's method if
    the bot keeps anything between moves: ``lambda: Heuristic().decide``).
    ``accept_from``: the names whose challenges are accepted (None: anyone's); the
    others are declined. ``table_options``: passed on to each :class:`TableClient`.
    ``log``: where a line about each challenge and game goes (None: nowhere)."""

    def __init__(self, account: Account, bot: Callable[[], Decide], *,
                 accept_from: Collection[str] | None = None,
                 log: Callable[[str], None] | None = lambda line: print(line, file=sys.stderr),
                 **table_options: Any) -> None:
        self.account = account
        self.bot = bot
        self.accept_from = None if accept_from is None else frozenset(accept_from)
        self.log = log
        self.table_options = table_options
        self.games: dict[str, asyncio.Task[State]] = {}
        """Every game started, by its table's id."""
        self.results: dict[str, State] = {}
        """The last state of each game played to its end."""
        self.failures: dict[str, BaseException] = {}
        """Why a game was not played to its end (the table's socket refused, ...)."""
        self.finished: set[str] = set()
        """Tables the stream told ``gameFinish`` of."""
        self.events: list[Event] = []
        """Every event read, oldest first."""

    def _say(self, line: str) -> None:
        if self.log is not None:
            self.log(line)

    def wants(self, challenge: Event) -> bool:
        """Whether to accept ``challenge`` (its ``by``: who challenged)."""
        return self.accept_from is None or challenge.get("by") in self.accept_from

    async def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        """An account call off the event loop, waiting out ``rate_limited``."""
        for tries in range(PATIENCE + 1):
            try:
                return await asyncio.to_thread(method, *args)
            except ApiError as error:
                if error.code != "rate_limited" or tries == PATIENCE:
                    raise
                await asyncio.sleep(error.retry_after or 1.0)
        raise AssertionError("unreachable")

    async def answer(self, challenge: Event) -> None:
        """Accept or decline a challenge; a refusal (the table withdrawn meanwhile,
        the seat taken) is logged, not raised: the bot goes on."""
        table, by = table_id(challenge), challenge.get("by")
        try:
            if self.wants(challenge):
                await self._call(self.account.accept, table)
                self._say(f"accepted {by}'s challenge at {table}")
            else:
                await self._call(self.account.decline, table)
                self._say(f"declined {by}'s challenge at {table}")
        except ApiError as error:
            self._say(f"challenge at {table}: {error}")

    async def play(self, start: Event) -> State:
        """Play the game a ``gameStart`` announces to its end."""
        table = table_id(start)
        client = TableClient(self.account.server, table, token=self.account.token,
                             **self.table_options)
        self._say(f"playing seat {start.get('seat')} at {table}")
        async with client:
            last = await client.play(self.bot())
        self.results[table] = last
        self._say(f"game over at {table}: {last.result}")
        return last

    def over(self) -> set[str]:
        """Games played to their end (or given up) and told finished by the stream."""
        return {t for t, task in self.games.items() if task.done()} & self.finished

    async def run(self, games: int | None = None) -> None:
        """Read the stream and play, until ``games`` games are over (None: for ever)
        and no other game is in hand. Once ``games`` are over no challenge is answered
        and no new game started, but every game already being played is played to its
        end (a seat is never left mid-game because another game ended first). A game
        whose seat is lost (:class:`~bohnanza_client.SeatLost`: left, stayed away) is
        in :attr:`failures`, never in :attr:`results`. Raises
        :class:`~bohnanza_client.StreamReplaced` when another stream for the same token
        took over (a second process of the bot, which plays the account's games from
        then on), after stopping the games still running here."""
        woken: asyncio.Queue[Event | None] = asyncio.Queue()

        async def pump() -> None:
            try:
                async for event in self.account.events():
                    await woken.put(event)
            finally:
                await woken.put(None)

        def done(table: str, task: asyncio.Task[State]) -> None:
            if not task.cancelled() and task.exception() is not None:
                error = task.exception()
                assert error is not None
                self.failures[table] = error
                self._say(f"game at {table} not played to its end: {error!r}")
            woken.put_nowait({"type": "played", "table": {"id": table}})

        def enough() -> bool:
            return games is not None and len(self.over()) >= games

        def in_hand() -> bool:
            return any(not task.done() for task in self.games.values())

        reader = asyncio.create_task(pump())
        replaced = False
        try:
            while not (enough() and not in_hand()):
                event = await woken.get()
                if event is None:
                    await reader  # its error, if the stream ended on one
                    break
                kind = event["type"]
                if kind == "played":
                    continue
                self.events.append(event)
                if kind == "challenge" and not enough():
                    await self.answer(event)
                elif (kind == "gameStart" and table_id(event) not in self.games
                      and not enough()):
                    table = table_id(event)
                    game = asyncio.create_task(self.play(event))
                    game.add_done_callback(functools.partial(done, table))
                    self.games[table] = game
                elif kind == "gameFinish":
                    self.finished.add(table_id(event))
                elif kind == "replaced":
                    self._say("another stream for this token took over: stopping")
                    replaced = True
                    break
        finally:
            pending: list[asyncio.Task[Any]] = [
                t for t in (reader, *self.games.values()) if not t.done()]
            for stopped in pending:
                stopped.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if replaced:
            raise StreamReplaced("another event stream for this token took over: one "
                                 "process per bot account (the other plays its games)")
