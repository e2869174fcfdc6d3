"""The JavaScript and C sample bots, run as real subprocesses and fed referee lines.

Each bot is started with the command in ``sample_bots/bots.toml`` (after its ``build``), from
the repository root. The referee's side is built from the protocol Structs and encoded with
``protocol.codec.encode``; every reply is decoded with ``protocol.codec.decode_bot``, so a reply
that is not a valid bot message fails the test. Reads time out, so a broken bot fails instead
of hanging the suite. The C tests skip without a C compiler and make, the JavaScript tests
without node.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import queue
import random
import shlex
import shutil
import socket
import subprocess
import threading
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import msgspec
import pytest

from protocol import codec
from protocol.cards import card_code, parse_card
from protocol.messages import (
    VERSIONS,
    BotHello,
    BotMessage,
    CardPlayed,
    Declare,
    Declared,
    DeclareRequest,
    Error,
    Goodbye,
    Hello,
    MatchEnd,
    MatchStart,
    Moon,
    MoonRequest,
    Pass,
    PassRequest,
    PassResult,
    Play,
    PlayRequest,
    RoundEnd,
    RoundStart,
    SeatOutcome,
    TimeControl,
    TimeLeft,
    TrickEnd,
)
from protocol.ruleset import RuleSet
from referee.rules import Match, SeatView, ruleset, seat_view, telling

ROOT = Path(__file__).resolve().parents[2]
BOTS_TOML = ROOT / "sample_bots" / "bots.toml"
KIT = ROOT / "sample_bots" / "javascript" / "hearts.js"
TIMEOUT = 10.0
"""Seconds to wait for any one reply or exit."""
QUIET = 0.3
"""Seconds of silence that count as 'no reply'."""

TIME = TimeControl(per_decision_ms=1000, bank_ms=10_000, startup_ms=5000)
LEFT = TimeLeft(decision_ms=1000, bank_ms=10_000)
BIG_ID = 9_000_000_001
"""Larger than 32 bits: the bots must echo ids exactly."""


def american() -> RuleSet:
    return msgspec.convert(msgspec.to_builtins(ruleset("american")), RuleSet)


def bot_entries() -> dict[str, dict[str, Any]]:
    with BOTS_TOML.open("rb") as file:
        data = tomllib.load(file)
    return {entry["name"]: entry for entry in data["bot"]}


# ---------------------------------------------------------------------------------------------
# A bot under test
# ---------------------------------------------------------------------------------------------
class BotProcess:
    """A bot subprocess: write referee lines to its stdin, read its reply lines with a timeout."""

    def __init__(self, command: list[str], stderr_path: Path) -> None:
        self.command = command
        self.stderr_path = stderr_path
        self._stderr: IO[bytes] = stderr_path.open("wb")
        self.proc = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    @property
    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def _context(self) -> str:
        return f"bot {self.command} (exit code {self.proc.poll()}); stderr:\n{self.stderr[-3000:]}"

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_raw(codec.encode(message))

    def send_dict(self, data: dict[str, Any], **dumps: Any) -> None:
        line = json.dumps(data, **dumps).encode()
        assert b"\n" not in line
        self.send_raw(line + b"\n")

    def receive(self, timeout: float = TIMEOUT) -> BotMessage:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no reply within {timeout} s from {self._context()}")
        if line is None:
            pytest.fail(f"the bot closed its output; {self._context()}")
        assert line.endswith(b"\n"), line
        try:
            return codec.decode_bot(line[:-1])
        except codec.ProtocolError as err:
            pytest.fail(f"invalid reply {line!r}: {err.code}: {err.message}")

    def ask(self, request: Any) -> BotMessage:
        self.send(request)
        return self.receive()

    def expect_silence(self, seconds: float = QUIET) -> None:
        try:
            line = self._lines.get(timeout=seconds)
        except queue.Empty:
            return
        pytest.fail(f"unexpected output {line!r} from {self._context()}")

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the bot did not exit within {timeout} s; {self._context()}")
        self._reader.join(timeout=timeout)
        return code

    def expect_end_of_output(self) -> None:
        """After exit: nothing more was written."""
        try:
            line = self._lines.get(timeout=TIMEOUT)
        except queue.Empty:
            pytest.fail("stdout was not closed")
        assert line is None, f"unexpected output {line!r}"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()
        self._stderr.close()


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def javascript_command() -> list[str]:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    return shlex.split(bot_entries()["javascript"]["command"])


@pytest.fixture(scope="session")
def c_command() -> list[str]:
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler (gcc or cc) is installed")
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    entry = bot_entries()["c"]
    folder = ROOT / entry["folder"]  # its command and build run there
    build = subprocess.run(
        shlex.split(entry["build"]), cwd=folder, capture_output=True, text=True, timeout=120, check=False
    )
    assert build.returncode == 0, build.stdout + build.stderr
    return [str(folder / word) if word.startswith("./") else word for word in shlex.split(entry["command"])]


@pytest.fixture(params=["javascript", "c"])
def bot_command(request: pytest.FixtureRequest) -> list[str]:
    command: list[str] = request.getfixturevalue(f"{request.param}_command")
    return command


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[[list[str]], BotProcess]]:
    started: list[BotProcess] = []

    def start_bot(command: list[str]) -> BotProcess:
        bot = BotProcess(command, tmp_path / f"stderr-{len(started)}.txt")
        started.append(bot)
        return bot

    yield start_bot
    for bot in started:
        bot.close()


@pytest.fixture
def bot(start: Callable[[list[str]], BotProcess], bot_command: list[str]) -> BotProcess:
    return start(bot_command)


# ---------------------------------------------------------------------------------------------
# Scripted messages
# ---------------------------------------------------------------------------------------------
HAND = ["2C", "5C", "9C", "KC", "3D", "8D", "JD", "4S", "QS", "AS", "2H", "TH", "AH"]


def match_start(seat: int = 1, rules: RuleSet | None = None, match_id: str = "m-1") -> MatchStart:
    rules = rules or american()
    return telling.match_start(match_id, seat, [f"bot-{s}" for s in range(rules.players)], rules, TIME)


def round_start(hand: list[str] | None = None) -> RoundStart:
    return RoundStart(
        round=0,
        dealer=0,
        hand=list(hand or HAND),
        pass_direction="left",
        pass_count=3,
        pass_to=2,
        match_phase=1,
        scores=[0, 0, 0, 0],
    )


def play_request(request_id: int, legal: list[str], trick: list[str], trick_number: int = 1) -> PlayRequest:
    return PlayRequest(
        id=request_id,
        legal=legal,
        trick=trick,
        leader=(1 - len(trick)) % 4,
        trick_number=trick_number,
        hearts_broken=False,
        time=LEFT,
    )


def handshake(bot: BotProcess) -> BotHello:
    reply = bot.ask(Hello(referee="pytest"))
    assert isinstance(reply, BotHello), reply
    assert reply.version in VERSIONS
    assert isinstance(reply.name, str)
    assert reply.name.strip()
    assert reply.token is None
    return reply


def check_pass(reply: BotMessage, request: PassRequest) -> list[str]:
    assert isinstance(reply, Pass), reply
    assert reply.id == request.id
    assert len(reply.cards) == request.count
    assert not Counter(reply.cards) - Counter(request.legal), f"{reply.cards} not from {request.legal}"
    return reply.cards


def check_play(reply: BotMessage, request: PlayRequest) -> str:
    assert isinstance(reply, Play), reply
    assert reply.id == request.id
    assert reply.card in request.legal
    return reply.card


def to_dict(message: Any) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(message)
    return data


# ---------------------------------------------------------------------------------------------
# Both bots
# ---------------------------------------------------------------------------------------------
def test_hello(bot: BotProcess) -> None:
    handshake(bot)
    bot.expect_silence()


def test_scripted_round(bot: BotProcess) -> None:
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    bot.expect_silence()

    ask_pass = PassRequest(id=BIG_ID, count=3, legal=list(HAND), to_seat=2, time=LEFT)
    given = check_pass(bot.ask(ask_pass), ask_pass)
    assert len(set(given)) == 3
    hand = [c for c in HAND if c not in given] + ["3C", "4C", "6D"]
    bot.send(PassResult(given=given, to_seat=2, received=["3C", "4C", "6D"], from_seat=0, hand=hand))

    ask_declare = DeclareRequest(id=BIG_ID + 1, declarations=[None] * 4, points=10, time=LEFT)
    reply = bot.ask(ask_declare)
    assert reply == Declare(id=BIG_ID + 1, declare=False)
    bot.send(Declared(seat=1, declared=False))

    lead = play_request(BIG_ID + 2, ["2C"], [], trick_number=0)
    assert check_play(bot.ask(lead), lead) == "2C"
    for seat, card in [(1, "2C"), (2, "7C"), (3, "QC"), (0, "6C")]:
        bot.send(CardPlayed(seat=seat, card=card, trick_number=0))
    bot.send(TrickEnd(trick_number=0, leader=1, cards=["2C", "7C", "QC", "6C"], winner=3, points=0))

    follow_suit = [c for c in hand if c.endswith("D")]
    for seat, card in [(3, "KD"), (0, "4D")]:
        bot.send(CardPlayed(seat=seat, card=card, trick_number=1))
    second = play_request(BIG_ID + 3, follow_suit, ["KD", "4D"], trick_number=1)
    second.leader = 3
    check_play(bot.ask(second), second)

    ask_moon = MoonRequest(id=BIG_ID + 4, options=["add_to_others", "subtract_from_shooter"], points=26, time=LEFT)
    reply = bot.ask(ask_moon)
    assert reply == Moon(id=BIG_ID + 4, choice="add_to_others")

    bot.send(
        RoundEnd(
            round=0,
            points_taken=[0, 26, 0, 0],
            score_changes=[26, 0, 26, 26],
            scores=[26, 0, 26, 26],
            moon=1,
            moon_scoring="add_to_others",
            declared=[False] * 4,
            declaration_success=[None] * 4,
            revoke=None,
            match_phase=1,
            next_match_phase=1,
        )
    )
    seats = [SeatOutcome(seat=s, name=f"bot-{s}", status="ok") for s in range(4)]
    bot.send(MatchEnd(match_id="m-1", scores=[26, 0, 26, 26], winners=[1], reason="round_limit", rounds=1, seats=seats))
    bot.expect_silence()

    # One connection, several matches: a second match_start after match_end.
    bot.send(match_start(seat=2, match_id="m-2"))
    bot.send(round_start())
    again = play_request(7, ["3D", "8D"], ["TD"])
    check_play(bot.ask(again), again)

    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    bot.expect_end_of_output()


def test_moon_choice_from_the_options_offered(bot: BotProcess) -> None:
    handshake(bot)
    bot.send(match_start())
    request = MoonRequest(id=3, options=["subtract_from_shooter"], points=26, time=LEFT)
    assert bot.ask(request) == Moon(id=3, choice="subtract_from_shooter")


def test_unknown_types_and_fields_are_ignored(bot: BotProcess) -> None:
    handshake(bot)
    start = to_dict(match_start())
    start["future_option"] = {"type": "goodbye", "nested": [[{"id": 1}], "]}"], "x": None}
    start["rules"]["some_new_rule"] = [1, 2.5e3, True, False, None]
    bot.send_dict(start)
    # Unknown message types, even ones that look like requests, get no answer.
    bot.send_dict({"type": "shiny_new_event", "id": 5, "count": 1, "legal": ["2C"], "fatal": True})
    bot.send_dict({"type": "play_request_v2", "id": 6, "legal": ["2C"]})
    bot.send_dict({"type": "goodbye_soon"})
    bot.expect_silence()

    # Known types with unknown fields, other field order and odd whitespace.
    request = play_request(11, ["3D", "8D", "JD"], ["TD"])
    data = to_dict(request)
    data["comment"] = '"type":"goodbye", "legal":["XX"], "id":99 \\" }'
    data["hint"] = {"type": "goodbye", "legal": ["XX"], "id": 99, "count": 7, "fatal": True}
    data["numbers"] = [-1, 0.5, 1e-9, {"legal": [["XX"]]}]
    reordered = dict(reversed(list(data.items())))  # "type" comes last
    bot.send_raw(b" \t" + json.dumps(reordered, separators=(" ,\t", " : ")).encode() + b" \r\n")
    check_play(bot.receive(), request)

    ask_pass = PassRequest(id=12, count=2, legal=["AS", "KH", "2C", "TD"], to_seat=3, time=LEFT)
    data = to_dict(ask_pass)
    data = {"legal": data.pop("legal"), "x": {"count": 4}, "count": data.pop("count"), **data}
    bot.send_dict(data, indent=None, separators=(",", ":"))
    check_pass(bot.receive(), ask_pass)

    bot.send(Goodbye())
    assert bot.wait_exit() == 0


def test_a_60_kb_line(bot: BotProcess) -> None:
    handshake(bot)
    # The long field comes first, full of characters a scanner must not trip on.
    padding = ('"}]{[,:\\ "type": "goodbye" ' + "x" * 70) * 600
    start = {"padding": padding, **to_dict(match_start())}
    line = json.dumps(start).encode()
    assert 60_000 < len(line) <= codec.MAX_LINE
    bot.send_raw(line + b"\n")

    request = play_request(21, ["4S", "QS"], ["9S"])
    data = {"padding": padding[:60_000], **to_dict(request)}
    line = json.dumps(data).encode()
    assert 60_000 < len(line) <= codec.MAX_LINE
    bot.send_raw(line + b"\n")
    check_play(bot.receive(), request)

    unknown = json.dumps({"type": "very_long_news", "padding": padding[:64_000]}).encode()
    assert len(unknown) <= codec.MAX_LINE
    bot.send_raw(unknown + b"\n")
    bot.expect_silence()
    request = play_request(22, ["AD"], [])
    check_play(bot.ask(request), request)


def test_non_fatal_error_is_not_the_end(bot: BotProcess) -> None:
    handshake(bot)
    bot.send(match_start())
    bot.send(Error(code="timeout", message="too slow; a fallback card was played", fatal=False, request_id=3))
    bot.expect_silence()
    assert bot.proc.poll() is None
    request = play_request(4, ["5C"], [])
    check_play(bot.ask(request), request)


def test_fatal_error_makes_it_exit(bot: BotProcess) -> None:
    handshake(bot)
    bot.send(match_start())
    bot.send(Error(code="illegal_move", message="you are dropped", fatal=True, request_id=1, rule="must_follow_suit"))
    bot.wait_exit()
    bot.expect_end_of_output()


def test_goodbye_exits_zero(bot: BotProcess) -> None:
    handshake(bot)
    bot.send(Goodbye(reason="done"))
    assert bot.wait_exit() == 0
    bot.expect_end_of_output()


def test_end_of_input_exits_zero(bot: BotProcess) -> None:
    handshake(bot)
    assert bot.proc.stdin is not None
    bot.proc.stdin.close()
    assert bot.wait_exit() == 0


# ---------------------------------------------------------------------------------------------
# Whole matches against the rules engine
# ---------------------------------------------------------------------------------------------
def codes(cards: list[int]) -> list[str]:
    return [card_code(c) for c in cards]


def drive_match(
    bot: BotProcess,
    rules: RuleSet,
    *,
    seat: int,
    seed: int,
    max_rounds: int,
    match_id: str = "engine",
    on_play_request: Callable[[SeatView, list[int]], None] | None = None,
) -> int:
    """Play a match in which ``bot`` holds ``seat`` and the engine plays the other seats at
    random; every reply must be accepted by the engine. The bot is told what the referee
    would tell it (``referee.rules.telling``); a match cut short by ``max_rounds`` ends as
    ``interrupted``. Returns the bot's decision count."""
    rng = random.Random(seed)
    ids = itertools.count(1000)
    n = rules.players
    match = Match(rules, seed=seed)
    bot.send(match_start(seat=seat, rules=rules, match_id=match_id))
    decisions = rounds = 0
    while not match.over and rounds < max_rounds:
        round_ = match.next_round()
        bot.send(telling.round_start(round_, seat, rounds, match.scores))
        if round_.phase == "pass":
            for s in range(n):
                if s != seat:
                    round_.pass_cards(s, rng.sample(round_.hand(s), rules.pass_count))
                    continue
                request = telling.pass_request(round_, seat, next(ids), LEFT)
                given = check_pass(bot.ask(request), request)
                round_.pass_cards(seat, [parse_card(c) for c in given])
                decisions += 1
            bot.send(telling.passed(round_, seat))
        while round_.phase == "declare":
            s = round_.turn
            if s == seat:
                request = telling.declare_request(round_, next(ids), LEFT)
                reply = bot.ask(request)
                assert isinstance(reply, Declare)
                assert reply.id == request.id
                declared = reply.declare
                decisions += 1
            else:
                declared = rng.random() < 0.2
            round_.declare(s, declared)
            bot.send(telling.declared(s, declared))
        while round_.phase in ("play", "moon"):
            s = round_.turn
            if round_.phase == "moon":
                if s == seat:
                    request = telling.moon_request(round_, next(ids), LEFT)
                    reply = bot.ask(request)
                    assert isinstance(reply, Moon)
                    assert reply.id == request.id
                    assert reply.choice in request.options
                    round_.choose_moon(s, reply.choice)
                    decisions += 1
                else:
                    round_.choose_moon(s, rng.choice(telling.MOON_OPTIONS))
                continue
            number = round_.trick_number
            if s == seat:
                if on_play_request is not None:
                    on_play_request(seat_view(round_, seat), list(match.scores))
                request = telling.play_request(round_, next(ids), LEFT)
                card = parse_card(check_play(bot.ask(request), request))
                decisions += 1
            else:
                card = rng.choice(round_.legal_plays())
            round_.play(s, card)
            bot.send(telling.card_played(s, card, number))
            end = telling.trick_end(round_, number)
            if end is not None:
                bot.send(end)
        result = match.record(round_)
        bot.send(telling.round_end(rounds, result, match.scores, match.phase))
        rounds += 1
    seats = [SeatOutcome(seat=s, name=f"bot-{s}", status="ok") for s in range(n)]
    bot.send(telling.match_end(match, match_id, seats))
    return decisions


