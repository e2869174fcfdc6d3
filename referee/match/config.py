"""How a match is refereed: the clock, the policy for illegal moves, and the limits on what a
bot may send. One frozen value shared by the match, the ladder, the check and the command line."""

from __future__ import annotations

import msgspec

from protocol.messages import TimeControl
from referee.rules.turns import PolicyName

POLICIES: tuple[PolicyName, ...] = ("forfeit", "penalty", "substitute")


class MatchConfig(msgspec.Struct, frozen=True, kw_only=True):
    """How a match is refereed (times in seconds)."""

    per_decision: float = 1.0
    bank: float = 10.0
    startup: float = 10.0
    policy: PolicyName = "forfeit"
    """What an illegal move costs: ``forfeit`` (dropped), ``penalty`` (revoke penalty and
    redeal) or ``substitute`` (the fallback move is played for it); under ``penalty`` and
    ``substitute`` the illegal move after ``illegal_move_cap`` of them is a forfeit. Other
    faults always drop the bot."""
    illegal_move_cap: int = 3
    grace: float = 1.0
    """Seconds a bot gets to exit before it is signalled."""
    reconnect: bool = False
    """Whether a TCP bot that disconnects may connect again (with its token) within its time
    for the decision; it is then told the match and round again (see docs/protocol.md)."""
    stderr_flood: int = 1 << 20
    """Bytes of stderr between two decisions beyond which a bot is dropped for
    ``output_flood``."""
    queued_lines_flood: int = 32
    """Unanswered lines waiting behind a reply beyond which a bot is dropped for
    ``output_flood``."""
    log_budget: int = 256 * 1024
    """Bytes of a seat's replies kept verbatim in the log per match. Beyond it a reply is
    logged as the referee read it (fields it ignores left out) with ``cut`` saying how much
    was dropped, so a bot that pads its replies cannot multiply the log's size. An honest bot
    uses about 40 bytes a decision."""
    card_pause: float = 0.0
    """Seconds the match waits after each card it shows a person's seat, so a person sees the
    others' cards one by one (``referee play``). Only while a person's seat is at the table: a
    match of bots alone never waits, and no bot's clock runs during the pause (its request is
    sent after it)."""
    trick_pause: float = 0.0
    """As ``card_pause``, after the last card of a trick: the finished trick and its winner
    stay in view before the next lead."""
    paced: bool = False
    """Make ``card_pause`` and ``trick_pause`` also at a table of bots alone (``referee match
    --pace``): a match people watch (``referee watch``) at a person's speed. No clock runs
    during a pause, so it costs no bot anything."""

    def time_control(self) -> TimeControl:
        return TimeControl(
            per_decision_ms=round(self.per_decision * 1000),
            bank_ms=round(self.bank * 1000),
            startup_ms=round(self.startup * 1000),
        )
