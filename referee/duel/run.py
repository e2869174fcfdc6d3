"""Play a duel or a gauntlet: the ladder's run (``referee.ladder.play``: bots built, the
database created or resumed under its run lock, fresh sandboxed bots per match, tables at once
or a Dask cluster) with a ``RunKind`` of its own: the duel's database, its sets scheduled one at
a time while its tests have not decided (``referee.duel.feed``), and its live view. This is
what ``referee duel`` and ``referee gauntlet`` call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from referee.duel.feed import DuelFeed
from referee.duel.progress import DuelProgress
from referee.duel.settings import DuelSettings
from referee.duel.setup import check_same_duel, open_duel
from referee.duel.status import DuelStatus, duel_status
from referee.duel.store import DuelStore
from referee.ladder.errors import LadderError
from referee.ladder.play import LadderPlan, LadderResult, LiveView, Telling, play_ladder
from referee.ladder.runner import SetFeed
from referee.ladder.store import LadderStore


class DuelRun:
    """A duel's ``RunKind``: ``duel`` as asked for (its test taken from the database when
    ``duel`` has none, once ``check`` has run), at most ``max_sets`` sets against each bot."""

    def __init__(self, duel: DuelSettings, max_sets: int) -> None:
        if max_sets < 1:
            raise LadderError("--max-sets must be at least 1")
        self.duel = duel
        self.max_sets = max_sets

    def check(self, plan: LadderPlan) -> None:
        self.duel = check_same_duel(plan, self.duel)

    def open(self, plan: LadderPlan) -> tuple[LadderStore, list[str]]:
        return open_duel(plan, self.duel)

    def feed(self, store: LadderStore) -> SetFeed | None:
        return DuelFeed(_duel_store(store), self.duel, self.max_sets)

    def view(self, store: LadderStore, console: Console | None, workers: Callable[[], int] | None) -> LiveView:
        duel_store = _duel_store(store)
        return DuelProgress(lambda: status_of(duel_store, self.duel), self.max_sets, console, workers)


def _duel_store(store: LadderStore) -> DuelStore:
    if not isinstance(store, DuelStore):
        raise TypeError("a duel's run needs the duel's store")
    return store


def play_duel(
    plan: LadderPlan, duel: DuelSettings, max_sets: int, telling: Telling | None = None
) -> tuple[LadderResult, DuelSettings]:
    """Create or resume the duel in ``plan.db`` and play its sets until every test has decided
    or ``max_sets`` sets against each bot are done: what the run played, and the duel it ran
    (its test taken from the database when not given). Raises as ``play_ladder`` does."""
    kind = DuelRun(duel, max_sets)
    result = play_ladder(plan, telling, kind)
    return result, kind.duel


def status_of(store: DuelStore, duel: DuelSettings | None = None) -> DuelStatus:
    """Where the duel in ``store`` stands now."""
    duel = duel or store.duel()
    if duel is None:
        raise LadderError(f"{store.path} is a ladder's database, not a duel's")
    return duel_status(duel, store.settings().rules, store.differences(), store.scheduled())


def read_status(db: str | Path) -> DuelStatus:
    """Where the duel in the database ``db`` stands (``LadderError`` when there is none)."""
    if not Path(db).is_file():
        raise LadderError(f"{db}: no such duel")
    store = DuelStore(db)
    try:
        return status_of(store)
    finally:
        store.close()
