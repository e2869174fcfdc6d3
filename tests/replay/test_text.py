"""``referee replay LOG``: the match trick by trick, one round, one seat's side, and ``--json``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from protocol.cards import card_symbol, parse_card
from tests.replay.helpers import MatchLogs, replay

WIRE = re.compile(r"^ *\d+\.\d{6} (>>|<<) (.*)$")
"""A line of the seat view: the time, the direction and the line as it went over the wire."""


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def ok(*args: str | Path) -> str:
    result = replay(*args)
    assert result.exit_code == 0, result.output
    return result.output


def trick_ends(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every trick_end, once (as seat 0 was told it)."""
    return [e["msg"] for e in log if e["type"] == "send" and e["seat"] == 0 and e["msg"]["type"] == "trick_end"]


def test_the_match_trick_by_trick(match_log: MatchLogs) -> None:
    path = match_log("american")
    log = entries(path)
    text = ok(path)
    header = log[0]
    names = [s["name"] for s in header["seats"]]
    assert f"Match {header['match_id']}" in text and f"seed {header['seed']}" in text
    rounds = [e for e in log if e["type"] == "deal"]
    assert [f"Round {d['round']}" in text for d in rounds] == [True] * len(rounds)
    assert "dealt" in text and "passed left" in text and "passed across" in text
    rows = [line for line in text.splitlines() if line[:8].strip().isdigit() and "[" in line]
    tricks = trick_ends(log)
    assert len(rows) == len(tricks)
    for row, trick in zip(rows, tricks, strict=True):
        number, leader = row.split()[:2]
        assert (int(number), int(leader)) == (trick["trick_number"], trick["leader"])
        won = trick["cards"][(trick["winner"] - trick["leader"]) % 4]
        assert f"[{card_symbol(parse_card(won))}]" in row  # the winning card in brackets
        assert f"{trick['winner']} {names[trick['winner']][:16]}" in row
        if trick["points"]:
            assert row.rstrip().endswith(f"+{trick['points']}")
    (result,) = [e for e in log if e["type"] == "result"]
    assert "Result: " in text and f"{result['reason']} after {result['rounds']} rounds" in text
    final = "  score  " + "".join(f"{v:>12}" for v in result["scores"])
    assert " ".join(final.split()) in [" ".join(line.split()) for line in text.splitlines()]
    assert "✓ verified" in text


def test_faults_penalties_and_declarations_are_shown(match_log: MatchLogs) -> None:
    text = ok(match_log("penalty"))
    assert "illegal_move [must_follow_suit]" in text and "revoke penalty and a redeal" in text
    assert "revoke: seat 0 rule-breaker takes the penalty; the hand is dealt again" in text
    assert "seat 0 rule-breaker: illegal_move, penalties 3" in text
    forfeit = ok(match_log("forfeit"))
    assert "crash: the bot exited with code 3 → forfeit" in forfeit and "bad_json" in forfeit
    assert "* the referee's move for the seat (fallback)" in forfeit
    assert "all_bots_dropped" in forfeit
    declared = ok(match_log("achterhoeks"))
    assert "declarations" in declared and "0 declares" in declared
    moon = ok(match_log("moon_choice"))
    assert "chose subtract_from_shooter" in moon and "took every penalty card" in moon


def test_one_round(match_log: MatchLogs) -> None:
    text = ok("--round", "2", match_log("american"))
    assert "Round 2" in text and "Round 1" not in text and "Round 3" not in text
    assert "Result:" not in text
    bad = replay("--round", "9", match_log("american"))
    assert bad.exit_code == 2 and "rounds 0 to 3" in bad.output


def test_one_seat_sees_only_its_own_lines(match_log: MatchLogs) -> None:
    path = match_log("american")
    log = entries(path)
    seat = 2
    text = ok("--seat", str(seat), path)
    wire = [m.groups() for m in map(WIRE.match, text.splitlines()) if m]
    sent = [line for way, line in wire if way == ">>"]
    received = [line for way, line in wire if way == "<<"]
    mine = [e for e in log if e["type"] == "send" and e["seat"] == seat]
    assert [json.loads(m) for m in sent] == [e["msg"] for e in mine]  # every line, exactly as sent
    assert received == [e["line"] for e in log if e["type"] == "recv" and e["seat"] == seat]
    for deal in (e for e in log if e["type"] == "deal"):
        for other, hand in enumerate(deal["hands"]):
            if other != seat:
                assert json.dumps(hand, separators=(",", ":")) not in text  # no other seat's hand
    one_round = ok("--seat", str(seat), "--round", "1", path)
    assert "-- round 1 --" in one_round and "-- round 0 --" not in one_round
    assert '"round":1' in one_round and '"round":0' not in one_round
    assert replay("--seat", "4", path).exit_code == 2
    assert replay("--seat", "1", "--verify", path).exit_code == 2


def test_json_document(match_log: MatchLogs) -> None:
    path = match_log("forfeit")
    log = entries(path)
    document = json.loads(ok("--json", path))
    assert set(document) >= {"match_id", "seed", "rules", "seats", "rounds", "faults", "result", "verification"}
    assert document["match_id"] == log[0]["match_id"] and document["verification"]["status"] == "verified"
    round_ = document["rounds"][0]
    assert round_["hands"] == next(e for e in log if e["type"] == "deal")["hands"]
    assert {"seat", "to_seat", "cards", "fallback"} <= set(round_["passes"][0])
    told = trick_ends(log) or [
        e["msg"] for e in log if e["type"] == "send" and e["msg"]["type"] == "trick_end" and e["seat"] == 1
    ]
    shown = [t for r in document["rounds"] for t in r["tricks"] if t["complete"]]
    for trick, end in zip(shown, told, strict=False):
        assert [
            trick["number"],
            trick["leader"],
            [p["card"] for p in trick["plays"]],
            trick["winner"],
            trick["points"],
        ] == [
            end["trick_number"],
            end["leader"],
            end["cards"],
            end["winner"],
            end["points"],
        ]
    assert [(f["seat"], f["reason"], f["action"]) for f in document["faults"]][:1] == [(3, "timeout", "forfeit")]
    (result,) = [e for e in log if e["type"] == "result"]
    assert document["result"] == {k: result[k] for k in ("scores", "winners", "reason", "rounds")}
    assert (
        document["rounds"][0]["result"]["score_changes"]
        == next(e for e in log if e["type"] == "round_end")["result"]["score_changes"]
    )
