"""Matches played in-process for the analysis tests: the ``MatchRecord`` that verifying a log
gives, built by playing the rules engine with Python policies (no bot process: fast tier)."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from protocol.cards import card_code, parse_card
from protocol.ruleset import RuleSet
from referee.replay.record import MatchRecord, PassRecord, PlayRecord, RoundRecord, SeatRecord, TrickRecord
from referee.rules import Match, Round, ruleset
from referee.rules.playout import greedy_card
from referee.rules.wire import codes_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bots"))
from blunder_bot import blunder

Play = Callable[[Round, int, random.Random], str]


def greedy(round_: Round, seat: int, rng: random.Random) -> str:
    return card_code(greedy_card(round_, rng))


def first_legal(round_: Round, seat: int, rng: random.Random) -> str:
    return card_code(round_.legal_plays()[0])


def blunderer(round_: Round, seat: int, rng: random.Random) -> str:
    legal = [card_code(c) for c in round_.legal_plays()]
    return blunder(legal, [card_code(c) for c in round_.trick]) or legal[0]


def _pass(round_: Round, seat: int) -> list[str]:
    cards = round_.hand(seat)
    cards.sort(key=lambda c: (round_.table.points[c], c & 15), reverse=True)
    return [card_code(c) for c in cards[: round_.table.rules.pass_count]]


def _round(round_: Round, number: int, plays: Sequence[Play], rng: random.Random) -> RoundRecord:
    n = round_.table.players
    rec = RoundRecord(
        round=number, dealer=round_.dealer, pass_direction=round_.pass_direction, match_phase=round_.match_phase,
        hands=[codes_of(m) for m in round_.dealt],
    )  # fmt: skip
    offset = round_.table.pass_offset(round_.pass_direction)
    for seat in range(n) if round_.phase == "pass" else ():
        cards = _pass(round_, seat)
        rec.passes.append(PassRecord(seat=seat, to_seat=(seat + offset) % n, cards=cards))
        round_.pass_cards(seat, [parse_card(c) for c in cards])
    while round_.phase == "play":
        if not round_.trick:
            rec.tricks.append(TrickRecord(number=round_.trick_number, leader=round_.leader))
        seat = round_.turn
        card = plays[seat](round_, seat, rng)
        rec.tricks[-1].plays.append(PlayRecord(seat=seat, card=card))
        number_before = round_.trick_number
        round_.play(seat, parse_card(card))
        if round_.trick_number != number_before:
            done = round_.tricks[-1]
            rec.tricks[-1].winner, rec.tricks[-1].points, rec.tricks[-1].complete = done.winner, done.points, True
    if round_.phase == "moon":
        round_.choose_moon(round_.turn, "add_to_others")
    return rec


def simulate(plays: Sequence[Play], seed: int, rounds: int = 2, rules: RuleSet | None = None) -> MatchRecord:
    """A match of ``rounds`` rounds (American by default), seat ``i`` playing ``plays[i]``."""
    rules = rules or ruleset("american", {"end": "rounds", "rounds": rounds})
    match = Match(rules, seed)
    record = MatchRecord(
        log_format=2, match_id=f"sim-{seed}", started="", referee="test", protocol=1, seed=str(seed),
        first_dealer=match.first_dealer, rules=rules, policy="forfeit", time_control={},
        seats=[SeatRecord(seat=i, name=f"p{i}", command="") for i in range(rules.players)],
    )  # fmt: skip
    rng = random.Random(seed)
    while not match.over:
        round_ = match.next_round()
        rec = _round(round_, len(match.results), plays, rng)
        rec.result = match.record(round_)
        rec.scores = list(match.scores)
        record.rounds.append(rec)
    return record
