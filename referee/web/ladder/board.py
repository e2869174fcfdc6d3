"""The leaderboard page: every bot by conservative rating (μ-3σ) with its 95% interval and
its version, how far the ladder has come, and, for a duel's or a gauntlet's database, each
pairing's log-likelihood ratio against the test's bounds: ``board.html``, ``duel.html`` and
``season.html``."""

from __future__ import annotations

from markupsafe import Markup

from referee.duel.status import DuelStatus
from referee.duel.view import caption, verdict_line
from referee.ladder.order import format_order
from referee.ladder.season_run import SeasonReport
from referee.web.ladder.markup import interval, number, render
from referee.web.ladder.queries import Board

Z95 = 1.96
"""A 95% interval of a rating: μ ± 1.96σ."""


def board_body(found: Board) -> Markup:
    """The page's main part (``board.html``)."""
    share = f"{100 * found.done / found.total:.0f}%" if found.total else "0%"
    duel = None if found.duel is None else duel_section(found.duel)
    season = None if found.season is None else season_section(found.season)
    return render("board.html", found=found, share=share, duel=duel, season=season, z95=Z95)


STATES = {"regular": "regular season", "final": "the final", "over": "over"}


def season_section(report: SeasonReport) -> Markup:
    """The season in a few lines: when it ends, when submissions close, the final's size, where
    it stands, and, once the final has bots, their order from the final's matches alone."""
    season = report.season
    final = "none"
    if season.has_final:
        final = f"top {season.final_top} × {season.final_sets} sets"
        if season.finalists is not None:
            final += f", {report.final_done} of {season.final_sets} played"
    items = [
        ("ends at", season.ends or "no end"),
        ("submissions close at", season.closes or "never"),
        ("final", final),
        ("state", STATES[report.state]),
    ]
    line = format_order(report.order.progress) if report.order is not None else ""
    return render("season.html", report=report, items=items, order_line=line)


def duel_section(status: DuelStatus) -> Markup:
    """A duel's or gauntlet's test: per pairing its sets, mean, intervals, LLR and bounds."""
    sprt = status.duel.sprt
    rows = []
    for p in status.pairings:
        row = [p.old, str(p.sets), number(p.estimate.mean, 2, sign=True) if p.sets else "-",
               interval(*p.interval), interval(*p.sequence)]  # fmt: skip
        if sprt is not None:
            llr = "-" if p.sprt is None else number(p.sprt.llr, 2, sign=True)
            row += [f"{llr} in [{sprt.lower:+.2f}, {sprt.upper:+.2f}]", p.verdict or "-"]
        rows.append(row)
    head = ["against", "sets", "diff", "95% interval", "conf. sequence"] + (
        ["LLR in bounds", "verdict"] if sprt else []
    )
    kind = "Gauntlet" if status.duel.kind == "gauntlet" else "Duel"
    return render("duel.html", kind=kind, new=status.duel.new, head=head, rows=rows, caption=caption(status),
                  verdict=verdict_line(status))  # fmt: skip
