"""A bot's rating over time as an inline SVG: μ as a line and μ ± σ as a band, one colour per
version of the entrant, over the matches rated. Drawn with SVG attributes only (no inline
style, which the pages' Content-Security-Policy forbids); labels are escaped text."""

from __future__ import annotations

from referee.web.ladder.markup import esc

WIDTH, HEIGHT, PAD = 560, 240, 30
COLOURS = ("#0969da", "#bf3989", "#1a7f37", "#bc4c00", "#8250df", "#57606a")


def rating_chart(history: dict[str, list[tuple[int, float, float]]]) -> str:
    """The chart, or a line saying there is nothing to draw yet."""
    points = [p for series in history.values() for p in series]
    if not points:
        return '<p class="hint">No match rated yet.</p>'
    first, last = min(p[0] for p in points), max(p[0] for p in points)
    low = min(p[1] - p[2] for p in points)
    high = max(p[1] + p[2] for p in points)
    span_x, span_y = max(last - first, 1), max(high - low, 1e-9)

    def x(seq: int) -> float:
        return PAD + (WIDTH - 2 * PAD) * (seq - first) / span_x

    def y(value: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * (value - low) / span_y

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="rating over the matches rated">',
        f'<text x="{PAD}" y="14" font-size="13">μ {high:.1f}</text>',
        f'<text x="{PAD}" y="{HEIGHT - 6}" font-size="13">μ {low:.1f} · match {first}</text>',
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 6}" font-size="13" text-anchor="end">match {last}</text>',
    ]
    for index, (name, series) in enumerate(history.items()):
        if not series:
            continue
        colour = COLOURS[index % len(COLOURS)]
        top = " ".join(f"{x(s):.1f},{y(m + d):.1f}" for s, m, d in series)
        bottom = " ".join(f"{x(s):.1f},{y(m - d):.1f}" for s, m, d in reversed(series))
        line = " ".join(f"{x(s):.1f},{y(m):.1f}" for s, m, _ in series)
        parts.append(f'<polygon points="{top} {bottom}" fill="{colour}" fill-opacity="0.15"/>')
        label = esc(name)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"><title>{label}</title>')
        parts.append("</polyline>")
        end_s, end_m, _ = series[-1]
        at = f'x="{x(end_s):.1f}" y="{y(end_m) - 6:.1f}"'
        parts.append(f'<text {at} font-size="13" text-anchor="end" fill="{colour}">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)
