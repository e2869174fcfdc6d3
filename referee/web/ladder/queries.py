"""What each page shows, read from the database in one short read transaction (the caller's
``snapshot``): plain records, no HTML. Every query is bounded: the match list reads one page
of rows by the unique index on ``matches.seq``, a bot's faults its latest ``FAULTS_SHOWN``, its
rating history at most ``HISTORY_POINTS`` points a version, however long the ladder has run."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime

from referee.duel.status import DuelStatus, duel_status
from referee.duel.store import DuelReader
from referee.ladder.order import TOP, format_order, order_of
from referee.ladder.season import ended, taking_versions, utc_now
from referee.ladder.season_run import SeasonReport, season_report
from referee.ladder.standings import Standing, format_modes, standing, standings
from referee.stats.ratings import INITIAL
from referee.store import pages
from referee.store.analysis import SeatAnalysis
from referee.store.analysis import bot_analyses as store_bot_analyses
from referee.store.reader import LadderReader
from referee.store.records import BotVersion, Season, match_key
from referee.store.season import read_season
from referee.web.ladder.versions import of_entrant, versions
from referee.web.public import NOWHERE, Public, ladder_public

PAGE_SIZE = 50
"""Matches a page of the match list."""
FAULTS_SHOWN = 20
HISTORY_POINTS = 300
TIMED_MATCHES = 5
"""A bot's time per decision is read from the logs of its latest matches, this many: a log
of a whole match takes about 20 ms to read, and a bot's page, made from nothing, stays near
100 ms (``referee ladder times`` reads them all)."""
KEY = re.compile(r"([0-9]{5,7})-([0-9]{1,2})")
"""A match's key, ``SSSSS-R`` (``referee.ladder.schedule.match_key``), in ASCII digits only:
``\\d`` takes any script's digits, which ``int`` reads, so one match had many addresses."""


def order_line(reader: LadderReader, rows: list[Standing]) -> str | None:
    """How far the ladder is from a sure order of its top bots, in one line (as ``ladder
    table`` prints it under the table); ``None`` below two bots."""
    return format_order(order_of(reader, TOP, rows)) or None


@dataclass(frozen=True)
class Board:
    """The leaderboard page."""

    standings: list[Standing]
    versions: dict[str, BotVersion]
    done: int
    total: int
    modes: str
    order: str | None
    duel: DuelStatus | None
    season: SeasonReport | None = None
    """The ladder's season, where it stands now (``None``: no season)."""


def board(reader: LadderReader) -> Board:
    done, total = reader.progress()
    duel = DuelReader(reader.path, reader.db)
    found = duel.duel()
    status = None
    if found is not None:
        status = duel_status(found, reader.settings().rules, duel.differences(), duel.scheduled())
    rows = standings(reader)
    return Board(
        standings=rows,
        versions=versions(reader),
        done=done,
        total=total,
        modes=format_modes(reader.modes()),
        order=order_line(reader, rows),
        duel=status,
        season=season_report(reader, utc_now()),
    )


@dataclass(frozen=True)
class Opponent:
    """A bot's results against one opponent, over the matches they played at one table."""

    bot: str
    matches: int
    ahead: int
    """Matches it finished with fewer points than the opponent."""
    behind: int
    margin: float
    """The opponent's points minus its own, a match on average (positive: it did better)."""


@dataclass(frozen=True)
class FaultRow:
    match: str
    seat: int
    reason: str
    message: str
    hint: str | None
    exit: str | None
    stderr: list[str]
    stderr_lines: int
    log: str | None


@dataclass(frozen=True)
class BotView:
    """A bot's page."""

    standing: Standing
    command: str
    version: BotVersion
    versions: list[BotVersion]
    history: dict[str, list[tuple[int, float, float]]]
    """Per version of the entrant: (seq, mu, sigma) points, thinned to ``HISTORY_POINTS``."""
    opponents: list[Opponent]
    reasons: list[tuple[str, int]]
    faults: list[FaultRow]
    """Its latest faults explained, newest first."""
    recent: list[tuple[str, str, int]] = field(default_factory=list)
    """(log, match id, seat) of its latest matches, for its time per decision."""
    public: Public = NOWHERE
    """How its texts are shown without the organizer's paths: the ladder's folder is known
    (``referee.web.public``)."""


def bot_view(reader: LadderReader, name: str) -> BotView | None:
    """The bot's page, or ``None`` when the ladder has no bot of that name. Its row of the
    leaderboard is made from its own totals: its rank needs only every bot's rating."""
    known = versions(reader)
    figures = reader.figures(name)
    if name not in known or name not in figures:
        return None
    ratings = reader.ratings()
    ordinal = {bot: ratings.get(bot, INITIAL).ordinal for bot in known}
    rank = 1 + sum(1 for bot in known if (-ordinal[bot], bot) < (-ordinal[name], name))
    command = pages.command(reader, name)
    family = of_entrant(known, known[name].entrant)
    return BotView(
        standing=standing(figures[name], ratings.get(name, INITIAL), known[name], rank),
        command=str(command),
        version=known[name],
        versions=family,
        history={v.name: _history(reader, v.name) for v in family},
        opponents=_opponents(reader, name),
        reasons=_reasons(reader, name),
        faults=_faults(reader, name),
        recent=_recent(reader, name),
        public=ladder_public(reader.path),
    )


