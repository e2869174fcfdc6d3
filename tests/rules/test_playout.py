"""The greedy playout policy (``referee.rules.playout.greedy_card``), position by position.

A search bot is only as good as the policy that finishes its sampled worlds: each test is a
hand-built position where the policy used to throw points away (or could), and the card it
must choose there. And whole playouts and sampled worlds give what they gave before the speed
work of issue 46 (digests recorded from that code).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from protocol.cards import card_code, parse_card
from referee.rules.deck import deck_for
from referee.rules.match import Match
from referee.rules.playout import PLAYOUT_POLICIES, _costs, finish, greedy_card
from referee.rules.presets import ruleset
from referee.rules.round import Round
from referee.rules.sampling import sample_round
from referee.rules.view import seat_view
from tests.rules.helpers import make_round, play

AMERICAN = ruleset("american")
BLACK_MARIA = ruleset("black-maria")

# Seat 1 wins the first trick with the A♣ and leads a spade; seat 0 plays last to it.
FORCED_WIN = {
    0: "2C QS 9S 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
    1: "AC 3C 5S 2H 3H 4H 5H 6H 7H 8H 9H TH JH",
    2: "4C 7S QH KH AH QD KD AD 2S 3S 4S 6S TS",
    3: "5C 6C 7C 8C 9C TC JC QC KC 8S JS KS AS",
}
UNDER_THE_ACE = {
    0: "2C QS KS 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
    1: "AC 3C AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH",
    2: "4C QH KH AH QD KD AD 2S 3S 4S 5S 6S 7S",
    3: "5C 6C 7C 8C 9C TC JC QC KC 8S 9S TS JS",
}


def choice(round_: Round, seed: int = 0) -> str:
    return card_code(greedy_card(round_, random.Random(seed)))


def test_last_to_a_trick_it_must_win_it_keeps_the_queen() -> None:
    round_ = make_round(AMERICAN, FORCED_WIN)
    play(round_, "2C AC 4C 5C 5S 7S 8S")
    assert round_.turn == 0
    assert choice(round_) == "9S"  # the Q♠ would win it too, and take 13 points


def test_ducking_under_the_ace_it_drops_the_queen_not_the_king() -> None:
    round_ = make_round(AMERICAN, UNDER_THE_ACE)
    play(round_, "2C AC 4C 5C AS 7S 8S")
    assert round_.turn == 0
    assert choice(round_) == "QS"  # both lose to the A♠; the Q♠ carries the points


def test_not_last_and_every_card_wins_it_plays_its_lowest() -> None:
    round_ = make_round(AMERICAN, FORCED_WIN)
    play(round_, "2C AC 4C 5C 5S 7S")
    assert round_.turn == 3  # 8S JS KS AS: each wins so far; the 8♠ keeps the rest back
    assert choice(round_) == "8S"


def test_black_maria_never_wins_with_its_own_penalty_spade_when_another_card_does() -> None:
    # three players, 17 cards each, the 2♦ out. Seat 0 leads the 2♣.
    deal = {
        0: "2C 4C KS AS 9S 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        1: "AC 3C 5S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 6S",
        2: "5C 6C 7C 8C 9C TC JC QC KC 2S 3S 4S 7S 8S TS JS QS",
    }
    round_ = make_round(BLACK_MARIA, deal, direction="hold")
    play(round_, "2C AC 5C 5S 7S")  # seat 1 wins the clubs and leads the 5♠; seat 2 plays 7♠
    assert round_.turn == 0
    assert choice(round_) == "9S"  # last; A♠ (7) and K♠ (10) would win it for nothing


def test_a_leader_keeps_its_costly_cards_back() -> None:
    deal = {
        0: "2C 4C KS AS QS 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        1: "AC 3C 5S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 6S",
        2: "5C 6C 7C 8C 9C TC JC QC KC 2S 3S 4S 7S 8S TS JS 9S",
    }
    round_ = make_round(BLACK_MARIA, deal, direction="hold")
    play(round_, "2C 3C KC")  # seat 2 wins the clubs and leads the 2♠
    play(round_, "2S QS 6S")  # seat 0 holds only costly spades and wins with its Q♠
    assert round_.points[0] == 13
    assert round_.turn == 0
    picks = {choice(round_, seed) for seed in range(40)}
    assert picks <= {"4C", "3D"}, picks  # never the A♠ or the K♠, whatever suit it picks
    assert picks == {"4C", "3D"}


def test_an_omnibus_leader_keeps_its_jack_of_diamonds_back() -> None:
    deal = {
        0: "2C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D 3D",
        1: "AC 3C JD QD KD 2S 3S 2H 3H 4H 5H 6H 7H",
    }
    round_ = make_round(ruleset("omnibus"), deal)
    play(round_, "2C AC")
    while round_.trick:  # seats 2 and 3 hold no club: the first card they may play
        round_.play(round_.turn, round_.legal_plays()[0])
    assert round_.turn == 1  # the A♣ won; hearts are not broken
    picks = {choice(round_, seed) for seed in range(40)}
    assert picks == {"3C", "QD", "2S"}, picks  # the J♦ (-10) is the lowest diamond, never led


def test_card_values_are_read_by_face_in_a_double_deck() -> None:
    points, penalty, costly, *_ = _costs(deck_for(ruleset("double-deck")))
    queen = parse_card("QS")
    assert points[queen] == 13 and points[parse_card("2H")] == 1
    assert costly == 1 << queen
    assert penalty == costly | sum(1 << parse_card(r + "H") for r in "23456789TJQKA")


# -- the same results as before the speed work of issue 46 ------------------------------------


def _playouts_digest(name: str, overrides: dict[str, Any], seeds: int) -> str:
    """Greedy and random playouts of copies of mid-round positions (some in phase 2, where the
    greedy policy turns round), and sampled worlds played out, all from one seeded ``Random``:
    every card chosen, world dealt and score, digested."""
    rules = ruleset(name, overrides)
    deck = deck_for(rules)
    rng = random.Random(name)
    digest = hashlib.sha256()
    for seed in range(seeds):
        round_ = Match(rules, seed).next_round()
        if seed % 3 == 0:
            round_.match_phase = 2
        while round_.phase in ("pass", "declare"):
            if round_.phase == "pass":
                for seat in round_.awaiting():
                    round_.pass_cards(seat, rng.sample(round_.hand(seat), rules.pass_count))
            else:
                round_.declare(round_.turn, rng.random() < 0.3)
        for _ in range(rng.randrange(deck.hand_size * deck.players)):
            if round_.phase != "play":
                break
            pick = greedy_card(round_, rng) if rng.random() < 0.5 else rng.choice(round_.legal_plays())
            round_.play(round_.turn, pick)
        if round_.phase != "play":
            continue
        digest.update(repr(greedy_card(round_, rng)).encode())
        for policy in PLAYOUT_POLICIES:
            digest.update(repr(finish(round_.copy(), rng, policy)).encode())
        world = sample_round(deck, seat_view(round_, round_.turn), rng)
        digest.update(repr((world.hands, world.trick, world.turn, finish(world, rng))).encode())
    return digest.hexdigest()[:20]


# Recorded from the playouts and the sampling as they were before issue 46's speed work.
RECORDED_PLAYOUTS: list[tuple[str, dict[str, Any], str]] = [
    ("american", {}, "ab3485930e320656fce6"),
    ("american", {"queen_must_drop": True}, "24bb0fb115c50ddb510c"),
    ("american-3", {}, "27bc6020381643e60236"),
    ("omnibus", {}, "98c03b8d201749dc820f"),
    ("black-maria", {}, "fc06b1d90e8b1fc23b8b"),
    ("double-deck", {}, "291c7665f632ea9b2262"),
    ("double-deck", {"identical_cards": "later_wins", "queen_must_drop": True}, "410c5a74331b17ce3083"),
    ("dutch", {}, "ddc52faea2bedacb57ff"),
    ("achterhoeks", {}, "0941905ee666dc7bb618"),
    ("argentine", {}, "0c1a01aafb9654c75ab6"),
]


@pytest.mark.parametrize(("name", "overrides", "digest"), RECORDED_PLAYOUTS)
def test_playouts_and_worlds_give_the_recorded_results(name: str, overrides: dict[str, Any], digest: str) -> None:
    assert _playouts_digest(name, overrides, 40) == digest
