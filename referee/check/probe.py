"""The check's end of one bot process during one step: write lines, read replies in time.

A ``Probe`` queues referee messages and writes them in one write together with the next
request, as the match runner does; it times each reply from the start of that write to the
complete reply line, decodes it with ``protocol.codec.decode_bot`` and checks its type and id.
Everything written and read goes into the step's transcript. Anything wrong raises
``StepFailed`` with what was expected, what came back instead, and the fault's reason.

The clock is a match's (``Limits``, from ``MatchConfig``): each request may take its decision
time plus what is left of the bank, and the bank is full again at every ``match_start``, as in
``referee match``. A step is a match of its own, shorter than a real one; how the answer times
would fare over a whole match is judged by ``timing.decisions``.
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

import msgspec
import trio

from protocol.codec import ProtocolError, decode_bot, encode
from protocol.messages import (
    PROTOCOL,
    VERSIONS,
    BotHello,
    BotMessage,
    Declare,
    Error,
    Goodbye,
    Hello,
    MatchStart,
    Moon,
    Pass,
    Play,
    RefereeMessage,
    TimeControl,
    TimeLeft,
)
from protocol.ruleset import RuleSet
from referee import __version__
from referee.check.listener import CheckSocketLink
from referee.check.results import Decision, TranscriptLine
from referee.errors import RefereeError
from referee.hints import FLUSH, exit_text
from referee.match.clock import allowance, spend
from referee.match.config import MatchConfig
from referee.match.seats.connection import classify_closed
from referee.match.seats.link import LinkClosed, ProcessLink

CHECK_NAME: Final = f"hearts-referee {__version__} (referee check)"
LINE_CUT: Final = 2000
"""Characters of a line kept in a transcript."""

ReplyT = TypeVar("ReplyT", Pass, Play, Declare, Moon)


MATCH_CLOCK: Final = MatchConfig()
"""The clock of ``referee match`` and the ladder: the check's defaults come from it."""


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """The check's clock, in seconds: by default the one a match runs on."""

    per_decision: float = MATCH_CLOCK.per_decision
    """Each request gets this, and may draw on the bank beyond it."""
    bank: float = MATCH_CLOCK.bank
    """Time beyond ``per_decision`` that the decisions of one match may spend in all: full
    at every ``match_start`` (each step's match has its own), as in a match."""
    startup: float = MATCH_CLOCK.startup
    """From writing hello to reading the bot's hello."""
    grace: float = MATCH_CLOCK.grace
    """After goodbye (or a fatal error, or the end of its input) the bot must exit (over TCP:
    close the connection) within this."""
    quiet: float = 0.25
    """How long the check listens for a line that should not come."""

    @property
    def is_match_default(self) -> bool:
        """Whether decisions are timed as ``referee match`` times them by default."""
        return (self.per_decision, self.bank) == (MATCH_CLOCK.per_decision, MATCH_CLOCK.bank)

    def clock_text(self) -> str:
        """``1 s a decision + 10 s bank``"""
        return f"{self.per_decision:g} s a decision + {self.bank:g} s bank"