ENGINE_PRESETS = ["american", "american-3", "double-deck", "achterhoeks", "dutch"]


@pytest.mark.parametrize("preset", ENGINE_PRESETS)
def test_plays_legal_matches_against_the_engine(bot: BotProcess, preset: str) -> None:
    handshake(bot)
    rules = ruleset(preset)
    decisions = 0
    for match_number, seat in enumerate((1, rules.players - 1)):
        decisions += drive_match(
            bot, rules, seat=seat, seed=100 + match_number, max_rounds=4, match_id=f"{preset}-{match_number}"
        )
    assert decisions > 0
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    bot.expect_end_of_output()


# ---------------------------------------------------------------------------------------------
# The JavaScript kit and bot
# ---------------------------------------------------------------------------------------------
def test_js_bot_passes_its_highest_cards(
    start: Callable[[list[str]], BotProcess], javascript_command: list[str]
) -> None:
    bot = start(javascript_command)
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    request = PassRequest(id=1, count=3, legal=list(HAND), to_seat=2, time=LEFT)
    assert sorted(check_pass(bot.ask(request), request)) == sorted(["AS", "AH", "KC"])


@pytest.mark.parametrize(
    ("trick", "legal", "expected"),
    [
        (["9D"], ["TD", "KD", "2D"], "2D"),  # the lowest card that ducks
        (["9D"], ["TD", "KD"], "TD"),  # cannot duck: the lowest
        (["9D", "QD"], ["TD", "KD", "AD"], "TD"),  # ducks under the queen
        (["9D", "QD"], ["KD", "AD"], "KD"),
        ([], ["5C", "3H", "9S"], "3H"),  # leading: every card wins so far, so the lowest
        (["9D"], ["QS", "AH", "4C"], "4C"),  # void: nothing wins, so the lowest
    ],
)
def test_js_bot_plays_the_lowest_card_that_does_not_win(
    start: Callable[[list[str]], BotProcess],
    javascript_command: list[str],
    trick: list[str],
    legal: list[str],
    expected: str,
) -> None:
    bot = start(javascript_command)
    handshake(bot)
    bot.send(match_start())
    request = play_request(1, legal, trick)
    assert check_play(bot.ask(request), request) == expected


