"""A Hearts bot that plays with OpenSpiel's ISMCTS: a published search bot to measure ours against.

What it is. ``pyspiel.ISMCTSBot`` (information-set Monte Carlo tree search, Cowling et al.
2012, as implemented in C++ by OpenSpiel) on OpenSpiel's ``hearts`` game, one hand of
American Hearts, wrapped as a protocol-v1 bot on the Python kit. The issue it answers: does
our search bot (``search_bot.py``, determinized sampling with the rules engine) hold its own
against a published search bot at equal time? Both spend the same share (``--budget``) of
each decision's time limit, so a ladder of the two compares the methods, not the clocks.

How the translation works. At each decision the bot needs an OpenSpiel state at the same
point of the hand, seen from its seat. It samples one full world consistent with everything
the seat knows, with the project's engine exactly as the search bot does (``seat_view_of``,
``knowledge``, ``sample_round_from``), and replays it into a fresh ``pyspiel`` state:

0. seats: the bot's seat is OpenSpiel's player 0, the others following clockwise (player
   ``(seat - own seat) % 4``). Both engines play clockwise (``seat + 1`` after ``seat``), so
   turning the table changes nothing in the game, and it avoids an OpenSpiel crash: its
   players pass one after another, player 0 first, and its ISMCTS segfaults searching a pass
   after the player passing to it has passed (``openspiel_position`` explains);
1. the pass-direction chance outcome: OpenSpiel's ``No Pass``, ``Left``, ``Across``,
   ``Right`` are 0..3 and a player passes to ``player + direction``, which is the referee's
   ``pass_offset`` (left is the next seat clockwise, the one who plays after you);
2. the 52 deal chance outcomes: OpenSpiel deals card ``k`` to player ``k % 4``, so the hands
   *before* passing are interleaved. In the play phase the sampled world holds the hands as
   play began (after passing); the seat's own hand before passing is that minus what it
   received plus what it gave, and each other seat gave three cards that its receiver holds
   (the seat that passed to us gave what we received; the two others, whose passes nobody
   at the table saw, give three random cards of their receiver's hand);
3. once everyone has passed, the passed cards, player 0 first, three actions each (while
   passing the bot is player 0: nobody has passed before it);
4. every card played so far, in order (OpenSpiel's 2♣ holder leads, as the referee's does, so
   the dealer does not matter).

The replay is checked: it must be player 0's turn with exactly the legal moves the referee
sent. Then the search: ISMCTS resamples the hidden cards itself from the information
state at every simulation (``ResampleFromInfostate``), so the world we sampled only has to be
consistent, which it is. Cards: OpenSpiel's action ``rank * 4 + suit`` with ranks ``2..A`` and
suits ``C D H S`` (``action_to_string`` gives the same ``"QS"`` codes as the wire). OpenSpiel
passes one card per action, so a pass is three searches, each card applied before the next.

Parameters. ``pyspiel.load_game("hearts", ...)`` with ``pass_cards`` (``pass_count`` 3, or
False for 0), ``no_pts_on_first_trick`` = ``first_trick_no_points``, ``must_break_hearts`` =
``hearts_lead == "after_broken"``, ``qs_breaks_hearts`` = ``queen_breaks_hearts`` (False in
American: OpenSpiel's default is True), ``jd_bonus`` when the J♦ is worth -10 (Omnibus),
``can_lead_any_club``, ``avoid_all_tricks_bonus`` and ``can_lead_hearts_instead_of_qs`` False.
With these the legal moves are the referee's in every position (``tests/referee/
test_ismcts_bot.py`` checks it on random positions). ISMCTS: ``RandomRolloutEvaluator(1, seed)``
(one random playout per leaf, as OpenSpiel's ISMCTS tests and MCTS examples use), ``uct_c``
2.0 (the default of OpenSpiel's MCTS examples; its ISMCTS tests use 5 for poker, nothing is
published for Hearts, whose returns run from 0 to 26), unlimited world samples, keys from
information-state strings (Hearts has no observation string), consistent action sets; the
move is the most visited child (``--final-policy sample`` draws from the visit counts, the
``Step`` default of OpenSpiel). Time: ``--simulations N`` runs N simulations per decision
(per passed card), reproducible with ``--seed``; without it the bot spends ``--budget``
(default 0.4) of each request's ``time.decision_ms`` as the search bot does, handed to
ISMCTS's own ``max_wall_clock_time`` (pyspiel 2.0.2 has it; where a version lacks it the bot
calibrates instead: it measures simulations per second on its earlier decisions and asks for as many
as the budget allows).

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

Run from the repository root::

    python sample_bots/python/ismcts_bot.py [--seed N] [--simulations N] [--budget F]
        [--max-seconds S] [--uct-c C] [--rollouts N] [--world-samples N]
        [--final-policy max-visits|sample] [--tcp HOST:PORT --token T]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

try:  # the engine of the repository this file lives in, before any installed copy
    if not (Path(__file__).resolve().parents[2] / "referee" / "rules" / "sampling.py").is_file():
        import protocol.bot  # noqa: F401
        import referee.rules.sampling  # noqa: F401
    else:
        raise ImportError("use this repository")
except ImportError:  # not installed, or another version installed: use this repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(1, str(Path(__file__).resolve().parent))  # the heuristic and search bots

from search_bot import ClockedBot, moon_choice, seat_view_of  # type: ignore[import-not-found,unused-ignore]

from protocol.bot import TableState, main
from protocol.cards import card_code
from protocol.messages import (
    DeclareRequest,
    MatchStart,
    MoonRequest,
    PassRequest,
    PlayRequest,
    RefereeMessage,
    TimeLeft,
)
from protocol.ruleset import RuleSet, standard_points
from referee.rules.round import Round
from referee.rules.sampling import knowledge, sample_round_from, start_hands
from referee.rules.table import pass_offset, table_for
from referee.rules.view import SeatView

RANKS = "23456789TJQKA"
SUITS = "CDHS"
"""OpenSpiel's suit order: an action is ``rank * 4 + suit``."""
PLAYERS = 4
HAND = 13
PASSED = 3
MAX_SIMULATIONS = 10_000_000
"""Simulations per search at most on the clock (the clock stops it long before)."""
MIN_SECONDS = 0.002
"""The least time one search is given: ISMCTS needs two simulations to have a move."""


