"""Play a duel or a gauntlet: the ladder's run (``referee.ladder.play``: bots built, the
database created or resumed under its run lock, fresh sandboxed bots per match, tables at once
or a Dask cluster) with a ``RunKind`` of its own: the duel's database, the roll call of its bots
before the first set (``referee.ladder.roll_call``), its sets scheduled one at a time while its
tests have not decided and no bot is broken (``referee.duel.feed``), and its live view. Before
the roll call, every folder shown whole to none of the bots that use it is named, with the fix
(``referee.duel.folders``). This is
what ``referee duel`` and ``referee gauntlet`` call."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from referee.duel.faults import duel_faults
from referee.duel.feed import DuelFeed
from referee.duel.folders import crowded_lines
from referee.duel.progress import DuelProgress
from referee.duel.settings import DuelSettings
from referee.duel.setup import check_same_duel, open_duel
from referee.duel.status import DuelStatus, duel_status
from referee.duel.store import DuelStore
from referee.duel.tally import DuelTally
from referee.errors import LadderError
from referee.ladder.play import LadderInterrupted, LadderPlan, LadderResult, LiveView, RunOutput, play_ladder
from referee.ladder.roll_call import roll_call
from referee.ladder.runner import RunOptions, SetFeed
from referee.ladder.season_run import SeasonRun
from referee.shared import FaultReport
from referee.store.writer import LadderStore


class DuelRun:
    """A duel's ``RunKind``: ``duel`` as asked for (its test taken from the database when
    ``duel`` has none, once ``check`` has run), at most ``max_sets`` sets against each bot."""

    def __init__(
        self,
        duel: DuelSettings,
        max_sets: int,
        warn: Callable[[str], None] | None = None,
        listed: Collection[str] = (),
    ) -> None:
        if max_sets < 1:
            raise LadderError("--max-sets must be at least 1")
        self.duel = duel
        self.max_sets = max_sets
        self.warn = warn
        """Where a folder shown whole to no bot is told (else among the notes)."""
        self.listed = listed
        """The bots of a TOML bot list: a crowded folder's fix for them is ``folder =``, not ``dir=``."""
        self.unstarted: dict[str, FaultReport] = {}
        """The bots that failed the roll call of this run."""

    def check(self, plan: LadderPlan) -> None:
        self.duel = check_same_duel(plan, self.duel)

    def pool(self, plan: LadderPlan, warn: Callable[[str], None]) -> LadderPlan:
        """The bots as asked: a duel is about them (no version follows its files, no upload)."""
        return plan

    def leaves_out(self) -> bool:
        return False

    def open(self, plan: LadderPlan) -> tuple[LadderStore, list[str]]:
        return open_duel(plan, self.duel)

    def ready(self, store: LadderStore, commands: Mapping[str, str], options: RunOptions) -> list[str]:
        """The roll call, when there are sets to play: NEW and the opponents, and the bots NEW is
        still to be measured against (undecided and under the cap, or in a set a killed run
        left unfinished); a note for the user."""
        status = DuelFeed(_duel_store(store), self.duel, self.max_sets).status()
        waiting = {p.old for p in status.pairings if p.verdict in (None, "continue") and p.scheduled < self.max_sets}
        waiting |= {name for match in store.pending() for name in match.seats}
        if status.stopped or not waiting & set(self.duel.olds):
            return []
        names = [name for name in self.duel.names if name not in self.duel.olds or name in waiting]
        notes = crowded_lines(commands, names, options, self.listed)  # why a bot may fail to start, said first
        if self.warn is not None:
            for line in notes:
                self.warn(line)
            notes = []
        try:
            self.unstarted = roll_call(commands, names, options)
        except KeyboardInterrupt:  # as an interrupt of the sets: never click's exit status 1 (H0)
            raise LadderInterrupted("interrupted during the roll call: run the same command again") from None
        if not self.unstarted:
            return [*notes, f"roll call: {', '.join(names)} started and said hello"]
        return [*notes, f"roll call: {', '.join(self.unstarted)} failed to start"]

    def feed(self, store: LadderStore) -> SetFeed | None:
        return DuelFeed(_duel_store(store), self.duel, self.max_sets, self.unstarted)

    def view(self, store: LadderStore, console: Console | None, workers: Callable[[], int] | None) -> LiveView:
        duel_store = _duel_store(store)
        tally = DuelTally(self.duel, duel_store.settings().rules)  # each refresh reads the new sets only

        def now() -> DuelStatus:
            return tally.status(duel_store, self.unstarted)

        return DuelProgress(now, self.max_sets, console, workers)

    def season_run(self, store: LadderStore, plan: LadderPlan, warn: Callable[[str], None] | None) -> SeasonRun | None:
        """A duel has no season."""
        return None


def _duel_store(store: LadderStore) -> DuelStore:
    if not isinstance(store, DuelStore):
        raise TypeError("a duel's run needs the duel's store")
    return store


@dataclass(frozen=True)
class DuelPlayed:
    """What a run of a duel did: what it played, the duel it ran (its test taken from the
    database when not given), and the bots that failed its roll call."""

    result: LadderResult
    duel: DuelSettings
    unstarted: Mapping[str, FaultReport] = field(default_factory=dict)


def play_duel(
    plan: LadderPlan,
    duel: DuelSettings,
    max_sets: int,
    output: RunOutput | None = None,
    listed: Collection[str] = (),
) -> DuelPlayed:
    """Create or resume the duel in ``plan.db``, call the roll of its bots, and play its sets
    until every test has decided, a bot is broken or ``max_sets`` sets against each bot are
    done (``listed``: the bots named from a TOML bot list). Raises as ``play_ladder`` does."""
    kind = DuelRun(duel, max_sets, None if output is None else output.warn, listed)
    result = play_ladder(plan, output, kind)
    return DuelPlayed(result, kind.duel, kind.unstarted)


def status_of(
    store: DuelStore, duel: DuelSettings | None = None, unstarted: Mapping[str, FaultReport] | None = None
) -> DuelStatus:
    """Where the duel in ``store`` stands now (``unstarted``: the bots that failed a run's
    roll call, broken whatever their matches say)."""
    duel = duel or store.duel()
    if duel is None:
        raise LadderError(f"{store.path} is a ladder's database, not a duel's")
    faults = duel_faults(store, duel.names, unstarted)
    return duel_status(duel, store.settings().rules, store.differences(), store.scheduled(), faults)


def read_status(db: str | Path, unstarted: Mapping[str, FaultReport] | None = None) -> DuelStatus:
    """Where the duel in the database ``db`` stands (``LadderError`` when there is none)."""
    if not Path(db).is_file():
        raise LadderError(f"{db}: no such duel")
    store = DuelStore(db)
    try:
        return status_of(store, unstarted=unstarted)
    finally:
        store.close()
