"""The Rust kit (``sample_bots/rust/src/hearts.rs``) and its sample bot (``src/main.rs``), built
with cargo and run as real processes.

The folder is copied under the session's temporary directory and built there once
(``cargo build --release --offline``, with ``CARGO_TARGET_DIR`` inside the copy), so no build
product is ever left in the repository and the bot runs as a new author's would: from its own
folder, as ``./target/release/hearts-bot``. Two extra programs on the kit, written into the copy
only, test what the sample bot cannot show: a probe that prints its table state (compared with
the rules engine's view) and a buggy bot whose panics and illegal answers the kit must replace.

Everything skips without cargo (the sandboxed check without bubblewrap too). Every wait has a
generous timeout, a guard against a hang only: nothing here judges speed, and the check runs on
a clock no bot misses on a loaded machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import Goodbye, Hello
from protocol.ruleset import RuleSet
from referee.check.results import CheckReport
from referee.match.config import MatchConfig
from referee.match.play import TableOptions
from referee.players.tcp import TcpSeat
from referee.rules import SeatView, ruleset
from tests.bot_process import Start
from tests.check.helpers import failures, needs_bwrap, sandbox
from tests.protocol.table_driver import check_play
from tests.sample_bots.bot_matches import check_kit, entries, play, python_bot
from tests.sample_bots.kit_driver import (
    BIG_ID,
    ENGINE_PRESETS,
    assert_states,
    cards_unseen,
    drive_match,
    handshake,
    match_start,
    passed_from_hand,
    play_request,
    states_written,
    voids_shown,
    winning_seat,
)
from tests.sample_bots.tcp_referee import LaunchTcp, Listener, TcpBot, serve_one_decision, tcp_bots
from tests.sample_bots.vectors_feed import assert_vector_states, feed_probe, sorted_passed, sorted_received
from tests.shared import verified
from tests.tiers import starts

pytestmark = pytest.mark.xdist_group("kit-rust")
"""One worker runs the file's tests, so the kit is built once a run (pyproject.toml: --dist loadgroup)."""
ROOT = Path(__file__).resolve().parents[2]
KIT_FOLDER = ROOT / "sample_bots" / "rust"
COMMAND = "./target/release/hearts-bot"
"""The documented command, run from the bot's folder."""
BUILD_TIMEOUT = 900.0
"""Seconds a cargo command may take: a cold release build on a loaded machine is slow."""
TIMEOUT = 30.0
"""Seconds to wait for a line, a connection or an exit: a guard against hangs only."""
CONFIG = MatchConfig(per_decision=5.0, bank=30.0, startup=20.0)
SHORT = ruleset("american", {"end": "rounds", "rounds": 1})

