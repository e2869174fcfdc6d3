"""TCP seats and the clients a test connects to them: a match whose seats wait for clients the
test starts once the referee listens (``TableOptions.on_listening``), and the seats ``referee
serve`` announces, with a random bot for each."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from protocol.ruleset import RuleSet
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.players.tcp import TcpSeat

ROOT = Path(__file__).resolve().parents[2]
SEAT_LINE = re.compile(r"tcp seat (\d) (\w+): connect to ([\d.]+):(\d+) with token (\S+)")
"""How ``referee serve`` announces a TCP seat on its stderr."""


@dataclass
class Listening:
    """The match in play: where its TCP seats listen (and their tokens), a nursery for the
    test's clients, and once the ``async with`` is over, its outcome."""

    address: tuple[str, int]
    seats: list[TcpSeat]
    nursery: trio.Nursery
    outcomes: list[MatchOutcome]

    @property
    def outcome(self) -> MatchOutcome:
        return self.outcomes[0]


@asynccontextmanager
async def listening_match(
    seats: Sequence[str], rules: RuleSet, *, seed: int, options: TableOptions, log_path: Path | None = None
) -> AsyncIterator[Listening]:
    """Start ``play_match`` and enter once its TCP seats listen; on leaving, wait for the end
    of the match and of every client started in the nursery."""
    outcomes: list[MatchOutcome] = []
    async with trio.open_nursery() as nursery:
        listening = trio.Event()
        address: list[tuple[str, int]] = []
        tcp_seats: list[TcpSeat] = []

        def on_listening(addr: tuple[str, int], seats: list[TcpSeat]) -> None:
            address.append(addr)
            tcp_seats.extend(seats)
            listening.set()

        async def referee() -> None:
            options_ = dataclasses.replace(options, on_listening=on_listening)
            outcomes.append(await play_match(seats, rules, seed=seed, log_path=log_path, options=options_))

        nursery.start_soon(referee)
        await listening.wait()
        yield Listening(address[0], tcp_seats, nursery, outcomes)


def seats_announced(serve: subprocess.Popen[str], count: int = 4) -> list[tuple[str, ...]]:
    """The first ``count`` TCP seats ``referee serve`` announces: seat, name, host, port, token."""
    assert serve.stderr is not None
    seats: list[tuple[str, ...]] = []
    while len(seats) < count:
        line = serve.stderr.readline()
        assert line, "serve ended before announcing its seats"
        if found := SEAT_LINE.search(line):
            seats.append(found.groups())
    return seats


def random_bots_for(seats: list[tuple[str, ...]]) -> list[subprocess.Popen[bytes]]:
    """The Python random bot (seeded with the seat's number) connected to each announced seat."""
    return [
        subprocess.Popen(
            [
                sys.executable,
                "sample_bots/python/random_bot.py",
                "--seed",
                seat,
                "--tcp",
                f"{host}:{port}",
                "--token",
                token,
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for seat, _, host, port, token in seats
    ]
