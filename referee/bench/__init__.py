"""``referee bench``: the rules engine, the referee's cost per decision, hostile lines, and the
sandbox's start-up cost. Figures live in ``docs/performance.md``."""