PROBE = r"""
// Prints the kit's table state on stderr at every play, for the test to compare with the engine.
#[path = "../src/hearts.rs"]
mod hearts;
use hearts::{Bot, Json, PassRequest, PlayRequest, State};

fn cards(list: &[String]) -> Json {
    let mut sorted = list.to_vec();
    sorted.sort();
    sorted.into()
}

fn seat(seat: Option<usize>) -> Json {
    seat.map_or(Json::Null, |s| (s as i64).into())
}

#[derive(Default)]
struct Probe {
    events: Option<Json>, // the state as the events left it, before the request synced it
}

impl Bot for Probe {
    fn name(&self) -> &str {
        "state-probe"
    }
    fn on_message(&mut self, state: &State, message: &Json) {
        if message.kind() != Some("play_request") {
            self.events = Some(Json::object([
                ("trick", state.trick.clone().into()),
                ("hearts_broken", state.hearts_broken.into()),
                ("trick_number", (state.trick_number as i64).into()),
            ]));
        }
    }
    fn choose_pass(&mut self, _: &State, request: &PassRequest) -> Vec<String> {
        request.legal[request.legal.len() - request.count..].to_vec()
    }
    fn choose_play(&mut self, state: &State, request: &PlayRequest) -> String {
        println!("stray output: the kit must send it to stderr");
        let ints = |list: &[i64]| Json::Array(list.iter().map(|&n| n.into()).collect());
        let voids = state.voids.iter().map(|v| {
            let mut suits: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            suits.sort();
            Json::from(suits)
        });
        let seen = Json::object([
            ("seat", (state.seat as i64).into()),
            ("hand", cards(&state.hand)),
            ("scores", ints(&state.scores)),
            ("points_taken", ints(&state.points_taken)),
            ("passed", cards(&state.passed)),
            ("received", cards(&state.received)),
            ("declared", Json::Array(state.declarations.iter().map(|d| d.map_or(Json::Null, Json::from)).collect())),
            ("winners", Json::Array(state.tricks.iter().map(|t| seat(t.winner)).collect())),
            ("leader", seat(state.trick_leader)),
            ("winning", seat(state.trick_winner())),
            ("voids", Json::Array(voids.collect())),
            ("unseen", cards(&state.unseen())),
            ("events", self.events.clone().unwrap_or(Json::Null)),
        ]);
        eprintln!("STATE {seen}");
        request.legal[request.legal.len() - 1].clone()
    }
}

fn main() {
    hearts::run(Probe::default())
}
"""

BUGGY = r"""
// Panics and answers illegally on purpose: the kit must log it and answer legally instead.
#[path = "../src/hearts.rs"]
mod hearts;
use hearts::{Bot, DeclareRequest, Json, MoonRequest, PassRequest, PlayRequest, State};

struct Buggy {
    calls: u32,
}

impl Bot for Buggy {
    fn name(&self) -> &str {
        "buggy"
    }
    fn on_message(&mut self, _: &State, message: &Json) {
        if message.kind() == Some("trick_end") {
            panic!("a bug in on_message");
        }
    }
    fn choose_pass(&mut self, _: &State, request: &PassRequest) -> Vec<String> {
        self.calls += 1;
        match self.calls % 3 {
            0 => panic!("a bug in choose_pass"),
            1 => vec!["XX".to_string(); request.count],
            _ => request.legal.iter().take(request.count + 1).cloned().collect(),
        }
    }
    fn choose_play(&mut self, state: &State, request: &PlayRequest) -> String {
        self.calls += 1;
        match self.calls % 4 {
            0 => panic!("a bug in choose_play"),
            1 => "ZZ".to_string(),
            2 => state.played.first().cloned().unwrap_or_default(),
            _ => request.legal[request.legal.len() - 1].to_lowercase(),
        }
    }
    fn choose_declare(&mut self, _: &State, _: &DeclareRequest) -> bool {
        panic!("a bug in choose_declare")
    }
    fn choose_moon(&mut self, _: &State, _: &MoonRequest) -> String {
        "bogus".to_string()
    }
}

fn main() {
    hearts::run(Buggy { calls: 0 })
}
"""


# ---------------------------------------------------------------------------------------------
# The build
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RustBuild:
    """The copy of the kit's folder and what cargo said building it."""

    cargo: str
    folder: Path
    output: str
    env: dict[str, str]

    @property
    def bot(self) -> Path:
        return self.folder / COMMAND

    def example(self, name: str) -> Path:
        return self.folder / "target" / "release" / "examples" / name

    def cargo_run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.cargo, *args],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
            check=False,
        )


@pytest.fixture
def reply_timeout() -> float:
    return TIMEOUT


