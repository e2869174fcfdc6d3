"""A season as a run plays it (``referee.ladder.season`` says what a season is).

- **The end time.** ``SeasonFeed`` hands out sets as the ladder's feed does until the end
  time; from then on it hands out only the sets begun before it (a set a table took, or one
  with a match done), so none is left partial and none begins late. The regular sets drawn
  and not begun are closed with the reason (``sets.closed``), and ``games`` becomes the sets
  the regular season drew.
- **Waking.** A run whose sets are all played waits for the end time as ``--keep-running``
  waits for edits, looking every ``LOOK`` seconds and at the end time itself, so it wakes
  then whether a set is in flight or not (``SeasonRun.carry_on``).
- **The final.** Once the regular season's last set has ended, the best ``final_top`` versions
  still playing (the standings then; retired versions left out) are kept as the finalists with
  their ratings, once, in one transaction; the final's ``final_sets`` sets are drawn among them
  alone (level, as a new ladder's first sets) and kept as ``stage = 'final'``. Its order is
  judged on its own matches: ratings replayed from the first rating over the final's matches,
  and each pair of neighbours on the final's duplicate sets alone (``referee.ladder.order``).

Everything a restart needs is in the store: a run started again after the end time closes what
was not begun, finishes what was, and goes on with the final (chosen once) where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Protocol

import msgspec
import trio

from referee.errors import LadderError
from referee.ladder.feed import Focus, LadderFeed, rating_focus
from referee.ladder.order import OrderProgress, format_order, order_json, order_progress
from referee.ladder.pool import pool_change
from referee.ladder.schedule import next_set
from referee.ladder.season import (
    SeasonAsked,
    SeasonTimeError,
    State,
    closed_reason,
    differences,
    ended,
    season_of,
    seconds_left,
    stamp,
    state,
    taking_versions,
)
from referee.ladder.standings import standings
from referee.players.bot_config import BotEntry
from referee.stats.betting import rules_bound
from referee.stats.ratings import Rating, replay
from referee.store.duplicates import complete_sets, pair_differences
from referee.store.reader import LadderReader
from referee.store.records import Finalist, ScheduledMatch, Season
from referee.store.season import stage_progress
from referee.store.writer import LadderStore


class Plays(Protocol):
    """A run that plays what its feed hands out, then returns (``LadderRun`` on this machine,
    ``ClusterRun`` on a cluster): the season calls it again as its stages come."""

    async def run(self) -> object: ...


LOOK = 1.0
"""Seconds between two looks for new sets while a season waits for its end time."""
FINAL = "final"


def late_reason(season: Season) -> str:
    """Why a regular set drawn and not begun is never played."""
    return f"not begun when the season ended at {season.ends}"


class SeasonFeed(LadderFeed):
    """The ladder's feed (``LadderFeed``) until the end time; then the sets begun before it,
    and the final's sets once its bots are chosen (see the module's docstring)."""

    def __init__(self, store: LadderStore, now: Callable[[], datetime], focus: Focus = rating_focus) -> None:
        super().__init__(store, focus)
        self.now = now
        self.closed = False
        """The regular sets not begun are closed (once a run, at the first set asked after the end)."""

    def __call__(self) -> Sequence[ScheduledMatch] | None:
        season = self.store.season()
        if season is None or not ended(season, self.now()):
            return super().__call__()
        if not self.closed:
            self.store.end_regular(self.handed, late_reason(season))
            self.closed = True
        for group in self._pending():  # begun regular sets, then the final's drawn ones
            if group[0].set_index not in self.handed:
                self.handed.add(group[0].set_index)
                return group
        return self._final_set(season)

    def _final_set(self, season: Season) -> Sequence[ScheduledMatch] | None:
        """The final's next set, while it has fewer than ``final_sets`` and two finalists play."""
        if not season.has_final or season.finalists is None:
            return None
        active = set(self.store.active())
        finalists = [f.bot for f in season.finalists if f.bot in active]
        drawn = self.store.sets(FINAL)
        if len(finalists) < 2 or len(drawn) >= season.final_sets:
            return None
        settings = self.store.settings()
        final_set = next_set(self.store.next_index(), finalists, settings.rules.players, settings.ladder_seed, drawn)
        self.handed.add(final_set.index)
        return self.store.schedule_set(final_set, FINAL)


