"""TCP seats: kits connect with a token; wrong tokens, second connections, silent and
never-arriving clients are refused without disturbing the seated bots; reconnection."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.match.config import MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.players.tcp import TcpSeat, TcpSeatServer
from referee.rules import ruleset
from tests.bots.first_legal_bot import answer
from tests.match.listening import listening_match
from tests.match.scripted import Lines

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} tests/bots/first_legal_bot.py"
SHORT = ruleset("american", {"end": "rounds", "rounds": 1})
CONFIG = MatchConfig(per_decision=2.0, bank=2.0, startup=1.0, grace=0.3)


class Client:
    """A bot over a raw socket: first legal choices, with hooks to misbehave."""

    def __init__(
        self, token: str | None, *, hang_up_after: int | None = None, silent: bool = False, think: float = 0.0
    ) -> None:
        self.token = token
        self.hang_up_after = hang_up_after
        self.silent = silent
        self.think = think
        self.received: list[dict[str, Any]] = []

    async def run(self, address: tuple[str, int]) -> None:
        stream = await trio.open_tcp_stream(*address)
        lines = Lines(stream)
        plays = 0
        try:
            while (line := await lines.next()) is not None:
                message = json.loads(line)
                self.received.append(message)
                kind = message["type"]
                if self.silent or kind == "goodbye" or (kind == "error" and message["fatal"]):
                    if not self.silent:
                        return
                    continue
                if kind == "play_request":
                    plays += 1
                    if self.hang_up_after is not None and plays > self.hang_up_after:
                        return
                    await trio.sleep(self.think)
                reply = answer(message, "raw")
                if reply is not None:
                    reply = {**reply, "token": self.token} if kind == "hello" else reply
                    await stream.send_all(json.dumps(reply).encode() + b"\n")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return
        finally:
            await stream.aclose()

    def errors(self) -> list[str]:
        return [m["code"] for m in self.received if m["type"] == "error"]


async def match_with(
    clients: list[tuple[Client | list[Client], float]],
    *,
    tcp_seats: int = 1,
    config: MatchConfig = CONFIG,
    connect_timeout: float = 5.0,
    token: str = "secret-token",
) -> MatchOutcome:
    """Seat 0 (and more with ``tcp_seats``) is TCP with a known token; ``clients`` connect
    after the given delays; the other seats are local first-legal bots."""
    seats = [f"tcp:s{i}:{token}{i}" for i in range(tcp_seats)] + [GOOD] * (4 - tcp_seats)
    options = TableOptions(config=config, cwd=ROOT, connect_timeout=connect_timeout)
    async with listening_match(seats, SHORT, seed=4, options=options) as match:

        async def later(client: Client | list[Client], delay: float) -> None:
            await trio.sleep(delay)
            for one in client if isinstance(client, list) else [client]:  # one after the other
                await one.run(match.address)
                await trio.sleep(0.2)

        for client, delay in clients:
            match.nursery.start_soon(later, client, delay)
    return match.outcome


@pytest.mark.process
async def test_a_tcp_bot_plays_a_whole_match() -> None:
    bot = Client("secret-token0")
    outcome = await match_with([(bot, 0)])
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    assert outcome.seats[0].name == "raw"
    kinds = [m["type"] for m in bot.received]
    assert kinds[0] == "hello" and "match_end" in kinds and kinds[-1] == "goodbye"


@pytest.mark.process
async def test_wrong_token_is_refused_and_the_seat_still_plays() -> None:
    stranger = Client("not-the-token")
    bot = Client("secret-token0")
    outcome = await match_with([(stranger, 0), (bot, 0.2)])
    assert stranger.errors() == ["bad_token"]
    assert outcome.seats[0].status == "ok"


@pytest.mark.process
async def test_a_second_connection_for_a_taken_seat_is_refused() -> None:
    bot = Client("secret-token0", think=0.05)
    twin = Client("secret-token0")
    outcome = await match_with([(bot, 0), (twin, 0.3)])
    assert twin.errors() == ["seat_taken"]
    assert outcome.seats[0].status == "ok"


@pytest.mark.process
async def test_a_silent_client_times_out_without_disturbing_the_seat() -> None:
    mute = Client("secret-token0", silent=True)
    bot = Client("secret-token0", think=0.15)  # the match outlasts the mute's start-up limit
    outcome = await match_with([(mute, 0), (bot, 0.1)])
    assert mute.errors() == ["timeout"]
    assert outcome.seats[0].status == "ok"


@pytest.mark.process
async def test_a_seat_nobody_connects_to_is_played_by_the_fallback() -> None:
    outcome = await match_with([], connect_timeout=0.5)
    assert outcome.seats[0].status == "timeout"
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
    assert outcome.reason == "rounds_played"


@pytest.mark.process
async def test_disconnect_without_reconnection_drops_the_seat() -> None:
    quitter = Client("secret-token0", hang_up_after=3)
    comeback = Client("secret-token0")
    slow = Client("secret-token1", think=0.05)  # keeps the match going while the others try
    outcome = await match_with([([quitter, comeback], 0), (slow, 0)], tcp_seats=2)
    assert outcome.seats[0].status == "disconnect"
    assert comeback.errors() == ["seat_taken"]


@pytest.mark.process
async def test_reconnection_lets_the_bot_take_its_seat_again() -> None:
    quitter = Client("secret-token0", hang_up_after=3)
    comeback = Client("secret-token0")
    config = MatchConfig(per_decision=2.0, bank=2.0, startup=1.0, grace=0.3, reconnect=True)
    outcome = await match_with([([quitter, comeback], 0)], config=config)
    assert outcome.seats[0].status == "ok"
    kinds = [m["type"] for m in comeback.received]
    assert kinds[:3] == ["hello", "match_start", "round_start"]
    assert "play_request" in kinds and "match_end" in kinds
    again = next(m for m in comeback.received if m["type"] == "round_start")
    first = next(m for m in quitter.received if m["type"] == "round_start")
    assert set(again["hand"]) < set(first["hand"]) | set(
        next(m for m in quitter.received if m["type"] == "passed")["received"]
    )


async def test_a_new_connection_takes_the_slot_of_the_oldest_silent_one() -> None:
    server = TcpSeatServer([TcpSeat(seat=0, name="a")], startup=2.0, max_pending=2, squat_after=0.0)
    async with trio.open_nursery() as nursery:
        address = await nursery.start(server.serve, "127.0.0.1", 0)
        streams = [await trio.open_tcp_stream(*address) for _ in range(2)]
        for stream in streams:  # greeted, and silent since (squatters at once: squat_after is 0)
            assert b'"hello"' in await stream.receive_some(65536)
        extra = await trio.open_tcp_stream(*address)  # every slot holds a silent connection: the oldest gives way
        assert json.loads((await extra.receive_some(65536)).split(b"\n")[0])["type"] == "hello"
        dropped = b""
        while data := await streams[0].receive_some(65536):
            dropped += data
        assert [json.loads(line).get("code") for line in dropped.splitlines()] == ["busy"]
        for stream in [*streams, extra]:
            await stream.aclose()
        nursery.cancel_scope.cancel()
    assert [r.reason for r in server.refusals][:1] == ["busy"]
    assert server.refusals[0].message.startswith("dropped:")


def test_server_listens_on_loopback_by_default() -> None:
    async def main() -> tuple[str, int]:
        server = TcpSeatServer([TcpSeat(seat=0, name="a")], startup=1.0)
        async with trio.open_nursery() as nursery:
            address: tuple[str, int] = await nursery.start(server.serve, "127.0.0.1", 0)
            nursery.cancel_scope.cancel()
        return address

    assert trio.run(main)[0] == "127.0.0.1"


@pytest.mark.process
@pytest.mark.parametrize("kit", ["python", "javascript"])
def test_the_kits_connect_with_one_option(kit: str, tmp_path: Path) -> None:
    if kit == "javascript" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    started: list[subprocess.Popen[bytes]] = []

    def on_listening(address: tuple[str, int], seats: list[TcpSeat]) -> None:
        host, port = address
        program = (
            [sys.executable, "sample_bots/python/random_bot.py", "--seed", "1"]
            if kit == "python"
            else ["node", "sample_bots/javascript/bot.js"]
        )
        command = [*program, "--tcp", f"{host}:{port}", "--token", seats[0].token]
        started.append(subprocess.Popen(command, cwd=ROOT))

    log = tmp_path / "m.jsonl"
    outcome = trio.run(
        lambda: play_match(
            ["tcp:kit", GOOD, GOOD, GOOD],
            SHORT,
            seed=2,
            log_path=log,
            options=TableOptions(config=CONFIG, cwd=ROOT, on_listening=on_listening, connect_timeout=20.0),
        )
    )
    assert started[0].wait(timeout=10) == 0
    assert outcome.seats[0].status == "ok"
    header = json.loads(log.read_text().splitlines()[0])
    assert header["seats"][0]["command"].startswith("tcp:kit")
