"""One seat for one match: the connection that plays it, its bank of time, its status and its
queue of lines not yet written."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.players.channel import Failure
from referee.players.connection import BotConnection


@dataclass(slots=True)
class LiveSeat:
    """One seat for one match."""

    index: int
    connection: BotConnection
    bank: float
    substitutions: int = 0
    penalties: int = 0
    outbox: list[bytes] = field(default_factory=list)
    logged: int = 0
    """Bytes of this seat's replies kept verbatim in this match's log."""
    last_line: bytes | None = None
    """The bot's latest line (the offending one when a reply is refused)."""

    active: bool = True
    """Whether the seat's bot still plays (``status`` is ``ok``); a field, not a property,
    because the runner reads it for every message it sends."""
    _status: str = "ok"

    @property
    def status(self) -> str:
        """``ok``, or the reason the bot was dropped (``timeout``, ``crash``, ...)."""
        return self._status

    @status.setter
    def status(self, status: str) -> None:
        self._status = status
        self.active = status == "ok"


class SeatFault(Exception):
    """A seat's failure during one decision."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure
