"""The C++ kit (``sample_bots/cpp/hearts.hpp``) and its sample bot (``bot.cpp``), built with g++
and run as real programs.

The folder is copied under the session's temporary directory and built there once, with the
build line the docs give (plus ``-Werror``), so no build product is ever left in the repository
and a warning fails the build. A second program, the *probe*, is the sample bot compiled with
AddressSanitizer and UndefinedBehaviorSanitizer, writing its table state to stderr at every
play: it is checked against the rules engine's own view of the table in every variant, and fed
hostile lines, so a memory error or undefined behaviour anywhere in the kit shows up as a
sanitizer report. The sample bot itself goes through ``referee check`` (in the bubblewrap
sandbox and without), plays whole matches against the Python sample bots, and connects over
TCP, to fake referees that refuse it and to a real one.

Every wait has a generous timeout: it guards against a hang, it is not a verdict on speed. The
whole file is skipped without g++.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from protocol import codec
from protocol.bot import deck_codes
from protocol.messages import (
    CardPlayed,
    Declare,
    Error,
    Goodbye,
    Hello,
    Moon,
    PassResult,
    TrickEnd,
)
from protocol.ruleset import RuleSet
from referee.match.play import TableOptions
from referee.players.tcp import TcpSeat
from referee.rules import SeatView, ruleset
from tests.bot_process import Start
from tests.check.helpers import failures, needs_bwrap, sandbox
from tests.protocol.table_driver import check_pass, check_play
from tests.sample_bots.bot_matches import ROOMY_MATCH, check_kit, entries, play, python_bot
from tests.sample_bots.kit_driver import (
    HAND,
    assert_states,
    cards_played,
    cards_unseen,
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
    voids_shown,
)
from tests.sample_bots.tcp_referee import LaunchTcp, Listener, TcpBot, free_port, serve_one_decision, tcp_bots
from tests.sample_bots.vectors_feed import assert_vector_states, feed_probe, sorted_passed, sorted_received
from tests.tiers import starts

pytestmark = pytest.mark.xdist_group("kit-cpp")
"""One worker runs the file's tests, so the kit is built once a run (pyproject.toml: --dist loadgroup)."""
ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "sample_bots" / "cpp"
BUILD = ["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-o", "bot", "bot.cpp"]
"""The build line of docs/writing-a-bot.md and the Makefile, run inside the folder."""
SANITIZE = ["-std=c++17", "-O0", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined"]
SANITIZE += ["-fno-sanitize-recover=all", "-Wall", "-Wextra", "-Werror"]
"""The probe's build: ``-O0`` compiles in 7 s of CPU where ``-O1`` takes 18 (every check of
the sanitizers is made at either level; the warnings that need the optimizer are the ``-O2``
build's, tested with ``-Werror`` in ``test_builds_without_a_warning``)."""
SANITIZER_REPORTS = ("AddressSanitizer", "LeakSanitizer", "runtime error", "UndefinedBehaviorSanitizer")
COMPILE_TIMEOUT = 600.0
"""Seconds a build may take: hang guards, generous for a loaded machine."""
TIMEOUT = 30.0
"""Seconds to wait for any one reply, connection or exit (a sanitizer build on a busy machine
is slow)."""
PYTHON_BOTS = [python_bot("heuristic"), python_bot("random", 3), python_bot("random", 4)]


# ---------------------------------------------------------------------------------------------
# Builds: one folder copy, built once per session
# ---------------------------------------------------------------------------------------------
class Built(msgspec.Struct, frozen=True):
    folder: Path
    program: Path
    warnings: str
    """What the compiler wrote (nothing, for a clean build)."""


PROBE = r"""
// The sample bot with its table state on stderr (tests only): the class of bot.cpp, not its main.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "hearts.hpp"
#define main sample_bot_main
#include "bot.cpp"
#undef main

class Probe : public Ducker {
   public:
    Probe() {
        name = "cpp-probe";
        const char* mode = std::getenv("PROBE_MISBEHAVE");
        misbehave_ = mode ? mode : "";
        strict = std::getenv("PROBE_STRICT") != nullptr;
    }

    void onMessage(const hearts::State& state, const hearts::Json& message) override {
        const std::string& type = message["type"].asString();
        if (type == "hello") {  // stray output: the kit must keep it off the protocol
            std::cout << "a debug line on std::cout" << std::endl;
            std::printf("and one from printf\n");
            std::fflush(stdout);
        }
        if (type == "match_start") std::cerr << "DECK " << hearts::Json(state.deck()).dump() << std::endl;
        if (type != "play_request") {  // the state as the events left it, before a request syncs it
            events_ = hearts::Json::object();
            events_.set("trick", state.trick).set("heartsBroken", state.heartsBroken);
            events_.set("trickNumber", state.trickNumber);
        }
        trouble("onMessage");
    }

    std::vector<std::string> choosePass(const hearts::State& state, const hearts::PassRequest& request) override {
        trouble("choosePass");
        if (misbehave_ == "illegal") return {"XX"};
        std::vector<std::string> cards = Ducker::choosePass(state, request);
        if (misbehave_ == "lower") cards[0][1] = static_cast<char>(cards[0][1] - 'A' + 'a');  // "kc": still KC
        return cards;
    }

    std::string choosePlay(const hearts::State& state, const hearts::PlayRequest& request) override {
        dump(state);
        trouble("choosePlay");
        if (misbehave_ == "illegal") return "XX";
        std::string card = Ducker::choosePlay(state, request);
        if (misbehave_ == "lower") card[1] = static_cast<char>(card[1] - 'A' + 'a');  // "2d": still 2D
        return card;
    }

    bool chooseDeclare(const hearts::State&, const hearts::DeclareRequest&) override {
        trouble("chooseDeclare");
        return false;
    }

    std::string chooseMoon(const hearts::State& state, const hearts::MoonRequest& request) override {
        trouble("chooseMoon");
        if (misbehave_ == "illegal") return "keep_it";
        return Bot::chooseMoon(state, request);
    }

   private:
    void trouble(const std::string& where) const {
        if (misbehave_ == "throw") throw std::runtime_error("a bug in " + where);
        if (misbehave_ == "throw_int" || misbehave_ == "throw_in_" + where) throw 42;
    }

    void dump(const hearts::State& s) {
        hearts::Json voids = hearts::Json::array(), declarations = hearts::Json::array(), taken = hearts::Json::array();
        for (const auto& suits : s.voids) voids.push(std::string(suits.begin(), suits.end()));
        for (const auto& d : s.declarations) declarations.push(d ? hearts::Json(*d) : hearts::Json());
        for (const auto& cards : s.taken) taken.push(cards.size());
        hearts::Json out = hearts::Json::object();
        out.set("hand", s.hand).set("seat", s.seat).set("events", events_).set("trickLeader", s.trickLeader);
        hearts::Json points = hearts::Json::array(), scores = hearts::Json::array();
        for (int p : s.pointsTaken) points.push(p);
        for (int p : s.scores) scores.push(p);
        out.set("pointsTaken", points).set("scores", scores).set("voids", voids).set("declarations", declarations);
        out.set("played", s.played.size()).set("tricks", s.tricks.size()).set("unseen", s.unseen().size());
        out.set("passed", s.passed).set("received", s.received).set("taken", taken);
        out.set("winning", s.winningSeat()).set("stillToPlay", s.stillToPlay().size());
        out.set("clock", s.msLeft() <= s.timeLeft.decisionMs + s.timeLeft.bankMs);  // never more than given
        std::cerr << "STATE " << out.dump() << std::endl;
    }

    std::string misbehave_;
    hearts::Json events_;
};

int main(int argc, char** argv) {
    Probe bot;
    return hearts::run(bot, argc, argv);
}
"""


def compile_in(folder: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=folder, capture_output=True, text=True, timeout=COMPILE_TIMEOUT, check=False)


@pytest.fixture(scope="session")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of sample_bots/cpp (without a build of it, should one lie there): builds write
    only here."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    copy = tmp_path_factory.mktemp("cpp-kit") / "cpp"
    shutil.copytree(KIT, copy, ignore=shutil.ignore_patterns("bot", "*.o"))
    return copy


@pytest.fixture(scope="session")
@starts("compiler")
def built(folder: Path) -> Built:
    """The sample bot, built as the docs say (``-Werror`` added: a warning fails the build)."""
    result = compile_in(folder, [*BUILD, "-Werror"])
    assert result.returncode == 0, result.stdout + result.stderr
    return Built(folder=folder, program=folder / "bot", warnings=result.stdout + result.stderr)


@pytest.fixture(scope="session")
@starts("compiler")
def probe(folder: Path) -> Path:
    """The probe, built with the sanitizers (any report aborts it: ``-fno-sanitize-recover``)."""
    (folder / "probe.cpp").write_text(PROBE)
    result = compile_in(folder, ["g++", *SANITIZE, "-o", "probe", "probe.cpp"])
    assert result.returncode == 0, result.stdout + result.stderr
    return folder / "probe"


# ---------------------------------------------------------------------------------------------
# A program under test, fed referee lines
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def reply_timeout() -> float:
    return TIMEOUT


def assert_no_sanitizer_report(text: str) -> None:
    for marker in SANITIZER_REPORTS:
        assert marker not in text, text[-6000:]


# ---------------------------------------------------------------------------------------------
# The build
# ---------------------------------------------------------------------------------------------
def test_builds_without_a_warning(built: Built) -> None:
    """The documented build line, with -Werror, says nothing: a new author's first build must
    not greet them with warnings from the kit."""
    assert built.warnings == ""
    assert os.access(built.program, os.X_OK)


@pytest.mark.compiler
def test_the_header_links_into_two_files_under_stricter_warnings(folder: Path, tmp_path: Path) -> None:
    """Header-only means every function is inline: a bot split into several .cpp files that
    each include the kit must link (no duplicate symbols), and pedantic and shadowing warnings
    stay quiet too."""
    (tmp_path / "one.cpp").write_text('#include "hearts.hpp"\nint one() { return hearts::rankOf("QS"); }\n')
    (tmp_path / "two.cpp").write_text(
        '#include "hearts.hpp"\n#include "hearts.hpp"\nint one();\n'
        "int main() { return one() == 12 && hearts::suitOf(\"QS\") == 'S' ? 0 : 1; }\n"
    )
    flags = ["-std=c++17", "-O0", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror", f"-I{folder}"]
    result = compile_in(tmp_path, ["g++", *flags, "-o", "two", "one.cpp", "two.cpp"])
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert subprocess.run([str(tmp_path / "two")], timeout=TIMEOUT, check=False).returncode == 0


def test_the_folder_holds_its_build_line_and_ignores_its_build() -> None:
    """The Makefile runs the documented line, and git ignores the program it makes."""
    makefile = (KIT / "Makefile").read_text()
    assert "-std=c++17 -O2 -Wall -Wextra" in makefile
    assert "-o $@ bot.cpp" in makefile
    assert "/bot" in (KIT / ".gitignore").read_text().split()
    assert " ".join(BUILD) in (KIT / "bot.cpp").read_text()


# ---------------------------------------------------------------------------------------------
# referee check
# ---------------------------------------------------------------------------------------------
@needs_bwrap
def test_check_passes_every_step_in_the_sandbox(built: Built) -> None:
    """In the bubblewrap sandbox a referee runs it in: run from its own folder, as the bot
    list runs it."""
    report = check_kit("./bot", built.folder, sandbox=sandbox())
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict == "skip"] == []
    assert report.exit_code == 0 and report.summary.ok
    assert report.summary.steps == len(report.steps) >= 40
    assert report.summary.decisions > 300
    assert report.sandboxed and report.sandbox.startswith("bubblewrap (")


def test_check_passes_every_step_without_a_sandbox(built: Built) -> None:
    report = check_kit("./bot", built.folder)
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict == "skip"] == ["sandbox.works"]
    assert report.exit_code == 0 and report.summary.ok


