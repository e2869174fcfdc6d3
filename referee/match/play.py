"""Play matches between bots: start them (or wait for them over TCP), shake hands, run,
say goodbye, clean up.

This is what ``referee match`` and ``referee serve`` call. A seat is a command line (the
referee starts the program and talks over its stdin/stdout) or ``tcp:NAME`` /
``tcp:NAME:TOKEN`` (the bot connects and presents the token) or ``web:NAME`` (a person in a
browser: the ``SeatHost`` given, see ``referee.web``). Whatever happens (a bot that
never starts talking, a crash, an exception, SIGINT or SIGTERM), every bot program is ended
and reaped before this returns or raises.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.match.asking import Reconnect
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.runner import MatchRunner
from referee.network import DEFAULT_HOST, read_token_file
from referee.players.channel import Failure, NullLink
from referee.players.connection import BotConnection, goodbye_note, handshake, say_goodbye
from referee.players.hosted import SeatHost, web_seat_name
from referee.players.process import BotLimits, BotStartError, ProcessLink
from referee.players.tcp import DEFAULT_HELLO_TIMEOUT, OnRefusal, TcpSeat, TcpSeatServer
from referee.private_files import create_private
from referee.seeds import random_seed

TCP_PREFIX = "tcp:"

OnListening = Callable[[tuple[str, int], list[TcpSeat]], None]
"""Called once the TCP seats are listening: the address and the seats with their tokens."""


def tcp_seat(spec: str, seat: int) -> TcpSeat | None:
    """The TCP seat a seat spec names (``tcp:NAME``, ``tcp:NAME:TOKEN``, or ``tcp:NAME:@FILE``
    with the token in the first line of FILE: a command line is readable by every process of
    the machine), or ``None`` for a command line. Raises ``BotStartError`` for an unreadable
    token file."""
    if not spec.startswith(TCP_PREFIX):
        return None
    name, _, token = spec[len(TCP_PREFIX) :].partition(":")
    tcp = TcpSeat(seat=seat, name=name or f"seat{seat}")
    if token.startswith("@"):
        tcp.token_file = token[1:]
        try:
            token = read_token_file(token[1:])
        except ValueError as err:
            raise BotStartError(f"seat {seat} ({name}): {err}") from None
    if token:
        tcp.token, tcp.token_given = token, True
    return tcp


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived; ``signal`` is its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass(frozen=True, kw_only=True)
class TableOptions:
    """How a table is run, whatever its seeds: the referee's rules for the bots (``config``),
    where started bots run and what bounds them, and how TCP and browser seats connect. One
    object, so ``referee match``, ``play``, ``serve`` and the tests pass one thing, not a dozen
    keywords that must agree."""

    config: MatchConfig = field(default_factory=MatchConfig)
    cwd: str | Path | None = None
    """Where a started bot runs (a bot's own folder, ``folders``, wins)."""
    folders: Mapping[int, str | Path] | None = None
    limits: BotLimits | None = None
    host: str = DEFAULT_HOST
    port: int = 0
    """Where TCP seats listen (0: any free port)."""
    on_listening: OnListening | None = None
    on_refusal: OnRefusal | None = None
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT
    connect_timeout: float = 60.0
    """Seconds TCP and browser seats have to connect, after which they are ``timeout``."""
    seat_host: SeatHost | None = None
    """The server of ``web:NAME`` seats (``referee.web``)."""
    handle_signals: bool = False
    """SIGINT or SIGTERM ends the match in play as ``interrupted`` (logged); no other starts."""


async def play_match(
    seats: Sequence[str],
    rules: RuleSet,
    *,
    seed: int | None = None,
    log_path: str | Path | None = None,
    match_id: str | None = None,
    options: TableOptions | None = None,
) -> MatchOutcome:
    """Run one match between ``seats`` (in seat order). Raises ``BotStartError`` when a
    command cannot be started at all."""
    seed = random_seed() if seed is None else seed
    outcomes = await play_matches(seats, rules, [seed], log_paths=[log_path], match_ids=[match_id], options=options)
    return outcomes[0]


async def play_matches(
    seats: Sequence[str],
    rules: RuleSet,
    seeds: Sequence[int],
    *,
    log_paths: Sequence[str | Path | None] | None = None,
    match_ids: Sequence[str | None] | None = None,
    options: TableOptions | None = None,
) -> list[MatchOutcome]:
    """Run one match per seed over the same connections (bots stay alive between matches).
    With ``handle_signals``, SIGINT or SIGTERM ends the match in play with the reason
    ``interrupted`` (logged) and no further match starts."""
    options = options or TableOptions()
    if len(seats) != rules.players:
        raise ValueError(f"{rules.players} bots needed for {rules.name}, got {len(seats)}")
    paths = list(log_paths or [None] * len(seeds))
    table = _Table(seats, options, [p for p in paths if p is not None])
    try:
        async with trio.open_nursery() as nursery:
            if options.handle_signals:
                nursery.start_soon(table.interrupter.watch)
            try:
                with table.interrupter.scope():
                    await table.connect(nursery)
                table.seat_the_absent()
                await table.play(nursery, rules, zip(seeds, paths, match_ids or [None] * len(seeds), strict=True))
            finally:
                with trio.CancelScope(shield=True):
                    await table.close()
                nursery.cancel_scope.cancel()  # the signal watcher and the TCP server
    except BaseExceptionGroup as group:
        failed = group.subgroup(BotStartError)
        if failed is not None:
            raise _first(failed) from None
        raise
    if table.interrupter.signum is not None and not table.outcomes:
        raise Interrupted(table.interrupter.signum)
    return table.outcomes


class _Table:
    """The seats of ``play_matches``, from their start to their goodbye: started bots, TCP
    seats and browser seats, connected once and kept for every match of the table."""

    def __init__(self, seats: Sequence[str], options: TableOptions, logs: Sequence[str | Path]) -> None:
        self.seats = seats
        self.options = options
        self.tcp_seats = [t for i, spec in enumerate(seats) if (t := tcp_seat(spec, i)) is not None]
        self.hosted = {i: name for i, spec in enumerate(seats) if (name := web_seat_name(spec, i)) is not None}
        if self.hosted and options.seat_host is None:
            raise BotStartError(
                f"seat {min(self.hosted)}: web seats need a web server (referee play, or referee match)"
            )
        token_files = [t.token_file for t in self.tcp_seats if t.token_file is not None]
        hidden = _hide_from_bots(options.limits, logs, token_files)
        self.limits = _beside(hidden, [(seats[i], self._folder(i)) for i in self._started()])
        for t in self.tcp_seats:
            t.reconnect = options.config.reconnect
        self.connections: list[BotConnection | None] = [None] * len(seats)
        self.outcomes: list[MatchOutcome] = []
        self.interrupter = Interrupter()
        self.server: TcpSeatServer | None = None
        self.last: tuple[MatchRunner, MatchLog] | None = None

    @property
    def host(self) -> SeatHost | None:
        """The browser seats' server, when the table has browser seats."""
        return self.options.seat_host if self.hosted else None

    def _started(self) -> list[int]:
        """The seats whose bots the referee starts (not TCP, not browser seats)."""
        return [i for i, spec in enumerate(self.seats) if tcp_seat(spec, i) is None and i not in self.hosted]

    def _folder(self, index: int) -> str | Path:
        """Where the bot of a started seat runs: its own folder, else the table's."""
        return (self.options.folders or {}).get(index, self.options.cwd) or os.getcwd()

    async def connect(self, nursery: trio.Nursery) -> None:
        """Start the bots, open the TCP and browser seats, and shake every hand."""
        options, config = self.options, self.options.config
        for index, spec in enumerate(self.seats):
            if index in self._started():
                link = await ProcessLink.start(spec, nursery, cwd=self._folder(index), limits=self.limits)
                self.connections[index] = BotConnection(link=link, command=spec)
        if self.tcp_seats:
            self.server = TcpSeatServer(
                self.tcp_seats, config.startup, hello_timeout=options.hello_timeout, on_refusal=options.on_refusal
            )
            address = await nursery.start(self.server.serve, options.host, options.port)
            if options.on_listening is not None:
                options.on_listening(address, self.tcp_seats)
        if self.host is not None:
            for index, name in self.hosted.items():
                self.host.add_seat(index, name)
            await nursery.start(self.host.serve)
        async with trio.open_nursery() as handshakes:
            for connection in self.connections:
                if connection is not None:
                    handshakes.start_soon(handshake, connection, config.startup)
            if self.server is not None:
                handshakes.start_soon(self.server.wait_for_all, options.connect_timeout)
            if self.host is not None:
                handshakes.start_soon(self.host.wait_for_all, options.connect_timeout)

    def seat_the_absent(self) -> None:
        """Every TCP or browser seat gets its connection, or one that failed with ``timeout``."""
        waited = self.options.connect_timeout
        for t in self.tcp_seats:
            seated = t.connection or _absent(t, waited)
            seated.label = t.name  # named by its seat spec when its hello names nothing usable
            self.connections[t.seat] = seated
        for index, name in self.hosted.items():
            found = self.host.connection(index) if self.host is not None else None
            seated = found or _absent(TcpSeat(seat=index, name=name), waited, WEB)
            seated.label = name
            self.connections[index] = seated

    async def play(
        self, nursery: trio.Nursery, rules: RuleSet, matches: Iterable[tuple[int, str | Path | None, str | None]]
    ) -> None:
        """One match per seed, until the last or a signal."""
        ready = [c for c in self.connections if c is not None]
        for seed, log_path, match_id in matches:
            if self.interrupter.signum is not None:
                break
            if self.last is not None:
                self.last[1].close()
            log = MatchLog(log_path)
            runner = MatchRunner(
                ready,
                rules,
                seed=seed,
                config=self.options.config,
                log=log,
                nursery=nursery,
                match_id=match_id,
                reconnect=_reconnector(self.server, self.host),
            )
            self.last = (runner, log)
            with self.interrupter.scope() as scope:
                self.outcomes.append(await runner.run())
            if scope.cancelled_caught:
                with trio.CancelScope(shield=True):
                    self.outcomes.append(await runner.interrupted())
                self.outcomes[-1].interrupted_by = self.interrupter.signum

    async def close(self) -> None:
        """Say goodbye to every connection (reconnected ones too), keep the last match's
        stderr and close its log."""
        grace = self.options.config.grace
        async with trio.open_nursery() as closing:
            reconnected = [t.connection for t in self.tcp_seats if t.connection not in self.connections]
            if self.host is not None:
                reconnected += [c for c in self.host.connections() if c not in self.connections]
            for connection in [*self.connections, *reconnected]:
                if connection is not None:
                    closing.start_soon(say_goodbye, connection, grace)
        if self.outcomes:  # before write_stderr takes the stderr the notes quote
            notes = (goodbye_note(seat, c) for seat, c in enumerate(self.connections) if c is not None)
            self.outcomes[-1].notes += [note for note in notes if note is not None]
        if self.last is not None:
            self.last[0].write_stderr()
            self.last[1].close()


def _hide_from_bots(
    limits: BotLimits | None, paths: Sequence[str | Path], secrets: Sequence[str] = ()
) -> BotLimits | None:
    """Create the logs (0600) before any bot starts, and hide them and the token files in the
    bots' sandbox."""
    for path in paths:
        create_private(path)
    if limits is None or limits.sandbox is None or not (paths or secrets):
        return limits
    return msgspec.structs.replace(limits, sandbox=limits.sandbox.hiding(*paths, *secrets))


def _beside(limits: BotLimits | None, bots: Sequence[tuple[str, str | Path]]) -> BotLimits | None:
    """The limits with the sandbox knowing every started bot of the table (its command and the
    folder it starts in, as ``ProcessLink.start`` chooses it): a folder one of them uses is
    shown whole to no other (``referee.sandbox.sight.own_folder``)."""
    if limits is None or limits.sandbox is None:
        return limits
    places = [(command, limits.cwd or folder) for command, folder in bots]
    return msgspec.structs.replace(limits, sandbox=limits.sandbox.among(places))


def _reconnector(server: TcpSeatServer | None, host: SeatHost | None = None) -> Reconnect | None:
    """How the runner waits for a TCP seat's bot or a browser to come back (``None``: no such
    seats). The asker calls it only for a connection that may reconnect (``--reconnect``, or a
    browser seat's own ``reconnects``)."""
    if server is None and host is None:
        return None
    seats = {t.seat: t for t in server.seats} if server is not None else {}

    async def reconnect(seat: int, timeout: float) -> BotConnection | None:
        if server is not None and seat in seats:
            return await server.wait_for(seats[seat], timeout)
        return await host.wait_for(seat, timeout) if host is not None else None

    return reconnect


class Interrupter:
    """Turns SIGINT/SIGTERM into the cancellation of whatever phase is running."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._scopes: set[trio.CancelScope] = set()

    @contextlib.contextmanager
    def scope(self) -> Iterator[trio.CancelScope]:
        with trio.CancelScope() as scope:
            if self.signum is not None:
                scope.cancel()
            self._scopes.add(scope)
            try:
                yield scope
            finally:
                self._scopes.discard(scope)

    async def watch(self) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                self.signum = signum
                for scope in self._scopes:
                    scope.cancel()
                return


WEB = "web"


def _absent(seat: TcpSeat, waited: float, kind: str = "tcp") -> BotConnection:
    connection = BotConnection(link=NullLink(), command=f"{kind}:{seat.name}", label=seat.name)
    who = "nobody" if kind == WEB else "no bot"
    connection.failure = Failure("timeout", f"{who} connected to seat {seat.seat} within {waited:g} s")
    return connection


def _first(group: BaseExceptionGroup[BotStartError]) -> BotStartError:
    error = group.exceptions[0]
    return error if isinstance(error, BotStartError) else _first(error)
