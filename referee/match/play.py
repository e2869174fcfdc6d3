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
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.match.asking import Reconnect
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.runner import MatchRunner
from referee.match.seats.connection import BotConnection, handshake, say_goodbye
from referee.match.seats.hosted import SeatHost, web_seat_name
from referee.match.seats.link import BotLimits, BotStartError, Failure, NullLink, ProcessLink
from referee.match.seats.tcp import DEFAULT_HELLO_TIMEOUT, OnRefusal, TcpSeat, TcpSeatServer
from referee.network import DEFAULT_HOST
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
            token = Path(token[1:]).read_text(encoding="utf-8").partition("\n")[0].strip()
        except (OSError, UnicodeDecodeError) as err:
            raise BotStartError(f"seat {seat} ({name}): cannot read the token file {token[1:]!r}: {err}") from None
        if not token:
            raise BotStartError(f"seat {seat} ({name}): the token file is empty")
    if token:
        tcp.token = token
    return tcp


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived; ``signal`` is its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


async def play_match(
    seats: Sequence[str],
    rules: RuleSet,
    *,
    seed: int | None = None,
    config: MatchConfig | None = None,
    log_path: str | Path | None = None,
    cwd: str | Path | None = None,
    match_id: str | None = None,
    host: str = DEFAULT_HOST,
    port: int = 0,
    on_listening: OnListening | None = None,
    on_refusal: OnRefusal | None = None,
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
    connect_timeout: float = 60.0,
    handle_signals: bool = False,
    limits: BotLimits | None = None,
    seat_host: SeatHost | None = None,
    folders: Mapping[int, str | Path] | None = None,
) -> MatchOutcome:
    """Run one match between ``seats`` (in seat order). Raises ``BotStartError`` when a
    command cannot be started at all."""
    seed = random_seed() if seed is None else seed
    outcomes = await play_matches(
        seats,
        rules,
        [seed],
        config=config,
        log_paths=[log_path],
        cwd=cwd,
        match_ids=[match_id],
        host=host,
        port=port,
        on_listening=on_listening,
        on_refusal=on_refusal,
        hello_timeout=hello_timeout,
        connect_timeout=connect_timeout,
        handle_signals=handle_signals,
        limits=limits,
        seat_host=seat_host,
        folders=folders,
    )
    return outcomes[0]


