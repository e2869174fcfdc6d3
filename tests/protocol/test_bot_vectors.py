"""The Python kit's ``TableState`` against the vectors (docs/vectors): every seat's side of every
preset, fed to ``TableState.update`` as the kit's session does; before each request the kit
holds what the vector's ``state`` says the seat can know, and after the request too."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.bot import TableState
from referee.rules.vectors import SeatState
from tests.sample_bots.vectors_feed import PRESETS, assert_vector_states, feed_seat, play_states, probe_view, seat_side


def kit_view(state: TableState) -> dict[str, Any]:
    """The kit's state in the vector's terms."""
    return {
        "seat": state.seat,
        "hand": sorted(state.hand),
        "trick": state.trick,
        "trick_number": len(state.tricks),
        "hearts_broken": state.hearts_broken,
        "points_taken": state.points_taken,
        "scores": state.scores,
        "declared": state.declarations,
        "passed": sorted(state.passed),
        "received": sorted(state.received),
        "match_phase": state.match_phase,
    }


def vector_view(state: SeatState) -> dict[str, Any]:
    return {
        "seat": state.seat,
        "hand": sorted(state.hand),
        "trick": state.trick,
        "trick_number": state.trick_number,
        "hearts_broken": state.hearts_broken,
        "points_taken": state.points_taken,
        "scores": state.scores,
        "declared": state.declared,
        "passed": sorted(state.passed or []),
        "received": sorted(state.received or []),
        "match_phase": state.match_phase,
    }


@pytest.mark.parametrize("preset", PRESETS)
def test_the_kit_keeps_the_state_of_every_seat(preset: str) -> None:
    players = feed_seat(preset) + 1
    for seat in range(players):
        state = TableState()
        requests = 0
        for step in seat_side(preset, seat):
            if step.state is not None:
                requests += 1
                want = vector_view(step.state)
                assert kit_view(state) == want, f"seat {seat}, before request {requests}: {step.message}"
                state.update(step.message)
                assert kit_view(state) == want, f"seat {seat}, at request {requests}"
                if step.state.trick:
                    assert state.trick_leader == step.state.trick_leader
            else:
                state.update(step.message)
        assert requests > 0


def test_the_probe_harness_sees_a_difference() -> None:
    """The other kits' harness (``assert_vector_states``) passes a report equal to the vector
    and fails one with a card wrong."""
    seat = feed_seat("american")
    states = [("american", state) for state in play_states("american", seat)]
    reports = [probe_view(state) for _, state in states]
    assert_vector_states(reports, states)
    reports[5] = {**reports[5], "hand": ["AS", *reports[5]["hand"][1:]]}
    with pytest.raises(AssertionError, match="american, play request 5"):
        assert_vector_states(reports, states)
