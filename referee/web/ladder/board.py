"""The leaderboard page: every bot by conservative rating (μ-3σ) with its 95% interval and
its version, how far the ladder has come, and, for a duel's or a gauntlet's database, each
pairing's log-likelihood ratio against the test's bounds."""

from __future__ import annotations

from referee.duel.status import DuelStatus
from referee.duel.view import caption, verdict_line
from referee.ladder.order import format_order
from referee.ladder.season_run import SeasonReport
from referee.web.ladder.markup import bot_link, esc, interval, number, table
from referee.web.ladder.queries import Board

Z95 = 1.96
"""A 95% interval of a rating: μ ± 1.96σ."""


def board_body(found: Board) -> str:
    progress = f"{found.done} of {found.total} matches played"
    share = f"{100 * found.done / found.total:.0f}%" if found.total else "0%"
    parts = [
        '<section class="summary">',
        f'<p><progress max="{max(found.total, 1)}" value="{found.done}"></progress> {esc(progress)} ({share})</p>',
        f"<p>{esc(found.order)}</p>" if found.order else "",
        "".join(f'<p class="modes">{esc(line)}</p>' for line in found.modes.splitlines()),
        "</section>",
    ]
    if found.duel is not None:
        parts.append(duel_section(found.duel))
    if found.season is not None:
        parts.append(season_section(found.season))
    parts.append("<h2>Leaderboard</h2>")
    parts.append(_standings(found))
    parts.append(
        '<p class="hint">Sorted by μ-3σ (a bot ranks high once the ladder is sure of it). Interval: μ ± 1.96σ. '
        "Lower points a round is better.</p>"
    )
    return "".join(parts)


def _standings(found: Board) -> str:
    rows = []
    for s in found.standings:
        version = found.versions.get(s.bot)
        name = bot_link(s.bot, titled=True)  # whole in its title where ladder.css shortens it
        if version is not None and (version.version > 1 or version.entrant != s.bot):
            name += f' <span class="tag">v{version.version} of {esc(version.entrant)}</span>'
        if version is not None and version.retired:
            name += ' <span class="tag retired">retired</span>'
        faults = f"{s.crashes}/{s.timeouts}/{s.errors}"
        spread = interval(s.mu - Z95 * s.sigma, s.mu + Z95 * s.sigma, 1)
        rows.append([
            str(s.rank), name, number(s.mu), number(s.sigma, 2), spread,
            number(s.ordinal), str(s.matches), f"{s.win_rate:.0%}", number(s.points_per_round, 2),
            f'<span class="{"bad" if faults != "0/0/0" else ""}">{faults}</span>',
        ])  # fmt: skip
    dropped = "crash/<wbr>tmo/<wbr>err"  # may wrap on a phone, leaving the names room
    head = ["#", "bot", "μ", "σ", "95% interval", "μ-3σ", "games", "win", "pts/rd", dropped]
    return table(head, rows, wide=frozenset({3, 4, 8}), text=frozenset({1}), cls="board")


STATES = {"regular": "regular season", "final": "the final", "over": "over"}


def season_section(report: SeasonReport) -> str:
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
    parts = ['<section class="season"><h2>Season</h2><ul>']
    parts += [f"<li>{esc(label)}: <strong>{esc(value)}</strong></li>" for label, value in items]
    parts.append("</ul>")
    if report.order is not None:
        ranked = "".join(f"<li>{bot_link(bot)}</li>" for bot in report.order.bots)
        parts.append(f'<p>The final\'s order (its own matches alone):</p><ol class="final">{ranked}</ol>')
        line = format_order(report.order.progress)
        if line:
            parts.append(f'<p class="hint">{esc(line)}</p>')
    elif season.finalists is not None and len(season.finalists) < 2:
        parts.append('<p class="hint">No final: fewer than two bots were playing when the season ended.</p>')
    parts.append("</section>")
    return "".join(parts)


def duel_section(status: DuelStatus) -> str:
    """A duel's or gauntlet's test: per pairing its sets, mean, intervals, LLR and bounds."""
    sprt = status.duel.sprt
    rows = []
    for p in status.pairings:
        row = [esc(p.old), str(p.sets), number(p.estimate.mean, 2, sign=True) if p.sets else "-",
               interval(*p.interval), interval(*p.sequence)]  # fmt: skip
        if sprt is not None:
            llr = "-" if p.sprt is None else number(p.sprt.llr, 2, sign=True)
            row += [f"{llr} in [{sprt.lower:+.2f}, {sprt.upper:+.2f}]", esc(p.verdict or "-")]
        rows.append(row)
    head = ["against", "sets", "diff", "95% interval", "conf. sequence"] + (
        ["LLR in bounds", "verdict"] if sprt else []
    )
    kind = "Gauntlet" if status.duel.kind == "gauntlet" else "Duel"
    return (
        f'<section class="duel"><h2>{kind}: {bot_link(status.duel.new)} under test</h2>'
        + table(head, rows, wide=frozenset({3, 4}), text=frozenset({0, 6}), cls="duel")
        + f'<p class="hint">{esc(caption(status))}</p><p class="verdict">{esc(verdict_line(status))}</p></section>'
    )