@pytest.mark.parametrize("variant", ["dutch", "black-maria", "achterhoeks", "double-deck", "omnibus"])
def test_check_passes_in_other_variants(built: Built, variant: str) -> None:
    """The general steps in other rule sets: piket deck, three players, declarations, six
    players with two decks, a bonus card."""
    report = check_kit("./bot", built.folder, variant=variant)
    assert failures(report) == []
    assert report.variant == variant


def test_check_passes_under_the_sanitizers(probe: Path) -> None:
    """Every step of the check, the hostile ones included, run by the sanitizer build: a report
    would abort the program and fail its step (a leak found at exit changes the exit status)."""
    report = check_kit(f"./{probe.name}", probe.parent)
    assert failures(report) == []
    for step in report.steps:
        assert_no_sanitizer_report(step.stderr)


# ---------------------------------------------------------------------------------------------
# Whole matches against the Python sample bots
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("variant", "seat", "seed"), [("american", 0, 11), ("dutch", 2, 12), ("black-maria", 1, 13)])
def test_full_match_against_the_python_bots(built: Built, tmp_path: Path, variant: str, seat: int, seed: int) -> None:
    """A whole match, to the rules' own end, through the referee: every seat stays ``ok``, the
    log holds no fault, and the C++ bot wrote nothing to stderr (no answer was replaced) and
    exited 0 after goodbye."""
    rules = ruleset(variant)
    seats = PYTHON_BOTS[: rules.players - 1]
    seats.insert(seat, "./bot")
    log = tmp_path / "match.jsonl"
    outcome = play(seats, rules, seed, TableOptions(config=ROOMY_MATCH, cwd=built.folder), log)
    assert [s.status for s in outcome.seats] == ["ok"] * rules.players
    assert outcome.seats[seat].name == "cpp-ducker"
    lines = entries(log)
    assert [e for e in lines if e["type"] == "fault"] == []
    result = next(e for e in lines if e["type"] == "result")
    assert result["reason"] in ("target_reached", "reached_zero", "nobody_can_reach_zero", "rounds_played")
    mine = next(e for e in lines if e["type"] == "stderr" and e["seat"] == seat)
    assert mine["text"] == "" and mine["exit_code"] == 0


