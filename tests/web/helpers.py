"""A person's seat played from Python over the real server: a scripted page that answers the
referee's requests, checks it is never told another seat's cards, and can misbehave once."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from protocol.cards import ALL_CODES
from referee.match.config import MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.rules import ruleset
from referee.web.server import WebSeat, WebSeatServer
from tests.web.client import Closed, WsClient

ROOT = Path(__file__).resolve().parents[2]
RANDOM = f"{sys.executable} {ROOT / 'sample_bots/python/random_bot.py'}"
ONE_ROUND = ruleset("american", {"end": "rounds", "rounds": 1})
CONFIG = MatchConfig(per_decision=20.0, bank=20.0, startup=5.0, grace=0.3)
CARDS = frozenset(ALL_CODES)


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a decoded message."""
    if isinstance(value, str):
        return {value} if value in CARDS else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for k, v in value.items() if k != "rules"))
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value))
    return set()


@dataclass
class Person:
    """A scripted page: first legal choices; ``misbehave`` may replace one reply."""

    url: str = ""
    token: str = ""
    hand: set[str] = field(default_factory=set)
    public: set[str] = field(default_factory=set)
    """Cards every seat has seen played."""
    seen: list[dict[str, Any]] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)
    plays: int = 0
    round: int = -1
    passes: int = 0
    on_request: Callable[[Person, WsClient, dict[str, Any]], Awaitable[bool]] | None = None
    """Called with each request; ``True``: it answered (or hung up) itself."""

    def check(self, message: dict[str, Any]) -> None:
        """Keep track of what the seat may know and note a message telling it more."""
        kind = message["type"]
        before = set(self.hand)
        if kind == "round_start":
            self.hand = set(message["hand"])
            if message["round"] != self.round:  # not the same round told again after a reload
                self.round, self.public = message["round"], set()
        elif kind == "passed":
            assert set(message["given"]) <= self.hand
            self.hand = set(message["hand"])
        elif kind == "card_played":
            self.public.add(message["card"])
        if not cards_in(message) <= before | self.hand | self.public | set(message.get("received", [])):
            self.leaks.append(message)
        if kind == "card_played" and message["card"] in self.hand:
            self.hand.discard(message["card"])

    async def play(self, client: WsClient) -> None:
        """Answer requests until the goodbye (or the connection ends)."""
        try:
            while True:
                message = await client.receive()
                self.seen.append(message)
                self.check(message)
                kind = message["type"]
                if kind == "goodbye" or (kind == "error" and message["fatal"]):
                    return
                if (
                    kind.endswith("_request")
                    and self.on_request is not None
                    and await self.on_request(self, client, message)
                ):
                    continue
                await answer(client, message, self)
        except Closed:
            return

    async def join(self) -> WsClient:
        client = await WsClient.connect(self.url, self.token)
        await client.hello()
        return client


async def answer(client: WsClient, message: dict[str, Any], person: Person | None = None) -> None:
    kind = message["type"]
    if kind == "pass_request":
        if person is not None:
            person.passes += 1
        await client.send({"type": "pass", "id": message["id"], "cards": message["legal"][: message["count"]]})
    elif kind == "play_request":
        if person is not None:
            person.plays += 1
        await client.send({"type": "play", "id": message["id"], "card": message["legal"][0]})
    elif kind == "declare_request":
        await client.send({"type": "declare", "id": message["id"], "declare": False})
    elif kind == "moon_request":
        await client.send({"type": "moon", "id": message["id"], "choice": message["options"][0]})


async def play_web(
    tmp_path: Path,
    person: Person,
    *,
    config: MatchConfig = CONFIG,
    seat: int = 0,
    seed: int = 7,
    players: Callable[[str, WebSeat, Person], Awaitable[None]] | None = None,
    connect_timeout: float = 10.0,
    bots: dict[int, str] | None = None,
) -> tuple[MatchOutcome, Path, WebSeatServer]:
    """A one-round match of ``american``: ``seat`` played by ``person`` over the real server,
    the others by the random sample bot. ``players`` replaces how the person joins."""
    log = tmp_path / "match.jsonl"
    result: list[MatchOutcome] = []

    async with trio.open_nursery() as nursery:

        def listening(url: str, seats: list[WebSeat]) -> None:
            person.url, person.token = url, seats[0].token
            if players is not None:
                nursery.start_soon(players, url, seats[0], person)
            else:
                nursery.start_soon(_join_and_play, person)

        server = WebSeatServer(on_listening=listening)
        specs = [RANDOM] * 4
        for index, command in (bots or {}).items():  # other bots at some seats
            specs[index] = command
        specs[seat] = "web:person"
        result.append(
            await play_match(
                specs,
                ONE_ROUND,
                seed=seed,
                log_path=log,
                options=TableOptions(config=config, cwd=ROOT, seat_host=server, connect_timeout=connect_timeout),
            )
        )
    return result[0], log, server


async def _join_and_play(person: Person) -> None:
    client = await person.join()
    await person.play(client)