@pytest.fixture(scope="session")
@starts("compiler")
def rust_build(tmp_path_factory: pytest.TempPathFactory) -> RustBuild:
    """One release build per session (it is slow), in a copy of the folder: a ``target/`` left
    in the repository by someone's own build is not copied, and nothing is written back."""
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not installed")
    version = subprocess.run([cargo, "--version"], capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False)
    if version.returncode != 0:  # rustup's cargo without a toolchain
        pytest.skip(f"cargo does not run here: {version.stderr.strip()[:200]}")
    folder = tmp_path_factory.mktemp("rust-kit") / "rust"
    shutil.copytree(KIT_FOLDER, folder, ignore=shutil.ignore_patterns("target"))
    env = {**os.environ, "CARGO_TARGET_DIR": str(folder / "target"), "CARGO_TERM_COLOR": "never"}
    env.pop("RUSTFLAGS", None)  # the build the documentation gives, nothing added
    build = RustBuild(cargo=cargo, folder=folder, output="", env=env)
    result = build.cargo_run("build", "--release", "--offline")
    assert result.returncode == 0, result.stderr
    return RustBuild(cargo=cargo, folder=folder, output=result.stderr + result.stdout, env=env)


@pytest.fixture(scope="session")
def rust_examples(rust_build: RustBuild) -> RustBuild:
    """The probe and the buggy bot, built as cargo examples in the copy only."""
    examples = rust_build.folder / "examples"
    examples.mkdir(exist_ok=True)
    (examples / "probe.rs").write_text(PROBE)
    (examples / "buggy.rs").write_text(BUGGY)
    result = rust_build.cargo_run("build", "--release", "--offline", "--examples")
    assert result.returncode == 0, result.stderr
    return rust_build


def test_the_kit_builds_without_warnings(rust_build: RustBuild) -> None:
    """A new author copies the folder: its first build must be clean, and the command the
    documentation gives must exist."""
    lines = rust_build.output.splitlines()
    assert not [line for line in lines if line.lstrip().startswith(("warning", "error"))], rust_build.output
    assert any("Finished" in line for line in lines), rust_build.output
    assert rust_build.bot.is_file() and os.access(rust_build.bot, os.X_OK)
    assert "target/" in (KIT_FOLDER / ".gitignore").read_text().split(), "a build in the repository stays out of git"


def test_clippy_finds_nothing(rust_build: RustBuild) -> None:
    """Clippy's default lints, as errors, on the kit, the bot and the kit's own unit tests."""
    if rust_build.cargo_run("clippy", "--version").returncode != 0:
        pytest.skip("clippy is not installed")
    result = rust_build.cargo_run("clippy", "--release", "--offline", "--bins", "--tests", "--", "-D", "warnings")
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr


def test_the_kits_unit_tests_pass(rust_build: RustBuild) -> None:
    """``cargo test``: the JSON reader on exact inputs (escapes, surrogate pairs, big integers,
    depth, what is not JSON), bounded line reading, card helpers, decks and a scripted session."""
    result = rust_build.cargo_run("test", "--release", "--offline")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "test result: ok" in result.stdout, result.stdout


# ---------------------------------------------------------------------------------------------
# referee check
# ---------------------------------------------------------------------------------------------
def check_rust(build: RustBuild, variant: str, sandboxed: bool) -> CheckReport:
    """``referee check ./target/release/hearts-bot`` from the bot's folder, as an author runs it."""
    return check_kit(COMMAND, build.folder, variant=variant, sandbox=sandbox() if sandboxed else None)


@needs_bwrap
def test_check_passes_every_step_in_the_sandbox(rust_build: RustBuild) -> None:
    """The compiled bot needs nothing outside its folder and the system: it passes in the
    bubblewrap sandbox a referee runs it in."""
    report = check_rust(rust_build, "american", sandboxed=True)
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict != "pass"] == []
    assert report.exit_code == 0 and report.summary.ok
    assert report.sandboxed and report.sandbox.startswith("bubblewrap (")
    assert report.name == "rust-ducker"
    assert report.summary.decisions > 300


@pytest.mark.parametrize("variant", ["american", "dutch", "black-maria", "achterhoeks", "omnibus", "double-deck"])
def test_check_passes_without_the_sandbox(rust_build: RustBuild, variant: str) -> None:
    """Every step in several variants (the general steps use the variant's rules), not isolated."""
    report = check_rust(rust_build, variant, sandboxed=False)
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict == "skip"] == ["sandbox.works"]
    assert report.exit_code == 0 and report.variant == variant