# ---------------------------------------------------------------------------------------------
# The table state, against the rules engine, in every variant (sanitizer build)
# ---------------------------------------------------------------------------------------------
def expected_state(view: SeatView, scores: list[int], rules: RuleSet) -> dict[str, Any]:
    """What the probe should print at a play request, from the engine's view of the seat."""
    n = view.players
    taken = [0] * n
    carried = 0
    for t in view.tricks:
        carried += len(t.cards)
        if t.winner is not None:
            taken[t.winner] += carried
            carried = 0
    return {
        **probe_state(view, scores),
        "trickLeader": view.trick_leader,
        "voids": ["".join(sorted(v)) for v in voids_shown(view)],
        "declarations": view.declared,
        "played": len(cards_played(view)),
        "tricks": len(view.tricks),
        "unseen": len(cards_unseen(view, rules)),
        "passed": sorted(view.passed or []),
        "received": sorted(view.received or []),
        "taken": taken,
        "stillToPlay": n - len(view.trick),
        "clock": True,
    }


PRESETS = [
    "american",
    "american-3",
    "american-5",
    "double-deck",
    "omnibus",
    "black-maria",
    "dutch",
    "achterhoeks",
    "american-moon-choice",
]


@pytest.mark.parametrize("preset", PRESETS)
def test_state_follows_the_engine(start: Start, probe: Path, preset: str) -> None:
    """The rules engine deals and plays the other seats at random; at every play request the
    kit's state (hand, trick, hearts broken, points, voids, cards seen and taken, passing,
    declarations) equals the engine's view of the seat, its deck equals the Python kit's, and
    every reply is legal. Two matches on one connection, from two seats."""
    bot = start([str(probe)])
    handshake(bot)
    rules = ruleset(preset)
    deck = deck_codes(msgspec.convert(msgspec.to_builtins(rules), RuleSet))
    expected: list[dict[str, Any]] = []

    def record(view: SeatView, scores: list[int]) -> None:
        expected.append(expected_state(view, scores, rules))

    decisions = 0
    for number, seat in enumerate((1, rules.players - 1)):
        seed = 40 + number
        decisions += drive_match(bot, rules, seat=seat, seed=seed, max_rounds=3, on_play_request=record)
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    stderr = bot.stderr
    assert_no_sanitizer_report(stderr)
    decks = [json.loads(line[5:]) for line in stderr.splitlines() if line.startswith("DECK ")]
    assert decks == [deck, deck]
    seen = states_written(stderr, sort=("hand", "passed", "received"))
    for state in seen:
        state.pop("winning")
    assert decisions > 0
    assert_states(seen, expected)


