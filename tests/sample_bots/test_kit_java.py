"""The Java kit (sample_bots/java/Hearts.java) and its sample bot (SampleBot.java).

The folder is built the way its docs say, from inside a copy of it under the test's temporary
folder (never in the repository, where other people work), and run from inside it. What is
checked: that it compiles clean with every lint on; that ``referee check`` passes every step in
the sandbox and without one; that it plays whole matches against the Python sample bots with no
fault; that it connects over TCP with a token from each source and retries a busy referee as the
other kits do; that the table state it keeps matches the rules engine's view; that illegal
answers and exceptions cost a decision, not the match; and that its JSON reader survives hostile
lines and reads what Python's json reads. Everything skips without a JDK (javac, jar, java).
There are no timed assertions: timeouts only guard against hangs, and a JVM start is slow on a
loaded machine, so they are generous.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from protocol import codec
from protocol.messages import (
    Declare,
    Error,
    Goodbye,
    Hello,
    Moon,
    Play,
)
from referee.check.results import CheckReport
from referee.match.play import TableOptions
from referee.players.bot_config import BotEntry
from referee.players.building import build as build_bot
from referee.players.tcp import TcpSeat
from referee.rules import SeatView, ruleset
from referee.sandbox.bwrap import Sandbox
from tests.bot_process import BotProcess, Start
from tests.check.helpers import failures, needs_bwrap, sandbox
from tests.hostile_lines import depth_of
from tests.protocol.table_driver import check_pass, check_play
from tests.sample_bots.bot_matches import ROOMY_MATCH, check_kit, entries, play, python_bot
from tests.sample_bots.kit_driver import (
    BIG_ID,
    HAND,
    assert_states,
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
    winning_seat,
)
from tests.sample_bots.tcp_referee import LaunchTcp, Listener, TcpBot, serve_one_decision, tcp_bots
from tests.sample_bots.vectors_feed import assert_vector_states, feed_probe
from tests.shared import verified
from tests.tiers import starts

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "sample_bots" / "java"
BUILD = "javac -d classes Hearts.java SampleBot.java && jar cfe bot.jar SampleBot -C classes ."
"""The build line of the docs, run from inside the folder."""
COMMAND = "java -jar bot.jar"
"""The command of the docs, run from inside the folder."""
TIMEOUT = 60.0
"""Seconds to wait for a reply, an exit or a connection: a hang guard, not a verdict on speed."""

pytestmark = [
    pytest.mark.skipif(
        any(shutil.which(tool) is None for tool in ("javac", "jar", "java")),
        reason="no JDK here (javac, jar and java are needed)",
    ),
    pytest.mark.xdist_group("kit-java"),  # one worker: the kit is built once a run (pyproject: --dist loadgroup)
]


# ---------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------
def copy_kit(destination: Path) -> Path:
    """The kit's folder as a bot author gets it: the sources only (a build product left in the
    repository by someone's manual build must not hide a broken build here)."""
    shutil.copytree(KIT, destination, ignore=shutil.ignore_patterns("classes", "bot.jar"))
    return destination


