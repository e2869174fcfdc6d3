"""A Hearts bot that searches: determinized sampling (perfect-information Monte Carlo).

Method. At every decision the bot deals the cards it cannot see to the other seats, many
times, in ways consistent with everything it knows (``referee.rules.sampling``: its hand, the
cards it passed and to whom, the cards it received, every card played, voids shown, hearts
led before they were broken, the first-trick and queen rules). In each such *world* it tries
every candidate move and plays the rest of the round out with a fast greedy policy for every
seat (``referee.rules.playout``), all candidates on the same world with the same random
numbers, so that the comparison between them is not drowned in card luck. It picks the move
with the best mean. The measure is the round's score change for itself minus a weighted mean
of the others' (the seats closest to winning the match weigh more: ``rival_weights``), taken
from ``RoundResult.score_changes``, so moons, bonus cards such as the Omnibus J♦, Black
Maria's spades, failed or kept *miezen* and the count-down of Dutch phase 2, where taking
points lowers your score, all come out of the engine's own scoring).

- passing: candidate sets (every choice of ``count`` among the most dangerous cards, and a
  heuristic choice) evaluated over sampled deals, the other seats passing by a simple rule;
- playing: every legal card;
- declaring (Achterhoeks *miezen*): declaring and not declaring, evaluated the same way;
- the moon shooter's choice: from the match scores (the round is over; nothing is hidden).

Why this method: it is simple, it uses the rules engine as it is (every variant the referee
plays is searched with the same code), and it is the method of the classic strong Hearts
programs. ISMCTS would share statistics between worlds but is more code and, at the small
budgets a ladder can afford in Python, gains little; see docs/bots.md.

Time. The bot plans from each request's ``time``: it spends at most ``--budget`` (default 0.4)
of the decision's own limit, plus a small share of the bank when the limit is very short, and
checks the clock after each world. ``--playouts N`` gives a fixed amount of work instead (N
worlds per decision, each trying every candidate once), and with ``--seed`` the bot is then
deterministic. When no consistent world can be drawn (it never should), it falls back to the
heuristic bot.

The engine is a library here, as it is to any Python bot: ``referee.rules`` and the kit
(``protocol.bot``) come from the referee installed with pip in the Python that runs the bot
(``pip install -e .`` in the repository); nothing here looks for the repository's files.

Its program, with the command line, is ``sample_bots/python/search_bot.py``.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections.abc import Callable, Sequence
from typing import cast

from hearts_bots.clocked import BUDGET, ClockedBot, clock_parser
from protocol.bot import TableState
from protocol.cards import parse_card
from protocol.messages import DeclareRequest, MoonRequest, PassRequest, PlayRequest, TimeLeft
from protocol.ruleset import PassDirection
from referee.rules.deck import Deck, deck_for
from referee.rules.errors import RulesError
from referee.rules.playout import finish
from referee.rules.round import Round
from referee.rules.sampling import Knowledge, knowledge, sample_round_from
from referee.rules.view import SeatView, TrickView

MAX_WORLDS = 5000
"""Worlds per decision at most, whatever the clock allows."""


class SearchBot(ClockedBot):
    name = "search"
    version = "1.0"
    author = "hearts-referee sample bots"

    def __init__(
        self,
        seed: int | None = None,
        playouts: int | None = None,
        budget: float = BUDGET,
        max_seconds: float | None = None,
    ) -> None:
        super().__init__(seed, budget, max_seconds)
        self.playouts = playouts
        """Worlds per decision (fixed work), or ``None``: as many as the time allows."""
        self.worlds_searched = 0
        """Worlds searched in the last decision (for tests and logs)."""

    def _search(
        self,
        state: TableState,
        view: SeatView,
        candidates: Sequence[object],
        apply: Callable[[Round, object], None],
        time_left: TimeLeft | None,
    ) -> int:
        """The index of the candidate with the best mean over sampled worlds: in each world,
        a copy per candidate, ``apply``, then a greedy playout with the same random numbers."""
        deck = deck_for(state.rules)
        know = knowledge(deck, view)
        me = view.seat
        weights = rival_weights(state)
        totals = [0.0] * len(candidates)
        deadline = time.perf_counter() + self.seconds_for(time_left)
        limit = self.playouts if self.playouts is not None else MAX_WORLDS
        worlds = 0
        while worlds < limit:
            world = self._world(deck, view, know)
            seed = self.rng.getrandbits(32)
            for i, candidate in enumerate(candidates):
                round_ = world.copy()
                apply(round_, candidate)
                changes = finish(round_, random.Random(seed))
                totals[i] += changes[me] - sum(w * c for w, c in zip(weights, changes, strict=True))
            worlds += 1
            if self.playouts is None and time.perf_counter() >= deadline:
                break
        self.worlds_searched = worlds
        best = min(range(len(candidates)), key=lambda i: totals[i])
        self.log.debug("%d worlds: %s", worlds, [round(t / worlds, 2) for t in totals])
        return best

    def _world(self, deck: Deck, view: SeatView, know: Knowledge) -> Round:
        return sample_round_from(deck, view, know, self.rng)

    # -- decisions -----------------------------------------------------------------------------
    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        legal = list(request.legal)
        if len(legal) == 1:
            return legal[0]
        view = seat_view_of(state, "play", legal)
        me = state.seat

        def play(round_: Round, card: object) -> None:
            round_.play(me, parse_card(cast(str, card)))

        try:
            return legal[self._search(state, view, legal, play, request.time)]
        except RulesError as err:
            self.log.warning("no search (%s): playing the heuristic card", err)
            return self.fallback.choose_play(state, request)

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        hand = list(request.legal)
        count = request.count
        heuristic = self.fallback.choose_pass(state, request)
        candidates = pass_candidates(state, hand, count, heuristic)
        if len(candidates) == 1:
            return candidates[0]
        view = seat_view_of(state, "pass", [], hand=hand)
        me = state.seat

        def give(round_: Round, cards: object) -> None:
            round_.pass_cards(me, [parse_card(c) for c in cast(list[str], cards)])

        try:
            return candidates[self._search(state, view, candidates, give, request.time)]
        except RulesError as err:
            self.log.warning("no search (%s): passing the heuristic cards", err)
            return heuristic

    def choose_declare(self, state: TableState, request: DeclareRequest) -> bool:
        view = seat_view_of(state, "declare", [], declared=list(request.declarations))
        me = state.seat

        def declare(round_: Round, made: object) -> None:
            round_.declare(me, bool(made))

        try:
            return (False, True)[self._search(state, view, (False, True), declare, request.time)]
        except RulesError as err:
            self.log.warning("no search (%s): the heuristic declaration", err)
            return self.fallback.choose_declare(state, request)

    def choose_moon(self, state: TableState, request: MoonRequest) -> str:
        return moon_choice(state, list(request.options), request.points)


# -- helpers ------------------------------------------------------------------------------------
def seat_view_of(
    state: TableState,
    phase: str,
    legal: list[str],
    *,
    hand: list[str] | None = None,
    declared: list[bool | None] | None = None,
) -> SeatView:
    """The engine's ``SeatView`` of what the kit's ``TableState`` knows at a decision."""
    n = state.num_players
    exchanged = phase != "pass"
    passed = list(state.passed) if exchanged and state.passed else None
    return SeatView(
        seat=state.seat,
        players=n,
        dealer=state.dealer,
        match_phase=state.match_phase,
        phase=phase,
        pass_direction=cast(PassDirection, state.pass_direction),
        hand=list(state.hand if hand is None else hand),
        passed=passed,
        received=list(state.received) if exchanged else None,
        declared=list(state.declarations if declared is None else declared) or [None] * n,
        tricks=[TrickView(t.leader, list(t.cards), t.winner, t.points) for t in state.tricks],
        trick_leader=state.trick_leader,
        trick=list(state.trick),
        hearts_broken=state.hearts_broken,
        points_taken=list(state.points_taken),
        turn=state.seat if phase in ("play", "declare") else -1,
        legal=legal,
    )


def rival_weights(state: TableState) -> list[float]:
    """How much each other seat's score change counts against the bot's own (they sum to 1).

    In a match that the lowest total wins (to a target, or after a number of rounds) points
    given to a seat far behind are worth less than points given to the seat closest to
    winning: half the weight goes to every other seat alike, half to the rivals (the other
    seats with the lowest match score). So the bot dumps the Q♠ on the leader rather than on a
    seat that is losing anyway. At the start, when all scores are equal, this is the mean of
    the others. A two-phase match (Dutch) is judged by the mean: its phases count differently.
    The weights look at one round: they do not see that points pushed onto a seat near the
    target may end the match while the bot is behind (the moon choice, ``moon_choice``, does).
    Scores missing or of the wrong length (never sent by a referee) give the plain mean.
    """
    n = state.num_players
    me = state.seat
    others = [j for j in range(n) if j != me]
    weights = [0.0] * n
    for j in others:
        weights[j] = 1 / len(others)
    scores = state.scores
    if state.rules.end not in ("target", "rounds") or not scores or len(scores) != n:
        return weights
    best = min(scores[j] for j in others)
    rivals = [j for j in others if scores[j] == best]
    for j in others:
        weights[j] = weights[j] / 2 + (1 / (2 * len(rivals)) if j in rivals else 0.0)
    return weights


def pass_candidates(state: TableState, hand: list[str], count: int, heuristic: list[str]) -> list[list[str]]:
    """Sets of cards worth trying to pass: every choice of ``count`` among the ``count + 3``
    cards it costs most to keep (points and rank; the other way round in phase 2), and the
    heuristic bot's choice."""
    if count >= len(hand):
        return [hand[:count]]
    sign = -1 if state.match_phase == 2 else 1

    def danger(code: str) -> tuple[int, int]:
        value = state.value(code)
        rank = "23456789TJQKA".index(code[0])
        spade_guard = 1 if code[-1] == "S" and rank >= 10 else 0  # A and K of spades catch the Q
        return sign * (value + spade_guard * 5), sign * rank

    ranked = sorted(hand, key=danger, reverse=True)[: count + 3]
    candidates = [list(c) for c in itertools.combinations(ranked, count)]
    if sorted(heuristic) not in [sorted(c) for c in candidates]:
        candidates.append(list(heuristic))
    return candidates


