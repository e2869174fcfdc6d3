"""Play a ladder's pending matches: K tables at once in one trio process, each table with its
own bot processes.

A table slot takes one duplicate set at a time and plays its pending rotations in order, each
a fresh ``MatchRunner`` over the slot's connections. By default every match gets freshly
started bot processes (in the sandbox, when there is one), ended after the match with their
stderr in its log: a bot cannot carry what it saw in one rotation (the deals of the whole set)
into the next. With ``keep_bots`` (for trusted bots: faster) live processes are kept from one
match to the next. Either way a bot whose connection ended during a match (crash, timeout,
garbage, a failed handshake) is closed after that match, its stderr goes into the match's
log, and a new process is started for its next match; the result row of the match says what
happened to it and how the bots ran (sandboxed, fresh). Each finished match is committed to the store (result and
rating update in one transaction) before the slot moves on; a match cut off by a kill or an
interrupt stays pending and is played again from its seed by the next run, its partial log
replaced.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.ladder.spares import Spares
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.runner import MatchRunner
from referee.names import printable
from referee.players.building import BuiltBot
from referee.players.connection import BotConnection, handshake, say_goodbye
from referee.players.process import BotLimits, BotStartError, ProcessLink
from referee.private_files import private_folder
from referee.rules.scoring import RoundResult
from referee.store.records import ScheduledMatch, SeatResult, StoredMatch
from referee.store.writer import LadderStore


@dataclass(frozen=True)
class RunOptions:
    """How the pending matches are played."""

    logs: Path
    """The folder for replay logs (one ``SET-ROTATION.jsonl`` per match)."""
    config: MatchConfig = field(default_factory=MatchConfig)
    concurrency: int = 1
    cwd: Path | None = None
    """Where bot commands run (``None``: the current folder)."""
    limits: BotLimits = field(default_factory=BotLimits)
    """How every bot is started: its sandbox (``limits.sandbox``), its limits."""
    keep_bots: bool = False
    """Keep live bot processes from one match to the next instead of starting fresh ones."""
    start_ahead: bool = True
    """With fresh bots, start the next match's bots while a match plays (``referee.ladder.spares``)."""
    built: Mapping[str, BuiltBot] = field(default_factory=dict)
    """Where each bot runs from (its folder, its build's copy), by name; a bot not here runs
    from ``cwd``."""

    def limits_for(self, name: str) -> BotLimits:
        """How bot ``name`` is started: ``limits`` in its own folder, its build's copy shown."""
        built = self.built.get(name)
        if built is None:
            return self.limits
        return msgspec.structs.replace(self.limits, cwd=str(built.folder), sandbox=built.sandbox(self.limits.sandbox))

    @property
    def sandboxed(self) -> bool:
        return self.limits.sandbox is not None


def limits_among(options: RunOptions, commands: Mapping[str, str], name: str) -> BotLimits:
    """How bot ``name`` is started (``RunOptions.limits_for``), its sandbox knowing every bot of
    ``commands``, seated or not: a folder one of them uses is shown whole to no other
    (``referee.sandbox.sight.own_folder``). The roll call and the matches start it alike."""
    limits = options.limits_for(name)
    if limits.sandbox is None:
        return limits
    fallback = options.cwd or os.getcwd()
    places = [(command, options.limits_for(other).cwd or fallback) for other, command in commands.items()]
    return msgspec.structs.replace(limits, sandbox=limits.sandbox.among(places))


@dataclass
class RunSummary:
    """What one run did."""

    played: int = 0
    restarts: Counter[str] = field(default_factory=Counter)
    """Bot processes started again after one ended during a match, by bot name."""
    after_goodbye: Counter[str] = field(default_factory=Counter)
    """Bot processes that ended in an error once told goodbye, by bot name: not a fault (the
    results stand), but the bot's to fix (``referee.players.connection.goodbye_note``)."""
    last_words: dict[str, str] = field(default_factory=dict)
    """For each bot of ``after_goodbye``: how its program ended the last time."""
    last_stderr: dict[str, str] = field(default_factory=dict)
    """For each bot of ``after_goodbye``: the last line of its stderr then, if it wrote one."""

    def goodbye_lines(self) -> list[str]:
        """One line a bot that ended in an error after goodbye, for the end of the run."""
        return [
            f"bot {name}: its program {self.last_words[name]} after goodbye, once its match was over, {n} "
            f"time{'' if n == 1 else 's'} (the results stand; the bot's to fix: exit with status 0 when goodbye "
            "arrives or stdin ends)" + self.last_stderr.get(name, "")
            for name, n in sorted(self.after_goodbye.items())
        ]

    def heard(self, name: str, connection: BotConnection) -> None:
        """Count ``connection`` of bot ``name`` if its program ended in an error after goodbye."""
        if connection.after_goodbye is None:
            return
        self.after_goodbye[name] += 1
        self.last_words[name] = connection.after_goodbye
        said = [line for line in connection.link.stderr_text()[0].splitlines() if line.strip()]
        if said:
            self.last_stderr[name] = f"; its stderr ended: {printable(said[-1], 200)}"