def _history(reader: LadderReader, name: str) -> list[tuple[int, float, float]]:
    rows = pages.rating_history(reader, name)
    step = max(1, -(-len(rows) // HISTORY_POINTS))
    thinned = rows[::step] + ([rows[-1]] if rows and (len(rows) - 1) % step else [])
    return [(int(seq), float(mu), float(sigma)) for seq, mu, sigma in thinned]


def _opponents(reader: LadderReader, name: str) -> list[Opponent]:
    rows = pages.opponents(reader, name)
    return [Opponent(str(b), int(n), int(ahead), int(behind), float(margin)) for b, n, ahead, behind, margin in rows]


def _reasons(reader: LadderReader, name: str) -> list[tuple[str, int]]:
    rows = pages.drop_reasons(reader, name)
    return [(str(reason), int(n)) for reason, n in rows]


def _faults(reader: LadderReader, name: str) -> list[FaultRow]:
    rows = pages.latest_faults(reader, name, FAULTS_SHOWN)
    return [
        FaultRow(match_key(s, r), int(seat), str(reason), str(message), hint, exit_,
                 [str(line) for line in json.loads(stderr)], int(lines), log)
        for s, r, log, seat, reason, message, hint, exit_, stderr, lines in rows
    ]  # fmt: skip


def _recent(reader: LadderReader, name: str) -> list[tuple[str, str, int]]:
    rows = pages.recent_matches(reader, name, TIMED_MATCHES)
    return [(str(log), str(match_id), int(seat)) for log, match_id, seat in rows]


@dataclass(frozen=True)
class SeatRow:
    bot: str
    score: int
    rank: int
    status: str


@dataclass(frozen=True)
class MatchRow:
    key: str
    seq: int
    finished: str
    reason: str
    rounds: int
    seats: list[SeatRow]


@dataclass(frozen=True)
class MatchList:
    """One page of the finished matches, newest first, of one bot or of all."""

    rows: list[MatchRow]
    page: int
    pages: int
    total: int
    bot: str | None


def entrants_of(reader: LadderReader) -> dict[str, str]:
    """Each bot's entrant, by the bot's name: whose output a viewer may see."""
    return {name: v.entrant for name, v in versions(reader).items()}


def bot_names(reader: LadderReader) -> list[str]:
    return [name for name, _ in reader.bots()]


def match_list(reader: LadderReader, bot: str | None, page: int) -> MatchList:
    """Page ``page`` (from 1) of the finished matches (with ``bot`` at the table)."""
    total = pages.finished_count(reader, bot)
    rows = pages.finished_page(reader, bot, PAGE_SIZE, (page - 1) * PAGE_SIZE)
    seats: dict[int, list[SeatRow]] = {}
    for match, bot_name, score, rank, status in pages.seats_of(reader, [row[0] for row in rows]):
        seats.setdefault(match, []).append(SeatRow(str(bot_name), int(score), int(rank), str(status)))
    found = [
        MatchRow(match_key(s, r), int(seq), str(finished or ""), str(reason or ""), int(rounds or 0), seats.get(i, []))
        for i, s, r, seq, finished, reason, rounds in rows
    ]
    return MatchList(found, page, max(1, -(-int(total) // PAGE_SIZE)), int(total), bot)


def match_log(reader: LadderReader, key: str) -> tuple[str, str, tuple[str, ...]] | None:
    """The log, the match id and the ladder's names by seat of a finished match, by its key;
    ``None``: no such match done."""
    parsed = KEY.fullmatch(key)
    if parsed is None:
        return None
    row = pages.finished_match(reader, int(parsed.group(1)), int(parsed.group(2)))
    if row is None or row[0] is None:
        return None
    return str(row[0]), str(row[1]), tuple(str(name) for name in json.loads(row[2]))


def stamp(reader: LadderReader) -> str:
    """What every page is made from, in a few bytes: the last match rated, the matches
    scheduled and the bots (a new version, a retired one). A page, and what it was made from,
    changes only when this does."""
    seq, scheduled, bots, length = pages.stamp_counts(reader)
    retired = sum(1 for v in versions(reader).values() if v.retired)
    return f"{seq}.{scheduled}.{bots}.{length}.{retired}{season_mark(read_season(reader.db), utc_now())}"


def season_mark(season: Season | None, now: datetime) -> str:
    """What of a season changes with the clock alone, not the database: whether its
    submissions have closed and its end time passed (the pages say so at that moment)."""
    if season is None:
        return ""
    return f".{int(not taking_versions(season, now))}{int(ended(season, now))}"


def latest(reader: LadderReader) -> int:
    """The number of the last match rated (0: none): a page changes only when it does."""
    return pages.last_rated(reader)


ANALYSES_SHOWN = 200
"""A bot page's "where this bot loses points" sums its latest analysed seats, this many."""


def bot_analyses(reader: LadderReader, name: str) -> list[SeatAnalysis]:
    """The bot's latest analysed seats, newest first (``referee ladder analyze``)."""
    return store_bot_analyses(reader.db, name, ANALYSES_SHOWN)
