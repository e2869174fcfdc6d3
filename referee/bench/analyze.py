"""``referee bench analyze``: how fast ``referee analyze`` values a match.

Without a log, a whole American match (to 100) is played in-process by the greedy playout
policy at every seat and recorded as a verified log's ``MatchRecord`` would be; then one
seat's decisions and deals are analysed with the default budget. Printed: playouts per
second, decisions per second and the time for the match (docs/performance.md).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Sequence

import msgspec

from protocol.cards import card_code, parse_card
from protocol.ruleset import RuleSet
from referee.analysis import Budget, analyse_match
from referee.replay.reader import read_log
from referee.replay.record import (
    MatchRecord,
    MoonRecord,
    PassRecord,
    PlayRecord,
    ReplayedTrick,
    RoundRecord,
    SeatRecord,
)
from referee.replay.verify import verify
from referee.rules import Match, Round, ruleset
from referee.rules.playout import greedy_card
from referee.rules.wire import codes_of


class AnalyzeBench(msgspec.Struct, kw_only=True):
    source: str
    rounds: int
    decisions: int
    analysed: int
    playouts: int
    seconds: float
    workers: int
    playouts_per_second: float
    decisions_per_second: float


Play = Callable[[Round, int, random.Random], str]
"""A player's card (its code) for ``seat`` in ``round_``."""
Pass = Callable[[Round, int], list[str]]
"""A player's pass (card codes) for ``seat`` in ``round_``."""


def greedy_play(round_: Round, seat: int, rng: random.Random) -> str:
    """The playout policy's card (``greedy_card``)."""
    return card_code(greedy_card(round_, rng))


def greedy_pass(round_: Round, seat: int) -> list[str]:
    """The most dangerous cards: points first, then rank."""
    cards = sorted(round_.hand(seat), key=lambda c: (round_.deck.points[c], c & 15), reverse=True)
    return [card_code(c) for c in cards[: round_.deck.rules.pass_count]]


def _round(
    round_: Round, number: int, plays: Sequence[Play], rng: random.Random, passes: Sequence[Pass]
) -> RoundRecord:
    n = round_.deck.players
    rec = RoundRecord(
        round=number, dealer=round_.dealer, pass_direction=round_.pass_direction, match_phase=round_.match_phase,
        hands=[codes_of(m) for m in round_.dealt],
    )  # fmt: skip
    offset = round_.deck.pass_offset(round_.pass_direction)
    for seat in range(n) if round_.phase == "pass" else ():
        cards = passes[seat](round_, seat)
        rec.passes.append(PassRecord(seat=seat, to_seat=(seat + offset) % n, cards=cards))
        round_.pass_cards(seat, [parse_card(c) for c in cards])
    while round_.phase == "play":
        if not round_.trick:
            rec.tricks.append(ReplayedTrick(number=round_.trick_number, leader=round_.leader))
        seat = round_.turn
        card = plays[seat](round_, seat, rng)
        rec.tricks[-1].plays.append(PlayRecord(seat=seat, card=card))
        before = round_.trick_number
        round_.play(seat, parse_card(card))
        if round_.trick_number != before:
            done = round_.tricks[-1]
            rec.tricks[-1].winner, rec.tricks[-1].points, rec.tricks[-1].complete = done.winner, done.points, True
    if round_.phase == "moon":
        rec.moon = MoonRecord(seat=round_.turn, choice="add_to_others")
        round_.choose_moon(round_.turn, "add_to_others")
    return rec


def played_match(
    plays: Sequence[Play],
    seed: int,
    rules: RuleSet,
    passes: Sequence[Pass] | None = None,
    *,
    match_id: str,
    names: Sequence[str],
    referee: str = "bench",
) -> MatchRecord:
    """A whole match played in-process by Python players (seat ``i`` playing ``plays[i]`` and
    passing with ``passes[i]``, the greedy pass by default; a shooter adds to the others), as
    the record verifying its log would give: what the analysis reads, with no bot process."""
    match = Match(rules, seed)
    record = MatchRecord(
        log_format=2, match_id=match_id, started="", referee=referee, protocol=1, seed=str(seed),
        first_dealer=match.first_dealer, rules=rules, policy="forfeit", time_control={},
        seats=[SeatRecord(seat=i, name=name, command="") for i, name in enumerate(names)],
    )  # fmt: skip
    rng = random.Random(seed)
    while not match.over:
        round_ = match.next_round()
        rec = _round(round_, len(match.results), plays, rng, passes or [greedy_pass] * len(plays))
        rec.result = match.record(round_)
        rec.scores = list(match.scores)
        record.rounds.append(rec)
    return record


def greedy_match(seed: int) -> MatchRecord:
    """An American match played by the greedy policy at every seat, as a record."""
    rules = ruleset("american")
    return played_match([greedy_play] * rules.players, seed, rules, match_id=f"greedy-{seed}",
                        names=[f"greedy{i}" for i in range(rules.players)])  # fmt: skip


def bench_analyze(log: str | None, seed: int, seat: int, workers: int | None) -> AnalyzeBench:
    record = verify(read_log(log).matches[0]) if log else greedy_match(seed)
    workers = workers or os.cpu_count() or 1
    started = time.perf_counter()
    analysis = analyse_match(record, [seat], seed=seed, budget=Budget(), workers=workers)
    seconds = time.perf_counter() - started
    analysed = sum(r.loss is not None for r in analysis.decisions)
    return AnalyzeBench(
        source=log or f"greedy American match, seed {seed}", rounds=len(record.rounds),
        decisions=len(analysis.decisions), analysed=analysed, playouts=analysis.playouts, seconds=seconds,
        workers=workers, playouts_per_second=analysis.playouts / seconds, decisions_per_second=analysed / seconds,
    )  # fmt: skip
