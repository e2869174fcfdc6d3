"""``referee bench engine``: random legal hands through the rules API, timed in one process.

The figures go to ``docs/performance.md`` with the command that produced them; no test
asserts a speed (timed assertions flake on shared machines).
"""

from __future__ import annotations

import random
import time

import msgspec

from referee.rules.deck import deck_for
from referee.rules.match import Match
from referee.rules.playout import PlayoutPolicy, finish
from referee.rules.presets import ruleset
from referee.rules.random_play import play_round
from referee.rules.round import PLAY, Round
from referee.rules.sampling import sample_round
from referee.rules.view import seat_view


class EngineBench(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``referee bench engine``."""

    variant: str
    seconds: float
    hands: int
    decisions: int
    hands_per_second: float
    decisions_per_second: float


def bench_engine(variant: str = "american", seconds: float = 5.0, seed: int = 1) -> EngineBench:
    """Play random legal matches of ``variant`` for about ``seconds`` and count complete hands
    (deal, passing, every trick, scoring) and decisions (passes, plays, declarations, moon
    choices). Uses ``Match`` and ``Round`` exactly as the referee does."""
    rules = ruleset(variant)
    rng = random.Random(seed)
    hands = decisions = 0
    match_seed = seed
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        match = Match(rules, match_seed)
        match_seed += 1
        while not match.over:
            round_ = match.next_round()
            decisions += play_round(round_, rng)
            match.record(round_)
            hands += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return EngineBench(
        variant=variant,
        seconds=round(elapsed, 3),
        hands=hands,
        decisions=decisions,
        hands_per_second=round(hands / elapsed, 1),
        decisions_per_second=round(decisions / elapsed, 1),
    )


class PlayoutBench(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``referee bench engine --playouts``."""

    variant: str
    policy: str
    seconds: float
    positions: int
    playouts: int
    playouts_per_second: float
    """Playouts alone: a copy of the position finished with the policy."""
    worlds_per_second: float
    """A sampled world (``sample_round`` from the seat's view) and one playout from it: the
    unit of work of the search bot."""


def _mid_round(round_: Round, rng: random.Random) -> None:
    """Random legal play from the deal to a point in the first half of the tricks."""
    need = round_.deck.rules.pass_count
    while round_.phase != PLAY:
        if round_.phase == "pass":
            for seat in round_.awaiting():
                round_.pass_cards(seat, rng.sample(round_.hand(seat), need))
        else:
            round_.declare(round_.turn, False)
    plays = rng.randrange(round_.deck.hand_size * round_.deck.players // 2)
    for _ in range(plays):
        round_.play(round_.turn, rng.choice(round_.legal_plays()))


def bench_playouts(
    variant: str = "american", seconds: float = 5.0, seed: int = 1, policy: PlayoutPolicy = "greedy"
) -> PlayoutBench:
    """Playouts per second from mid-round positions (random play to a point in the first half
    of the round): half the time spent on plain playouts of copies of the true position, half
    on sampled worlds (sample from the view of the seat to play, then one playout)."""
    rules = ruleset(variant)
    deck = deck_for(rules)
    rng = random.Random(seed)
    positions = playouts = worlds = 0
    match_seed = seed
    half = seconds / 2
    plain = sampled = 0.0
    while plain + sampled < seconds:
        round_ = Match(rules, match_seed).next_round()
        match_seed += 1
        _mid_round(round_, rng)
        positions += 1
        view = seat_view(round_, round_.turn)
        budget = 0.05
        start = time.perf_counter()
        while time.perf_counter() - start < budget:
            for _ in range(20):
                finish(round_.copy(), rng, policy)
            playouts += 20
        plain += time.perf_counter() - start
        start = time.perf_counter()
        while time.perf_counter() - start < budget:
            for _ in range(20):
                finish(sample_round(deck, view, rng), rng, policy)
            worlds += 20
        sampled += time.perf_counter() - start
        if plain >= half and sampled >= half:
            break
    return PlayoutBench(
        variant=variant,
        policy=policy,
        seconds=round(plain + sampled, 3),
        positions=positions,
        playouts=playouts + worlds,
        playouts_per_second=round(playouts / plain, 1),
        worlds_per_second=round(worlds / sampled, 1),
    )