PROBE = """
const hearts = require(%(kit)s);
let events = null;  // the state as the events left it, before the request synced it
hearts.run({
  name: 'state-probe',
  onMessage(state, msg) {
    if (msg.type !== 'play_request') {
      events = { trick: state.trick.slice(), heartsBroken: state.heartsBroken, trickNumber: state.trickNumber };
    }
  },
  choosePass(state, request) { return request.legal.slice(-request.count); },
  choosePlay(state, request) {
    const seen = { hand: state.hand, pointsTaken: state.pointsTaken, scores: state.scores, seat: state.seat, events };
    process.stderr.write('STATE ' + JSON.stringify(seen) + '\\n');
    return request.legal[request.legal.length - 1];
  },
});
"""


@pytest.mark.parametrize("preset", ["american", "double-deck"])
def test_js_kit_keeps_the_table_state(
    start: Callable[[list[str]], BotProcess], javascript_command: list[str], tmp_path: Path, preset: str
) -> None:
    probe = tmp_path / "probe.js"
    probe.write_text(PROBE % {"kit": json.dumps(str(KIT))})
    bot = start([javascript_command[0], str(probe)])
    handshake(bot)
    expected: list[dict[str, Any]] = []

    def record(view: SeatView, scores: list[int]) -> None:
        expected.append(
            {
                "hand": sorted(view.hand),
                "pointsTaken": view.points_taken,
                "scores": scores,
                "seat": view.seat,
                "events": {"trick": view.trick, "heartsBroken": view.hearts_broken, "trickNumber": len(view.tricks)},
            }
        )

    rules = ruleset(preset)
    drive_match(bot, rules, seat=2, seed=7, max_rounds=3, on_play_request=record)
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    seen = [json.loads(line[6:]) for line in bot.stderr.splitlines() if line.startswith("STATE ")]
    for state in seen:
        state["hand"] = sorted(state["hand"])
    assert len(seen) == len(expected) > 0
    for number, (got, want) in enumerate(zip(seen, expected, strict=True)):
        assert got == want, f"decision {number}"