# ---------------------------------------------------------------------------------------------
# Whole matches through the referee
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "seats", "rust_seat"),
    [
        ("american", [python_bot("random", 1), python_bot("heuristic"), python_bot("random", 2)], 0),
        ("dutch", [python_bot("heuristic"), python_bot("random", 3), python_bot("random", 4)], 2),
        ("black-maria", [python_bot("random", 5), python_bot("heuristic")], 1),
    ],
)
def test_whole_matches_against_the_python_bots(
    rust_build: RustBuild, tmp_path: Path, variant: str, seats: list[str], rust_seat: int
) -> None:
    """A whole match in each family of rules (passing and the queen; the 32-card two-phase
    game without passing; three players, hearts any time and more penalty cards): every seat
    ``ok``, no fault or fallback in the log, and the log verifies move by move."""
    commands = list(seats)
    commands.insert(rust_seat, COMMAND)
    rules = ruleset(variant)
    log = tmp_path / "match.jsonl"
    outcome = play(
        commands, rules, 11, TableOptions(config=CONFIG, cwd=ROOT, folders={rust_seat: rust_build.folder}), log
    )
    assert [s.status for s in outcome.seats] == ["ok"] * rules.players, outcome.seats
    assert outcome.seats[rust_seat].name == "rust-ducker"
    assert outcome.reason in ("target_reached", "reached_zero", "rounds_played")
    lines = entries(log)
    assert lines[0]["type"] == "header" and lines[0]["rules"]["name"] == variant
    assert not [e for e in lines if e["type"] in ("fault", "fallback")]
    assert verified(log) == "verified"


# ---------------------------------------------------------------------------------------------
# The kit's state and its safety net, against the rules engine
# ---------------------------------------------------------------------------------------------
def expected_state(view: SeatView, scores: list[int], rules: RuleSet) -> dict[str, Any]:
    """What the probe should print: the engine's view of the seat, in the probe's terms."""
    return {
        "seat": view.seat,
        "hand": sorted(view.hand),
        "scores": scores,
        "points_taken": view.points_taken,
        "passed": sorted(view.passed or []),
        "received": sorted(view.received or []),
        "declared": view.declared,
        "winners": [t.winner for t in view.tricks],
        "leader": view.trick_leader,
        "winning": winning_seat(view, rules),
        "voids": [sorted(v) for v in voids_shown(view)],
        "unseen": cards_unseen(view, rules),
        "events": {"trick": view.trick, "hearts_broken": view.hearts_broken, "trick_number": len(view.tricks)},
    }


@pytest.mark.parametrize("preset", ["american", "double-deck", "achterhoeks", "dutch", "black-maria", "omnibus"])
def test_the_kit_keeps_the_table_state(rust_examples: RustBuild, start: Start, preset: str) -> None:
    """At every play the probe's state (hand, scores, points, passes, declarations, tricks,
    voids, the cards unseen, the trick as the events left it) equals the engine's view; its
    stray ``println!`` reached stderr, not the protocol."""
    bot = start([str(rust_examples.example("probe"))])
    handshake(bot)
    expected: list[dict[str, Any]] = []
    rules = ruleset(preset)
    drive_match(
        bot,
        rules,
        seat=2,
        seed=7,
        max_rounds=3,
        on_play_request=lambda view, scores: expected.append(expected_state(view, scores, rules)),
    )
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    seen = states_written(bot.stderr)
    assert_states(seen, expected)
    assert bot.stderr.count("stray output: the kit must send it to stderr") == len(seen)


