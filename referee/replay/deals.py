"""The deals of a re-played match: where its hands come from, and each ``deal`` entry checked.

A match is dealt from its seed or from hands it was given (``Match.next_round(hands)``); the
log does not say which, so the deals themselves tell: when any logged deal is the seed's deal,
every deal must be; otherwise the logged hands are played as they stand, and must at least be
a deal of the rule set's cards.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from protocol.cards import Card, card_code, parse_card
from referee.log_format import Deal
from referee.replay.cursor import LogCursor
from referee.replay.reader import Line, LogMatch
from referee.rules.dealing import deal
from referee.rules.errors import RulesError
from referee.rules.match import Match, hands_to_masks
from referee.rules.round import Round
from referee.rules.wire import codes_of

DealSource: TypeAlias = Literal["seed", "log"]


def deal_source(log: LogMatch, match: Match) -> DealSource:
    """``seed`` when any logged deal is the seed's deal (then all must be), else ``log``:
    the match was dealt from explicit hands and the logged hands are verified as played."""
    deals = [line.entry for line in log.entries if isinstance(line.entry, Deal)]
    for entry in deals:
        seeded = deal(match.deck, log.header.seed_number(), entry.round, entry.dealer)
        if [codes_of(mask) for mask in seeded] == entry.hands:
            return "seed"
    return "log" if deals else "seed"


def logged_deal(cursor: LogCursor, match: Match, source: DealSource) -> tuple[Line, list[list[Card]] | None]:
    """The log's next ``deal`` entry, and the hands the match's machine is to deal: ``None``
    (the seed's deal) or the logged ones, which must be a deal of the rule set's cards."""
    line = cursor.next_main("deal", "deal")
    dealt = line.entry
    assert isinstance(dealt, Deal)
    if source == "seed":
        return line, None
    try:
        hands = [[parse_card(c) for c in hand] for hand in dealt.hands]
        hands_to_masks(match.deck, hands)
    except (ValueError, RulesError) as err:
        raise cursor.differ("deal.hands", "a deal of the rule set's cards", str(err), line=line.number) from None
    return line, hands


def check_deal(cursor: LogCursor, line: Line, round_: Round, number: int) -> list[list[str]]:
    """The round dealt must be the ``deal`` entry's: number, dealer, pass direction, phase and
    hands; the hands as codes, by seat."""
    dealt = line.entry
    assert isinstance(dealt, Deal)
    hands = [[card_code(c) for c in round_.hand(s)] for s in range(round_.deck.players)]
    for what, want, got in (
        ("round", number, dealt.round),
        ("dealer", round_.dealer, dealt.dealer),
        ("pass_direction", round_.pass_direction, dealt.pass_direction),
        ("match_phase", round_.match_phase, dealt.match_phase),
    ):
        if want != got:
            raise cursor.differ(f"deal.{what}", want, got, line=line.number)
    for s, want_hand in enumerate(hands):
        found = dealt.hands[s] if s < len(dealt.hands) else None
        if found != want_hand:
            raise cursor.differ(f"deal.hands[{s}]", want_hand, found, seat=s, line=line.number)
    return hands
