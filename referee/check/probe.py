"""The check's end of one bot during one step: write lines, read replies in time.

A ``Probe`` queues referee messages and writes them in one write together with the next
request, as the match runner does; it times each reply from the start of that write to the
complete reply line, decodes it with ``protocol.codec.decode_bot`` and checks its type and id.
A request and the handshake are the same timed exchange (``_exchange``): what is queued
written, one line read within the time allowed, every way that fails named. Everything written
and read goes into the step's transcript. Anything wrong raises ``StepFailed`` with what was
expected, what came back instead, and the fault's reason.

The clock is a match's (``Limits``, from ``MatchConfig``; the bank rule is
``referee.match.clock``'s): each request may take its decision time plus what is left of the
bank, and the bank is full again at every ``match_start``, as in ``referee match``. A step is
a match of its own, shorter than a real one; how the answer times would fare over a whole
match is judged by ``timing.decisions``. The bot is a ``CheckLink``: a program or a TCP
connection, the probe does not ask which.
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final, TypeVar

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
from referee.check.conversation import Conversation, StepFailed, show
from referee.check.late import explain_timeout
from referee.check.links import CheckLink
from referee.check.results import DecisionTime
from referee.match.clock import allowance, spend
from referee.match.config import MatchConfig
from referee.players.channel import LinkClosed

CHECK_NAME: Final = f"hearts-referee {__version__} (referee check)"
ReplyT = TypeVar("ReplyT", Pass, Play, Declare, Moon)
AnswerT = TypeVar("AnswerT", bound=msgspec.Struct)
TimedOut = Callable[[float], tuple[str, str]]
"""For a timed exchange that got no line in time: given the milliseconds waited, what was
missed (``no hello within ...``) and what came instead."""


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


def tag(message: type[msgspec.Struct] | msgspec.Struct) -> str:
    """A message's (or message class's) ``type``."""
    cls = message if isinstance(message, type) else type(message)
    return str(cls.__struct_config__.tag)


class Probe(Conversation):
    """One step's conversation with one bot, judged as the referee would judge it."""

    def __init__(
        self,
        link: CheckLink,
        limits: Limits,
        rules: RuleSet,
        variant: str,
        *,
        token: str | None = None,
        shown_token: str | None = None,
        connected: float | None = None,
        sandbox: str | None = None,
    ) -> None:
        super().__init__(link)
        self.sandbox = sandbox
        """What the bot runs in (``sandbox_description``), or ``None``: not isolated."""
        self.token = token
        """Over TCP: the token the bot's hello must carry."""
        self.shown_token = shown_token or f"the check's token {token!r}"
        """How messages name it: one the user supplied never by its value (``TcpTarget.shown_token``)."""
        self.connected = connected
        """Over TCP: when the step took the connection; start-up is timed from then."""
        self.limits = limits
        self.rules = rules
        """The rules of the variant the check was asked about."""
        self.variant = variant
        self.ids: Iterator[int] = itertools.count(1)
        """Request ids; a fresh connection counts from 1, as the referee does."""
        self.hello: BotHello | None = None
        self.decisions: list[DecisionTime] = []
        self.startup_ms: float | None = None
        self.notes: list[str] = []
        self.warnings: list[str] = []
        self.bank = limits.bank
        """What is left of this match's bank (full again at each ``match_start``)."""

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
        self.queue(encode(message)[:-1])

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

    # -- reading -----------------------------------------------------------------------------
    async def _exchange(self, limit: float, wanted: str, timed_out: TimedOut, request_id: int | None = None) -> bytes:
        """Write what is queued and read the bot's answer, a complete line, within ``limit``
        seconds: the one timed exchange of the handshake (``request_id`` ``None``) and of every
        request. Anything else raises ``StepFailed`` expecting ``wanted``: no line in time
        (``timed_out`` says what was missed; ``referee.check.late`` says why: slow, not flushed,
        or reading its input late), the bot's end (crash, disconnect), or a line the codec
        refuses (too long)."""
        start = trio.current_time()
        try:
            with trio.fail_after(limit):
                await self._write()
                line = await self.link.receive_line()
        except trio.TooSlowError:
            missed = timed_out((trio.current_time() - start) * 1000)
            late = explain_timeout(self, self.limits, start, limit, missed=missed, wanted=wanted, request_id=request_id)
            failure = await late
            raise failure from None
        except LinkClosed as err:
            raise await self.gone(err, wanted) from None
        except ProtocolError as err:
            raise StepFailed(f"{err.message} ({err.code})", expected=wanted, got=err.message, reason=err.code) from None
        self._received(line)
        return line

    def _answer(self, line: bytes, expect: type[AnswerT], wanted: str, what: str) -> AnswerT:
        """The bot's ``line`` as the ``expect`` message ``what`` (``the answer to hello``) must be."""
        try:
            reply: BotMessage = decode_bot(line)
        except ProtocolError as err:
            raise StepFailed(
                f"not a valid bot message: {err.message} ({err.code})",
                expected=wanted,
                got=show(line, 500),
                reason=err.code,
                line=show(line),
            ) from None
        if not isinstance(reply, expect):
            raise self.fail(f"{what} is a {tag(reply)!r} (protocol_violation)", wanted, "protocol_violation")
        return reply

    async def ask(self, request: RefereeMessage, expect: type[ReplyT], request_id: int) -> ReplyT:
        """Write the queued events and ``request`` in one write and read the reply: a
        complete line within the decision limit, a valid ``expect`` message, the same id."""
        self.post(request)
        kind = tag(request)
        per = self.limits.per_decision
        limit = allowance(per, self.bank)
        wanted = f"a {tag(expect)!r} reply with id {request_id} within {self._within()}"

        def timed_out(waited: float) -> tuple[str, str]:
            self.decisions.append(DecisionTime(request=kind, id=request_id, ms=None))
            self.bank = 0.0  # no answer within the allowance: the whole bank is spent
            message = f"no reply to {kind} {request_id} within {limit:g} s"
            if limit != per:
                message += f" ({per:g} s to decide + {limit - per:g} s left in the bank)"
            return message, f"no complete line after {waited:.0f} ms"

        # Timed from the start of the write: the referee times from the written request, but
        # a fast bot answers while the writer is still on its way back from the write.
        start = trio.current_time()
        line = await self._exchange(limit, wanted, timed_out, request_id)
        elapsed = trio.current_time() - start
        self.bank = spend(self.bank, per, elapsed)
        self.decisions.append(DecisionTime(request=kind, id=request_id, ms=round(elapsed * 1000, 3)))
        reply = self._answer(line, expect, wanted, f"the reply to {kind} {request_id}")
        if reply.id != request_id:
            raise self.fail(f"reply id {reply.id} does not answer request {request_id} (wrong_id)", wanted, "wrong_id")
        return reply

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
            self._received(line)
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

        def timed_out(waited: float) -> tuple[str, str]:
            return f"no hello within the start-up limit of {limit:g} s", "no complete line"

        reply_line = await self._exchange(limit, wanted, timed_out)
        self.startup_ms = round((trio.current_time() - start) * 1000, 1)
        reply = self._answer(reply_line, BotHello, wanted, "the answer to hello")
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
            message = f"the hello carries no token; over TCP it must carry {self.shown_token}"
        else:
            message = f"the hello's token {given!r} is not {self.shown_token}"
        self.post(Error(code="bad_token", message=message, fatal=True))
        with trio.move_on_after(self.limits.grace), contextlib.suppress(LinkClosed):
            await self._write()
        raise self.fail(f"{message} (bad_token)", f"{wanted}, carrying {self.shown_token}", "bad_token")

    # -- the end -----------------------------------------------------------------------------
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
