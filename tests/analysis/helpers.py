"""Matches played in-process for the analysis tests: the ``MatchRecord`` that verifying a log
gives, built by playing the rules engine with Python policies (no bot process: fast tier)."""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path

from protocol.cards import card_code
from protocol.ruleset import RuleSet
from referee.analysis.estimate import Budget, estimate
from referee.analysis.infoset import InfoSet, Kind, pass_text
from referee.bench.analyze import Pass, Play, greedy_pass, greedy_play, played_match
from referee.replay.record import MatchRecord
from referee.rules import Round, ruleset
from referee.rules.view import seat_view

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bots"))
from blunder_bot import blunder

greedy = greedy_play


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
            rules=round_.deck.rules, view=seat_view(round_, seat), scores=[0] * round_.deck.players,
            round=0, rounds_played=0, kind=kind,
        )  # fmt: skip
        return estimate(info, default, self.rng.getrandbits(64), self.budget).best

    def play(self, round_: Round, seat: int, rng: random.Random) -> str:
        return self._best(round_, seat, "play", card_code(round_.legal_plays()[0]))

    def pass_cards(self, round_: Round, seat: int) -> list[str]:
        return self._best(round_, seat, "pass", pass_text(greedy_pass(round_, seat))).split()


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
    return played_match(plays, seed, rules, passes, match_id=f"sim-{seed}",
                        names=[f"p{i}" for i in range(rules.players)], referee="test")  # fmt: skip
