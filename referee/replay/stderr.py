"""What each seat's program left in the log: its stderr and its exit status.

Once a match's bot programs have ended the referee logs a ``stderr`` entry per seat: the first
64 KiB of what the program wrote to its standard error, the bytes dropped beyond that, and its
exit status. A bot kept for a ladder's next match has one entry per match, with that match's
stderr and no exit status (it still runs). A crashed bot's traceback is there, and only there:
the replay views show it under the seat's fault, at the end of the seat's own view, and in the
HTML viewer.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.log_format import Stderr
from referee.replay.reader import LogMatch


@dataclass(frozen=True, slots=True)
class SeatOutput:
    """A seat's stderr in one match, and how its program ended."""

    text: str
    dropped_bytes: int
    exit_code: int | None

    def tail(self, count: int) -> tuple[list[str], int]:
        """The last ``count`` lines, and how many lines there are in all."""
        lines = self.text.splitlines()
        return lines[-count:] if count > 0 else [], len(lines)


def seat_outputs(log: LogMatch) -> dict[int, SeatOutput]:
    """Each seat's ``stderr`` entry of the match, by seat (none for a seat whose entry the log
    does not reach). Several entries for one seat are joined in order, the last exit status
    known kept."""
    players = log.header.rules.players
    found: dict[int, SeatOutput] = {}
    for line in log.entries:
        entry = line.entry
        if not isinstance(entry, Stderr) or not 0 <= entry.seat < players:
            continue
        before = found.get(entry.seat)
        if before is None:
            found[entry.seat] = SeatOutput(entry.text, entry.dropped_bytes, entry.exit_code)
        else:
            text = before.text + ("\n" if before.text and not before.text.endswith("\n") else "") + entry.text
            code = entry.exit_code if entry.exit_code is not None else before.exit_code
            found[entry.seat] = SeatOutput(text, before.dropped_bytes + entry.dropped_bytes, code)
    return found
