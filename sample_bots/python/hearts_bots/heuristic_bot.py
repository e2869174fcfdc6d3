"""A Hearts bot that plays like a careful human, following the tips in the rule texts.

Passing: pass the Q♠ unless she is guarded by many low spades, the A♠/K♠ when short in
spades, high hearts, and try to empty a short side suit. Leading: low spades to flush out the
Q♠ when someone else holds her, otherwise the card least likely to win, never hearts when
anything else will do. Following: the highest card that still loses the trick; when it must
win, the lowest (the highest when it plays last or cannot lose anyway). Void in the led suit:
dump the most dangerous card (the Q♠, then the A♠/K♠ while she is out, then penalty cards,
then high cards). Card values come from the rules (``state.value``), so it plays every
variant and goes for bonus cards (the Omnibus J♦); in phase 2 of a two-phase match, where
points taken are subtracted, it tries to take points instead.

Its program, with the command line, is ``sample_bots/python/heuristic_bot.py``.
"""

from __future__ import annotations

from collections import Counter

from protocol.bot import Bot, TableState, card_rank, card_suit, trick_winner
from protocol.messages import DeclareRequest, MoonRequest, PassRequest, PlayRequest

QUEEN = "QS"


class _View:
    """What one decision needs, computed once."""

    def __init__(self, state: TableState, legal: list[str], trick: list[str]) -> None:
        self.state = state
        self.legal = legal
        self.trick = trick
        self.sign = -1 if state.match_phase == 2 else 1
        """+1: points are bad (avoid them); -1: phase 2, points taken are subtracted (take them)."""
        self.unseen = state.unseen()
        self.unseen_ranks: dict[str, list[int]] = {s: [] for s in "CDSH"}
        for code in self.unseen:
            self.unseen_ranks[card_suit(code)].append(card_rank(code))
        self.hand_count = Counter(card_suit(c) for c in state.hand)
        self.queen_out = state.value(QUEEN) > 0 and QUEEN in self.unseen
        """Someone else holds the Q♠ (it is neither ours nor played yet)."""
        self.after = state.num_players - len(trick) - 1
        """Seats that play to this trick after us."""
        self.identical = state.rules.identical_cards
        self.threat = self._moon_threat()

    def cost(self, code: str) -> int:
        """What taking the card costs us: its points, negated in phase 2."""
        return self.sign * self.state.value(code)

    def beats(self, code: str) -> bool:
        """Whether ``code`` would be winning the trick once played."""
        return trick_winner([*self.trick, code], self.identical) == len(self.trick)

    def certain(self, code: str) -> bool:
        """Whether no card still out can beat ``code`` in its suit."""
        rank = card_rank(code)
        return all(r < rank for r in self.unseen_ranks[card_suit(code)])

    def _moon_threat(self) -> int | None:
        """Another seat that has taken every penalty point so far, and most of them."""
        state = self.state
        rule = state.rules.moon if state.match_phase == 1 else state.rules.moon_phase2
        if self.sign < 0 or rule == "none" or not state.taken:
            return None
        penalty = [sum(v for c in cards if (v := state.value(c)) > 0) for cards in state.taken]
        total = sum(penalty)
        worth = sum(v for c in state.deck() if (v := state.value(c)) > 0)
        for seat, points in enumerate(penalty):
            if seat != state.seat and points == total and total > 0.6 * worth:
                return seat
        return None


