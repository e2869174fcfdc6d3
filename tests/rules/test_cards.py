"""Card ids and wire codes (protocol/cards.py)."""

from __future__ import annotations

import pytest

from protocol.cards import (
    ACE,
    ALL_CODES,
    CLUBS,
    COPY_STRIDE,
    DIAMONDS,
    HEARTS,
    QUEEN,
    SPADES,
    card_code,
    card_codes,
    card_symbol,
    face_of,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)


@pytest.mark.parametrize(
    ("code", "suit", "rank"),
    [("2C", CLUBS, 2), ("TD", DIAMONDS, 10), ("QS", SPADES, QUEEN), ("AH", HEARTS, ACE), ("JC", CLUBS, 11)],
)
def test_parse_card_gives_suit_and_rank(code: str, suit: int, rank: int) -> None:
    card = parse_card(code)
    assert suit_of(card) == suit
    assert rank_of(card) == rank
    assert card == suit * 16 + rank
    assert card_code(card) == code


def test_parse_card_accepts_lower_case_ten_and_spaces() -> None:
    assert parse_card("qs") == parse_card("QS")
    assert parse_card("10S") == parse_card("TS")
    assert parse_card("10h") == parse_card("TH")
    assert parse_card(" ah ") == parse_card("AH")


@pytest.mark.parametrize("code", ["", "1C", "ZZ", "QX", "11S", "Q", "QSS", "14H"])
def test_parse_card_rejects_non_cards_naming_the_code(code: str) -> None:
    with pytest.raises(ValueError, match="not a card code") as info:
        parse_card(code)
    assert repr(code) in str(info.value)


def test_ids_order_rank_within_suit_and_suits_clubs_diamonds_spades_hearts() -> None:
    order = [parse_card(c) for c in ("2C", "AC", "2D", "AD", "2S", "AS", "2H", "AH")]
    assert order == sorted(order)
    assert parse_card("KS") > parse_card("QS") > parse_card("JS")


def test_second_deck_copy_shares_the_code_and_face() -> None:
    queen = parse_card("QS")
    twin = make_card(SPADES, QUEEN, copy=1)
    assert twin == queen + COPY_STRIDE
    assert card_code(twin) == "QS"
    assert face_of(twin) == queen
    assert suit_of(twin) == SPADES
    assert rank_of(twin) == QUEEN


@pytest.mark.parametrize(("suit", "rank", "copy"), [(4, 2, 0), (-1, 5, 0), (0, 1, 0), (0, 15, 0), (0, 5, 2)])
def test_make_card_rejects_impossible_cards(suit: int, rank: int, copy: int) -> None:
    with pytest.raises(ValueError, match="no such card"):
        make_card(suit, rank, copy)


@pytest.mark.parametrize("card", [-1, 0, 1, 15, 16 + 15, 2 * COPY_STRIDE, 999])
def test_card_code_rejects_non_ids(card: int) -> None:
    with pytest.raises(ValueError, match="not a card id"):
        card_code(card)


def test_all_codes_is_the_52_card_deck_in_id_order() -> None:
    assert len(ALL_CODES) == 52
    assert len(set(ALL_CODES)) == 52
    assert ALL_CODES[0] == "2C"
    assert ALL_CODES[12] == "AC"
    assert ALL_CODES[13] == "2D"
    assert ALL_CODES[-1] == "AH"
    assert [parse_card(c) for c in ALL_CODES] == sorted(parse_card(c) for c in ALL_CODES)


def test_card_symbol_is_a_human_label() -> None:
    assert card_symbol(parse_card("QS")) == "Q♠"
    assert card_symbol(parse_card("TH")) == "10♥"
    assert card_symbol(parse_card("2C")) == "2♣"
    assert card_symbol(parse_card("AD")) == "A♦"


def test_parse_cards_and_card_codes_round_trip_in_order() -> None:
    codes = ["QS", "2C", "TH", "JD"]
    assert card_codes(parse_cards(codes)) == codes
