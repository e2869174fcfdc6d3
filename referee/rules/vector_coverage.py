"""What the vectors prove: each rule turned off (or changed) in the engine, the vectors made
again, and the lines that change counted.

An engine that lacks a rule passes every vector whose lines the rule never changes: with no
seat ever void on the first trick, an engine without "no points on the first trick" agreed with
all of them. So every option of a preset's rule set (docs/rules.md) is changed here, one at a
time (a flag turned off or on, another value of a choice, each pass direction of the schedule
replaced, each scoring card made worth nothing, a declaration or the moon worth something
else), the preset's vectors are played again by the same policy with the same seeds, and the
lines are compared with the rule set itself left out (it is in the header and in
``match_start``, and says nothing of the play). A change that moves no line is a rule the
vectors do not show; ``tests/rules/test_vector_coverage.py`` allows none but those listed in
``UNREACHABLE`` with the reason, and docs/vectors.md's coverage table is made here
(``coverage_table``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import Any, Final, get_args

import msgspec

from protocol.messages import MatchStart
from protocol.ruleset import HeartsLead, IdenticalCards, MoonRule, OpeningLead, PassDirection, RuleSet
from referee.rules.deck import deck_for
from referee.rules.errors import RulesError
from referee.rules.presets import ruleset
from referee.rules.vectors import GAMES, Game, Header, Line, Told, match_lines

UNREACHABLE: Final[dict[str, str]] = {
    "round_limit": (
        "a safety net of 500 deals for rule sets of one's own; a preset's match ends by its own rule long before"
        " (an American deal without a moon gives out 26 points: 16 of them take a seat past the target of 100)"
    ),
}
"""Options no vector can show, and why."""

GAPS: Final[dict[tuple[str, str], str]] = {}
"""Changes a preset's vectors do not show yet, and why: an engine lacking these passes them.
None now: the last ones (Dutch's finish and tie break, the double deck's across and hold, its
and Argentine's moon, Black Maria's first trick) are shown by matches started in phase 2 near
zero, rounds cut short after a trick, and seeds searched beyond 60 (``GAMES``)."""


class Mutant(msgspec.Struct, frozen=True):
    option: str
    """The rule set's field changed."""
    change: str
    """What was changed, in a few words (``first_trick_no_points: off``)."""
    rules: RuleSet


def _choices(field: str, value: object, options: tuple[object, ...]) -> Iterator[tuple[str, dict[str, Any]]]:
    for other in options:
        if other != value:
            yield f"{field}: {other}", {field: other}


def _changes(rules: RuleSet) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every single change of ``rules`` worth trying: (option, what, the fields changed)."""
    flags = ["first_trick_no_points", "queen_must_drop", "declarations"]
    if rules.hearts_lead == "after_broken":  # else hearts are never closed: nothing to break
        flags.insert(1, "queen_breaks_hearts")
    for flag in flags:
        value = getattr(rules, flag)
        yield flag, f"{flag}: {'off' if value else 'on'}", {flag: not value}
    choices: list[tuple[str, Any]] = [("hearts_lead", HeartsLead), ("opening_lead", OpeningLead), ("moon", MoonRule)]
    if rules.copies > 1:  # a single deck has no identical cards
        choices.append(("identical_cards", IdenticalCards))
    if rules.end == "two_phase":  # else there is no phase 2 for its moon rule
        choices.append(("moon_phase2", MoonRule))
    for field, kind in choices:
        for what, change in _choices(field, getattr(rules, field), get_args(kind)):
            yield field, what, change
    directions = get_args(PassDirection)
    for i, direction in enumerate(rules.pass_schedule if rules.pass_count > 0 else ()):
        for other in directions:
            if other != direction:
                schedule = (*rules.pass_schedule[:i], other, *rules.pass_schedule[i + 1 :])
                yield "pass_schedule", f"pass_schedule[{i}] {direction}: {other}", {"pass_schedule": schedule}
                break  # one other direction shows whether this one is played
    if rules.pass_count > 1:
        yield "pass_count", f"pass_count: {rules.pass_count - 1}", {"pass_count": rules.pass_count - 1}
    for kind, cards in _scoring_cards(rules).items():
        points = {c: v for c, v in rules.card_points.items() if c not in cards}
        yield "card_points", f"card_points: {kind} worth 0", {"card_points": points}
    if rules.moon_points is not None or rules.moon != "none":
        worth = (rules.moon_points or 26) + 5
        yield "moon_points", f"moon_points: {worth}", {"moon_points": worth}
    if rules.declarations:
        yield "declaration_points", "declaration_points: +5", {"declaration_points": rules.declaration_points + 5}
    if rules.revoke_points != 1:  # the round's penalty total by default: no preset's is 1
        yield "revoke_points", "revoke_points: 1", {"revoke_points": 1}
    yield from _end_changes(rules)


def _scoring_cards(rules: RuleSet) -> dict[str, set[str]]:
    """The preset's scoring cards by kind: the hearts together, every other card alone."""
    hearts = {c for c in rules.card_points if c.endswith("H")}
    kinds = {"the hearts": hearts} if hearts else {}
    kinds.update({c: {c} for c in rules.card_points if c not in hearts})
    return kinds


