"""A bot connection: a started bot, its handshake, and its failure if it has one.

A connection outlives a match: a ladder keeps a bot process alive and plays several matches
over one connection. The handshake (``hello`` both ways, version choice) happens once per
connection, under the start-up time limit.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

import trio

from protocol.codec import MAX_LINE, MAX_MESSAGE, ProtocolError, clip, decode_bot, encode
from protocol.messages import PROTOCOL, VERSIONS, BotHello, Error, ErrorCode, Goodbye, Hello, RefereeMessage
from referee import __version__
from referee.hints import exit_text
from referee.names import printable, safe_name, seat_label
from referee.players.channel import BotLink, Failure, LinkClosed
from referee.players.process import BotLimits, ProcessLink
from referee.shared import GONE_FAULTS

REFEREE_NAME = f"hearts-referee {__version__}"


@dataclass
class BotConnection:
    """One bot behind one link, with the handshake's outcome."""

    link: BotLink
    command: str
    """The command line (or ``tcp:NAME (peer)``): for the operator's log, never shown to bots."""
    label: str | None = None
    """The seat's configured name (a ladder's bot name, a TCP seat's NAME), used when the
    bot's hello gives no usable name."""
    hello: BotHello | None = None
    failure: Failure | None = None
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    """Request ids: unique over the whole connection, so a stale reply from an earlier
    request (or match) can never be taken for a new one."""
    transcript: list[tuple[float, str, bytes]] = field(default_factory=list)
    """The handshake lines as (time, "send" or "recv", line), for the first match's log."""
    reconnects: bool | None = None
    """Whether the seat may be taken by a new connection after this one disconnects (a browser
    seat: on); ``None``: as the match's ``MatchConfig.reconnect`` says."""
    known_as: str | None = None
    """The name the table already knows the seat by, when this connection took it over (a
    reload, a reconnected TCP bot): a seat keeps its name for the whole match, whatever the
    new hello says (else the log's header and its end disagreed and it did not verify)."""
    after_goodbye: str | None = None
    """How its program ended after a goodbye that found it alive, when it ended in an error
    of its own (``exited with code 1``): the match was over and counts, so it is no fault,
    but it is the bot's to fix."""

    def name(self, seat: int) -> str:
        """The name the table knows this bot by in ``seat``: its hello name made safe
        (``referee.names``), else its configured label, else ``seat N``."""
        if self.known_as is not None:
            return self.known_as
        return safe_name(self.hello.name if self.hello is not None else None, self.label or seat_label(seat))

    @property
    def alive(self) -> bool:
        return self.failure is None


async def classify_closed(link: BotLink, err: LinkClosed) -> Failure:
    """A closed link is a ``crash`` when the program has exited (with its status), else a
    ``disconnect`` (it closed its output but lives on, or a socket dropped)."""
    code = link.exit_code()
    if code is None and isinstance(link, ProcessLink):
        code = await link.wait_exit(0.5)
    if code is not None and isinstance(link, ProcessLink) and (bound := link.over_bound()) is not None:
        return bound
    if code is not None:
        how = exit_text(code)
        return Failure("crash", f"the bot {'was ' if how.startswith('killed') else ''}{how}")
    return Failure("disconnect", str(err))


async def send_error(link: BotLink, code: ErrorCode, message: str, *, fatal: bool, timeout: float = 1.0) -> None:
    """Tell a bot what it did wrong, best effort: a bot that does not read is not waited for."""
    with trio.move_on_after(timeout):
        with contextlib.suppress(LinkClosed):
            await link.send(encode(Error(code=code, message=message, fatal=fatal)))


Admit = Callable[[BotHello], Failure | None]
"""A check of a bot's hello beyond the version (the TCP seat token): ``None`` admits it."""


