"""A picture of the ladder: each bot's rating (mu) with a band of one sigma either side, over
the matches rated so far (the point at x = k is the rating after the k-th match rated). Drawn
with matplotlib's Agg canvas, never a window."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from referee.errors import LadderError
from referee.stats.ratings import INITIAL
from referee.store.writer import LadderStore

FORMATS = (".svg", ".png", ".pdf")


def plot_ratings(store: LadderStore, out: str | Path) -> Path:
    """Write the picture to ``out`` (the format follows its suffix) and return the path."""
    path = Path(out)
    if path.suffix.lower() not in FORMATS:
        raise LadderError(f"{path}: the picture must end in {', '.join(FORMATS)}")
    history = store.history()
    if not history:
        raise LadderError("no match has been rated yet: nothing to draw")
    last = history[-1][0]
    series: dict[str, list[tuple[int, float, float]]] = {b: [(0, INITIAL.mu, INITIAL.sigma)] for b, _ in store.bots()}
    for seq, bot, mu, sigma in history:
        series.setdefault(bot, [(0, INITIAL.mu, INITIAL.sigma)]).append((seq, mu, sigma))
    ratings = store.ratings()
    order = sorted(series, key=lambda b: -ratings[b].ordinal if b in ratings else 0.0)

    figure = Figure(figsize=(10, 6), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    for bot in order:
        points = [*series[bot], (last, series[bot][-1][1], series[bot][-1][2])]
        xs = [p[0] for p in points]
        mus = [p[1] for p in points]
        lows = [p[1] - p[2] for p in points]
        highs = [p[1] + p[2] for p in points]
        (line,) = axes.plot(xs, mus, label=f"{bot} ({mus[-1]:.1f} ± {points[-1][2]:.1f})")
        axes.fill_between(xs, lows, highs, alpha=0.18, color=line.get_color(), linewidth=0)
    axes.set_xlabel("matches rated")
    axes.set_ylabel("OpenSkill rating μ (band: μ ± σ)")
    axes.set_title(f"{store.settings().rules.name} ladder: {last} matches")
    axes.set_xlim(0, max(last, 1))
    axes.grid(alpha=0.3)
    axes.legend(loc="best", fontsize="small")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    return path
