"""``referee bench openspiel``'s driver for OpenSpiel: a uniform draw over ``legal_actions()`` at
every node is only fair (and correct) because, in OpenSpiel's Hearts, a chance node's legal
actions are exactly its chance outcomes and those are uniform. Checked along random hands."""

from __future__ import annotations

import random

import pytest

from referee.bench.openspiel import openspiel_hands

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is in the test extra; this machine lacks it")


def test_chance_nodes_are_uniform_over_their_legal_actions() -> None:
    game = pyspiel.load_game("hearts")
    rng = random.Random(5)
    chance_nodes = 0
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                uniform = [1 / len(outcomes)] * len(outcomes)
                assert [action for action, _ in outcomes] == state.legal_actions()
                assert [probability for _, probability in outcomes] == pytest.approx(uniform)
                chance_nodes += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert chance_nodes == 5 * 53  # the pass direction and 52 cards dealt, each hand


def test_the_driver_finishes_hands() -> None:
    assert openspiel_hands(pyspiel.load_game("hearts"), 0.01, 1) > 0
