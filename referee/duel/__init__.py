"""Duels and gauntlets: "is my new version better?" answered on duplicate sets, sequentially.

``referee duel NEW OLD`` seats NEW and OLD at one table with fixed opponents and plays each
duplicate set in every seat rotation (``tables``), so that each set gives one paired difference
on the same cards: OLD's points minus NEW's, a match, averaged over the set (positive: NEW
better). The sets are scheduled one at a time while the sequential test (``--sprt``,
``referee.stats.sequential``) has not decided (``feed``), in a ladder database of their own
(``store``: the ladder's schema, each set's pair in its ``pairings`` table), played by the
ladder's runner (fresh bots, sandbox, concurrency, ``--cluster``), so a duel killed at any moment
resumes like a ladder. ``referee gauntlet NEW --pool CONFIG`` does the same against each bot of
a pool. ``status`` reads where a duel stands (the estimate, its intervals, the test's verdict,
the exit status), ``report`` shows it (text or JSON) and ``progress`` while it runs.
Documented in docs/testing-bots.md.
"""
