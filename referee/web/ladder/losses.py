"""A bot page's "where this bot loses points": the figures of its analysed matches
(``referee ladder analyze``, kept by ``referee.store.analysis``) summed over its latest
analysed seats: the mean loss per decision by phase with a 95% interval, its grades, its three
worst decisions with a link to each one's step of the replay, and the luck of its cards match
by match against what it lost on its play.

Shown to every viewer, the public included: each figure is computed from one seat's own
information in a match whose replay the public already sees whole (every hand, every card:
``referee.web.ladder.viewer``), and from nothing a bot wrote (no stderr, no fault message).
Every text goes through ``esc``."""

from __future__ import annotations

import math
from collections.abc import Sequence

from referee.store.analysis import SeatAnalysis, WorstDecision
from referee.web.ladder.markup import esc, number, table

Z95 = 1.96
PHASE_ORDER = ("pass", "lead", "follow", "discard", "declare")
GRADES = ("best", "good", "inaccuracy", "mistake", "blunder", "forced", "fallback")
LUCK_ROWS = 10
"""Matches listed in the luck table (the sums are over every analysed seat read)."""


def phase_means(analyses: Sequence[SeatAnalysis]) -> dict[str, tuple[int, float, float]]:
    """Per phase: decisions, the mean loss and the half-width of its 95% interval (over the
    decisions, each counted once)."""
    sums: dict[str, tuple[int, float, float]] = {}
    for a in analyses:
        for phase, (n, total, squares) in a.phases.items():
            had = sums.get(phase, (0, 0.0, 0.0))
            sums[phase] = (had[0] + n, had[1] + total, had[2] + squares)
    found = {}
    for phase, (n, total, squares) in sums.items():
        mean = total / n
        var = (squares - n * mean * mean) / (n - 1) if n > 1 else math.inf
        found[phase] = (int(n), mean, Z95 * math.sqrt(max(var, 0.0) / n))
    return found


def worst_three(analyses: Sequence[SeatAnalysis]) -> list[tuple[SeatAnalysis, WorstDecision]]:
    every = [(a, w) for a in analyses for w in a.worst]
    return sorted(every, key=lambda pair: (-pair[1].loss, pair[0].key, pair[1].round, pair[1].step))[:3]


def replay_href(key: str, w: WorstDecision) -> str:
    return esc(f"/match/{key}#round={w.round + 1}&step={w.step}")


def losses_section(analyses: Sequence[SeatAnalysis]) -> str:
    """The section's HTML (a hint when no match of the bot is analysed)."""
    if not analyses:
        return (
            '<p class="hint">None of its matches analysed yet (<code>referee ladder analyze --bot NAME</code> '
            "analyses them, beside the running ladder).</p>"
        )
    seats = len(analyses)
    valued = sum(a.valued for a in analyses)
    lost = sum(a.total_loss for a in analyses)
    head = (
        f"<p>Over its latest {seats} analysed seat{'s' if seats != 1 else ''}: {valued} decisions valued, "
        f"{number(lost / valued if valued else 0.0, 2)} points lost per decision against the best choice "
        f"({number(lost / seats, 1)} a match).</p>"
    )
    return "".join([head, _phases(analyses), _grades(analyses), _worst(analyses), _luck(analyses)])


def _phases(analyses: Sequence[SeatAnalysis]) -> str:
    means = phase_means(analyses)
    order = [p for p in PHASE_ORDER if p in means] + sorted(set(means) - set(PHASE_ORDER))
    rows = [[esc(p), str(means[p][0]), number(means[p][1], 2), "± " + number(means[p][2], 2)] for p in order]
    note = '<p class="hint">Mean points lost per decision, with its 95% interval over the decisions.</p>'
    return "<h3>Loss per decision, by phase</h3>" + table(["phase", "decisions", "mean loss", "95%"], rows) + note


def _grades(analyses: Sequence[SeatAnalysis]) -> str:
    counts = {g: sum(a.grades.get(g, 0) for a in analyses) for g in GRADES}
    items = ", ".join(f"{esc(g)} {n}" for g, n in counts.items())
    return f'<h3>Grades</h3><p class="grades">{items}</p>'


def _worst(analyses: Sequence[SeatAnalysis]) -> str:
    found = worst_three(analyses)
    if not found:
        return "<h3>Its worst decisions</h3><p>No decision graded an error.</p>"
    items = []
    for a, w in found:
        where = f"round {w.round + 1}" + (f", trick {w.trick + 1}" if w.trick is not None else "")
        items.append(
            f'<li><a href="{replay_href(a.key, w)}">match {esc(a.key)}, {esc(where)}</a>: '
            f"{esc(w.phase)}, played <b>{esc(w.chosen)}</b> where {esc(w.best)} was best: "
            f"{number(w.loss, 2)} points lost (95%: {number(w.low, 2)} to {number(w.high, 2)}), "
            f'<span class="verdict">{esc(w.verdict)}</span></li>'
        )
    return f'<h3>Its worst decisions</h3><ol class="worst">{"".join(items)}</ol>'


def _luck(analyses: Sequence[SeatAnalysis]) -> str:
    luck = sum(a.luck for a in analyses)
    half = math.sqrt(sum(a.luck_half**2 for a in analyses))
    lost = sum(a.total_loss for a in analyses)
    verdict = "the cards" if abs(luck) > lost else "the play"
    rows = [
        [f'<a href="/match/{esc(a.key)}">{esc(a.key)}</a>', number(a.luck, 1, sign=True), "± " + number(a.luck_half, 1),
         number(a.total_loss, 1), number(a.expected, 1), str(a.actual)]
        for a in analyses[:LUCK_ROWS]
    ]  # fmt: skip
    return (
        "<h3>Luck over its matches</h3>"
        f"<p>Luck {number(luck, 1, sign=True)} ± {number(half, 1)} points over these seats (positive: its cards were "
        f"better than the table's), {number(lost, 1)} points lost on its play: more was decided by {verdict}.</p>"
        + table(["match", "luck", "95%", "lost on play", "cards worth", "took"], rows, wide=frozenset({2, 4, 5}))
        + '<p class="hint">Points of the rounds analysed (lower is better for what it took and lost).</p>'
    )
