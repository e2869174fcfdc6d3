"""``referee replay --verify``: real logs of every kind verify; a tampered log fails with the
first difference named; a cut-off log verifies up to where it stops."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from referee.match.config import MatchConfig
from referee.match.play import TableOptions, play_match
from referee.players.tcp import TcpSeat
from referee.replay import parse_log, read_log, verify
from referee.replay.record import MatchRecord
from referee.rules import ruleset
from tests.replay.helpers import FIRST, ROOT, SETUPS, MatchLogs, replay

Entries = list[dict[str, Any]]


def record_of(path: Path) -> MatchRecord:
    (match,) = read_log(path).matches
    return verify(match)


def entries(path: Path) -> Entries:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, log: Entries) -> Path:
    path.write_text("".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in log))
    return path


@pytest.mark.parametrize("name", list(SETUPS))
def test_real_logs_verify(name: str, match_log: MatchLogs) -> None:
    path = match_log(name)
    result = replay("--verify", path)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("verified: every entry agrees with the rules")
    record = record_of(path)
    assert record.verification is not None and record.verification.deals == "seed"
    final = entries(path)
    (logged,) = [e for e in final if e["type"] == "result"]
    assert record.result is not None
    assert [record.result.scores, record.result.winners, record.result.reason] == [
        logged["scores"],
        logged["winners"],
        logged["reason"],
    ]


def test_forfeits_are_followed_through(match_log: MatchLogs) -> None:
    record = record_of(match_log("forfeit"))
    reasons = {f.seat: (f.reason, f.action) for f in record.faults}
    assert reasons == {
        0: ("crash", "forfeit"),
        1: ("illegal_move", "forfeit"),
        2: ("bad_json", "forfeit"),
        3: ("timeout", "forfeit"),
    }
    assert record.result is not None and record.result.reason == "all_bots_dropped"
    plays = [p for r in record.rounds for t in r.tricks for p in t.plays]
    assert any(p.fallback for p in plays) and all(p.fallback for p in plays[-4:])


def test_penalties_revoke_and_redeal(match_log: MatchLogs) -> None:
    record = record_of(match_log("penalty"))
    revoked = [r for r in record.rounds if r.result is not None and r.result.revoke is not None]
    assert revoked, "the rule breaker should have been given the revoke penalty"
    for round_ in revoked:
        assert round_.result is not None
        seat = round_.result.revoke
        assert seat is not None and round_.result.score_changes[seat] == 26
        later = record.rounds[round_.round + 1]
        assert (later.dealer, later.pass_direction) == (round_.dealer, round_.pass_direction)  # the same deal again
    assert [f.action for f in record.faults if f.seat == 0] == ["penalty"] * 3 + ["forfeit"]  # the cap is 3


def test_substitutions_play_the_fallback(match_log: MatchLogs) -> None:
    record = record_of(match_log("substitute"))
    rules = {(f.seat, f.rule, f.action) for f in record.faults}
    assert {(0, "wrong_pass_count", "substitute"), (2, "not_a_card", "substitute")} <= rules
    assert (0, "must_follow_suit", "forfeit") in rules  # the third illegal move, past the cap of 2
    assert record.rounds[0].passes[0].fallback
    assert record.seats[2].substitutions == 1 and record.seats[2].status == "ok"


def test_moon_choices_and_declarations(match_log: MatchLogs) -> None:
    moons = record_of(match_log("moon_choice"))
    choices = {(r.moon.seat, r.moon.choice) for r in moons.rounds if r.moon is not None}
    assert len([r for r in moons.rounds if r.moon]) == len(moons.rounds)
    assert (0, "subtract_from_shooter") in choices or (2, "subtract_from_shooter") in choices
    declared = record_of(match_log("achterhoeks"))
    for round_ in declared.rounds:
        assert {d.seat for d in round_.declarations if d.declared} == {0, 2}
        assert round_.result is not None and round_.result.declaration_success[0] is not None


def test_double_deck_cancelled_trick(match_log: MatchLogs) -> None:
    record = record_of(match_log("double_deck"))
    assert len(record.seats) == 6
    assert any(t.complete and t.winner is None for r in record.rounds for t in r.tricks)


def test_a_log_dealt_from_explicit_hands_verifies_from_them(match_log: MatchLogs, tmp_path: Path) -> None:
    """Duplicate play deals given hands: no deal is the seed's, and the logged hands are used."""
    log = entries(match_log("american"))
    log[0]["seed"] = str(int(log[0]["seed"]) + 1)
    path = write(tmp_path / "explicit.jsonl", log)
    record = record_of(path)
    assert record.verification is not None
    assert (record.verification.status, record.verification.deals) == ("verified", "log")


# -- tampering ---------------------------------------------------------------------------------
def nth(log: Entries, predicate: Callable[[dict[str, Any]], bool], n: int = 0) -> dict[str, Any]:
    return [e for e in log if predicate(e)][n]


