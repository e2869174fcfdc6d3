"""The whole match as one sans-I/O machine (``referee.rules.match_turns``): the deal, the rounds
with the illegal-move policy and its cap, every way a match ends, and a driver's misuse named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from protocol.cards import card_code
from protocol.messages import MatchEnd, MatchStart, Pass, Play, RoundStart, SeatOutcome, TimeControl
from referee.rules import ruleset
from referee.rules.errors import MachineMisuse
from referee.rules.match import Match
from referee.rules.match_turns import Dealing, Dealt, Ended, MatchTurns, Outcomes, Scored
from referee.rules.turns import Ask, AskAll, FallbackMove, Illegal, IllegalPolicy, Tell

CLOCK = TimeControl(per_decision_ms=1000, bank_ms=0, startup_ms=1000)
OK = [SeatOutcome(seat=s, name=f"p{s}", status="ok") for s in range(4)]


def machine(
    rounds: int = 1, *, active: Callable[[int], bool] = lambda seat: True, policy: IllegalPolicy | None = None
) -> MatchTurns:
    match = Match(ruleset("american", {"end": "rounds", "rounds": rounds}), 7)
    return MatchTurns(
        match, "m1", names=[f"p{s}" for s in range(4)], clock=CLOCK, active=active,
        policy=policy or IllegalPolicy("forfeit", 0),
    )  # fmt: skip


def lowest_legal(turns: MatchTurns, seat: int) -> str:
    current = turns.match.current
    assert current is not None
    return card_code(current.legal_plays()[0])


def first_cards(turns: MatchTurns, seat: int) -> list[str]:
    current = turns.match.current
    assert current is not None
    return [card_code(c) for c in current.hand(seat)[:3]]


def drive(turns: MatchTurns, *, until: type | None = None) -> list[object]:
    """Answer every question with a legal move (every seat ok at the end); the events seen."""
    seen: list[object] = []
    while (event := turns.event) is not None and not (until and isinstance(event, until)):
        seen.append(event)
        if isinstance(event, AskAll):
            turns.answer({a.seat: Pass(id=0, cards=first_cards(turns, a.seat)) for a in event.asks})
        elif isinstance(event, Ask):
            turns.answer(Play(id=0, card=lowest_legal(turns, event.seat)))
        elif isinstance(event, Outcomes):
            turns.answer(OK)
        else:
            turns.next()
    return seen


def test_one_call_drives_a_whole_match_from_the_deal_to_the_result() -> None:
    seen = drive(machine(rounds=2))
    kinds = [type(e).__name__ for e in seen]
    assert kinds.count("Dealing") == 2 and kinds.count("Scored") == 2 and kinds[-1] == "Ended"
    tells = [e.message for e in seen if isinstance(e, Tell)]
    assert all(isinstance(m, MatchStart) for m in tells[:4])
    assert sum(isinstance(m, RoundStart) for m in tells) == 8
    end = seen[-1]
    assert isinstance(end, Ended) and end.end.reason == "rounds_played" and end.end.rounds == 2
    assert isinstance(tells[-1], MatchEnd) and tells[-1] == end.end


def test_a_match_whose_every_bot_dropped_ends_before_its_next_deal() -> None:
    turns = machine(rounds=3, active=lambda seat: False)
    seen = drive(turns, until=Outcomes)
    assert not any(isinstance(e, Dealing) for e in seen)
    assert turns.event == Outcomes("all_bots_dropped")
    turns.answer(OK)
    drive(turns)
    assert turns.match.results == []


def test_an_interrupted_match_ends_at_once_unscored_and_with_no_winner() -> None:
    turns = machine(rounds=2)
    drive(turns, until=Ask)  # in the first round, play under way
    assert turns.interrupt() == Outcomes("interrupted")
    seen = drive(turns)
    end = seen[-1]
    assert isinstance(end, Ended) and end.end.reason == "interrupted" and end.end.winners == []
    assert turns.match.results == []


def test_a_revoke_ends_the_round_in_play_and_the_same_deal_is_played_again() -> None:
    turns = machine(rounds=1)
    drive(turns, until=Ask)
    scored = turns.revoke(2)
    assert isinstance(scored, Scored) and scored.result.revoke == 2
    seen = drive(turns, until=Dealt)
    assert isinstance(seen[-1], Dealing) and seen[-1].number == 1  # the round's count goes on, the deal again


@pytest.mark.parametrize(
    ("policy", "cap", "actions"),
    [
        ("penalty", 2, ["penalty", "penalty", "forfeit"]),
        ("substitute", 1, ["substitute", "forfeit", "forfeit"]),
        ("forfeit", 5, ["forfeit", "forfeit", "forfeit"]),
    ],
)
def test_the_illegal_move_policy_forgives_up_to_its_cap(policy: str, cap: int, actions: list[str]) -> None:
    rule = IllegalPolicy(policy, cap)  # type: ignore[arg-type]
    taken = []
    for _ in range(3):
        action = rule.action(1)
        assert action is not None
        rule.taken(1, action)
        taken.append(action)
    assert taken == actions
    assert rule.action(0) == (policy if policy != "forfeit" else "forfeit")  # counted per seat
    assert IllegalPolicy("penalty", None).action(0) is None  # an old log: the cap is unknown


def _to_play(turns: MatchTurns) -> Ask:
    drive(turns, until=Ask)
    ask = turns.event
    assert isinstance(ask, Ask)
    return ask


def test_an_illegal_card_meets_the_policy_then_the_fallback_is_played() -> None:
    turns = machine(policy=IllegalPolicy("substitute", 1))
    ask = _to_play(turns)
    current = turns.match.current
    assert current is not None
    other = next(card_code(c) for c in current.hand((ask.seat + 1) % 4))  # not in the seat's hand
    illegal = turns.answer(Play(id=0, card=other))
    assert isinstance(illegal, Illegal) and illegal.action == "substitute"
    assert illegal.error.rule == "card_not_in_hand"
    fallback = turns.answer("substitute")
    assert isinstance(fallback, FallbackMove) and fallback.seat == ask.seat


def test_a_driver_out_of_turn_gets_a_named_error() -> None:
    turns = machine()
    drive(turns, until=AskAll)
    with pytest.raises(MachineMisuse, match="AskAll is answered"):
        turns.answer(Pass(id=0, cards=[]))
    turns = machine()
    _to_play(turns)
    with pytest.raises(MachineMisuse, match="Ask for play is answered"):
        turns.answer(Pass(id=0, cards=[]))
    turns = machine(policy=IllegalPolicy("penalty", 3))
    ask = _to_play(turns)
    current = turns.match.current
    assert current is not None
    turns.answer(Play(id=0, card=card_code(current.hand((ask.seat + 1) % 4)[0])))
    with pytest.raises(MachineMisuse, match="answered with its action 'penalty', not 'substitute'"):
        turns.answer("substitute")
    turns = machine(active=lambda seat: False)
    drive(turns, until=Outcomes)
    with pytest.raises(MachineMisuse, match="list of SeatOutcome"):
        turns.answer("everyone ok")
