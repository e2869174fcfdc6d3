"""``referee bench match``: matches between bots in real processes, the referee's own CPU per
decision against raw line round trips through the same trio I/O path.

The figures go to ``docs/performance.md`` with the command that produced them; no test
asserts a speed (timed assertions flake on shared machines).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.runner import MatchRunner
from referee.players.connection import BotConnection, handshake, say_goodbye
from referee.players.process import ProcessLink
from referee.rules.presets import ruleset


class MatchBench(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``referee bench match``."""

    variant: str
    games: int
    seconds: float
    decisions: int
    matches_per_second: float
    decisions_per_second: float
    wall_us_per_decision: float
    """Wall time per decision: the bots' thinking and the pipes included."""
    referee_us_per_decision: float
    """The referee process's own CPU time per decision (its overhead)."""
    echo_round_trips: int
    echo_us_per_round_trip: float
    """Wall time of one line round trip through a trivial echo process (``cat``)."""
    echo_cpu_us_per_round_trip: float
    """This process's CPU time per echo round trip (a ``send`` and a ``receive_line`` on the
    same links: the floor for a naive trio driver)."""
    ratio: float
    """The headline: ``referee_us_per_decision / echo_cpu_us_per_round_trip``, CPU against
    CPU in one run (target: 1.5 or less, issue 13)."""
    ratio_to_echo_wall: float
    """``referee_us_per_decision / echo_us_per_round_trip``: the referee's CPU against the
    echo's wall time (the figure reported before issue 13)."""
    timeouts: int


RANDOM_BOT = "{python} sample_bots/python/random_bot.py --seed {seed}"


async def start_bots(
    bot: str,
    seeds: Sequence[int],
    nursery: trio.Nursery,
    into: list[BotConnection],
    *,
    startup: float,
    cwd: str | None = None,
    cpus: set[int] | None = None,
) -> list[BotConnection]:
    """One process of ``bot`` per seed (its ``{python}`` and ``{seed}`` filled in), on ``cpus``
    when given, each added to ``into`` once started (so a caller says goodbye to those started
    even if a later one fails), then every handshake at once; ``into``."""
    for seed in seeds:
        command = bot.format(python=sys.executable, seed=seed)
        link = await ProcessLink.start(command, nursery, cwd=cwd)
        if cpus is not None:
            os.sched_setaffinity(link.process.pid, cpus)
        into.append(BotConnection(link=link, command=command))
    async with trio.open_nursery() as handshakes:
        for connection in into:
            handshakes.start_soon(handshake, connection, startup)
    return into


async def _bench_match(variant: str, games: int, cwd: str | None, bot: str) -> MatchBench:
    """Matches and echo round trips alternate (after each match, as many round trips as it
    had decisions), so both are measured under the same load on a shared machine."""
    rules = ruleset(variant)
    config = MatchConfig(per_decision=1.0, bank=10.0, startup=10.0)
    log = MatchLog(None)
    decisions = timeouts = 0
    wall = cpu = echo_wall = echo_cpu = 0.0
    line = b'{"type":"play_request","id":1,"legal":["2C","3C","4C"],"trick":[],"time":{}}\n'
    async with trio.open_nursery() as nursery:
        connections = await start_bots(bot, range(1, rules.players + 1), nursery, [], startup=config.startup, cwd=cwd)
        echoes = [await ProcessLink.start(["cat"], nursery) for _ in range(rules.players)]
        for game in range(games):
            wall0, cpu0 = time.perf_counter(), time.process_time()
            runner = MatchRunner(connections, rules, seed=game, config=config, log=log, nursery=nursery)
            outcome = await runner.run()
            wall += time.perf_counter() - wall0
            cpu += time.process_time() - cpu0
            decisions += runner.decisions
            timeouts += sum(s.status == "timeout" for s in outcome.seats)
            wall0, cpu0 = time.perf_counter(), time.process_time()
            for i in range(runner.decisions):
                echo = echoes[i % len(echoes)]
                await echo.send(line)
                await echo.receive_line()
            echo_wall += time.perf_counter() - wall0
            echo_cpu += time.process_time() - cpu0
        for connection in connections:
            await say_goodbye(connection, config.grace)
        for echo in echoes:
            await echo.close(0.5)
    referee_us = cpu / decisions * 1e6
    echo_us = echo_wall / decisions * 1e6
    echo_cpu_us = echo_cpu / decisions * 1e6
    return MatchBench(
        variant=variant,
        games=games,
        seconds=round(wall, 3),
        decisions=decisions,
        matches_per_second=round(games / wall, 2),
        decisions_per_second=round(decisions / wall, 1),
        wall_us_per_decision=round(wall / decisions * 1e6, 1),
        referee_us_per_decision=round(referee_us, 1),
        echo_round_trips=decisions,
        echo_us_per_round_trip=round(echo_us, 1),
        echo_cpu_us_per_round_trip=round(echo_cpu_us, 1),
        ratio=round(referee_us / echo_cpu_us, 2),
        ratio_to_echo_wall=round(referee_us / echo_us, 2),
        timeouts=timeouts,
    )


