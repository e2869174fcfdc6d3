"""The synchronous table of the vectors and the tests' driver (``referee/rules/scripted.py``):
every seat told what the referee would tell it, every request answered, a refused reply raised
as the script's bug."""

from __future__ import annotations

import random

import pytest

from protocol.messages import MatchEnd, MatchStart, Pass, PassRequest, Play, PlayRequest, RefereeMessage, RoundEnd
from referee.rules import Match, Round
from referee.rules.presets import ruleset
from referee.rules.scripted import RefusedReply, play_scripted
from referee.rules.turns import Ask, Reply
from referee.rules.vectors import CLOCK, TIME
from referee.rules.view import seat_view


def first_legal(ask: Ask, rid: int, round_: Round) -> Reply:
    request = ask.request(rid, TIME)
    if isinstance(request, PassRequest):
        return Pass(id=rid, cards=request.legal[: request.count])
    assert isinstance(request, PlayRequest)
    return Play(id=rid, card=request.legal[0])


def test_a_match_is_told_from_start_to_end_and_every_request_has_a_fresh_id() -> None:
    told: list[tuple[int | None, RefereeMessage]] = []
    ids: list[int] = []

    def answer(ask: Ask, rid: int, round_: Round) -> Reply:
        ids.append(rid)
        return first_legal(ask, rid, round_)

    match = Match(ruleset("american"), 7)
    rounds = play_scripted(match, ["a", "b", "c", "d"], "m", answer, lambda s, m: told.append((s, m)), clock=CLOCK)
    assert match.over and rounds == len(match.results)
    assert [type(m) for s, m in told[:4]] == [MatchStart] * 4 and [s for s, _ in told[:4]] == [0, 1, 2, 3]
    assert told[-1] == (None, told[-1][1]) and isinstance(told[-1][1], MatchEnd)
    assert sum(isinstance(m, RoundEnd) for _, m in told) == rounds
    assert ids == list(range(1, len(ids) + 1))


def test_a_reply_the_machine_refuses_is_the_scripts_bug() -> None:
    rng = random.Random(3)

    def careless(ask: Ask, rid: int, round_: Round) -> Reply:
        request = ask.request(rid, TIME)
        if isinstance(request, PlayRequest):
            held = seat_view(round_, ask.seat).hand
            illegal = [c for c in held if c not in request.legal]
            return Play(id=rid, card=rng.choice(illegal or list(held)))
        return first_legal(ask, rid, round_)

    with pytest.raises(RefusedReply, match="refused"):
        play_scripted(Match(ruleset("american"), 7), list("abcd"), "m", careless, lambda s, m: None, clock=CLOCK)


def test_max_rounds_cuts_the_match_short() -> None:
    match = Match(ruleset("american"), 7)
    assert play_scripted(match, list("abcd"), "m", first_legal, lambda s, m: None, clock=CLOCK, max_rounds=2) == 2
    assert len(match.results) == 2 and not match.over