def build(folder: Path) -> None:
    result = subprocess.run(["sh", "-c", BUILD], cwd=folder, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (folder / "bot.jar").is_file()


@pytest.fixture(scope="module")
@starts("compiler")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit's folder, copied and built with the documented line."""
    built = copy_kit(tmp_path_factory.mktemp("kit") / "java")
    build(built)
    return built


PROBES = {
    "JsonProbe": """
import java.nio.charset.StandardCharsets;

/** Reads lines on stdin, writes back each one as Hearts.Json read and wrote it, or ERR. */
public final class JsonProbe {
    public static void main(String[] args) throws Exception {
        String input = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        for (String line : input.split("\\n", -1)) {
            try {
                String written = Hearts.Json.write(Hearts.Json.parse(line));
                out.append("OK ").append(written);
            } catch (Hearts.Json.JsonException err) {
                out.append("ERR ").append(err.getMessage());
            }
            out.append('\\n');
        }
        System.out.print(out);
        System.out.flush();
    }
}
""",
    "StateProbe": """
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Writes the kit's state to stderr at every play request (and the trick as the events left it). */
public final class StateProbe implements Hearts.Bot {
    private Map<String, Object> events;

    public static void main(String[] args) {
        Hearts.run(new StateProbe(), args);
    }

    @Override
    public String name() {
        return "state-probe";
    }

    @Override
    public void onMessage(Hearts.State state, Map<String, Object> message) {
        if (!"play_request".equals(message.get("type"))) {
            Map<String, Object> seen = new LinkedHashMap<>();
            seen.put("trick", new ArrayList<>(state.trick));
            seen.put("heartsBroken", state.heartsBroken);
            seen.put("trickNumber", state.trickNumber);
            events = seen;
        }
    }

    @Override
    public List<String> choosePass(Hearts.State state, Hearts.PassRequest request) {
        return request.legal().subList(request.legal().size() - request.count(), request.legal().size());
    }

    @Override
    public String choosePlay(Hearts.State state, Hearts.PlayRequest request) {
        List<String> voids = new ArrayList<>();
        for (Set<Character> suits : state.voids) {
            StringBuilder text = new StringBuilder();
            for (char suit : Hearts.SUITS.toCharArray()) if (suits.contains(suit)) text.append(suit);
            voids.add(text.toString());
        }
        Map<String, Object> seen = new LinkedHashMap<>();
        seen.put("hand", state.hand);
        seen.put("pointsTaken", Arrays.stream(state.pointsTaken).boxed().toList());
        seen.put("scores", Arrays.stream(state.scores).boxed().toList());
        seen.put("seat", state.seat);
        seen.put("events", events);
        seen.put("unseen", state.unseen());
        seen.put("voids", voids);
        seen.put("winning", state.winningSeat());
        seen.put("stillToPlay", state.stillToPlay());
        System.err.println("STATE " + Hearts.Json.write(seen));
        return request.legal().get(request.legal().size() - 1);
    }
}
""",
    "BadBot": """
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Every mistake an author makes: exceptions, illegal answers, a debug print on stdout. */
public final class BadBot implements Hearts.Bot {
    private final boolean strict;

    BadBot(boolean strict) {
        this.strict = strict;
    }

    public static void main(String[] args) {
        Hearts.run(new BadBot(Arrays.asList(args).contains("--strict")), args);
    }

    @Override
    public String name() {
        return "bad-bot";
    }

    @Override
    public boolean strict() {
        return strict;
    }

    @Override
    public void onMessage(Hearts.State state, Map<String, Object> message) {
        System.out.println("debug: got a " + message.get("type"));
    }

    @Override
    public List<String> choosePass(Hearts.State state, Hearts.PassRequest request) {
        throw new IllegalStateException("no pass today");
    }

    @Override
    public String choosePlay(Hearts.State state, Hearts.PlayRequest request) {
        if (request.trick().isEmpty()) return "XX";
        return request.legal().get(request.legal().size() - 1).toLowerCase();
    }

    @Override
    public boolean chooseDeclare(Hearts.State state, Hearts.DeclareRequest request) {
        throw new ArithmeticException("/ by zero");
    }

    @Override
    public String chooseMoon(Hearts.State state, Hearts.MoonRequest request) {
        return "keep_it";
    }
}
""",
}
"""Small programs on the kit's public API, compiled against it with every lint on: a bot author's
code must compile clean too."""


@pytest.fixture(scope="module")
def probes(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The probes' classes, beside the kit's (java -cp KIT:PROBES Name)."""
    where = tmp_path_factory.mktemp("probes")
    for name, source in PROBES.items():
        (where / f"{name}.java").write_text(source)
    sources = [str(where / f"{name}.java") for name in PROBES]
    classes = where / "classes"
    command = ["javac", "-Xlint:all", "-Werror", "-cp", str(folder / "classes"), "-d", str(classes), *sources]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return classes


def probe_command(folder: Path, probes: Path, name: str, *args: str) -> list[str]:
    return ["java", "-cp", f"{folder / 'classes'}{os.pathsep}{probes}", name, *args]


@pytest.fixture
def sample(folder: Path, start: Start) -> BotProcess:
    """The sample bot on pipes (its jar named by path: it does not care where it runs)."""
    return start(["java", "-jar", str(folder / "bot.jar")])


# ---------------------------------------------------------------------------------------------
# The folder and the build
# ---------------------------------------------------------------------------------------------
@pytest.mark.compiler
def test_the_kit_compiles_without_warnings(tmp_path: Path) -> None:
    """Every lint on and warnings as errors: what an author copies should not start them off
    with warnings of ours."""
    folder = copy_kit(tmp_path / "java")
    command = ["javac", "-Xlint:all", "-Werror", "-d", "classes", "Hearts.java", "SampleBot.java"]
    result = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_the_folder_holds_sources_only_and_the_jdk_suffices() -> None:
    """The folder builds from itself (no Maven, no dependency), and its build products are
    ignored by git; the build line in the sources is the one the tests run."""
    sources = sorted(p.name for p in KIT.glob("*.java"))
    assert sources == ["Hearts.java", "SampleBot.java"]
    assert (KIT / ".gitignore").read_text().split() == ["classes/", "bot.jar"]
    for source in sources:
        text = (KIT / source).read_text()
        imports = [line.split()[1] for line in text.splitlines() if line.startswith("import ")]
        assert all(name.startswith("java.") for name in imports), (source, imports)
        assert "package " not in text  # the default package: java -cp classes Name, no folders
    assert BUILD in (KIT / "SampleBot.java").read_text()


# ---------------------------------------------------------------------------------------------
# referee check
# ---------------------------------------------------------------------------------------------
def check(folder: Path, *, variant: str = "american", box: Sandbox | None = None) -> CheckReport:
    """``referee check`` of the documented command, run from inside the built folder."""
    return check_kit(COMMAND, folder, variant=variant, sandbox=box)


@pytest.mark.compiler
@needs_bwrap
def test_built_and_checked_in_the_sandbox_as_a_ladder_does(tmp_path: Path) -> None:
    """The entry a bot list would have (folder, build line, command) built by the referee's
    own build step, sandboxed on a copy of the folder as a uid of its own, then ``referee
    check`` with the JVM and the jar in bubblewrap, seeing that copy: every step passes."""
    copy_kit(tmp_path / "java")
    box = sandbox()
    entry = BotEntry(name="java", folder="java", command=COMMAND, build=BUILD)
    built = build_bot(entry, tmp_path, sandbox=box)
    try:
        assert built.copy is not None and (built.copy / "bot.jar").is_file()
        assert not (tmp_path / "java" / "bot.jar").exists()  # the build wrote only its copy
        report = check(built.folder, box=built.sandbox(box))
    finally:
        if built.copy is not None:
            shutil.rmtree(built.copy, ignore_errors=True)
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict != "pass"] == []
    assert report.exit_code == 0 and report.summary.ok
    assert report.summary.steps == 46
    assert report.summary.decisions > 300
    assert report.name == "java-ducker"
    assert report.sandboxed and report.sandbox.startswith("bubblewrap (")


def test_referee_check_passes_without_a_sandbox(folder: Path) -> None:
    report = check(folder)
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict != "pass"] == ["sandbox.works"]
    assert report.exit_code == 0 and report.summary.ok
    assert report.summary.steps == 46
    assert not report.sandboxed


@pytest.mark.parametrize("variant", ["achterhoeks", "double-deck"])
def test_referee_check_passes_in_other_variants(folder: Path, variant: str) -> None:
    """The general steps in the variant's own rules: the piket deck with declarations, two
    decks with identical cards and six players (Dutch and Black Maria play whole matches
    below; the default check has a round of each variant besides)."""
    report = check(folder, variant=variant)
    assert failures(report) == []
    assert report.variant == variant


# ---------------------------------------------------------------------------------------------
# Whole matches
# ---------------------------------------------------------------------------------------------
def opponent(name: str, seat: int) -> str:
    """A Python sample bot for ``seat`` (a random one seeded with its seat)."""
    return python_bot(name, seat if name == "random" else None)


@pytest.mark.parametrize(
    ("variant", "seat"),
    [("american", 0), ("dutch", 2), ("black-maria", 1)],
)
def test_whole_matches_against_the_python_bots(folder: Path, tmp_path: Path, variant: str, seat: int) -> None:
    """A whole match (to the variant's own end: 100 points, Dutch up and down, Black Maria for
    three) as ``referee match`` plays it, the Java bot started from its folder: every seat ok,
    no fault, a log that verifies move by move, and no kit complaint on its stderr (the sample
    bot never needs a fallback)."""
    rules = ruleset(variant)
    others = itertools.cycle(["random", "heuristic"])
    seats = [COMMAND if s == seat else opponent(next(others), s) for s in range(rules.players)]
    log = tmp_path / "match.jsonl"
    outcome = play(seats, rules, 11, TableOptions(config=ROOMY_MATCH, cwd=ROOT, folders={seat: folder}), log)
    assert [s.status for s in outcome.seats] == ["ok"] * rules.players, outcome.faults
    assert outcome.seats[seat].name == "java-ducker"
    assert outcome.faults == []
    assert outcome.reason in ("target_reached", "reached_zero", "nobody_can_reach_zero", "rounds_played")
    lines = entries(log)
    assert [e for e in lines if e["type"] == "fault"] == []
    assert verified(log) == "verified"
    stderr = next(e for e in lines if e["type"] == "stderr" and e["seat"] == seat)
    assert stderr["text"] == "" and stderr["exit_code"] == 0


# ---------------------------------------------------------------------------------------------
# The sample bot's play
# ---------------------------------------------------------------------------------------------
def test_the_sample_bot_passes_its_highest_cards(sample: BotProcess) -> None:
    assert passed_from_hand(sample) == ["AH", "AS", "KC"]


SAMPLE_PLAYS = [
    (["9D"], ["TD", "KD", "2D"], "2D"),  # the only card that ducks
    (["9S"], ["4S", "8S", "KS"], "8S"),  # the highest card that ducks
    (["9D", "QD"], ["TD", "KD", "AD"], "TD"),  # ducks under the queen
    (["9D"], ["TD", "KD"], "TD"),  # cannot duck, not last: the lowest
    (["9D", "QD", "2D"], ["KD", "AD"], "AD"),  # last to play and must win: the highest
    (["2S", "3S", "4S"], ["5S", "QS"], "5S"),  # ... that costs nothing
    ([], ["5C", "3H", "9S"], "3H"),  # leading: the lowest
    (["9D"], ["4C", "QS", "AH"], "QS"),  # void: the costliest card
    (["9D"], ["4C", "2H", "AH"], "AH"),  # void, equal points: the highest
    (["9D"], ["4C", "KS"], "KS"),  # void, no points: the highest
]


def test_the_sample_bot_ducks_and_discards(sample: BotProcess) -> None:
    """One position per branch of SampleBot.choosePlay, all in one process (a JVM start each
    would be slow): the state it reads (the trick, the seat count) comes from the requests."""
    handshake(sample)
    sample.send(match_start())
    for number, (trick, legal, expected) in enumerate(SAMPLE_PLAYS):
        request = play_request(BIG_ID + number, legal, trick)
        assert check_play(sample.ask(request), request) == expected, (trick, legal)
    sample.send(Goodbye())
    assert sample.wait_exit() == 0


# ---------------------------------------------------------------------------------------------
# The kit's state, fallbacks and JSON
# ---------------------------------------------------------------------------------------------
def expected_state(view: SeatView, scores: list[int], rules: Any) -> dict[str, Any]:
    """What the kit should know at a play request, from the engine's view of the seat."""
    n = view.players
    winning = winning_seat(view, rules)
    return {
        **probe_state(view, scores),
        "unseen": cards_unseen(view, rules),
        "voids": ["".join(s for s in "CDSH" if s in seat_voids) for seat_voids in voids_shown(view)],
        "winning": -1 if winning is None else winning,
        "stillToPlay": [(view.trick_leader + i) % n for i in range(len(view.trick), n)],
    }


@pytest.mark.parametrize("preset", ["american", "double-deck", "black-maria", "dutch"])
def test_the_kit_keeps_the_table_state(folder: Path, probes: Path, start: Start, preset: str) -> None:
    """At every play request the kit's state (hand, points, scores, the trick as the events left
    it, the cards unseen, the voids shown, who is winning, who is still to play) is what the
    engine says the seat knows, over several rounds: passing, the double deck's cancelled
    tricks, three players, the piket deck and the Dutch deal."""
    bot = start(probe_command(folder, probes, "StateProbe"))
    handshake(bot)
    rules = ruleset(preset)
    expected: list[dict[str, Any]] = []
    drive_match(
        bot,
        rules,
        seat=rules.players - 1,
        seed=7,
        max_rounds=3,
        on_play_request=lambda view, scores: expected.append(expected_state(view, scores, rules)),
    )
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    assert_states(states_written(bot.stderr, sort=("hand", "unseen")), expected)


def test_illegal_answers_and_exceptions_cost_a_decision_not_the_match(folder: Path, probes: Path, start: Start) -> None:
    """Each mistake is logged to stderr and replaced by a legal default; a card in lower case is
    read as its code; a debug print lands on stderr, not in the protocol."""
    bot = start(probe_command(folder, probes, "BadBot"))
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    ask_pass = pass_request(1)
    assert check_pass(bot.ask(ask_pass), ask_pass) == HAND[:3]
    lead = play_request(2, ["2C", "5C"], [])
    assert check_play(bot.ask(lead), lead) == "2C"
    follow = play_request(3, ["3D", "8D"], ["TD"])
    assert check_play(bot.ask(follow), follow) == "8D"
    assert bot.ask(declare_request(4)) == Declare(id=4, declare=False)
    moon = moon_request(5, ["subtract_from_shooter", "add_to_others"])
    assert bot.ask(moon) == Moon(id=5, choice="add_to_others")
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    log = bot.stderr
    for needle in (
        "choosePass threw java.lang.IllegalStateException: no pass today",
        "choosePlay returned XX",
        "chooseDeclare threw java.lang.ArithmeticException",
        "chooseMoon returned keep_it",
        "debug: got a hello",
        "debug: got a goodbye",
    ):
        assert needle in log


def test_a_strict_bot_ends_on_its_exception(folder: Path, probes: Path, start: Start) -> None:
    """strict() true is for development: the exception shows at once instead of a fallback."""
    bot = start(probe_command(folder, probes, "BadBot", "--strict"))
    handshake(bot)
    bot.send(match_start())
    bot.send(pass_request(1))
    assert bot.wait_exit() != 0
    assert "IllegalStateException: no pass today" in bot.stderr


DEEP = 32_000
"""Brackets that fill a line of the protocol's length: far deeper than any recursion may go."""
HUGE = "9" * 5000
HOSTILE_LINES: list[bytes] = [
    b"[" * DEEP + b"]" * DEEP,
    b'{"a":' * (DEEP // 5) + b"1" + b"}" * (DEEP // 5),
    b'{"type":"play_request","id":1,"legal":["2C"],"x":' + b"[" * 100 + b"]" * 100 + b"}",
    b'{"type":"play_request","id":1,"legal":["2C"],"x":' + b"[" * DEEP + b"}",
    b'{"type":"news","n":' + HUGE.encode() + b',"e":1e999999999,"f":-0.0e-99999,"g":' + HUGE.encode() + b".5}",
    b'{"type":"play_request","id":1,"legal":["2C"],"x":NaN}',
    b'{"type":"play_request","id":1,"legal":["2C"],"x":Infinity}',
    b'{"type":"news","s":"\\ud83d\\ude00 \\ud800 \\udc00 \\u0000 \\"\\\\\\/\\b\\f\\n\\r\\t"}',
    b'{"type":"news","s":"\\x41"}',
    b'{"type":"news","s":"\\u12"}',
    b'{"type":"news","s":"\\u12G4"}',
    b'{"type":"news","s":"unterminated}',
    b'{"type":"news","s":"tab\there"}',
    b'{"type":"news","s":"\xff\xfe\xc0\xaf"}',
    b'{"type":"news"}\x00',
    b'\xef\xbb\xbf{"type":"news"}',
    b"",
    b"   \t ",
    b"null",
    b"[]",
    b'"play_request"',
    b'{"type":5,"id":1,"legal":["2C"]}',
    b'{"type":"play_request","legal":["2C"]}',
    b'{"type":"play_request","id":"1","legal":["2C"]}',
    b'{"type":"play_request","id":1,"legal":"2C","trick":5}',
    b'{"type":"play_request","id":1}',
    b'{"type":"news"} {"type":"goodbye"}',
    b'{"type":"goodbye",}',
    b'{"type":"goodbye"',
    b'{"type" "goodbye"}',
    b'{"type":"match_start","seat":"x","players":7,"rules":[1],"time":null}',
    b'{"type":"round_start","hand":[1,null,{}],"scores":"high","pass_to":1e99}',
    b'{"type":"card_played","seat":99999999999,"card":7,"trick_number":[]}',
    b'{"type":"card_played","seat":-1,"card":"","trick_number":0}',
    b'{"type":"trick_end","leader":-5,"cards":["AH",3],"winner":1e3,"points":"x"}',
    b'{"type":"declared","seat":4000,"declared":true}',
    b'{"type":"round_end","scores":[' + b",".join([b"1"] * 5000) + b'],"points_taken":{}}',
    b'{"type":"passed","given":"2C","received":null,"hand":"all"}',
    b'{"type":"error","code":7,"message":[],"fatal":"yes"}',
    b'{"type":"news","padding":"' + b"x" * 200_000 + b'"}',
    b"[" * 200_000,
]
"""Lines no referee sends: none may crash the kit, stop it reading or draw an answer. Then the
state they may have disturbed is reset by match_start, as a real match would."""


def test_hostile_lines_do_not_crash_the_bot(sample: BotProcess) -> None:
    handshake(sample)
    sample.send(match_start())
    for line in HOSTILE_LINES:
        sample.send_raw(line + b"\n")
    sample.expect_silence(2.0)
    assert sample.proc.poll() is None, sample.stderr[-3000:]
    # A request whose id is beyond 64 bits: echoed exactly, digit for digit.
    sample.send_raw(b'{"type":"play_request","id":123456789012345678901234567890,"legal":["3D","8D"],"trick":["TD"]}\n')
    reply = sample.receive()
    assert isinstance(reply, Play) and reply.id == 123456789012345678901234567890
    sample.send(match_start(seat=2, match_id="after"))
    request = play_request(BIG_ID, ["4S", "QS"], ["9S"])
    assert check_play(sample.ask(request), request) == "4S"
    sample.send(Goodbye())
    assert sample.wait_exit() == 0
    assert "skipped a line longer than 65536 bytes" in sample.stderr


def run_json_probe(folder: Path, probes: Path, lines: list[str]) -> list[str]:
    assert all("\n" not in line for line in lines)
    result = subprocess.run(
        probe_command(folder, probes, "JsonProbe"),
        input="\n".join(lines).encode(),
        capture_output=True,
        timeout=TIMEOUT * 4,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-3000:]
    out = result.stdout.decode("ascii").split("\n")
    assert out[-1] == ""
    return out[:-1]


def no_lone_surrogates(value: Any) -> Any:
    """Python's json keeps a lone UTF-16 half; the kit writes U+FFFD for it (no text holds one)."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [no_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {no_lone_surrogates(k): no_lone_surrogates(v) for k, v in value.items()}
    return value


def strict_loads(text: str) -> Any:
    """Python's json, without the NaN and Infinity it accepts and JSON does not, and with
    numbers as Decimal: exact, and free of Python's limit on the digits of an int."""

    def refuse(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, parse_constant=refuse, parse_int=Decimal, parse_float=Decimal)


def test_the_json_reader_and_writer_agree_with_python(folder: Path, probes: Path) -> None:
    """What Python's json reads, the kit reads to the same value and writes back as text that
    reads the same (numbers keep their digits); what it refuses, the kit refuses; nesting beyond
    64 levels is refused. Thousands of mutated referee lines as well, none of which may throw
    anything but the reader's own error."""
    cases = [
        '{"type":"hello","versions":[1],"referee":"x"}',
        ' {"a" : [ 1 , -0 , 2.5e-3 , 1E+400 , true , false , null ] , "b" : { } , "c" : [ ] } \r',
        '{"id":9007199254740993,"big":' + HUGE + ',"neg":-' + HUGE + "}",
        '"\\ud83d\\ude00 \\u00e9 \\u2028 \\u0000 \\u001f \\" \\\\ \\/ \\b \\f \\n \\r \\t"',
        '"caf\u00e9 \U0001f600 \u2028"',
        '"\\ud800 and \\udfff alone"',
        '{"dup":1,"dup":2}',
        "[" * 64 + "]" * 64,
        "[" * 65 + "]" * 65,
        '{"a":NaN}',
        "[01]",
        "[1.]",
        "[.5]",
        "[1e]",
        "[+1]",
        '"\\u00G0"',
        '["a" "b"]',
        "[1,]",
        "{} x",
        "",
        "tru",
    ]
    rng = random.Random(5)
    seeds = [codec.encode(m).decode().rstrip("\n") for m in (match_start(), round_start(), play_request(7, ["2C"], []))]
    alphabet = '{}[]",:\\0123456789eE.-+ tfnu'
    for _ in range(3000):
        text = list(rng.choice(seeds))
        for _ in range(rng.randint(1, 3)):
            spot = rng.randrange(len(text))
            action = rng.randrange(3)
            if action == 0:
                del text[spot]
            elif action == 1:
                text.insert(spot, rng.choice(alphabet))
            else:
                text[spot] = rng.choice(alphabet)
        cases.append("".join(text))
    results = run_json_probe(folder, probes, cases)
    assert len(results) == len(cases)
    for text, result in zip(cases, results, strict=True):
        try:
            want = strict_loads(text)
        except ValueError:
            assert result.startswith("ERR "), (text, result)
            continue
        if depth_of(want) > 64:
            assert result.startswith("ERR nested deeper than 64"), (text, result)
            continue
        assert result.startswith("OK "), (text, result)
        assert strict_loads(result[3:]) == no_lone_surrogates(want), text
    assert results[2] == "OK " + cases[2]  # every digit kept


# ---------------------------------------------------------------------------------------------
# TCP
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def tcp_bot(folder: Path, tmp_path: Path) -> Iterator[LaunchTcp]:
    """The sample bot started as a TCP client with arguments, from its folder."""
    with tcp_bots(["java", "-jar", "bot.jar"], folder, tmp_path, TIMEOUT) as launch:
        yield launch


@pytest.mark.parametrize("source", ["option", "file", "environment"])
def test_the_kit_over_tcp_with_a_token(tcp_bot: LaunchTcp, tmp_path: Path, source: str) -> None:
    """The token from --token, from the first line of --token-file, or from $HEARTS_TOKEN goes
    in the hello; the protocol goes over the socket, never to stdout."""
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\nsecond line\n")
    token_file.chmod(0o600)
    args = {"option": ["--token", "s3cret"], "file": ["--token-file", str(token_file)], "environment": []}[source]
    with Listener(TIMEOUT) as referee:
        bot = tcp_bot("--tcp", referee.address, *args, env={"HEARTS_TOKEN": "s3cret"} if not args else None)
        with referee.accept() as connection:
            serve_one_decision(connection, "s3cret", "java-ducker")
        assert bot.wait() == 0
    assert bot.stdout == b"", "the protocol goes over the socket, not stdout"


def test_the_kit_retries_a_referee_that_is_not_there_busy_or_drops_it(tcp_bot: LaunchTcp) -> None:
    """Refused (nobody listening yet), then ``busy``, then a connection closed before the seat:
    each is tried again after a pause, logged, and the fourth connection plays."""
    with Listener(TIMEOUT, listening=False) as referee:  # bound, not listening: connections are refused
        bot = tcp_bot("--tcp", referee.address, "--token", "t0k")
        bot.wait_for("cannot connect to")
        referee.listen()
        with referee.accept() as connection:
            connection.send(Error(code="busy", message="too many connections in their handshake", fatal=True))
        with referee.accept() as connection:  # the bot came back; dropped before its seat, without a word
            connection.send(Hello())
            connection.receive_hello()
        with referee.accept() as connection:  # it came back again
            serve_one_decision(connection, "t0k", "java-ducker")
        assert bot.wait() == 0
    log = bot.stderr
    assert "the referee is busy (too many connections in their handshake); trying again in" in log
    assert "the referee closed the connection; trying again in" in log
    assert "Connection refused); trying again in" in log


@pytest.mark.parametrize("code", ["bad_token", "seat_taken"])
def test_a_refused_token_is_final(tcp_bot: LaunchTcp, code: str) -> None:
    """No retry: the bot exits 1 after the error and has not connected again."""
    with Listener(TIMEOUT) as referee:
        bot = tcp_bot("--tcp", referee.address, "--token", "wrong")
        with referee.accept() as connection:
            connection.send(Hello())
            connection.receive_hello()
            connection.send(Error(code=code, message="no seat has this token", fatal=True))
            assert bot.wait() == 1
        assert referee.nobody_waiting()  # nobody knocked again before the bot exited
    assert f"referee error {code} (fatal): no seat has this token" in bot.stderr


def test_a_real_referee_seats_the_kit_over_tcp(tcp_bot: LaunchTcp) -> None:
    """``referee match tcp:java:TOKEN ...`` as the referee runs it: the kit connects with the
    token from its environment, plays two rounds and exits 0 on goodbye."""
    token = "java-seat-token"
    rules = ruleset("american", {"end": "rounds", "rounds": 2})
    seats = [f"tcp:java:{token}", *(opponent("random", s) for s in (1, 2, 3))]
    started: list[TcpBot] = []

    def on_listening(address: tuple[str, int], _: list[TcpSeat]) -> None:
        started.append(tcp_bot("--tcp", f"127.0.0.1:{address[1]}", env={"HEARTS_TOKEN": token}))

    options = TableOptions(config=ROOMY_MATCH, cwd=ROOT, on_listening=on_listening, connect_timeout=TIMEOUT)
    outcome = play(seats, rules, 3, options)
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    assert outcome.seats[0].name == "java-ducker"
    assert started[0].wait() == 0


def test_the_kit_keeps_the_state_the_vectors_give(folder: Path, probes: Path, start: Start) -> None:
    """docs/vectors (docs/vectors.md): the last seat of every preset's vectors, fed to the probe
    a match after another on one connection; at each play its state (hand, points taken, scores,
    the trick, hearts broken and the trick's number as the events left them) is the vector's."""
    bot = start(probe_command(folder, probes, "StateProbe"))
    handshake(bot)
    expected = feed_probe(bot)
    assert_vector_states(states_written(bot.stderr), expected)