def bench_match(
    variant: str = "american", games: int = 20, cwd: str | None = None, bot: str = RANDOM_BOT
) -> MatchBench:
    """Play ``games`` matches between four random bots (real processes, kept across matches)
    and measure the referee's cost per decision against raw line round trips."""
    return trio.run(_bench_match, variant, games, cwd, bot)


class ConcurrentBench(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``referee bench match --concurrency K``."""

    variant: str
    concurrency: int
    matches: int
    seconds: float
    decisions: int
    matches_per_second: float
    decisions_per_second: float
    median_delay_us: float
    """Median delay between a bot's reply arriving and the referee's next request."""
    p99_delay_us: float
    worst_delay_us: float
    timeouts: int
    faults: int
    bot: str


async def _table(
    rules: RuleSet,
    bot: str,
    seeds: list[int],
    config: MatchConfig,
    delays: list[float],
    totals: list[int],
    cwd: str | None,
) -> None:
    """One table: start its bots, play its matches in a row, end its bots."""
    async with trio.open_nursery() as nursery:
        connections: list[BotConnection] = []
        try:
            first = seeds[0] * 8 + 1
            await start_bots(bot, range(first, first + rules.players), nursery, connections, startup=config.startup,
                             cwd=cwd)  # fmt: skip
            for seed in seeds:
                runner = MatchRunner(connections, rules, seed=seed, config=config, log=MatchLog(None), nursery=nursery)
                runner.delays = delays
                outcome = await runner.run()
                totals[0] += 1
                totals[1] += runner.decisions
                totals[2] += sum(s.status == "timeout" for s in outcome.seats)
                totals[3] += sum(s.status != "ok" for s in outcome.seats)
        finally:
            with trio.CancelScope(shield=True):
                for connection in connections:
                    await say_goodbye(connection, config.grace)


def bench_concurrent(
    variant: str = "american", games: int = 100, concurrency: int = 16, bot: str = RANDOM_BOT, cwd: str | None = None
) -> ConcurrentBench:
    """``games`` matches on ``concurrency`` tables at once in one referee process, each table
    with its own bot processes, at 1 s per decision."""
    rules = ruleset(variant)
    config = MatchConfig(per_decision=1.0, bank=10.0, startup=30.0)
    delays: list[float] = []
    totals = [0, 0, 0, 0]
    per_table = [list(range(t, games, concurrency)) for t in range(concurrency)]

    async def main() -> float:
        start = time.perf_counter()
        async with trio.open_nursery() as nursery:
            for seeds in per_table:
                if seeds:
                    nursery.start_soon(_table, rules, bot, seeds, config, delays, totals, cwd)
        return time.perf_counter() - start

    wall = trio.run(main)
    delays.sort()

    def pick(q: float) -> float:
        return round(delays[min(len(delays) - 1, int(q * len(delays)))] * 1e6, 1) if delays else 0.0

    return ConcurrentBench(
        variant=variant,
        concurrency=concurrency,
        matches=totals[0],
        seconds=round(wall, 2),
        decisions=totals[1],
        matches_per_second=round(totals[0] / wall, 2),
        decisions_per_second=round(totals[1] / wall, 1),
        median_delay_us=pick(0.5),
        p99_delay_us=pick(0.99),
        worst_delay_us=round(delays[-1] * 1e6, 1) if delays else 0.0,
        timeouts=totals[2],
        faults=totals[3],
        bot=bot,
    )
