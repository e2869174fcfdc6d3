"""The JavaScript and C sample bots, run as real subprocesses and fed referee lines.

Each bot is started with the command in ``sample_bots/bots.toml`` (after its ``build``), from
the repository root, on pipes (``tests.bot_process``). The referee's side is built from the
protocol Structs and encoded with ``protocol.codec.encode``; every reply is decoded with
``protocol.codec.decode_bot``, so a reply that is not a valid bot message fails the test. Reads
time out, so a broken bot fails instead of hanging the suite. The C tests skip without a C
compiler and make, the JavaScript tests without node.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from protocol import codec
from protocol.messages import (
    CardPlayed,
    Declare,
    Declared,
    Error,
    Goodbye,
    MatchEnd,
    Moon,
    PassResult,
    RoundEnd,
    SeatOutcome,
    TrickEnd,
)
from referee.rules import ruleset
from tests.bot_process import BotProcess, Start
from tests.protocol.table_driver import check_pass, check_play
from tests.sample_bots.bot_matches import BOTS, sample_bot_command
from tests.sample_bots.kit_driver import (
    BIG_ID,
    ENGINE_PRESETS,
    HAND,
    assert_states,
    declare_request,
    drive_match,
    handshake,
    match_start,
    moon_request,
    pass_request,
    passed_from_hand,
    play_request,
    probe_state,
    round_start,
    states_written,
    to_dict,
)
from tests.sample_bots.tcp_referee import Listener, serve_one_decision, tcp_bots
from tests.sample_bots.vectors_feed import assert_vector_states, feed_probe

ROOT = Path(__file__).resolve().parents[2]
BOTS_TOML = ROOT / "sample_bots" / "bots.toml"
KIT = ROOT / "sample_bots" / "javascript" / "hearts.js"
TIMEOUT = 10.0
"""Seconds to wait for a connection or an exit: a hang guard."""


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def javascript_command() -> list[str]:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    return shlex.split(sample_bot_command(BOTS["javascript"]))


@pytest.fixture(scope="session")
def c_command() -> list[str]:
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler (gcc or cc) is installed")
    return shlex.split(sample_bot_command(BOTS["c"]))  # built with make, in its folder


@pytest.fixture(params=["javascript", "c"])
def bot_command(request: pytest.FixtureRequest) -> list[str]:
    command: list[str] = request.getfixturevalue(f"{request.param}_command")
    return command


@pytest.fixture
def bot(start: Start, bot_command: list[str]) -> BotProcess:
    return start(bot_command)


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

    ask_pass = pass_request(BIG_ID)
    given = check_pass(bot.ask(ask_pass), ask_pass)
    assert len(set(given)) == 3
    hand = [c for c in HAND if c not in given] + ["3C", "4C", "6D"]
    bot.send(PassResult(given=given, to_seat=2, received=["3C", "4C", "6D"], from_seat=0, hand=hand))

    ask_declare = declare_request(BIG_ID + 1)
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

    ask_moon = moon_request(BIG_ID + 4)
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
    request = moon_request(3, ["subtract_from_shooter"])
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

    ask_pass = pass_request(12, ["AS", "KH", "2C", "TD"], count=2, to_seat=3)
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
def test_js_bot_passes_its_highest_cards(start: Start, javascript_command: list[str]) -> None:
    bot = start(javascript_command)
    assert passed_from_hand(bot) == ["AH", "AS", "KC"]


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
    start: Start,
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
def test_js_kit_keeps_the_table_state(start: Start, javascript_command: list[str], tmp_path: Path, preset: str) -> None:
    probe = tmp_path / "probe.js"
    probe.write_text(PROBE % {"kit": json.dumps(str(KIT))})
    bot = start([javascript_command[0], str(probe)])
    handshake(bot)
    expected: list[dict[str, Any]] = []

    rules = ruleset(preset)
    drive_match(
        bot, rules, seat=2, seed=7, max_rounds=3, on_play_request=lambda v, s: expected.append(probe_state(v, s))
    )
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    assert_states(states_written(bot.stderr, sort=("hand",)), expected)


@pytest.mark.process
def test_js_kit_over_tcp(tmp_path: Path, javascript_command: list[str]) -> None:
    with (
        Listener(TIMEOUT) as referee,
        tcp_bots(javascript_command, ROOT, tmp_path, TIMEOUT) as launch,
    ):
        bot = launch("--tcp", referee.address, "--token", "s3cret")
        with referee.accept() as connection:
            serve_one_decision(connection, "s3cret")
            assert bot.wait() == 0
    assert bot.stdout == b"", "the protocol goes over the socket, not stdout"


# ---------------------------------------------------------------------------------------------
# The C build and the bot list
# ---------------------------------------------------------------------------------------------
@pytest.mark.compiler
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


def test_js_kit_keeps_the_state_the_vectors_give(start: Start, javascript_command: list[str], tmp_path: Path) -> None:
    """docs/vectors (docs/vectors.md): the last seat of every preset's vectors, fed to the probe
    a match after another on one connection; at each play its state (hand, points taken, scores,
    the trick, hearts broken and the trick's number as the events left them) is the vector's."""
    probe = tmp_path / "probe.js"
    probe.write_text(PROBE % {"kit": json.dumps(str(KIT))})
    bot = start([javascript_command[0], str(probe)])
    handshake(bot)
    expected = feed_probe(bot)
    assert_vector_states(states_written(bot.stderr), expected)
