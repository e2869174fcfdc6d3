"""One round as a state machine (referee/rules/round.py), driven through hand-built deals.

Seats are numbered clockwise; "left" is the next seat (seat + 1), who plays after you.
"""

from __future__ import annotations

import pytest

from protocol.cards import parse_card
from referee.rules import Match, Round, deck_for, ruleset
from tests.rules.helpers import (
    assert_illegal,
    cards,
    code_set,
    hand_codes,
    legal_codes,
    make_round,
    piket_split,
    play,
    play_lowest,
    suit_split,
)

AMERICAN = ruleset("american")
CLUBS_13 = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"


# -- passing ---------------------------------------------------------------------------------


def pass_round(direction: str = "left") -> Round:
    """American, seat 0 all clubs, seat 1 all diamonds, seat 2 all spades, seat 3 all hearts."""
    return make_round(AMERICAN, suit_split("CDSH"), dealer=3, direction=direction)  # type: ignore[arg-type]


def test_passing_round_waits_for_every_seat() -> None:
    round_ = pass_round()
    assert round_.phase == "pass"
    assert round_.awaiting() == [0, 1, 2, 3]
    assert round_.legal_plays() == []
    assert round_.turn == -1


def test_must_pass_exactly_the_pass_count() -> None:
    round_ = pass_round()
    assert_illegal(round_, lambda: round_.pass_cards(0, cards("2C 3C")), "wrong_pass_count", "exactly 3 cards, not 2")
    assert_illegal(
        round_, lambda: round_.pass_cards(0, cards("2C 3C 4C 5C")), "wrong_pass_count", "exactly 3 cards, not 4"
    )
    assert_illegal(round_, lambda: round_.pass_cards(0, []), "wrong_pass_count", "not 0")


def test_cannot_pass_a_card_not_in_hand() -> None:
    round_ = pass_round()
    err = assert_illegal(round_, lambda: round_.pass_cards(0, cards("2C 3C 2D")), "card_not_in_hand", "2D")
    assert err.seat == 0
    assert_illegal(round_, lambda: round_.pass_cards(0, [*cards("2C 3C"), 999]), "card_not_in_hand", "999")
    assert_illegal(round_, lambda: round_.pass_cards(0, [*cards("2C 3C"), -1]), "card_not_in_hand", "card not in hand")


def test_cannot_pass_the_same_card_twice() -> None:
    round_ = pass_round()
    assert_illegal(round_, lambda: round_.pass_cards(0, cards("2C 2C 3C")), "duplicate_card", "card passed twice: 2C")


def test_cannot_pass_twice_or_for_a_seat_that_does_not_exist() -> None:
    round_ = pass_round()
    round_.pass_cards(0, cards("2C 3C 4C"))
    assert_illegal(round_, lambda: round_.pass_cards(0, cards("5C 6C 7C")), "wrong_phase", "already passed")
    assert_illegal(round_, lambda: round_.pass_cards(4, cards("2D 3D 4D")), "not_your_turn", "no seat 4")
    assert_illegal(round_, lambda: round_.pass_cards(-1, cards("2D 3D 4D")), "not_your_turn", "no seat -1")


def test_passing_is_simultaneous_nobody_receives_until_all_have_passed() -> None:
    round_ = pass_round("left")
    dealt = [hand_codes(round_, s) for s in range(4)]
    round_.pass_cards(2, cards("2S 3S 4S"))
    round_.pass_cards(0, cards("AC KC QC"))
    round_.pass_cards(3, cards("AH KH QH"))
    assert round_.phase == "pass"
    assert round_.awaiting() == [1]
    assert [hand_codes(round_, s) for s in range(4)] == dealt
    assert round_.received == [None, None, None, None]
    round_.pass_cards(1, cards("AD KD QD"))
    assert round_.phase == "play"
    assert hand_codes(round_, 0) == dealt[0] - code_set("AC KC QC") | code_set("AH KH QH")
    assert hand_codes(round_, 1) == dealt[1] - code_set("AD KD QD") | code_set("AC KC QC")
    assert round_.received[1] == sum(1 << c for c in cards("AC KC QC"))