class Unsupported(Exception):
    """The match's rules are not a game OpenSpiel's ``hearts`` can play."""


class TranslationError(Exception):
    """The OpenSpiel state does not reach the position the referee describes."""


# -- the rules ----------------------------------------------------------------------------------
def hearts_parameters(rules: RuleSet) -> dict[str, bool]:
    """The parameters of OpenSpiel's ``hearts`` that play exactly ``rules``, or ``Unsupported``
    naming every option it cannot model."""
    problems: list[str] = []
    if rules.players != PLAYERS:
        problems.append(f"{rules.players} players")
    if rules.deck != "standard" or rules.copies != 1 or rules.remove or rules.add:
        problems.append("not the 52-card deck")
    if rules.pass_count not in (0, PASSED):
        problems.append(f"pass_count {rules.pass_count}")
    if rules.pass_count and any(d not in ("left", "right", "across", "hold") for d in rules.pass_schedule):
        problems.append("a pass direction other than left, right, across or hold")
    if rules.opening_lead != "lowest_club":
        problems.append(f"opening_lead {rules.opening_lead}")
    if rules.queen_must_drop:
        problems.append("queen_must_drop")
    if rules.declarations:
        problems.append("declarations")
    if rules.end == "two_phase":
        problems.append("a two-phase match")
    points = dict(rules.card_points)
    jd_bonus = points.pop("JD", 0) == -10
    if points != standard_points() or ("JD" in rules.card_points and not jd_bonus):
        problems.append("card values other than hearts 1, Q♠ 13 (and J♦ -10)")
    if rules.moon != "add_to_others" or rules.moon_points not in (None, 26):
        problems.append(f"moon {rules.moon} ({rules.moon_points or 26})")
    if problems:
        raise Unsupported(", ".join(problems))
    return {
        "pass_cards": rules.pass_count == PASSED,
        "no_pts_on_first_trick": rules.first_trick_no_points,
        "can_lead_any_club": False,
        "jd_bonus": jd_bonus,
        "avoid_all_tricks_bonus": False,
        "must_break_hearts": rules.hearts_lead == "after_broken",
        "qs_breaks_hearts": rules.queen_breaks_hearts,
        "can_lead_hearts_instead_of_qs": False,
    }


