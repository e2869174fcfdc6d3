"""Possible worlds (``referee.rules.sampling``), ``Round.copy`` and playouts, by property.

A round of a random rule set (presets at every player count, sometimes with play options
changed, as in test_properties) is played at random to a random point; then, for one seat:

* the true deal is among the possible worlds: it meets every constraint the seat's view
  implies, and replaying the view's history from it is legal and reaches the same state;
* every sampled world is consistent with the view: the seat's own view of it is the same
  view, it meets the constraints, and replaying the history from its deal is legal move for
  move and reaches the same state;
* a copy of a round is independent of it, and a playout finishes any copy with a result.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.ruleset import RuleSet
from referee.rules import Round, deck_for, ruleset, seat_view
from referee.rules.match import Match
from referee.rules.playout import PLAYOUT_POLICIES, finish
from referee.rules.round import DONE, MOON, PASS
from referee.rules.sampling import knowledge, replay, sample_round, start_hands
from referee.rules.view import SeatView
from tests.rules.test_properties import SEEDS, SETTINGS, rule_sets
from tests.tiers import examples


def advance(round_: Round, rng: random.Random, steps: int) -> None:
    """Up to ``steps`` random legal actions (not past the last play)."""
    need = round_.deck.rules.pass_count
    for _ in range(steps):
        if round_.phase == PASS:
            seat = rng.choice(round_.awaiting())
            round_.pass_cards(seat, rng.sample(round_.hand(seat), need))
        elif round_.phase == "declare":
            round_.declare(round_.turn, rng.random() < 0.3)
        elif round_.phase == "play":
            round_.play(round_.turn, rng.choice(round_.legal_plays()))
        else:
            return


def position(rules: RuleSet, seed: int, steps: int) -> tuple[Round, random.Random]:
    match = Match(rules, seed)
    round_ = match.next_round()
    rng = random.Random(seed)
    advance(round_, rng, steps)
    return round_, rng


def hidden(round_: Round) -> list[list[int]]:
    return [[c & 63 for c in round_.hand(s)] for s in range(round_.deck.players)]


def same_view(a: SeatView, b: SeatView) -> bool:
    """The views agree on everything the seat sees of the play (the pass direction and the
    exchange are not replayed: a world starts from the hands as play began)."""
    return (
        sorted(a.hand) == sorted(b.hand)
        and a.tricks == b.tricks
        and a.trick == b.trick
        and a.trick_leader == b.trick_leader
        and a.points_taken == b.points_taken
        and a.hearts_broken == b.hearts_broken
        and a.turn == b.turn
        and sorted(a.legal) == sorted(b.legal)
        and a.declared == b.declared
        and a.phase == b.phase
    )


@settings(max_examples=examples(150), **SETTINGS)
@given(rule_sets(), SEEDS, st.integers(0, 120), st.integers(0, 5))
def test_the_true_deal_is_a_possible_world(rules: RuleSet, seed: int, steps: int, pick: int) -> None:
    round_, _ = position(rules, seed, steps)
    if round_.phase in (DONE, MOON):
        return
    deck = deck_for(rules)
    seat = round_.turn if round_.turn >= 0 else pick % rules.players
    view = seat_view(round_, seat)
    assert knowledge(deck, view).admits(hidden(round_))
    again = replay(deck, view, start_hands(round_))
    assert same_view(seat_view(again, seat), view)


@settings(max_examples=examples(120), **SETTINGS)
@given(rule_sets(), SEEDS, st.integers(0, 120), st.integers(0, 5))
def test_every_sampled_world_is_consistent_with_the_view(rules: RuleSet, seed: int, steps: int, pick: int) -> None:
    round_, rng = position(rules, seed, steps)
    if round_.phase in (DONE, MOON):
        return
    deck = deck_for(rules)
    seat = (round_.turn if round_.turn >= 0 else pick) % rules.players
    view = seat_view(round_, seat)
    know = knowledge(deck, view)
    for _ in range(3):
        world = sample_round(deck, view, rng)
        assert same_view(seat_view(world, seat), view)
        assert know.admits(hidden(world))
        again = replay(deck, view, start_hands(world))  # the sampled deal replays the history
        assert again.hands == world.hands


def test_a_world_respects_voids_and_the_passed_cards() -> None:
    """A hand-checked case: after the pass, the receiver holds the passed cards; a seat that
    showed out of a suit gets none of it."""
    rules = ruleset("american")
    deck = deck_for(rules)
    for seed in range(20):
        round_, rng = position(rules, seed, 4 + 4 * 4)  # the four passes, then four tricks
        if round_.phase != "play":
            continue
        seat = round_.turn
        view = seat_view(round_, seat)
        know = knowledge(deck, view)
        for _ in range(10):
            world = sample_round(deck, view, rng)
            for other in range(4):
                if other == seat:
                    continue
                held = world.hands[other] | world.hands[other] >> 64
                assert not held & know.forbid[other]
                for face in know.must[other]:
                    assert held >> face & 1


@settings(max_examples=examples(60), **SETTINGS)
@given(rule_sets(), SEEDS, st.integers(0, 120), st.sampled_from(PLAYOUT_POLICIES))
def test_a_copy_is_independent_and_a_playout_finishes_it(rules: RuleSet, seed: int, steps: int, policy: str) -> None:
    round_, rng = position(rules, seed, steps)
    before = seat_view(round_, 0)
    twin = round_.copy()
    assert seat_view(twin, 0) == before
    changes = finish(twin, rng, "greedy" if policy == "greedy" else "random")
    assert twin.phase == DONE and twin.result is not None
    assert changes == twin.result.score_changes and len(changes) == rules.players
    assert seat_view(round_, 0) == before  # the original did not move
    if round_.phase != DONE:
        finish(round_, random.Random(seed))
        assert round_.phase == DONE


def test_without_constraints_each_hidden_card_lands_in_proportion_to_the_hands() -> None:
    """Uniform over consistent deals is the goal: with no void shown and nothing passed, each
    hidden card goes to each other seat in proportion to the cards it holds."""
    rules = ruleset("american", {"pass_schedule": ["hold"]})
    deck = deck_for(rules)
    round_ = Match(rules, 11).next_round()
    for _ in range(2):  # two cards of the first trick: nobody has shown out of anything
        round_.play(round_.turn, round_.legal_plays()[0])
    seat = round_.turn
    view = seat_view(round_, seat)
    know = knowledge(deck, view)
    assert not any(know.forbid) and not any(know.must)
    rng = random.Random(5)
    worlds = 3000
    landed = [[0] * 4 for _ in range(64)]
    for _ in range(worlds):
        world = sample_round(deck, view, rng)
        for other in range(4):
            for card in world.hand(other):
                landed[card][other] += 1
    total = sum(know.counts[s] for s in range(4) if s != seat)
    for card in know.pool:
        for other in range(4):
            if other != seat:
                share = landed[card][other] / worlds
                assert abs(share - know.counts[other] / total) < 0.05, (card, other, share)


def test_the_two_of_clubs_passed_to_the_seat_that_leads_it_is_known_once() -> None:
    """A seat that passed the 2♣ knows its receiver holds it (the pass) and must lead it (the
    first lead): one card, one constraint. Counted twice, no world could be drawn (the luck of a
    seat's cards after the pass, asked when it is another seat's turn to lead, once failed so)."""
    rules = ruleset("american")
    deck = deck_for(rules)
    for seed in range(200):
        round_ = Match(rules, seed).next_round()
        giver = next((s for s in range(4) if any(c & 63 == deck.lead_card & 63 for c in round_.hand(s))), None)
        assert giver is not None
        for seat in range(4):
            hand = round_.hand(seat)
            chosen = [c for c in hand if c & 63 == deck.lead_card & 63] if seat == giver else []
            round_.pass_cards(seat, (chosen + [c for c in hand if c not in chosen])[:3])
        if round_.phase != "play" or round_.turn == giver:
            continue
        view = seat_view(round_, giver)
        assert knowledge(deck, view).must[round_.turn].count(deck.lead_card & 63) == 1
        world = sample_round(deck, view, random.Random(seed))
        assert world.hands[round_.turn] >> (deck.lead_card & 63) & 1
        return
    raise AssertionError("no deal where the 2 of clubs was passed to the seat that then leads")