@pytest.mark.parametrize(
    ("direction", "receiver"),
    [("left", 1), ("right", 3), ("across", 2)],
)
def test_pass_directions_for_four_players(direction: str, receiver: int) -> None:
    round_ = pass_round(direction)
    gifts = {0: "AC KC QC", 1: "AD KD QD", 2: "AS KS QS", 3: "AH KH QH"}
    for seat, text in gifts.items():
        round_.pass_cards(seat, cards(text))
    assert code_set(gifts[0]) <= hand_codes(round_, receiver)
    for seat in range(4):
        giver = (seat - receiver) % 4
        assert hand_codes(round_, seat) & code_set(" ".join(gifts.values())) == code_set(gifts[giver])
        assert len(round_.hand(seat)) == 13


def test_hold_round_skips_passing() -> None:
    round_ = pass_round("hold")
    assert round_.phase == "play"
    assert round_.passes == [None] * 4
    assert round_.received == [None] * 4
    assert_illegal(round_, lambda: round_.pass_cards(0, cards("2C 3C 4C")), "wrong_phase", "phase 'play'")


def test_pass_count_zero_never_passes() -> None:
    rules = ruleset("american", {"pass_count": 0})
    round_ = make_round(rules, suit_split("CDSH"), dealer=3, direction="left")
    assert round_.pass_direction == "hold"
    assert round_.phase == "play"
    match = Match(rules, 1, first_dealer=0)
    assert match.next_round().phase == "play"


def test_cannot_play_while_passing() -> None:
    round_ = pass_round()
    assert_illegal(round_, lambda: round_.play(0, parse_card("2C")), "wrong_phase", "cannot play now")
    assert_illegal(round_, lambda: round_.declare(0, True), "wrong_phase", "cannot declare now")


def test_the_two_of_clubs_leads_after_being_passed() -> None:
    round_ = pass_round("left")
    round_.pass_cards(0, cards("2C 3C 4C"))
    for seat, text in {1: "2D 3D 4D", 2: "2S 3S 4S", 3: "2H 3H 4H"}.items():
        round_.pass_cards(seat, cards(text))
    assert round_.turn == 1
    assert round_.leader == 1
    assert legal_codes(round_) == {"2C"}


def test_five_player_passes_second_left_goes_two_seats_clockwise() -> None:
    rules = ruleset("american-5")
    match = Match(rules, 8, first_dealer=0)
    directions = []
    for _ in range(6):
        round_ = match.next_round()
        directions.append(round_.pass_direction)
        if round_.phase == "pass":
            given = {seat: round_.hand(seat)[:3] for seat in range(5)}
            for seat, chosen in given.items():
                round_.pass_cards(seat, chosen)
            offset = {"left": 1, "right": 4, "left2": 2, "right2": 3}[round_.pass_direction]
            for seat, chosen in given.items():
                assert set(chosen) <= set(round_.hand((seat + offset) % 5))
                assert round_.received[(seat + offset) % 5] == sum(1 << c for c in chosen)
        play_lowest(round_)
        match.record(round_)
    assert directions == ["left", "right", "left2", "right2", "hold", "left"]


def test_black_maria_passes_right_every_round() -> None:
    match = Match(ruleset("black-maria"), 3, first_dealer=0)
    for _ in range(4):
        round_ = match.next_round()
        assert round_.pass_direction == "right"
        given = {seat: round_.hand(seat)[-3:] for seat in range(3)}
        for seat, chosen in given.items():
            round_.pass_cards(seat, chosen)
        for seat, chosen in given.items():
            assert set(chosen) <= set(round_.hand((seat + 2) % 3))  # right of seat s is seat s - 1
        play_lowest(round_)
        match.record(round_)


def test_no_hold_schedule_repeats_left_right_across() -> None:
    match = Match(ruleset("american-no-hold"), 3, first_dealer=0)
    directions = []
    for _ in range(4):
        round_ = match.next_round()
        directions.append(round_.pass_direction)
        for seat in range(4):
            round_.pass_cards(seat, round_.hand(seat)[:3])
        play_lowest(round_)
        match.record(round_)
    assert directions == ["left", "right", "across", "left"]


def test_american_schedule_is_left_right_across_hold() -> None:
    match = Match(AMERICAN, 3, first_dealer=0)
    directions = []
    for _ in range(5):
        round_ = match.next_round()
        directions.append(round_.pass_direction)
        for seat in round_.awaiting() if round_.phase == "pass" else []:
            round_.pass_cards(seat, round_.hand(seat)[:3])
        play_lowest(round_)
        match.record(round_)
    assert directions == ["left", "right", "across", "hold", "left"]


