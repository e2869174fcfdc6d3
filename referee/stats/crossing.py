"""Where a projection crosses its line: the fewest sets after which a test would decide.

Every "how many more sets" of the ladder and the duel asks the same of a function of the
number of sets that is false and then true for good (a log-wealth that is convex and below its
threshold now, a confidence radius that only shrinks): double until it holds, then bisect
between the last miss and the first hit. Written once here; the tests' figures are theirs."""

from __future__ import annotations

from collections.abc import Callable


def first_reached(reached: Callable[[int], bool], start: int, beyond: int) -> int | None:
    """The least ``n >= start`` (``start`` at least 1) for which ``reached(n)`` holds, given
    that once it holds it holds for every larger ``n``; ``None`` when it still fails at a
    doubling that has come to ``beyond`` or past it."""
    low, high = start - 1, start
    while not reached(high):
        if high >= beyond:
            return None
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if reached(middle):
            high = middle
        else:
            low = middle
    return high
