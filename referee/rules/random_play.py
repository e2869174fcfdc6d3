"""Random legal play through the public API: the engine benchmark and the property tests use it.

It acts only through the calls the referee makes (``awaiting``, ``hand``, ``legal_plays``,
``pass_cards``, ``declare``, ``play``, ``choose_moon``), so measuring it measures the engine
as the referee drives it; there is no separate fast path.
"""

from __future__ import annotations

import random

from referee.rules.match import Match
from referee.rules.round import DECLARE, MOON, PASS, PLAY, Round


def play_round(round_: Round, rng: random.Random) -> int:
    """Finish a round with random legal actions; return how many decisions were made."""
    decisions = 0
    need = round_.deck.rules.pass_count
    choice = rng.choice
    while True:
        phase = round_.phase
        if phase == PLAY:
            # Every card left in a hand is one play; the loop re-checks the phase afterwards.
            plays = sum(map(int.bit_count, round_.hands))
            play = round_.play
            legal_plays = round_.legal_plays
            for _ in range(plays):
                play(round_.turn, choice(legal_plays()))
            decisions += plays
        elif phase == PASS:
            for seat in round_.awaiting():
                round_.pass_cards(seat, rng.sample(round_.hand(seat), need))
                decisions += 1
        elif phase == DECLARE:
            round_.declare(round_.turn, rng.random() < 0.2)
            decisions += 1
        elif phase == MOON:
            round_.choose_moon(round_.turn, choice(("add_to_others", "subtract_from_shooter")))
            decisions += 1
        else:
            return decisions


def play_match(match: Match, rng: random.Random) -> tuple[int, int]:
    """Play a match to its end at random; return (rounds, decisions)."""
    rounds = decisions = 0
    while not match.over:
        round_ = match.next_round()
        decisions += play_round(round_, rng)
        match.record(round_)
        rounds += 1
    return rounds, decisions
