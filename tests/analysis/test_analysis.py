"""The analysis is honest by construction, and tested so (docs/analysis.md): the same seed
gives the same figures; the figures come from the seat's information alone; they agree with
exact answers where every consistent deal can be enumerated; planted blunders are flagged."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import msgspec

from protocol.cards import card_code
from referee.analysis import Budget, analyse_match, match_decisions
from referee.analysis.estimate import Interval, apply, estimate
from referee.analysis.grading import grade
from referee.analysis.infoset import Decision, InfoSet, _Walk
from referee.analysis.report import ERRORS
from referee.analysis.run import moon_estimate
from referee.replay.record import ReplayedTrick, RoundRecord
from referee.rules import ruleset
from referee.rules.deck import deck_for
from referee.rules.errors import IllegalMove
from referee.rules.playout import finish
from referee.rules.round import Round
from referee.rules.sampling import SamplingError, knowledge, replay
from tests.analysis.helpers import blunder, first_legal, greedy, simulate

SMALL = Budget(first=16, most=32, luck=16, sift=4)


def _late(record_seed: int, seat: int, tricks_left: int) -> list[Decision]:
    record = simulate([greedy, greedy, greedy, greedy], record_seed, rounds=1)
    return [
        d
        for d in match_decisions(record, [seat])
        if d.info.kind == "play" and d.trick is not None and d.trick >= 13 - tricks_left and len(d.info.view.legal) > 1
    ]


def test_the_same_seed_gives_the_same_analysis() -> None:
    record = simulate([greedy, first_legal, greedy, first_legal], 5, rounds=1)
    first = analyse_match(record, [1], seed=9, budget=SMALL)
    again = analyse_match(record, [1], seed=9, budget=SMALL)
    assert first.decisions == again.decisions and first.luck == again.luck
    other = analyse_match(record, [1], seed=10, budget=SMALL)
    assert other.decisions != first.decisions


def _cut(rec: RoundRecord, trick: int, seat: int) -> list[ReplayedTrick]:
    """The round's tricks up to ``seat``'s play to ``trick``, that play included."""
    tricks = [msgspec.structs.replace(t, plays=list(t.plays)) for t in rec.tricks[: trick + 1]]
    last = tricks[-1]
    last.plays = last.plays[: [p.seat for p in last.plays].index(seat) + 1]
    return tricks


def _swaps(rec: RoundRecord, tricks: list[ReplayedTrick], seat: int) -> Iterator[list[list[str]]]:
    """Deals where two cards dealt to two other seats change hands: cards nobody passed and
    nobody played before the decision, so the seat saw neither."""
    seen = {c for p in rec.passes for c in p.cards} | {p.card for t in tricks for p in t.plays}
    others = [s for s in range(4) if s != seat]
    for a, b in itertools.combinations(others, 2):
        for x in [c for c in rec.hands[a] if c not in seen]:
            for y in [c for c in rec.hands[b] if c not in seen]:
                hands = [list(h) for h in rec.hands]
                hands[a][hands[a].index(x)], hands[b][hands[b].index(y)] = y, x
                yield hands


def test_the_analysis_reads_no_hidden_card() -> None:
    """A log changed where the seat cannot see it (two unseen cards swapped between two other
    seats, every play before the decision still legal): the same information, and the same
    figures with the same seed."""
    record = simulate([greedy] * 4, 11, rounds=1)
    rec = record.rounds[0]
    deck = deck_for(record.rules)
    checked = 0
    for d in _late(11, 0, 6)[:2]:
        assert d.trick is not None
        tricks = _cut(rec, d.trick, 0)
        for hands in _swaps(rec, tricks, 0):
            changed = msgspec.structs.replace(rec, hands=hands, tricks=tricks)
            try:
                *_, seen = _Walk(record, deck, changed, [0] * 4, {0}).decisions()
            except IllegalMove:
                continue  # a swap the play so far rules out (a void shown)
            assert seen.info == d.info and seen.chosen == d.chosen
            assert estimate(seen.info, d.chosen, 3, SMALL) == estimate(d.info, d.chosen, 3, SMALL)
            checked += 1
            break
    assert checked == 2


class _Branches(random.Random):
    """A random source that follows a script of choices, recording the branching it meets: the
    policy's random choices enumerated, each branch with its probability."""

    def __init__(self, script: list[int]) -> None:
        super().__init__(0)
        self.script, self.used, self.widths = script, 0, []

    def randrange(self, stop: int, *args: object, **kwargs: object) -> int:  # type: ignore[override]
        value = self.script[self.used] if self.used < len(self.script) else 0
        self.used += 1
        self.widths.append(stop)
        return value


def _policy_value(round_: Round, info: InfoSet, choice: str) -> float:
    """The exact expected points under the greedy policy, its random choices enumerated."""
    total, stack = 0.0, [([], 1.0)]
    while stack:
        script, weight = stack.pop()
        copy = round_.copy()
        apply(copy, info, choice)
        rng = _Branches(script)
        changes = finish(copy, rng)
        for depth in range(len(script), len(rng.widths)):
            width = rng.widths[depth]
            for alt in range(1, width):
                stack.append(
                    ([*script, *[0] * (depth - len(script)), alt], weight / _prod(rng.widths[len(script) : depth + 1]))
                )
            weight /= width
        total += weight * changes[info.view.seat]
    return total


def _prod(values: list[int]) -> float:
    out = 1.0
    for v in values:
        out *= v
    return out


