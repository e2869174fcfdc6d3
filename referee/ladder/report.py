"""Reading a ladder back: the leaderboard (as a rich table, JSON or CSV) and how sure the
ladder is that one bot is stronger than another."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from rich import box
from rich.table import Table
from rich.text import Text

from referee.ladder.errors import LadderError
from referee.ladder.ratings import INITIAL, predict_win, skill_above
from referee.ladder.records import ResultModes
from referee.ladder.sequential import MIN_SETS, confidence_radius, confidence_sequence
from referee.ladder.stats import Estimate, estimate
from referee.ladder.store import LadderStore

LEVEL = 0.95
"""The confidence level of the intervals shown."""


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


def standings(store: LadderStore) -> list[Standing]:
    """The leaderboard, best conservative rating first (ties by name): every version, the
    retired ones marked."""
    ratings = store.ratings()
    versions = {v.name: v for v in store.versions()}
    rows = []
    for bot, f in store.figures().items():
        r = ratings.get(bot, INITIAL)
        v = versions[bot]
        rows.append(
            Standing(
                rank=0,
                bot=bot,
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
        )
    rows.sort(key=lambda s: (-s.ordinal, s.bot))
    return [Standing(**{**asdict(s), "rank": i}) for i, s in enumerate(rows, 1)]


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
    """The ``LEVEL`` anytime-valid confidence sequence of the mean difference
    (:func:`referee.ladder.sequential.confidence_sequence`): it holds at every number of sets
    at once, so stopping when it excludes zero keeps the error rate under repeated looks.
    Infinite below ``MIN_SETS`` sets."""
    p_stronger: float
    """The probability that a's true mean difference is above zero (t distribution)."""
    predicted_win: float
    """OpenSkill's probability that a finishes ahead of b in a match."""
    skill_above: float
    """The probability that a's rated skill is above b's (from mu and sigma)."""
    sets_needed: int | None
    """About how many complete sets with both would make the confidence sequence exclude zero
    at the current mean and spread (``None`` when it already does, or when nothing is known)."""

    @property
    def decided(self) -> bool:
        """Whether the anytime-valid interval excludes zero: safe to stop on, however often
        the comparison was looked at before."""
        return self.sequence_low > 0 or self.sequence_high < 0


def set_differences(store: LadderStore, a: str, b: str) -> list[float]:
    """One number per complete duplicate set with both bots, in set order: b's final score
    minus a's (each averaged over its seats if it held several), averaged over the set's
    rotations. Positive: a took fewer points than b on the same cards."""
    differences = []
    for matches in store.set_scores([a, b]).values():
        per_match = []
        for seats in matches:
            a_scores = [score for bot, score in seats if bot == a]
            b_scores = [score for bot, score in seats if bot == b]
            if a_scores and b_scores:
                per_match.append(sum(b_scores) / len(b_scores) - sum(a_scores) / len(a_scores))
        if per_match:
            differences.append(sum(per_match) / len(per_match))
    return differences


def compare(store: LadderStore, a: str, b: str) -> Comparison:
    """Compare two bots of the ladder from their duplicate results and their ratings."""
    ratings = store.ratings()
    for name in (a, b):
        if name not in ratings:
            raise LadderError(f"no bot named {name!r} in this ladder (bots: {', '.join(sorted(ratings))})")
    if a == b:
        raise LadderError("compare two different bots")
    differences = set_differences(store, a, b)
    found = estimate(differences)
    low, high = found.interval(LEVEL)
    sequence_low, sequence_high = confidence_sequence(differences, 1 - LEVEL)
    needed: int | None = None
    if found.n >= 2 and not (sequence_low > 0 or sequence_high < 0) and found.mean != 0:
        needed = sets_to_decide(found)
    return Comparison(
        a=a,
        b=b,
        difference=found,
        low=low,
        high=high,
        sequence_low=sequence_low,
        sequence_high=sequence_high,
        p_stronger=found.probability_positive(),
        predicted_win=predict_win(ratings[a], ratings[b]),
        skill_above=skill_above(ratings[a], ratings[b]),
        sets_needed=needed,
    )


def sets_to_decide(found: Estimate, level: float = LEVEL) -> int:
    """The smallest number of sets (more than now, and at least ``MIN_SETS``) whose confidence
    sequence would exclude zero if the mean and the spread stayed as they are: its radius
    shrinks as the sets grow, so a bisection finds it."""
    low = max(found.n + 1, MIN_SETS)
    if found.sd == 0 or abs(found.mean) > found.sd * confidence_radius(low, 1 - level):
        return low
    high = low
    while abs(found.mean) <= found.sd * confidence_radius(high, 1 - level):
        low, high = high, high * 2
    while high - low > 1:  # radius(low) is too wide, radius(high) narrow enough
        middle = (low + high) // 2
        if abs(found.mean) > found.sd * confidence_radius(middle, 1 - level):
            high = middle
        else:
            low = middle
    return high


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
                f"  {LEVEL:.0%} confidence sequence: [{c.sequence_low:+.2f}, {c.sequence_high:+.2f}] ({ANYTIME})"
            )
        lines.append(f"  probability that {c.a} is stronger (fewer points on the same cards): {_percent(c.p_stronger)}")
    lines.append(f"  OpenSkill: {c.a} finishes ahead of {c.b} with probability {_percent(c.predicted_win)};")
    lines.append(f"  P(skill {c.a} > skill {c.b}) = {_percent(c.skill_above)}")
    lines.append(f"verdict: {_verdict(c)}")
    return "\n".join(lines)


def _verdict(c: Comparison) -> str:
    """Stop only on the confidence sequence: the fixed-sample interval, looked at after every
    set, excludes zero by chance far more often than 5% of the time (docs/testing-bots.md)."""
    if c.difference.n < 2:
        return "not enough duplicate sets yet to tell (at least 2 complete sets with both are needed)"
    if c.decided:
        better, worse = (c.a, c.b) if c.sequence_low > 0 else (c.b, c.a)
        return f"{better} is stronger than {worse} ({LEVEL:.0%}, {ANYTIME}): you can stop"
    if c.sets_needed is not None:
        return f"not sure yet: about {c.sets_needed} complete sets with both would settle it at this difference"
    return "no difference seen"


def _percent(p: float) -> str:
    """A probability as a percentage that never rounds to a certainty."""
    if p > 0.999:
        return ">99.9%"
    if p < 0.001:
        return "<0.1%"
    return f"{p:.1%}"