class StepFailed(RefereeError):
    """The bot did something a referee would not accept: ``reason`` names the fault as the
    referee does (``bad_json``, ``timeout``, ``crash``, ...); ``line`` is the bot's offending
    line and ``hint`` overrides the usual hint for the reason (``referee.check.causes``)."""

    def __init__(
        self,
        message: str,
        *,
        expected: str | None = None,
        got: str | None = None,
        reason: str | None = None,
        line: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.got = got
        self.reason = reason
        self.line = line
        self.hint = hint


def tag(message: type[msgspec.Struct] | msgspec.Struct) -> str:
    """A message's (or message class's) ``type``."""
    cls = message if isinstance(message, type) else type(message)
    return str(cls.__struct_config__.tag)


def show(line: bytes, cut: int = LINE_CUT) -> str:
    """A line as text for a report, cut after ``cut`` characters."""
    text = line.decode("utf-8", errors="replace")
    if not text.isprintable():  # a NUL or an escape sequence must not reach the terminal raw
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= cut else f"{text[:cut]}... ({len(line)} bytes)"


@dataclass
class Ending:
    """How a bot ended its part: a process exited, or a TCP bot closed the connection."""

    code: int | None
    """The exit status (negative: killed by a signal); ``None`` over TCP."""

    def describe(self) -> str:
        return "closed the connection" if self.code is None else exit_text(self.code)


class Probe:
    """One step's conversation with one bot: a process, or a connection over TCP."""

    def __init__(
        self,
        link: ProcessLink | CheckSocketLink,
        limits: Limits,
        rules: RuleSet,
        variant: str,
        *,
        token: str | None = None,
        connected: float | None = None,
        sandbox: str | None = None,
    ) -> None:
        self.link = link
        self.sandbox = sandbox
        """What the bot runs in (``sandbox_description``), or ``None``: not isolated."""
        self.token = token
        """Over TCP: the token the bot's hello must carry."""
        self.connected = connected
        """Over TCP: when the step took the connection; start-up is timed from then."""
        self.limits = limits
        self.rules = rules
        """The rules of the variant the check was asked about."""
        self.variant = variant
        self.ids: Iterator[int] = itertools.count(1)
        """Request ids; a fresh connection counts from 1, as the referee does."""
        self.hello: BotHello | None = None
        self.rewrite: Callable[[bytes], list[bytes]] | None = None
        """Turns each encoded message line into the lines actually written (compat steps)."""
        self.transcript: list[TranscriptLine] = []
        self.decisions: list[Decision] = []
        self.startup_ms: float | None = None
        self.notes: list[str] = []
        self.warnings: list[str] = []
        self.last_line = b""
        self.bank = limits.bank
        """What is left of this match's bank (full again at each ``match_start``)."""
        self._outbox: list[bytes] = []
        self._held: list[bytes] = []
        self._start = trio.current_time()

    @property
    def tcp(self) -> bool:
        """Whether the bot connected over TCP (no exit status, no stderr)."""
        return isinstance(self.link, CheckSocketLink)

    @property
    def to_exit(self) -> str:
        """What a bot does at the end, for messages: exit, or close the connection."""
        return "close the connection" if self.tcp else "exit"

    @property
    def still(self) -> str:
        return "still connected" if self.tcp else "still running"

    # -- what the step tells the report ------------------------------------------------------
    def note(self, text: str) -> None:
        """Part of the step's one-line message when it passes."""
        self.notes.append(text)

    def warn(self, text: str) -> None:
        self.warnings.append(text)

    def fail(self, message: str, expected: str, reason: str | None = None) -> StepFailed:
        """A failure about the last line the bot wrote."""
        text = show(self.last_line)
        return StepFailed(message, expected=expected, got=show(self.last_line, 500), reason=reason, line=text)

    # -- the clock ---------------------------------------------------------------------------
    @property
    def limit_ms(self) -> int:
        return round(self.limits.per_decision * 1000)

    def time_control(self) -> TimeControl:
        return TimeControl(
            per_decision_ms=self.limit_ms,
            bank_ms=round(self.limits.bank * 1000),
            startup_ms=round(self.limits.startup * 1000),
        )

    def time_left(self) -> TimeLeft:
        return TimeLeft(decision_ms=self.limit_ms, bank_ms=round(self.bank * 1000))

    def _within(self) -> str:
        """The time a request has, for messages: ``1000 ms`` or ``1000 ms + 9500 ms of bank``."""
        bank = round(self.bank * 1000)
        return f"{self.limit_ms} ms" if bank == 0 else f"{self.limit_ms} ms + {bank} ms of bank"

    # -- writing -----------------------------------------------------------------------------
    def post(self, message: RefereeMessage) -> None:
        """Queue a message; it is written with the next request (or ``flush``)."""
        if isinstance(message, MatchStart):
            self.bank = self.limits.bank  # every match starts with a full bank
        line = encode(message)[:-1]
        self._outbox.extend(self.rewrite(line) if self.rewrite else [line])

    async def flush(self) -> None:
        """Write the queued lines now, within the decision limit (and the bank)."""
        limit = allowance(self.limits.per_decision, self.bank)
        try:
            with trio.fail_after(limit):
                await self._write()
        except trio.TooSlowError:
            raise StepFailed(
                "the bot stopped reading its input",
                expected=f"the bot reads every line it is sent within {limit:g} s",
                got="the write did not complete",
                reason="not_reading",
            ) from None
        except LinkClosed as err:
            raise await self.gone(err, "the bot reads what it is sent") from None

    async def _write(self) -> None:
        if not self._outbox:
            return
        lines, self._outbox = self._outbox, []
        for line in lines:
            self._record("send", line)
        await self.link.send(b"".join(line + b"\n" for line in lines))

    def _record(self, direction: Literal["send", "recv"], line: bytes) -> None:
        ms = round((trio.current_time() - self._start) * 1000, 1)
        self.transcript.append(TranscriptLine(ms=ms, direction=direction, line=show(line)))

    # -- reading -----------------------------------------------------------------------------
    async def gone(self, err: LinkClosed, expected: str) -> StepFailed:
        """The failure for a bot whose output ended: crashed (with its status) or closed."""
        failure = await classify_closed(self.link, err)
        return StepFailed(
            f"{failure.message} ({failure.reason})", expected=expected, got=failure.message, reason=failure.reason
        )

    async def stranded(self) -> StepFailed | None:
        """After a timeout: close the bot's input and listen a moment. A line that comes now
        was written but left in the bot's output buffer, which its runtime flushed on the way
        out: the usual reason a bot that works by hand times out under a referee. The failure
        to raise instead of the plain timeout, or ``None``."""
        closed = trio.current_time()
        await self.close_input()
        with trio.move_on_after(self.limits.grace / 2):
            try:
                line = await self.link.receive_line()
            except (LinkClosed, ProtocolError):
                return None
            after = (trio.current_time() - closed) * 1000
            self._record("recv", line)
            self.last_line = line
            return StepFailed(
                f"its line came {after:.0f} ms after the check closed the bot's input, so it was waiting "
                "in the bot's output buffer: not flushed",
                got=show(line, 500),
                reason="timeout",
                line=show(line),
                hint=FLUSH,
            )
        return None

    async def ask(self, request: RefereeMessage, expect: type[ReplyT], request_id: int) -> ReplyT:
        """Write the queued events and ``request`` in one write and read the reply: a
        complete line within the decision limit, a valid ``expect`` message, the same id."""
        self.post(request)
        kind = tag(request)
        want = tag(expect)
        per = self.limits.per_decision
        limit = allowance(per, self.bank)
        wanted = f"a {want!r} reply with id {request_id} within {self._within()}"
        # Timed from the start of the write: the referee times from the written request, but
        # a fast bot answers while the writer is still on its way back from the write.
        start = trio.current_time()
        try:
            with trio.fail_after(limit):
                await self._write()
                line = await self.link.receive_line()
        except trio.TooSlowError:
            self.decisions.append(Decision(request=kind, id=request_id, ms=None))
            waited = (trio.current_time() - start) * 1000
            self.bank = 0.0  # no answer within the allowance: the whole bank is spent
            message = f"no reply to {kind} {request_id} within {limit:g} s"
            if limit != per:
                message += f" ({per:g} s to decide + {limit - per:g} s left in the bank)"
            late = await self.stranded()
            if late is not None:
                late.message = f"{message}; {late.message} (timeout)"
                late.expected = wanted
                raise late from None
            raise StepFailed(
                f"{message} (timeout)", expected=wanted, got=f"no complete line after {waited:.0f} ms", reason="timeout"
            ) from None
        except LinkClosed as err:
            raise await self.gone(err, wanted) from None
        except ProtocolError as err:
            raise StepFailed(f"{err.message} ({err.code})", expected=wanted, got=err.message, reason=err.code) from None
        elapsed = trio.current_time() - start
        self.bank = spend(self.bank, per, elapsed)
        self._record("recv", line)
        self.last_line = line
        self.decisions.append(Decision(request=kind, id=request_id, ms=round(elapsed * 1000, 3)))
        reply = self._decode(line, wanted)
        if not isinstance(reply, expect):
            raise self.fail(
                f"the reply to {kind} {request_id} is a {tag(reply)!r} (protocol_violation)",
                wanted,
                "protocol_violation",
            )
        if reply.id != request_id:
            raise self.fail(f"reply id {reply.id} does not answer request {request_id} (wrong_id)", wanted, "wrong_id")
        return reply

    def _decode(self, line: bytes, expected: str) -> BotMessage:
        try:
            return decode_bot(line)
        except ProtocolError as err:
            raise StepFailed(
                f"not a valid bot message: {err.message} ({err.code})",
                expected=expected,
                got=show(line, 500),
                reason=err.code,
                line=show(line),
            ) from None

    async def expect_silence(self, after: str) -> None:
        """Write what is queued, then listen: the bot must write nothing (events get no
        answer; a request gets exactly one line)."""
        await self.flush()
        with trio.move_on_after(self.limits.quiet):
            try:
                line = await self.link.receive_line()
            except LinkClosed as err:
                raise await self.gone(err, f"the bot waits quietly after {after}") from None
            except ProtocolError as err:
                raise StepFailed(
                    err.message, expected=f"no output after {after}", got=err.message, reason=err.code
                ) from None
            self._record("recv", line)
            self.last_line = line
            # a line that is not JSON at all is a debug print, the referee's bad_json
            text = show(line).lstrip()
            reason = "unexpected_line" if text.startswith(("{", "[")) else "bad_json"
            raise self.fail(
                f"the bot wrote a line after {after}, which needs no answer ({reason})",
                f"no output after {after}: events get no reply, and a request exactly one line",
                reason,
            )

    # -- the handshake -----------------------------------------------------------------------
    async def shake_hands(self, versions: Sequence[int] = VERSIONS, extra: Mapping[str, Any] | None = None) -> BotHello:
        """Write hello (offering ``versions``; ``extra`` adds unknown fields) and read the
        bot's hello within the start-up limit: a valid ``hello`` choosing version 1."""
        hello = Hello(protocol=PROTOCOL, versions=list(versions), referee=CHECK_NAME)
        line = encode(hello)[:-1]
        if extra:
            line = msgspec.json.encode({**msgspec.to_builtins(hello), **extra})
        self._outbox.append(line)
        limit = self.limits.startup
        wanted = f"a 'hello' choosing version 1 with a name, within {limit:g} s"
        start = trio.current_time()
        if self.connected is not None:  # over TCP: from the connection, taken just before
            start, self.connected = min(start, self.connected), None
        try:
            with trio.fail_after(limit):
                await self._write()
                reply_line = await self.link.receive_line()
        except trio.TooSlowError:
            message = f"no hello within the start-up limit of {limit:g} s"
            late = await self.stranded()
            if late is not None:
                late.message = f"{message}; {late.message} (timeout)"
                late.expected = wanted
                raise late from None
            raise StepFailed(
                f"{message} (timeout)", expected=wanted, got="no complete line", reason="timeout"
            ) from None
        except LinkClosed as err:
            raise await self.gone(err, wanted) from None
        except ProtocolError as err:
            raise StepFailed(f"{err.message} ({err.code})", expected=wanted, got=err.message, reason=err.code) from None
        self.startup_ms = round((trio.current_time() - start) * 1000, 1)
        self._record("recv", reply_line)
        self.last_line = reply_line
        reply = self._decode(reply_line, wanted)
        if not isinstance(reply, BotHello):
            raise self.fail(
                f"the answer to hello is a {tag(reply)!r} (protocol_violation)", wanted, "protocol_violation"
            )
        if reply.version not in VERSIONS:
            offered = ", ".join(map(str, versions))
            raise self.fail(
                f"version {reply.version} chosen from [{offered}]; protocol version 1 is the only one "
                "this referee speaks (no_common_version)",
                wanted,
                "no_common_version",
            )
        if self.token is not None:
            await self._check_token(reply, wanted)
        self.hello = reply
        return reply

    async def _check_token(self, hello: BotHello, wanted: str) -> None:
        """Over TCP the hello must carry the check's token (as a TCP seat's does); a wrong one
        is told so with a fatal ``bad_token`` error, as the referee does."""
        assert self.token is not None
        given = hello.token
        if given is not None and secrets.compare_digest(given.encode(), self.token.encode()):
            return
        if given is None:
            message = f"the hello carries no token; over TCP it must carry the check's token {self.token!r}"
        else:
            message = f"the hello's token {given!r} is not the check's token {self.token!r}"
        self.post(Error(code="bad_token", message=message, fatal=True))
        with trio.move_on_after(self.limits.grace), contextlib.suppress(LinkClosed):
            await self._write()
        raise self.fail(f"{message} (bad_token)", f"{wanted}, carrying the token {self.token!r}", "bad_token")

    # -- the end -----------------------------------------------------------------------------
    async def close_input(self) -> None:
        """Close the bot's stdin, as the referee does after goodbye or a fatal error (over
        TCP: half-close the connection, so the bot reads the end of its input)."""
        if isinstance(self.link, CheckSocketLink):
            await self.link.close_input()
            return
        stdin = self.link.process.stdin
        if stdin is not None:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await stdin.aclose()

    def ended(self) -> bool:
        """Whether the bot has ended: its process exited, or it closed the connection."""
        if isinstance(self.link, CheckSocketLink):
            return self.link.ended
        return self.link.exit_code() is not None

    async def wait_end(self, seconds: float) -> Ending | None:
        """Wait up to ``seconds`` for the bot to end: its process to exit, or (over TCP) the
        connection to be closed, reading what it writes meanwhile (``drain`` returns it)."""
        if isinstance(self.link, CheckSocketLink):
            if not self.link.ended:
                lines = await self.drain(seconds)
                self._held = lines
            return Ending(None) if self.link.ended else None
        code = await self.link.wait_exit(seconds)
        return None if code is None else Ending(code)

    async def drain(self, seconds: float) -> list[bytes]:
        """The lines the bot writes until its output ends (at most ``seconds``), with those
        ``wait_end`` read before."""
        lines, self._held = self._held, []
        with trio.move_on_after(seconds):
            with contextlib.suppress(LinkClosed, ProtocolError):
                while True:
                    line = await self.link.receive_line()
                    self._record("recv", line)
                    lines.append(line)
        return lines

    async def wind_down(self) -> None:
        """End the connection as the referee does, judging nothing: what is queued, goodbye,
        stdin closed, the bot's last lines read for the transcript."""
        if self.ended():
            return
        self.post(Goodbye(reason="done"))
        with trio.move_on_after(self.limits.grace), contextlib.suppress(LinkClosed):
            await self._write()
        await self.close_input()
        await self.drain(self.limits.grace)
