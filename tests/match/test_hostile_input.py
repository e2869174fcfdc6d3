"""Hostile input at the runner and the handshake, on in-memory bots and MockClock: each line
of ``tests/hostile_lines.py`` drops only the seat that sent it, with its named reason; names
are cut and cleaned; a seat that failed its handshake is never named by its command; every line
the referee sends stays within the protocol's limit whatever the bots say; a bot that pads its
replies cannot grow the log beyond its budget; and every such log verifies."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import MAX_LINE
from protocol.ruleset import RuleSet
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.names import MAX_NAME
from referee.players.connection import BotConnection, handshake
from referee.replay import read_log, verify
from referee.rules import ruleset
from tests.hostile_lines import HELLO_LINES, PLAY_LINES
from tests.match.scripted import MemoryLink, ScriptedBot, first_legal, play_on
from tests.tiers import examples

ONE_ROUND = ruleset("american", {"end": "rounds", "rounds": 1})
CONFIG = MatchConfig(per_decision=1.0, bank=2.0, startup=5.0)


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


class RecordingLink(MemoryLink):
    """A memory link that keeps every line the referee wrote to its bot."""

    def __init__(self, stream: trio.abc.HalfCloseableStream) -> None:
        super().__init__(stream)
        self.written = b""

    async def _send_all(self, data: bytes) -> None:
        self.written += data
        await super()._send_all(data)

    def lines(self) -> list[bytes]:
        return self.written.splitlines()


async def play(
    bots: Sequence[ScriptedBot],
    tmp_path: Path,
    *,
    rules: RuleSet = ONE_ROUND,
    config: MatchConfig = CONFIG,
    commands: Sequence[str] | None = None,
) -> tuple[MatchOutcome, list[RecordingLink], Path]:
    log_path = tmp_path / "match.jsonl"
    log = MatchLog(log_path)
    links: list[RecordingLink] = []
    async with trio.open_nursery() as nursery:
        connections = []
        for i, bot in enumerate(bots):
            ours, theirs = trio.testing.memory_stream_pair()
            nursery.start_soon(bot.serve, theirs)
            link = RecordingLink(ours)
            links.append(link)
            command = commands[i] if commands else f"bot{i}"
            connections.append(BotConnection(link=link, command=command))
        outcome = await play_on(connections, rules, seed=5, config=config, log=log, nursery=nursery)
    log.close()
    return outcome, links, log_path


def sending(line: bytes, *, every: bool = False) -> ScriptedBot:
    """A bot that answers its first (or every) play request with ``line``."""
    sent: list[bool] = []

    async def brain(message: dict[str, Any]) -> list[bytes] | None:
        if message["type"] == "play_request" and (every or not sent):
            sent.append(True)
            return [line.replace(b"{id}", str(message["id"]).encode()).replace(b"{card}", message["legal"][0].encode())]
        return first_legal(message)

    return ScriptedBot(brain)


def hello_with(line: bytes) -> ScriptedBot:
    async def brain(message: dict[str, Any]) -> list[bytes] | None:
        return [line] if message["type"] == "hello" else first_legal(message)

    return ScriptedBot(brain)


def assert_lines_within_limit(links: Sequence[RecordingLink]) -> None:
    for link in links:
        for line in link.lines():
            assert len(line) <= MAX_LINE


def assert_verifies(log_path: Path) -> None:
    (match,) = read_log(log_path).matches
    record = verify(match)
    assert record.verification is not None
    assert record.verification.status == "verified", record.verification.describe()


@pytest.mark.parametrize("case", sorted(PLAY_LINES))
async def test_a_hostile_reply_drops_only_its_seat_with_a_named_reason(case: str, tmp_path: Path) -> None:
    line, reason = PLAY_LINES[case]
    bots = [sending(line), ScriptedBot(), ScriptedBot(), ScriptedBot()]
    outcome, links, log_path = await play(bots, tmp_path)
    assert outcome.reason == "rounds_played"
    assert [s.status for s in outcome.seats] == [reason, "ok", "ok", "ok"]
    told = [m for m in bots[0].received if m["type"] == "error"]
    assert told and told[-1]["code"] == reason and told[-1]["fatal"]
    assert_lines_within_limit(links)
    assert_verifies(log_path)


@pytest.mark.parametrize("case", sorted(HELLO_LINES))
async def test_a_hostile_hello_fails_only_its_handshake(case: str, tmp_path: Path) -> None:
    line, reason = HELLO_LINES[case]
    bots = [ScriptedBot(), hello_with(line), ScriptedBot(), ScriptedBot()]
    outcome, links, log_path = await play(bots, tmp_path)
    assert [s.status for s in outcome.seats] == ["ok", reason, "ok", "ok"]
    assert outcome.reason == "rounds_played"
    assert_lines_within_limit(links)
    assert_verifies(log_path)


async def test_a_long_name_with_control_characters_is_cut_and_cleaned(tmp_path: Path) -> None:
    name = "evil\r\nresult: evil won\x1b[2J\u202e" + "n" * 65_000
    hello = json.dumps({"type": "hello", "version": 1, "name": name}).encode()
    bots = [hello_with(hello), ScriptedBot(), ScriptedBot(), ScriptedBot()]
    outcome, links, log_path = await play(bots, tmp_path)
    shown = outcome.seats[0].name
    assert len(shown) == MAX_NAME
    assert shown.startswith("evil result: evil won [2J n")
    assert all(c.isprintable() for c in shown)
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    for bot in bots[1:]:
        (start,) = [m for m in bot.received if m["type"] == "match_start"]
        assert start["players"][0]["name"] == shown
    assert_lines_within_limit(links)
    assert_verifies(log_path)


async def test_a_seat_that_failed_its_handshake_is_not_named_by_its_command(tmp_path: Path) -> None:
    secret = "python3 bot.py --api-key=hunter2"
    bots = [ScriptedBot(), hello_with(b"garbage"), ScriptedBot(), ScriptedBot()]
    outcome, links, _ = await play(bots, tmp_path, commands=["a", secret, "c", "d"])
    assert outcome.seats[1].name == "seat 1"
    for link in links:
        assert b"hunter2" not in link.written


async def test_a_nameless_hello_gets_the_seat_label(tmp_path: Path) -> None:
    nameless = json.dumps({"type": "hello", "version": 1, "name": "\x00\x1b\u200b"}).encode()
    bots = [hello_with(nameless), ScriptedBot(), ScriptedBot(), ScriptedBot()]
    outcome, _, log_path = await play(bots, tmp_path, commands=["secret-command --token x", "b", "c", "d"])
    assert outcome.seats[0].name == "seat 0"
    assert outcome.seats[0].status == "ok"
    assert_verifies(log_path)


async def test_padded_replies_cannot_grow_the_log_beyond_the_budget(tmp_path: Path) -> None:
    pad = b"p" * 50_000
    padded = b'{"type":"play","id":{id},"card":"{card}","pad":"' + pad + b'"}'
    budget = 64 * 1024
    config = MatchConfig(per_decision=1.0, bank=2.0, startup=5.0, log_budget=budget)
    bots = [sending(padded, every=True), ScriptedBot(), ScriptedBot(), ScriptedBot()]
    outcome, _, log_path = await play(bots, tmp_path, config=config)
    assert [s.status for s in outcome.seats] == ["ok"] * 4  # padding is allowed, only not kept
    received = [json.loads(line) for line in log_path.read_text().splitlines()]
    mine = [e for e in received if e["type"] == "recv" and e["seat"] == 0]
    cut = [e for e in mine if e.get("cut") is not None]
    assert len(mine) >= 13 and len(cut) >= len(mine) - 3  # hello, pass and one play fit the budget
    assert all(e["cut"] >= 49_000 and "pad" not in e["line"] for e in cut)
    kept = sum(len(e["line"]) for e in mine)
    assert kept <= budget + len(mine) * 100
    assert log_path.stat().st_size < 3 * budget  # 13 padded replies would be 650 KB
    assert_verifies(log_path)


async def test_an_unreadable_line_after_the_budget_keeps_its_first_bytes(tmp_path: Path) -> None:
    config = MatchConfig(per_decision=1.0, bank=2.0, startup=5.0, log_budget=0)
    bots = [sending(b"[" * 5000), ScriptedBot(), ScriptedBot(), ScriptedBot()]
    outcome, _, log_path = await play(bots, tmp_path, config=config)
    assert outcome.seats[0].status == "bad_json"
    entries = [json.loads(line) for line in log_path.read_text().splitlines()]
    (bad,) = [e for e in entries if e["type"] == "recv" and e["seat"] == 0 and e["line"].startswith("[")]
    assert bad["line"] == "[" * 256 and bad["cut"] == 5000 - 256
    assert_verifies(log_path)


names = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from("\r\n\x1b\x00\u202e"),
    max_size=70_000,
)


@settings(
    max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.lists(names, min_size=4, max_size=4), st.sampled_from(sorted(PLAY_LINES)))
def test_every_line_sent_is_within_the_limit_whatever_the_bots_say(bot_names: list[str], case: str) -> None:
    """Any names and any hostile reply: no line the referee writes is over ``MAX_LINE``."""

    async def main() -> None:
        bots = []
        for i, name in enumerate(bot_names):
            hello = json.dumps({"type": "hello", "version": 1, "name": name}).encode()
            bot = sending(PLAY_LINES[case][0]) if i == 0 else ScriptedBot()
            inner = bot.brain

            async def brain(message: dict[str, Any], inner: Any = inner, hello: bytes = hello) -> list[bytes] | None:
                return [hello] if message["type"] == "hello" else await inner(message)

            bot.brain = brain
            bots.append(bot)
        with tempfile.TemporaryDirectory() as folder:
            outcome, links, _ = await play(bots, Path(folder))
        assert outcome.seats[0].status == PLAY_LINES[case][1] or len(bot_names[0]) > MAX_LINE - 100
        assert_lines_within_limit(links)
        assert all(len(s.name) <= MAX_NAME for s in outcome.seats)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


hostile_hellos = st.one_of(
    st.binary(max_size=300).filter(lambda b: b"\n" not in b),
    st.lists(
        st.sampled_from(
            [
                b"[",
                b"]",
                b"{",
                b"}",
                b'"',
                b"\\",
                b":",
                b",",
                b"NaN",
                b"1e999",
                b"\x00",
                b"\xff",
                b'"type"',
                b'"hello"',
                b'"version"',
                b"1",
                b'"name"',
                b'"token"',
                b"9" * 40,
            ]
        ),
        max_size=2000,
    ).map(b"".join),
)
NAMED = {"bad_json", "protocol_violation", "unknown_message", "no_common_version", "line_too_long"}


@settings(max_examples=examples(150), deadline=None)
@given(hostile_hellos)
def test_any_hello_line_fails_the_handshake_by_name_or_passes(line: bytes) -> None:
    async def main() -> None:
        bot = hello_with(line)
        async with trio.open_nursery() as nursery:
            ours, theirs = trio.testing.memory_stream_pair()
            nursery.start_soon(bot.serve, theirs)
            connection = BotConnection(link=MemoryLink(ours), command="fuzz")
            await handshake(connection, 5.0)
            await connection.link.close()
        if connection.failure is not None:
            assert connection.failure.reason in NAMED
            told = [m for m in bot.received if m["type"] == "error"]
            assert told and told[0]["code"] == connection.failure.reason
        else:
            assert connection.hello is not None and len(connection.name(0)) <= MAX_NAME

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
