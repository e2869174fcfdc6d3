"""What a fault costs a seat, and how it is explained.

A bot that breaks a rule meets the match's policy (``forfeit``, ``penalty`` or
``substitute``, up to ``illegal_move_cap`` times); a bot that fails in any other way
(timeout, crash, garbage) is dropped, told why unless it is gone, and its program ended in
the background; the referee's fallback plays the seat from then on. Every fault is logged and
kept as a ``FaultReport`` for the bot's author."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, get_args

import trio

from protocol.codec import clip
from protocol.messages import ErrorCode
from referee.hints import exit_text, hint
from referee.match.config import MatchConfig
from referee.match.outbox import Outbox
from referee.match.outcome import MAX_REPORTS, STDERR_TAIL
from referee.match.recorder import MatchRecorder
from referee.match.seat import LiveSeat
from referee.names import printable, seat_label
from referee.players.channel import Failure
from referee.players.connection import BotConnection
from referee.players.process import ProcessLink
from referee.rules import telling
from referee.rules.errors import IllegalMove
from referee.rules.turns import Action
from referee.sandbox.misses import bind_hint
from referee.shared import GONE_FAULTS, FaultReport

_ERROR_CODES = frozenset(get_args(ErrorCode))
_LINE_FAULTS = frozenset({"bad_json", "unknown_message", "protocol_violation", "wrong_id", "illegal_move"})
"""Faults caused by one line, which the report quotes."""


class Faults:
    """The faults of one match: the policy applied, the log written, the reports kept."""

    def __init__(self, config: MatchConfig, outbox: Outbox, recorder: MatchRecorder, nursery: trio.Nursery) -> None:
        self._config = config
        self._outbox = outbox
        self._recorder = recorder
        self._nursery = nursery
        self.reports: list[FaultReport] = []

    def absent(self, seat: LiveSeat) -> None:
        """A seat whose bot failed before the match began (its handshake) forfeits."""
        failure = seat.connection.failure
        assert failure is not None
        said = [line for _, way, line in seat.connection.transcript if way == "recv"]
        seat.last_line = said[-1] if said else None
        seat.status = failure.reason
        self.record(seat, failure, "forfeit")

    async def illegal(self, seat: LiveSeat, err: IllegalMove, request_id: int | None, action: Action) -> Action:
        """Carry out the policy's ``action`` on an illegal move (decided by the match's machine,
        ``referee.rules.match_turns.IllegalPolicy``): tell the seat and record the fault, or
        drop it. The machine then plays the fallback move for the seat, or ends the round with
        the revoke penalty (``penalty``)."""
        failure = Failure("illegal_move", err.message, err.rule)
        if action == "forfeit":
            await self.drop(seat, failure, request_id)
            return action
        if action == "penalty":
            seat.penalties += 1
        else:
            seat.substitutions += 1
        self.record(seat, failure, action)
        await self._outbox.tell_error(seat, telling.illegal_move(err, request_id))
        return action

    async def drop(self, seat: LiveSeat, failure: Failure, request_id: int | None = None) -> None:
        """Drop a seat: tell the bot why (unless it is gone), log it, end its program in the
        background; the fallback plays the seat from now on."""
        seat.status = failure.reason
        seat.connection.failure = failure
        self.record(seat, failure, "forfeit")
        tell = self._outbox.tell
        if failure.reason not in (*GONE_FAULTS, "timeout"):
            code: ErrorCode = failure.reason if failure.reason in _ERROR_CODES else "protocol_violation"  # type: ignore[assignment]
            await tell(seat, code, failure.message, rule=failure.rule, fatal=True, force=True, request_id=request_id)
        elif failure.reason == "timeout":
            await tell(seat, "timeout", failure.message, fatal=True, force=True, request_id=request_id)
        self._nursery.start_soon(seat.connection.link.close, self._config.grace)

    def record(self, seat: LiveSeat, failure: Failure, action: str) -> None:
        """Log a fault and keep its report (a few per seat: a bot under the penalty policy may
        fault often, and the first ones say it all)."""
        self._recorder.fault(seat.index, failure, action)
        if sum(r.seat == seat.index for r in self.reports) >= MAX_REPORTS:
            return
        line = None
        if seat.last_line is not None and failure.reason in _LINE_FAULTS:
            line = clip(seat.last_line.decode("utf-8", errors="replace"), 200)
        self.reports.append(
            FaultReport(
                seat=seat.index,
                name=seat.connection.name(seat.index),
                reason=failure.reason,
                message=failure.message,
                action=action,
                rule=failure.rule,
                line=line,
                hint=hint(failure.reason, failure.message, line),
                command=unnamed_command(seat.connection, seat.index),
            )
        )

    def add_stderr(self, seats: Sequence[LiveSeat]) -> None:
        """Log each bot's stderr of this match (after the programs have ended), and add its
        last lines and exit status to the seat's fault reports."""
        for seat in seats:
            text, dropped = seat.connection.link.take_stderr()
            code = seat.connection.link.exit_code()
            self._recorder.stderr(seat.index, text, dropped, code, seat.connection.link.cpu_seconds())
            lines = text.splitlines()
            for report in self.reports:
                if report.seat == seat.index:
                    report.stderr = [printable(line, 300) for line in lines[-STDERR_TAIL:]]
                    report.stderr_lines = len(lines)
                    report.exit = exit_text(code) if code is not None else None
                    report.hint = hint(report.reason, report.message, report.line, code)
                    if report.reason in SANDBOX_MISS_FAULTS:
                        report.hint = sandbox_hint(seat.connection, text) or report.hint
        self._recorder.flush()