@pytest.mark.parametrize("preset", [*ENGINE_PRESETS, "american-moon-choice"])
def test_panics_and_illegal_answers_are_replaced(rust_examples: RustBuild, start: Start, preset: str) -> None:
    """A bot that panics or answers illegally in every method still answers every request
    legally and stays alive; the kit says on stderr what it replaced."""
    bot = start([str(rust_examples.example("buggy"))])
    handshake(bot)
    rules = ruleset(preset)
    assert drive_match(bot, rules, seat=1, seed=5, max_rounds=3) > 0
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    stderr = bot.stderr
    assert "choose_play panicked; answering with a legal default" in stderr
    assert "choose_play returned" in stderr
    assert "on_message panicked" in stderr
    if rules.pass_count:
        assert "choose_pass returned" in stderr


# ---------------------------------------------------------------------------------------------
# The sample bot's choices
# ---------------------------------------------------------------------------------------------
def test_the_sample_bot_passes_its_highest_cards(rust_build: RustBuild, start: Start) -> None:
    bot = start([str(rust_build.bot)])
    assert passed_from_hand(bot) == ["AH", "AS", "KC"]


@pytest.mark.parametrize(
    ("trick", "legal", "expected"),
    [
        (["9D"], ["TD", "KD", "2D"], "2D"),  # the only card that ducks
        (["9D"], ["2D", "5D", "KD"], "5D"),  # the highest card that ducks
        (["9D"], ["QS", "AH", "4C"], "QS"),  # void: the costliest card goes
        (["9D"], ["TD", "KD"], "TD"),  # cannot duck, others still to play: the lowest
        (["9D", "2D", "3D"], ["TD", "KD"], "KD"),  # cannot duck, last: the highest
        (["9S", "2S", "3S"], ["KS", "QS"], "KS"),  # last, but the queen would cost 13
        ([], ["5C", "3H", "9S"], "5C"),  # leading: the cheapest card
    ],
)
def test_the_sample_bot_ducks(
    rust_build: RustBuild, start: Start, trick: list[str], legal: list[str], expected: str
) -> None:
    bot = start([str(rust_build.bot)])
    handshake(bot)
    bot.send(match_start())
    request = play_request(BIG_ID + 1, legal, trick)
    assert check_play(bot.ask(request), request) == expected


# ---------------------------------------------------------------------------------------------
# Hostile lines
# ---------------------------------------------------------------------------------------------
DEEP = 10_000
"""Deep enough to exhaust a naive recursive reader, short enough to be read (under 64 KiB)."""
HOSTILE_LINES = [
    b"[" * 3 * DEEP + b"]" * 3 * DEEP,
    b'{"a":' * DEEP + b"1" + b"}" * DEEP,
    b'{"type":"card_played","seat":0,"card":"2C","x":' + b"[" * 3 * DEEP + b"]" * 3 * DEEP + b"}",
    b"[" * 6 * DEEP,  # never closed
    b"[" * 100 * DEEP,  # over the line limit as well
    b'{"type":"round_end","scores":[' + b"9" * 5000 + b"]}",
    b'{"type":"trick_end","trick_number":1e999,"winner":-1e999,"points":' + b"9" * 5000 + b"}",
    b'{"type":"card_played","seat":1000000000000,"card":"2C","trick_number":0}',
    b'{"type":"declared","seat":-1,"declared":true}',
    b'{"type":"news","s":"\\ud83d\\ude00 \\ud800 \\udc00x \\uDBFF\\uDFFF \\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0000"}',
    b'{"type":"news","s":"\\u12"}',
    b'{"type":"news","s":"\\x"}',
    b'{"type":"news","s":"raw\ttab"}',
    b'{"type":"news","s":"\xff\xfe"}',
    b"\xef\xbb\xbf" + b'{"type":"goodbye"}',  # a BOM: not JSON, so not a goodbye
    b'{"type":"goodbye"} trailing',
    b'{"type":"goodbye","reason":"' + b"x" * 200_000 + b'"}',  # over the line limit: skipped
    b'{"type":"error","code":"x","fatal":true',
    b'{"type":"play_request","id":"7","legal":["2C"]}',  # no integer id: nothing to echo
    b'{"type":"play_request","id":8,"legal":[]}',  # nothing legal to play
    b'{"type":"moon_request","id":1.5,"options":["add_to_others"]}',
    b"NaN",
    b"-",
    b"null",
    b'"play"',
    b"",
    b" \t ",
    b"\x00",
]
"""Lines no referee sends: none may crash the bot, make it exit or make it write a line."""


