"""The live view of a ladder run: a progress bar (matches done, matches per second, time
left) above the current top of the leaderboard, a line on how sure the order of its top is
(``referee.ladder.order``) and a line of the bots dropped so far, redrawn after every match and
twice a second."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Self

import trio
from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from referee.ladder.order import TOP as ORDER_TOP
from referee.ladder.order import format_order, order_of
from referee.ladder.standings import standings, standings_table
from referee.store.records import StoredMatch
from referee.store.writer import LadderStore

TOP = 5
"""Rows of the leaderboard shown while the ladder runs."""


class RateColumn(ProgressColumn):
    """Matches per second over the last half minute."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text("- matches/s" if speed is None else f"{speed:.2f} matches/s")


class LiveRedraw:
    """A live view's frame: a context manager that shows ``live`` while a run plays and
    redraws it twice a second (the clock) until cancelled; each kind of run draws its own."""

    live: Live

    def __enter__(self) -> Self:
        self.live.start(refresh=True)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.live.stop()

    async def tick(self) -> None:
        """Redraw twice a second (the clock and the time left), until cancelled."""
        while True:
            await trio.sleep(0.5)
            self.live.refresh()


class LiveProgress(LiveRedraw):
    """A context manager around a ladder run; pass ``on_result`` to the run."""

    def __init__(
        self, store: LadderStore, console: Console | None = None, workers: Callable[[], int] | None = None
    ) -> None:
        self.store = store
        self.workers = workers
        """On a cluster: how many workers it has now (shown under the bar)."""
        self.console = console or Console()
        self.bar = Progress(
            TextColumn("ladder"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("matches"),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("elapsed,"),
            TimeRemainingColumn(),
            TextColumn("left"),
            console=self.console,
        )
        done, total = store.progress()
        self.task = self.bar.add_task("ladder", total=total, completed=done)
        self.live = Live(self._view(), console=self.console, auto_refresh=False, transient=True)

    def _view(self) -> Group:
        everyone = standings(self.store)
        rows = everyone[:TOP]
        parts: list[Text | Progress | Table] = [self.bar]
        if self.workers is not None:
            parts.append(Text(f"cluster: {self.workers()} workers"))
        parts.append(standings_table(rows, title=f"top {min(TOP, len(rows))}"))
        order = format_order(order_of(self.store, ORDER_TOP, everyone))
        if order:
            parts.append(Text(order))
        drops = self.store.drop_counts()
        if drops:
            shown = ", ".join(f"{bot} {n}" for bot, n in drops.items())
            parts.append(Text(f"bots dropped so far: {shown} (explained at the end)"))
        return Group(*parts)

    def on_result(self, record: StoredMatch) -> None:
        self.bar.advance(self.task)
        self.live.update(self._view(), refresh=True)
