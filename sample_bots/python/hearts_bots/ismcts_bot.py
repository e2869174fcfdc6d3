"""A Hearts bot that plays with OpenSpiel's ISMCTS: a published search bot to measure ours against.

What it is. ``pyspiel.ISMCTSBot`` (information-set Monte Carlo tree search, Cowling et al.
2012, as implemented in C++ by OpenSpiel) on OpenSpiel's ``hearts`` game, one hand of
American Hearts, wrapped as a protocol-v1 bot on the Python kit. The issue it answers: does
our search bot (``search_bot.py``, determinized sampling with the rules engine) hold its own
against a published search bot at equal time? Both spend the same share (``--budget``) of
each decision's time limit, so a ladder of the two compares the methods, not the clocks.

How. At each decision the bot samples one world consistent with its seat's view with our
engine and replays it into a fresh OpenSpiel state, its seat as OpenSpiel's player 0
(``hearts_bots.openspiel_hearts`` says how, and why player 0), checks that the state offers
exactly the legal moves the referee sent, and searches. ISMCTS resamples the hidden cards
itself from the information state at every simulation (``ResampleFromInfostate``), so the
world we sampled only has to be consistent, which it is. OpenSpiel passes one card per action,
so a pass is three searches, each card applied before the next.

Parameters. OpenSpiel's ``hearts`` set to the match's rules (``hearts_parameters``). ISMCTS:
``RandomRolloutEvaluator(1, seed)`` (one random playout per leaf, as OpenSpiel's ISMCTS tests
and MCTS examples use), ``uct_c`` 2.0 (the default of OpenSpiel's MCTS examples; its ISMCTS
tests use 5 for poker, nothing is published for Hearts, whose returns run from 0 to 26),
unlimited world samples, keys from information-state strings (Hearts has no observation
string), consistent action sets; the move is the most visited child (``--final-policy
sample`` draws from the visit counts, the ``Step`` default of OpenSpiel). Time:
``--simulations N`` runs N simulations per decision (per passed card), reproducible with
``--seed``; without it the bot spends ``--budget`` (default 0.4) of each request's
``time.decision_ms`` as the search bot does, handed to ISMCTS's own ``max_wall_clock_time``
(pyspiel 2.0.2 has it; where a version lacks it the bot calibrates instead: it measures
simulations per second on its earlier decisions and asks for as many as the budget allows).

Rule sets. Only those OpenSpiel's ``hearts`` models exactly: 4 players, 52 cards, 3 passed
(or none) left, right, across or hold, the 2♣ leads, hearts 1 and the Q♠ 13 (and the J♦ -10),
the moon adding 26 to the others, no declarations, no Q♠ that must drop, one phase (presets
``american``, ``american-no-hold``, ``omnibus``). Any other (``american-moon-choice``,
``argentine``, Dutch, Black Maria, ...), a missing ``pyspiel``, or any failure of the
translation or the search: a warning on stderr and the heuristic bot's move, as the search
bot falls back. The moon choice and declarations are the search bot's and the heuristic's.

Known differences from our rules and from our search bot. OpenSpiel scores one hand: each
player maximizes its own return (26 minus its points), not its points against the others',
and it knows nothing of the match (target 100, the scores so far, who is leading); the pass
direction is a chance outcome of the hand (we set it from the schedule). Its resampling of
hidden cards ignores the voids the other players have shown (OpenSpiel's own comment), so
some of its simulated worlds are impossible ones; that is the published algorithm as it is.

Its program, with the command line, is ``sample_bots/python/ismcts_bot.py``.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Literal, TypeVar

from hearts_bots.clocked import BUDGET, ClockedBot, clock_parser
from hearts_bots.openspiel_hearts import (
    PASSED,
    TranslationError,
    Unsupported,
    action_card,
    hearts_parameters,
    legal_codes,
    openspiel_state,
)
from hearts_bots.search_bot import moon_choice, seat_view_of
from protocol.bot import TableState
from protocol.messages import (
    DeclareRequest,
    MatchStart,
    MoonRequest,
    PassRequest,
    PlayRequest,
    RefereeMessage,
    TimeLeft,
)
from protocol.ruleset import RuleSet
from referee.rules.deck import deck_for
from referee.rules.sampling import knowledge, sample_round_from
from referee.rules.view import SeatView

MAX_SIMULATIONS = 10_000_000
"""Simulations per search at most on the clock (the clock stops it long before)."""
MIN_SECONDS = 0.002
"""The least time one search is given: ISMCTS needs two simulations to have a move."""
DOING = {"play": "playing", "pass": "passing"}
"""A decision as its warning names it (``no ISMCTS (...): playing as the heuristic bot``)."""

Answer = TypeVar("Answer", str, list[str])
"""What a decision returns: a card to play, or the cards to pass."""


def visits_of(policy: Sequence[tuple[int, float]]) -> int:
    """The root's visits behind a normalized visit-count policy (``visits / total`` as
    floats): the least common denominator of the fractions, which is the number of
    simulations less one (the first only expands the root). pyspiel tells no count, so on
    ISMCTS's own clock this is how the logs know it: exact unless the children's visits
    share a factor (common with two legal moves), then a lower bound. No move depends on it."""
    denominators = [Fraction(p).limit_denominator(MAX_SIMULATIONS).denominator for _, p in policy if p > 0]
    return math.lcm(*denominators) if denominators else 0


# -- the bot --------------------------------------------------------------------------------------
class IsmctsBot(ClockedBot):
    name = "ismcts"
    version = "1.0"
    author = "hearts-referee sample bots (OpenSpiel's ISMCTS)"

    def __init__(
        self,
        seed: int | None = None,
        *,
        simulations: int | None = None,
        budget: float = BUDGET,
        max_seconds: float | None = None,
        uct_c: float = 2.0,
        rollouts: int = 1,
        world_samples: int = -1,
        sample_final_policy: bool = False,
    ) -> None:
        super().__init__(seed, budget, max_seconds)
        self.simulations = simulations
        """Simulations per search (fixed work), or ``None``: as many as the time allows."""
        self.uct_c = uct_c
        self.rollouts = rollouts
        self.world_samples = world_samples
        self.sample_final_policy = sample_final_policy
        self.pyspiel: Any = None
        self.game: Any = None
        """OpenSpiel's game for the current match's rules, or ``None``: play as the heuristic bot."""
        self.why_not = ""
        """Why there is no game (logged once a match)."""
        self.wall_clock = True
        """Whether this pyspiel's ISMCTS stops on its own clock (``max_wall_clock_time``)."""
        self.rate: float | None = None
        """Simulations per second measured so far (for the calibration without a wall clock)."""
        self.last_simulations = 0
        """Simulations of the last decision (all its searches), for tests and logs."""
        self.last_seconds = 0.0
        self.last_search_seconds = 0.0
        """Of ``last_seconds``, the time spent inside ISMCTS (the rest: sampling and replay)."""
        self.fallbacks = 0
        """Decisions answered by the heuristic bot (for tests)."""
        try:
            import pyspiel  # noqa: PLC0415 - optional, and slow to import
        except ImportError as err:
            self.why_not = f"pyspiel cannot be imported ({err})"
        else:
            self.pyspiel = pyspiel

    # -- the match -------------------------------------------------------------------------------
    def on_message(self, state: TableState, message: RefereeMessage) -> None:
        if isinstance(message, MatchStart):
            self._load(state.rules)

    def _load(self, rules: RuleSet) -> None:
        """OpenSpiel's game for ``rules``, or the reason there is none (logged once)."""
        self.game = None
        if self.pyspiel is not None:
            try:
                self.game = self.pyspiel.load_game("hearts", hearts_parameters(rules))
                self.why_not = ""
            except Unsupported as err:
                self.why_not = f"OpenSpiel's hearts cannot play these rules ({err})"
        if self.game is None:
            self.log.warning("%s: playing as the heuristic bot", self.why_not)

    # -- time --------------------------------------------------------------------------------
    # -- search ------------------------------------------------------------------------------
    def _ismcts(self, seconds: float) -> tuple[Any, int]:
        """A fresh ISMCTS bot for one search of about ``seconds`` (or ``--simulations``), and
        the simulations asked of it (0: on its own clock)."""
        ps = self.pyspiel
        evaluator = ps.RandomRolloutEvaluator(self.rollouts, self.rng.getrandbits(31))
        final = ps.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT
        args = (self.rng.getrandbits(31), evaluator, self.uct_c)
        rest = (self.world_samples, final, False, False)
        if self.simulations is not None:
            return ps.ISMCTSBot(*args, max(2, self.simulations), *rest), max(2, self.simulations)
        if self.wall_clock:
            try:
                return ps.ISMCTSBot(*args, MAX_SIMULATIONS, *rest, max(seconds, MIN_SECONDS)), 0
            except TypeError:  # pyspiel 1.x: no wall clock; calibrate instead
                self.wall_clock = False
                self.log.info("this pyspiel's ISMCTS has no wall clock: calibrating simulations per second")
        count = 200 if self.rate is None else max(2, int(self.rate * seconds * 0.9))
        return ps.ISMCTSBot(*args, count, *rest), count

    def _choose(self, state: Any, seconds: float) -> int:
        """One search from ``state``: the most visited action (or one drawn by visits)."""
        bot, asked = self._ismcts(seconds)
        start = time.perf_counter()
        policy = [(int(a), float(p)) for a, p in bot.get_policy(state)]
        elapsed = time.perf_counter() - start
        done = asked or visits_of(policy) + 1
        self.last_simulations += done
        self.last_search_seconds += elapsed
        if elapsed > 0 and done > 2:
            rate = done / elapsed
            self.rate = rate if self.rate is None else 0.7 * self.rate + 0.3 * rate
        if self.sample_final_policy:
            actions = [a for a, _ in policy]
            return self.rng.choices(actions, weights=[p for _, p in policy])[0]
        best = max(p for _, p in policy)
        return self.rng.choice(sorted(a for a, p in policy if p >= best - 1e-12))

    def _state(self, table_state: TableState, view: SeatView) -> Any:
        """The OpenSpiel state at the decision, from one world sampled for ``view``."""
        deck = deck_for(table_state.rules)
        world = sample_round_from(deck, view, knowledge(deck, view), self.rng)
        return openspiel_state(self.game, view, world, self.rng)

    def _warn(self, what: str, err: Exception) -> None:
        self.fallbacks += 1
        self.log.warning("no ISMCTS (%s: %s): %s as the heuristic bot", type(err).__name__, err, what)

    # -- decisions -----------------------------------------------------------------------------
    def choose_play(self, state: TableState, request: PlayRequest) -> str:
        legal = list(request.legal)
        if len(legal) == 1:
            return legal[0]
        if self.game is None:
            return self.fallback.choose_play(state, request)

        def search(deadline: float) -> str:
            ps_state = self._state(state, seat_view_of(state, "play", legal))
            if sorted(legal_codes(ps_state)) != sorted(legal):
                raise TranslationError(f"OpenSpiel's legal moves {legal_codes(ps_state)} are not {legal}")
            card = action_card(self._choose(ps_state, deadline - time.perf_counter()))
            if card not in legal:
                raise TranslationError(f"ISMCTS chose {card}, not one of {legal}")
            return card

        return self._answer("play", request.time, search, lambda: self.fallback.choose_play(state, request))

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        hand = list(request.legal)
        count = request.count
        if self.game is None or count != PASSED:
            return self.fallback.choose_pass(state, request)

        def search(deadline: float) -> list[str]:
            chosen: list[str] = []
            ps_state = self._state(state, seat_view_of(state, "pass", [], hand=hand))
            for k in range(count):  # OpenSpiel passes one card per action
                if sorted(legal_codes(ps_state)) != sorted(c for c in hand if c not in chosen):
                    raise TranslationError("OpenSpiel's pass choices are not the hand")
                share = (deadline - time.perf_counter()) / (count - k)
                action = self._choose(ps_state, share)
                chosen.append(action_card(action))
                ps_state.apply_action_with_legality_check(action)
            if len(set(chosen)) != count or not set(chosen) <= set(hand):
                raise TranslationError(f"ISMCTS passed {chosen} from {hand}")
            return chosen

        return self._answer("pass", request.time, search, lambda: self.fallback.choose_pass(state, request))

    def _answer(
        self,
        what: Literal["play", "pass"],
        time_left: TimeLeft | None,
        search: Callable[[float], Answer],
        fallback: Callable[[], Answer],
    ) -> Answer:
        """One decision: ``search`` until the deadline the clock gives, or, whatever fails in
        it, the heuristic bot's answer (``fallback``): never a crash, never an illegal move."""
        start, deadline = self._begin(time_left)
        try:
            answer = search(deadline)
        except Exception as err:  # whatever fails, the bot answers: never a crash, never illegal
            self._warn(DOING[what], err)
            return fallback()
        self._report(what, start)
        return answer

    def _begin(self, time_left: TimeLeft | None) -> tuple[float, float]:
        """A decision starts: its start and its deadline on the clock; the counters reset."""
        start = time.perf_counter()
        self.last_simulations = 0
        self.last_search_seconds = 0.0
        return start, start + self.seconds_for(time_left)

    def _report(self, what: str, start: float) -> None:
        """Log the decision's work (``--log-level INFO``): on the clock the simulations are
        counted from the visit counts (``visits_of``), a lower bound that is almost always exact."""
        self.last_seconds = time.perf_counter() - start
        self.log.info(
            "%s: %s%d simulations in %.3f s (%.3f s in ISMCTS)",
            what,
            "" if self.simulations is not None or not self.wall_clock else ">=",
            self.last_simulations,
            self.last_seconds,
            self.last_search_seconds,
        )

    def choose_declare(self, state: TableState, request: DeclareRequest) -> bool:
        return self.fallback.choose_declare(state, request)

    def choose_moon(self, state: TableState, request: MoonRequest) -> str:
        return moon_choice(state, list(request.options), request.points)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = clock_parser()
    parser.add_argument("--simulations", type=int, help="simulations per search (fixed, reproducible work)")
    parser.add_argument("--uct-c", type=float, default=2.0, help="ISMCTS's exploration constant")
    parser.add_argument("--rollouts", type=int, default=1, help="random playouts per leaf")
    parser.add_argument("--world-samples", type=int, default=-1, help="worlds sampled at the root (-1: unlimited)")
    parser.add_argument("--final-policy", choices=("max-visits", "sample"), default="max-visits")
    args, _ = parser.parse_known_args(argv)
    return args


def make_bot(argv: Sequence[str]) -> IsmctsBot:
    """The bot its command line asks for (the arguments it does not know are the kit's)."""
    args = parse_args(argv)
    simulations = None if args.simulations is None else max(2, int(args.simulations))
    return IsmctsBot(
        args.seed,
        simulations=simulations,
        budget=float(args.budget),
        max_seconds=args.max_seconds,
        uct_c=float(args.uct_c),
        rollouts=max(1, int(args.rollouts)),
        world_samples=int(args.world_samples) if args.world_samples > 0 else -1,
        sample_final_policy=args.final_policy == "sample",
    )
