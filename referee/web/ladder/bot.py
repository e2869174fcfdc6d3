"""A bot's page: its row of the leaderboard and its command, its rating over time across the
versions of its entrant, its results against each opponent, its faults with the tail of its
stderr and the command that shows each again, and its time per decision. Every text the
referee or the bot wrote goes through ``view.public`` before it is escaped: the page is read
by every entrant, and names no absolute path of the organizer's machine
(``referee.web.public``). The public view (``details=False``, the static copy) shows each fault
by its reason only: ``referee.web.ladder.visibility``."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from referee.replay.timing import TimeSummary
from referee.store.analysis import SeatAnalysis
from referee.web.ladder.chart import rating_chart
from referee.web.ladder.losses import losses_section
from referee.web.ladder.markup import bot_link, esc, matches_href, number, table
from referee.web.ladder.queries import TIMED_MATCHES, BotView, FaultRow
from referee.web.public import Public


def bot_body(
    view: BotView,
    times: tuple[TimeSummary | None, int],
    *,
    details: bool = True,
    analyses: Sequence[SeatAnalysis] | None = None,
) -> str:
    """The page's main part. ``details=False``: the public view, each fault by its reason only
    (the view's faults already stripped: ``visibility.public_bot_view``). ``analyses``: its
    analysed seats, newest first, for "where this bot loses points" (shown to every viewer:
    ``referee.web.ladder.losses``, the static copy too); ``None``: no such section."""
    s = view.standing
    name = view.version.name
    faults = f"{s.crashes}/{s.timeouts}/{s.errors}"
    figures = table(
        ["rank", "μ", "σ", "μ-3σ", "games", "win", "pts/rd", "moons", "crash/tmo/err"],
        [[str(s.rank), number(s.mu), number(s.sigma, 2), number(s.ordinal), str(s.matches), f"{s.win_rate:.0%}",
          number(s.points_per_round, 2), str(s.moons), faults]],
        wide=frozenset({2, 6, 7}),
        text=frozenset(),
    )  # fmt: skip
    return "".join([
        f"<h1>{esc(name)}</h1>",
        _versions(view),
        f'<p class="command">command: <code>{esc(view.public.text(view.command))}</code></p>',
        figures,
        f'<p><a href="{matches_href(name)}">Its matches</a></p>',
        "<h2>Rating over time</h2>",
        rating_chart(view.history),
        "<h2>Against each opponent</h2>",
        _opponents(view),
        "<h2>Time per decision</h2>",
        _times(*times),
        "" if analyses is None else '<h2 id="losses">Where this bot loses points</h2>' + losses_section(analyses),
        "<h2>Faults</h2>",
        _faults(view, details),
    ])  # fmt: skip


def _versions(view: BotView) -> str:
    if len(view.versions) <= 1:
        return ""
    items = []
    for v in view.versions:
        label = f"v{v.version}: " + (esc(v.name) if v.name == view.version.name else bot_link(v.name))
        items.append(f"<li>{label}{' (retired)' if v.retired else ''}</li>")
    return f'<p>Versions of {esc(view.version.entrant)}:</p><ul class="versions">{"".join(items)}</ul>'


def _opponents(view: BotView) -> str:
    if not view.opponents:
        return '<p class="hint">No match played yet.</p>'
    rows = [
        [bot_link(o.bot), str(o.matches), str(o.ahead), str(o.behind), number(o.margin, 2, sign=True)]
        for o in view.opponents
    ]
    return table(["opponent", "matches", "ahead", "behind", "margin"], rows, cls="opponents") + (
        '<p class="hint">Ahead / behind: matches it ended with fewer / more points than the opponent at the same '
        "table. Margin: the opponent's points minus its own, a match on average (positive: it did better).</p>"
    )


def _times(summary: TimeSummary | None, read: int) -> str:
    if summary is None:
        return f'<p class="hint">No decision timed in the logs of its latest {TIMED_MATCHES} matches ({read} read).</p>'
    cells = [str(summary.decisions), number(summary.median_ms), number(summary.p90_ms), number(summary.p99_ms),
             number(summary.max_ms)]  # fmt: skip
    head = ["decisions", "median ms", "p90 ms", "p99 ms", "max ms"]
    if summary.cpu_median_ms is not None:
        head.append("cpu median ms")
        cells.append(number(summary.cpu_median_ms))
    logs = "the log of its latest match" if read == 1 else f"the logs of its latest {read} matches"
    note = f'<p class="hint">From each request to its reply, over {logs}.</p>'
    return table(head, [cells], wide=frozenset({2, 4}), text=frozenset()) + note


def _faults(view: BotView, details: bool = True) -> str:
    if not view.reasons:
        return '<p class="hint">No faults.</p>'
    counts = ", ".join(f"{esc(reason)} {n}" for reason, n in view.reasons)
    if not details:  # the public view: the reasons, never what the bot wrote
        items = "".join(f'<article class="fault">{_fault_head(f)}</article>' for f in view.faults)
        latest = f"; the latest {len(view.faults)}:" if view.faults else "."
        return f'<p>Dropped: {counts}{latest}</p>{items}<p class="hint">Only the reason of each fault is public.</p>'
    items = "".join(_fault(f, view.public) for f in view.faults)
    shown = f"the latest {len(view.faults)}" if view.faults else "none explained (recorded before the ladder kept them)"
    return f"<p>Dropped: {counts}; {shown}:</p>{items}"


def _fault_head(f: FaultRow) -> str:
    return f'<h3>match <a href="/match/{esc(f.match)}">{esc(f.match)}</a>, seat {f.seat}: {esc(f.reason)}</h3>'


def _fault(f: FaultRow, public: Public) -> str:
    command = f"referee replay {shlex.quote(f.log)} --seat {f.seat}" if f.log else "(no log)"
    stderr = "\n".join(public.lines(f.stderr))
    more = f" (last {len(f.stderr)} of {f.stderr_lines} lines)" if f.stderr_lines > len(f.stderr) else ""
    return (
        f'<article class="fault">{_fault_head(f)}<p>{esc(public.text(f.message))}</p>'
        + (f"<p>exit: {esc(public.text(f.exit))}</p>" if f.exit else "")
        + (f'<p class="hint">{esc(public.text(f.hint))}</p>' if f.hint else "")
        + (f"<p>stderr{more}:</p><pre>{esc(stderr)}</pre>" if f.stderr else "<p>stderr: nothing</p>")
        + f"<p>replay it: <code>{esc(public.text(command))}</code>"
        + (f' (<a href="/match/{esc(f.match)}/log" download>its log</a>)' if f.log else "")
        + "</p>"
        + "</article>"
    )
