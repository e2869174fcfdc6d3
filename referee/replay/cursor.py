"""A logged match read entry by entry, as a re-play expects them, and what makes a difference.

Entries of one seat are in wire order, but seats interleave freely (passing is simultaneous),
so the cursor keeps one queue per seat (``send``, ``recv``, ``fault``, ``fallback``) and one for
the entries of no seat (``deal``, ``round_end``, ``result``, ``stderr``). Taking the next entry
of a queue that is empty means the log stops there (a cut-off log) or, in a complete log, that
an entry is missing. The cursor also knows where in the match the re-play is (round, trick,
phase), to name a difference and to say where a cut-off log ends.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Final

import msgspec

from protocol.messages import RefereeMessage
from referee.log_format import Deal, Fallback, Fault, LogEntry, Received, Result, RoundScored, Sent, Stderr
from referee.replay.reader import Line, LogMatch
from referee.replay.record import Difference

REQUESTS: Final = ("pass_request", "declare_request", "play_request", "moon_request")
_MISSING: Final = object()


class LogEnds(Exception):
    """The log stops here (a killed referee): not a mismatch."""


class LoggedInterruption(Exception):
    """The match was ended here by SIGINT or SIGTERM (its result says ``interrupted``)."""


class Mismatch(Exception):
    """An entry differs from what the rules produce."""

    def __init__(self, difference: Difference) -> None:
        super().__init__(difference.describe())
        self.difference = difference


class LogCursor:
    """The entries of one match still to be checked, and where the re-play is."""

    def __init__(self, log: LogMatch) -> None:
        players = log.header.rules.players
        self.complete = log.complete
        self.queues: list[deque[Line]] = [deque() for _ in range(players)]
        self.main: deque[Line] = deque()
        self.stray: list[Line] = []
        """Entries of seats that are not at the table."""
        for line in log.entries:
            entry = line.entry
            if isinstance(entry, Sent | Received | Fault | Fallback):
                (self.queues[entry.seat] if 0 <= entry.seat < players else self.stray).append(line)
            else:
                self.main.append(line)
        self.interrupted = any(isinstance(x.entry, Result) and x.entry.reason == "interrupted" for x in log.entries)
        self.finishing = False
        """Set once the match is over: a ``match_end`` is then expected, not an interruption."""
        self.last_line = log.header_line
        self.round: int | None = None
        self.trick: int | None = None
        self.phase = "handshake"
        self.position = "the header"
        """The last step checked in full, for "log ends after ..."."""

    # -- taking entries ----------------------------------------------------------------------
    def next(self, seat: int, expecting: str) -> Line:
        """The seat's next entry (``expecting`` describes it, should it be missing)."""
        queue = self.queues[seat]
        if not queue:
            if not self.complete:
                raise LogEnds
            raise self.differ("a missing entry", expecting, "no more entries for this seat", seat=seat)
        line = queue.popleft()
        if self.interrupted and not self.finishing and sent_type(line.entry) == "match_end":
            queue.appendleft(line)
            raise LoggedInterruption
        self.last_line = max(self.last_line, line.number)
        return line

    def peek(self, seat: int) -> LogEntry | None:
        queue = self.queues[seat]
        return queue[0].entry if queue else None

    def next_main(self, kind: str, expecting: str) -> Line:
        """The next entry of no seat, which must be of type ``kind``."""
        if not self.main or isinstance(self.main[0].entry, Stderr):
            if not self.complete:
                raise LogEnds
            raise self.differ("a missing entry", expecting, "no more entries")
        line = self.main.popleft()
        if self.interrupted and not self.finishing and isinstance(line.entry, Result):
            self.main.appendleft(line)
            raise LoggedInterruption
        self.last_line = max(self.last_line, line.number)
        if line.entry.__struct_config__.tag != kind:
            raise self.differ("entry", expecting, describe(line.entry), line=line.number)
        return line

    def sent(
        self, seat: int, message: RefereeMessage, *, request: bool = False, skip: tuple[str, ...] = ()
    ) -> tuple[dict[str, Any], int]:
        """The seat's next entry must be this message (for a request: but for its id and time;
        and but for the fields in ``skip``). Returns the logged message and its line."""
        tag = str(type(message).__struct_config__.tag)
        line = self.next(seat, f"send {tag} to seat {seat}")
        if not isinstance(line.entry, Sent):
            raise self.differ("entry", f"send {tag} to seat {seat}", describe(line.entry), seat=seat, line=line.number)
        skip = (*skip, "id", "time") if request else skip
        return self.compare(seat, line, message, skip), line.number

    def compare(self, seat: int, line: Line, message: RefereeMessage, skip: tuple[str, ...] = ()) -> dict[str, Any]:
        """A logged ``send`` must hold ``message``, field by field (but for ``skip``)."""
        assert isinstance(line.entry, Sent)
        found = message_of(line.entry)
        want = msgspec.to_builtins(message)
        tag = want["type"]
        if found.get("type") != tag:
            raise self.differ("message", tag, describe(line.entry), seat=seat, line=line.number)
        for key, value in want.items():
            if key not in skip and not same(value, found.get(key, _MISSING)):
                raise self.differ(f"{tag}.{key}", value, found.get(key), seat=seat, line=line.number)
        return found

    # -- the end -----------------------------------------------------------------------------
    def abandon(self) -> None:
        """An interrupted round is not scored: what is left of each seat before its
        ``match_end`` can only be the request it was waiting on and a reply not yet applied."""
        for seat, queue in enumerate(self.queues):
            while queue and sent_type(queue[0].entry) != "match_end":
                entry = queue[0].entry
                if not (isinstance(entry, Received) or sent_type(entry) in REQUESTS):
                    want = "send match_end (the match was interrupted)"
                    raise self.differ("entry", want, describe(entry), seat=seat, line=queue[0].number)
                self.last_line = max(self.last_line, queue.popleft().number)

    def leftovers(self) -> None:
        """After the result: only the bots' ``stderr`` entries."""
        while self.main and isinstance(self.main[0].entry, Stderr):
            self.last_line = max(self.last_line, self.main.popleft().number)
        rest = [queue[0] for queue in (*self.queues, self.main) if queue]
        if rest:
            line = min(rest, key=lambda x: x.number)
            raise self.differ("entry", "no more entries after the result", describe(line.entry), line=line.number)

    def differ(
        self, what: str, expected: object, found: object, *, seat: int | None = None, line: int | None = None
    ) -> Mismatch:
        """A mismatch here (raise it)."""
        return Mismatch(
            Difference(
                round=self.round,
                trick=self.trick,
                seat=seat,
                line=line if line is not None else self.last_line,
                what=what,
                expected=expected,
                found=found,
            )
        )