# -- opening lead ------------------------------------------------------------------------------


def test_two_of_clubs_holder_must_lead_it() -> None:
    round_ = make_round(AMERICAN, {2: "2C 3C AS KS 2D 3D 4H 5H 6H 7H 8H 9H TH"}, dealer=0)
    assert round_.turn == 2
    assert round_.awaiting() == [2]
    assert legal_codes(round_) == {"2C"}
    assert_illegal(round_, lambda: round_.play(2, parse_card("3C")), "must_lead_card", "must be led with 2C")
    assert_illegal(round_, lambda: round_.play(2, parse_card("AS")), "must_lead_card", "2C")
    assert_illegal(round_, lambda: round_.play(1, parse_card("2D")), "not_your_turn", "seat 2's turn, not seat 1's")
    round_.play(2, parse_card("2C"))
    assert round_.turn == 3


def test_three_of_clubs_leads_when_the_two_is_removed() -> None:
    rules = ruleset("american-5", {"remove": ["2D", "2C"]})
    round_ = make_round(rules, {3: "3C 4C 5C 6C 7C 8C 9C TC JC QC"}, dealer=0)
    assert round_.turn == 3
    assert legal_codes(round_) == {"3C"}
    assert_illegal(round_, lambda: round_.play(3, parse_card("4C")), "must_lead_card", "must be led with 3C")


def test_dutch_left_of_dealer_leads_any_card_even_a_penalty_card() -> None:
    rules = ruleset("dutch")
    hand = "QS JC 7H AH 7C 8D 9S TS"
    round_ = make_round(rules, {2: hand}, dealer=1)
    assert round_.phase == "play"
    assert round_.turn == 2
    assert legal_codes(round_) == code_set(hand)
    round_.play(2, parse_card("QS"))
    assert round_.trick == [parse_card("QS")]


def test_dutch_leader_may_open_with_a_heart() -> None:
    round_ = make_round(ruleset("dutch"), {0: "7H 8H 7C 8C 9C 7D 8D 9D"}, dealer=3)
    round_.play(0, parse_card("7H"))
    assert round_.broken


def test_seven_of_clubs_holder_leads_it() -> None:
    rules = ruleset("dutch", {"opening_lead": "seven_of_clubs"})
    round_ = make_round(rules, {3: "7C 8C AS KS 7H 8H 9H TH"}, dealer=3)  # the dealer holds it
    assert round_.turn == 3
    assert legal_codes(round_) == {"7C"}
    assert_illegal(round_, lambda: round_.play(3, parse_card("AS")), "must_lead_card", "must be led with 7C")
    round_.play(3, parse_card("7C"))
    assert round_.turn == 0


def test_free_first_lead_still_keeps_hearts_and_the_queen_back() -> None:
    rules = ruleset("american", {"opening_lead": "left_of_dealer"})
    round_ = make_round(rules, {1: "QS 5S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"}, dealer=0)
    assert round_.turn == 1
    assert legal_codes(round_) == {"5S"}
    assert_illegal(round_, lambda: round_.play(1, parse_card("QS")), "no_points_first_trick", "first trick")
    assert_illegal(round_, lambda: round_.play(1, parse_card("2H")), "hearts_not_broken", "hearts are not broken")


# -- the first trick ---------------------------------------------------------------------------


def test_no_penalty_cards_on_the_first_trick_when_void_with_a_safe_card() -> None:
    round_ = make_round(AMERICAN, {0: CLUBS_13, 1: "2D QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"}, dealer=3)
    play(round_, "2C")
    assert legal_codes(round_) == {"2D"}
    assert_illegal(round_, lambda: round_.play(1, parse_card("QS")), "no_points_first_trick", "first trick")
    assert_illegal(round_, lambda: round_.play(1, parse_card("5H")), "no_points_first_trick", "no penalty cards")
    round_.play(1, parse_card("2D"))