def moon_choice(state: TableState, options: list[str], points: int) -> str:
    """The shooter's choice, from the match scores. In a match to a target: add to the others
    when that ends the match with us alone lowest, never when it ends it with us behind,
    otherwise subtract from ourselves. In a two-phase match subtracting brings us closer to
    zero; adding keeps the others away from it in phase 2 unless that finishes nobody."""
    if len(options) < 2:
        return options[0] if options else "add_to_others"
    me = state.seat
    scores = state.scores or [0] * state.num_players
    rules = state.rules
    add = [s + (0 if i == me else points) for i, s in enumerate(scores)]
    sub = [s - (points if i == me else 0) for i, s in enumerate(scores)]
    if rules.end in ("target", "rounds"):
        if rules.end == "target" and max(add) >= rules.target:
            alone = add[me] < min(s for i, s in enumerate(add) if i != me)
            return "add_to_others" if alone else "subtract_from_shooter"
        return "subtract_from_shooter"
    if state.match_phase == 2:
        finished = sub[me] == 0 if rules.finish == "exact_zero" else sub[me] <= 0
        return "subtract_from_shooter" if finished or sub[me] >= 0 else "add_to_others"
    return "subtract_from_shooter"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = clock_parser()
    parser.add_argument("--playouts", type=int, help="worlds per decision (fixed, reproducible work)")
    args, _ = parser.parse_known_args(argv)
    return args


def make_bot(argv: Sequence[str]) -> SearchBot:
    """The bot its command line asks for (the arguments it does not know are the kit's)."""
    args = parse_args(argv)
    playouts = None if args.playouts is None else max(1, int(args.playouts))
    return SearchBot(args.seed, playouts, float(args.budget), args.max_seconds)
