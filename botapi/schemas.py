"""The API's bodies, typed (pydantic, through django-ninja): each input bounded before
anything loops on it, each answer described in the OpenAPI document.

Input bodies are strict (:class:`Input`): a field a body does not have is refused, not
ignored, and a value of another type is refused, not converted (``"3"`` or ``3.0`` for
a number, ``"fast"`` or ``null`` for the clock): a bot's mistake is told at once, as
the table's socket refuses a frame's stray fields (docs/protocol.md), rather than
played out as a table other than the one it meant. (django-ninja's ``Schema`` reads
any object's attributes, so it took a string for the clock and left it out.)"""

from __future__ import annotations

from typing import Any, Literal

from ninja import Field, Schema
from pydantic import BaseModel, ConfigDict

from bohnanza_core.rulesets import MAX_PLAYERS, PRESET_NAME_MAX
from botapi.errors import STATUS
from play.tables import MAX_ABSENCE_SECONDS, MAX_CLOCK_SECONDS, MAX_OVERRIDES

SEAT_CHOICE_MAX = 200
"""The longest seat choice (``user:`` and a username of at most 150 characters)."""

GameStatus = Literal["open", "running", "finished"]
"""A table's status (``play.models.Table.Status``), as ``GET /games`` filters by it."""


class Input(BaseModel):
    """An input body: strict (see the module)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Error(Schema):
    """Every refusal's body: ``code`` (stable, for programs: docs/bots.md lists them),
    ``message`` (in the caller's language)."""

    code: str = Field(description="stable error code (docs/bots.md, \"Errors\")",
                      json_schema_extra={"enum": list(STATUS)})
    message: str = Field(description="why, in the caller's language")
    detail: list[dict[str, Any]] | None = Field(
        None, description="invalid_request: each field refused and why")


class Clock(Input):
    """A table's clock: an object of these two fields (left out of a new table: no
    clock; ``null`` is refused)."""

    move_seconds: int = Field(0, ge=0, le=MAX_CLOCK_SECONDS,
                              description="seconds a move (0: no clock)")
    game_seconds: int = Field(0, ge=0, le=MAX_CLOCK_SECONDS,
                              description="each seat's bank beyond the per-move allowance")


class TableIn(Input):
    """A new table: a ruleset (a preset for a player count, with house rules), its
    seats, a clock."""

    ruleset: str = Field(max_length=PRESET_NAME_MAX, examples=["classic"])
    players: int = Field(ge=2, le=MAX_PLAYERS)
    house_rules: dict[str, Any] = Field(default_factory=dict, max_length=MAX_OVERRIDES,
                                        description="parameters that differ from the "
                                                    "preset (GET /rulesets lists them)")
    seats: list[str] = Field(
        min_length=2, max_length=MAX_PLAYERS,
        description="one per seat (players of them), in order: 'me' (the caller's, "
                    "exactly once), 'bot:<name>' (a built-in bot: GET /bots), "
                    "'user:<name>' (a challenge's: a person or bot account, challenged: "
                    "the seat is kept for them until they accept), 'open' (a seek's: "
                    "anyone may join)",
        examples=[["me", "bot:heuristic", "bot:random"]])
    clock: Clock = Field(default_factory=lambda: Clock(move_seconds=0, game_seconds=0),
                         description="left out: no clock (an object, never null)")
    public: bool = True
    absence_seconds: int | None = Field(
        None, ge=0, le=MAX_ABSENCE_SECONDS,
        description="how long a seated player may be away before a bot plays their seat "
                    "(0: never; left out or null: the site's default)")
    replacement_bot: str = Field("heuristic", max_length=40)


class SeekIn(TableIn):
    """A seek: an open table anyone may join (at least one seat 'open'); it starts by
    itself once full unless ``start_when_full`` is false (then its creator starts it)."""

    start_when_full: bool = True


class SeatOut(Schema):
    number: int
    player: str | None = Field(description="who sits here as the record names them "
                                           "(user:<name>, bot:<name>), or null")
    name: str | None = Field(description="the account's name, or a built-in bot's")
    bot: bool = Field(description="a built-in bot or a bot account plays this seat")
    bot_account: bool = Field(description="an outside bot's account sits here")
    kept_for: str | None = Field(description="a challenge's seat: the account it is "
                                             "kept for, until they accept")
    handed_over: bool = Field(description="its person left (or stayed away): a bot "
                                          "plays it now")


class TableOut(Schema):
    id: str
    ruleset: str
    players: int
    house_rules: dict[str, Any]
    status: str = Field(description="open (waiting for players), running, finished")
    public: bool
    created_by: str
    seats: list[SeatOut]
    clock: Clock
    start_when_full: bool
    game: str | None = Field(description="the game's id once started")
    your_seat: int | None = Field(description="the seat the caller plays now, if any")
    socket: str = Field(description="the table's websocket path (docs/protocol.md)")


class JoinIn(Input):
    seat: int | None = Field(None, ge=0, lt=MAX_PLAYERS,
                             description="a seat's number; left out or null: the first "
                                         "open one")


class EntryIn(Input):
    account: str = Field(max_length=150, description="the bot account's name (yours, "
                                                     "or, with a token, itself)")


class CompetitionOut(Schema):
    """A competition a bot account may enter now (``GET /competitions``)."""

    id: str
    name: str
    format: str = Field(description="round-robin, swiss, knockout, duplicate, ladder or "
                                    "league")
    ruleset: str = Field(description="the preset its games are played under")
    house_rules: dict[str, Any] = Field(description="the preset's parameters it changes")
    players: int = Field(description="players at each table")
    clock: Clock = Field(description="each live game's clock")
    fixture_hours: int = Field(description="hours to play a game before it is scored as "
                                           "it stands")
    entrants: int
    organiser: str | None = Field(description="who made it (user:<name>, shell: the "
                                              "command line); null if nobody is named")
    page: str = Field(description="its page on the site")
    entered: bool = Field(description="whether the calling account is one of its entrants")


class RatingOut(Schema):
    """One entrant's rating in a competition (OpenSkill's Plackett-Luce, as its page
    shows it)."""

    entrant: str = Field(description="user:<name> for an account, name@version for a "
                                     "built-in or registered bot")
    name: str = Field(description="its display name")
    mu: float
    sigma: float
    rating: float = Field(description="the conservative rating, mu - 3 sigma, by which "
                                      "the list is ordered")
    games: int = Field(description="its games rated so far")


class CompetitionDetailOut(CompetitionOut):
    """One competition with live tables, and its entrants' ratings now
    (``GET /competitions/{id}``)."""

    finished: bool
    ratings: list[RatingOut] = Field(description="every entrant, best rating first")


class EntryOut(Schema):
    competition: str
    entrant: str
    status: str = Field(description="entered")


class AccountOut(Schema):
    username: str
    bot: bool
    owner: str | None
    scopes: list[str]


class BotOut(Schema):
    name: str
    description: str


class RulesetOut(Schema):
    name: str
    players: list[int]
    parameters: dict[str, Any]
