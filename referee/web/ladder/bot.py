"""A bot's page (``bot.html``): its row of the leaderboard and its command, its rating over time
across the versions of its entrant, its results against each opponent, its faults with the tail
of its stderr and the command that shows each again, and its time per decision. Every text the
referee or the bot wrote goes through ``view.public`` before the template escapes it: the page
is read by every entrant, and names no absolute path of the organizer's machine
(``referee.web.public``). The public view (``details=False``, the static copy) shows each fault
by its reason only: ``referee.web.ladder.visibility``."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from markupsafe import Markup

from referee.replay.timing import TimeSummary
from referee.store.analysis import SeatAnalysis
from referee.web.ladder.chart import rating_chart
from referee.web.ladder.losses import losses_section
from referee.web.ladder.markup import number, render
from referee.web.ladder.queries import TIMED_MATCHES, BotView, FaultRow


def bot_body(
    view: BotView,
    times: tuple[TimeSummary | None, int],
    *,
    details: bool = True,
    analyses: Sequence[SeatAnalysis] | None = None,
) -> Markup:
    """The page's main part. ``details=False``: the public view, each fault by its reason only
    (the view's faults already stripped: ``visibility.public_bot_view``). ``analyses``: its
    analysed seats, newest first, for "where this bot loses points" (shown to every viewer:
    ``referee.web.ladder.losses``, the static copy too); ``None``: no such section."""
    summary, read = times
    return render(
        "bot.html",
        view=view,
        details=details,
        chart=rating_chart(view.history),
        timing=_timing(summary),
        timed=TIMED_MATCHES,
        read=read,
        losses=None if analyses is None else losses_section(analyses),
        replay_command=_replay_command,
    )


def _timing(summary: TimeSummary | None) -> tuple[list[str], list[str]] | None:
    """The head and the cells of the time-per-decision table; ``None``: nothing timed."""
    if summary is None:
        return None
    cells = [str(summary.decisions), number(summary.median_ms), number(summary.p90_ms), number(summary.p99_ms),
             number(summary.max_ms)]  # fmt: skip
    head = ["decisions", "median ms", "p90 ms", "p99 ms", "max ms"]
    if summary.cpu_median_ms is not None:
        head.append("cpu median ms")
        cells.append(number(summary.cpu_median_ms))
    return head, cells


def _replay_command(f: FaultRow) -> str:
    """The command that replays a fault's seat (written public by the template)."""
    return f"referee replay {shlex.quote(f.log)} --seat {f.seat}" if f.log else "(no log)"
