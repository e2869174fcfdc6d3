"""The match runner's pieces, each on its own (no runner, no bots): the outbox encodes an
event once and tells only seats still playing, the fault desk applies the policy up to its cap,
and the recorder keeps a seat's replies verbatim only within its log budget."""

from __future__ import annotations

import json
from pathlib import Path

import trio

from protocol.messages import CardPlayed, Play
from referee.match.clock import DecisionClock
from referee.match.config import MatchConfig
from referee.match.faults import Faults
from referee.match.log import MatchLog
from referee.match.outbox import Outbox
from referee.match.recorder import MatchRecorder
from referee.match.seat import LiveSeat
from referee.players.channel import NullLink
from referee.players.connection import BotConnection
from referee.rules import ruleset
from referee.rules.errors import IllegalMove
from referee.rules.match import Match
from referee.rules.turns import IllegalPolicy


def seats(n: int = 4) -> list[LiveSeat]:
    return [LiveSeat(i, BotConnection(link=NullLink(), command=f"bot {i}"), 10.0) for i in range(n)]


def recorder(config: MatchConfig, path: Path | None = None) -> MatchRecorder:
    return MatchRecorder(MatchLog(path), DecisionClock(config), config)


def test_an_event_is_encoded_once_and_told_to_seats_still_playing() -> None:
    table = seats()
    table[2].status = "timeout"
    outbox = Outbox(table, recorder(MatchConfig()))
    outbox.broadcast(CardPlayed(seat=1, card="QS", trick_number=3))
    lines = [s.outbox for s in table]
    assert lines[2] == [] and all(len(q) == 1 for i, q in enumerate(lines) if i != 2)
    assert lines[0][0] is lines[1][0] is lines[3][0]  # one encoding shared by every seat
    assert json.loads(lines[0][0]) == {"type": "card_played", "seat": 1, "card": "QS", "trick_number": 3}
    first = lines[0][0]
    assert outbox.take(table[0]) == first and first.endswith(b"\n")
    assert table[0].outbox == []  # taken off the queue


def test_a_dropped_seat_is_inactive_and_says_why() -> None:
    seat = seats(1)[0]
    assert seat.active and seat.status == "ok"
    seat.status = "crash"
    assert not seat.active and seat.status == "crash"


async def test_the_penalty_policy_forgives_up_to_its_cap_then_forfeits() -> None:
    config = MatchConfig(policy="penalty", illegal_move_cap=2)
    table = seats()
    desk_recorder = recorder(config)
    async with trio.open_nursery() as nursery:
        faults = Faults(config, Outbox(table, desk_recorder), desk_recorder, nursery)
        match = Match(ruleset("american"), 7)
        policy = IllegalPolicy(config.policy, config.illegal_move_cap)  # the match's machine decides
        actions = []
        for _ in range(3):
            round_ = match.next_round()
            decided = policy.action(0)
            assert decided is not None
            policy.taken(0, decided)
            action = await faults.illegal(table[0], IllegalMove("must_follow_suit", "no"), 1, decided)
            actions.append((action, table[0].status, table[0].penalties))
            if action == "penalty":  # the round's machine ends the round with the revoke penalty
                round_.apply_revoke(0)
                match.record(round_)
    assert actions == [("penalty", "ok", 1), ("penalty", "ok", 2), ("forfeit", "illegal_move", 2)]
    assert [r.action for r in faults.reports] == ["penalty", "penalty", "forfeit"]
    assert all(r.reason == "illegal_move" and r.rule == "must_follow_suit" for r in faults.reports)


async def test_replies_are_logged_verbatim_only_within_the_budget(tmp_path: Path) -> None:
    config = MatchConfig(log_budget=150)  # one padded reply fits, two do not
    path = tmp_path / "log.jsonl"
    log = MatchLog(path)
    rec = MatchRecorder(log, DecisionClock(config), config)
    seat = seats(1)[0]
    padded = b'{"type":"play","id":1,"card":"QS","pad":"' + b"x" * 60 + b'"}'
    rec.received(seat, padded, Play(id=1, card="QS"))
    rec.received(seat, padded, Play(id=1, card="QS"))
    rec.received(seat, b"\xff" * 500, None)
    log.close()
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert entries[0]["line"] == padded.decode() and entries[0]["cut"] is None
    assert json.loads(entries[1]["line"]) == {"type": "play", "id": 1, "card": "QS"}
    assert entries[1]["cut"] == len(padded) - len(entries[1]["line"])
    assert entries[2]["cut"] == 500 - 256
