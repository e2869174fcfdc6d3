"""OpenSpiel's ``hearts`` seen from a referee seat: which of our rule sets it plays and with
what parameters, its card actions, and a ``pyspiel`` state replayed to the point of one seat's
decision, which the ISMCTS bot (``hearts_bots.ismcts_bot``) then searches.

How the translation works. At each decision the bot needs an OpenSpiel state at the same
point of the hand, seen from its seat. It samples one full world consistent with everything
the seat knows, with the project's engine exactly as the search bot does (``seat_view_of``,
``knowledge``, ``sample_round_from``), and ``openspiel_state`` replays it into a fresh
``pyspiel`` state:

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

The replay is checked: every action for legality, and at the end it must be player 0's turn
holding the seat's hand (the bot then checks the legal moves against the referee's). Cards:
OpenSpiel's action ``rank * 4 + suit`` with ranks ``2..A`` and suits ``C D H S``
(``action_to_string`` gives the same ``"QS"`` codes as the wire).

Parameters. ``pyspiel.load_game("hearts", ...)`` with ``pass_cards`` (``pass_count`` 3, or
False for 0), ``no_pts_on_first_trick`` = ``first_trick_no_points``, ``must_break_hearts`` =
``hearts_lead == "after_broken"``, ``qs_breaks_hearts`` = ``queen_breaks_hearts`` (False in
American: OpenSpiel's default is True), ``jd_bonus`` when the J♦ is worth -10 (Omnibus),
``can_lead_any_club``, ``avoid_all_tricks_bonus`` and ``can_lead_hearts_instead_of_qs`` False.
With these the legal moves are the referee's in every position (``tests/sample_bots/
test_ismcts_bot.py`` checks it on random positions). Only the rule sets OpenSpiel's ``hearts``
models exactly have parameters (``hearts_parameters``; any other is ``Unsupported``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from protocol.cards import card_code
from protocol.ruleset import RuleSet, standard_points
from referee.rules.deck import pass_offset
from referee.rules.round import Round
from referee.rules.sampling import start_hands
from referee.rules.view import SeatView

RANKS = "23456789TJQKA"
SUITS = "CDHS"
"""OpenSpiel's suit order: an action is ``rank * 4 + suit``."""
PLAYERS = 4
HAND = 13
PASSED = 3


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
    direction = pass_offset(view.pass_direction, PLAYERS) if world.deck.rules.pass_count else 0
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
