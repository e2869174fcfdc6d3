"""Reading a ladder back: the leaderboard (as a rich table, JSON or CSV) and how sure the
ladder is that one bot is stronger than another."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from rich import box
from rich.table import Table
from rich.text import Text

from referee.errors import LadderError
from referee.stats.betting import rules_bound
from referee.stats.estimate import Estimate
from referee.stats.evidence import Evidence, more_sets_needed, sequence_alpha, sequence_sets_to_decide, weigh
from referee.stats.projection import Projection, projection
from referee.stats.ratings import INITIAL, Rating, predict_win, skill_above
from referee.stats.sequential import MIN_SETS
from referee.stats.signs import SignTest
from referee.store.duplicates import complete_sets, pair_differences
from referee.store.reader import LadderReader
from referee.store.records import BotFigures, BotVersion, ResultModes
from referee.store.writer import LadderStore

LEVEL = 0.95
"""The confidence level of the intervals shown, and of the verdict."""
SEQUENCE_LEVEL = 1 - sequence_alpha(1 - LEVEL)
"""The confidence sequence's level: its share of the verdict's 5% (the sign test has the rest)."""


@dataclass(frozen=True)
class Standing:
    """One row of the leaderboard."""

    rank: int
    bot: str
    mu: float
    sigma: float
    ordinal: float
    """``mu - 3 sigma``: the leaderboard is sorted by it."""
    matches: int
    win_rate: float
    """Wins per match; a win shared by k tied winners counts 1/k."""
    points_per_round: float
    """Match points per round played (lower is better)."""
    moons: int
    crashes: int
    timeouts: int
    errors: int
    """Drops for any other fault (bad JSON, illegal move, protocol violation, ...)."""
    sandboxed: int = 0
    """Of its matches, those played with the bots in the sandbox."""
    fresh_bots: int = 0
    """Of its matches, those played with freshly started bot processes (not ``--keep-bots``)."""
    entrant: str = ""
    """The bot list's name of this version's entrant (``referee.ladder.pool``)."""
    version: int = 1
    replaces: str | None = None
    """The version this one replaced, for a version after the first."""
    retired: bool = False
    """Left the schedule (removed from the bot list, or replaced): its rows stay, shown."""


def standings(store: LadderReader) -> list[Standing]:
    """The leaderboard, best conservative rating first (ties by name): every version, the
    retired ones marked."""
    ratings = store.ratings()
    versions = {v.name: v for v in store.versions()}
    rows = [standing(f, ratings.get(bot, INITIAL), versions[bot]) for bot, f in store.figures().items()]
    rows.sort(key=lambda s: _rank(s.bot, s.ordinal))
    return [Standing(**{**asdict(s), "rank": i}) for i, s in enumerate(rows, 1)]


def standing(f: BotFigures, r: Rating, v: BotVersion, rank: int = 0) -> Standing:
    """One bot's row of the leaderboard from its totals, its rating and its version."""
    return Standing(
        rank=rank,
        bot=f.bot,
        mu=r.mu,
        sigma=r.sigma,
        ordinal=r.ordinal,
        matches=f.matches,
        win_rate=f.wins / f.matches if f.matches else 0.0,
        points_per_round=f.score / f.rounds if f.rounds else 0.0,
        moons=f.moons,
        crashes=f.crashes,
        timeouts=f.timeouts,
        errors=f.errors,
        sandboxed=f.sandboxed,
        fresh_bots=f.fresh_bots,
        entrant=v.entrant,
        version=v.version,
        replaces=v.replaces,
        retired=not v.active,
    )


