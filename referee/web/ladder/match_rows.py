"""Every finished match of a ladder as one row, for ``matches.csv`` and ``matches.json`` of the
static copy (``referee ladder export``): what a class's spreadsheet or a student's script reads
without the database.

The columns (docs/ladder.md, "A static copy"): ``key`` (``SSSSS-R``, the match's address),
``set`` and ``rotation`` (its duplicate set and seat rotation), ``seq`` (the order results were
rated in), ``finished`` (UTC, ISO 8601), ``reason`` (why it ended: ``target_reached``, ...),
``rounds``, ``replay`` (its replay page in the copy, empty when none was written), then for
each seat N from 0: ``seatN_bot``, ``seatN_score`` (its final points: lower is better),
``seatN_rank`` (0 best; equal scores share a rank) and ``seatN_status`` (``ok``, or why the bot
was dropped: ``crash``, ``timeout``, ...). The JSON holds the same, each match's seats as a
list of objects, in the order of the CSV's rows (oldest first).

Bot names are hostile, and a CSV file is opened in spreadsheets: a cell that a spreadsheet would
read as a formula (one starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is
written with a ``'`` before it in the CSV (OWASP's advice on CSV injection); the JSON has every
name as it is."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass

from referee.store.pages import all_seats, finished_in_order
from referee.store.reader import LadderReader
from referee.store.records import match_key
from referee.web.ladder.queries import PAGE_SIZE, MatchList, MatchRow, SeatRow

SEAT_COLUMNS = ("bot", "score", "rank", "status")
MATCH_COLUMNS = ("key", "set", "rotation", "seq", "finished", "reason", "rounds", "replay")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class FinishedSeat:
    """One seat of a finished match: its ``seatN_`` columns, an object of the JSON's ``seats``."""

    seat: int
    bot: str
    score: int
    rank: int
    status: str


@dataclass(frozen=True)
class FinishedMatch:
    key: str
    set: int
    rotation: int
    seq: int
    finished: str
    reason: str
    rounds: int
    seats: list[FinishedSeat]
    replay: str = ""
    """The replay page's path in the copy, relative to its root; empty: none written."""


def finished_matches(reader: LadderReader) -> list[FinishedMatch]:
    """Every finished match, in the order results were rated (oldest first), in the caller's
    read transaction."""
    seats: dict[int, list[FinishedSeat]] = {}
    for match, seat, bot, score, rank, status in all_seats(reader):
        seats.setdefault(int(match), []).append(FinishedSeat(int(seat), str(bot), int(score), int(rank), str(status)))
    rows = finished_in_order(reader)
    return [
        FinishedMatch(match_key(s, r), int(s), int(r), int(seq), str(finished or ""), str(reason or ""),
                      int(rounds or 0), seats.get(int(i), []))
        for i, s, r, seq, finished, reason, rounds in rows
    ]  # fmt: skip


def csv_cell(value: object) -> str:
    """A value as a CSV cell a spreadsheet shows as text, never runs as a formula."""
    text = str(value)
    return "'" + text if isinstance(value, str) and text.startswith(FORMULA_START) else text


def matches_csv(matches: Sequence[FinishedMatch], seats: int) -> str:
    """The rows as CSV, with ``seats`` seats' columns (a seat a match did not have: empty)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*MATCH_COLUMNS, *(f"seat{n}_{column}" for n in range(seats) for column in SEAT_COLUMNS)])
    for m in matches:
        row: list[object] = [m.key, m.set, m.rotation, m.seq, m.finished, m.reason, m.rounds, m.replay]
        for n in range(seats):
            found = next((s for s in m.seats if s.seat == n), None)
            row += ["", "", "", ""] if found is None else [found.bot, found.score, found.rank, found.status]
        writer.writerow([csv_cell(value) for value in row])
    return out.getvalue()


def matches_json(matches: Sequence[FinishedMatch], ladder: str, made: str) -> str:
    """The rows as JSON: ``{"ladder", "made", "matches": [...]}``, each match with its seats,
    one match a line."""
    lines = [json.dumps({**{c: getattr(m, c) for c in MATCH_COLUMNS}, "seats": [vars(s) for s in m.seats]},
                        ensure_ascii=False) for m in matches]  # fmt: skip
    head = json.dumps({"ladder": ladder, "made": made}, ensure_ascii=False)[:-1]
    return head + ', "matches": [\n' + ",\n".join(lines) + "\n]}\n"


def match_pages(matches: Sequence[FinishedMatch], bot: str | None) -> list[MatchList]:
    """Every page of the match list (of every match, or of ``bot``'s) as the live match list
    reads each (``queries.match_list``: newest first, ``PAGE_SIZE`` a page), made from the rows
    already read: one pass, where a query a page would read the table again for each."""
    rows = [_listed(m) for m in reversed(matches) if bot is None or any(s.bot == bot for s in m.seats)]
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    return [MatchList(rows[(n - 1) * PAGE_SIZE : n * PAGE_SIZE], n, pages, len(rows), bot) for n in range(1, pages + 1)]


def _listed(m: FinishedMatch) -> MatchRow:
    return MatchRow(
        m.key, m.seq, m.finished, m.reason, m.rounds, [SeatRow(s.bot, s.score, s.rank, s.status) for s in m.seats]
    )
