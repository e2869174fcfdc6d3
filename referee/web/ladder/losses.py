"""A bot page's "where this bot loses points": the figures of its analysed matches
(``referee ladder analyze``, kept by ``referee.store.analysis``) summed over its latest
analysed seats: the mean loss per decision by phase with a 95% interval, its grades, its three
worst decisions with a link to each one's step of the replay, and the luck of its cards match
by match against what it lost on its play.

Shown to every viewer, the public included: each figure is computed from one seat's own
information in a match whose replay the public already sees whole (every hand, every card:
``referee.web.ladder.viewer``), and from nothing a bot wrote (no stderr, no fault message).
Rendered from ``losses.html``, which escapes every text."""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup

from referee.store.analysis import SeatAnalysis, WorstDecision
from referee.web.ladder.markup import render

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


def losses_section(analyses: Sequence[SeatAnalysis]) -> Markup:
    """The section's HTML (a hint when no match of the bot is analysed)."""
    means = phase_means(analyses)
    order = [p for p in PHASE_ORDER if p in means] + sorted(set(means) - set(PHASE_ORDER))
    return render(
        "losses.html",
        analyses=analyses,
        seats=len(analyses),
        valued=sum(a.valued for a in analyses),
        lost=sum(a.total_loss for a in analyses),
        phases=[(p, *means[p]) for p in order],
        grades=[(g, sum(a.grades.get(g, 0) for a in analyses)) for g in GRADES],
        worst=worst_three(analyses),
        luck=sum(a.luck for a in analyses),
        half=math.sqrt(sum(a.luck_half**2 for a in analyses)),
        luck_rows=analyses[:LUCK_ROWS],
    )