def standings_table(rows: Sequence[Standing], title: str | None = None) -> Table:
    """The leaderboard for a terminal. The figures keep their full width; a bot's name gets
    the rest of the line, whole when it fits, else folded onto a second line (never cut)."""
    # names and titles are plain text: a bot called "[/]" or "[red]x" is shown, never parsed as markup
    table = Table(title=Text(title) if title else None, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    cells = [
        [
            f"{s.mu:.1f}",
            f"{s.sigma:.2f}",
            f"{s.ordinal:.1f}",
            str(s.matches),
            f"{s.win_rate:.0%}",
            f"{s.points_per_round:.2f}",
            str(s.moons),
            f"{s.crashes}/{s.timeouts}/{s.errors}",
        ]
        for s in rows
    ]
    table.add_column("#", justify="right", no_wrap=True, min_width=max((len(str(s.rank)) for s in rows), default=1))
    table.add_column("bot", min_width=min(12, max((len(s.bot) for s in rows), default=3)), overflow="fold")
    headers = ("μ", "σ", "μ-3σ", "games", "win", "pts/rd", "moons", "crash/tmo/err")
    for i, header in enumerate(headers):
        width = max([len(header), *(len(row[i]) for row in cells)])
        table.add_column(header, justify="right", no_wrap=True, min_width=width)
    for s, row in zip(rows, cells, strict=True):
        table.add_row(str(s.rank), _bot_cell(s), *row)
    return table


def _bot_cell(s: Standing) -> Text:
    """A version's name, dimmed and marked when it is retired; a later version says which it
    replaced."""
    cell = Text(s.bot, style="dim" if s.retired else "")
    if s.replaces is not None:
        cell.append(f" (after {s.replaces})", style="dim")
    if s.retired:
        cell.append(" retired", style="dim italic")
    return cell


def format_modes(modes: ResultModes) -> str:
    """One line on how the results were produced, with a warning when some came from bots
    that were not sandboxed or were kept alive across the rotations of a set."""
    n = modes.matches
    if n == 0:
        return "results: none yet"
    plural = "es" if n != 1 else ""
    if modes.all_safe:
        return f"results: {n} match{plural} sandboxed with fresh bots"
    parts = [f"{modes.sandboxed} sandboxed", f"{modes.unsandboxed} NOT sandboxed"]
    parts += [f"{modes.fresh_bots} with fresh bots", f"{modes.kept_bots} with bots kept across matches (--keep-bots)"]
    if modes.unknown:
        parts.append(f"{modes.unknown} from before the mode was recorded")
    shown = ", ".join(p for p in parts if not p.startswith("0 "))
    line = f"results: {n} match{plural}: {shown}"
    if modes.unsandboxed or modes.kept_bots or modes.unknown:
        line += "\nwarning: not every result comes from sandboxed, freshly started bots (trust only trusted bots)"
    return line


def standings_json(rows: Sequence[Standing]) -> str:
    return json.dumps([asdict(s) for s in rows], indent=2)


def standings_csv(rows: Sequence[Standing]) -> str:
    out = io.StringIO()
    fields = list(Standing.__dataclass_fields__)
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for s in rows:
        writer.writerow(asdict(s))
    return out.getvalue()


@dataclass(frozen=True)
class Comparison:
    """How sure the ladder is that bot ``a`` is stronger than bot ``b``."""

    a: str
    b: str
    difference: Estimate
    """Per duplicate set both played (all rotations done): b's mean final score minus a's,
    averaged over the set's rotations. Positive: a took fewer points than b on the same cards."""
    low: float
    high: float
    """The ``LEVEL`` confidence interval of the mean difference (Student's t): the estimate at
    this number of sets, valid for one look decided in advance, not for stopping on."""
    sequence_low: float
    sequence_high: float
    """The anytime-valid confidence sequence of the mean difference at ``SEQUENCE_LEVEL``
    (:func:`referee.stats.sequential.confidence_sequence`): it holds at every number of sets
    at once, so stopping when it excludes zero keeps the error rate under repeated looks.
    Infinite below ``MIN_SETS`` sets."""
    signs: SignTest
    """The sign test (sets won by a, by b, tied), the verdict's other anytime-valid test."""
    p_stronger: float
    """The probability that a's true mean difference is above zero (t distribution)."""
    predicted_win: float
    """OpenSkill's probability that a finishes ahead of b in a match."""
    skill_above: float
    """The probability that a's rated skill is above b's (from mu and sigma)."""
    more_sets: int | None
    """About how many more complete sets with both would decide it at the current figures, by
    the sooner of the two tests (:func:`referee.stats.evidence.more_sets_needed`): ``0`` when
    it is decided, ``None`` when no difference is seen or nothing is known."""
    share: float | None = None
    """The share of the ladder's complete sets that seat both (``None`` before any is
    complete): how often the schedule brings them together."""

    @property
    def evidence(self) -> Evidence:
        return Evidence(self.difference, self.sequence_low, self.sequence_high, self.signs, 1 - LEVEL)

    @property
    def decided(self) -> bool:
        """Whether the confidence sequence or the sign test says which is stronger: safe to stop
        on, however often the comparison was looked at before."""
        return self.evidence.decided

    @property
    def ladder_sets(self) -> int | None:
        """``more_sets`` in ladder sets, at the share of sets that seat both."""
        return ladder_sets(self.more_sets, self.share)


def ladder_sets(more_sets: int | None, share: float | None) -> int | None:
    """Sets with a pair in ladder sets: ``more_sets / share``, rounded up; ``None`` when either
    is unknown or the pair never meets."""
    if more_sets is None or not share:
        return None
    return math.ceil(more_sets / share - 1e-9)


def set_differences(store: LadderReader, a: str, b: str) -> list[float]:
    """One number per complete duplicate set with both bots, in set order: b's final score
    minus a's (each averaged over its seats if it held several), averaged over the set's
    rotations. Positive: a took fewer points than b on the same cards."""
    return pair_differences(store, [(a, b)])[(a, b)]


def ranking(store: LadderReader) -> list[str]:
    """The bots in the leaderboard's order (:func:`standings`'), from the ratings alone: for
    the order of the top N, which does not need the figures (the slow part of the table)."""
    ratings = store.ratings()
    return sorted((name for name, _ in store.bots()), key=lambda bot: _rank(bot, ratings.get(bot, INITIAL).ordinal))


def _rank(bot: str, ordinal: float) -> tuple[float, str]:
    """The leaderboard's order: best conservative rating first, ties by name."""
    return (-ordinal, bot)


def compare(store: LadderStore, a: str, b: str) -> Comparison:
    """Compare two bots of the ladder from their duplicate results and their ratings."""
    ratings = store.ratings()
    for name in (a, b):
        if name not in ratings:
            raise LadderError(f"no bot named {name!r} in this ladder (bots: {', '.join(sorted(ratings))})")
    if a == b:
        raise LadderError("compare two different bots")
    differences = set_differences(store, a, b)
    evidence = weigh(differences, 1 - LEVEL, rules_bound(store.settings().rules))
    low, high = evidence.difference.interval(LEVEL)
    complete = complete_sets(store)
    return Comparison(
        a=a,
        b=b,
        difference=evidence.difference,
        low=low,
        high=high,
        sequence_low=evidence.sequence_low,
        sequence_high=evidence.sequence_high,
        signs=evidence.signs,
        p_stronger=evidence.difference.probability_positive(),
        predicted_win=predict_win(ratings[a], ratings[b]),
        skill_above=skill_above(ratings[a], ratings[b]),
        more_sets=more_sets_needed(evidence),
        share=len(differences) / complete if complete else None,
    )


def sets_to_decide(found: Estimate, level: float = LEVEL) -> int:
    """The smallest number of sets in all (more than now, and at least ``MIN_SETS``) whose
    confidence sequence, at its share of ``1 - level`` (the sign test has the rest), would
    exclude zero if the mean and the spread stayed as they are."""
    return sequence_sets_to_decide(found, sequence_alpha(1 - level))


ANYTIME = "anytime-valid: safe to check as often as you like"


def format_comparison(c: Comparison) -> str:
    d = c.difference
    lines = [f"{c.a} vs {c.b}"]
    if d.n == 0:
        lines.append("  duplicate sets with both: none complete yet")
    else:
        lines.append(
            f"  duplicate sets with both: {d.n}; {c.b}'s score minus {c.a}'s, per match on the same cards:"
            f" mean {d.mean:+.2f}, standard error {d.se:.2f}"
        )
        if d.n >= 2:
            lines.append(f"  {LEVEL:.0%} confidence interval: [{c.low:+.2f}, {c.high:+.2f}]")
        if d.n >= MIN_SETS:
            lines.append(
                f"  {SEQUENCE_LEVEL:.1%} confidence sequence: [{c.sequence_low:+.2f}, {c.sequence_high:+.2f}]"
                f" ({ANYTIME})"
            )
        lines.append(_signs_line(c))
        lines.append(f"  probability that {c.a} is stronger (fewer points on the same cards): {_percent(c.p_stronger)}")
    lines.append(f"  OpenSkill: {c.a} finishes ahead of {c.b} with probability {_percent(c.predicted_win)};")
    lines.append(f"  P(skill {c.a} > skill {c.b}) = {_percent(c.skill_above)}")
    lines.append(f"verdict: {_verdict(c)}")
    return "\n".join(lines)


def _signs_line(c: Comparison) -> str:
    s = c.signs
    wealth = f"{s.wealth:.3g}" if s.wealth < 1e6 else ">1e6"
    return (
        f"  sets won: {c.a} {s.wins}, {c.b} {s.losses}, tied {s.ties}; sign test: wealth {wealth}"
        f" (decides at {1 / s.alpha:g}; {ANYTIME})"
    )


def _verdict(c: Comparison) -> str:
    """Stop only on an anytime-valid test (the confidence sequence or the sign test): the
    fixed-sample interval, looked at after every set, excludes zero by chance far more often
    than 5% of the time (docs/testing-bots.md)."""
    evidence = c.evidence
    if evidence.decided:
        better, worse = (c.a, c.b) if evidence.direction > 0 else (c.b, c.a)
        return f"{better} is stronger than {worse} ({LEVEL:.0%}, {ANYTIME}; {evidence.by}): you can stop"
    if c.difference.n < 2:
        return "not enough duplicate sets yet to tell (at least 2 complete sets with both are needed)"
    if evidence.sequence_direction * evidence.signs.direction < 0:
        return "not sure: the confidence sequence and the sign test point opposite ways (a skewed spread); play on"
    told = projection(evidence)
    if told.waiting and told.low is None:
        return f"not sure yet: {told.words()}; play on"
    if told.low is not None:
        return f"not sure yet: {told_line(told, c.share)} would settle it, by the spread of the difference so far"
    return "no difference seen"


def told_line(told: Projection, share: float | None) -> str:
    """The projection's words (:mod:`referee.stats.projection`), and what it is in ladder sets
    when not every set seats the pair."""
    line = told.words()
    low = ladder_sets(told.low, share)
    if share is not None and share < 1 and low is not None:
        high = ladder_sets(told.high, share)
        span = f"at least {low}" if high is None else f"{low}" if high == low else f"{low} to {high}"
        line += f" ({span} ladder sets: {share:.0%} of the sets seat both)"
    return line


def _percent(p: float) -> str:
    """A probability as a percentage that never rounds to a certainty."""
    if p > 0.999:
        return ">99.9%"
    if p < 0.001:
        return "<0.1%"
    return f"{p:.1%}"
