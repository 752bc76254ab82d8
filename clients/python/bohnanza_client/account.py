"""A bot account's life around its games, over the platform's HTTP API (``/api/v1/``,
docs/bots.md, the OpenAPI document at ``/api/openapi.json``): challenges, seeks,
tables, its games, and its event stream (NDJSON).

HTTP through the standard library (``urllib.request``), so that the package depends on
``websockets`` alone: the calls are a few small JSON requests and the stream one long
answer read line by line. The stream is read in a worker thread (``asyncio.to_thread``)
and handed to the event loop one event at a time, as :class:`~bohnanza_client.TableClient`
is: an ``async for`` beside the table sockets.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from http.client import HTTPException
from typing import IO, Any

API = "/api/v1"
MAX_BODY = 2**22
"""The longest answer read from a call (bytes): more is refused, not read."""
MAX_LINE = 2**16
"""The longest line read from the event stream (bytes, its newline included): a
notice is a table's lobby line, a few hundred bytes."""
DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Seconds waited before opening a dropped stream again, one more failure each."""


class ApiError(Exception):
    """A refusal: the API's stable ``code`` (docs/bots.md, "Errors"), its ``message``
    (in the language asked for), the HTTP ``status`` (None: no answer came, or the
    stream broke its format), ``retry_after`` (seconds, on 429) and ``detail`` (the
    fields of an ``invalid_request``)."""

    def __init__(self, code: str, message: str, status: int | None = None, *,
                 retry_after: float | None = None,
                 detail: list[dict[str, Any]] | None = None) -> None:
        super().__init__(f"{code} ({status}): {message}" if status else f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.detail = detail

    @classmethod
    def from_answer(cls, status: int, body: bytes, retry_after: str | None = None
                    ) -> ApiError:
        """The error an answer carries (``{"code", "message"}``); an answer that is not
        the API's (a proxy's page) gets the code ``http_<status>``."""
        try:
            found = json.loads(body)
        except ValueError:
            found = None
        if not isinstance(found, dict) or not isinstance(found.get("code"), str):
            found = {"code": f"http_{status}", "message": body[:200].decode("utf-8",
                                                                            "replace")}
        try:
            wait = float(retry_after) if retry_after is not None else None
        except ValueError:
            wait = None
        detail = found.get("detail")
        return cls(found["code"][:80], str(found.get("message", ""))[:1000], status,
                   retry_after=wait, detail=detail if isinstance(detail, list) else None)


class StreamError(ApiError):
    """The event stream broke its format (a line too long, a line not a JSON object):
    reading it again would not mend it."""


def read_events(readline: Callable[[int], bytes], *, max_line: int = MAX_LINE
                ) -> Iterator[dict[str, Any]]:
    """The events of one NDJSON answer, read by ``readline(limit)`` (a file's): empty
    lines (keepalives) skipped, a line longer than ``max_line`` bytes refused before it
    is parsed, ``{"type": "replaced"}`` the last one yielded. Ends when the answer does
    (a line cut short by a dropped connection is not an event)."""
    while True:
        line = readline(max_line + 1)
        if not line:
            return
        if len(line) > max_line:
            raise StreamError("line_too_long", f"an event stream line over {max_line} bytes")
        if not line.endswith(b"\n"):
            return  # cut short: the connection dropped mid-line
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            raise StreamError("malformed_line", "an event stream line is not JSON") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise StreamError("malformed_line", "an event stream line is not an event")
        yield event
        if event["type"] == "replaced":
            return


def table_id(table: str | dict[str, Any]) -> str:
    """A table's id from an id, a table (the API's) or an event (its ``table``)."""
    if isinstance(table, dict):
        inner = table.get("table")
        return str(inner["id"] if isinstance(inner, dict) else table["id"])
    return str(table)


class Account:
    """A bot account's calls: ``server`` (``https://host``), ``token`` (its API token,
    sent as ``Authorization: Bearer``). Each call returns the API's answer (a dict or a
    list; None for 204) or raises :class:`ApiError`. ``language`` is sent as
    ``Accept-Language`` (the errors' messages)."""

    def __init__(self, server: str, token: str, *, timeout: float = 30.0,
                 language: str | None = None) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.language = language

    def headers(self) -> dict[str, str]:
        found = {"Authorization": f"Bearer {self.token}", "Accept": "application/json",
                 "User-Agent": "bohnanza-client"}
        if self.language:
            found["Accept-Language"] = self.language
        return found

    def _request(self, method: str, path: str, body: Any = None,
                 query: dict[str, str] | None = None) -> urllib.request.Request:
        url = f"{self.server}{API}{path}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method,
                                         headers=self.headers())
        if data is not None:
            request.add_header("Content-Type", "application/json")
        return request

    def _open(self, request: urllib.request.Request, timeout: float) -> IO[bytes]:
        """The answer, or its refusal raised (the body read bounded)."""
        try:
            answer: IO[bytes] = urllib.request.urlopen(request, timeout=timeout)
            return answer
        except urllib.error.HTTPError as error:
            with error:
                body = error.read(MAX_BODY)
            raise ApiError.from_answer(error.code, body, error.headers.get("Retry-After")
                                       ) from None
        except (urllib.error.URLError, OSError, HTTPException) as error:
            reason = getattr(error, "reason", error)
            raise ApiError("unreachable", f"{request.full_url}: {reason}") from error

    def call(self, method: str, path: str, body: Any = None,
             query: dict[str, str] | None = None) -> Any:
        """One call (``path`` under ``/api/v1``); its JSON answer."""
        with self._open(self._request(method, path, body, query), self.timeout) as answer:
            text = answer.read(MAX_BODY + 1)
            status = getattr(answer, "status", 200)
        if len(text) > MAX_BODY:
            raise ApiError("too_large", f"an answer over {MAX_BODY} bytes", status)
        if status == 204 or not text:
            return None
        try:
            return json.loads(text)
        except ValueError:
            raise ApiError(f"http_{status}", "the answer is not JSON", status) from None

    # -- who, what ------------------------------------------------------------------------

    def me(self) -> dict[str, Any]:
        """The account: ``username``, ``bot``, ``owner``, ``scopes``."""
        return dict(self.call("GET", "/account"))

    def bots(self) -> list[dict[str, Any]]:
        """The built-in bots a seat may name (``bot:<name>``)."""
        return list(self.call("GET", "/bots"))

    def rulesets(self) -> list[dict[str, Any]]:
        return list(self.call("GET", "/rulesets"))

    # -- challenges and seeks --------------------------------------------------------------

    @staticmethod
    def _table_body(seats: Sequence[str], ruleset: str, players: int | None,
                    move_seconds: int, game_seconds: int,
                    house_rules: dict[str, Any] | None, public: bool) -> dict[str, Any]:
        return {"ruleset": ruleset, "players": players or len(seats), "seats": list(seats),
                "clock": {"move_seconds": move_seconds, "game_seconds": game_seconds},
                "house_rules": dict(house_rules or {}), "public": public}

    def challenge(self, seats: Sequence[str], *, ruleset: str = "classic",
                  players: int | None = None, move_seconds: int = 0, game_seconds: int = 0,
                  house_rules: dict[str, Any] | None = None, public: bool = True
                  ) -> dict[str, Any]:
        """Challenge accounts (``user:<name>``) and built-in bots (``bot:<name>``);
        ``seats`` one per seat, ``me`` once. The table (it starts once every seat is
        taken: at once when only built-in bots are challenged)."""
        return dict(self.call("POST", "/challenges", self._table_body(
            seats, ruleset, players, move_seconds, game_seconds, house_rules, public)))

    def challenges(self) -> list[dict[str, Any]]:
        """Open challenges to the account and by it."""
        return list(self.call("GET", "/challenges"))

    def accept(self, table: str | dict[str, Any]) -> dict[str, Any]:
        """Sit in the seat a challenge keeps (``table``: its id, or its event)."""
        return dict(self.call("POST", f"/challenges/{_quoted(table)}/accept"))

    def decline(self, table: str | dict[str, Any]) -> None:
        self.call("POST", f"/challenges/{_quoted(table)}/decline")

    def seek(self, seats: Sequence[str], *, ruleset: str = "classic",
             players: int | None = None, move_seconds: int = 0, game_seconds: int = 0,
             house_rules: dict[str, Any] | None = None, public: bool = True,
             start_when_full: bool = True) -> dict[str, Any]:
        """Open a table anyone may join (at least one seat ``open``)."""
        body = self._table_body(seats, ruleset, players, move_seconds, game_seconds,
                                house_rules, public)
        return dict(self.call("POST", "/seeks", {**body, "start_when_full": start_when_full}))

    def seeks(self) -> list[dict[str, Any]]:
        return list(self.call("GET", "/seeks"))

    def cancel(self, table: str | dict[str, Any]) -> None:
        """Withdraw a seek (or a challenge) of one's own that has not started."""
        self.call("DELETE", f"/seeks/{_quoted(table)}")

    # -- tables ----------------------------------------------------------------------------

    def table(self, table: str | dict[str, Any]) -> dict[str, Any]:
        return dict(self.call("GET", f"/tables/{_quoted(table)}"))

    def join(self, table: str | dict[str, Any], seat: int | None = None) -> dict[str, Any]:
        """Sit at an open seat (``seat``, or the first open one)."""
        body = {"seat": seat} if seat is not None else {}
        return dict(self.call("POST", f"/tables/{_quoted(table)}/join", body))

    def leave(self, table: str | dict[str, Any]) -> None:
        """Stand up (before the start), or hand a running seat to the table's bot."""
        self.call("POST", f"/tables/{_quoted(table)}/leave")

    def start(self, table: str | dict[str, Any]) -> dict[str, Any]:
        return dict(self.call("POST", f"/tables/{_quoted(table)}/start"))

    def view(self, table: str | dict[str, Any]) -> dict[str, Any]:
        """The seat's ``state`` frame now (docs/protocol.md)."""
        return dict(self.call("GET", f"/tables/{_quoted(table)}/view"))

    def games(self, status: str = "") -> list[dict[str, Any]]:
        """The account's tables, newest first (``status``: open, running, finished)."""
        return list(self.call("GET", "/games", query={"status": status} if status else None))

    def enter(self, competition_id: str, account: str | None = None) -> dict[str, Any]:
        """Enter a competition (the account itself by default: a token of scope
        ``enter``)."""
        name = account if account is not None else self.me()["username"]
        return dict(self.call("POST", f"/competitions/{urllib.parse.quote(competition_id)}"
                                      "/entries", {"account": name}))

    # -- the event stream ------------------------------------------------------------------

    async def events(self, *, delays: Sequence[float] = DELAYS, max_line: int = MAX_LINE,
                     read_timeout: float = 30.0) -> AsyncIterator[dict[str, Any]]:
        """Every event of the account's stream (docs/bots.md step 2), keepalives
        skipped, across dropped connections (opened again after ``delays``; a stream
        silent for ``read_timeout`` seconds, keepalives included, counts as dropped).
        Ends after ``{"type": "replaced"}`` (another stream for this token took over).
        Raises :class:`ApiError` for the refusals reconnecting does not mend (a bad
        token, a missing scope) and :class:`StreamError`."""
        failures = 0
        request = self._request("GET", "/stream/event")
        request.add_header("Accept", "application/x-ndjson")
        while True:
            try:
                answer = await asyncio.to_thread(self._open, request, read_timeout)
            except StreamError:
                raise
            except ApiError as error:
                if error.status is not None and error.status < 500 and error.status != 429:
                    raise
                await asyncio.sleep(error.retry_after if error.retry_after
                                    else _delay(delays, failures))
                failures += 1
                continue
            failures = 0
            reader = read_events(answer.readline, max_line=max_line)
            try:
                while True:
                    event = await asyncio.to_thread(next, reader, None)
                    if event is None:
                        break  # the answer ended: the connection dropped
                    yield event
                    if event["type"] == "replaced":
                        return
            except (OSError, HTTPException):
                pass  # dropped (a timeout included): open it again
            finally:
                # Closed in a thread: a read blocked in another one holds the file's lock.
                asyncio.get_running_loop().run_in_executor(None, answer.close)
            await asyncio.sleep(_delay(delays, failures))
            failures += 1


def _delay(delays: Sequence[float], failures: int) -> float:
    return delays[min(failures, len(delays) - 1)] if delays else 1.0


def _quoted(table: str | dict[str, Any]) -> str:
    return urllib.parse.quote(table_id(table)[:100], safe="")
