"""The crafted positions (pure rules engine, no processes): each reaches the situation its step
is about whatever the bot chooses, and every earlier decision of the bot's is forced."""

from __future__ import annotations

import random

import pytest

from referee.check.positions import POSITIONS, Opponents, deal_hands, moon_position, simulate
from referee.check.steps import STEPS
from referee.rules import Match, ruleset
from referee.rules.round import DONE, MOON, PASS, PLAY

STEP_NAMES = {s.name for s in STEPS}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_position_reaches_its_legal_lists(name: str) -> None:
    position = POSITIONS[name]
    for choose in (0, 1, 99):
        seen = simulate(position, choose)
        assert {k: tuple(seen[k]) for k in position.expect} == dict(position.expect)
        for number in range(1, position.decisions + 1):
            if number not in position.expect:
                assert len(seen[number]) == 1, f"decision {number} is not forced"


@pytest.mark.parametrize("name", list(POSITIONS))
def test_every_position_has_its_step(name: str) -> None:
    assert f"play.{name}" in STEP_NAMES or f"state.{name}" in STEP_NAMES


def test_the_forced_decisions_before_a_target_are_really_forced() -> None:
    # hearts_not_broken: the bot's only club is the AC, so the first trick is its
    assert simulate(POSITIONS["hearts_not_broken"])[1] == ["AC"]


def test_the_cancelled_trick_has_no_winner() -> None:
    position = POSITIONS["cancelled_trick"]
    round_ = position.match().next_round(position.deal())
    opponents = position.opponents()
    while round_.trick_number == 0:
        seat = round_.turn
        card = round_.legal_plays()[0] if seat == position.seat else opponents.play(round_, seat, 0)
        round_.play(seat, card)
    assert round_.tricks[0].winner is None
    assert round_.turn == round_.tricks[0].leader


@pytest.mark.parametrize("variant", ["american", "american-moon-choice", "dutch-35", "dutch", "american-3"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_moon_position_shoots_the_moon_whatever_the_bot_plays(variant: str, seed: int) -> None:
    position = moon_position(ruleset(variant))
    assert position.rules.moon == "shooter_choice"
    match = Match(position.rules, position.seed, first_dealer=position.dealer)
    round_ = match.next_round(position.deal())
    opponents = Opponents(position.seed)
    rng = random.Random(seed)
    while round_.phase not in (DONE, MOON):
        assert round_.phase == PLAY
        seat = round_.turn
        card = rng.choice(round_.legal_plays()) if seat == position.seat else opponents.play(round_, seat, 0)
        round_.play(seat, card)
    assert round_.phase == MOON and round_.turn == position.seat


def test_the_variant_keeps_its_own_moon_rules_when_it_has_the_choice() -> None:
    assert moon_position(ruleset("dutch-35")).rules.deck == "piket"
    assert moon_position(ruleset("american")).rules.name == "american-moon-choice"


def test_deal_hands_refuses_a_card_twice() -> None:
    with pytest.raises(ValueError, match="dealt twice"):
        deal_hands(ruleset("american"), {0: "2C 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"})


def test_deal_hands_gives_the_rest_to_the_other_seats() -> None:
    rules = ruleset("american")
    hands = deal_hands(rules, {2: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"}, seed=3)
    assert sorted(c for hand in hands for c in hand) == sorted(set(c for hand in hands for c in hand))
    assert all(len(h) == 13 for h in hands)
    assert Match(rules, 1).next_round(hands).phase == PASS
