"""Invariants of the analysis, as properties over matches drawn by hypothesis (fast tier), and
the analysis policy analysing its own play (docs/analysis.md, "Honest by construction")."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.analysis import Budget, analyse_match, match_decisions
from referee.analysis.estimate import SHOWN, DecisionEstimate, Interval, estimate
from referee.analysis.grading import grade
from referee.analysis.report import ERRORS, Analysis
from referee.analysis.worlds import Dealer
from referee.rules import ruleset
from referee.rules.deck import deck_for
from referee.rules.sampling import knowledge
from tests.analysis.helpers import Searcher, first_legal, greedy, greedy_pass, simulate
from tests.tiers import examples

TINY = Budget(first=8, most=16, luck=8, sift=4)
PLAYERS = {"greedy": greedy, "first_legal": first_legal}


def _contains(value: Interval) -> bool:
    return value.low - 1e-9 <= value.mean <= value.high + 1e-9


@settings(max_examples=examples(20))
@given(
    seed=st.integers(0, 10**6),
    players=st.lists(st.sampled_from(sorted(PLAYERS)), min_size=4, max_size=4),
    pick=st.integers(0, 10**6),
    variant=st.sampled_from(["american", "omnibus"]),
)
def test_every_estimate_keeps_the_invariants(seed: int, players: list[str], pick: int, variant: str) -> None:
    """At a decision drawn from a match drawn: the card played is legal; every legal choice is
    valued (every card; a pass: all 286 ways to pass three of thirteen cards) and every choice
    shown is legal, the best ones and the one made; the best has the least mean of those still
    racing; every interval holds its point estimate; a grade worse than ``good`` only where the
    loss's interval excludes zero."""
    rules = ruleset(variant, {"end": "rounds", "rounds": 1})
    record = simulate([PLAYERS[p] for p in players], seed, rounds=1, rules=rules)
    decisions = [d for d in match_decisions(record, range(4)) if d.info.kind in ("play", "pass")]
    d = decisions[pick % len(decisions)]
    found: DecisionEstimate = estimate(d.info, d.chosen, seed, TINY)
    choices = [c.choice for c in found.choices]
    assert len(set(choices)) == len(choices)
    assert d.chosen in choices and len(choices) >= min(found.valued, SHOWN)
    if d.info.kind == "play":
        assert d.chosen in d.info.view.legal
        assert set(choices) <= set(d.info.view.legal) and found.valued == len(d.info.view.legal)
    else:
        hand = set(d.info.view.hand)
        assert all(len(c.split()) == rules.pass_count and set(c.split()) <= hand for c in choices)
        assert found.valued == math.comb(len(hand), rules.pass_count)
    assert found.best == choices[0]
    made = next(c for c in found.choices if c.choice == d.chosen)
    assert found.choices[0].points.mean <= made.points.mean
    assert TINY.first <= found.worlds <= 2 * TINY.most  # the race's, then as many fresh for the loss
    for value in (found.loss, found.chance_loss, *(c.points for c in found.choices)):
        assert _contains(value)
    verdict = grade(
        found.best == d.chosen,
        (found.loss.mean, found.loss.low, found.loss.high),
        (found.chance_loss.mean, found.chance_loss.low, found.chance_loss.high),
    )
    if verdict in ERRORS:
        assert found.loss.low > 0 or found.chance_loss.low > 0
    if found.best == d.chosen:
        assert verdict == "best" and found.loss.mean == 0


@settings(max_examples=examples(10))
@given(seed=st.integers(0, 10**6), cut=st.integers(1, 12))
def test_worlds_hold_what_the_seat_saw(seed: int, cut: int) -> None:
    """A world drawn for a decision is consistent with the seat's view: its own hand, the cards
    played by whom they were played, every other seat's card count."""
    record = simulate([greedy] * 4, seed, rounds=1)
    plays = [d for d in match_decisions(record, range(4)) if d.info.kind == "play"]
    d = plays[min(cut * 4, len(plays) - 1)]
    deck = deck_for(d.info.rules)
    know = knowledge(deck, d.info.view)
    world, _exact = Dealer(deck, d.info.view, know).world(random.Random(seed))
    me = d.info.view.seat
    assert sorted(world.hand(me)) == sorted(know.own)
    for s in range(4):
        assert len(world.hand(s)) == know.counts[s]


def _mean_loss(analysis: Analysis) -> Interval:
    """The mean loss per valued decision, with its interval (the decisions' estimates are
    independent: half-widths in quadrature, over their count)."""
    losses = [d.loss for d in analysis.decisions if d.loss is not None]
    mean = sum(v.mean for v in losses) / len(losses)
    half = math.sqrt(sum(((v.high - v.low) / 2) ** 2 for v in losses)) / len(losses)
    return Interval(mean, mean - half, mean + half)


@pytest.mark.process  # heavy (about 5 s in-process: every decision searched, then analysed), starts none
def test_the_analysis_policy_analysing_itself_loses_nothing_real() -> None:
    """A player making the analysis policy's choices (``Searcher``: the choice ``estimate``
    values best, with seeds of its own) at seat 0 of three one-round matches, analysed with
    another seed: the mean loss per decision is within its 95% interval of zero and no decision
    is graded an error. The greedy playout policy itself, played in the same deals, is not the
    analysis's choice (it looks one card ahead only): its mean loss is above its interval, so
    the check can fail."""
    budget = Budget(first=16, most=64, luck=8)
    own: list[Analysis] = []
    plain: list[Analysis] = []
    for seed in (1, 2, 3):
        searcher = Searcher(seed, budget)
        record = simulate(
            [searcher.play, greedy, greedy, greedy], seed, rounds=1, passes=[searcher.pass_cards, *[greedy_pass] * 3]
        )
        own.append(analyse_match(record, [0], seed=seed + 100, budget=budget))
        plain.append(analyse_match(simulate([greedy] * 4, seed, rounds=1), [0], seed=seed + 100, budget=budget))
    mine = _mean_loss(_pooled(own))
    assert mine.low <= 0 <= mine.high, mine
    assert not [d for a in own for d in a.decisions if d.verdict in ERRORS]
    greedy_loss = _mean_loss(_pooled(plain))
    assert greedy_loss.low > 0, greedy_loss


def _pooled(analyses: list[Analysis]) -> Analysis:
    first = analyses[0]
    return Analysis(
        log="pooled", match_id="pooled", variant=first.variant, seats=[],
        decisions=[d for a in analyses for d in a.decisions], worst=[], luck=[], seed=first.seed,
        policy=first.policy, budget=first.budget,
    )  # fmt: skip