def sent(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["type"] == "send" and e["msg"]["type"] == kind


def change_a_played_card(log: Entries) -> tuple[int, int, str, str]:
    """A reply in round 1 becomes another legal card: the referee's card_played then
    differs from what the rules make of the reply."""
    requests = [
        (i, e)
        for i, e in enumerate(log)
        if sent("play_request")(e) and len(e["msg"]["legal"]) > 1 and e["msg"]["trick"]
    ]
    index, request = next((i, e) for i, e in requests if e["t"] > nth(log, lambda e: e["type"] == "deal", 1)["t"])
    seat = request["seat"]
    reply_at = next(k for k in range(index + 1, len(log)) if log[k]["type"] == "recv" and log[k]["seat"] == seat)
    reply = json.loads(log[reply_at]["line"])
    other = next(c for c in request["msg"]["legal"] if c != reply["card"])
    original = reply["card"]
    reply["card"] = other
    log[reply_at]["line"] = json.dumps(reply)
    return 1, request["msg"]["trick_number"], other, original


def test_a_changed_card_is_named(match_log: MatchLogs, tmp_path: Path) -> None:
    log = entries(match_log("american"))
    round_no, trick, played, logged = change_a_played_card(log)
    path = write(tmp_path / "card.jsonl", log)
    difference = verify_difference(path)
    assert (difference.round, difference.trick, difference.what) == (round_no, trick, "card_played.card")
    assert (difference.expected, difference.found) == (played, logged)
    result = replay("--verify", path)
    assert result.exit_code == 1
    assert f"round {round_no}, trick {trick}" in result.output and "card_played.card" in result.output


def test_an_illegal_card_is_named(match_log: MatchLogs, tmp_path: Path) -> None:
    log = entries(match_log("american"))
    request = nth(log, lambda e: sent("play_request")(e) and e["msg"]["trick"] and e["msg"]["trick_number"] > 2)
    index = log.index(request)
    reply_at = next(k for k in range(index, len(log)) if log[k]["type"] == "recv" and log[k]["seat"] == request["seat"])
    reply = json.loads(log[reply_at]["line"])
    reply["card"] = next(c for c in ("AH", "AS", "AC", "AD", "2C") if c not in request["msg"]["legal"])
    log[reply_at]["line"] = json.dumps(reply)
    difference = verify_difference(write(tmp_path / "illegal.jsonl", log))
    assert difference.seat == request["seat"] and difference.trick == request["msg"]["trick_number"]
    assert "fault illegal_move" in str(difference.expected)


def test_a_changed_score_is_named(match_log: MatchLogs, tmp_path: Path) -> None:
    log = entries(match_log("american"))
    scored = nth(log, lambda e: e["type"] == "round_end", 2)
    right = list(scored["scores"])
    scored["scores"][1] += 5
    difference = verify_difference(write(tmp_path / "score.jsonl", log))
    assert (difference.round, difference.what, difference.expected) == (2, "round_end.scores", right)
    assert difference.found == scored["scores"]


def test_a_changed_trick_winner_is_named(match_log: MatchLogs, tmp_path: Path) -> None:
    log = entries(match_log("american"))
    end = nth(log, sent("trick_end"), 4 * 6)  # the seventh trick of round 0, as seat 0 was told
    winner = end["msg"]["winner"]
    end["msg"]["winner"] = (winner + 1) % 4
    difference = verify_difference(write(tmp_path / "winner.jsonl", log))
    assert (difference.round, difference.trick, difference.seat) == (0, end["msg"]["trick_number"], end["seat"])
    assert (difference.what, difference.expected, difference.found) == ("trick_end.winner", winner, (winner + 1) % 4)


def test_a_changed_dealt_hand_is_named(match_log: MatchLogs, tmp_path: Path) -> None:
    log = entries(match_log("american"))
    dealt = nth(log, lambda e: e["type"] == "deal", 2)
    right = list(dealt["hands"][0])
    dealt["hands"][0][0], dealt["hands"][1][0] = dealt["hands"][1][0], dealt["hands"][0][0]
    difference = verify_difference(write(tmp_path / "deal.jsonl", log))
    assert (difference.round, difference.seat, difference.what) == (2, 0, "deal.hands[0]")
    assert difference.expected == right


def test_a_changed_fallback_and_fault_are_named(match_log: MatchLogs, tmp_path: Path) -> None:
    log = entries(match_log("forfeit"))
    fallback = nth(log, lambda e: e["type"] == "fallback" and e["decision"] == "play")
    fallback["value"] = "AS" if fallback["value"] != "AS" else "KS"
    assert verify_difference(write(tmp_path / "fallback.jsonl", log)).what == "fallback play"
    log = entries(match_log("penalty"))
    fault = nth(log, lambda e: e["type"] == "fault")
    fault["action"] = "substitute"
    difference = verify_difference(write(tmp_path / "fault.jsonl", log))
    assert (difference.what, difference.found) == ("fault.action", "substitute")


def verify_difference(path: Path) -> Any:
    record = record_of(path)
    assert record.verification is not None and record.verification.status == "mismatch", record.verification
    assert record.verification.difference is not None
    return record.verification.difference


# -- cut-off logs ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["american", "penalty", "forfeit"])
def test_a_log_cut_anywhere_verifies_up_to_the_cut(name: str, match_log: MatchLogs, tmp_path: Path) -> None:
    data = match_log(name).read_bytes()
    full = record_of(match_log(name))
    header_end = data.index(b"\n") + 1
    last_result = data.rindex(b'{"type":"result"')
    cuts = [header_end - 10, header_end, header_end + 7, last_result - 1, last_result + 5]
    cuts += random.Random(name).sample(range(header_end, last_result), 25)
    for cut in cuts:
        log = parse_log(data[:cut], "cut")
        if not log.matches:
            assert cut < header_end and log.cut_line == 1
            continue
        record = verify(log.matches[0])
        verification = record.verification
        assert verification is not None and verification.status == "truncated", (cut, verification)
        assert verification.ends_after
        # what was verified is the full match's record up to there
        done = [r for r in record.rounds if r.result is not None]
        assert [msgspec.to_builtins(r) for r in done] == [msgspec.to_builtins(r) for r in full.rounds[: len(done)]]


def test_a_cut_log_says_where_it_ends(match_log: MatchLogs, tmp_path: Path) -> None:
    data = match_log("american").read_bytes()
    second_round = data.index(b'{"type":"deal"', data.index(b'{"type":"deal"') + 1)
    trick_end = data.index(b'"type":"trick_end","trick_number":5', second_round)
    cut = data.index(b"\n", data.index(b'"type":"play_request"', trick_end)) - 20  # inside a line
    path = tmp_path / "cut.jsonl"
    path.write_bytes(data[:cut])
    result = replay("--verify", path)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("log ends after round 1 trick 5")
    report = json.loads(replay("--verify", "--json", path).output)
    assert (report["status"], report["ends_after"], report["difference"]) == ("truncated", "round 1 trick 5", None)
    shown = replay(path)
    assert shown.exit_code == 0 and "log ends after round 1 trick 5" in shown.output


def test_an_interrupted_match_verifies(match_log: MatchLogs, tmp_path: Path) -> None:
    """SIGINT ends a match at a pending request: the round is not scored, match_end and the
    result say ``interrupted``."""
    log = entries(match_log("american"))
    pending = nth(log, lambda e: sent("play_request")(e) and e["msg"]["trick_number"] == 3, 9)
    kept = log[: log.index(pending) + 1]
    done = [e for e in kept if e["type"] == "round_end"]
    header = log[0]
    seats = [
        {"seat": s["seat"], "name": s["name"], "status": "ok", "substitutions": 0, "penalties": 0}
        for s in header["seats"]
    ]
    scores = done[-1]["scores"]
    end = {"scores": scores, "winners": [], "reason": "interrupted", "rounds": len(done), "seats": seats}
    message = {"type": "match_end", "match_id": header["match_id"], **end}
    kept += [{"type": "send", "t": 9.0, "seat": s, "msg": message} for s in range(4)]
    kept.append({"type": "result", "t": 9.0, **end})
    record = record_of(write(tmp_path / "interrupted.jsonl", kept))
    assert record.verification is not None and record.verification.status == "verified", record.verification
    assert record.result is not None and record.result.reason == "interrupted"
    assert record.rounds[-1].result is None


@pytest.mark.process
def test_a_tcp_bot_that_reconnects(tmp_path: Path) -> None:
    """With --reconnect, a TCP bot that hangs up is told the match and the round again (its hand
    as it is now) and asked again with a new id on its new connection."""
    bots: list[subprocess.Popen[bytes]] = []

    def listening(address: tuple[str, int], seats: list[TcpSeat]) -> None:
        host, port = address
        for seat in seats:
            command = [sys.executable, "tests/replay/bots/reconnecting_bot.py", host, str(port), seat.token]
            bots.append(subprocess.Popen(command, cwd=ROOT))

    path = tmp_path / "reconnect.jsonl"
    config = MatchConfig(per_decision=5.0, bank=10.0, reconnect=True)
    rules = ruleset("american", {"end": "rounds", "rounds": 1})
    trio.run(
        lambda: play_match(
            ["tcp:alice", FIRST, FIRST, FIRST],
            rules,
            seed=5,
            log_path=path,
            options=TableOptions(config=config, cwd=ROOT, on_listening=listening),
        )
    )
    for bot in bots:
        bot.wait(10)
    record = record_of(path)
    assert record.verification is not None and record.verification.status == "verified", record.verification
    assert [(f.reason, f.action) for f in record.faults] == [("disconnect", "reconnect")]
    assert record.seats[0].status == "ok"
    log = entries(path)
    again = [e for e in log if sent("round_start")(e) and e["seat"] == 0][1]
    again["msg"]["hand"] = again["msg"]["hand"][1:]
    difference = verify_difference(write(tmp_path / "tampered.jsonl", log))
    assert (difference.seat, difference.what) == (0, "round_start.hand")
