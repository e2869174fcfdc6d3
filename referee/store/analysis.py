"""Where a bot loses points, kept in the ladder's database: the ``analyses`` table (schema 9),
one row per seat of each match analysed (``referee ladder analyze``, ``referee.ladder.analysis``
computes the figures; here they are plain numbers). A match's seats are written in one
transaction, so an analysis killed half-way leaves the matches before it analysed and the
next run takes up the rest. Every query is bounded (``LIMIT``)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from referee.store.database import transaction
from referee.store.records import match_key


@dataclass(frozen=True)
class WorstDecision:
    """One graded decision of a seat, as the bot page shows it and links to its replay."""

    round: int
    """The round's place in the log, from 0."""
    step: int
    """The replay viewer's step within the round, from 1 (``/match/KEY#round=R&step=S``)."""
    trick: int | None
    phase: str
    chosen: str
    best: str
    loss: float
    """Points lost against the best choice (the mean)."""
    low: float
    high: float
    verdict: str


@dataclass(frozen=True)
class SeatAnalysis:
    """A seat of a match analysed: what ``analyses`` keeps of it."""

    match: int
    """``matches.id``."""
    seat: int
    bot: str
    analysed: str
    settings: dict[str, object]
    decisions: int
    valued: int
    total_loss: float
    phases: dict[str, tuple[int, float, float]]
    """Per phase: valued decisions, the sum of their losses, the sum of their squares."""
    grades: dict[str, int]
    luck: float
    luck_half: float
    expected: float
    actual: int
    worst: list[WorstDecision] = field(default_factory=list)
    key: str = ""
    """The match's key (``SSSSS-R``), when read back."""


@dataclass(frozen=True)
class ToAnalyse:
    """A finished match with seats not analysed yet."""

    match: int
    key: str
    log: str
    match_id: str
    names: tuple[str, ...]
    """The ladder's bot names by seat."""
    seats: tuple[int, ...]
    """The seats to analyse."""


def to_analyse(db: sqlite3.Connection, bot: str | None, limit: int) -> list[ToAnalyse]:
    """The latest ``limit`` finished matches (of ``bot``, or of any bot) with a log and a seat
    (of ``bot``, or any) not analysed yet, newest first."""
    who = "AND r.bot = ?" if bot is not None else ""
    rows = db.execute(
        "SELECT m.id, m.set_index, m.rotation, m.log, m.match_id, m.seats, group_concat(r.seat)"
        " FROM matches m JOIN results r ON r.match = m.id"
        f" WHERE m.status = 'done' AND m.log IS NOT NULL {who}"
        " AND NOT EXISTS (SELECT 1 FROM analyses a WHERE a.match = m.id AND a.seat = r.seat)"
        " GROUP BY m.id ORDER BY m.seq DESC LIMIT ?",
        (bot, limit) if bot is not None else (limit,),
    ).fetchall()
    return [
        ToAnalyse(int(i), match_key(s, r), str(log), str(mid), tuple(str(n) for n in json.loads(names)),
                  tuple(sorted(int(x) for x in str(seats).split(","))))
        for i, s, r, log, mid, names, seats in rows
    ]  # fmt: skip


def store_analyses(db: sqlite3.Connection, seats: list[SeatAnalysis]) -> None:
    """One match's analysed seats, in one transaction (a seat analysed again is replaced)."""
    with transaction(db):
        for a in seats:
            db.execute(
                "INSERT OR REPLACE INTO analyses (match, seat, bot, analysed, settings, decisions, valued,"
                " total_loss, phases, grades, luck, luck_half, expected, actual, worst)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (a.match, a.seat, a.bot, a.analysed, json.dumps(a.settings), a.decisions, a.valued, a.total_loss,
                 json.dumps(a.phases), json.dumps(a.grades), a.luck, a.luck_half, a.expected, a.actual,
                 json.dumps([w.__dict__ for w in a.worst])),
            )  # fmt: skip


def bot_analyses(db: sqlite3.Connection, bot: str, limit: int) -> list[SeatAnalysis]:
    """The bot's latest ``limit`` seats analysed, newest match first (none before schema 9)."""
    rows = db.execute(
        "SELECT a.match, a.seat, a.bot, a.analysed, a.settings, a.decisions, a.valued, a.total_loss, a.phases,"
        " a.grades, a.luck, a.luck_half, a.expected, a.actual, a.worst, m.set_index, m.rotation"
        " FROM analyses a JOIN matches m ON m.id = a.match WHERE a.bot = ? ORDER BY m.seq DESC, a.seat LIMIT ?",
        (bot, limit),
    ).fetchall()
    return [_read(row) for row in rows]


def analysed_count(db: sqlite3.Connection, bot: str | None = None) -> int:
    """Seats analysed (of ``bot``, or of every bot)."""
    if bot is None:
        (n,) = db.execute("SELECT COUNT(*) FROM analyses").fetchone()
    else:
        (n,) = db.execute("SELECT COUNT(*) FROM analyses WHERE bot = ?", (bot,)).fetchone()
    return int(n)


def _read(row: tuple[object, ...]) -> SeatAnalysis:
    match, seat, bot, when, settings, decisions, valued, total, phases, grades, luck, half, expected, actual = row[:14]
    worst, set_index, rotation = row[14:]
    return SeatAnalysis(
        match=int(str(match)), seat=int(str(seat)), bot=str(bot), analysed=str(when),
        settings=json.loads(str(settings)), decisions=int(str(decisions)), valued=int(str(valued)),
        total_loss=float(str(total)),
        phases={k: (int(v[0]), float(v[1]), float(v[2])) for k, v in json.loads(str(phases)).items()},
        grades={str(k): int(v) for k, v in json.loads(str(grades)).items()}, luck=float(str(luck)),
        luck_half=float(str(half)), expected=float(str(expected)), actual=int(str(actual)),
        worst=[WorstDecision(**w) for w in json.loads(str(worst))],
        key=match_key(int(str(set_index)), int(str(rotation))),
    )  # fmt: skip


def open_existing(path: Path) -> sqlite3.Connection | None:
    """A ladder's database opened as it is (never created nor migrated: ``ladder run
    --analyze``'s worker, beside the ladder that does), once it holds the ``analyses`` table."""
    if not path.is_file():
        return None
    con = sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True, isolation_level=None)
    con.execute("PRAGMA busy_timeout = 10000")
    found = con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'analyses'").fetchone()
    if found is None:
        con.close()
        return None
    return con


def result_bots(db: sqlite3.Connection) -> list[str]:
    """The bots with a seat in a match of the ladder, by name."""
    return [str(name) for (name,) in db.execute("SELECT DISTINCT bot FROM results ORDER BY bot")]