def _end_changes(rules: RuleSet) -> Iterator[tuple[str, str, dict[str, Any]]]:
    if rules.end == "target":
        yield "target", f"target: {rules.target // 4}", {"target": rules.target // 4}
    elif rules.end == "rounds":
        yield "rounds", "rounds: 1", {"rounds": 1}
    else:
        yield "threshold", f"threshold: {rules.threshold // 2}", {"threshold": rules.threshold // 2}
        for what, change in _choices("finish", rules.finish, ("exact_zero", "zero_or_below")):
            yield "finish", what, change
        for what, change in _choices("tie_break", rules.tie_break, ("none", "furthest_below_zero")):
            yield "tie_break", what, change


def mutants(rules: RuleSet) -> Iterator[Mutant]:
    """Every playable single change of ``rules`` (a change the engine refuses is skipped)."""
    for option, what, change in _changes(rules):
        changed = msgspec.structs.replace(rules, **change)
        try:
            deck_for(changed)
        except RulesError:
            continue
        yield Mutant(option, what, changed)


def _plain(line: Line) -> bytes:
    """A line with the rule set left out."""
    if isinstance(line, Header):
        line = msgspec.structs.replace(line, rules=RuleSet())
    elif isinstance(line, Told) and isinstance(line.message, MatchStart):
        line = msgspec.structs.replace(line, message=msgspec.structs.replace(line.message, rules=RuleSet()))
    return msgspec.json.encode(line)


def lines_of(preset: str, rules: RuleSet, games: tuple[Game, ...] | None = None) -> list[bytes]:
    """``preset``'s vectors (or ``games``) played under ``rules`` (its own, or a mutant), rule
    set left out."""
    out: list[bytes] = []
    for number, game in enumerate(games if games is not None else GAMES[preset], 1):
        out += [_plain(line) for line in match_lines(rules, game, f"{preset}-{number}")]
    return out


def changed_lines(preset: str, mutant: Mutant, original: list[bytes] | None = None) -> int:
    """How many lines of ``preset``'s vectors the change moves (lines compared in order; a line
    missing on either side counts)."""
    before = original if original is not None else lines_of(preset, ruleset(preset))
    after = lines_of(preset, mutant.rules)
    moved = sum(a != b for a, b in zip(before, after, strict=False))
    return moved + abs(len(before) - len(after))


@functools.cache
def coverage(preset: str) -> tuple[tuple[Mutant, int], ...]:
    """Every mutant of ``preset``'s rule set with the lines it moves (kept: the vectors of 266
    engines take seconds, and the table and the tests ask for the same)."""
    rules = ruleset(preset)
    original = lines_of(preset, rules)
    return tuple((m, changed_lines(preset, m, original)) for m in mutants(rules))


def coverage_table() -> str:
    """docs/vectors.md's coverage table (Markdown): per option of the rule set, the changes
    tried and, per preset, the fewest lines one of its changes moves."""
    tried: dict[str, int] = {}
    fewest: dict[str, dict[str, int]] = {}
    for preset in GAMES:
        for mutant, moved in coverage(preset):
            tried[mutant.option] = tried.get(mutant.option, 0) + 1
            here = fewest.setdefault(mutant.option, {})
            here[preset] = min(moved, here.get(preset, moved))
    rows = ["| option | changes tried | lines the change moves, at the fewest, per preset |", "|---|---:|---|"]
    for option in sorted(tried):
        cells = ", ".join(f"{preset} {moved}" for preset, moved in fewest[option].items())
        rows.append(f"| `{option}` | {tried[option]} | {cells} |")
    for option, why in UNREACHABLE.items():
        rows.append(f"| `{option}` | 0 | not shown: {why} |")
    if GAPS:
        rows += ["", "Not shown yet (an engine without these passes the vectors):", ""]
        rows += [f"- {preset}, `{change}`: {why}" for (preset, change), why in GAPS.items()]
    return "\n".join(rows)


def search_games(preset: str, games: Iterable[Game], most: int = 3) -> tuple[Game, ...]:
    """Of the candidate ``games``, those that between them move a line for every mutant any of
    them moves (greedy set cover: the game that shows the most rules not yet shown, the smaller
    first, then the next; at most ``most``): how ``GAMES`` was chosen. Candidates are matches
    from a new match's start (``Game(seed, rounds)`` over a range of seeds) or set elsewhere
    (a place in the schedule, a phase and scores, a last round cut short). The vectors' own
    test checks what they must show besides (a moon, a choice...)."""
    rules = ruleset(preset)
    every = list(mutants(rules))
    shown: dict[Game, set[int]] = {}
    size: dict[Game, int] = {}
    for game in games:
        base = lines_of(preset, rules, (game,))
        size[game] = sum(map(len, base))
        shown[game] = {i for i, m in enumerate(every) if lines_of(preset, m.rules, (game,)) != base}
    chosen: list[Game] = []
    left = set().union(*shown.values())
    while left and len(chosen) < most:
        game = max(shown, key=lambda g: (len(shown[g] & left), -size[g], -g.seed))
        chosen.append(game)
        left -= shown[game]
    return tuple(chosen)