class HeuristicBot(Bot):
    name = "heuristic"
    version = "1.0"
    author = "hearts-referee sample bots"

    # -- passing -----------------------------------------------------------------------------
    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        hand = list(request.legal)
        count = request.count
        view = _View(state, hand, [])
        if view.sign < 0:  # points are welcome: keep high cards and penalty cards
            return sorted(hand, key=lambda c: (view.cost(c) < 0, card_rank(c)))[:count]
        spades = [c for c in hand if card_suit(c) == "S"]
        low_spades = [c for c in spades if card_rank(c) < 12]
        queen_counts = state.value(QUEEN) > 0
        keep_queen = QUEEN in hand and len(low_spades) >= max(4, len(hand) // 3)

        def danger(code: str) -> float:
            rank, value = card_rank(code), view.cost(code)
            if value < 0:
                return -100.0 + rank  # a bonus card: keep it
            if code == QUEEN and queen_counts:
                return -50.0 if keep_queen else 200.0
            if card_suit(code) == "S" and rank > 12 and queen_counts and not keep_queen and len(low_spades) < 3:
                return 150.0 + rank  # a high spade without low guards catches the queen
            if value >= 5:
                return 120.0 + value + rank
            if value > 0:
                return rank + max(0, rank - 8) + value  # high hearts yes, low hearts are safe
            return float(rank)

        ranked = sorted(hand, key=danger, reverse=True)
        chosen = [c for c in ranked if danger(c) >= 100][:count]
        # empty a short side suit with the places left
        left = count - len(chosen)
        rest = [c for c in hand if c not in chosen]
        suits: dict[str, list[str]] = {}
        for code in rest:
            suits.setdefault(card_suit(code), []).append(code)
        candidates = [
            group
            for suit, group in suits.items()
            if suit in "CD" and 0 < len(group) <= left and all(view.cost(c) >= 0 for c in group)
        ]
        if candidates:  # the shortest such suit, the one with the highest card on a tie

            def shortest(group: list[str]) -> tuple[int, int]:
                return len(group), -max(card_rank(c) for c in group)

            void = min(candidates, key=shortest)
            chosen += void
        for code in ranked:
            if len(chosen) >= count:
                break
            if code not in chosen:
                chosen.append(code)
        return chosen[:count]

    # -- playing -----------------------------------------------------------------------------
    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        legal = list(request.legal)
        if len(legal) == 1:
            return legal[0]
        view = _View(state, legal, list(request.trick))
        if not request.trick:
            card = self.lead(view)
        elif any(card_suit(c) == card_suit(request.trick[0]) for c in legal):
            card = self.follow(view)
        else:
            card = self.discard(view)
        return card if card in legal else legal[0]

    def lead(self, view: _View) -> str:
        legal = view.legal
        if view.sign < 0:
            return max(legal, key=lambda c: self._lead_for_points(view, c))
        if view.queen_out:  # flush the queen out with low spades
            low = [c for c in legal if card_suit(c) == "S" and card_rank(c) < 12]
            high = [c for c in view.state.hand if card_suit(c) == "S" and card_rank(c) > 12]
            if low and len(low) > len(high):
                return min(low, key=card_rank)
        return min(legal, key=lambda c: self._lead_risk(view, c))

    def _lead_risk(self, view: _View, code: str) -> tuple[float, int]:
        suit, rank = card_suit(code), card_rank(code)
        out = view.unseen_ranks[suit]
        penalty_out = any(view.cost(c) > 0 for c in view.unseen)
        if not out:
            risk = 8.0 if penalty_out else 0.0  # we win it, and the others may dump on us
        elif view.certain(code):
            risk = 8.0
        else:
            risk = 6.0 * sum(r < rank for r in out) / len(out)
        value = view.cost(code)
        if value > 0:
            risk += 4 + 2 * value
        elif value < 0:
            risk += -10 if view.certain(code) else 3  # a sure bonus: take it; else keep it
        if suit == "S" and rank > 12 and view.queen_out:
            risk += 10
        if suit == "H":
            risk += 2
        risk += 0.2 * view.hand_count[suit]  # shorter suits first: void them
        return risk, rank

    def _lead_for_points(self, view: _View, code: str) -> float:
        suit, rank = card_suit(code), card_rank(code)
        sure = view.certain(code)
        score = rank / 3 + (10 if sure else 0)
        score += -view.cost(code) if sure else 2 * view.cost(code)
        return score + (2 if suit == "H" and sure else 0)

    def follow(self, view: _View) -> str:
        legal, trick = view.legal, view.trick
        trick_cost = sum(view.cost(c) for c in trick)
        has_penalty = any(view.state.value(c) > 0 for c in trick)
        winners = [c for c in legal if view.beats(c)]
        losers = [c for c in legal if c not in winners]
        if view.after == 0:  # last to play: the outcome is known

            def outcome(code: str) -> tuple[float, int]:
                result: float
                if code in winners:
                    result = trick_cost + view.cost(code)
                    if view.threat is not None and has_penalty:
                        result -= 50  # stop the moon
                else:
                    result = -0.3 * view.cost(code)
                return result, -card_rank(code)

            return min(legal, key=outcome)
        if view.sign < 0:  # phase 2: try to take the trick
            if winners:
                sure = [c for c in winners if view.certain(c)]
                return min(sure, key=card_rank) if sure else max(winners, key=card_rank)
            return min(legal, key=lambda c: (view.cost(c) < 0, card_rank(c)))
        bonus = [c for c in winners if view.cost(c) < 0 and view.certain(c)]
        if bonus and trick_cost <= 0:
            return bonus[0]
        if view.threat is not None and view.state.trick_winner() == view.threat and has_penalty and winners:
            return max(winners, key=card_rank)
        if losers and max(view.cost(c) for c in losers) > 0:  # a penalty card that loses: the Q♠ under the A♠
            return max(losers, key=lambda c: (view.cost(c), card_rank(c)))
        if winners and self._safe_to_win(view, trick_cost):
            return max(legal, key=lambda c: (view.cost(c) <= 0, card_rank(c)))
        if losers:  # the highest card that still loses
            return max(losers, key=lambda c: (view.cost(c), card_rank(c)))
        ordered = sorted(legal, key=lambda c: (view.cost(c) > 0, card_rank(c)))
        if view.certain(ordered[0]):  # we take it whatever we play: shed the highest
            return max(legal, key=lambda c: (view.cost(c) <= 0, card_rank(c)))
        return ordered[0]

    def _safe_to_win(self, view: _View, trick_cost: int) -> bool:
        """A clean trick nobody is likely to spoil: the first trick when no points may be
        played to it, or the first round of a side suit with everyone still holding it."""
        state = view.state
        if trick_cost > 0:
            return False
        if state.first_trick and state.rules.first_trick_no_points:
            return True
        led = card_suit(view.trick[0])
        if led == "H" or (led == "S" and view.queen_out):
            return False
        after = state.still_to_play()[1:]
        if any(led in state.voids[s] for s in after if s < len(state.voids)):
            return False
        if any(card_suit(t.cards[0]) == led for t in state.tricks):
            return False
        return len(view.unseen_ranks[led]) >= 2 * view.after + 2

    def discard(self, view: _View) -> str:
        state = view.state
        if view.sign < 0:  # keep the points and the high cards for winning tricks later
            return min(view.legal, key=lambda c: (view.cost(c) < 0, card_rank(c)))
        if view.threat is not None and state.trick_winner() == view.threat:
            return max(view.legal, key=lambda c: (view.cost(c) <= 0, card_rank(c)))

        def danger(code: str) -> float:
            rank, value = card_rank(code), view.cost(code)
            if value < 0:
                return -100.0 + rank
            if value > 0:
                return 100.0 + 10 * value + rank
            if card_suit(code) == "S" and rank > 12 and view.queen_out:
                return 100.0 + 5 * state.value(QUEEN) + rank  # catches the queen: after her
            return rank + max(0, 4 - view.hand_count[card_suit(code)])

        return max(view.legal, key=danger)

    # -- the rest ----------------------------------------------------------------------------
    def choose_declare(self, state: TableState, request: DeclareRequest) -> bool:
        """Declare a hand of low cards without heavy penalty cards, and only in phase 1 (in
        phase 2 the bot wants points)."""
        if state.match_phase != 1 or not state.hand:
            return False
        risk = sum(max(0, card_rank(c) - 9) for c in state.hand)
        risk += sum(2 for c in state.hand if state.value(c) >= 3)
        return risk <= 9

    def choose_moon(self, state: TableState, request: MoonRequest) -> str:
        """Add to the others when that ends the match with us winning; otherwise subtract
        from ourselves when allowed (keeps the others from reaching the end)."""
        options = list(request.options)
        if len(options) < 2 or state.rules.end != "target" or not state.scores:
            return options[0] if options else "add_to_others"
        me = state.seat
        after_add = [s + (0 if i == me else request.points) for i, s in enumerate(state.scores)]
        if max(after_add) >= state.rules.target:
            wins = after_add[me] < min(s for i, s in enumerate(after_add) if i != me)
            return "add_to_others" if wins else "subtract_from_shooter"
        return "subtract_from_shooter" if "subtract_from_shooter" in options else options[0]
