"""The replayed match as plain data: what ``referee replay --json`` prints and the HTML viewer shows.

A ``MatchRecord`` is built by re-running a logged match through the rules engine
(``referee.replay.verify``): the deals, the passes, every trick with its leader, cards, winner
and points, the declarations and moon choices, every fault and what the policy did, each
round's result and the match's. Cards are wire codes (``"QS"``), seats count from 0 and rounds
and tricks are numbered from 0, as in the log and the protocol. ``fallback`` marks a move the
referee made for a seat.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import msgspec

from protocol.ruleset import RuleSet
from referee.rules.scoring import RoundResult

Status: TypeAlias = Literal["verified", "truncated", "mismatch"]
"""``verified``: every entry agrees with the rules; ``truncated``: every entry agrees up to
where the log stops (a killed referee), which is not a mismatch; ``mismatch``: an entry
differs from what the rules produce."""


class SeatRecord(msgspec.Struct, kw_only=True):
    seat: int
    name: str
    command: str
    status: str = "ok"
    """``ok`` or the termination reason, as far as the log goes."""
    substitutions: int = 0
    penalties: int = 0
    stderr: str | None = None
    """What the seat's program wrote to its standard error in this match (the first 64 KiB,
    as the log's ``stderr`` entry holds it); ``None`` when the log has no ``stderr`` entry for
    the seat (it ends first)."""
    stderr_dropped: int = 0
    """Bytes of stderr beyond what the log kept."""
    exit_code: int | None = None
    """The program's exit status; negative: killed by that signal; ``None`` if unknown (or
    still running: a bot kept for the ladder's next match)."""
    exit: str | None = None
    """The exit status in words (``exited with code 1``, ``killed by signal 9 (SIGKILL)``,
    ``still running``); ``None`` without a ``stderr`` entry."""


class PassRecord(msgspec.Struct, kw_only=True):
    seat: int
    to_seat: int
    cards: list[str]
    fallback: bool = False


class DeclarationRecord(msgspec.Struct, kw_only=True):
    seat: int
    declared: bool
    fallback: bool = False


class PlayRecord(msgspec.Struct, kw_only=True):
    seat: int
    card: str
    fallback: bool = False


class ReplayedTrick(msgspec.Struct, kw_only=True):
    """A trick of a replayed round: each play with its seat, and whether the referee made it."""

    number: int
    leader: int
    plays: list[PlayRecord] = msgspec.field(default_factory=list)
    """In the order played, the leader's first."""
    winner: int | None = None
    """``None`` while the trick is unfinished, or when every card of the led suit was cancelled
    (double deck; ``complete`` tells the two apart)."""
    points: int = 0
    complete: bool = False


class MoonRecord(msgspec.Struct, kw_only=True):
    seat: int
    choice: str
    fallback: bool = False


class FaultRecord(msgspec.Struct, kw_only=True):
    """A bot's failure and the referee's answer (the log's ``fault`` entry, placed in the match)."""

    seat: int
    round: int | None
    """``None`` for a failed handshake."""
    phase: str
    """``handshake``, ``pass``, ``declare``, ``play`` or ``moon``."""
    trick: int | None
    reason: str
    message: str
    action: str
    rule: str | None = None
    reply: str | None = None
    """The bot's line that caused it, when there was one."""
    line: int = 0
    """The fault's line in the log."""
    hint: str | None = None
    """What the bot's author should check next (``referee.hints``), or ``None`` when the
    message says it all."""


class RoundRecord(msgspec.Struct, kw_only=True):
    round: int
    dealer: int
    pass_direction: str
    match_phase: int
    hands: list[list[str]]
    """Every seat's hand as dealt."""
    passes: list[PassRecord] = msgspec.field(default_factory=list)
    hands_after_passing: list[list[str]] | None = None
    """Every hand after the exchange (``None`` until passing is over; the dealt hands in a
    hold round)."""
    declarations: list[DeclarationRecord] = msgspec.field(default_factory=list)
    tricks: list[ReplayedTrick] = msgspec.field(default_factory=list)
    moon: MoonRecord | None = None
    """The shooter's choice, where the rule let the shooter choose."""
    result: RoundResult | None = None
    scores: list[int] | None = None
    """Match scores after the round."""


class ResultRecord(msgspec.Struct, kw_only=True):
    scores: list[int]
    winners: list[int]
    reason: str
    rounds: int


class Difference(msgspec.Struct, kw_only=True):
    """The first place where the log and the rules disagree."""

    round: int | None
    trick: int | None
    seat: int | None
    line: int | None
    """The log line that differs (or the last one read, when an entry is missing)."""
    what: str
    expected: Any
    found: Any

    def describe(self) -> str:
        where = [
            f"{name} {value}" for name, value in (("round", self.round), ("trick", self.trick)) if value is not None
        ]
        if self.seat is not None:
            where.append(f"seat {self.seat}")
        if self.line is not None:
            where.append(f"line {self.line}")
        place = ", ".join(where) or "match"
        return f"{place}: {self.what}: expected {_show(self.expected)}, found {_show(self.found)}"


class Verification(msgspec.Struct, kw_only=True):
    status: Status
    deals: Literal["seed", "log"]
    """Where the verified deals came from: the header's seed, or the logged hands (a match
    dealt from explicit hands, for duplicate play)."""
    lines: int
    """The last line read (every line before it agrees with the rules)."""
    ends_after: str | None = None
    """For a truncated log: the last complete step, for example ``round 2 trick 5``."""
    difference: Difference | None = None

    def describe(self) -> str:
        if self.status == "verified":
            return f"verified: every entry agrees with the rules ({self.lines} lines, deals from the {self.deals})"
        if self.status == "truncated":
            return (
                f"log ends after {self.ends_after}: every entry up to line {self.lines} agrees with the rules; "
                "the match did not finish"
            )
        assert self.difference is not None
        return f"mismatch at {self.difference.describe()}"


class MatchRecord(msgspec.Struct, kw_only=True):
    log_format: int
    match_id: str
    started: str
    referee: str
    protocol: int
    seed: str
    """The deals' seed as a string of digits (as in the log: JSON readers with doubles lose big
    integers)."""
    first_dealer: int
    rules: RuleSet
    policy: str
    time_control: dict[str, int]
    seats: list[SeatRecord]
    rounds: list[RoundRecord] = msgspec.field(default_factory=list)
    faults: list[FaultRecord] = msgspec.field(default_factory=list)
    result: ResultRecord | None = None
    """``None`` when the log ends before the match did."""
    verification: Verification | None = None


def _show(value: Any) -> str:
    """A value as JSON; a sentence (a string with spaces, such as ``send card_played to seat
    2``) as it is."""
    if isinstance(value, str) and " " in value:
        return value
    return msgspec.json.encode(value).decode()
