"""Why a bot's answer did not come in time, from what it does after: the three causes a timeout
hides, told apart by listening on (issue 43).

A bot that answers too late (its time and its bank spent), one that left its line in its output
buffer, and one that reads its input in blocks (``mawk``, PHP's ``fread``, Python's
``sys.stdin.buffer.read(4096)``: it waits for a whole block, or the end of its input, before it
sees a line) all leave the request unanswered within the limit. After the timeout the check:

1. listens on with the bot's input still open (``patience``): a line now is a slow answer, and
   the message leads with its time and the limit it had;
2. writes the referee's fatal ``timeout`` error, as a match does, and listens: a bot that reads
   its input as it comes reads it and ends, and a line that comes out now was waiting in its
   output buffer (its runtime flushed it on the way out): not flushed;
3. closes the bot's input and listens: a line now came once the input ended. When the bot's
   stderr shows it read the referee's error only after that (it logs what it reads), the line
   was never stuck on the way out: the bot read its input late. Else nothing tells the two
   apart, and the hint names both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, Protocol

import trio

from protocol.codec import ProtocolError, encode
from protocol.messages import Error
from referee.check.conversation import StepFailed, show
from referee.hints import FLUSH, OR_READS_LATE, READS_LATE, slow_hint
from referee.players.channel import LinkClosed

if TYPE_CHECKING:
    from referee.check.conversation import Conversation


class Clock(Protocol):
    """The parts of the check's clock (``referee.check.probe.Limits``) a timeout is judged by."""

    @property
    def per_decision(self) -> float: ...
    @property
    def bank(self) -> float: ...
    @property
    def grace(self) -> float: ...


Cause = Literal["slow", "unflushed", "reads_late"]
ERROR_TEXT: Final = "timeout: no reply within the limit (the check's fatal error, written as a match writes it)"
"""The message of the error the check writes after a timeout; a bot's stderr that repeats any
of ``READ_SIGNS`` after its input ended read it only then."""
READ_SIGNS: Final = ('"error"', "error", "timeout", "fatal")


class Late(StepFailed):
    """A timeout explained by a line that came after it: ``cause`` says which of the three."""

    def __init__(self, message: str, cause: Cause, line: bytes, hint: str | None = None, took: float = 0.0) -> None:
        super().__init__(message, got=show(line, 500), reason="timeout", line=show(line), hint=hint)
        self.cause = cause
        self.took = took
        """For a slow answer: seconds from the request to the line."""


async def _line_within(conversation: Conversation, seconds: float) -> bytes | None:
    """The bot's next line within ``seconds`` (kept in the transcript), or ``None``: none came,
    or its output ended."""
    with trio.move_on_after(seconds):
        try:
            line = await conversation.link.receive_line()
        except (LinkClosed, ProtocolError):
            return None
        conversation._received(line)
        return line
    return None


async def diagnose(
    conversation: Conversation, *, asked: float, patience: float, listen: float, request_id: int | None
) -> Late | None:
    """After a timeout (the request written at ``asked``): listen ``patience`` seconds with the
    input open, then write the referee's error and listen ``listen``, then close the input and
    listen ``listen`` again (module docstring). The failure that explains the timeout, or
    ``None`` when no line came at all."""
    line = await _line_within(conversation, patience)
    if line is not None:
        took = trio.current_time() - asked
        return Late(f"it answered after {took:.2f} s", "slow", line, took=took)
    error = Error(code="timeout", message=ERROR_TEXT, fatal=True, request_id=request_id)
    try:
        await conversation.link.send(encode(error))
    except LinkClosed:
        return None
    sent = trio.current_time()
    line = await _line_within(conversation, listen)
    if line is not None:
        after = (trio.current_time() - sent) * 1000
        return Late(
            f"its line came {after:.0f} ms after the check wrote the referee's fatal error, as the bot ended, so it "
            "was waiting in the bot's output buffer: not flushed",
            "unflushed",
            line,
            FLUSH,
        )
    read_before = len(conversation.link.stderr_text()[0])
    closed = trio.current_time()
    await conversation.close_input()
    line = await _line_within(conversation, listen)
    if line is None:
        return None
    after = (trio.current_time() - closed) * 1000

    def said_later() -> str:
        return conversation.link.stderr_text()[0][read_before:].lower()

    with trio.move_on_after(listen):  # what it says on stderr as it reads the rest, once its pipe is drained
        await conversation.link.wait_end(listen, conversation._hold)
        while not any(sign in said_later() for sign in READ_SIGNS):
            await trio.sleep(0.01)  # the stderr reader may trail the bot's exit
    if any(sign in said_later() for sign in READ_SIGNS):
        return Late(
            f"its line came {after:.0f} ms after the check closed the bot's input, and only then did it read the "
            "referee's error, written before: it reads its input late, in blocks",
            "reads_late",
            line,
            READS_LATE,
        )
    return Late(
        f"its line came {after:.0f} ms after the check closed the bot's input, so it was waiting in the bot's "
        "output buffer: not flushed (or the bot read its input only then)",
        "unflushed",
        line,
        FLUSH + OR_READS_LATE,
    )


async def explain_timeout(
    conversation: Conversation,
    clock: Clock,
    asked: float,
    limit: float,
    *,
    missed: tuple[str, str],
    wanted: str,
    request_id: int | None,
) -> StepFailed:
    """The failure of a request (``request_id``; ``None``: the hello) on the check's ``clock``,
    asked at ``asked`` and left unanswered within ``limit`` seconds (``missed``: what was
    missed, and what came instead), explained by what the bot does after (:func:`diagnose`): a slow answer leads
    with its time and clock, a line not flushed or read late says so after the timeout."""
    message, got = missed
    listen = clock.grace / 2
    patience = listen + 2 * clock.per_decision
    late = await diagnose(conversation, asked=asked, patience=patience, listen=listen, request_id=request_id)
    if late is None:
        return StepFailed(f"{message} (timeout)", expected=wanted, got=got, reason="timeout")
    late.expected = wanted
    if late.cause == "slow":  # its time first: it is slow, not silent
        late.message = f"{late.message}: {message} (timeout)"
        start = request_id is None
        late.hint = slow_hint(late.took, limit, per_decision=clock.per_decision, bank=clock.bank, start=start)
    else:
        late.message = f"{message}; {late.message} (timeout)"
    return late
