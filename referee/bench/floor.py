"""``referee bench floor``: the referee against its floor, the same conversation replayed by a
trio program that does nothing else (issue 46).

``referee bench match`` sets the referee beside an echo through trio's stream calls, which is
itself slow; this bench asks what the referee adds to the least a trio referee must do. In one
run, block after block:

- **the referee**: four bots (real processes, their control groups as in a ladder) play
  ``games`` matches; every byte written to each bot and every line read back is taped;
- **the floor**: four new processes of the same bots (same commands, same seeds, the same
  handshake) are sent the taped bytes in the taped order, each decision one non-blocking
  ``os.write`` and a wait in trio's ``wait_readable`` for the reply line: no rules, no clock,
  no log, no checks. The replies are compared with the taped ones after the block (a bot that
  answered differently would make it another conversation: counted as ``mismatches``).

A third figure bounds the rest from below: **the referee alone**, the same matches against
bots that are their taped replies in this process (no process, pipe or wait): what the
referee's own Python costs a decision. The floor plus it is about the referee with its bots;
a referee within 1.5 times the floor would need it under half the floor.

Both are measured by this process's CPU time and the wall clock per decision, with the bots
on the other CPU (``apart``: the referee on CPU 0, the bots on CPU 1) and all on one CPU
(``pinned``), with the log on (each match written to a file, as a ladder does) and off. The
figures go to docs/performance.md with the command; no test asserts a speed.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.bench.match import start_bots
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.runner import MatchRunner
from referee.players.channel import BotLink
from referee.players.connection import BotConnection, handshake, say_goodbye
from referee.players.process import ProcessLink
from referee.rules.presets import ruleset

C_BOT = "./sample_bots/c/bot --random {seed}"
PLACEMENTS = ("apart", "pinned")
CONFIG = MatchConfig(per_decision=1.0, bank=10.0, startup=10.0)

HELLO = b'{"type":"hello","version":1,"name":"taped"}'
"""The taped bots' handshake (the tape starts after the real bots' own)."""
Tape = list[tuple[int, bytes, bytes | None]]
"""What one block said, in order: (seat, bytes written, the reply line read or ``None`` for a
write that asked nothing)."""


class FloorCase(msgspec.Struct, frozen=True, kw_only=True):
    """One placement and log setting: the medians over the blocks."""

    placement: str
    """``apart`` (the referee on CPU 0, the bots on CPU 1) or ``pinned`` (all on CPU 0)."""
    log: bool
    decisions: int
    """Decisions in one block (the same in every block: the same seeds)."""
    referee_cpu_us: float
    referee_wall_us: float
    floor_cpu_us: float
    floor_wall_us: float
    cpu_ratio: float
    """The headline: the referee's CPU per decision over the floor's (issue 46's target: 1.5
    apart, 2 pinned, log on)."""
    wall_ratio: float
    cpu_ratios: list[float]
    """Each block's CPU ratio (alternating blocks: their spread is the noise of the machine)."""
    mismatches: int
    alone_cpu_us: float
    """The referee alone: the same matches, its bots their taped replies in this process (no
    process, pipe or wait; nor the control group's CPU read, which a log takes of a process)."""


