"""The rule set: every option of every Hearts variant the referee supports, as plain data.

One ``RuleSet`` describes a whole match: the deck, the passing schedule, the play rules, the
card values, the moon, declarations and how the match ends. It is a msgspec Struct so that it
travels unchanged in the protocol's match-start message and in the replay logs. The rules
engine (``referee.rules``) compiles it; a bot can read it with msgspec alone.

Option names and values are documented, with the rule text each one comes from, in
``docs/rules.md``.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec

PassDirection: TypeAlias = Literal["left", "right", "across", "left2", "right2", "hold"]
"""Where a seat's passed cards go. ``left`` is the next seat clockwise (who plays after you),
``left2`` the one after that; ``across`` needs an even number of players; ``hold`` passes
nothing."""

OpeningLead: TypeAlias = Literal["lowest_club", "seven_of_clubs", "left_of_dealer"]
"""Who leads the first trick: the holder of the lowest club in play, who must lead it; the
holder of the 7 of clubs, who must lead it; or the player left of the dealer, with any card."""

HeartsLead: TypeAlias = Literal["after_broken", "any_time"]
MoonRule: TypeAlias = Literal["none", "add_to_others", "subtract_from_shooter", "shooter_choice"]
MoonChoice: TypeAlias = Literal["add_to_others", "subtract_from_shooter"]
EndRule: TypeAlias = Literal["target", "rounds", "two_phase"]
FinishRule: TypeAlias = Literal["exact_zero", "zero_or_below"]
TieBreak: TypeAlias = Literal["none", "furthest_below_zero"]
IdenticalCards: TypeAlias = Literal["cancel", "later_wins"]
Deck: TypeAlias = Literal["standard", "piket"]

HEART_CODES: tuple[str, ...] = tuple(r + "H" for r in "23456789TJQKA")


def standard_points(queen: int = 13, heart: int = 1) -> dict[str, int]:
    """Card values of the American game: every heart ``heart``, the Q♠ ``queen``."""
    points = {code: heart for code in HEART_CODES}
    points["QS"] = queen
    return points


class RuleSet(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=False):
    """The complete rules of a match. Unknown fields must be ignored by bots (forward
    compatibility); every field has a default, so a partial rule set is the American game
    with some options changed."""

    name: str = "american"
    """The preset this rule set started from (informational)."""
    description: str = ""
    """A sentence describing the rule set (informational)."""

    # -- players and deck --------------------------------------------------------------------
    players: int = 4
    """Number of seats, 3 or more."""
    deck: Deck = "standard"
    """``standard``: 52 cards, 2 to ace; ``piket``: 32 cards, 7 to ace."""
    copies: int = 1
    """1, or 2 for the double deck (two identical decks shuffled together)."""
    remove: tuple[str, ...] = ()
    """Cards taken out of the deck (one copy per entry)."""
    add: tuple[str, ...] = ()
    """Cards added to a piket deck (for example 6s for five players)."""
    trim_to_deal_evenly: bool = False
    """Remove low diamonds and spades (2D, 2D, 2S, 2S, 3D, ...) until the deck divides evenly."""
    deal_packets: tuple[int, ...] = (1,)
    """Packet sizes of one dealing pass around the table, repeated: ``(1,)`` one card at a
    time, ``(3, 2, 3)`` the Dutch deal."""

    # -- passing -------------------------------------------------------------------------
    pass_count: int = 3
    """Cards each seat passes before play (0 to 4)."""
    pass_schedule: tuple[PassDirection, ...] = ("left", "right", "across", "hold")
    """Pass directions of successive rounds, repeated."""

    # -- play ----------------------------------------------------------------------------
    opening_lead: OpeningLead = "lowest_club"
    """Who leads the first trick: ``lowest_club`` (the holder of the lowest club in play, who must lead
    it), ``seven_of_clubs`` (the holder of the 7♣, who must lead it) or ``left_of_dealer`` (seat
    ``dealer + 1``, any card the other rules allow)."""
    first_trick_no_points: bool = True
    """No penalty card may be played to the first trick unless the hand holds nothing else."""
    hearts_lead: HeartsLead = "after_broken"
    """``after_broken``: no heart may be led until a heart has been played to an earlier trick,
    unless the hand holds only hearts. ``any_time``: no restriction."""
    queen_breaks_hearts: bool = False
    """The Q♠ played to a trick also breaks hearts."""
    queen_must_drop: bool = False
    """The holder must play the Q♠ at the first chance where she cannot win the trick: a
    higher spade is already in it, or the holder cannot follow suit."""
    identical_cards: IdenticalCards = "cancel"
    """Double deck: two identical cards in one trick cancel each other (neither can win; if
    every card of the led suit is cancelled, the cards go to the next trick's winner), or the
    later one beats the earlier."""

    # -- scoring -------------------------------------------------------------------------
    card_points: dict[str, int] = msgspec.field(default_factory=standard_points)
    """Points per card code; cards not listed are worth 0. Positive cards are *penalty cards*
    (they make the moon); negative cards are bonuses."""
    moon: MoonRule = "add_to_others"
    """Shooting the moon (one seat takes every penalty card) in the first or only phase."""
    moon_points: int | None = None
    """What a moon is worth; ``None`` means the round's penalty total (26 in American)."""
    moon_phase2: MoonRule = "none"
    """The moon rule of the second phase of a two-phase match."""
    declarations: bool = False
    """Achterhoeks *miezen*: before play each seat may declare it takes no penalty points."""
    declaration_points: int = 10
    """A successful declaration scores minus this, a failed one plus this."""
    revoke_points: int | None = None
    """Points a revoker takes when the referee applies the revoke penalty (the others take 0
    and the hand is dealt again); ``None`` means the round's penalty total."""

    # -- end of match --------------------------------------------------------------------
    end: EndRule = "target"
    """``target``: after the round in which a score reaches ``target``, lowest wins.
    ``rounds``: after ``rounds`` rounds, lowest wins. ``two_phase``: count up to
    ``threshold``, then down to zero (Dutch)."""
    target: int = 100
    """``end = target``: the score that ends the match."""
    rounds: int = 12
    """``end = rounds``: how many rounds are played (a revoke redeal does not count)."""
    threshold: int = 50
    """``end = two_phase``: the score at which phase 2 (counting down) starts with the next round."""
    finish: FinishRule = "zero_or_below"
    """Two-phase: whether the winner must land exactly on 0, or on 0 or below."""
    tie_break: TieBreak = "none"
    """Two-phase: among several who finish in one round, ``furthest_below_zero`` wins."""
    round_limit: int = 500
    """A safety net: the match ends after this many rounds whatever else happens."""