# ---------------------------------------------------------------------------------------------
# Decisions of the sample bot
# ---------------------------------------------------------------------------------------------
def test_passes_its_highest_cards(start: Start, built: Built) -> None:
    bot = start([str(built.program)])
    assert passed_from_hand(bot) == ["AH", "AS", "KC"]


DUCKS = [
    ("american", ["9D"], ["2D", "TD", "KD"], "2D"),  # the only card that ducks
    ("american", ["9D", "QD"], ["2D", "TD", "JD", "AD"], "JD"),  # the highest that ducks
    ("american", ["9D"], ["TD", "KD"], "TD"),  # cannot duck: the lowest
    ("american", [], ["5C", "3H", "9S"], "3H"),  # leading: the lowest
    ("american", ["9D"], ["QS", "AH", "4C"], "QS"),  # void: the most points
    ("american", ["9D"], ["KS", "AH", "4C"], "AH"),  # a heart before a higher spade
    ("omnibus", ["9C"], ["TD", "JD", "3H"], "3H"),  # void: the heart, never the bonus card
    ("black-maria", ["9C"], ["KS", "AS", "QH"], "KS"),  # KS 10, AS 7, QH 1
    ("double-deck", ["KD", "KD"], ["5D", "QD"], "5D"),  # the kings cancel: any diamond wins
]
"""Positions for the sample bot: (preset, trick, legal, the card it plays)."""


@pytest.mark.parametrize("case", DUCKS)
def test_ducks_and_dumps(start: Start, built: Built, case: tuple[str, list[str], list[str], str]) -> None:
    """The sample bot's play, which uses the kit's helpers: wouldWin (with cancelling twins in
    the double deck) and the card points of the rule set."""
    preset, trick, legal, expected = case
    bot = start([str(built.program)])
    handshake(bot)
    rules = ruleset(preset)
    bot.send(match_start(seat=1, rules=rules))
    request = play_request(1, legal, trick)
    assert check_play(bot.ask(request), request) == expected


# ---------------------------------------------------------------------------------------------
# The protocol, scripted
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("request_id", [1, 2**31, 2**53 - 1, 2**64 + 1, 10**40])
def test_request_ids_are_echoed_exactly(start: Start, built: Built, request_id: int) -> None:
    """An id is echoed as the referee wrote it, whatever its size (beyond 64 bits too)."""
    bot = start([str(built.program)])
    handshake(bot)
    bot.send(match_start())
    bot.send_raw(b'{"type":"play_request","id":%d,"legal":["2C"],"trick":[]}\n' % request_id)
    assert bot.receive_line() == b'{"type":"play","id":%d,"card":"2C"}\n' % request_id
    ask_declare = declare_request(request_id)
    assert bot.ask(ask_declare) == Declare(id=request_id, declare=False)
    ask_moon = moon_request(request_id)
    assert bot.ask(ask_moon) == Moon(id=request_id, choice="add_to_others")


