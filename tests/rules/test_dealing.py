"""Shuffling, dealing and the dealer (referee/rules/dealing.py and the Match's dealer)."""

from __future__ import annotations

import hashlib
import struct

import pytest

from protocol.cards import card_code
from referee.rules import Match, RulesError, deck_for, ruleset
from referee.rules.cardset import cards_of, count
from referee.rules.dealing import deal, draw_seat, shuffled
from tests.rules.helpers import deal_hands, play_lowest


def reference_shuffle(cards: list[int], seed: int, deal_number: int) -> list[int]:
    """The shuffle exactly as the dealing module's docstring specifies it, for bot authors."""
    deck = list(cards)
    data = hashlib.shake_256(f"hearts-deal:{seed}:{deal_number}".encode()).digest(8 * len(deck))
    words = struct.unpack(f"<{len(deck)}Q", data)
    for k, i in enumerate(range(len(deck) - 1, 0, -1)):
        j = words[k] % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_shuffle_follows_the_documented_algorithm() -> None:
    cards = deck_for(ruleset("american")).cards
    assert shuffled(cards, 42, 0) == reference_shuffle(list(cards), 42, 0)
    assert shuffled(cards, 7, 3) == reference_shuffle(list(cards), 7, 3)


def test_shuffle_is_a_permutation_and_depends_on_seed_and_deal_number() -> None:
    cards = deck_for(ruleset("american")).cards
    first = shuffled(cards, 1, 0)
    assert sorted(first) == sorted(cards)
    assert first != list(cards)
    assert shuffled(cards, 1, 0) == first
    assert shuffled(cards, 2, 0) != first
    assert shuffled(cards, 1, 1) != first


def test_one_card_at_a_time_from_the_seat_left_of_the_dealer() -> None:
    deck = deck_for(ruleset("american"))
    dealer = 2
    order = shuffled(deck.cards, 9, 0)
    hands = deal(deck, 9, 0, dealer)
    for seat in range(4):
        position = (seat - dealer - 1) % 4
        assert cards_of(hands[seat]) == sorted(order[position::4])
        assert count(hands[seat]) == 13


def test_dutch_deal_in_packets_of_three_two_three_gives_eight_each() -> None:
    deck = deck_for(ruleset("dutch"))
    dealer = 0
    order = shuffled(deck.cards, 5, 0)
    hands = deal(deck, 5, 0, dealer)
    assert [count(h) for h in hands] == [8, 8, 8, 8]
    # Seat 1 (left of the dealer) gets the first packet of 3, then 2 (after 4 * 3 cards), then
    # 3 (after a further 4 * 2 cards).
    expected: dict[int, list[int]] = {1: [], 2: [], 3: [], 0: []}
    position = 0
    for size in (3, 2, 3):
        for seat in (1, 2, 3, 0):
            expected[seat] += order[position : position + size]
            position += size
    for seat, cards in expected.items():
        assert cards_of(hands[seat]) == sorted(cards)
    assert sorted(c for h in hands for c in cards_of(h)) == sorted(deck.cards)


def test_dutch_deal_for_five_players_caps_the_last_packet_at_seven_cards() -> None:
    deck = deck_for(ruleset("dutch", {"players": 5}))
    hands = deal(deck, 11, 0, 4)
    assert [count(h) for h in hands] == [7] * 5
    assert sorted(c for h in hands for c in cards_of(h)) == sorted(deck.cards)


def test_dutch_deal_for_three_players_gives_ten_each() -> None:
    deck = deck_for(ruleset("dutch", {"players": 3}))
    hands = deal(deck, 11, 0, 1)
    assert [count(h) for h in hands] == [10, 10, 10]
    assert sorted(c for h in hands for c in cards_of(h)) == sorted(deck.cards)


def test_same_seed_same_hands_different_seed_different_hands() -> None:
    rules = ruleset("american")
    a = Match(rules, 123).next_round()
    b = Match(rules, 123).next_round()
    c = Match(rules, 124).next_round()
    assert a.dealt == b.dealt
    assert a.dealt != c.dealt


def test_each_deal_of_a_match_is_new_and_reproducible() -> None:
    rules = ruleset("dutch")
    hands_by_match = []
    for _ in range(2):
        match = Match(rules, 77, first_dealer=0)
        hands = []
        for _ in range(3):
            round_ = match.next_round()
            hands.append(list(round_.dealt))
            play_lowest(round_)
            match.record(round_)
        hands_by_match.append(hands)
    assert hands_by_match[0] == hands_by_match[1]
    first, second, third = hands_by_match[0]
    assert first != second != third


def test_double_deck_deal_holds_both_copies() -> None:
    deck = deck_for(ruleset("double-deck"))
    hands = deal(deck, 3, 0, 0)
    assert [count(h) for h in hands] == [17] * 6
    all_codes = [card_code(c) for h in hands for c in cards_of(h)]
    assert all_codes.count("QS") == 2
    assert "2D" not in all_codes


def test_first_dealer_is_drawn_from_the_seed() -> None:
    rules = ruleset("american")
    dealers = {seed: Match(rules, seed).first_dealer for seed in range(40)}
    for seed, dealer in dealers.items():
        assert Match(rules, seed).first_dealer == dealer
        assert dealer == draw_seat(seed, "first-dealer", 4)
        assert 0 <= dealer < 4
    assert set(dealers.values()) == {0, 1, 2, 3}


def test_first_dealer_argument_overrides_the_draw() -> None:
    match = Match(ruleset("american"), 0, first_dealer=6)
    assert match.first_dealer == 2
    assert match.dealer == 2
    assert match.next_round().dealer == 2


@pytest.mark.parametrize("name", ["dutch", "american-5"])
def test_the_deal_moves_one_seat_to_the_left_each_round(name: str) -> None:
    rules = ruleset(name)
    match = Match(rules, 5, first_dealer=rules.players - 2)
    seen = []
    for _ in range(rules.players + 1):
        round_ = match.next_round()
        seen.append(round_.dealer)
        for seat in round_.awaiting() if round_.phase == "pass" else []:
            round_.pass_cards(seat, round_.hand(seat)[: rules.pass_count])
        play_lowest(round_)
        match.record(round_)
    n = rules.players
    assert seen == [(n - 2 + i) % n for i in range(n + 1)]


def test_dutch_leader_is_left_of_the_dealer() -> None:
    match = Match(ruleset("dutch"), 5, first_dealer=3)
    round_ = match.next_round()
    assert round_.turn == 0
    assert round_.leader == 0


def test_explicit_hands_are_checked_against_the_deck() -> None:
    rules = ruleset("dutch")
    hands = deal_hands(rules, {})
    match = Match(rules, 1)
    broken = [list(h) for h in hands]
    broken[0][0] = broken[1][0]  # a card dealt twice
    with pytest.raises(RulesError, match="not in the deck, or dealt twice"):
        match.next_round(hands=broken)
    with pytest.raises(RulesError, match="a hand of 7 cards, expected 8"):
        match.next_round(hands=[h[:-1] for h in hands])
    with pytest.raises(RulesError, match="3 hands given for 4 players"):
        match.next_round(hands=hands[:3])
    round_ = match.next_round(hands=hands)
    assert [round_.hand(s) for s in range(4)] == [sorted(h) for h in hands]