def message_of(entry: Sent) -> dict[str, Any]:
    """A ``send`` entry's message as a dict (empty if it is not a JSON object)."""
    try:
        message = msgspec.json.decode(entry.msg)
    except (msgspec.DecodeError, RecursionError, ValueError):
        return {}
    return message if isinstance(message, dict) else {}


def sent_type(entry: LogEntry | None) -> str | None:
    """The message type of a ``send`` entry (``None`` for any other entry)."""
    return message_of(entry).get("type") if isinstance(entry, Sent) else None


def describe(entry: LogEntry) -> str:
    """An entry in a few words, for a difference."""
    if isinstance(entry, Sent):
        return f"send {message_of(entry).get('type', '(not a message)')} to seat {entry.seat}"
    if isinstance(entry, Received):
        text = entry.line if len(entry.line) <= 80 else entry.line[:77] + "..."
        return f"recv from seat {entry.seat}: {text}"
    if isinstance(entry, Fault):
        return f"fault {entry.reason} ({entry.action}) of seat {entry.seat}"
    if isinstance(entry, Fallback):
        return f"fallback {entry.decision} {msgspec.json.encode(entry.value).decode()} for seat {entry.seat}"
    if isinstance(entry, Deal):
        return f"deal of round {entry.round}"
    if isinstance(entry, RoundScored):
        return f"round_end entry of round {entry.round}"
    if isinstance(entry, Stderr):
        return f"stderr entry of seat {entry.seat}"
    return f"{entry.__struct_config__.tag} entry"


def same(want: object, found: object) -> bool:
    """JSON equality where ``true`` is not ``1``; fields of ``found`` that ``want`` does not
    have are ignored (a newer referee may add fields)."""
    if isinstance(want, dict):
        return isinstance(found, dict) and all(k in found and same(v, found[k]) for k, v in want.items())
    if isinstance(want, list | tuple):
        return isinstance(found, list | tuple) and len(want) == len(found) and all(map(same, want, found))
    if isinstance(want, bool) or isinstance(found, bool):
        return type(want) is type(found) and want == found
    return want == found