def test_a_round_written_in_one_go(start: Start, built: Built) -> None:
    """The referee writes the events and the request in one write; a second match follows on
    the same connection; unknown types and fields are ignored; the moon is chosen from the
    options offered; goodbye ends the program with 0 and nothing more on stdout."""
    bot = start([str(built.program)])
    handshake(bot)
    start_line = json.loads(codec.encode(match_start()))
    start_line["future"] = {"type": "goodbye", "nested": [[{"id": 1}], "]}"]}
    start_line["rules"]["some_new_rule"] = [1, 2.5e3, True, None]
    batch = json.dumps(start_line).encode() + b"\r\n"
    batch += b'{"type":"shiny_new_event","id":5,"legal":["2C"],"fatal":true}\n'
    batch += codec.encode(round_start())
    ask_pass = pass_request(2)
    bot.send_raw(batch + codec.encode(ask_pass))
    given = check_pass(bot.receive(), ask_pass)
    hand = [c for c in HAND if c not in given] + ["3C", "4C", "6D"]
    batch = codec.encode(PassResult(given=given, to_seat=2, received=["3C", "4C", "6D"], from_seat=0, hand=hand))
    for seat, card in [(1, "2C"), (2, "7C"), (3, "QC")]:
        batch += codec.encode(CardPlayed(seat=seat, card=card, trick_number=0))
    request = play_request(3, ["3C", "4C", "5C", "9C"], ["2C", "7C", "QC"], trick_number=0)
    request.leader = 1
    bot.send_raw(batch + codec.encode(request))
    assert check_play(bot.receive(), request) == "9C"
    bot.send(TrickEnd(trick_number=0, leader=1, cards=["2C", "7C", "QC", "9C"], winner=3, points=0))
    moon = moon_request(4, ["subtract_from_shooter"])
    assert bot.ask(moon) == Moon(id=4, choice="subtract_from_shooter")
    bot.send(match_start(seat=2, match_id="m-2"))
    again = play_request(5, ["3D", "8D"], ["TD"])
    assert check_play(bot.ask(again), again) == "8D"
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    assert bot.rest_of_output() == []
    assert bot.stderr == ""


def test_end_of_input_exits_zero_and_a_fatal_error_exits_one(start: Start, built: Built) -> None:
    bot = start([str(built.program)])
    handshake(bot)
    assert bot.proc.stdin is not None
    bot.proc.stdin.close()
    assert bot.wait_exit() == 0

    bot = start([str(built.program)])
    handshake(bot)
    bot.send(match_start())
    bot.send(Error(code="illegal_move", message="not fatal", fatal=False, request_id=1, rule="must_follow_suit"))
    request = play_request(2, ["2D", "AD"], ["9D"])
    check_play(bot.ask(request), request)  # a non-fatal error: the match goes on
    bot.send(Error(code="timeout", message="you are dropped", fatal=True, request_id=3, rule=None))
    assert bot.wait_exit() == 1
    assert bot.rest_of_output() == []
    assert "referee error timeout (fatal): you are dropped" in bot.stderr


# ---------------------------------------------------------------------------------------------
# Wrong answers and exceptions are replaced by legal defaults (sanitizer build)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["throw", "throw_int", "illegal", "lower"])
def test_bad_answers_are_logged_and_replaced(start: Start, probe: Path, mode: str) -> None:
    """A choose method that throws or answers something illegal costs a decision, not the
    match: the kit logs it and sends the first legal cards (a lower-case code is accepted as
    the card it names). Stray std::cout and printf output goes to stderr."""
    bot = start([str(probe)], env={"PROBE_MISBEHAVE": mode})
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    ask_pass = pass_request(1)
    passed = check_pass(bot.ask(ask_pass), ask_pass)
    play = play_request(2, ["2D", "TD", "AD"], ["9D"])
    card = check_play(bot.ask(play), play)
    declare = declare_request(3)
    assert bot.ask(declare) == Declare(id=3, declare=False)
    moon = moon_request(4, ["subtract_from_shooter", "add_to_others"])
    assert bot.ask(moon) == Moon(id=4, choice="add_to_others")
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    stderr = bot.stderr
    assert_no_sanitizer_report(stderr)
    assert "a debug line on std::cout" in stderr and "and one from printf" in stderr
    if mode == "lower":
        assert (passed, card) == (["KC", "AS", "AH"], "2D")
        assert "[hearts.hpp]" not in stderr
        return
    assert (passed, card) == (HAND[:3], "2D")
    if mode == "illegal":
        assert 'choosePlay returned "XX", not one of ["2D","TD","AD"]; playing 2D' in stderr
        assert "choosePass returned" in stderr and "chooseMoon returned" in stderr
    else:
        for method in ("onMessage", "choosePass", "choosePlay", "chooseDeclare", "chooseMoon"):
            assert f"{method} threw" in stderr


