"""Guards for the engine's speed work (docs/performance.md): the shortcuts must not change what
the engine does.

* Whole matches under a fixed, non-random policy give the same deals, tricks and scores as the
  engine did before the speed work (digests recorded from that engine).
* At every decision of random play, the legal plays that ``play`` and ``_finish_trick``
  precompute agree with ``_compute_legal`` (every rule considered), and ``legal_plays`` lists
  exactly the cards of ``legal_mask``.
* ``cards_of`` reads double-deck masks from its tables exactly as the bit-by-bit walk does.
* A ``Round`` keeps no reference to the big lookup tables, so copying one stays cheap.
"""

from __future__ import annotations

import copy
import hashlib
import random
from typing import Any

import pytest

from protocol.cards import COPY_STRIDE
from referee.rules import Match, Round, ruleset
from referee.rules.cardset import cards_of
from referee.rules.round import DECLARE, MOON, PASS, PLAY

# -- the same results as before ---------------------------------------------------------------


def _fixed_policy_digest(name: str, overrides: dict[str, Any], seed: int, max_rounds: int = 25) -> str:
    """Play a match through the public API with a fixed policy (pass the highest cards, play
    the legal card at ``(trick + seat) % count``, never declare, moon to the others) and
    digest everything it shows: deals, received cards, tricks, round results, the match end."""
    match = Match(ruleset(name, overrides), seed)
    h = hashlib.sha256()
    rounds = 0
    while not match.over and rounds < max_rounds:
        round_ = match.next_round()
        h.update(repr((round_.dealer, round_.pass_direction, round_.dealt)).encode())
        need = match.rules.pass_count
        while round_.phase != "done":
            phase = round_.phase
            if phase == PASS:
                for seat in round_.awaiting():
                    round_.pass_cards(seat, round_.hand(seat)[-need:])
                h.update(repr(round_.received).encode())
            elif phase == DECLARE:
                round_.declare(round_.turn, False)
            elif phase == MOON:
                round_.choose_moon(round_.turn, "add_to_others")
            else:
                seat = round_.turn
                legal = round_.legal_plays()
                round_.play(seat, legal[(round_.trick_number + seat) % len(legal)])
        h.update(repr([(t.leader, t.cards, t.winner, t.points) for t in round_.tricks]).encode())
        h.update(repr(match.record(round_)).encode())
        rounds += 1
    h.update(repr((match.scores, match.result)).encode())
    return h.hexdigest()[:20]


# Recorded from the engine as it was before the speed work.
RECORDED: list[tuple[str, dict[str, Any], int, str]] = [
    ("american", {}, 1, "a63432231cf18a9dc4e9"),
    ("american", {}, 2, "8fe65fa95c3ad5fcebac"),
    ("american", {"queen_must_drop": True}, 3, "0db55ac54b7823bcfabf"),
    ("american-3", {}, 4, "1493e00cd404dec51fdd"),
    ("american-5", {}, 5, "95cb65124f2c4ed0080b"),
    ("american-moon-choice", {}, 6, "aad8d48f137042c8c72a"),
    ("omnibus", {}, 7, "05582221225fcbc9e0d4"),
    ("black-maria", {}, 8, "ebcf60724e80969f5e71"),
    ("double-deck", {}, 9, "0381efcea090e3eed5f2"),
    ("double-deck", {"identical_cards": "later_wins"}, 10, "9fe4e511b1cb3ec55043"),
    ("dutch", {}, 11, "d9c784a57fec103a020f"),
    ("dutch-35", {}, 12, "20c8cb769f5bf65bfa68"),
    ("achterhoeks", {}, 13, "3d29f56e7451d014ecdd"),
    ("argentine", {}, 14, "92cc10d2b1d447941b3a"),
]


@pytest.mark.parametrize(("name", "overrides", "seed", "digest"), RECORDED)
def test_fixed_policy_gives_the_recorded_results(name: str, overrides: dict[str, Any], seed: int, digest: str) -> None:
    assert _fixed_policy_digest(name, overrides, seed) == digest


# -- the precomputed legal plays --------------------------------------------------------------

RULE_SETS = [
    ("american", {}),
    ("american", {"queen_must_drop": True}),
    ("american", {"opening_lead": "left_of_dealer", "first_trick_no_points": True}),
    ("american", {"queen_breaks_hearts": True}),
    ("american-3", {}),
    ("american-5", {}),
    ("black-maria", {"queen_must_drop": True}),
    ("double-deck", {}),
    ("double-deck", {"identical_cards": "later_wins", "queen_must_drop": True}),
    ("double-deck", {"players": 8}),
    ("dutch", {}),
    ("achterhoeks", {}),
    ("omnibus", {}),
]


def _listed(mask: int) -> list[int]:
    """The cards of a legal mask as ``legal_plays`` lists them: a double-deck card once."""
    return sorted({card % COPY_STRIDE for card in cards_of(mask)})


@pytest.mark.parametrize(("name", "overrides"), RULE_SETS)
def test_precomputed_legal_plays_follow_every_rule(name: str, overrides: dict[str, Any]) -> None:
    rng = random.Random(7)
    for seed in range(3):
        match = Match(ruleset(name, overrides), seed)
        for _ in range(4):
            round_ = match.next_round()
            while round_.phase != "done":
                if round_.phase == PASS:
                    assert round_.legal_plays() == [] and round_.legal_mask() == 0
                    for seat in round_.awaiting():
                        round_.pass_cards(seat, rng.sample(round_.hand(seat), match.rules.pass_count))
                elif round_.phase == DECLARE:
                    round_.declare(round_.turn, rng.random() < 0.3)
                elif round_.phase == MOON:
                    round_.choose_moon(round_.turn, "subtract_from_shooter")
                else:
                    assert round_.phase == PLAY and round_.awaiting() == [round_.turn]
                    mask = round_.legal_mask()
                    assert mask == round_._compute_legal()
                    legal = round_.legal_plays()
                    assert legal == _listed(mask)
                    round_.play(round_.turn, rng.choice(legal))
            assert round_.legal_plays() == [] and round_.legal_mask() == 0 and round_.awaiting() == []
            match.record(round_)
            if match.over:
                break


def test_double_deck_masks_list_like_the_bit_walk() -> None:
    rng = random.Random(3)
    ids = [copy * COPY_STRIDE + suit * 16 + rank for copy in (0, 1) for suit in range(4) for rank in range(2, 15)]
    for _ in range(3000):
        mask = sum(1 << card for card in rng.sample(ids, rng.randrange(0, 40)))
        walked = [card for card in range(2 * COPY_STRIDE) if mask >> card & 1]
        assert cards_of(mask) == walked
    odd = (1 << COPY_STRIDE) | 1 | (1 << 130)  # bits that are no card keep the walk
    assert cards_of(odd) == [0, COPY_STRIDE, 130]


def test_a_round_holds_no_lookup_table() -> None:
    """Copying a round (the property tests clone rounds) must not copy the id tables."""
    match = Match(ruleset("american"), 5)
    round_ = match.next_round()
    for seat in round_.awaiting():
        round_.pass_cards(seat, round_.hand(seat)[:3])
    round_.play(round_.turn, round_.legal_plays()[0])  # mid-trick
    for name in Round.__slots__:
        value = getattr(round_, name)
        if isinstance(value, list | tuple | dict):
            assert len(value) <= 64, f"Round.{name} holds {len(value)} items"
    clone = copy.deepcopy(round_, {id(round_.deck): round_.deck})
    assert clone.legal_plays() == round_.legal_plays()
