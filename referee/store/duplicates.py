"""The duplicate sets counted and compared, for many pairs of bots from one query: what
``ladder compare`` judges one pair on, the order of the top N judges each pair of neighbours
on, and the duel's test reads its sets through (``referee.store.duels``).

A set counts once all its rotations are done (``referee.store.reader.complete``). Per rotation,
each bot's score is the mean over the seats it held; a pair's difference in a set is B's score
minus A's, averaged over the set's rotations (positive: A took fewer points on the same cards).
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.store.reader import LadderReader, complete

STAGE = "SELECT set_index FROM sets WHERE stage = ?"
"""The sets of one stage of a season (``final``: the final's, judged on their own)."""


def sets_drawn(store: LadderReader) -> int:
    """How many sets the ladder has drawn, of every stage (a set taken out by a change of the
    pool is not counted): a ladder's feed draws until there are ``games``."""
    (drawn,) = store.db.execute("SELECT COUNT(*) FROM sets").fetchone()
    return int(drawn)


def complete_sets(store: LadderReader, stage: str | None = None) -> int:
    """How many of the ladder's duplicate sets are complete (of one ``stage``, when given): the
    denominator of the share of sets that seat a pair."""
    where, args = (f"WHERE set_index IN ({STAGE})", [stage]) if stage is not None else ("", [])
    return int(store.db.execute(f"SELECT COUNT(*) FROM ({complete()}) {where}", args).fetchone()[0])


def per_match(pairs: str, keep: str = "", match: str = "") -> str:
    """The one definition of a pair's difference in a match, as the body of a SQL common table
    expression: for each row ``(a, b[, keep])`` of the table ``pairs`` and each match that seats
    both, ``b``'s score minus ``a``'s, each the mean over the seats it held (positive: ``a``
    took fewer points on the same cards). The ladder's compare, the order of its top N and the
    duel's test all read their set differences through it. ``keep``: one more column of
    ``pairs`` to carry along (the duel's set); ``match``: a column of ``pairs`` naming the one
    match of the row (the duel's pairs hold for one set's matches: without it each pair would be
    joined to every match of both bots, a cost that grows with the square of the sets)."""
    extra = f", p.{keep}" if keep else ""
    # with the match known, the match's seats are found by its key; ``+`` keeps SQLite from
    # reading every seat of the bot through its index instead
    seat, other = (f"ra.match = p.{match} AND +ra.bot = p.a", "+rb.bot") if match else ("ra.bot = p.a", "rb.bot")
    return f"""
        SELECT p.a, p.b{extra}, ra.match, AVG(rb.score) - AVG(ra.score) AS difference
        FROM {pairs} p
        JOIN results ra ON {seat}
        JOIN results rb ON rb.match = ra.match AND {other} = p.b
        GROUP BY p.a, p.b{extra}, ra.match"""


def pair_differences(
    store: LadderReader, pairs: Sequence[tuple[str, str]], stage: str | None = None
) -> dict[tuple[str, str], list[float]]:
    """For each pair ``(a, b)``, one number per complete set that seats both, in set order: b's
    score minus a's (each the mean over its seats), averaged over the set's rotations. Positive:
    a took fewer points on the same cards. ``stage``: of that stage's sets only (the final's
    order is judged on the final's sets alone).

    One query for all the pairs, which pairs the seats and averages in SQLite: only a row per
    pair and set comes back. On a ladder of 10,000 matches it answers in a few milliseconds
    (docs/performance.md)."""
    found: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    if not found:
        return found
    values = ",".join("(?, ?)" for _ in found)
    where, args = (f"AND m.set_index IN ({STAGE})", [stage]) if stage is not None else ("", [])
    rows = store.db.execute(
        f"""
        WITH pair(a, b) AS (VALUES {values}),
        per_match AS ({per_match("pair")})
        SELECT a, b, m.set_index, AVG(difference)
        FROM per_match JOIN matches m ON m.id = per_match.match
        WHERE m.set_index IN ({complete()}) {where}
        GROUP BY a, b, m.set_index ORDER BY a, b, m.set_index
        """,
        [*(name for pair in found for name in pair), *args],
    )
    for a, b, _, difference in rows:
        found[(a, b)].append(float(difference))
    return found