def test_hostile_lines_do_not_crash_the_bot(rust_build: RustBuild, start: Start) -> None:
    """Deep nesting, huge numbers, every escape, invalid UTF-8, a BOM, an over-long line and
    requests that cannot be answered are logged and ignored; the next request is answered with
    its id echoed exactly, even one beyond 64 bits."""
    bot = start([str(rust_build.bot)])
    handshake(bot)
    bot.send(match_start())
    for line in HOSTILE_LINES:
        bot.send_raw(line + b"\n")
    bot.send_raw(b"\r\n")
    for request_id in ("9223372036854775807", "18446744073709551617", "1" + "0" * 40):
        fields = '"legal":["3D","8D"],"trick":["TD"],"leader":0,"trick_number":1,"hearts_broken":false'
        time_left = '"time":{"decision_ms":1000,"bank_ms":10000}'
        bot.send_raw(f'{{"type":"play_request","id":{request_id},{fields},{time_left}}}\r\n'.encode())
        reply = bot.receive_json()  # the first line since the hello: nothing stray came before
        assert reply["type"] == "play" and reply["card"] in ("3D", "8D")
        assert str(reply["id"]) == request_id
    assert bot.proc.poll() is None
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    assert "nested too deep" in bot.stderr and "longer than 65536 bytes" in bot.stderr
    assert "panicked" not in bot.stderr


# ---------------------------------------------------------------------------------------------
# TCP
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def tcp_bot(rust_build: RustBuild, tmp_path: Path) -> Iterator[LaunchTcp]:
    """The sample bot started as a TCP client with arguments, from its folder."""
    with tcp_bots([COMMAND], rust_build.folder, tmp_path, TIMEOUT) as launch:
        yield launch


def test_the_kit_over_tcp_with_a_token(tcp_bot: LaunchTcp) -> None:
    """``--tcp HOST:PORT --token T``: the token is in the hello, the protocol goes over the
    socket (nothing on stdout) and goodbye ends the bot with status 0."""
    with Listener(TIMEOUT) as listener:
        bot = tcp_bot("--tcp", listener.address, "--token", "s3cret")
        with listener.accept() as connection:
            serve_one_decision(connection, "s3cret", "rust-ducker")
        assert bot.wait() == 0
    assert bot.stdout == b""


def test_busy_and_early_hang_ups_are_retried(tcp_bot: LaunchTcp) -> None:
    """Before the seat, a connection closed at once, a ``busy`` refusal instead of the hello,
    and a ``busy`` drop after the hello are all tried again; the fourth connection plays."""
    busy = b'{"type":"error","code":"busy","message":"%s","fatal":true,"request_id":null,"rule":null}\n'
    with Listener(TIMEOUT) as listener:
        bot = tcp_bot("--tcp", listener.address, env={"HEARTS_TOKEN": "t0k"})
        listener.accept().close()
        with listener.accept() as connection:
            connection.send_raw(busy % b"too many connections in their handshake; try again")
        with listener.accept() as connection:
            connection.send(Hello())
            assert connection.receive_hello().token == "t0k"  # from $HEARTS_TOKEN
            connection.send_raw(busy % b"dropped: another connection needed the slot")
        with listener.accept() as connection:
            serve_one_decision(connection, "t0k", "rust-ducker")
        assert bot.wait() == 0
    stderr = bot.stderr
    assert stderr.count("trying again in") == 3, stderr
    assert "the referee closed the connection" in stderr
    assert "the referee is busy (too many connections" in stderr
    assert "the referee is busy (dropped: another" in stderr