def test_js_kit_over_tcp(tmp_path: Path, javascript_command: list[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(TIMEOUT)
        port = server.getsockname()[1]
        with (tmp_path / "stderr.txt").open("wb") as stderr:
            proc = subprocess.Popen(
                [*javascript_command, "--tcp", f"127.0.0.1:{port}", "--token", "s3cret"],
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
            try:
                connection, _ = server.accept()
                with connection, connection.makefile("rb") as reader:
                    connection.settimeout(TIMEOUT)
                    connection.sendall(codec.encode(Hello()))
                    hello = codec.decode_bot(reader.readline().rstrip(b"\n"))
                    assert isinstance(hello, BotHello)
                    assert hello.token == "s3cret"
                    connection.sendall(codec.encode(match_start()))
                    request = play_request(5, ["2D", "AD"], ["9D"])
                    connection.sendall(codec.encode(request))
                    check_play(codec.decode_bot(reader.readline().rstrip(b"\n")), request)
                    connection.sendall(codec.encode(Goodbye()))
                    assert proc.wait(timeout=TIMEOUT) == 0
                assert proc.stdout is not None
                assert proc.stdout.read() == b"", "the protocol goes over the socket, not stdout"
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.wait(timeout=TIMEOUT)
                if proc.stdout is not None:
                    proc.stdout.close()


# ---------------------------------------------------------------------------------------------
# The C build and the bot list
# ---------------------------------------------------------------------------------------------
def test_c_bot_compiles_without_warnings(tmp_path: Path) -> None:
    compiler = shutil.which("gcc")
    if compiler is None:
        pytest.skip("gcc is not installed")
    source = ROOT / "sample_bots" / "c" / "bot.c"
    flags = ["-O2", "-Wall", "-Wextra", "-std=c99", "-pedantic", "-Werror"]
    result = subprocess.run(
        [compiler, *flags, "-o", str(tmp_path / "bot"), str(source)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    makefile = (ROOT / "sample_bots" / "c" / "Makefile").read_text()
    assert "-O2 -Wall -Wextra -std=c99" in makefile


def test_bots_toml_lists_every_sample_bot() -> None:
    with BOTS_TOML.open("rb") as file:
        data = tomllib.load(file)
    entries = data["bot"]
    names = [entry["name"] for entry in entries]
    assert len(names) == len(set(names))
    for entry in entries:
        assert set(entry) <= {"name", "command", "build", "folder"}, entry
        assert all(isinstance(value, str) and value for value in entry.values()), entry
        shlex.split(entry["command"])
    by_name = {entry["name"]: entry for entry in entries}
    assert by_name["random"]["command"] == "python3 sample_bots/python/random_bot.py"
    assert by_name["heuristic"]["command"] == "python3 sample_bots/python/heuristic_bot.py"
    assert by_name["javascript"]["command"] == "node sample_bots/javascript/bot.js"
    assert by_name["c"]["folder"] == "sample_bots/c"
    assert by_name["c"]["command"] == "./bot"
    assert by_name["c"]["build"] == "make"
    for name in ("javascript", "c"):
        program = shlex.split(by_name[name]["command"])[-1]
        folder = ROOT / by_name[name].get("folder", ".")
        assert (folder / program).with_suffix(".c" if name == "c" else ".js").exists()