def test_a_strict_bot_ends_on_its_exception(start: Start, probe: Path) -> None:
    """``strict = true``: the exception ends the program (status 1) instead of a default."""
    bot = start([str(probe)], env={"PROBE_MISBEHAVE": "throw_in_choosePlay", "PROBE_STRICT": "1"})
    handshake(bot)
    bot.send(match_start())
    bot.send(play_request(2, ["2D", "AD"], ["9D"]))
    assert bot.wait_exit() == 1
    assert bot.rest_of_output() == []
    assert "the bot threw" in bot.stderr
    assert_no_sanitizer_report(bot.stderr)


# ---------------------------------------------------------------------------------------------
# Hostile lines (sanitizer build)
# ---------------------------------------------------------------------------------------------
IGNORED: list[bytes] = [
    b"[" * 60_000,  # deep, under the line limit
    b"[" * 100_000,  # over the line limit
    b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    b'{"type":"play_request","id":70,"legal":["2C"],"x":' + b"[" * 1000 + b"]" * 1000 + b"}",
    b'{"type":"play_request","id":70,"legal":["2C"],"x":' + b"[" * 64 + b"]" * 64 + b"}",  # one level too deep
    b'{"type":"play_request","id":1e999,"legal":["2C"]}',
    b'{"type":"play_request","id":1.5,"legal":["2C"]}',
    b'{"type":"play_request","id":"71","legal":["2C"]}',
    b'{"type":"play_request","id":72,"legal":["2C"],"x":NaN}',
    b'{"type":"play_request","id":73,"legal":["2C"],"x":-Infinity}',
    b'\xef\xbb\xbf{"type":"play_request","id":74,"legal":["2C"]}',
    b'{"type":"play_request","id":75,"legal":["2C"]} trailing',
    b'{"type":"goodbye"}\x00',
    b'{"type":"goodbye"',
    b'{"type":"goodbye","x":"\\ud800',
    b'{"type":"play_request","id":76,"legal":"2C"}',
    b'{"type":"play_request","id":77,"legal":[]}',
    b'{"type":"play_request"}',
    b'{"type":"pass_request","id":78,"count":5,"legal":["2C"]}',
    b'{"type":"pass_request","id":79,"count":-1,"legal":["2C"]}',
    b'{"type":"pass_request","id":80,"count":"3","legal":["2C","3C","4C"]}',
    b'{"type":"x","s":"\\uZZZZ"}',
    b'{"type":"x","s":"\\q"}',
    b'{"type":"x","s":"a\x01b"}',
    b'{"type":"x","n":01}',
    b'{"type":"x","n":-}',
    b'{"type":"x","n":1.}',
    b'{"type":"x","n":.5}',
    b'{"type":"x","n":+1}',
    b'{"type":"x","n":1e}',
    b'{"type":"x",}',
    b'{"type":"x" "y":1}',
    b'{"type":tru}',
    b"\x00",
    b"",
    b"   \t",
    b"\r",
    b"null",
    b"[]",
    b'"play"',
    b"42",
    b'{"type":5}',
    b"{}",
    b'{"type":"x","s":"' + b"\\u00e9\\ud83d\\ude00\\ud800\\udc00\\udbff\\udfff\\ud800x\\udc00\\u0000" * 500 + b'"}',
    b'{"type":"x",' + b'"k":1,' * 10_000 + b'"z":[-0,0.5e-999,1E+2,-1.5e308,123456789012345678901234567890]}',
    b'{"type":"x","s":"\xff\xfe\xc0\xaf\xed\xa0\x80"}',
    b'{"type":"card_played","seat":999999999,"card":"2C","trick_number":0}',
    b'{"type":"card_played","seat":-5,"card":"","trick_number":-1}',
    b'{"type":"declared","seat":1e300,"declared":true}',
    b'{"type":"trick_end","trick_number":0,"leader":-7,"cards":["2C","3C"],"winner":123456789,"points":5}',
    b'{"type":"trick_end","trick_number":99999999999999999999,"leader":2,"cards":["2C"],"winner":null}',
    b'{"type":"round_start","round":0,"hand":[1,2,"2C",null],"pass_to":"x","scores":[1e400,"a"]}',
    b'{"type":"passed","given":["AS","AS"],"received":[{}],"hand":"none"}',
    b'{"type":"match_start","seat":99999,"players":[],"rules":{"players":1000000,"copies":1000000,'
    b'"card_points":{"QS":99999999999999999999,"2c":-3},"deck":"piket","remove":["QS","ZZ"],'
    b'"trim_to_deal_evenly":true,"add":["10h","5C"]}}',
    b'{"type":"match_start","seat":1,"players":[{"seat":"x"},{"name":5}],"rules":{"players":0}}',
    b'{"type":"round_end","scores":[1,2],"points_taken":"x","next_match_phase":1e10}',
    b'{"type":"error","code":"busy","message":"' + b"\\n" * 5000 + b'","fatal":"yes"}',
]
"""Lines the kit must survive without answering: malformed JSON, values out of any range,
messages with fields of the wrong type or impossible values. The referee never writes them."""

