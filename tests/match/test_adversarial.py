"""The adversarial suite (issue 4): real bot processes, and raw TCP clients, that misbehave in
every named way. For each one the match completes within a bounded time, the reason is named
in the result (``outcome.seats[i].status``) and in the log (its ``fault`` entry), the other bots
are unaffected, and no process is left behind (``pgrep -f`` for a marker argument that every
bot of the test carries).

Short limits throughout: 0.5 s per decision, a 0.5 s bank, 5 s start-up, 0.3 s grace. The
hostile bots are ``tests/bots/hostile_bot.py MODE MARKER``; the modes added for this suite write
what they did (bytes written, tricks seen) to ``$HOSTILE_TRACE.<pid>`` so that a test can see how
much the referee read after it stopped listening. Signals to the referee itself are in
``test_adversarial_signals.py``.

Last, for every preset: no message tells a seat a card it could not know.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import re
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.match.runner import MatchRunner
from referee.players.connection import handshake, say_goodbye
from referee.rules import PRESETS, ruleset
from tests.bots.first_legal_bot import answer
from tests.match.listening import listening_match
from tests.match.scripted import Lines, Reply, ScriptedBot, connect, first_legal
from tests.shared import kill_strays, wait_gone

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
SHORT = ruleset("american", {"end": "rounds", "rounds": 1})
FAST = MatchConfig(per_decision=0.5, bank=0.5, startup=5.0, grace=0.3)
HANG_GUARD = 120.0
"""Seconds after which a match counts as hung: a guard that turns a hang into a failure, far
above any match here, never a verdict on speed (the referee's clock is what the tests judge)."""
"""Seconds a one-round match with one misbehaving bot may take, at the very most (it takes one
to three on an idle machine)."""
TOLD = {"bad_json", "line_too_long", "unknown_message", "protocol_violation", "wrong_id", "output_flood", "timeout"}
"""Reasons the bot is told about with a fatal ``error`` (a crashed or disconnected bot is not)."""
KIB = 1024
MIB = 1024 * KIB


# -- helpers -----------------------------------------------------------------------------------


def new_marker() -> str:
    return f"adversarial-{uuid.uuid4().hex}"


def hostile(mode: str, marker: str) -> str:
    return f"{PY} {ROOT}/tests/bots/hostile_bot.py {mode} {marker}"


def good(marker: str) -> str:
    return f"{PY} {ROOT}/tests/bots/first_legal_bot.py {marker}"


def read_log(path: Path) -> list[dict[str, Any]]:
    """Every entry of a finished log; every line must be complete JSON."""
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.splitlines()]


def traced(prefix: Path) -> list[list[str]]:
    """The trace lines of every hostile bot that wrote one."""
    return [p.read_text().splitlines() for p in sorted(prefix.parent.glob(prefix.name + ".*"))]


def written(prefix: Path) -> int:
    """The most bytes a flooding bot reported having written."""
    counts = [int(line.split()[1]) for lines in traced(prefix) for line in lines if line.startswith("wrote ")]
    return max(counts, default=0)


def sent(entries: list[dict[str, Any]], seat: int, kind: str) -> list[dict[str, Any]]:
    """The messages of one type the referee sent a seat."""
    return [e["msg"] for e in entries if e["type"] == "send" and e["seat"] == seat and e["msg"]["type"] == kind]