def _exact(info: InfoSet) -> dict[str, float]:
    """Every consistent deal of the hidden cards enumerated, each played out exactly."""
    deck = deck_for(info.rules)
    know = knowledge(deck, info.view)
    others = [s for s in range(4) if s != info.view.seat]
    free = sorted((Counter(know.pool) - sum((Counter(know.must[s]) for s in others), Counter())).elements())
    room = [know.counts[s] - len(know.must[s]) for s in others]
    values: dict[str, float] = {c: 0.0 for c in info.view.legal}
    worlds = 0
    for first in itertools.combinations(free, room[0]):
        rest = [c for c in free if c not in first]
        for second in itertools.combinations(rest, room[1]):
            third = [c for c in rest if c not in second]
            hands = [list(know.own) for _ in range(4)]
            for s, part in zip(others, (first, second, third), strict=True):
                hands[s] = [*know.must[s], *part]
            try:
                world = replay(deck, info.view, [h + know.played_by[s] for s, h in enumerate(hands)])
            except (IllegalMove, SamplingError):
                continue
            worlds += 1
            for c in values:
                values[c] += _policy_value(world, info, c)
    return {c: v / worlds for c, v in values.items()}


def test_late_positions_agree_with_exhaustive_enumeration() -> None:
    """The last three tricks: every consistent deal and every random choice of the policy
    enumerated. The sampled values are within their intervals of the exact ones (3 half-widths
    for the several comparisons), and the best choice agrees where the exact gap is clear."""
    checked = 0
    for seed in (21, 22):
        for d in _late(seed, 2, 3)[:2]:
            exact = _exact(d.info)
            found = estimate(d.info, d.chosen, 5, Budget(first=400, most=400))
            for value in found.choices:
                half = (value.points.high - value.points.low) / 2
                assert abs(value.points.mean - exact[value.choice]) <= 3 * half + 1e-9, (value, exact)
            ranked = sorted(exact.values())
            if len(ranked) > 1 and ranked[1] - ranked[0] > 1:
                assert exact[found.best] == ranked[0]
            checked += 1
    assert checked >= 2


def test_planted_blunders_are_flagged() -> None:
    """The blunder bot's rule (tests/bots/blunder_bot.py: take the Q♠ when a lower card would
    duck) planted at every position of some matches where it applies: at least 95% of those
    decisions graded an error."""
    planted = flagged = 0
    for seed in range(30, 150):
        record = simulate([greedy] * 4, seed, rounds=1)
        for d in match_decisions(record, range(4)):
            card = blunder(list(d.info.view.legal), list(d.info.view.trick)) if d.info.kind == "play" else None
            if card is None:
                continue
            found = estimate(d.info, card, seed, Budget(first=32, most=128))
            loss, chance = found.loss, found.chance_loss
            verdict = grade(
                found.best == card, (loss.mean, loss.low, loss.high), (chance.mean, chance.low, chance.high)
            )
            planted += 1
            flagged += verdict in ERRORS
    assert planted >= 10
    assert flagged >= 0.95 * planted, (flagged, planted)


def test_a_moon_choice_is_judged_by_its_effect_on_the_match() -> None:
    """Nothing is hidden at a moon choice: each choice's score changes are the rules', equal in
    points (26 off the shooter or 26 on each other), and told apart by the chance of finishing
    first. Adding 26 to the others ends the match: won by the shooter when it is then lowest,
    lost at once when another seat is."""
    record = simulate([greedy, greedy, greedy, greedy], 3, rounds=1)
    d = next(iter(match_decisions(record, [1])))
    american = ruleset("american")  # to 100 points (the record's own match is one round)
    outcomes = {"add_to_others": [26, 0, 26, 26], "subtract_from_shooter": [0, -26, 0, 0]}

    def chosen(choice: str, scores: list[int]) -> Decision:
        info = msgspec.structs.replace(d.info, scores=scores, kind="moon")
        return msgspec.structs.replace(d, info=info, chosen=choice, phase="moon", outcomes=outcomes)

    losing = moon_estimate(chosen("add_to_others", [80, 70, 40, 50]), american)  # seat 2 ends lowest, 66
    assert losing.best == "subtract_from_shooter" and losing.loss == Interval(0.0, 0.0, 0.0)
    assert [v.points.mean for v in losing.choices] == [-26.0, -26.0] and losing.choices[1].chance == 0.0
    assert grade(False, (0.0, 0.0, 0.0), (losing.chance_loss.mean,) * 3) == "blunder"
    winning = moon_estimate(chosen("add_to_others", [90, 60, 70, 80]), american)  # the shooter ends lowest, 60
    assert winning.best == "add_to_others" and winning.choices[0].chance == 1.0 and winning.chance_loss.mean == 0.0


def test_a_logged_moon_choice_is_valued_from_the_rules() -> None:
    """From a record: the shooter's choice gets both choices' score changes from the round as
    replayed (no sampling), and a grade instead of 'not analysed'."""
    rules = ruleset("american-moon-choice")
    record = simulate([_highest, _lowest, _lowest, _lowest], 67, rounds=1, rules=rules)
    moon = record.rounds[0].moon
    assert moon is not None  # seat 3, ducked by everyone, took every point
    [d] = [d for d in match_decisions(record, [moon.seat]) if d.phase == "moon"]
    assert d.outcomes == {"add_to_others": [26, 26, 26, 0], "subtract_from_shooter": [0, 0, 0, -26]}
    found = analyse_match(record, [moon.seat], seed=1, budget=Budget(first=8, most=8, luck=8, sift=2), workers=1)
    [report] = [r for r in found.decisions if r.kind == "moon"]
    assert report.verdict == "best" and {c.choice for c in report.choices or []} == set(d.outcomes)


def _highest(round_: Round, seat: int, rng: random.Random) -> str:
    return card_code(max(round_.legal_plays(), key=lambda c: c & 15))


def _lowest(round_: Round, seat: int, rng: random.Random) -> str:
    return card_code(min(round_.legal_plays(), key=lambda c: c & 15))
