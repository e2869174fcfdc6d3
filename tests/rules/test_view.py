"""What one seat may know (referee/rules/view.py): no other hand, no other pass, nothing
received before everyone has passed, legal plays only on the seat's own turn."""

from __future__ import annotations

import msgspec

from referee.rules import ruleset, seat_view
from tests.rules.helpers import cards, code_set, make_round, play, suit_split

AMERICAN = ruleset("american")


def view_json(round_: object, seat: int) -> str:
    return msgspec.json.encode(seat_view(round_, seat)).decode()  # type: ignore[arg-type]


def test_view_holds_the_own_hand_and_no_other() -> None:
    round_ = make_round(AMERICAN, suit_split("CDSH"), dealer=3, direction="left")
    for seat in range(4):
        view = seat_view(round_, seat)
        assert set(view.hand) == {r + "CDSH"[seat] for r in "23456789TJQKA"}
        text = view_json(round_, seat)
        for other in range(4):
            if other != seat:
                for code in (r + "CDSH"[other] for r in "23456789TJQKA"):
                    assert f'"{code}"' not in text, f"seat {seat} sees {code}"


def test_view_shows_only_the_own_pass_and_nothing_received_before_all_passed() -> None:
    round_ = make_round(AMERICAN, suit_split("CDSH"), dealer=3, direction="left")
    round_.pass_cards(1, cards("AD KD QD"))
    round_.pass_cards(2, cards("AS KS QS"))
    round_.pass_cards(3, cards("AH KH QH"))
    mine = seat_view(round_, 1)
    assert set(mine.passed or []) == {"AD", "KD", "QD"}
    assert mine.received is None
    assert set(mine.hand) == {r + "D" for r in "23456789TJQKA"}  # still the dealt hand
    waiting = seat_view(round_, 0)
    assert waiting.passed is None
    assert waiting.received is None
    for code in ("AD", "KD", "QD", "AS", "KS", "QS", "AH", "KH", "QH"):
        assert f'"{code}"' not in view_json(round_, 0)
    assert seat_view(round_, 2).received is None
    assert mine.turn == -1
    assert mine.legal == []
    assert mine.phase == "pass"
    assert mine.pass_direction == "left"


def test_view_shows_what_was_received_once_everyone_has_passed() -> None:
    round_ = make_round(AMERICAN, suit_split("CDSH"), dealer=3, direction="left")
    for seat, text in {0: "AC KC QC", 1: "AD KD QD", 2: "AS KS QS", 3: "AH KH QH"}.items():
        round_.pass_cards(seat, cards(text))
    view = seat_view(round_, 1)
    assert set(view.received or []) == {"AC", "KC", "QC"}
    assert set(view.passed or []) == {"AD", "KD", "QD"}
    assert set(view.hand) == code_set("2D 3D 4D 5D 6D 7D 8D 9D TD JD AC KC QC")
    assert set(seat_view(round_, 0).received or []) == {"AH", "KH", "QH"}
    assert view.phase == "play"


def test_hold_round_has_nothing_passed_or_received() -> None:
    round_ = make_round(AMERICAN, suit_split("CDSH"), dealer=3)
    view = seat_view(round_, 2)
    assert view.passed is None
    assert view.received is None
    assert view.pass_direction == "hold"


def test_legal_plays_only_on_the_own_turn() -> None:
    round_ = make_round(AMERICAN, suit_split("CDSH"), dealer=3)
    assert seat_view(round_, 0).legal == ["2C"]
    assert seat_view(round_, 0).turn == 0
    for seat in (1, 2, 3):
        assert seat_view(round_, seat).legal == []
        assert seat_view(round_, seat).turn == 0
    play(round_, "2C")
    assert seat_view(round_, 0).legal == []
    assert set(seat_view(round_, 1).legal) == {r + "D" for r in "23456789TJQKA"}


def test_view_shows_the_public_play() -> None:
    round_ = make_round(AMERICAN, suit_split("CDSH"), dealer=3)
    play(round_, "2C AD AS AH 3C")
    view = seat_view(round_, 2)
    assert view.trick_leader == 0
    assert view.trick == ["3C"]
    assert len(view.tricks) == 1
    assert view.tricks[0].cards == ["2C", "AD", "AS", "AH"]
    assert view.tricks[0].winner == 0
    assert view.tricks[0].points == 1
    assert view.hearts_broken
    assert view.points_taken == [1, 0, 0, 0]
    assert view.players == 4
    assert view.dealer == 3
    assert view.match_phase == 1
    assert view.seat == 2


def test_view_of_a_finished_round_has_no_turn() -> None:
    round_ = make_round(ruleset("dutch"), {}, dealer=0)
    while round_.phase == "play":
        round_.play(round_.turn, round_.legal_plays()[0])
    view = seat_view(round_, 1)
    assert view.phase == "done"
    assert view.turn == -1
    assert view.legal == []
    assert view.hand == []
    assert len(view.tricks) == 8


def test_view_shows_declarations_made_so_far() -> None:
    round_ = make_round(ruleset("achterhoeks"), {}, dealer=3)
    assert seat_view(round_, 2).declared == [None, None, None, None]
    round_.declare(0, True)
    view = seat_view(round_, 2)
    assert view.declared == [True, None, None, None]
    assert view.phase == "declare"
    assert view.turn == 1
    assert view.legal == []
