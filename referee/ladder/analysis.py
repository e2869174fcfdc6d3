"""Analysing a ladder's finished matches (``referee ladder analyze``, ``ladder run --analyze``):
each seat's decisions valued from its own information (``referee.analysis``) and the figures
the bot page shows kept in the database (``referee.store.analysis``), one match per
transaction, so that a run stopped at any moment goes on from the next match not analysed.

Only the ladder's own logs are read: a row's log must be a regular file directly in the
ladder's logs folder (``setup.logs_folder``), as the web view requires; a log that is missing,
unreadable or does not verify is skipped and said so, never stored as analysed."""

from __future__ import annotations

import math
import os
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from referee.analysis import Analysis, Budget, DecisionReport, analyse_match
from referee.analysis.report import ERRORS
from referee.ladder.setup import logs_folder
from referee.replay.reader import LogError, read_log
from referee.replay.record import MatchRecord, RoundRecord
from referee.replay.verify import verify
from referee.store.analysis import SeatAnalysis, ToAnalyse, WorstDecision, store_analyses, to_analyse

Say = Callable[[str], None]


@dataclass(frozen=True)
class AnalyseSettings:
    seed: int = 1
    budget: Budget = field(default_factory=Budget)
    workers: int = 1
    executor: Executor | None = None
    """Where the decisions are valued (a Dask client's executor); ``None``: ``workers`` processes."""


def ladder_log(db: Path, recorded: str) -> Path | None:
    """The log a row names, when it is a regular file directly in the ladder's logs folder."""
    folder = logs_folder(db)
    path = Path(recorded)
    if not path.is_absolute():
        path = folder / path.name
    try:
        real, home = path.resolve(strict=True), folder.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return real if real.parent == home and real.is_file() else None


def viewer_step(round_: RoundRecord, d: DecisionReport) -> int:
    """The replay viewer's step of a decision within its round, from 1 (its steps: the deal,
    the passing, the declarations, each card played, the round's end)."""
    step = 1 + int(bool(round_.passes))
    if d.kind == "pass":
        return 2
    if d.kind == "declare":
        return step + 1
    step += int(bool(round_.declarations))
    for trick in round_.tricks:
        for play in trick.plays:
            step += 1
            if d.kind == "play" and trick.number == d.trick and play.seat == d.seat:
                return step
    return step + 1  # the moon choice: the round's end


def _worst(record: MatchRecord, reports: Sequence[DecisionReport]) -> list[WorstDecision]:
    graded = sorted(
        (r for r in reports if r.verdict in ERRORS and r.loss), key=lambda r: -(r.loss.mean if r.loss else 0)
    )
    places = {r.round: i for i, r in enumerate(record.rounds)}
    found = []
    for r in graded[:3]:
        assert r.loss is not None
        ri = places.get(r.round, 0)
        found.append(WorstDecision(
            round=ri, step=viewer_step(record.rounds[ri], r), trick=r.trick, phase=r.phase, chosen=r.chosen,
            best=r.best or "", loss=r.loss.mean, low=r.loss.low, high=r.loss.high, verdict=r.verdict,
        ))  # fmt: skip
    return found


def seat_rows(match: ToAnalyse, record: MatchRecord, analysis: Analysis, when: str) -> list[SeatAnalysis]:
    """What the database keeps of each analysed seat."""
    settings: dict[str, object] = {"seed": analysis.seed, "policy": analysis.policy, "budget": analysis.budget.most}
    rows = []
    for s in analysis.seats:
        mine = [r for r in analysis.decisions if r.seat == s.seat]
        phases: dict[str, tuple[int, float, float]] = {}
        for r in mine:
            if r.loss is not None:
                n, total, squares = phases.get(r.phase, (0, 0.0, 0.0))
                phases[r.phase] = (n + 1, total + r.loss.mean, squares + r.loss.mean**2)
        rounds = [r for r in analysis.luck if r.seat == s.seat]
        half = math.sqrt(sum(((r.luck.high - r.luck.low) / 2) ** 2 for r in rounds if math.isfinite(r.luck.high)))
        rows.append(SeatAnalysis(
            match=match.match, seat=s.seat, bot=match.names[s.seat], analysed=when, settings=settings,
            decisions=s.decisions, valued=s.analysed, total_loss=s.total_loss, phases=phases, grades=s.grades,
            luck=s.luck, luck_half=half, expected=s.expected, actual=s.actual, worst=_worst(record, mine),
        ))  # fmt: skip
    return rows


def _record(db: Path, match: ToAnalyse) -> MatchRecord | str:
    """The match's verified record, or why it cannot be analysed."""
    path = ladder_log(db, match.log)
    if path is None:
        return "no readable log in the ladder's logs folder"
    try:
        found = read_log(path).last_of(match.match_id)
    except (LogError, OSError) as err:
        return f"its log cannot be read ({err})"
    if found is None:
        return "its log does not hold it"
    record = verify(found)
    if record.verification is None or record.verification.status == "mismatch":
        return "its log does not verify"
    return record


def analyse_one(db: Path, con: sqlite3.Connection, match: ToAnalyse, settings: AnalyseSettings) -> str | None:
    """Analyse one match's seats and store them in one transaction; ``None``, or why not."""
    record = _record(db, match)
    if isinstance(record, str):
        return record
    analysis = analyse_match(
        record, list(match.seats), seed=settings.seed, budget=settings.budget, workers=settings.workers,
        executor=settings.executor, log_name=Path(match.log).name,
    )  # fmt: skip
    when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    store_analyses(con, seat_rows(match, record, analysis, when))
    return None


def analyse_ladder(
    db: Path, con: sqlite3.Connection, bot: str | None, matches: int, *, settings: AnalyseSettings, say: Say
) -> int:
    """Analyse the latest ``matches`` finished matches (of ``bot``) not analysed yet, newest
    first; returns how many were stored."""
    stored = 0
    todo = to_analyse(con, bot, matches)
    if not todo:
        say("nothing to analyse: every finished match asked for is analysed")
    for i, match in enumerate(todo, 1):
        seats = ", ".join(f"{match.names[s]} (seat {s})" for s in match.seats)
        why = analyse_one(db, con, match, settings)
        if why is None:
            stored += 1
            say(f"[{i}/{len(todo)}] match {match.key}: {seats} analysed")
        else:
            say(f"[{i}/{len(todo)}] match {match.key}: skipped, {why}")
    return stored


def default_workers() -> int:
    return os.cpu_count() or 1
