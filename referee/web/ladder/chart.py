"""A bot's rating over time as an inline SVG (``chart.html``): μ as a line and μ ± σ as a band,
one colour per version of the entrant, over the matches rated. Drawn with SVG attributes only
(no inline style, which the pages' Content-Security-Policy forbids). Its points are computed
here, as text of figures alone; the labels (the versions' names) are escaped by the template."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from referee.web.ladder.markup import render

WIDTH, HEIGHT, PAD = 560, 240, 30
COLOURS = ("#0969da", "#bf3989", "#1a7f37", "#bc4c00", "#8250df", "#57606a")


@dataclass(frozen=True)
class Series:
    """One version's band and line as SVG points (``"x,y x,y ..."``), its colour, its name and
    where its label goes."""

    name: str
    colour: str
    band: str
    line: str
    x: str
    y: str


def rating_chart(history: dict[str, list[tuple[int, float, float]]]) -> Markup:
    """The chart, or a line saying there is nothing to draw yet."""
    points = [p for series in history.values() for p in series]
    if not points:
        return render("chart.html", series=[])
    first, last = min(p[0] for p in points), max(p[0] for p in points)
    low = min(p[1] - p[2] for p in points)
    high = max(p[1] + p[2] for p in points)
    span_x, span_y = max(last - first, 1), max(high - low, 1e-9)

    def x(seq: int) -> float:
        return PAD + (WIDTH - 2 * PAD) * (seq - first) / span_x

    def y(value: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * (value - low) / span_y

    drawn = []
    for index, (name, series) in enumerate(history.items()):
        if not series:
            continue
        top = " ".join(f"{x(s):.1f},{y(m + d):.1f}" for s, m, d in series)
        bottom = " ".join(f"{x(s):.1f},{y(m - d):.1f}" for s, m, d in reversed(series))
        line = " ".join(f"{x(s):.1f},{y(m):.1f}" for s, m, _ in series)
        end_s, end_m, _ = series[-1]
        colour = COLOURS[index % len(COLOURS)]
        drawn.append(Series(name, colour, f"{top} {bottom}", line, f"{x(end_s):.1f}", f"{y(end_m) - 6:.1f}"))
    return render("chart.html", width=WIDTH, height=HEIGHT, pad=PAD, high=f"{high:.1f}", low=f"{low:.1f}",
                  first=first, last=last, series=drawn)  # fmt: skip
