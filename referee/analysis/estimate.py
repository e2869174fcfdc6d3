"""Valuing every choice of one decision from the deciding seat's information.

For a decision (``InfoSet``) the candidates are: every legal card for a play; every legal pass
(286 in American Hearts: every 3 of 13 cards; a pass with more than ``Budget.widest``
combinations, as in the large hands of the double deck, is chosen among the most dangerous cards
only, by points, then the A♠ and K♠ that catch the Q♠, then rank, with the policy's pass and the
pass made: there its loss is a lower bound); declaring and not declaring for a declaration.

Worlds are drawn uniformly among the hidden deals consistent with the seat's information
(``worlds``). In each world every candidate still in the race is applied to a copy of the round
and the round is played out to its end by the playout policy for every seat
(``referee.rules.playout``: the ``greedy`` policy by default, deterministic given its random
numbers), all candidates with the same random numbers: the differences between candidates are
*paired*, so the card luck common to them cancels and their intervals are tight. A candidate's
value is the mean of the seat's score change over its worlds (points of the round, lower is
better) and the mean chance of finishing first (``winchance``) from the match scores plus those
changes.

Sample sizes grow sequentially: ``Budget.first`` worlds, then doubling, until the two best
candidates are told apart (the 95% interval of their paired difference excludes zero) or
known to be within ``Budget.precision`` points of each other, and the same for the choice made
against the best, or until ``Budget.most`` worlds. A field wider than ``Budget.field`` (a
pass) is raced: every candidate gets ``Budget.sift`` worlds, then only the ``field`` best and
the choice made go on (successive elimination, as a bandit races its arms); the others keep
their values from those worlds. The loss of the choice made is then measured against the
race's best on as many *fresh* worlds: the best of many candidates is partly picked for its
lucky worlds (the winner's curse), so a loss taken on the same worlds would be too large (the
analysis policy analysing itself lost 0.20 ± 0.11 points a decision that way, 286 passes in
the race). Everything is drawn from one ``random.Random(seed)``: the same seed gives the same
figures.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from typing import Final

import msgspec

from protocol.cards import SPADES, parse_card
from referee.analysis.grading import Z95
from referee.analysis.infoset import InfoSet, pass_text
from referee.analysis.winchance import Shape, first_chance, shape_of
from referee.analysis.worlds import Dealer
from referee.rules.deck import Deck, deck_for
from referee.rules.playout import PlayoutPolicy, finish
from referee.rules.round import Round
from referee.rules.sampling import knowledge

FIRST_WORLDS: Final = 32
"""``Budget.first``'s default: the worlds every decision gets before the race is judged."""
PRECISION: Final = 0.5
"""``Budget.precision``'s default."""


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """How much work one decision gets (see the module docstring)."""

    first: int = FIRST_WORLDS
    most: int = 256
    precision: float = PRECISION
    """Half-width (points, 95%) within which two candidates count as equal."""
    field: int = 24
    """Candidates raced past the first ``sift`` worlds when there are more (a pass)."""
    sift: int = 16
    """Worlds every candidate of a wider field gets before the race is cut to ``field``."""
    widest: int = 600
    """Most candidates of a pass: beyond, the passes among the most dangerous cards."""
    luck: int = 128
    """Worlds per luck figure (``luck``)."""

    @classmethod
    def at_most(cls, most: int, precision: float = PRECISION) -> Budget:
        """The budget of a command's ``--budget N``: at most ``most`` worlds a decision, starting
        with no more than that (one meaning for every command that analyses)."""
        return cls(first=min(FIRST_WORLDS, most), most=most, precision=precision)


SHOWN: Final = 12
"""Choices kept in a ``DecisionEstimate`` (and a report): the best ones, and the choice made."""


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


class DecisionEstimate(msgspec.Struct, frozen=True, kw_only=True):
    """One decision's choices valued (the best, and the choice made's loss against it)."""

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
    valued: int = 0
    """Candidates valued; ``choices`` keeps the ``SHOWN`` best and the choice made."""


def interval(values: Sequence[float]) -> Interval:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return Interval(mean, -math.inf, math.inf)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return Interval(mean, mean - half, mean + half)


def danger(deck: Deck, code: str) -> tuple[int, int, int]:
    """How dangerous a card is to keep: its points, then whether it is the A♠ or K♠ that
    catches the Q♠, then its rank."""
    card = parse_card(code)
    rank, suit = card & 15, (card >> 4) & 3
    return deck.points[card], int(suit == SPADES and rank > 12), rank


