"""The replay log's format: one JSON object per line, written as the match goes.

The first line is the header (format version, protocol and referee versions, rule set,
seed, seats). Then, in order, every line sent to and received from each seat with the
seconds since the match started, each deal with all hands (the log is the referee's, not a
seat's), every fault and what the policy did about it, every round result, each bot's
stderr, and the result. The file is flushed after every trick, round and fault and every
50 ms while the match plays (``referee.match.log``), so a referee killed at any moment leaves
every line up to the last trick and loses at most its last 50 ms. The format is documented in
``docs/replay-format.md``.

This module is the format alone (entries, header, version): the match package writes it
(``referee.match.log``), ``referee.replay`` reads it, and neither imports the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

import msgspec

from protocol.ruleset import RuleSet
from referee.rules.scoring import RoundResult

LOG_FORMAT: Final = 2
CUT_PREFIX: Final = 256
"""Bytes kept of an unreadable line received after the seat's log budget is spent."""


SEED_TEXT: Final = re.compile(r"-?[0-9]{1,80}")
"""A seed written as a string: an integer's digits (80 of them hold any 256-bit seed)."""


class SeatInfo(msgspec.Struct, kw_only=True):
    seat: int
    name: str
    command: str


class Header(msgspec.Struct, tag="header", tag_field="type", kw_only=True):
    log_format: int = LOG_FORMAT
    protocol: int
    referee: str
    match_id: str
    started: str
    seed: int | str
    """The deals' seed, written as a string of digits from format 2 on: a 128-bit integer loses
    its value in every JSON reader that uses doubles (a watch page showed ``7.26e+37``); an
    integer in format-1 logs. ``seed_number()`` is its value either way."""
    first_dealer: int
    rules: RuleSet
    seats: list[SeatInfo]
    time_control: dict[str, int]
    policy: str
    illegal_move_cap: int | None = None
    """Penalties or substitutions a seat may get before an illegal move forfeits (``None`` in
    logs written before the field existed)."""

    def __post_init__(self) -> None:
        if isinstance(self.seed, str) and not SEED_TEXT.fullmatch(self.seed):
            raise ValueError(f"the seed is not an integer: {self.seed[:40]!r}")

    def seed_number(self) -> int:
        """The seed's value, from either format."""
        return int(self.seed)


class Sent(msgspec.Struct, tag="send", tag_field="type", kw_only=True):
    t: float
    seat: int
    msg: msgspec.Raw
    """The message object exactly as sent (a ``RefereeMessage``), kept pre-encoded."""


_encode = msgspec.json.encode


def sent_to_each(t: float, seats: Iterable[int], msg: bytes) -> bytes:
    """The ``send`` entries of the message ``msg`` (its JSON object, no newline) written to each
    of ``seats`` at ``t``, each with its newline: byte for byte what encoding a ``Sent`` per
    seat gives (tests/replay/test_log_format.py holds them equal), with the time encoded once
    and no object made per entry. The referee logs every line it writes, and a card played is
    written to every seat: this is the log's cost per decision (issue 46)."""
    head = b'{"type":"send","t":' + _encode(t) + b',"seat":'
    tail = b',"msg":' + msg + b"}\n"
    return b"".join([head + b"%d" % seat + tail for seat in seats])


class Received(msgspec.Struct, tag="recv", tag_field="type", kw_only=True):
    t: float
    seat: int
    line: str
    """The line as received (invalid UTF-8 replaced), so garbage is logged as it came; once
    the seat's log budget for the match is spent, the message as the referee read it (unknown
    fields left out) or, for a line it could not read, the line's first ``CUT_PREFIX`` bytes."""
    cut: int | None = None
    """Bytes of the received line not kept (``None``: the line is whole). A bot that pads its
    replies cannot grow the log beyond its budget (``MatchConfig.log_budget``)."""
    cpu: float | None = None
    """For the reply to a request: CPU seconds all the bot's processes used since the referee
    read its previous reply (the match's start for its first), from its control group, whose
    counter is read once a decision; ``None`` without one. With ``--freeze-idle`` that is the
    decision's own CPU; without, a bot's thinking on the others' time counts toward its next
    decision, where it belongs."""


class Deal(msgspec.Struct, tag="deal", tag_field="type", kw_only=True):
    t: float
    round: int
    dealer: int
    pass_direction: str
    match_phase: int
    hands: list[list[str]]


class Fault(msgspec.Struct, tag="fault", tag_field="type", kw_only=True):
    t: float
    seat: int
    reason: str
    """``timeout``, ``crash``, ``disconnect``, ``bad_json``, ``line_too_long``,
    ``unknown_message``, ``wrong_id``, ``illegal_move``, ``protocol_violation``, ..."""
    message: str
    action: str
    """What the referee did: ``forfeit`` (dropped, fallback plays the seat), ``penalty``
    (revoke penalty and redeal), ``substitute`` (a fallback move was played for it)."""
    rule: str | None = None


class Fallback(msgspec.Struct, tag="fallback", tag_field="type", kw_only=True):
    """A move the referee made for a dropped or substituted seat."""

    t: float
    seat: int
    decision: str
    value: Any


class RoundScored(msgspec.Struct, tag="round_end", tag_field="type", kw_only=True):
    t: float
    round: int
    result: RoundResult
    scores: list[int]


class Stderr(msgspec.Struct, tag="stderr", tag_field="type", kw_only=True):
    seat: int
    text: str
    dropped_bytes: int
    exit_code: int | None
    cpu_seconds: float | None = None
    """CPU time of all the bot's processes so far, from its control group (``None`` without
    one, or for a bot that connected)."""


class Result(msgspec.Struct, tag="result", tag_field="type", kw_only=True):
    t: float
    scores: list[int]
    winners: list[int]
    reason: str
    rounds: int
    seats: list[dict[str, Any]]


LogEntry = Header | Sent | Received | Deal | Fault | Fallback | RoundScored | Stderr | Result