ANSWERED: list[tuple[bytes, bytes]] = [
    (
        b'{"type":"play_request","id":' + b"9" * 5000 + b',"legal":["2C"],"trick":[]}',
        b'{"type":"play","id":' + b"9" * 5000 + b',"card":"2C"}',
    ),
    (
        b' \t{"legal" : ["2C"] ,\t"x":' + b"[" * 63 + b"]" * 63 + b',"id":81,"type":"play_request"}\r',
        b'{"type":"play","id":81,"card":"2C"}',
    ),
    (
        b'{"type":"play_request","type":"play_request","id":82,"id":83,"legal":["2C","2C"],"trick":["\\u0032D"]}',
        b'{"type":"play","id":83,"card":"2C"}',
    ),
    (
        b'{"type":"play_request","id":84,"legal":["\xff\xfe"],"trick":["2C"]}',
        b'{"type":"play","id":84,"card":"\\ufffd\\ufffd"}',
    ),
    (
        b'{"type":"moon_request","id":85,"options":["\\ud83d\\ude00\\u00e9\\u0041\\/"]}',
        b'{"type":"moon","id":85,"choice":"\xf0\x9f\x98\x80\xc3\xa9A/"}',
    ),
    (
        b'{"type":"moon_request","id":86,"options":["\\ud800\\u0000\\n\\udc00"]}',
        b'{"type":"moon","id":86,"choice":"\xef\xbf\xbd\\u0000\\n\xef\xbf\xbd"}',
    ),
    (
        b'{"type":"moon_request","id":87,"options":[]}',
        b'{"type":"moon","id":87,"choice":"add_to_others"}',
    ),
    (
        b'{"type":"pass_request","id":88,"count":0,"legal":[]}',
        b'{"type":"pass","id":88,"cards":[]}',
    ),
]
"""Odd but readable requests and the exact replies: an id of 5000 digits, nesting at the
bound, repeated keys (the last wins), escapes and surrogate pairs decoded to UTF-8 (a lone
surrogate becomes U+FFFD), invalid UTF-8 written back as U+FFFD so the reply stays valid JSON."""


def test_hostile_lines_do_not_crash_the_kit(start: Start, probe: Path) -> None:
    """After each hostile line the bot answers the next request with that request's id (so
    it answered nothing in between), and it exits 0 on goodbye without a sanitizer report.
    A line of exactly 65536 bytes is read; one byte more is skipped."""
    bot = start([str(probe)])
    handshake(bot)
    bot.send(match_start())
    next_id = 1000

    def alive() -> None:
        nonlocal next_id
        next_id += 1
        request = play_request(next_id, ["2D", "AD"], ["9D"])
        check_play(bot.ask(request), request)

    for line in IGNORED:
        assert b"\n" not in line
        bot.send_raw(line + b"\n")
        alive()
    for line, reply in ANSWERED:
        bot.send_raw(line + b"\n")
        assert bot.receive_line() == reply + b"\n", line[:200]
        alive()
    for size, answered in ((65536, True), (65537, False)):
        head = b'{"type":"play_request","id":90,"legal":["2C"],"trick":[],"pad":"'
        line = head + b"x" * (size - len(head) - 2) + b'"}'
        assert len(line) == size
        bot.send_raw(line + b"\n")
        if answered:
            assert bot.receive_line() == b'{"type":"play","id":90,"card":"2C"}\n'
        alive()
    bot.send_raw(b'{"type":"goodbye"}')  # the last line, without its newline: still read
    assert bot.proc.stdin is not None
    bot.proc.stdin.close()
    assert bot.wait_exit() == 0
    assert bot.rest_of_output() == []
    assert_no_sanitizer_report(bot.stderr)


# ---------------------------------------------------------------------------------------------
# TCP
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def referee() -> Iterator[Listener]:
    with Listener(TIMEOUT) as fake:
        yield fake


@pytest.fixture
def tcp_bot(built: Built, tmp_path: Path) -> Iterator[LaunchTcp]:
    """The sample bot started as a TCP client with arguments, from its folder."""
    with tcp_bots([str(built.program)], built.folder, tmp_path, TIMEOUT) as launch:
        yield launch


TOKEN_WAYS: dict[str, tuple[list[str], dict[str, str]]] = {
    "option": (["--token", "s3cret"], {}),
    "option=": (["--token=s3cret"], {}),
    "file": (["--token-file", "{file}"], {}),
    "environment": ([], {"HEARTS_TOKEN": "s3cret"}),
    "option before environment": (["--token", "s3cret"], {"HEARTS_TOKEN": "other"}),
}
"""How a token may be given: the bot's arguments and environment."""


