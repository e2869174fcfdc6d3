"""A match shown without what some seats' programs wrote for their authors: their stderr, the
exit status that ends it, and their faults' details (the referee's message, the line the bot
sent, the hint for its author); each fault's reason stays, and every move: they are the match,
which anyone may replay.

A ladder shows each bot's output to its entrant and the organizer only (docs/ladder.md, "Who
sees what"; who sees which seat is ``referee.web.ladder.viewer``'s decision). Three shapes of
one match are cut here: the replayed record (the replay page, and the record a live table's
page draws), the log's entries as a live table follows them (``referee.web.watch.LogTail``) and
the log file itself (its download). The log and its entries lose the ``stderr`` entries only:
a log must still verify (the referee's fault entries are compared with what the rules say),
and the bots' lines are its moves. Every function takes the seats to withhold, so that an empty
set leaves everything as it was."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from referee.log_format import LogEntry, Stderr
from referee.replay.record import MatchRecord


def withheld_record(record: MatchRecord, seats: frozenset[int]) -> MatchRecord:
    """``record`` without the stderr and exit status of ``seats``, and their faults by reason
    only (no message, line sent or hint), as ``referee.web.ladder.visibility.public_record``
    shows every seat (a copy: the record given is left as it is, a kept replay may be shown to
    others)."""
    if not seats:
        return record
    shown = [
        msgspec.structs.replace(s, stderr=None, stderr_dropped=0, exit_code=None, exit=None) if s.seat in seats else s
        for s in record.seats
    ]
    faults = [
        msgspec.structs.replace(f, message="", reply=None, hint=None) if f.seat in seats else f for f in record.faults
    ]
    return msgspec.structs.replace(record, seats=shown, faults=faults)


@dataclass(frozen=True)
class Withheld:
    """``withheld_record`` of some seats as a value: equal for the same seats, so a replay page
    made for them is kept under it (``referee.web.ladder.logs``)."""

    seats: frozenset[int]

    def __call__(self, record: MatchRecord) -> MatchRecord:
        return withheld_record(record, self.seats)


def withheld_entry(entry: LogEntry, seats: frozenset[int]) -> bool:
    """Whether a log entry is one of ``seats``' to withhold (a ``stderr`` entry of theirs)."""
    return isinstance(entry, Stderr) and entry.seat in seats


class _Peek(msgspec.Struct):
    type: Any = None
    seat: Any = None


_peek = msgspec.json.Decoder(_Peek)


def withheld_lines(lines: Iterator[bytes], seats: frozenset[int]) -> Iterator[bytes]:
    """A log's lines (each with its newline) without the ``stderr`` entries of ``seats``. When
    any seat is withheld, a line that is not a JSON object is left out too: a ``stderr`` entry
    cut short by a killed referee is not one, and may hold the start of what it withholds."""
    for line in lines:
        if not seats:
            yield line
            continue
        try:
            head = _peek.decode(line)
        except msgspec.DecodeError:
            continue
        if head.type == "stderr" and not (type(head.seat) is int and head.seat not in seats):
            continue  # a seat withheld, or one this referee cannot tell: left out
        yield line
