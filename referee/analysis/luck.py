"""The luck of the deal: what a seat's cards were worth before it played them.

From the seat's view as dealt (its 13 cards, nothing else), worlds are drawn uniformly (the
other hands: any deal of the other cards) and the whole round is played out by the playout
policy for *every* seat, the seat's pass included: the mean of the seat's points is what its
cards were worth under that policy, and the mean over all seats of the same playouts is the
table's. ``luck = table - dealt`` in points of the round: positive, the seat was dealt cards
that take fewer points than the table's average. ``after_pass`` is the same from the view once
the cards have changed hands (the pass made and the cards received known): the change from
``dealt`` is the pass's effect (its own choice and what it got) under the policy.

What a seat then took beyond ``dealt`` is its play (and the others', and the luck of the
cards still hidden): the per-decision losses (``estimate``) measure the seat's share of it.
"""

from __future__ import annotations

import random

import msgspec

from protocol.ruleset import RuleSet
from referee.analysis.estimate import Interval, interval
from referee.analysis.worlds import Dealer
from referee.rules.deck import deck_for
from referee.rules.playout import PlayoutPolicy, finish
from referee.rules.sampling import knowledge
from referee.rules.view import SeatView


class LuckTask(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's cards in one round, from its own information."""

    rules: RuleSet
    round: int
    dealt: SeatView
    after_pass: SeatView | None
    actual: int
    """The points the round gave the seat (its score change)."""


class RoundLuck(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    seat: int
    dealt: Interval
    """Expected points of the round given the dealt cards (policy play for every seat)."""
    table: float
    """Expected points of the round for the table's average seat, same playouts."""
    luck: Interval
    """``table - dealt``, paired: positive is good cards."""
    after_pass: Interval | None
    actual: int


def _playouts(
    rules: RuleSet, view: SeatView, rng: random.Random, worlds: int, policy: PlayoutPolicy
) -> tuple[list[float], list[float]]:
    deck = deck_for(rules)
    dealer = Dealer(deck, view, knowledge(deck, view))
    own: list[float] = []
    mean: list[float] = []
    for _ in range(worlds):
        world, _exact = dealer.world(rng)
        changes = finish(world, random.Random(rng.getrandbits(64)), policy)
        own.append(changes[view.seat])
        mean.append(sum(changes) / len(changes))
    return own, mean


def round_luck(task: LuckTask, seed: int, worlds: int, policy: PlayoutPolicy = "greedy") -> RoundLuck:
    rng = random.Random(seed)
    own, mean = _playouts(task.rules, task.dealt, rng, worlds, policy)
    after = None
    if task.after_pass is not None and task.after_pass.passed is not None:
        after = interval(_playouts(task.rules, task.after_pass, rng, worlds, policy)[0])
    return RoundLuck(
        round=task.round,
        seat=task.dealt.seat,
        dealt=interval(own),
        table=sum(mean) / len(mean),
        luck=interval([m - o for m, o in zip(mean, own, strict=True)]),
        after_pass=after,
        actual=task.actual,
    )