def choose_finalists(store: LadderStore, season: Season, at: datetime) -> tuple[Finalist, ...]:
    """The final's bots: the best ``final_top`` versions still playing in the standings now,
    kept once with their ratings (a second call keeps the first choice). None below two."""
    if season.finalists is not None:
        return season.finalists
    ratings = store.ratings()
    rows = [s for s in standings(store) if not s.retired][: season.final_top]
    chosen = tuple(Finalist(s.bot, ratings[s.bot].mu, ratings[s.bot].sigma) for s in rows if s.bot in ratings)
    store.choose_finalists(chosen if len(chosen) >= 2 else (), stamp(at))
    found = store.season()
    return found.finalists or () if found is not None else ()


@dataclass
class SeasonRun:
    """What a run with an end time does once its tables have nothing to play: wait for the end
    time (taking edits, playing their catch-up sets), let the sets begun finish, choose the
    finalists, play the final. Then the run ends."""

    store: LadderStore
    now: Callable[[], datetime]
    tell: Callable[[str], None] | None = None

    async def carry_on(self, run: Plays) -> None:
        while True:
            season = self.store.season()
            if season is None or season.ends is None:
                return
            if ended(season, self.now()):
                break
            await trio.sleep(min(LOOK, seconds_left(season, self.now())))
            await run.run()
        await run.run()  # past the end: the sets begun finish, nothing new begins
        if season.has_final and season.finalists is None:
            chosen = choose_finalists(self.store, season, self.now())
            if self.tell is not None:
                self.tell(final_line(season, chosen))
        await run.run()  # the final's sets


def final_line(season: Season, chosen: Sequence[Finalist]) -> str:
    if len(chosen) < 2:
        return f"the season ended at {season.ends}: fewer than two bots playing, no final"
    names = ", ".join(f.bot for f in chosen)
    sets = f"{season.final_sets} set{'s' if season.final_sets != 1 else ''}"
    return f"the season ended at {season.ends}: the final, {sets} among {names}"


@dataclass(frozen=True)
class FinalOrder:
    """The final's order, from its own matches alone."""

    bots: list[str]
    """Best first: by the conservative rating (μ - 3σ) of the final's matches, replayed from the
    first rating; ties by the order of the regular season."""
    ratings: dict[str, Rating]
    progress: OrderProgress
    """How sure each pair of neighbours is, on the final's duplicate sets."""
    sets: int
    """The final's complete sets."""


def final_order(store: LadderReader, season: Season) -> FinalOrder | None:
    """The final's order and how sure it is (``None`` before its bots are chosen)."""
    if not season.finalists or len(season.finalists) < 2:
        return None
    seeded = [f.bot for f in season.finalists]
    ratings = replay(seeded, store.rated_matches(FINAL))
    bots = sorted(seeded, key=lambda b: (-ratings[b].ordinal, seeded.index(b)))
    judged = pair_differences(store, list(pairwise(bots)), FINAL)
    complete = complete_sets(store, FINAL)
    shares = {pair: len(found) / complete if complete else None for pair, found in judged.items()}
    progress = order_progress(bots, judged, shares, bound=rules_bound(store.settings().rules))
    return FinalOrder(bots, ratings, progress, complete)


@dataclass(frozen=True)
class SeasonReport:
    """A season as the table, the pages and the JSON show it."""

    season: Season
    state: State
    final_drawn: int
    final_done: int
    order: FinalOrder | None


def season_report(store: LadderReader, now: datetime) -> SeasonReport | None:
    """Where the ladder's season stands at ``now`` (``None``: the ladder has no season)."""
    season = store.season()
    if season is None:
        return None
    drawn, done = stage_progress(store.db, FINAL)
    return SeasonReport(season, state(season, now, done), drawn, done, final_order(store, season))


def season_lines(report: SeasonReport) -> list[str]:
    """The season in a few lines, for a terminal."""
    season = report.season
    lines = [
        f"season: {report.state}; ends at {season.ends or 'no end'}; submissions close at {season.closes or 'never'}"
    ]
    if season.has_final:
        final = f"final: top {season.final_top} x {season.final_sets} sets"
        if season.finalists is not None:
            names = ", ".join(f.bot for f in season.finalists) or "none (fewer than two bots playing)"
            final += f" among {names}; {report.final_done} of {season.final_sets} sets played"
        lines.append(final)
    if report.order is not None:
        lines.append("final order: " + " > ".join(report.order.bots))
        lines.append(format_order(report.order.progress).replace("order of the top", "final order of the", 1))
    return lines