def candidates(info: InfoSet, chosen: str, deck: Deck, budget: Budget) -> list[str]:
    """The choices valued for a decision (the choice made always among them)."""
    if info.kind == "play":
        found = list(info.view.legal)
    elif info.kind == "declare":
        found = ["no", "yes"]
    else:
        count = deck.rules.pass_count
        hand = sorted(info.view.hand, key=lambda c: danger(deck, c), reverse=True)
        size = len(hand)
        while size > count and math.comb(size, count) > budget.widest:
            size -= 1
        found = [pass_text(combo) for combo in itertools.combinations(hand[:size], count)]
        policy = sorted(info.view.hand, key=lambda c: (deck.points[parse_card(c)], parse_card(c) & 15), reverse=True)
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
    """Per candidate: the points and the chance of finishing first, world by world (a candidate
    dropped from the race has the first worlds only: pairs are taken over the common ones)."""

    def __init__(self, info: InfoSet, choices: list[str], policy: PlayoutPolicy, chosen: int) -> None:
        self.info, self.choices, self.policy, self.chosen = info, choices, policy, chosen
        self.points: list[list[float]] = [[] for _ in choices]
        self.chance: list[list[float]] = [[] for _ in choices]
        self.shape: Shape = shape_of(info.rules)
        self.worlds = self.exact = 0
        self.racing = list(range(len(choices)))

    def add(self, world: Round, seed: int) -> None:
        info, me = self.info, self.info.view.seat
        played = info.rounds_played + 1
        for i in self.racing:
            round_ = world.copy()
            apply(round_, info, self.choices[i])
            changes = finish(round_, random.Random(seed), self.policy)
            self.points[i].append(changes[me])
            final = tuple(s + c for s, c in zip(info.scores, changes, strict=True))
            self.chance[i].append(first_chance(self.shape, final, played, me))
        self.worlds += 1

    def draw(self, dealer: Dealer, rng: random.Random, worlds: int) -> None:
        """Play ``worlds`` more worlds from ``dealer``, each with random numbers of its own."""
        for _ in range(worlds):
            world, exact = dealer.world(rng)
            self.exact += exact
            self.add(world, rng.getrandbits(64))

    def _mean(self, i: int) -> float:
        return sum(self.points[i]) / len(self.points[i])

    def ranked(self) -> list[int]:
        """Candidates best first, those still racing before those dropped; of equal means, the
        choice made first (a tie is no loss)."""
        racing = set(self.racing)
        return sorted(range(len(self.choices)), key=lambda i: (i not in racing, self._mean(i), i != self.chosen, i))

    def cut(self, keep: int) -> None:
        """Race on with the ``keep`` best and the choice made."""
        best = self.ranked()[:keep]
        self.racing = sorted({*best, self.chosen})

    def difference(self, a: int, b: int) -> Interval:
        return interval([x - y for x, y in zip(self.points[a], self.points[b], strict=False)])

    def settled(self, precision: float) -> bool:
        order = self.ranked()
        pairs = [(order[1], order[0])] if len(self.racing) > 1 else []
        if self.chosen != order[0]:
            pairs.append((self.chosen, order[0]))
        for a, b in pairs:
            d = self.difference(a, b)
            if d.low <= 0 and (d.high - d.low) / 2 > precision:
                return False
        return True


def estimate(
    info: InfoSet, chosen: str, seed: int, budget: Budget, policy: PlayoutPolicy = "greedy"
) -> DecisionEstimate:
    """Value every candidate of ``info``'s decision (see the module docstring)."""
    deck = deck_for(info.rules)
    choices = candidates(info, chosen, deck, budget)
    rng = random.Random(seed)
    dealer = Dealer(deck, info.view, knowledge(deck, info.view))
    samples = _Samples(info, choices, policy, choices.index(chosen))
    wide = len(choices) > budget.field
    batch = min(budget.sift if wide else budget.first, budget.most)
    while True:
        samples.draw(dealer, rng, batch)
        if wide:
            samples.cut(budget.field)
            wide = False
        elif samples.worlds >= budget.most or samples.settled(budget.precision):
            break
        batch = min(max(samples.worlds, budget.first - samples.worlds), budget.most - samples.worlds)
        if batch <= 0:
            break
    best = samples.ranked()[0]
    if best == samples.chosen:
        return _estimate(samples, samples)
    held = _Samples(info, [choices[best], chosen], policy, 1)
    held.draw(dealer, rng, samples.worlds)  # fresh worlds: the best of many is picked on its lucky ones
    return _estimate(samples, held)


def _estimate(samples: _Samples, held: _Samples) -> DecisionEstimate:
    """The race's values, and the loss from ``held``: the choice made against the race's best
    on fresh worlds (``samples`` itself when the choice made is the best)."""
    order = samples.ranked()
    best, index, choices = order[0], samples.chosen, samples.choices
    shown = order[:SHOWN] + ([index] if index not in order[:SHOWN] else [])
    values = [
        ChoiceValue(choice=choices[i], points=interval(samples.points[i]), chance=_mean(samples.chance[i]))
        for i in shown
    ]
    top = held.ranked()[0] if held is samples else 0
    chance_loss = interval([b - c for b, c in zip(held.chance[top], held.chance[held.chosen], strict=True)])
    twice = held is not samples
    return DecisionEstimate(
        choices=values,
        best=choices[best],
        loss=held.difference(held.chosen, top),
        chance_loss=chance_loss,
        worlds=samples.worlds + held.worlds * twice,
        exact_worlds=samples.exact + held.exact * twice,
        playouts=sum(len(p) for p in samples.points) + sum(len(p) for p in held.points) * twice,
        valued=len(choices),
    )


def values_of(
    info: InfoSet, choices: list[str], seed: int, worlds: int, policy: PlayoutPolicy = "greedy"
) -> list[float]:
    """Each of ``choices``' expected points over the same ``worlds`` worlds, no race and no
    stopping early: the reference the race is measured against (``referee bench analyze
    --passes``)."""
    deck = deck_for(info.rules)
    samples = _Samples(info, choices, policy, 0)
    samples.draw(Dealer(deck, info.view, knowledge(deck, info.view)), random.Random(seed), worlds)
    return [_mean(p) for p in samples.points]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)