class TableSlot:
    """One table's bot processes: a pool of live connections per bot name (empty after every
    match unless ``options.keep_bots``)."""

    def __init__(
        self, commands: Mapping[str, str], nursery: trio.Nursery, options: RunOptions, summary: RunSummary
    ) -> None:
        self.commands = commands
        self.nursery = nursery
        self.options = options
        self.summary = summary
        self.idle: dict[str, list[BotConnection]] = {}
        self.every: list[BotConnection] = []
        self.lost: Counter[str] = Counter()
        """Connections per bot that ended in a match and were not replaced yet."""
        ahead = options.start_ahead and not options.keep_bots
        self.spares = Spares(nursery, commands, self.limits_for) if ahead else None
        """Bots started ahead of their match, with fresh bots."""

    def limits_for(self, name: str) -> BotLimits:
        """How bot ``name`` is started (``RunOptions.limits_for``), its sandbox knowing every bot
        of the ladder, seated or not: a folder one of them uses is shown whole to no other
        (``referee.sandbox.sight.own_folder``)."""
        return limits_among(self.options, self.commands, name)

    async def take(self, seats: Sequence[str]) -> list[BotConnection]:
        """A connection per seat: a live one kept from an earlier match, or a new process."""
        taken: list[BotConnection | None] = []
        for name in seats:
            pool = self.idle.get(name, [])
            taken.append(pool.pop() if pool else None)

        async def start(index: int, name: str) -> None:
            command = self.commands[name]
            link = self.spares.take(name) if self.spares is not None else None
            if link is None:
                limits = self.limits_for(name)
                link = await ProcessLink.start(command, self.nursery, cwd=self.options.cwd, limits=limits)
            connection = BotConnection(link=link, command=command, label=name)
            self.every.append(connection)  # before the handshake: an interrupt during it still ends the bot
            await handshake(connection, self.options.config.startup)
            taken[index] = connection

        async with trio.open_nursery() as starting:
            for index, name in enumerate(seats):
                if taken[index] is None:
                    if self.lost[name]:
                        self.lost[name] -= 1
                        self.summary.restarts[name] += 1
                    starting.start_soon(start, index, name)
        if self.spares is not None:
            self.spares.ahead(seats)  # a set's next rotation seats the same bots
        return [c for c in taken if c is not None]

    async def give_back(self, seats: Sequence[str], connections: Sequence[BotConnection], runner: MatchRunner) -> None:
        """After a match: with ``keep_bots`` keep the live connections for the next match,
        else say goodbye to them; end every other one. Then the runner logs every seat's
        stderr of this match (with the exit status of the ended ones) and explains its faults
        with them (``MatchRunner.write_stderr``)."""
        keep = self.options.keep_bots
        ended = [c for c in connections if not (keep and c.alive)]
        for name, connection in zip(seats, connections, strict=True):
            if not connection.alive:
                self.lost[name] += 1
            elif keep:
                self.idle.setdefault(name, []).append(connection)
        grace = self.options.config.grace

        async def end(connection: BotConnection) -> None:
            await say_goodbye(connection, grace)
            if isinstance(connection.link, ProcessLink):  # the runner may have started closing it
                await connection.link.wait_exit(3 * grace + 1)

        async with trio.open_nursery() as ending:
            for connection in ended:
                ending.start_soon(end, connection)
        for name, connection in zip(seats, connections, strict=True):
            self.summary.heard(name, connection)  # before write_stderr takes the stderr it quotes
        runner.write_stderr()  # kept bots are still running: their stderr of this match only, no exit status
        for connection in ended:
            self.every.remove(connection)

    async def close(self) -> None:
        """Goodbye to every bot of this table; never raises."""
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as closing:
                for connection in self.every:
                    closing.start_soon(say_goodbye, connection, self.options.config.grace)
        for name, kept in self.idle.items():
            for connection in kept:
                self.summary.heard(name, connection)
        self.every.clear()
        self.idle.clear()
        if self.spares is not None:
            await self.spares.close()