async def handshake(
    connection: BotConnection, startup: float, admit: Admit | None = None, *, since: float | None = None
) -> None:
    """Send hello and wait for the bot's hello within ``startup`` seconds (counted from
    ``since``, trio's time, when given: a connection's accept, so a referee slow to start the
    handshake gives a squatter no longer); on any failure the bot is told why, its link is
    closed and ``connection.failure`` is set."""
    link = connection.link
    hello: RefereeMessage = Hello(protocol=PROTOCOL, versions=list(VERSIONS), referee=REFEREE_NAME)
    line_out = encode(hello)
    start = trio.current_time()
    try:
        with trio.fail_at((start if since is None else since) + startup):
            await link.send(line_out)
            connection.transcript.append((0.0, "send", line_out.rstrip(b"\n")))
            line = await link.receive_line()
            connection.transcript.append((trio.current_time() - start, "recv", line))
        reply = decode_bot(line)
    except trio.TooSlowError:
        connection.failure = Failure("timeout", f"no hello within the start-up limit of {startup:g} s")
    except ProtocolError as err:
        connection.failure = Failure(err.code, err.message)
    except LinkClosed as err:
        connection.failure = await classify_closed(link, err)
    except Exception as err:  # whatever a bot's first line causes is that bot's fault
        connection.failure = Failure("protocol_violation", f"the hello could not be read: {type(err).__name__}: {err}")
    else:
        if not isinstance(reply, BotHello):
            connection.failure = Failure("protocol_violation", f"expected a 'hello' reply, got {type(reply).__name__}")
        elif reply.version not in VERSIONS:
            connection.failure = Failure(
                "no_common_version", f"protocol version {reply.version} is not spoken here; versions: {list(VERSIONS)}"
            )
        else:
            refused = admit(reply) if admit is not None else None
            if refused is None:
                connection.hello = reply
                link.idle()
                return
            connection.failure = refused
    failure = connection.failure
    assert failure is not None
    if failure.reason not in GONE_FAULTS:
        code: ErrorCode = failure.reason if failure.reason in _CODES else "protocol_violation"  # type: ignore[assignment]
        failure.message = clip(failure.message, MAX_MESSAGE)
        error = encode(Error(code=code, message=failure.message, fatal=True))
        connection.transcript.append((trio.current_time() - start, "send", error.rstrip(b"\n")))
        await send_error(link, code, failure.message, fatal=True)
    await link.close()  # a bot that failed its handshake takes no part: end it now


_CODES = frozenset(get_args(ErrorCode))


async def start_bot(
    command: str,
    nursery: trio.Nursery,
    startup: float,
    cwd: str | Path | None = None,
    max_line: int = MAX_LINE,
    *,
    label: str | None = None,
    limits: BotLimits | None = None,
) -> BotConnection:
    """Start a bot program (with ``limits``: resource limits, a sandbox) and shake hands
    with it. Raises ``BotStartError`` when the command cannot be started at all; any later
    failure is recorded on the connection."""
    link = await ProcessLink.start(command, nursery, cwd=cwd, max_line=max_line, limits=limits)
    connection = BotConnection(link=link, command=command, label=label)
    await handshake(connection, startup)
    return connection


async def say_goodbye(connection: BotConnection, grace: float) -> None:
    """End a connection: goodbye to a live bot, then end its program. Never raises."""
    alive = connection.alive
    if alive:
        with trio.move_on_after(grace):
            with contextlib.suppress(LinkClosed):
                await connection.link.send(encode(Goodbye(reason="done")))
    await connection.link.close(grace)
    code = connection.link.exit_code()
    if alive and code not in (None, 0) and not connection.link.stopped:
        connection.after_goodbye = exit_text(code)


def goodbye_note(seat: int, connection: BotConnection) -> str | None:
    """What to tell the operator of a bot that ended in an error once its match was over (its
    ``after_goodbye``), with the last line of its stderr: a note under the result, not a fault."""
    if connection.after_goodbye is None:
        return None
    note = (
        f"seat {seat} {connection.name(seat)}: its program {connection.after_goodbye} after goodbye, once the "
        "match was over (the result stands; the bot's to fix: exit with status 0 when goodbye arrives or stdin ends)"
    )
    said = [line for line in connection.link.stderr_text()[0].splitlines() if line.strip()]
    return f"{note}; its stderr ends: {printable(said[-1], 200)}" if said else note