class FloorBench(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``referee bench floor``."""

    variant: str
    games: int
    blocks: int
    bot: str
    cases: list[FloorCase]


class _Replayed(BotLink):
    """A bot that is its taped replies, in the referee's process: nothing read or written."""

    def __init__(self, replies: Iterator[bytes]) -> None:
        super().__init__()
        self._replies = replies

    @property
    def description(self) -> str:
        return "taped replies"

    async def send(self, data: bytes) -> None:
        pass

    async def exchange(self, data: bytes) -> bytes:
        return next(self._replies)

    async def receive_line(self) -> bytes:
        return next(self._replies)


async def _alone(tape: Tape, variant: str, games: int, logs: Path | None) -> float:
    """The referee alone (``FloorCase.alone_cpu_us``): the taped block's matches against each
    seat's taped replies; this process's CPU seconds. The same decisions, or ``RuntimeError``."""
    rules = ruleset(variant)
    connections = []
    for seat in range(rules.players):
        replies = iter([HELLO, *(reply for s, _, reply in tape if s == seat and reply is not None)])
        connection = BotConnection(link=_Replayed(replies), command="taped")
        await handshake(connection, CONFIG.startup)
        connections.append(connection)
    cpu = time.process_time()
    decisions = await _matches(connections, rules, games, logs, "alone-")
    cpu = time.process_time() - cpu
    if decisions != sum(reply is not None for _, _, reply in tape):
        raise RuntimeError("the taped replies did not play the taped matches again")
    return cpu


def _cpus(placement: str) -> tuple[set[int], set[int]]:
    """The CPUs of the referee and of its bots for a placement."""
    usable = sorted(os.sched_getaffinity(0))
    if placement == "pinned" or len(usable) < 2:
        return {usable[0]}, {usable[0]}
    return {usable[0]}, {usable[1]}


@contextmanager
def _placed(cpus: set[int]) -> Iterator[None]:
    """This process on ``cpus`` for a while (its bots are placed one by one)."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _tape(link: ProcessLink, seat: int, tape: Tape) -> None:
    """Record what the match writes to ``link`` and what it reads back (instance attributes
    over the class's methods, for this bench's links only)."""
    exchange, send = link.exchange, link.send

    async def taped_exchange(data: bytes) -> bytes:
        line = await exchange(data)
        tape.append((seat, data, line))
        return line

    async def taped_send(data: bytes) -> None:
        await send(data)
        tape.append((seat, data, None))

    link.exchange = taped_exchange  # type: ignore[method-assign]
    link.send = taped_send  # type: ignore[method-assign]


async def _referee(connections: Sequence[BotConnection], variant: str, games: int, logs: Path | None) -> Tape:
    """The referee's block: ``games`` matches, taped; its CPU and wall time by the caller."""
    rules = ruleset(variant)
    tape: Tape = []
    for seat, connection in enumerate(connections):
        assert isinstance(connection.link, ProcessLink)
        _tape(connection.link, seat, tape)
    await _matches(connections, rules, games, logs)
    return tape


async def _matches(
    connections: Sequence[BotConnection], rules: RuleSet, games: int, logs: Path | None, prefix: str = ""
) -> int:
    """``games`` matches of ``connections`` (seeds 0 on), each logged to ``logs`` when given
    (``prefix`` and its number); the decisions of those every seat ended ``ok``."""
    decisions = 0
    async with trio.open_nursery() as nursery:
        for game in range(games):
            log = MatchLog(logs / f"{prefix}{game}.jsonl" if logs is not None else None)
            runner = MatchRunner(list(connections), rules, seed=game, config=CONFIG, log=log, nursery=nursery)
            try:
                outcome = await runner.run()
            finally:
                log.close()
            decisions += runner.decisions if all(seat.status == "ok" for seat in outcome.seats) else 0
    return decisions


async def _floor(connections: Sequence[BotConnection], tape: Tape) -> list[bytes]:
    """The floor's block: the taped bytes written in the taped order, each reply line waited
    for with trio and read with ``os.read``; the lines read, for the comparison after."""
    fds = []
    for connection in connections:
        assert isinstance(connection.link, ProcessLink)
        fds.append(connection.link.fds())
    pending = [b""] * len(fds)
    replies = []
    wait_readable, write, read = trio.lowlevel.wait_readable, os.write, os.read
    for seat, data, reply in tape:
        out, into = fds[seat]
        write(out, data)
        if reply is None:
            continue
        buffer = pending[seat]
        while (end := buffer.find(b"\n")) < 0:
            await wait_readable(into)
            buffer += read(into, 65536)
        replies.append(buffer[:end])
        pending[seat] = buffer[end + 1 :]
    await trio.lowlevel.checkpoint()
    return replies


async def _block(
    variant: str, games: int, *, bot: str, placement: str, logs: Path | None, cwd: str | None
) -> tuple[float, ...]:
    """One referee block then one floor block on new bots, then the referee alone: (decisions,
    referee CPU, referee wall, floor CPU, floor wall, mismatched replies, alone CPU)."""
    own, theirs = _cpus(placement)
    seeds = range(1, ruleset(variant).players + 1)
    with _placed(own):
        async with trio.open_nursery() as nursery:
            connections = await start_bots(bot, seeds, nursery, [], startup=CONFIG.startup, cwd=cwd, cpus=theirs)
            wall, cpu = time.perf_counter(), time.process_time()
            tape = await _referee(connections, variant, games, logs)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            for connection in connections:
                await say_goodbye(connection, CONFIG.grace)
            connections = await start_bots(bot, seeds, nursery, [], startup=CONFIG.startup, cwd=cwd, cpus=theirs)
            floor_wall, floor_cpu = time.perf_counter(), time.process_time()
            read = await _floor(connections, tape)
            floor_cpu, floor_wall = time.process_time() - floor_cpu, time.perf_counter() - floor_wall
            for connection in connections:
                await say_goodbye(connection, CONFIG.grace)
    expected = [reply for _, _, reply in tape if reply is not None]
    mismatches = sum(a != b for a, b in zip(expected, read, strict=True))
    with _placed(own):
        alone = await _alone(tape, variant, games, logs)
    return len(expected), cpu, wall, floor_cpu, floor_wall, mismatches, alone


def _case(placement: str, log: bool, rows: Sequence[tuple[float, ...]]) -> FloorCase:
    """The medians of one case's blocks."""
    decisions = int(rows[0][0])

    def per(column: int) -> float:
        return statistics.median(row[column] for row in rows) / decisions * 1e6

    ratios = [round(row[1] / row[3], 2) for row in rows]
    return FloorCase(
        placement=placement,
        log=log,
        decisions=decisions,
        referee_cpu_us=round(per(1), 1),
        referee_wall_us=round(per(2), 1),
        floor_cpu_us=round(per(3), 1),
        floor_wall_us=round(per(4), 1),
        cpu_ratio=round(statistics.median(ratios), 2),
        wall_ratio=round(statistics.median(row[2] / row[4] for row in rows), 2),
        cpu_ratios=ratios,
        mismatches=int(sum(row[5] for row in rows)),
        alone_cpu_us=round(per(6), 1),
    )


def bench_floor(
    variant: str = "american",
    games: int = 10,
    *,
    blocks: int = 5,
    bot: str = C_BOT,
    placements: Sequence[str] = PLACEMENTS,
    logs: Sequence[bool] = (True, False),
    cwd: str | None = None,
) -> FloorBench:
    """The referee and its floor for each placement and log setting, the cases taking turns
    block after block (a machine's load spreads over all of them alike); the bots run in
    ``cwd`` (the repository, for the sample bots)."""
    cases = [(placement, log) for placement in placements for log in logs]
    rows: dict[tuple[str, bool], list[tuple[float, ...]]] = {case: [] for case in cases}
    for _ in range(blocks):
        for placement, log in cases:
            with tempfile.TemporaryDirectory(prefix="referee-floor-") as folder:
                block = partial(_block, variant, games, bot=bot, placement=placement, cwd=cwd)
                rows[placement, log].append(trio.run(partial(block, logs=Path(folder) if log else None)))
    return FloorBench(
        variant=variant, games=games, blocks=blocks, bot=bot, cases=[_case(p, g, rows[p, g]) for p, g in cases]
    )