def match_record(
    match: ScheduledMatch,
    outcome: MatchOutcome,
    rounds: Sequence[RoundResult],
    log: str | None,
    *,
    sandboxed: bool | None = None,
    fresh_bots: bool | None = None,
) -> StoredMatch:
    """What the ladder keeps of a finished match."""
    moons = Counter(r.moon for r in rounds if r.moon is not None)
    winners = outcome.winners
    seats = [
        SeatResult(
            seat=i,
            bot=name,
            score=outcome.scores[i],
            status=outcome.seats[i].status,
            moons=moons[i],
            win=1 / len(winners) if i in winners else 0.0,
        )
        for i, name in enumerate(match.seats)
    ]
    return StoredMatch(
        match=match,
        match_id=outcome.match_id,
        reason=outcome.reason,
        rounds=outcome.rounds,
        decisions=outcome.decisions,
        log=log,
        seats=seats,
        sandboxed=sandboxed,
        fresh_bots=fresh_bots,
        faults=list(outcome.faults),
    )


SetFeed = Callable[[], Sequence[ScheduledMatch] | None]
"""The next duplicate set to play (its matches still pending, in order), asked for each time a
table is free; ``None``: no more. A ladder's feed hands out the pending sets of its schedule
(``pending_sets``); a duel's schedules a set only while its test has not decided, so no set is
started after a decision (``referee.duel.feed``)."""


def pending_sets(store: LadderStore) -> SetFeed:
    """A feed of the store's pending matches, a set at a time, in schedule order."""
    groups: list[list[ScheduledMatch]] = []
    for match in store.pending():
        if groups and groups[-1][0].set_index == match.set_index:
            groups[-1].append(match)
        else:
            groups.append([match])
    sets = iter(groups)
    return lambda: next(sets, None)


class LadderRun:
    """Plays the pending matches of a store."""

    def __init__(
        self,
        store: LadderStore,
        rules: RuleSet,
        commands: Mapping[str, str],
        options: RunOptions,
        on_result: Callable[[StoredMatch], None] | None = None,
        *,
        feed: SetFeed | None = None,
    ) -> None:
        if options.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.store = store
        self.rules = rules
        self.commands = commands
        self.options = options
        self.on_result = on_result
        self.feed = feed
        """Where the tables take their sets (``None``: every pending set of the store, in order)."""
        self.summary = RunSummary()

    async def run(self) -> RunSummary:
        """Play every pending match (or the sets of ``feed``). Raises ``BotStartError`` when a
        bot command cannot be started at all (the matches not played stay pending)."""
        feed = self.feed or pending_sets(self.store)
        private_folder(self.options.logs)
        try:
            async with trio.open_nursery() as nursery:
                for _ in range(self.options.concurrency):
                    nursery.start_soon(self._table, feed)
        except BaseExceptionGroup as group:
            failed = group.subgroup(BotStartError)
            if failed is not None:
                raise _first(failed) from None
            raise
        return self.summary

    async def _table(self, feed: SetFeed) -> None:
        """One table: a set from ``feed`` each time it is free (the table's bots are started only
        once it has one), until the feed has none."""
        group = feed()
        if group is None:
            return
        async with trio.open_nursery() as nursery:
            slot = TableSlot(self.commands, nursery, self.options, self.summary)
            try:
                while group is not None:
                    for match in group:
                        await self._play(slot, match)
                    group = feed()
            finally:
                await slot.close()

    async def _play(self, slot: TableSlot, match: ScheduledMatch) -> None:
        path = self.options.logs / f"{match.key}.jsonl"
        path.unlink(missing_ok=True)  # what an interrupted earlier try left
        log = MatchLog(path)
        try:
            connections = await slot.take(match.seats)
            runner = MatchRunner(
                connections, self.rules, seed=match.seed, config=self.options.config, log=log, nursery=slot.nursery
            )
            outcome = await runner.run()
            await slot.give_back(match.seats, connections, runner)
        finally:
            log.close()
        record = match_record(
            match,
            outcome,
            runner.match.results,
            str(path),
            sandboxed=self.options.sandboxed,
            fresh_bots=not self.options.keep_bots,
        )
        if self.store.record(record) is not None:
            self.summary.played += 1
            if self.on_result is not None:
                self.on_result(record)


def _first(group: BaseExceptionGroup[BotStartError]) -> BotStartError:
    error = group.exceptions[0]
    return error if isinstance(error, BotStartError) else _first(error)
