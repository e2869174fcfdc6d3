"""Hosted seats: seats filled by connections that a server outside the match package accepts
(the browser seats of ``referee.web``), named ``web:NAME`` in a seat list.

The match package only knows this interface: ``play_matches`` adds the seats, starts the
server, waits for every seat, seats the connections and asks the host again when a seated
connection drops (the host decides whether a new connection may take the seat). Everything
else (the transport, tokens, what is served) belongs to the host.
"""

from __future__ import annotations

from typing import Any, Protocol

import trio

from referee.players.connection import BotConnection

WEB_PREFIX = "web:"


def web_seat_name(spec: str, seat: int) -> str | None:
    """The seat name of a ``web:NAME`` spec (``seatN`` when NAME is empty), or ``None`` for any
    other spec."""
    if not spec.startswith(WEB_PREFIX):
        return None
    return spec[len(WEB_PREFIX) :] or f"seat{seat}"


class SeatHost(Protocol):
    """A server that fills hosted seats with connections it accepts and shakes hands with."""

    def add_seat(self, seat: int, name: str) -> None:
        """Take ``seat`` (called before ``serve``)."""

    async def serve(self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen until cancelled; ``task_status.started`` once listening."""

    async def wait_for_all(self, timeout: float) -> None:
        """Wait until every seat has a connection that finished its handshake, or ``timeout``."""

    def connection(self, seat: int) -> BotConnection | None:
        """The connection seated in ``seat`` now, if any."""

    async def wait_for(self, seat: int, timeout: float) -> BotConnection | None:
        """A connection to replace the seat's dropped one (already there, or arriving within
        ``timeout``), or ``None``."""

    def connections(self) -> list[BotConnection]:
        """Every connection ever seated (each gets a goodbye at the end)."""