def requests(entries: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    return [
        e["msg"] for e in entries if e["type"] == "send" and e["seat"] == seat and e["msg"]["type"].endswith("_request")
    ]


def stderr_entry(entries: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    return next(e for e in entries if e["type"] == "stderr" and e["seat"] == seat)


@dataclass
class Played:
    outcome: MatchOutcome
    entries: list[dict[str, Any]]
    leftover: list[int]
    trace: Path

    @property
    def faults(self) -> list[dict[str, Any]]:
        return [e for e in self.entries if e["type"] == "fault"]

    @property
    def fault(self) -> dict[str, Any]:
        (one,) = self.faults
        return one


def play_hostile(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: MatchConfig = FAST) -> Played:
    """A one-round match: the hostile bot in seat 0, three first-legal bots."""
    marker = new_marker()
    trace = tmp_path / "trace"
    monkeypatch.setenv("HOSTILE_TRACE", str(trace))
    log = tmp_path / "m.jsonl"
    seats = [hostile(mode, marker), good(marker), good(marker), good(marker)]

    async def guarded() -> MatchOutcome:
        with trio.fail_after(HANG_GUARD):
            return await play_match(seats, SHORT, seed=5, log_path=log, options=TableOptions(config=config, cwd=ROOT))

    try:
        outcome = trio.run(guarded)
        leftover = wait_gone(marker)
    finally:
        kill_strays(marker)
    return Played(outcome, read_log(log), leftover, trace)


def assert_seat_zero_dropped(played: Played, reason: str) -> None:
    """The shared promises: bounded, named in the result and the log, the others untouched,
    nothing left."""
    outcome, entries = played.outcome, played.entries
    assert outcome.seats[0].status == reason
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
    assert outcome.reason == "rounds_played"
    assert outcome.rounds == 1
    assert 0 not in outcome.winners
    fault = played.fault
    assert (fault["seat"], fault["reason"], fault["action"]) == (0, reason, "forfeit")
    errors = sent(entries, 0, "error")
    if reason in TOLD:
        assert [(e["code"], e["fatal"]) for e in errors] == [(reason, True)]
        assert errors[0]["request_id"] == requests(entries, 0)[-1]["id"]
    else:
        assert errors == []
    assert sent(entries, 0, "match_end") == []  # a dropped bot is told nothing more
    for seat in (1, 2, 3):
        assert sent(entries, seat, "error") == []
        assert len(sent(entries, seat, "trick_end")) == 13
        (end,) = sent(entries, seat, "match_end")
        assert end["reason"] == "rounds_played"
    assert any(e["type"] == "fallback" and e["seat"] == 0 for e in entries)
    assert entries[0]["type"] == "header"
    kinds = [e["type"] for e in entries]
    result = kinds.index("result")
    assert kinds[result + 1 :] == ["stderr"] * 4
    assert entries[result]["seats"][0]["status"] == reason
    assert played.leftover == []


# -- what each misbehaviour shows beyond the shared promises ---------------------------------


def no_more(played: Played) -> None:
    """Nothing beyond the shared checks."""


def replaced_bytes_logged(played: Played) -> None:
    lines = [e["line"] for e in played.entries if e["type"] == "recv" and e["seat"] == 0]
    assert "\ufffd" in lines[-1]  # the invalid bytes are logged as U+FFFD, the line as it came


def names_the_field(played: Played) -> None:
    assert "$.card" in played.fault["message"]


def names_both_ids(played: Played) -> None:
    last = requests(played.entries, 0)[-1]["id"]
    assert played.fault["message"] == f"reply id {last + 1} does not answer request {last}"


def second_reply_is_stale(played: Played) -> None:
    plays = [r["id"] for r in requests(played.entries, 0) if r["type"] == "play_request"]
    assert len(plays) == 2  # answered the first one (twice); the stale copy met the second
    assert played.fault["message"] == f"reply id {plays[0]} does not answer request {plays[1]}"
    replies = [e["line"] for e in played.entries if e["type"] == "recv" and e["seat"] == 0]
    assert replies[-1] == replies[-2]


def long_line_read_bounded(played: Played) -> None:
    lines = [e["line"] for e in played.entries if e["type"] == "recv" and e["seat"] == 0]
    assert all(len(line) <= 64 * KIB for line in lines)  # the long line is not logged
    # the referee stopped reading at the limit: the bot could not get rid of its 10 MB
    assert 0 < written(played.trace) < 1 * MIB


def timed_out_after_the_bank(played: Played) -> None:
    assert played.fault["message"] == "no reply within 1.000 s (decision limit plus bank)"


def bank_drains_then_timeout(played: Played) -> None:
    plays = [r["time"] for r in requests(played.entries, 0) if r["type"] == "play_request"]
    banks = [t["bank_ms"] for t in plays]
    assert {t["decision_ms"] for t in plays} == {500}
    assert banks[0] == 500
    assert len(banks) >= 2
    assert all(later < earlier for earlier, later in itertools.pairwise(banks)), banks
    # the last decision was cut off at its decision time plus what was left of the bank
    limit = float(played.fault["message"].split()[3])
    assert abs(limit * 1000 - 500 - banks[-1]) <= 1
    assert limit < 1.0


def exit_code_of_mid_trick_exit(played: Played) -> None:
    assert played.fault["message"] == "the bot exited with code 5"
    assert requests(played.entries, 0)[-1]["trick"]  # it was asked with cards on the table
    assert stderr_entry(played.entries, 0)["exit_code"] == 5


def exit_code_of_fork_leader(played: Played) -> None:
    assert played.fault["message"] == "the bot exited with code 0"  # mid-match: still a crash


def stderr_capped(played: Played) -> None:
    assert "bytes on stderr since the last decision" in played.fault["message"]
    err = stderr_entry(played.entries, 0)
    assert len(err["text"].encode()) == 64 * KIB
    assert err["dropped_bytes"] == 2 * MIB - 64 * KIB


@pytest.mark.process
@pytest.mark.parametrize(
    ("mode", "reason", "check"),
    [
        pytest.param("garbage", "bad_json", no_more, id="garbage"),
        pytest.param("invalid_utf8", "bad_json", replaced_bytes_logged, id="invalid_utf8"),
        pytest.param("wrong_shape", "protocol_violation", names_the_field, id="wrong_shape"),
        pytest.param("unknown_type", "unknown_message", no_more, id="unknown_type"),
        pytest.param("wrong_id", "wrong_id", names_both_ids, id="wrong_id"),
        pytest.param("double_reply", "wrong_id", second_reply_is_stale, id="double_reply"),
        pytest.param("huge_line", "line_too_long", long_line_read_bounded, id="10MB_line"),
        pytest.param("no_newline", "timeout", timed_out_after_the_bank, id="no_newline_then_silence"),
        pytest.param("sleep", "timeout", timed_out_after_the_bank, id="sleep_past_the_limit"),
        pytest.param("slow_bank", "timeout", bank_drains_then_timeout, id="bank_runs_out"),
        pytest.param("exit_mid_trick", "crash", exit_code_of_mid_trick_exit, id="exit_mid_trick"),
        pytest.param("close_stdout", "disconnect", no_more, id="close_stdout_stay_alive"),
        pytest.param("fork_child", "crash", exit_code_of_fork_leader, id="forked_child_holds_pipe"),
        pytest.param("stderr_flood", "output_flood", stderr_capped, id="stderr_flood"),
    ],
)
def test_misbehaving_bot_is_named_and_nothing_is_left(
    mode: str, reason: str, check: Callable[[Played], None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played = play_hostile(mode, tmp_path, monkeypatch)
    assert_seat_zero_dropped(played, reason)
    check(played)


@pytest.mark.process
@pytest.mark.parametrize(
    ("mode", "exit_code"),
    [
        pytest.param("ignore_term", -9, id="ignores_sigterm_is_sigkilled"),
        pytest.param("sleep", -15, id="sleeper_is_sigtermed"),
    ],
)
def test_a_dropped_bot_is_ended_and_its_exit_status_logged(
    mode: str, exit_code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot that times out and will not exit: SIGTERM to its group after the grace period,
    SIGKILL after another if it ignores that. The log's ``stderr`` entries come "once every bot
    program has ended" (docs/replay-format.md), so they carry its exit status."""
    played = play_hostile(mode, tmp_path, monkeypatch)
    assert_seat_zero_dropped(played, "timeout")
    assert stderr_entry(played.entries, 0)["exit_code"] == exit_code


@pytest.mark.process
def test_stdout_flood_is_named_and_reading_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines without end, unasked: dropped as a flood (or for the stale line it reads next),
    and the referee reads a bounded amount of it: the bot is left blocked on a full pipe."""
    played = play_hostile("stdout_flood", tmp_path, monkeypatch)
    reason = played.outcome.seats[0].status
    assert reason in ("output_flood", "wrong_id")
    assert_seat_zero_dropped(played, reason)
    assert 0 < written(played.trace) < 1 * MIB


@pytest.mark.process
def test_bot_that_ignores_sigterm_after_goodbye_is_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot in good standing that outstays its goodbye and ignores SIGTERM: SIGKILL."""
    played = play_hostile("linger", tmp_path, monkeypatch)
    assert [s.status for s in played.outcome.seats] == ["ok"] * 4
    assert played.faults == []
    assert stderr_entry(played.entries, 0)["exit_code"] == -9
    assert [stderr_entry(played.entries, s)["exit_code"] for s in (1, 2, 3)] == [0, 0, 0]
    assert played.leftover == []


# -- over TCP ------------------------------------------------------------------------------------

TOKEN = "adversarial-token"


@dataclass
class RawClient:
    """A bot on a raw socket: first legal choices, or one misbehaviour at its ``at``-th play
    request: ``garbage``, ``wrong_id``, ``huge_line`` (10 MB and a newline), ``hang_up``;
    or ``silent`` (connects, never says a word). It reads until the referee closes."""

    token: str = TOKEN
    misbehave: str | None = None
    at: int = 1
    think: float = 0.0
    received: list[dict[str, Any]] = field(default_factory=list)
    closed: bool = False
    """The referee closed the connection (end of file or reset)."""
    pushed: int = 0
    """Bytes of the huge line that went out."""

    def errors(self) -> list[str]:
        return [m["code"] for m in self.received if m["type"] == "error"]

    async def run(self, address: tuple[str, int]) -> None:
        stream = await trio.open_tcp_stream(*address)
        try:
            async with trio.open_nursery() as nursery:
                await self._converse(stream, nursery)
                nursery.cancel_scope.cancel()
        finally:
            await stream.aclose()

    async def _converse(self, stream: trio.SocketStream, nursery: trio.Nursery) -> None:
        lines = Lines(stream)
        plays = 0
        while True:
            try:
                line = await lines.next()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                line = None
            if line is None:
                self.closed = True
                return
            message = json.loads(line)
            self.received.append(message)
            if self.misbehave == "silent":
                continue
            kind = message["type"]
            reply = answer(message, "raw")
            if reply is not None and kind == "hello":
                reply = {**reply, "token": self.token}
            out = None if reply is None else _line(reply)
            if kind == "play_request":
                plays += 1
                await trio.sleep(self.think)
                if plays == self.at:
                    if self.misbehave == "hang_up":
                        return
                    if self.misbehave == "garbage":
                        out = b"\x00\xff garbage \xfe\n"
                    elif self.misbehave == "wrong_id":
                        out = _line({"type": "play", "id": message["id"] + 1, "card": message["legal"][0]})
                    elif self.misbehave == "huge_line":
                        nursery.start_soon(self._push_huge_line, stream)
                        out = None
            if out is not None:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await stream.send_all(out)

    async def _push_huge_line(self, stream: trio.SocketStream) -> None:
        piece = b"x" * 65536
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await stream.send_all(b'{"type": "play", "pad": "')
            while self.pushed < 10 * MIB:
                await stream.send_all(piece)
                self.pushed += len(piece)
            await stream.send_all(b'"}\n')


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


@dataclass
class TcpPlayed:
    outcome: MatchOutcome
    entries: list[dict[str, Any]]
    leftover: list[int]

    @property
    def faults(self) -> list[dict[str, Any]]:
        return [e for e in self.entries if e["type"] == "fault"]


async def tcp_match(
    clients: list[tuple[RawClient, float]],
    tmp_path: Path,
    *,
    config: MatchConfig = FAST,
    connect_timeout: float = 5.0,
) -> TcpPlayed:
    """Seat 0 is ``tcp:raw:TOKEN``; the clients connect after their delays; seats 1 to 3 are
    first-legal bot processes carrying a marker."""
    marker = new_marker()
    log = tmp_path / "m.jsonl"
    seats = [f"tcp:raw:{TOKEN}", good(marker), good(marker), good(marker)]
    options = TableOptions(config=config, cwd=ROOT, connect_timeout=connect_timeout)
    try:
        with trio.fail_after(HANG_GUARD):
            async with listening_match(seats, SHORT, seed=5, options=options, log_path=log) as match:

                async def later(client: RawClient, delay: float) -> None:
                    await trio.sleep(delay)
                    await client.run(match.address)

                for client, delay in clients:
                    match.nursery.start_soon(later, client, delay)
        leftover = wait_gone(marker)
    finally:
        kill_strays(marker)
    return TcpPlayed(match.outcome, read_log(log), leftover)


def assert_tcp_seat_dropped(played: TcpPlayed, client: RawClient, reason: str) -> None:
    assert played.outcome.seats[0].status == reason
    assert [s.status for s in played.outcome.seats[1:]] == ["ok"] * 3
    assert played.outcome.reason == "rounds_played"
    assert [(f["seat"], f["reason"], f["action"]) for f in played.faults] == [(0, reason, "forfeit")]
    for seat in (1, 2, 3):
        assert sent(played.entries, seat, "error") == []
    assert client.closed or client.misbehave == "hang_up"  # the referee hung up on it
    assert played.entries[0]["seats"][0]["command"].startswith("tcp:raw")
    assert played.leftover == []


@pytest.mark.process
@pytest.mark.parametrize(
    ("misbehave", "reason"),
    [("garbage", "bad_json"), ("wrong_id", "wrong_id")],
)
async def test_tcp_bad_reply_is_named(misbehave: str, reason: str, tmp_path: Path) -> None:
    client = RawClient(misbehave=misbehave)
    played = await tcp_match([(client, 0)], tmp_path)
    assert_tcp_seat_dropped(played, client, reason)
    assert client.errors() == [reason]
    assert [(e["code"], e["fatal"]) for e in sent(played.entries, 0, "error")] == [(reason, True)]


@pytest.mark.process
async def test_tcp_10mb_line_is_line_too_long(tmp_path: Path) -> None:
    client = RawClient(misbehave="huge_line")
    played = await tcp_match([(client, 0)], tmp_path)
    assert_tcp_seat_dropped(played, client, "line_too_long")
    assert [e["code"] for e in sent(played.entries, 0, "error")] == ["line_too_long"]
    # the error is written, but the referee closes a socket with unread bytes, which may reset
    # the connection before the client reads it: when it arrives, it names the reason
    assert set(client.errors()) <= {"line_too_long"}


@pytest.mark.process
async def test_tcp_disconnect_mid_match(tmp_path: Path) -> None:
    client = RawClient(misbehave="hang_up", at=3)
    played = await tcp_match([(client, 0)], tmp_path)
    assert_tcp_seat_dropped(played, client, "disconnect")
    assert sent(played.entries, 0, "error") == []
    assert len([m for m in client.received if m["type"] == "play_request"]) == 3


@pytest.mark.process
async def test_tcp_wrong_token_is_refused_and_the_seat_still_plays(tmp_path: Path) -> None:
    stranger = RawClient(token="not-the-token")
    bot = RawClient()
    played = await tcp_match([(stranger, 0), (bot, 0.3)], tmp_path)
    assert stranger.errors() == ["bad_token"] and stranger.closed
    assert [m["type"] for m in stranger.received] == ["hello", "error"]  # nothing of the match
    assert [s.status for s in played.outcome.seats] == ["ok"] * 4
    assert played.faults == []
    assert played.leftover == []


@pytest.mark.process
async def test_tcp_wrong_token_alone_leaves_the_seat_to_the_fallback(tmp_path: Path) -> None:
    stranger = RawClient(token="not-the-token")
    played = await tcp_match([(stranger, 0)], tmp_path, connect_timeout=1.0)
    assert stranger.errors() == ["bad_token"] and stranger.closed
    assert [s.status for s in played.outcome.seats] == ["timeout", "ok", "ok", "ok"]
    assert [(f["seat"], f["reason"]) for f in played.faults] == [(0, "timeout")]
    assert played.leftover == []


@pytest.mark.process
async def test_tcp_connecting_twice_is_refused_without_disturbing_the_seat(tmp_path: Path) -> None:
    bot = RawClient(think=0.05)
    twin = RawClient()
    played = await tcp_match([(bot, 0), (twin, 0.4)], tmp_path)
    assert twin.errors() == ["seat_taken"] and twin.closed
    assert [m["type"] for m in twin.received] == ["hello", "error"]
    assert bot.errors() == []
    assert [s.status for s in played.outcome.seats] == ["ok"] * 4
    assert played.faults == []
    assert played.leftover == []


@pytest.mark.process
async def test_tcp_connecting_and_saying_nothing_is_refused(tmp_path: Path) -> None:
    """A connection that never says hello is refused with ``timeout`` once the start-up limit
    (2 s here, for a quick test) has passed; the seat's real bot plays on."""
    mute = RawClient(misbehave="silent")
    bot = RawClient(think=0.2)  # the match outlasts the mute's start-up limit
    config = MatchConfig(per_decision=0.5, bank=0.5, startup=2.0, grace=0.3)
    played = await tcp_match([(mute, 0), (bot, 0.1)], tmp_path, config=config)
    assert mute.errors() == ["timeout"] and mute.closed
    assert [m["type"] for m in mute.received] == ["hello", "error"]
    assert [s.status for s in played.outcome.seats] == ["ok"] * 4
    assert played.faults == []
    assert played.leftover == []


# -- what a seat is told -------------------------------------------------------------------------

CODE = re.compile(r'"([2-9TJQKA][CDSH])"')


def codes(message: object) -> set[str]:
    return set(CODE.findall(json.dumps(message)))


def varied(seed: int) -> Reply:
    """A bot that picks among the legal options at random (seeded): other passes, plays,
    declarations and moon choices than the first legal ones."""
    rng = random.Random(seed)

    async def brain(message: dict[str, Any]) -> list[bytes] | None:
        kind = message["type"]
        if kind == "pass_request":
            cards = rng.sample(message["legal"], message["count"])
            return [_line({"type": "pass", "id": message["id"], "cards": cards})[:-1]]
        if kind == "play_request":
            return [_line({"type": "play", "id": message["id"], "card": rng.choice(message["legal"])})[:-1]]
        if kind == "declare_request":
            return [_line({"type": "declare", "id": message["id"], "declare": rng.random() < 0.3})[:-1]]
        if kind == "moon_request":
            return [_line({"type": "moon", "id": message["id"], "choice": rng.choice(message["options"])})[:-1]]
        return first_legal(message)

    return brain


def hidden_cards_told(received: list[dict[str, Any]]) -> list[str]:
    """Messages that name a card the seat could not know: not in its hand (by code: in the
    double deck the other copy of a card it holds is indistinguishable), not passed to it, not
    yet played."""
    problems = []
    known: set[str] = set()
    for message in received:
        kind = message["type"]
        told = codes(message)
        if kind == "match_start":
            told = codes({k: v for k, v in message.items() if k != "rules"})  # the rules name card values
        elif kind == "round_start":
            known = set(message["hand"])
        elif kind == "passed":
            known |= set(message["received"])
        elif kind == "card_played":
            known.add(message["card"])
        if told - known:
            problems.append(f"{kind} names {sorted(told - known)}")
    return problems


@pytest.mark.parametrize("preset", list(PRESETS))
async def test_no_seat_is_told_another_seats_hidden_cards_in_any_preset(preset: str) -> None:
    """Every preset at its own number of players, two matches of two rounds on the same
    connections, bots choosing at random: no message names another seat's card before it is
    played, nor the cards other seats passed among themselves."""
    rules = ruleset(preset, {"end": "rounds", "rounds": 2})
    bots = [ScriptedBot(varied(seat)) for seat in range(rules.players)]
    config = MatchConfig(per_decision=1.0, bank=1.0, startup=5.0)
    async with trio.open_nursery() as nursery:
        connections = [await connect(bot, nursery) for bot in bots]
        for connection in connections:
            await handshake(connection, config.startup)
        for seed in (21, 22):
            runner = MatchRunner(connections, rules, seed=seed, config=config, log=MatchLog(None), nursery=nursery)
            outcome = await runner.run()
            assert [s.status for s in outcome.seats] == ["ok"] * rules.players
        for connection in connections:
            await say_goodbye(connection, 1.0)
    for seat, bot in enumerate(bots):
        kinds = [m["type"] for m in bot.received]
        assert kinds.count("match_end") == 2
        others = {m["card"] for m in bot.received if m["type"] == "card_played" and m["seat"] != seat}
        assert others  # the check below had cards of other seats to leak
        assert hidden_cards_told(bot.received) == [], f"seat {seat}"