def card_action(code: str) -> int:
    """OpenSpiel's action for a wire card code: ``rank * 4 + suit`` (suits ``C D H S``)."""
    return RANKS.index(code[0]) * 4 + SUITS.index(code[1])


def action_card(action: int) -> str:
    """The wire card code of an OpenSpiel card action."""
    return RANKS[action // 4] + SUITS[action % 4]


# -- the translation ------------------------------------------------------------------------------
Position = tuple[int, list[list[str]], list[list[str]]]
"""The pass direction, the hands as dealt, the passes (by OpenSpiel player): what
``openspiel_state`` replays."""


def player_of(seat: int, me: int) -> int:
    """OpenSpiel's player for a referee seat: the table turned so that the bot's seat ``me`` is
    player 0 (see ``openspiel_position``)."""
    return (seat - me) % PLAYERS


def openspiel_position(view: SeatView, world: Round, rng: random.Random) -> Position:
    """What OpenSpiel needs to reach ``view``'s point from ``world`` (a world sampled for it):
    the pass direction (0 none, 1 left, 2 across, 3 right), each player's hand as dealt, and
    each player's passed cards, by OpenSpiel player (while passing: none).

    The bot's seat is always OpenSpiel's player 0, the others following clockwise: the play
    order, the pass directions and the 2♣ lead do not change when the table is turned. It
    must be player 0 because OpenSpiel's players pass one after the other, player 0 first,
    and ISMCTS crashes (a segmentation fault, pyspiel 2.0.2) when it searches a pass after the
    player passing to the searcher has passed: ``ResampleFromInfostate`` then gives that
    player's true passed cards to a resampled hand that does not hold them."""
    me = view.seat
    direction = pass_offset(view.pass_direction, PLAYERS) if world.table.rules.pass_count else 0
    hands = start_hands(world)  # as dealt while passing, else as play began (after passing)
    held = [_codes(hands[(q + me) % PLAYERS]) for q in range(PLAYERS)]  # by OpenSpiel player
    if view.phase == "pass" or not direction:
        return direction, held, []
    if not view.passed or not view.received:
        raise TranslationError("the seat's own pass is not known")
    passes: list[list[str]] = [[] for _ in range(PLAYERS)]
    passes[0] = list(view.passed)
    passes[-direction % PLAYERS] = list(view.received)
    for q in range(PLAYERS):
        if not passes[q]:  # nobody at the table saw this pass: three cards its receiver holds
            passes[q] = sorted(rng.sample(held[(q + direction) % PLAYERS], PASSED))
    dealt = []
    for q in range(PLAYERS):
        got = set(passes[(q - direction) % PLAYERS])
        dealt.append(sorted([c for c in held[q] if c not in got] + passes[q]))
    return direction, dealt, passes


def openspiel_state(game: Any, view: SeatView, world: Round, rng: random.Random) -> Any:
    """A fresh ``pyspiel`` state at ``view``'s point, replayed from ``world``, the bot's seat
    as player 0: the pass direction, the deal, the passes and the plays, every action checked
    for legality. Raises ``TranslationError`` when it does not end on player 0's turn with the
    hand of the view."""
    direction, dealt, passes = openspiel_position(view, world, rng)
    if any(len(hand) != HAND for hand in dealt):
        raise TranslationError("a sampled hand does not have 13 cards")
    state = game.new_initial_state()
    state.apply_action_with_legality_check(direction)
    for k in range(PLAYERS * HAND):
        state.apply_action_with_legality_check(card_action(dealt[k % PLAYERS][k // PLAYERS]))
    for given in passes:
        for code in given:
            state.apply_action_with_legality_check(card_action(code))
    for trick in view.tricks:
        for code in trick.cards:
            state.apply_action_with_legality_check(card_action(code))
    for code in view.trick:
        state.apply_action_with_legality_check(card_action(code))
    if state.current_player() != 0:
        raise TranslationError(f"OpenSpiel's player {state.current_player()} is to move, not the bot's seat")
    if sorted(state.to_struct().hands[0]) != sorted(view.hand):
        raise TranslationError("OpenSpiel's hand for the seat is not the seat's hand")
    return state


def legal_codes(state: Any) -> list[str]:
    """The legal moves of a ``pyspiel`` hearts state in the play or pass phase, as card codes."""
    return [action_card(a) for a in state.legal_actions()]


def _codes(cards: Sequence[int]) -> list[str]:
    """Wire codes of engine card ids (one deck: the ids are the faces)."""
    return [card_code(c) for c in cards]


def visits_of(policy: Sequence[tuple[int, float]]) -> int:
    """The root's visits behind a normalized visit-count policy (``visits / total`` as
    floats): the least common denominator of the fractions, which is the number of
    simulations less one (the first only expands the root). pyspiel tells no count, so on
    ISMCTS's own clock this is how the logs know it: exact unless the children's visits
    share a factor (common with two legal moves), then a lower bound. No move depends on it."""
    denominators = [Fraction(p).limit_denominator(MAX_SIMULATIONS).denominator for _, p in policy if p > 0]
    return math.lcm(*denominators) if denominators else 0


# -- the bot --------------------------------------------------------------------------------------
class IsmctsBot(ClockedBot):  # type: ignore[misc,unused-ignore]
    name = "ismcts"
    version = "1.0"
    author = "hearts-referee sample bots (OpenSpiel's ISMCTS)"

    def __init__(
        self,
        seed: int | None = None,
        *,
        simulations: int | None = None,
        budget: float = 0.4,
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
            import pyspiel  # type: ignore[import-not-found,unused-ignore]  # noqa: PLC0415 - optional, and slow to import
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
        table = table_for(table_state.rules)
        world = sample_round_from(table, view, knowledge(table, view), self.rng)
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
        start, deadline = self._begin(request.time)
        try:
            ps_state = self._state(state, seat_view_of(state, "play", legal))
            if sorted(legal_codes(ps_state)) != sorted(legal):
                raise TranslationError(f"OpenSpiel's legal moves {legal_codes(ps_state)} are not {legal}")
            card = action_card(self._choose(ps_state, deadline - time.perf_counter()))
            if card not in legal:
                raise TranslationError(f"ISMCTS chose {card}, not one of {legal}")
        except Exception as err:  # whatever fails, the bot answers: never a crash, never illegal
            self._warn("playing", err)
            return self.fallback.choose_play(state, request)
        self._report("play", start)
        return card

    def choose_pass(self, state: TableState, request: PassRequest) -> list[str]:
        hand = list(request.legal)
        count = request.count
        if self.game is None or count != PASSED:
            return self.fallback.choose_pass(state, request)
        start, deadline = self._begin(request.time)
        chosen: list[str] = []
        try:
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
        except Exception as err:  # whatever fails, the bot answers: never a crash, never illegal
            self._warn("passing", err)
            return self.fallback.choose_pass(state, request)
        self._report("pass", start)
        return chosen

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


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--simulations", type=int, help="simulations per search (fixed, reproducible work)")
    parser.add_argument("--budget", type=float, default=0.4, help="share of the decision's time limit to use")
    parser.add_argument("--max-seconds", type=float, help="at most this many seconds per decision")
    parser.add_argument("--uct-c", type=float, default=2.0, help="ISMCTS's exploration constant")
    parser.add_argument("--rollouts", type=int, default=1, help="random playouts per leaf")
    parser.add_argument("--world-samples", type=int, default=-1, help="worlds sampled at the root (-1: unlimited)")
    parser.add_argument("--final-policy", choices=("max-visits", "sample"), default="max-visits")
    args, _ = parser.parse_known_args(argv)
    return args


def make_bot(argv: list[str]) -> IsmctsBot:
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


if __name__ == "__main__":
    raise SystemExit(main(make_bot(sys.argv[1:])))
