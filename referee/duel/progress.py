"""The live view of a duel or a gauntlet: the sets done against the most that may be played,
and the table of NEW's running difference against each bot, with its intervals and, with
``--sprt``, the log-likelihood ratio between its bounds, redrawn after every match."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from referee.duel.status import DuelStatus
from referee.duel.view import status_table, verdict_line
from referee.ladder.progress import LiveRedraw
from referee.store.records import StoredMatch


class DuelProgress(LiveRedraw):
    """A context manager around a duel's run (``referee.ladder.play.LiveView``)."""

    def __init__(
        self,
        status: Callable[[], DuelStatus],
        max_sets: int,
        console: Console | None = None,
        workers: Callable[[], int] | None = None,
    ) -> None:
        self.status = status
        """Where the duel stands now (read from its database)."""
        self.workers = workers
        self.console = console or Console()
        self.bar = Progress(
            TextColumn("sets"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("elapsed (the test may stop before the end)"),
            console=self.console,
        )
        now = status()
        self.task = self.bar.add_task("sets", total=max_sets * len(now.pairings), completed=_sets(now))
        self.live = Live(self._view(now), console=self.console, auto_refresh=False, transient=True)

    def _view(self, now: DuelStatus) -> Group:
        parts: list[RenderableType] = [self.bar]
        if self.workers is not None:
            parts.append(Text(f"cluster: {self.workers()} workers"))
        parts.append(status_table(now))
        parts.append(Text(verdict_line(now)))
        return Group(*parts)

    def on_result(self, record: StoredMatch) -> None:
        now = self.status()
        self.bar.update(self.task, completed=_sets(now))
        self.live.update(self._view(now), refresh=True)


def _sets(status: DuelStatus) -> int:
    return sum(p.sets for p in status.pairings)