@pytest.mark.parametrize("code", ["bad_token", "seat_taken"])
def test_a_refused_token_is_final(tcp_bot: LaunchTcp, tmp_path: Path, code: str) -> None:
    """``bad_token`` and ``seat_taken`` end the bot (status 1) without another try."""
    token_file = tmp_path / "token"
    token_file.write_text("from-a-file\nsecond line\n")
    with Listener(TIMEOUT) as listener:
        bot = tcp_bot("--tcp", listener.address, "--token-file", str(token_file))
        with listener.accept() as connection:
            connection.send(Hello())
            assert connection.receive_hello().token == "from-a-file"
            error = {"type": "error", "code": code, "message": "no", "fatal": True, "request_id": None}
            connection.send_raw(json.dumps(error).encode() + b"\n")
            assert connection.hung_up()
        assert bot.wait() == 1
        assert listener.nobody_waiting()
    assert f"referee error {code} (fatal)" in bot.stderr


def test_a_referee_not_yet_listening_is_waited_for(tcp_bot: LaunchTcp) -> None:
    """A refused connection is retried until the referee listens; with ``--retry-for 0`` the
    bot gives up at the first refusal."""
    with Listener(TIMEOUT, listening=False) as listener:  # bound, not listening: connections are refused
        impatient = tcp_bot("--tcp", listener.address, "--retry-for", "0")
        assert impatient.wait() == 1
        assert "giving up after 0 s" in impatient.stderr

        bot = tcp_bot(f"--tcp={listener.address}", "--token=late", "--retry-for=300")
        bot.wait_for("trying again in")
        listener.listen()
        with listener.accept() as connection:
            serve_one_decision(connection, "late", "rust-ducker")
        assert bot.wait() == 0


@pytest.mark.parametrize("token_from", ["environment", "file"])
def test_a_tcp_seat_plays_a_whole_match(tcp_bot: LaunchTcp, tmp_path: Path, token_from: str) -> None:
    """``referee match tcp:NAME`` with the token kept off the command line: in the bot's
    environment or in a 0600 file."""
    started: list[TcpBot] = []

    def on_listening(address: tuple[str, int], seats: list[TcpSeat]) -> None:
        args = ["--tcp", f"{address[0]}:{address[1]}"]
        env = {}
        if token_from == "file":
            token_file = tmp_path / "token"
            token_file.write_text(seats[0].token + "\n")
            token_file.chmod(0o600)
            args += ["--token-file", str(token_file)]
        else:
            env["HEARTS_TOKEN"] = seats[0].token
        started.append(tcp_bot(*args, env=env))

    others = [python_bot("random", 1), python_bot("random", 2), python_bot("heuristic")]
    options = TableOptions(config=CONFIG, cwd=ROOT, on_listening=on_listening, connect_timeout=TIMEOUT)
    outcome = play(["tcp:rust", *others], SHORT, 2, options)
    assert started[0].wait() == 0
    assert [s.status for s in outcome.seats] == ["ok"] * 4, outcome.seats
    assert outcome.seats[0].name == "rust-ducker"


def test_the_kit_keeps_the_state_the_vectors_give(rust_examples: RustBuild, start: Start) -> None:
    """docs/vectors (docs/vectors.md): the last seat of every preset's vectors, fed to the probe
    a match after another on one connection; at each play its state (hand, points taken, scores,
    the trick, hearts broken and the trick's number as the events left them) is the vector's."""
    bot = start([str(rust_examples.example("probe"))])
    handshake(bot)
    expected = feed_probe(bot)
    extra = {"declared": lambda s: s.declared, "leader": lambda s: s.trick_leader}
    extra |= {"passed": sorted_passed, "received": sorted_received}
    assert_vector_states(states_written(bot.stderr), expected, snake=True, extra=extra)