async def play_matches(
    seats: Sequence[str],
    rules: RuleSet,
    seeds: Sequence[int],
    *,
    config: MatchConfig | None = None,
    log_paths: Sequence[str | Path | None] | None = None,
    cwd: str | Path | None = None,
    match_ids: Sequence[str | None] | None = None,
    host: str = DEFAULT_HOST,
    port: int = 0,
    on_listening: OnListening | None = None,
    on_refusal: OnRefusal | None = None,
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
    connect_timeout: float = 60.0,
    handle_signals: bool = False,
    limits: BotLimits | None = None,
    seat_host: SeatHost | None = None,
    folders: Mapping[int, str | Path] | None = None,
) -> list[MatchOutcome]:
    """Run one match per seed over the same connections (bots stay alive between matches).
    With ``handle_signals``, SIGINT or SIGTERM ends the match in play with the reason
    ``interrupted`` (logged) and no further match starts."""
    config = config or MatchConfig()
    if len(seats) != rules.players:
        raise ValueError(f"{rules.players} bots needed for {rules.name}, got {len(seats)}")
    log_paths = list(log_paths or [None] * len(seeds))
    ids = list(match_ids or [None] * len(seeds))
    tcp_seats = [t for i, spec in enumerate(seats) if (t := tcp_seat(spec, i)) is not None]
    hosted = {i: name for i, spec in enumerate(seats) if (name := web_seat_name(spec, i)) is not None}
    if hosted and seat_host is None:
        raise BotStartError(f"seat {min(hosted)}: web seats need a web server (referee play, or referee match)")
    token_files = [t.token_file for t in tcp_seats if t.token_file is not None]
    limits = _hide_from_bots(limits, [p for p in log_paths if p is not None], token_files)
    for t in tcp_seats:
        t.reconnect = config.reconnect
    connections: list[BotConnection | None] = [None] * len(seats)
    outcomes: list[MatchOutcome] = []
    interrupter = Interrupter()
    last: tuple[MatchRunner, MatchLog] | None = None
    try:
        async with trio.open_nursery() as nursery:
            if handle_signals:
                nursery.start_soon(interrupter.watch)
            server: TcpSeatServer | None = None
            try:
                with interrupter.scope():
                    for index, spec in enumerate(seats):
                        if tcp_seat(spec, index) is None and index not in hosted:
                            where = (folders or {}).get(index, cwd)  # a bot with a folder of its own
                            link = await ProcessLink.start(spec, nursery, cwd=where, limits=limits)
                            connections[index] = BotConnection(link=link, command=spec)
                    if tcp_seats:
                        server = TcpSeatServer(
                            tcp_seats, config.startup, hello_timeout=hello_timeout, on_refusal=on_refusal
                        )
                        address = await nursery.start(server.serve, host, port)
                        if on_listening is not None:
                            on_listening(address, tcp_seats)
                    if hosted and seat_host is not None:
                        for index, name in hosted.items():
                            seat_host.add_seat(index, name)
                        await nursery.start(seat_host.serve)
                    async with trio.open_nursery() as handshakes:
                        for connection in connections:
                            if connection is not None:
                                handshakes.start_soon(handshake, connection, config.startup)
                        if server is not None:
                            handshakes.start_soon(server.wait_for_all, connect_timeout)
                        if hosted and seat_host is not None:
                            handshakes.start_soon(seat_host.wait_for_all, connect_timeout)
                for t in tcp_seats:
                    seated = t.connection or _absent(t, connect_timeout)
                    seated.label = t.name  # named by its seat spec when its hello names nothing usable
                    connections[t.seat] = seated
                for index, name in hosted.items():
                    found = seat_host.connection(index) if seat_host is not None else None
                    seated = found or _absent(TcpSeat(seat=index, name=name), connect_timeout, WEB)
                    seated.label = name
                    connections[index] = seated
                ready = [c for c in connections if c is not None]
                for seed, log_path, match_id in zip(seeds, log_paths, ids, strict=True):
                    if interrupter.signum is not None:
                        break
                    if last is not None:
                        last[1].close()
                    log = MatchLog(log_path)
                    runner = MatchRunner(
                        ready,
                        rules,
                        seed=seed,
                        config=config,
                        log=log,
                        nursery=nursery,
                        match_id=match_id,
                        reconnect=_reconnector(server, seat_host if hosted else None),
                    )
                    last = (runner, log)
                    with interrupter.scope() as scope:
                        outcomes.append(await runner.run())
                    if scope.cancelled_caught:
                        with trio.CancelScope(shield=True):
                            outcomes.append(await runner.interrupted())
                        outcomes[-1].interrupted_by = interrupter.signum
            finally:
                with trio.CancelScope(shield=True):
                    async with trio.open_nursery() as closing:
                        reconnected = [t.connection for t in tcp_seats if t.connection not in connections]
                        if hosted and seat_host is not None:
                            reconnected += [c for c in seat_host.connections() if c not in connections]
                        for connection in [*connections, *reconnected]:
                            if connection is not None:
                                closing.start_soon(say_goodbye, connection, config.grace)
                    if last is not None:
                        last[0].write_stderr()
                        last[1].close()
                nursery.cancel_scope.cancel()  # the signal watcher and the TCP server
    except BaseExceptionGroup as group:
        failed = group.subgroup(BotStartError)
        if failed is not None:
            raise _first(failed) from None
        raise
    if interrupter.signum is not None and not outcomes:
        raise Interrupted(interrupter.signum)
    return outcomes


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