def season_json(report: SeasonReport) -> dict[str, object]:
    """The season as JSON-ready data (``ladder season --json``)."""
    season = report.season
    order = report.order
    return {
        "state": report.state,
        "ends": season.ends,
        "submissions_close": season.closes,
        "final_top": season.final_top,
        "final_sets": season.final_sets,
        "finalists": None
        if season.finalists is None
        else [{"bot": f.bot, "mu": f.mu, "sigma": f.sigma} for f in season.finalists],
        "regular_ended": season.regular_ended,
        "final_sets_drawn": report.final_drawn,
        "final_sets_done": report.final_done,
        "final_order": None
        if order is None
        else {
            "bots": order.bots,
            "ratings": {b: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal} for b, r in order.ratings.items()},
            "complete_sets": order.sets,
            "sure": order_json(order.progress),
        },
    }


def frozen_entries(store: LadderReader, entries: Sequence[BotEntry], now: datetime) -> tuple[list[BotEntry], list[str]]:
    """The bot list a start takes once submissions have closed: an entry that would be a new
    version plays as the version stored (its stored entry), a new entrant is left out, each
    named; removing an entry still retires it. Before the freeze, ``entries`` as they are."""
    season = store.season()
    if season is None or taking_versions(season, now):
        return list(entries), []
    change = pool_change(store.versions(), entries, stamp(now))
    if not change.added:
        return list(entries), []
    stored = {v.name: v for v in store.versions()}
    kept: dict[str, BotEntry | None] = {}
    notes = []
    for version in change.added:
        before = stored.get(version.replaces) if version.replaces is not None else None
        if before is None:
            kept[version.entrant] = None
            notes.append(f"new entrant {version.entrant} not taken: {closed_reason(season)}")
        else:
            entry = before.entry or BotEntry(name=before.entrant, command=before.command)
            kept[version.entrant] = msgspec.structs.replace(entry, name=version.entrant)
            notes.append(
                f"{version.entrant}: its changed entry not taken ({closed_reason(season)}); {before.name} plays on"
            )
    found = []
    for entry in entries:
        if entry.name not in kept:
            found.append(entry)
        elif (replaced := kept[entry.name]) is not None:
            found.append(replaced)
    return found, notes


def check_season(db: str | Path, asked: SeasonAsked | None, now: datetime) -> None:
    """Before anything is built: raise ``LadderError`` when the season flags cannot be read,
    make no season, or differ from the season stored in ``db`` without ``--change-season``
    (or with it, after the end time: a season that has ended is what it was)."""
    if asked is None or not asked.given:
        return
    stored = None
    if Path(db).is_file():
        store = LadderStore(db)
        try:
            stored = store.season()
        finally:
            store.close()
    wanted = _wanted(asked, stored, now)
    changes = differences(stored, wanted) if stored is not None else []
    if stored is None or not changes:
        return
    if not asked.change:
        raise LadderError(
            f"{db} has a season already, and the season's flags given differ from it ({'; '.join(changes)}). To go"
            " on with the stored season, run without the season's flags; to change it, add --change-season"
        )
    if ended(stored, now):
        raise LadderError(f"{db}: the season ended at {stored.ends}; it cannot be changed any more")


def keep_season(store: LadderStore, asked: SeasonAsked | None, now: datetime) -> list[str]:
    """Under the run lock: store the season asked for (a new one, or the stored one changed:
    ``check_season`` has refused what may not be), and a note that says what the season is."""
    stored = store.season()
    if asked is not None and asked.given:
        wanted = _wanted(asked, stored, now)
        if wanted != stored:
            store.set_season(wanted)
            stored = wanted
    if stored is None:
        return []
    final = f"; final: top {stored.final_top} x {stored.final_sets} sets" if stored.has_final else ""
    return [f"season: ends at {stored.ends or 'no end'}, submissions close at {stored.closes or 'never'}{final}"]


def _wanted(asked: SeasonAsked, stored: Season | None, now: datetime) -> Season:
    try:
        return season_of(asked, stored, now)
    except SeasonTimeError as err:
        raise LadderError(str(err)) from None


def season_start(db: str | Path, entries: Sequence[BotEntry], now: datetime) -> tuple[list[BotEntry], list[str]]:
    """What a start of a ladder with a season takes of its bot list (``frozen_entries``), and
    notes naming what it left (locally or on a cluster alike)."""
    if not Path(db).is_file():
        return list(entries), []
    store = LadderStore(db)
    try:
        return frozen_entries(store, entries, now)
    finally:
        store.close()