def test_only_hearts_and_the_queen_may_play_any_of_them_on_the_first_trick() -> None:
    round_ = make_round(AMERICAN, {0: CLUBS_13, 1: "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"}, dealer=3)
    play(round_, "2C")
    assert legal_codes(round_) == code_set("QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    round_.play(1, parse_card("QS"))
    assert round_.turn == 2


def test_first_trick_penalty_rule_can_be_switched_off() -> None:
    rules = ruleset("american", {"first_trick_no_points": False})
    round_ = make_round(rules, {0: CLUBS_13, 1: "2D QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"}, dealer=3)
    play(round_, "2C")
    assert legal_codes(round_) == code_set("2D QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH")


def test_first_trick_follower_must_follow_suit_even_with_penalty_cards() -> None:
    round_ = make_round(AMERICAN, {0: CLUBS_13[:-3] + " 2D", 1: "AC QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"}, dealer=3)
    play(round_, "2C")
    assert legal_codes(round_) == {"AC"}
    err = assert_illegal(
        round_, lambda: round_.play(1, parse_card("QS")), "must_follow_suit", "must follow suit: clubs"
    )
    assert err.message == "must follow suit: clubs"


def test_argentine_first_trick_no_penalty_jack_when_a_safe_club_is_held() -> None:
    """RuleSet.first_trick_no_points: "No penalty card may be played to the first trick unless
    the hand holds nothing else"; seed 000: "geen strafkaarten mogen vallen, tenzij je echt
    niets anders hebt". In Argentine the JC is a penalty card (5); a follower holding 5C and JC
    therefore has something else and must not drop the JC on the first trick."""
    rules = ruleset("argentine")
    round_ = make_round(
        rules, {0: "2C 3C 4C 6C 7C 8C 9C TC QC KC AC 2D 3D", 1: "5C JC 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS"}, dealer=3
    )
    play(round_, "2C")
    assert legal_codes(round_) == {"5C"}
    assert_illegal(round_, lambda: round_.play(1, parse_card("JC")), "no_points_first_trick", "first trick")


# -- following suit and turns ---------------------------------------------------------------


def test_must_follow_suit() -> None:
    round_ = make_round(
        AMERICAN, {0: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D", 1: "AC 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"}, dealer=3
    )
    play(round_, "2C")
    err = assert_illegal(
        round_, lambda: round_.play(1, parse_card("3D")), "must_follow_suit", "must follow suit: clubs"
    )
    assert err.seat == 1
    assert_illegal(round_, lambda: round_.play(1, parse_card("2H")), "card_not_in_hand", "card not in hand: 2H")
    assert_illegal(round_, lambda: round_.play(1, 999), "card_not_in_hand", "card not in hand")
    assert_illegal(round_, lambda: round_.play(1, -5), "card_not_in_hand", "card not in hand")
    assert_illegal(round_, lambda: round_.play(0, parse_card("3C")), "not_your_turn", "seat 1's turn, not seat 0's")
    assert_illegal(round_, lambda: round_.play(9, parse_card("3C")), "not_your_turn", "no seat 9")


def test_wrong_phase_actions_during_play() -> None:
    round_ = pass_round("hold")
    assert_illegal(round_, lambda: round_.choose_moon(0, "add_to_others"), "wrong_phase", "cannot choose the moon now")
    assert_illegal(round_, lambda: round_.declare(0, False), "wrong_phase", "phase 'play'")


def test_round_needs_one_hand_per_seat() -> None:
    deck = deck_for(AMERICAN)
    with pytest.raises(ValueError, match="3 hands for 4 players"):
        Round(deck, [0, 0, 0], 0)


# -- hearts lead ---------------------------------------------------------------------------------

# Seat 0 leads the 2C and seat 1 takes the first trick with the AC (seats 2 and 3 are void in
# clubs and throw a diamond and a spade), then seat 1 leads the AD: seat 2 follows, seat 3 and
# seat 0 (void in diamonds) discard. Seat 1 takes that trick too and leads the third.
HEARTS_DEAL = {
    0: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2H",
    1: "AC AD KD 3H 4H 5H 6H 7H 8H 9H TH JH QH",
    2: "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD 2S 3S",
    3: "4S 5S 6S 7S 8S 9S TS JS QS KS AS KH AH",
}


def test_hearts_cannot_be_led_until_broken() -> None:
    round_ = make_round(AMERICAN, HEARTS_DEAL, dealer=3)
    play(round_, "2C AC 2D 4S")
    assert round_.turn == 1
    assert not round_.broken
    assert legal_codes(round_) == {"AD", "KD"}
    assert_illegal(round_, lambda: round_.play(1, parse_card("3H")), "hearts_not_broken", "hearts are not broken")


def test_hearts_may_be_led_once_a_heart_was_discarded() -> None:
    round_ = make_round(AMERICAN, HEARTS_DEAL, dealer=3)
    play(round_, "2C AC 2D 4S")
    play(round_, "AD 3D KH 3C")
    assert round_.broken
    assert round_.turn == 1
    assert "3H" in legal_codes(round_)
    round_.play(1, parse_card("3H"))


def test_queen_of_spades_breaks_hearts_only_with_the_option() -> None:
    for option, breaks in ((False, False), (True, True)):
        rules = ruleset("american", {"queen_breaks_hearts": option})
        round_ = make_round(rules, HEARTS_DEAL, dealer=3)
        play(round_, "2C AC 2D 4S")
        play(round_, "AD 3D QS 3C")
        assert round_.broken is breaks
        assert ("3H" in legal_codes(round_)) is breaks


def test_leading_hearts_is_legal_when_only_hearts_are_left() -> None:
    deal = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
        1: "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    }
    round_ = make_round(AMERICAN, deal, dealer=3)
    play(round_, "2C AC")
    play_first_trick_rest(round_)
    assert round_.turn == 1
    assert not round_.broken
    assert legal_codes(round_) == code_set("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    round_.play(1, parse_card("KH"))
    assert round_.broken


def play_first_trick_rest(round_: Round) -> None:
    while round_.trick:
        round_.play(round_.turn, round_.legal_plays()[0])


def test_hearts_any_time() -> None:
    rules = ruleset("american", {"hearts_lead": "any_time"})
    round_ = make_round(rules, HEARTS_DEAL, dealer=3)
    assert round_.broken
    play(round_, "2C AC 2D 4S")
    assert legal_codes(round_) == code_set("AD KD 3H 4H 5H 6H 7H 8H 9H TH JH QH")


# -- the queen must drop -----------------------------------------------------------------------

# Seat 1 takes the first trick with the AC and leads spades; seat 2 holds the QS with the AS.
QUEEN_DEAL = {
    0: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    1: "AC KS 2S 3S 4S 5S 6S 7S 8S 9S TS JS 3D",
    2: "QS AS 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    3: "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
}
QUEEN_DROPS = ruleset("american", {"queen_must_drop": True})


def test_queen_must_drop_under_a_higher_spade() -> None:
    round_ = make_round(QUEEN_DROPS, QUEEN_DEAL, dealer=3)
    play(round_, "2C AC 4D 2H")
    play(round_, "KS")
    assert legal_codes(round_) == {"QS"}
    assert_illegal(
        round_, lambda: round_.play(2, parse_card("AS")), "queen_must_drop", "queen of spades must be played"
    )
    assert_illegal(round_, lambda: round_.play(2, parse_card("5D")), "must_follow_suit", "must follow suit: spades")
    round_.play(2, parse_card("QS"))


def test_queen_need_not_drop_while_she_could_still_win() -> None:
    round_ = make_round(QUEEN_DROPS, QUEEN_DEAL, dealer=3)
    play(round_, "2C AC 4D 2H")
    play(round_, "2S")
    assert legal_codes(round_) == {"QS", "AS"}


def test_queen_is_kept_without_the_option() -> None:
    round_ = make_round(AMERICAN, QUEEN_DEAL, dealer=3)
    play(round_, "2C AC 4D 2H")
    play(round_, "KS")
    assert legal_codes(round_) == {"QS", "AS"}


VOID_QUEEN_DEAL = {
    0: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    1: "AC 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    2: "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    3: "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
}


def test_queen_must_drop_when_void_in_the_led_suit() -> None:
    round_ = make_round(QUEEN_DROPS, VOID_QUEEN_DEAL, dealer=3)
    play(round_, "2C AC")
    assert "QS" not in legal_codes(round_)  # the first trick takes no penalty cards
    play(round_, "2S 2H")
    play(round_, "3D")
    assert legal_codes(round_) == {"QS"}
    assert_illegal(round_, lambda: round_.play(2, parse_card("AS")), "queen_must_drop", "cannot win this trick")
    round_.play(2, parse_card("QS"))


def test_queen_may_stay_when_void_without_the_option() -> None:
    round_ = make_round(AMERICAN, VOID_QUEEN_DEAL, dealer=3)
    play(round_, "2C AC 2S 2H 3D")
    assert legal_codes(round_) == code_set("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")


# -- who takes the trick -----------------------------------------------------------------------


def test_highest_card_of_the_led_suit_wins_off_suit_never_wins() -> None:
    round_ = make_round(AMERICAN, suit_split("CDSH"), dealer=3)
    play(round_, "2C AD AS AH")
    trick = round_.tricks[0]
    assert trick.winner == 0
    assert trick.leader == 0
    assert trick.points == 1
    assert trick.seat_of(3, 4) == 3
    assert round_.turn == 0
    assert round_.points == [1, 0, 0, 0]


def test_the_winner_of_a_trick_leads_the_next() -> None:
    round_ = make_round(AMERICAN, QUEEN_DEAL, dealer=3)
    play(round_, "2C AC 4D 2H")
    assert round_.tricks[0].winner == 1
    play(round_, "KS QS 3H 2D")
    assert round_.tricks[1].winner == 1
    assert round_.tricks[1].points == 14
    assert round_.points == [0, 15, 0, 0]
    assert round_.turn == 1
    play(round_, "3D 5D 4H 3C")
    assert round_.tricks[2].winner == 2
    assert round_.turn == 2


# -- double deck: identical cards --------------------------------------------------------------

# Eight players, two piket decks (64 cards, 8 each): small enough to spell out.
DOUBLE = ruleset("dutch", {"players": 8, "copies": 2})
PIKET_CLUBS = "7C 8C 9C TC JC QC KC AC"
CANCEL_DEAL = {
    1: PIKET_CLUBS,
    2: PIKET_CLUBS,
    3: "7H 8H 9H TH JH QH KH AH",
    4: "7H 8H 9H TH JH QH KH AH",
    5: "7S 8S 9S TS JS QS KS AS",
    6: "7S 8S 9S TS JS QS KS AS",
    7: "7D 8D 9D TD JD QD KD AD",
    0: "7D 8D 9D TD JD QD KD AD",
}


def test_identical_cards_cancel_and_the_cards_go_to_the_next_winner() -> None:
    round_ = make_round(DOUBLE, CANCEL_DEAL, dealer=0)
    assert round_.turn == 1
    play(round_, "AC AC AH 7H QS 7S 7D 8D")
    first = round_.tricks[0]
    assert first.winner is None
    assert first.points == 0
    assert round_.turn == 1  # the same leader leads again
    assert round_.leader == 1
    assert round_.points == [0] * 8
    play(round_, "7C KC KH 8H 8S 8S 8D 7D")
    second = round_.tricks[1]
    assert second.winner == 2
    assert second.points == 7 + 2  # AH 7H QS carried, KH 8H now
    assert round_.points[2] == 9
    assert bin(round_.taken[2]).count("1") == 16
    assert round_.turn == 2


def test_highest_card_that_is_not_cancelled_wins() -> None:
    deal = {
        1: PIKET_CLUBS,
        2: "AC KC QC JC 7D 8D 9D TD",
        3: "TC 9C 8C 7C JD QD KD AD",
        4: "7D 8D 9D TD JD QD KD AD",
        5: "7S 8S 9S TS JS QS KS AS",
        6: "7S 8S 9S TS JS QS KS AS",
        7: "7H 8H 9H TH JH QH KH AH",
        0: "7H 8H 9H TH JH QH KH AH",
    }
    round_ = make_round(DOUBLE, deal, dealer=0)
    play(round_, "AC AC 7C 7D 7S 7S 7H 8H")
    assert round_.tricks[0].winner == 3
    assert round_.tricks[0].points == 2
    cancel_later = ruleset("dutch", {"players": 8, "copies": 2, "identical_cards": "later_wins"})
    round_ = make_round(cancel_later, deal, dealer=0)
    play(round_, "AC AC 7C 7D 7S 7S 7H 8H")
    assert round_.tricks[0].winner == 2


def test_later_identical_card_wins_with_later_wins() -> None:
    rules = ruleset("dutch", {"players": 8, "copies": 2, "identical_cards": "later_wins"})
    round_ = make_round(rules, CANCEL_DEAL, dealer=0)
    play(round_, "AC AC AH 7H QS 7S 7D 8D")
    assert round_.tricks[0].winner == 2
    assert round_.tricks[0].points == 7
    assert round_.turn == 2


def test_double_deck_legal_plays_list_identical_cards_once() -> None:
    deal = dict(CANCEL_DEAL)
    deal[1], deal[3] = "7C 7C 8C 8C 9C 9C TC TC", "JC JC QC QC KC KC AC AC"
    deal[2] = "7H 8H 9H TH JH QH KH AH"
    round_ = make_round(DOUBLE, deal, dealer=0)
    assert legal_codes(round_) == code_set("7C 8C 9C TC")
    assert len(round_.legal_plays()) == 4
    round_.play(1, parse_card("7C"))
    round_.play(2, parse_card("7H"))
    round_.play(3, parse_card("AC"))
    assert "7C" in hand_codes(round_, 1)  # the other copy is still held


# -- declarations (Achterhoeks miezen) -----------------------------------------------------------

ACHTERHOEKS = ruleset("achterhoeks")
MIEZEN_DEAL = {
    0: "7C 8C 9C TC JC QC KC AD",
    1: "AC 7D 8D 9D TD JD QD KD",
    2: "7S 8S 9S TS JS QS KS AS",
    3: "7H 8H 9H TH JH QH KH AH",
}


def test_declarations_are_made_in_turn_from_the_dealers_left() -> None:
    round_ = make_round(ACHTERHOEKS, MIEZEN_DEAL, dealer=3)
    assert round_.phase == "declare"
    assert round_.turn == 0
    assert round_.declarations_made() == [None] * 4
    assert round_.legal_plays() == []
    assert_illegal(round_, lambda: round_.declare(2, True), "not_your_turn", "seat 0's turn, not seat 2's")
    assert_illegal(round_, lambda: round_.play(0, parse_card("7C")), "wrong_phase", "phase 'declare'")
    round_.declare(0, False)
    round_.declare(1, True)
    assert round_.declarations_made() == [False, True, None, None]
    assert round_.turn == 2
    round_.declare(2, True)
    round_.declare(3, False)
    assert round_.phase == "play"
    assert round_.turn == 0
    assert_illegal(round_, lambda: round_.declare(0, True), "wrong_phase", "phase 'play'")


def test_declarations_start_left_of_any_dealer() -> None:
    round_ = make_round(ACHTERHOEKS, MIEZEN_DEAL, dealer=1)
    assert round_.turn == 2
    round_.declare(2, False)
    assert round_.turn == 3
    assert round_.declarations_made() == [None, None, False, None]


def test_declaration_kept_scores_minus_ten_broken_plus_ten() -> None:
    round_ = make_round(ACHTERHOEKS, MIEZEN_DEAL, dealer=3)
    for seat, made in ((0, False), (1, True), (2, True), (3, False)):
        round_.declare(seat, made)
    play_lowest(round_)
    result = round_.result
    assert result is not None
    assert result.points_taken == [24, 1, 0, 0]
    assert result.score_changes == [24, 1 + 10, -10, 0]
    assert result.declared == [False, True, True, False]
    assert result.declaration_success == [None, False, True, None]


# -- end of the round: moon choice and revoke ---------------------------------------------------


def test_shooter_choice_waits_for_the_shooter() -> None:
    rules = ruleset("american-moon-choice")
    round_ = make_round(rules, suit_split("CDSH"), dealer=3)
    play_lowest(round_)
    assert round_.phase == "moon"
    assert round_.moon_shooter == 0
    assert round_.turn == 0
    assert round_.awaiting() == [0]
    assert round_.result is None
    assert_illegal(round_, lambda: round_.choose_moon(1, "add_to_others"), "not_your_turn", "seat 0's turn")
    assert_illegal(round_, lambda: round_.choose_moon(0, "double"), "bad_choice", "'double'")  # type: ignore[arg-type]
    assert_illegal(round_, lambda: round_.play(0, parse_card("2C")), "wrong_phase", "phase 'moon'")
    round_.choose_moon(0, "subtract_from_shooter")
    assert round_.phase == "done"
    assert round_.result is not None
    assert round_.result.score_changes == [-26, 0, 0, 0]
    assert round_.result.moon_scoring == "subtract_from_shooter"
    assert round_.awaiting() == []


def test_shooter_may_choose_to_add_to_the_others() -> None:
    round_ = make_round(ruleset("american-moon-choice"), suit_split("CDSH"), dealer=3)
    play_lowest(round_)
    round_.choose_moon(0, "add_to_others")
    assert round_.result is not None
    assert round_.result.score_changes == [0, 26, 26, 26]
    assert round_.result.moon == 0


def test_done_round_refuses_every_action() -> None:
    round_ = make_round(AMERICAN, suit_split("CDSH"), dealer=3)
    play_lowest(round_)
    assert round_.phase == "done"
    assert round_.turn == -1
    assert_illegal(round_, lambda: round_.play(0, parse_card("AC")), "wrong_phase", "phase 'done'")
    assert_illegal(round_, lambda: round_.choose_moon(0, "add_to_others"), "wrong_phase", "phase 'done'")


@pytest.mark.parametrize(
    ("name", "overrides", "amount"),
    [("dutch", {}, 15), ("american", {}, 26), ("american", {"revoke_points": 20}, 20), ("achterhoeks", {}, 25)],
)
def test_revoke_penalty_gives_the_violator_the_total_and_the_others_nothing(
    name: str, overrides: dict[str, int], amount: int
) -> None:
    rules = ruleset(name, overrides)
    split = piket_split("CDSH") if rules.deck == "piket" else suit_split("CDSH")
    round_ = make_round(rules, split, dealer=3)
    if round_.phase == "declare":
        for seat in (0, 1, 2, 3):
            round_.declare(seat, seat == 2)
    play(round_, "AC" if rules.deck == "piket" else "2C")
    result = round_.apply_revoke(2)
    assert result is round_.result
    assert result.score_changes == [0, 0, amount, 0]
    assert result.revoke == 2
    assert result.moon is None
    assert round_.phase == "done"
    assert round_.awaiting() == []


def test_last_trick_cancelled_goes_to_its_leader() -> None:
    round_ = make_round(DOUBLE, CANCEL_DEAL, dealer=0)
    for rank in "AKQJT987":
        round_.play(1, parse_card(rank + "C"))
        round_.play(2, parse_card(rank + "C"))
        while round_.trick:
            round_.play(round_.turn, round_.legal_plays()[0])
    assert [t.winner for t in round_.tricks] == [None] * 7 + [1]
    assert round_.tricks[-1].points == 30
    assert bin(round_.taken[1]).count("1") == 64
    assert round_.result is not None
    assert round_.result.points_taken[1] == 30
    assert round_.result.moon == 1


# Double deck with the queen rule: seat 1 leads a spade, seat 4 holds the second QS.
DOUBLE_QUEEN = {
    1: "KS QS AS 7D 8D 9D TD JD",
    2: "KS 7S 8S QD KD AD 7C 8C",
    3: "9S TS JS 9C TC JC QC KC",
    4: "QS 9S TS JS 7H 8H 9H TH",
}


@pytest.mark.parametrize(
    ("identical", "plays", "legal"),
    [
        ("cancel", "KS 7S 9S", "QS"),  # the KS stands: she cannot win
        ("cancel", "KS KS 9S", "QS 9S TS JS"),  # the kings cancel: she could still win
        ("cancel", "QS 7S 9S", "QS"),  # her own twin would cancel her
        ("later_wins", "KS KS 9S", "QS"),
        ("later_wins", "QS 7S 9S", "QS 9S TS JS"),  # the later queen would win
    ],
)
def test_double_deck_queen_must_drop_only_when_she_cannot_win(identical: str, plays: str, legal: str) -> None:
    rules = ruleset("dutch", {"players": 8, "copies": 2, "queen_must_drop": True, "identical_cards": identical})
    round_ = make_round(rules, DOUBLE_QUEEN, dealer=0)
    play(round_, plays)
    assert round_.turn == 4
    assert legal_codes(round_) == code_set(legal)


# -- copy ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["american", "double-deck", "achterhoeks"])
def test_copy_writes_every_slot_and_shares_no_list(name: str) -> None:
    """``Round.copy`` names each slot (a loop over them was slower): none may be left out."""
    match = Match(ruleset(name), 3)
    round_ = match.next_round()
    for seat in round_.awaiting() if round_.phase == "pass" else []:
        round_.pass_cards(seat, round_.hand(seat)[: round_.deck.rules.pass_count])
    while round_.phase == "declare":
        round_.declare(round_.turn, False)
    for _ in range(round_.deck.players + 1):  # into the second trick
        round_.play(round_.turn, round_.legal_plays()[-1])
    twin = round_.copy()
    for slot in Round.__slots__:
        mine, its = getattr(round_, slot), getattr(twin, slot)
        assert its == mine, slot
        assert not isinstance(mine, list) or its is not mine, f"{slot} is shared"
    twin.play(twin.turn, twin.legal_plays()[0])
    assert twin.trick != round_.trick and twin.hands != round_.hands