@pytest.mark.parametrize("how", list(TOKEN_WAYS))
def test_connects_over_tcp_with_a_token(tmp_path: Path, tcp_bot: LaunchTcp, referee: Listener, how: str) -> None:
    """Every way to give the token; the protocol goes over the socket, stdout stays empty."""
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\nnot this line\n")
    token_file.chmod(0o600)
    words, env = TOKEN_WAYS[how]
    args = [word.replace("{file}", str(token_file)) for word in words]
    tcp = [f"--tcp={referee.address}"] if how == "option=" else ["--tcp", referee.address]
    bot = tcp_bot(*tcp, *args, env=env)
    with referee.accept() as connection:
        serve_one_decision(connection, "s3cret", "cpp-ducker")
        assert bot.wait() == 0
    assert bot.stdout == b""


def test_retries_busy_and_a_connection_dropped_before_its_seat(tcp_bot: LaunchTcp, referee: Listener) -> None:
    """``busy`` instead of hello, then a connection closed after the hellos: both are tried
    again after a pause, each retry a line on stderr; the third connection plays."""
    bot = tcp_bot("--tcp", referee.address, "--token", "t0")
    with referee.accept() as connection:
        connection.send(Error(code="busy", message="too many connections", fatal=True, request_id=None, rule=None))
    with referee.accept() as connection:
        connection.send(Hello())
        assert connection.receive_hello().token == "t0"
        dropped = Error(code="busy", message="dropped: another connection", fatal=True, request_id=None, rule=None)
        connection.send(dropped)
    with referee.accept() as connection:
        connection.send(Hello())
        connection.reader.readline()
    with referee.accept() as connection:
        serve_one_decision(connection, "t0", "cpp-ducker")
        assert bot.wait() == 0
    assert "the referee is busy (too many connections); trying again in" in bot.stderr
    assert "the referee is busy (dropped: another connection); trying again in" in bot.stderr
    assert "the referee closed the connection; trying again in" in bot.stderr


@pytest.mark.parametrize("code", ["bad_token", "seat_taken"])
def test_a_refused_token_is_final(tcp_bot: LaunchTcp, referee: Listener, code: str) -> None:
    """``bad_token`` and ``seat_taken`` end the bot with status 1: it does not come back."""
    bot = tcp_bot("--tcp", referee.address, "--token", "wrong")
    with referee.accept() as connection:
        connection.send(Hello())
        connection.reader.readline()
        connection.send(Error(code=code, message="no", fatal=True, request_id=None, rule=None))
        assert bot.wait() == 1
    assert referee.nobody_waiting()
    assert f"referee error {code} (fatal): no" in bot.stderr


def test_gives_up_when_nobody_listens(tcp_bot: LaunchTcp) -> None:
    """A referee that is not listening is tried again until --retry-for runs out."""
    port = free_port()
    bot = tcp_bot("--tcp", f"127.0.0.1:{port}", "--retry-for", "0.5")
    assert bot.wait() == 1
    assert f"cannot connect to 127.0.0.1:{port}" in bot.stderr
    assert "giving up after 0.5 s" in bot.stderr


@pytest.mark.parametrize(
    "args", [["--tcp", "nonsense"], ["--tcp", "127.0.0.1:99999"], ["--tcp"], ["--retry-for", "-1"]]
)
def test_bad_options_exit_two(tcp_bot: LaunchTcp, args: list[str]) -> None:
    assert tcp_bot(*args).wait() == 2


def test_plays_a_referee_match_over_tcp(tcp_bot: LaunchTcp, tmp_path: Path) -> None:
    """A real referee with a ``tcp:NAME:@FILE`` seat, the bot given the same file: a whole
    one-round match, every seat ``ok``, and the bot exits 0 after goodbye."""
    token_file = tmp_path / "token"
    token_file.write_text("cpp-token-0123456789\n")
    token_file.chmod(0o600)
    started: list[TcpBot] = []

    def on_listening(address: tuple[str, int], seats: list[TcpSeat]) -> None:
        assert [s.seat for s in seats] == [2]
        started.append(tcp_bot("--tcp", f"{address[0]}:{address[1]}", "--token-file", str(token_file)))

    rules = ruleset("american", {"end": "rounds", "rounds": 1})
    seats = [*PYTHON_BOTS[:2], f"tcp:cpp:@{token_file}", PYTHON_BOTS[2]]
    outcome = play(seats, rules, 21, TableOptions(config=ROOMY_MATCH, cwd=ROOT, on_listening=on_listening))
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    assert outcome.seats[2].name == "cpp-ducker"
    assert started[0].wait() == 0
    assert started[0].stdout == b""


def test_the_kit_keeps_the_state_the_vectors_give(start: Start, probe: Path) -> None:
    """docs/vectors (docs/vectors.md): the last seat of every preset's vectors, fed to the probe
    a match after another on one connection; at each play its state (hand, points taken, scores,
    the trick, hearts broken and the trick's number as the events left them) is the vector's."""
    bot = start([str(probe)])
    handshake(bot)
    expected = feed_probe(bot)
    assert_no_sanitizer_report(bot.stderr)
    extra = {"declarations": lambda s: s.declared, "trickLeader": lambda s: s.trick_leader}
    extra |= {"passed": sorted_passed, "received": sorted_received}
    assert_vector_states(states_written(bot.stderr), expected, extra=extra)
