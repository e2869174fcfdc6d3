"""Valuing every choice of one decision from the deciding seat's information.

For a decision (``InfoSet``) the candidates are: every legal card for a play; for a pass, every
choice of ``pass_count`` cards among the ``Budget.pass_cards`` most dangerous of the hand (by
points, then the A♠ and K♠ that catch the Q♠, then rank), the policy's own pass and the pass
made (a pass has 286 choices in American Hearts: the loss of a pass is against the best of
these candidates, so it is a lower bound); declaring and not declaring for a declaration.

Worlds are drawn uniformly among the hidden deals consistent with the seat's information
(``worlds``). In each world every candidate is applied to a copy of the round and the round is
played out to its end by the playout policy for every seat (``referee.rules.playout``: the
``greedy`` policy by default, deterministic given its random numbers), all candidates with the
same random numbers: the differences between candidates are *paired*, so the card luck common
to them cancels and their intervals are tight. A candidate's value is the mean of the seat's
score change over the worlds (points of the round, lower is better) and the mean chance of
finishing first (``winchance``) from the match scores plus those changes.

Sample sizes grow sequentially: ``Budget.first`` worlds, then doubling, until the two best
candidates are told apart (the 95% interval of their paired difference excludes zero) or
known to be within ``Budget.precision`` points of each other, and the same for the choice made
against the best, or until ``Budget.most`` worlds. Everything is drawn from one
``random.Random(seed)``: the same seed gives the same figures.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

import msgspec

from protocol.cards import SPADES, parse_card
from referee.analysis.grading import Z95
from referee.analysis.infoset import InfoSet, pass_text
from referee.analysis.winchance import Shape, first_chance, shape_of
from referee.analysis.worlds import Dealer
from referee.rules.playout import Policy, finish
from referee.rules.round import Round
from referee.rules.sampling import knowledge
from referee.rules.table import Table, table_for


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """How much work one decision gets (see the module docstring)."""

    first: int = 32
    most: int = 256
    precision: float = 0.5
    """Half-width (points, 95%) within which two candidates count as equal."""
    pass_cards: int = 5
    luck: int = 128
    """Worlds per luck figure (``luck``)."""


class Interval(msgspec.Struct, frozen=True):
    """A mean and its 95% interval."""

    mean: float
    low: float
    high: float


class ChoiceValue(msgspec.Struct, frozen=True, kw_only=True):
    choice: str
    points: Interval
    """Expected points of the round for the seat (its score change: lower is better)."""
    chance: float
    """Expected chance of finishing first the match (0 to 1)."""


class Estimate(msgspec.Struct, frozen=True, kw_only=True):
    choices: list[ChoiceValue]
    """Best first (fewest expected points)."""
    best: str
    loss: Interval
    """Points: the choice made minus the best, paired."""
    chance_loss: Interval
    """Chance of finishing first: the best minus the choice made, paired."""
    worlds: int
    exact_worlds: int
    """Worlds drawn exactly uniformly (the others by the constrained dealer: ``worlds``)."""
    playouts: int


def interval(values: Sequence[float]) -> Interval:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return Interval(mean, -math.inf, math.inf)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return Interval(mean, mean - half, mean + half)


def _danger(table: Table, code: str) -> tuple[int, int, int]:
    card = parse_card(code)
    rank, suit = card & 15, (card >> 4) & 3
    return table.points[card], int(suit == SPADES and rank > 12), rank


def candidates(info: InfoSet, chosen: str, table: Table, budget: Budget) -> list[str]:
    """The choices valued for a decision (the choice made always among them)."""
    if info.kind == "play":
        found = list(info.view.legal)
    elif info.kind == "declare":
        found = ["no", "yes"]
    else:
        count = table.rules.pass_count
        hand = sorted(info.view.hand, key=lambda c: _danger(table, c), reverse=True)
        top = hand[: max(count, budget.pass_cards)]
        found = [pass_text(combo) for combo in itertools.combinations(top, count)]
        policy = sorted(info.view.hand, key=lambda c: (table.points[parse_card(c)], parse_card(c) & 15), reverse=True)
        found.append(pass_text(policy[:count]))
    if chosen not in found:
        found.append(chosen)
    return list(dict.fromkeys(found))


def apply(round_: Round, info: InfoSet, choice: str) -> None:
    me = info.view.seat
    if info.kind == "play":
        round_.play(me, parse_card(choice))
    elif info.kind == "pass":
        round_.pass_cards(me, [parse_card(c) for c in choice.split()])
    else:
        round_.declare(me, choice == "yes")


class _Samples:
    """Per candidate: the points and the chance of finishing first, world by world."""

    def __init__(self, info: InfoSet, choices: list[str], policy: Policy) -> None:
        self.info, self.choices, self.policy = info, choices, policy
        self.points: list[list[float]] = [[] for _ in choices]
        self.chance: list[list[float]] = [[] for _ in choices]
        self.shape: Shape = shape_of(info.rules)
        self.worlds = self.exact = 0

    def add(self, world: Round, seed: int) -> None:
        info, me = self.info, self.info.view.seat
        played = info.rounds_played + 1
        for i, choice in enumerate(self.choices):
            round_ = world.copy()
            apply(round_, info, choice)
            changes = finish(round_, random.Random(seed), self.policy)
            self.points[i].append(changes[me])
            final = tuple(s + c for s, c in zip(info.scores, changes, strict=True))
            self.chance[i].append(first_chance(self.shape, final, played, me))
        self.worlds += 1

    def ranked(self, chosen: int) -> list[int]:
        """Candidates best first; of equal means, the choice made first (a tie is no loss)."""
        means = [sum(p) / len(p) for p in self.points]
        return sorted(range(len(self.choices)), key=lambda i: (means[i], i != chosen, i))

    def difference(self, a: int, b: int) -> Interval:
        return interval([x - y for x, y in zip(self.points[a], self.points[b], strict=True)])

    def settled(self, chosen: int, precision: float) -> bool:
        order = self.ranked(chosen)
        pairs = [(order[1], order[0])] if len(order) > 1 else []
        if chosen != order[0]:
            pairs.append((chosen, order[0]))
        for a, b in pairs:
            d = self.difference(a, b)
            if d.low <= 0 and (d.high - d.low) / 2 > precision:
                return False
        return True


def estimate(info: InfoSet, chosen: str, seed: int, budget: Budget, policy: Policy = "greedy") -> Estimate:
    """Value every candidate of ``info``'s decision (see the module docstring)."""
    table = table_for(info.rules)
    choices = candidates(info, chosen, table, budget)
    rng = random.Random(seed)
    dealer = Dealer(table, info.view, knowledge(table, info.view))
    samples = _Samples(info, choices, policy)
    index = choices.index(chosen)
    batch = budget.first
    while True:
        for _ in range(batch):
            world, exact = dealer.world(rng)
            samples.exact += exact
            samples.add(world, rng.getrandbits(64))
        if samples.worlds >= budget.most or samples.settled(index, budget.precision):
            break
        batch = min(samples.worlds, budget.most - samples.worlds)
    order = samples.ranked(index)
    best = order[0]
    values = [
        ChoiceValue(choice=choices[i], points=interval(samples.points[i]), chance=_mean(samples.chance[i]))
        for i in order
    ]
    chance_loss = interval([b - c for b, c in zip(samples.chance[best], samples.chance[index], strict=True)])
    return Estimate(
        choices=values,
        best=choices[best],
        loss=samples.difference(index, best),
        chance_loss=chance_loss,
        worlds=samples.worlds,
        exact_worlds=samples.exact,
        playouts=samples.worlds * len(choices),
    )


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)
