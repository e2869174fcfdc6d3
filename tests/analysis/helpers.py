"""Matches played in-process for the analysis tests: the ``MatchRecord`` that verifying a log
gives, built by playing the rules engine with Python policies (no bot process: fast tier)."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from protocol.cards import card_code, parse_card
from protocol.ruleset import RuleSet
from referee.analysis.estimate import Budget, estimate
from referee.analysis.infoset import InfoSet, Kind, pass_text
from referee.replay.record import MatchRecord, MoonRecord, PassRecord, PlayRecord, RoundRecord, SeatRecord, TrickRecord
from referee.rules import Match, Round, ruleset
from referee.rules.playout import greedy_card
from referee.rules.view import seat_view
from referee.rules.wire import codes_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bots"))
from blunder_bot import blunder

Play = Callable[[Round, int, random.Random], str]
Pass = Callable[[Round, int], list[str]]


def greedy(round_: Round, seat: int, rng: random.Random) -> str:
    return card_code(greedy_card(round_, rng))


def first_legal(round_: Round, seat: int, rng: random.Random) -> str:
    return card_code(round_.legal_plays()[0])


def blunderer(round_: Round, seat: int, rng: random.Random) -> str:
    legal = [card_code(c) for c in round_.legal_plays()]
    return blunder(legal, [card_code(c) for c in round_.trick]) or legal[0]


class Searcher:
    """A player that makes the analysis policy's choice: at each decision the choice the
    analysis values best (``estimate`` with the greedy playouts, from the seat's own view, with
    seeds of its own), so the analysis of its play should find no loss but the noise."""

    def __init__(self, seed: int, budget: Budget) -> None:
        self.rng, self.budget = random.Random(seed), budget

    def _best(self, round_: Round, seat: int, kind: Kind, default: str) -> str:
        info = InfoSet(
            rules=round_.table.rules, view=seat_view(round_, seat), scores=[0] * round_.table.players,
            round=0, rounds_played=0, kind=kind,
        )  # fmt: skip
        return estimate(info, default, self.rng.getrandbits(64), self.budget).best

    def play(self, round_: Round, seat: int, rng: random.Random) -> str:
        return self._best(round_, seat, "play", card_code(round_.legal_plays()[0]))

    def pass_cards(self, round_: Round, seat: int) -> list[str]:
        return self._best(round_, seat, "pass", pass_text(greedy_pass(round_, seat))).split()


def greedy_pass(round_: Round, seat: int) -> list[str]:
    return _pass(round_, seat)


def _pass(round_: Round, seat: int) -> list[str]:
    cards = round_.hand(seat)
    cards.sort(key=lambda c: (round_.table.points[c], c & 15), reverse=True)
    return [card_code(c) for c in cards[: round_.table.rules.pass_count]]


def _round(
    round_: Round, number: int, plays: Sequence[Play], rng: random.Random, passes: Sequence[Pass]
) -> RoundRecord:
    n = round_.table.players
    rec = RoundRecord(
        round=number, dealer=round_.dealer, pass_direction=round_.pass_direction, match_phase=round_.match_phase,
        hands=[codes_of(m) for m in round_.dealt],
    )  # fmt: skip
    offset = round_.table.pass_offset(round_.pass_direction)
    for seat in range(n) if round_.phase == "pass" else ():
        cards = passes[seat](round_, seat)
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
        rec.moon = MoonRecord(seat=round_.turn, choice="add_to_others")
        round_.choose_moon(round_.turn, "add_to_others")
    return rec


def simulate(
    plays: Sequence[Play],
    seed: int,
    rounds: int = 2,
    rules: RuleSet | None = None,
    passes: Sequence[Pass] | None = None,
) -> MatchRecord:
    """A match of ``rounds`` rounds (American by default), seat ``i`` playing ``plays[i]`` and
    passing with ``passes[i]`` (the greedy pass by default)."""
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
        rec = _round(round_, len(match.results), plays, rng, passes or [_pass] * len(plays))
        rec.result = match.record(round_)
        rec.scores = list(match.scores)
        record.rounds.append(rec)
    return record
