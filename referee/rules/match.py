"""A match: rounds dealt one after another until the rule set's end condition is met.

The ``Match`` owns what lasts across rounds: the scores, the dealer (drawn from the seed, then
one seat to the left each round), the place in the pass schedule, the phase of a two-phase
match and the final result. It deals each ``Round`` (from the seed, or from explicit hands
for duplicate play) and records the round's result when it is done.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

import msgspec

from protocol.cards import COPY_STRIDE, Card, card_code
from protocol.ruleset import RuleSet
from referee.rules.dealing import deal, draw_seat
from referee.rules.deck import Deck, deck_for
from referee.rules.errors import RulesError
from referee.rules.round import Round
from referee.rules.scoring import RoundResult

EndReason: TypeAlias = Literal[
    "target_reached", "rounds_played", "reached_zero", "nobody_can_reach_zero", "round_limit"
]


class MatchResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a match ended. Several winners means a tie; the referee reports it as such."""

    scores: list[int]
    winners: list[int]
    reason: EndReason
    rounds: int
    """Deals played, redeals after a revoke included."""

    @property
    def tie(self) -> bool:
        return len(self.winners) > 1


class Match:
    """The state of one match between ``rules.players`` seats."""

    def __init__(self, rules: RuleSet, seed: int, first_dealer: int | None = None) -> None:
        self.rules = rules
        self.deck: Deck = deck_for(rules)
        self.seed = seed
        n = rules.players
        self.first_dealer = draw_seat(seed, "first-dealer", n) if first_dealer is None else first_dealer % n
        self.dealer = self.first_dealer
        self.scores = [0] * n
        self.phase = 1
        self.results: list[RoundResult] = []
        self.deal_number = 0
        self.schedule_index = 0
        self.current: Round | None = None
        """The round being played, or the last one once recorded."""
        self._recorded = False
        self.result: MatchResult | None = None

    @classmethod
    def resumed(
        cls, rules: RuleSet, seed: int, *, scores: Sequence[int] | None = None, phase: int = 1, schedule_index: int = 0
    ) -> Match:
        """A new match of ``rules`` and ``seed`` set where a match that got there would be: its
        scores, its phase and its place in the pass schedule (the vectors start matches there
        to show a rule a match's first rounds never reach)."""
        if scores is not None and len(scores) != rules.players:
            raise RulesError(f"{len(scores)} scores for {rules.players} seats")
        if phase not in (1, 2) or (phase == 2 and rules.end != "two_phase"):
            raise RulesError(f"no match phase {phase} in a match that ends by {rules.end!r}")
        match = cls(rules, seed)
        match.scores = list(scores) if scores is not None else match.scores
        match.phase = phase
        match.schedule_index = schedule_index
        return match

    @property
    def over(self) -> bool:
        return self.result is not None

    def next_round(self, hands: Sequence[Sequence[Card]] | None = None) -> Round:
        """Deal the next round: from the seed, or the given hands (card ids by seat)."""
        if self.result is not None:
            raise RulesError("the match is over")
        if self.current is not None and not self._recorded:
            raise RulesError("the current round is not finished and recorded yet")
        if hands is None:
            masks = deal(self.deck, self.seed, self.deal_number, self.dealer)
        else:
            masks = hands_to_masks(self.deck, hands)
        schedule = self.rules.pass_schedule
        direction = schedule[self.schedule_index % len(schedule)]
        self.current = Round(self.deck, masks, self.dealer, direction, self.phase)
        self._recorded = False
        return self.current

    def record(self, round_: Round) -> RoundResult:
        """Add a finished round's result to the scores and decide whether the match is over."""
        if round_ is not self.current or round_.result is None:
            raise RulesError("only the current round, once finished, can be recorded")
        if self._recorded:
            raise RulesError("this round has already been recorded")
        self._recorded = True
        result = round_.result
        self.results.append(result)
        for seat, change in enumerate(result.score_changes):
            self.scores[seat] += change
        self.deal_number += 1
        if result.revoke is None:
            self.dealer = (self.dealer + 1) % self.rules.players
            self.schedule_index += 1
        self.result = self._end_check(result)
        two_phase = self.rules.end == "two_phase"
        if self.result is None and two_phase and self.phase == 1 and max(self.scores) >= self.rules.threshold:
            self.phase = 2
        return result

    def _end_check(self, last: RoundResult) -> MatchResult | None:
        rules = self.rules
        scores = self.scores
        played = len(self.results)
        reason: EndReason | None = None
        winners: list[int] = []
        if rules.end == "target" and max(scores) >= rules.target:
            reason = "target_reached"
        elif rules.end == "rounds" and sum(r.revoke is None for r in self.results) >= rules.rounds:
            reason = "rounds_played"
        elif rules.end == "two_phase" and last.match_phase == 2:
            exact = rules.finish == "exact_zero"
            done = [s for s, v in enumerate(scores) if (v == 0 if exact else v <= 0)]
            if done:
                reason = "reached_zero"
                if rules.tie_break == "furthest_below_zero":
                    low = min(scores[s] for s in done)
                    done = [s for s in done if scores[s] == low]
                winners = done
            elif exact and all(v < 0 for v in scores):
                reason = "nobody_can_reach_zero"
                best = max(scores)
                winners = [s for s, v in enumerate(scores) if v == best]
        if reason is None and played >= rules.round_limit:
            reason = "round_limit"
        if reason is None:
            return None
        if not winners:
            low = min(scores)
            winners = [s for s, v in enumerate(scores) if v == low]
        return MatchResult(scores=list(scores), winners=winners, reason=reason, rounds=played)


def hands_to_masks(deck: Deck, hands: Sequence[Sequence[Card]]) -> list[int]:
    """Check explicit hands against the deck and turn them into masks. In a double deck the
    second of two identical cards becomes the second copy."""
    if len(hands) != deck.players:
        raise RulesError(f"{len(hands)} hands given for {deck.players} players")
    pool = deck.full_mask
    masks: list[int] = []
    for seat, hand in enumerate(hands):
        if len(hand) != deck.hand_size:
            raise RulesError(f"seat {seat}: a hand of {len(hand)} cards, expected {deck.hand_size}")
        mask = 0
        for card in hand:
            face = card & (COPY_STRIDE - 1) if 0 <= card < 2 * COPY_STRIDE else -1
            for bit in (1 << face, 1 << (face + COPY_STRIDE)) if face >= 0 else ():
                if pool & bit:
                    pool ^= bit
                    mask |= bit
                    break
            else:
                name = _name(card)
                raise RulesError(f"seat {seat}: {name} is not in the deck, or dealt twice")
        masks.append(mask)
    return masks


def _name(card: Card) -> str:
    try:
        return card_code(card)
    except ValueError:
        return repr(card)
