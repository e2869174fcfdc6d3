"""The match runner against in-memory bots on trio's MockClock: every named fault, every
policy, the time bank, and what each seat is told."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from protocol.messages import BotHello
from protocol.ruleset import RuleSet
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.runner import MatchRunner
from referee.players.connection import BotConnection, handshake, say_goodbye
from referee.rules import ruleset
from tests.match.scripted import MemoryLink, ScriptedBot, connect, first_legal, play_on

SHORT = ruleset("american", {"end": "rounds", "rounds": 2})


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


async def run(
    bots: Sequence[ScriptedBot],
    rules: RuleSet = SHORT,
    config: MatchConfig | None = None,
    log_path: Path | None = None,
    max_line: int = 64 * 1024,
) -> MatchOutcome:
    config = config or MatchConfig(per_decision=1.0, bank=2.0, startup=5.0)
    log = MatchLog(log_path)
    async with trio.open_nursery() as nursery:
        connections = [await connect(bot, nursery, max_line) for bot in bots]
        outcome = await play_on(connections, rules, seed=11, config=config, log=log, nursery=nursery)
    log.close()
    return outcome


def bots_with(seat0: ScriptedBot, players: int = 4) -> list[ScriptedBot]:
    return [seat0] + [ScriptedBot() for _ in range(players - 1)]


def errors(bot: ScriptedBot) -> list[dict[str, Any]]:
    return [m for m in bot.received if m["type"] == "error"]


async def test_four_good_bots_finish_the_match() -> None:
    bots = [ScriptedBot() for _ in range(4)]
    outcome = await run(bots)
    assert outcome.reason == "rounds_played"
    assert outcome.rounds == 2
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    assert [sum(col) for col in zip(*outcome.round_scores, strict=True)] == outcome.scores
    for bot in bots:
        kinds = [m["type"] for m in bot.received]
        assert kinds[0] == "hello"
        assert kinds[1] == "match_start"
        assert kinds[-1] == "goodbye" or kinds[-1] == "match_end"
        assert kinds.count("round_start") == 2
        assert kinds.count("trick_end") == 26


async def test_request_ids_increase_and_time_is_sent() -> None:
    bots = [ScriptedBot() for _ in range(4)]
    await run(bots)
    ids = [m["id"] for m in bots[0].received if m["type"].endswith("_request")]
    assert ids == list(range(1, len(ids) + 1))
    play = next(m for m in bots[0].received if m["type"] == "play_request")
    assert play["time"] == {"decision_ms": 1000, "bank_ms": 2000}


async def test_slow_bot_spends_its_bank_then_times_out(autojump_clock: trio.testing.MockClock) -> None:
    async def slow(message: dict[str, Any]) -> list[bytes] | None:
        if message["type"].endswith("_request"):
            await trio.sleep(1.5)  # 0.5 s over the limit every decision
        return first_legal(message)

    slow_bot = ScriptedBot(slow)
    bots = bots_with(slow_bot)
    outcome = await run(bots, config=MatchConfig(per_decision=1.0, bank=1.8, startup=5.0))
    assert outcome.seats[0].status == "timeout"
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
    banks = [m["time"]["bank_ms"] for m in slow_bot.received if m["type"].endswith("_request")]
    assert banks == [1800, 1300, 800, 300]  # the fourth decision needed 0.5 s of a 0.3 s bank
    assert errors(slow_bot)[-1]["code"] == "timeout"
    assert errors(slow_bot)[-1]["fatal"] is True
    assert outcome.reason == "rounds_played"  # the match went on with the fallback


async def test_bot_within_limit_keeps_its_bank(autojump_clock: trio.testing.MockClock) -> None:
    async def steady(message: dict[str, Any]) -> list[bytes] | None:
        if message["type"].endswith("_request"):
            await trio.sleep(0.9)
        return first_legal(message)

    bot = ScriptedBot(steady)
    outcome = await run(bots_with(bot))
    assert outcome.seats[0].status == "ok"
    banks = {m["time"]["bank_ms"] for m in bot.received if m["type"].endswith("_request")}
    assert banks == {2000}


async def test_silent_bot_times_out_at_startup(autojump_clock: trio.testing.MockClock) -> None:
    async def mute(message: dict[str, Any]) -> list[bytes] | None:
        if message["type"] == "hello":
            await trio.sleep(100)
        return first_legal(message)

    bot = ScriptedBot(mute)
    outcome = await run(bots_with(bot))
    assert outcome.seats[0].status == "timeout"
    assert outcome.reason == "rounds_played"


def brain_replying(line: bytes, when: str = "play_request") -> Any:
    async def brain(message: dict[str, Any]) -> list[bytes] | None:
        if message["type"] == when:
            return [line]
        return first_legal(message)

    return brain


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"\xff\xfe garbage", "bad_json"),
        (b"{not json", "bad_json"),
        (b'{"type": "dance", "id": 1}', "unknown_message"),
        (b'{"type": "play", "id": "x", "card": "2C"}', "protocol_violation"),
        (b'["play"]', "protocol_violation"),
        (b'{"type": "pass", "id": 1, "cards": []}', "protocol_violation"),
        (b'{"type": "play", "id": 999, "card": "2C"}', "wrong_id"),
    ],
)
async def test_bad_reply_is_named_and_the_bot_dropped(line: bytes, reason: str) -> None:
    bot = ScriptedBot(brain_replying(line))
    outcome = await run(bots_with(bot))
    assert outcome.seats[0].status == reason
    assert errors(bot)[-1]["code"] == reason
    assert errors(bot)[-1]["fatal"] is True
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
    assert 0 not in outcome.winners


async def test_line_too_long_is_named() -> None:
    bot = ScriptedBot(brain_replying(b'{"type": "play", "pad": "' + b"x" * 5000 + b'"}'))
    outcome = await run(bots_with(bot), max_line=1000)
    assert outcome.seats[0].status == "line_too_long"


async def test_no_common_version() -> None:
    async def future(message: dict[str, Any]) -> list[bytes] | None:
        if message["type"] == "hello":
            return [b'{"type": "hello", "version": 7, "name": "future"}']
        return first_legal(message)

    bot = ScriptedBot(future)
    outcome = await run(bots_with(bot))
    assert outcome.seats[0].status == "no_common_version"
    assert errors(bot)[0]["code"] == "no_common_version"


async def test_hang_up_is_a_disconnect() -> None:
    async def quitter(message: dict[str, Any]) -> list[bytes] | None:
        if message["type"] == "play_request":
            return None
        return first_legal(message)

    outcome = await run(bots_with(ScriptedBot(quitter)))
    assert outcome.seats[0].status == "disconnect"


def illegal_first_play(message: dict[str, Any]) -> list[bytes]:
    """Answer a play request with a card that is not in the legal list."""
    if message["type"] == "play_request":
        wrong = next(c for c in ("AH", "KH", "QH", "QS", "AS", "AD") if c not in message["legal"])
        return [json.dumps({"type": "play", "id": message["id"], "card": wrong}).encode()]
    return first_legal(message)


async def always_illegal(message: dict[str, Any]) -> list[bytes] | None:
    return illegal_first_play(message)


async def test_forfeit_policy_drops_an_illegal_player() -> None:
    bot = ScriptedBot(always_illegal)
    outcome = await run(bots_with(bot), config=MatchConfig(policy="forfeit"))
    assert outcome.seats[0].status == "illegal_move"
    err = errors(bot)[-1]
    assert err["code"] == "illegal_move" and err["fatal"] is True and err["rule"]


async def test_penalty_policy_gives_the_revoke_penalty_and_redeals() -> None:
    calls = {"n": 0}

    async def once_illegal(message: dict[str, Any]) -> list[bytes] | None:
        if message["type"] == "play_request" and calls["n"] == 0:
            calls["n"] += 1
            return illegal_first_play(message)
        return first_legal(message)

    bot = ScriptedBot(once_illegal)
    outcome = await run(bots_with(bot), config=MatchConfig(policy="penalty"))
    assert outcome.seats[0].status == "ok"
    assert outcome.seats[0].penalties == 1
    assert outcome.round_scores[0] == [26, 0, 0, 0]
    assert outcome.rounds == 3  # the redeal does not use up one of the two rounds
    err = errors(bot)[0]
    assert err["code"] == "illegal_move" and err["fatal"] is False


async def test_substitute_policy_plays_for_the_bot_up_to_the_cap() -> None:
    bot = ScriptedBot(always_illegal)
    outcome = await run(bots_with(bot), config=MatchConfig(policy="substitute", illegal_move_cap=2))
    assert outcome.seats[0].substitutions == 2
    assert outcome.seats[0].status == "illegal_move"
    assert [e["fatal"] for e in errors(bot)] == [False, False, True]


async def test_log_names_every_fault_and_fallback(tmp_path: Path) -> None:
    bot = ScriptedBot(brain_replying(b"garbage"))
    path = tmp_path / "m.jsonl"
    await run(bots_with(bot), log_path=path)
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert entries[0]["type"] == "header"
    faults = [e for e in entries if e["type"] == "fault"]
    assert faults == [faults[0]] and faults[0]["reason"] == "bad_json" and faults[0]["action"] == "forfeit"
    assert any(e["type"] == "fallback" and e["seat"] == 0 for e in entries)
    assert entries[-1]["type"] == "result"
    assert any(e["type"] == "recv" and e["line"] == "garbage" for e in entries)


CODE = re.compile(r'"([2-9TJQKA][CDSH])"')


@pytest.mark.parametrize("variant", ["american", "dutch", "american-5", "black-maria"])
async def test_no_seat_is_told_another_seats_hidden_cards(variant: str) -> None:
    rules = ruleset(variant, {"end": "rounds", "rounds": 2})
    bots = [ScriptedBot() for _ in range(rules.players)]
    await run(bots, rules=rules)
    for bot in bots:
        known: set[str] = set()
        for message in bot.received:
            kind = message["type"]
            if kind == "match_start":
                continue  # the rule set names cards (their values), not their holders
            if kind == "round_start":
                known = set(message["hand"])
            elif kind == "passed":
                known |= set(message["received"])
            elif kind in ("card_played", "trick_end"):
                known |= set(CODE.findall(json.dumps(message)))
            leaked = set(CODE.findall(json.dumps(message))) - known
            assert not leaked, f"{kind} told seat of {leaked}"


async def test_one_connection_plays_several_matches_then_goodbye() -> None:
    bots = [ScriptedBot() for _ in range(4)]
    config = MatchConfig()
    async with trio.open_nursery() as nursery:
        connections = [await connect(bot, nursery) for bot in bots]
        for connection in connections:
            await handshake(connection, config.startup)
        outcomes = []
        for seed in (1, 2):
            runner = MatchRunner(connections, SHORT, seed=seed, config=config, log=MatchLog(None), nursery=nursery)
            outcomes.append(await runner.run())
        for connection in connections:
            await say_goodbye(connection, 1.0)
    first, second = (o.match_id for o in outcomes)
    assert first != second
    assert "1" not in first.split("-") and "2" not in second.split("-")
    kinds = [m["type"] for m in bots[2].received]
    assert kinds.count("hello") == 1
    assert kinds.count("match_start") == 2 and kinds.count("match_end") == 2
    assert kinds[-1] == "goodbye"
    ids = [m["id"] for m in bots[2].received if m["type"].endswith("_request")]
    assert ids == list(range(1, len(ids) + 1))  # unique over the connection, across matches


async def test_match_id_does_not_give_away_the_seed() -> None:
    bots = [ScriptedBot() for _ in range(4)]
    outcome = await run(bots)
    start = next(m for m in bots[0].received if m["type"] == "match_start")
    assert start["match_id"] == outcome.match_id
    again = await run([ScriptedBot() for _ in range(4)])  # the same seed (run()'s 11)
    assert again.match_id != outcome.match_id  # random, not derived from the seed
    assert outcome.match_id not in ("11", "b", f"{11:012x}")
    assert "seed" not in json.dumps(bots[0].received)


async def test_penalty_policy_has_a_cap() -> None:
    bot = ScriptedBot(always_illegal)
    outcome = await run(bots_with(bot), config=MatchConfig(policy="penalty", illegal_move_cap=2))
    assert outcome.seats[0].penalties == 2
    assert outcome.seats[0].status == "illegal_move"
    assert [e["fatal"] for e in errors(bot)] == [False, False, True]


async def test_errors_name_the_request() -> None:
    bot = ScriptedBot(brain_replying(b'{"type": "play", "id": 999, "card": "2C"}'))
    await run(bots_with(bot))
    request = next(m for m in bot.received if m["type"] == "play_request")
    assert errors(bot)[-1]["request_id"] == request["id"]


async def test_a_bot_that_does_not_read_times_out(autojump_clock: trio.testing.MockClock) -> None:

    config = MatchConfig(per_decision=1.0, bank=1.0, startup=5.0)
    async with trio.open_nursery() as nursery:
        connections = [await connect(ScriptedBot(), nursery) for _ in range(3)]
        ours, theirs = trio.testing.lockstep_stream_pair()  # a write waits for the reader
        deaf = BotConnection(link=MemoryLink(ours), command="deaf")
        deaf.hello = BotHello(version=1, name="deaf")
        for connection in connections:
            await handshake(connection, config.startup)
        runner = MatchRunner([deaf, *connections], SHORT, seed=1, config=config, log=MatchLog(None), nursery=nursery)
        outcome = await runner.run()
        for connection in [deaf, *connections]:
            await connection.link.close()
        await theirs.aclose()
    assert outcome.seats[0].status == "timeout"
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