SANDBOX_MISS_FAULTS: Final = frozenset({"crash", "timeout", "disconnect", "bad_json"})
"""Faults of a bot that may have failed to start for a path its sandbox hid."""


def sandbox_hint(connection: BotConnection, stderr: str) -> str | None:
    """The hint about the sandbox of a bot that failed (``referee.sandbox.misses``): from its
    stderr and the places its sandbox showed it, recorded when it started; ``None`` for a bot
    not started in a sandbox."""
    link = connection.link
    if not isinstance(link, ProcessLink) or link.limits.sandbox is None:
        return None
    return bind_hint(stderr, link.shown, stranger=link.limits.sandbox.privileged)


def unnamed_command(connection: BotConnection, seat: int) -> str | None:
    """A process bot's command line when its name is only its seat's (it never said hello and
    was given no label): what names it in a fault's report; else ``None``."""
    if connection.name(seat) != seat_label(seat) or not isinstance(connection.link, ProcessLink):
        return None
    return connection.command


def start_report(connection: BotConnection, folder: str) -> FaultReport:
    """A bot that failed its handshake outside a match (a duel's roll call), explained as a
    seat's fault is: the line it sent, how its program ended, its last stderr lines and the
    hint, with its command and the ``folder`` it started in (a seat's fault names its bot by
    the seat; here the role alone would not say what was started, nor where). Its program must
    have ended (its stderr is taken)."""
    failure = connection.failure
    assert failure is not None
    said = [line for _, way, line in connection.transcript if way == "recv"]
    line = None
    if said and failure.reason in _LINE_FAULTS:
        line = clip(said[-1].decode("utf-8", errors="replace"), 200)
    text, _ = connection.link.take_stderr()
    lines = text.splitlines()
    code = connection.link.exit_code()
    report = FaultReport(
        seat=0,
        name=connection.name(0),
        reason=failure.reason,
        message=failure.message,
        action="forfeit",
        rule=failure.rule,
        line=line,
        hint=hint(failure.reason, failure.message, line, code),
        exit=exit_text(code) if code is not None else None,
        stderr=[printable(text_line, 300) for text_line in lines[-STDERR_TAIL:]],
        stderr_lines=len(lines),
        command=connection.command,
        folder=folder,
    )
    if failure.reason in SANDBOX_MISS_FAULTS:
        report.hint = sandbox_hint(connection, text) or report.hint
    return report
