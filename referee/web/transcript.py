"""``SeatTranscript``: what a browser seat has been told in the match in play, so that a page
that arrives later (a reload, a second device, a tab taking the seat over) is shown the whole
table at once: the scores of every round, the current round's pass, declarations, tricks and
the trick in play.

It keeps only events, exactly as the match wrote them to the seat (never a request, an error or
a line meant for another seat): a new page learns nothing a bot in that seat was not told. It
keeps the match's ``match_start``, every ``round_end``, the ``match_end`` and the events of the
current round from its ``round_start``; a ``match_start`` and a ``round_start`` told again to a
reconnected seat are recognised (the same match, the same round) and not kept twice.
"""

from __future__ import annotations

from typing import Any

import msgspec

EVENTS = frozenset(
    {"match_start", "round_start", "passed", "declared", "card_played", "trick_end", "round_end", "match_end"}
)
"""The lines a transcript keeps (and passes on to a page that took the seat)."""
MAX_ROUNDS = 1000
"""``round_end`` lines kept at most (a match's ``round_limit`` is lower)."""


class _Line(msgspec.Struct):
    type: Any = None
    match_id: Any = None
    round: Any = None


_peek = msgspec.json.Decoder(_Line)


class SeatTranscript:
    """The events one seat was told in the match in play, in order."""

    def __init__(self) -> None:
        self._lines: list[tuple[str, bytes]] = []
        self._match_id: object = None
        self._round_number: object = None
        self._retelling = False

    def lines(self) -> list[bytes]:
        """Every kept line, in the order the seat was told them."""
        return [line for _, line in self._lines]

    def record(self, data: bytes) -> list[bytes]:
        """Take what the match wrote to the seat (one or more lines); the lines kept, which a
        page that took the seat since is sent at once."""
        return [line for line in data.split(b"\n") if line and self._keep(line)]

    def _keep(self, line: bytes) -> bool:
        try:
            head = _peek.decode(line)
        except msgspec.DecodeError:
            return False
        kind = head.type
        if not isinstance(kind, str) or kind not in EVENTS:
            return False
        retelling, self._retelling = self._retelling, False
        if kind == "match_start":
            if self._lines and head.match_id == self._match_id:
                self._retelling = True  # told again to a reconnected seat: its round_start follows
                return False
            self._lines, self._match_id, self._round_number = [], head.match_id, None
        elif kind == "round_start":
            if retelling and head.round == self._round_number:
                return False
            ended = [(k, ln) for k, ln in self._lines if k in ("match_start", "round_end")]
            self._lines, self._round_number = ended[:1] + ended[1:][-MAX_ROUNDS:], head.round
        self._lines.append((kind, line))
        return True
