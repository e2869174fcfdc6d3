"""What only one kit has, beside the kits' shared suite (``test_kits.py``): each test runs for
the one kit it names (``only``), with the same builds and marks as the shared tests.

- C++: a header-only kit links into several files; the sanitizer build through ``referee
  check``; a probe that throws (an exception, an int) or answers illegally in every method, and
  a strict one.
- Go: a module on the standard library alone; a bot whose choices panic or are illegal.
- Java: sources in the default package on the JDK alone; the kit's own JSON reader and writer
  against Python's; a bot that makes every mistake, and a strict one.
- Rust: clippy and the kit's own unit tests (``cargo test``); a buggy bot through whole matches.
- The bot list (``sample_bots/bots.toml``) that names the sample bots.
"""

from __future__ import annotations

import json
import random
import shlex
import shutil
import subprocess
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from protocol import codec
from protocol.messages import Declare, Goodbye, Moon
from referee.rules import ruleset
from tests.bot_process import Start
from tests.check.helpers import failures
from tests.hostile_lines import depth_of
from tests.protocol.table_driver import check_pass, check_play
from tests.sample_bots.bot_matches import check_kit
from tests.sample_bots.kit_driver import (
    ENGINE_PRESETS,
    HAND,
    declare_request,
    drive_match,
    handshake,
    match_start,
    moon_request,
    pass_request,
    play_request,
    round_start,
)
from tests.sample_bots.kits import Built, Kit, only
from tests.sample_bots.kits.cpp import assert_no_sanitizer_report
from tests.sample_bots.kits.go import go
from tests.sample_bots.kits.hostile import HUGE
from tests.sample_bots.kits.java import another
from tests.sample_bots.kits.rust import cargo, example
from tests.sample_bots.kits.spec import PROBES, ROOT, run


# ---------------------------------------------------------------------------------------------
# C++
# ---------------------------------------------------------------------------------------------
@only("cpp")
def test_the_makefile_runs_the_documented_line(kit: Kit) -> None:
    makefile = (kit.folder / "Makefile").read_text()
    assert "-std=c++17 -O2 -Wall -Wextra" in makefile
    assert "-o $@ bot.cpp" in makefile


@only("cpp")
@pytest.mark.compiler
def test_the_header_links_into_two_files_under_stricter_warnings(kit: Kit, tmp_path: Path) -> None:
    """Header-only means every function is inline: a bot split into several .cpp files that
    each include the kit must link (no duplicate symbols), and pedantic and shadowing warnings
    stay quiet too."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    (tmp_path / "one.cpp").write_text('#include "hearts.hpp"\nint one() { return hearts::rankOf("QS"); }\n')
    (tmp_path / "two.cpp").write_text(
        '#include "hearts.hpp"\n#include "hearts.hpp"\nint one();\n'
        "int main() { return one() == 12 && hearts::suitOf(\"QS\") == 'S' ? 0 : 1; }\n"
    )
    flags = ["-std=c++17", "-O0", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror", f"-I{kit.folder}"]
    result = run(["g++", *flags, "-o", "two", "one.cpp", "two.cpp"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert subprocess.run([str(tmp_path / "two")], timeout=kit.timeout, check=False).returncode == 0


@only("cpp")
def test_check_passes_under_the_sanitizers(probe: list[str]) -> None:
    """Every step of the check, the hostile ones included, run by the sanitizer build: a report
    would abort the program and fail its step (a leak found at exit changes the exit status)."""
    program = Path(probe[0])
    report = check_kit(f"./{program.name}", program.parent)
    assert failures(report) == []
    for step in report.steps:
        assert_no_sanitizer_report(step.stderr)


@only("cpp")
@pytest.mark.parametrize("mode", ["throw", "throw_int", "illegal", "lower"])
def test_bad_answers_are_logged_and_replaced(start: Start, probe: list[str], mode: str) -> None:
    """A choose method that throws or answers something illegal costs a decision, not the
    match: the kit logs it and sends the first legal cards (a lower-case code is accepted as
    the card it names). Stray std::cout and printf output goes to stderr."""
    bot = start(probe, env={"PROBE_MISBEHAVE": mode})
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    ask_pass = pass_request(1)
    passed = check_pass(bot.ask(ask_pass), ask_pass)
    play = play_request(2, ["2D", "TD", "AD"], ["9D"])
    card = check_play(bot.ask(play), play)
    assert bot.ask(declare_request(3)) == Declare(id=3, declare=False)
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


@only("cpp")
def test_a_strict_cpp_bot_ends_on_its_exception(start: Start, probe: list[str]) -> None:
    """``strict = true``: the exception ends the program (status 1) instead of a default."""
    bot = start(probe, env={"PROBE_MISBEHAVE": "throw_in_choosePlay", "PROBE_STRICT": "1"})
    handshake(bot)
    bot.send(match_start())
    bot.send(play_request(2, ["2D", "AD"], ["9D"]))
    assert bot.wait_exit() == 1
    assert bot.rest_of_output() == []
    assert "the bot threw" in bot.stderr
    assert_no_sanitizer_report(bot.stderr)


# ---------------------------------------------------------------------------------------------
# Go
# ---------------------------------------------------------------------------------------------
@only("go")
def test_the_go_kit_needs_the_standard_library_only(kit: Kit, built: Built) -> None:
    """The folder is what an author copies: one kit file, a module named hearts-bot that needs
    the standard library only."""
    standard = "{{if not .Standard}}{{.ImportPath}}{{end}}"
    deps = run([go(), "list", "-deps", "-f", standard, "./..."], built.folder, built.env)
    assert deps.returncode == 0, deps.stderr
    assert sorted(deps.stdout.split()) == ["hearts-bot", "hearts-bot/hearts"]
    assert sorted(p.name for p in (kit.folder / "hearts").iterdir()) == ["hearts.go"]
    assert (kit.folder / "go.mod").read_text().split() == ["module", "hearts-bot", "go", "1.19"]


@only("go")
def test_illegal_answers_and_panics_are_replaced(start: Start, built: Built, tmp_path: Path) -> None:
    """A bot whose choices are illegal or panic (``probes/faulty.go``) still answers legally,
    with the kit's default, and says why on stderr; its next decisions are its own again."""
    folder = tmp_path / "faulty"
    shutil.copytree(built.folder, folder, ignore=shutil.ignore_patterns("bot", "probe"))
    (folder / "main.go").write_text((PROBES / "faulty.go").read_text())
    build = run([go(), "build", "-o", "bot", "."], folder, built.env)
    assert build.returncode == 0, build.stdout + build.stderr
    bot = start([str(folder / "bot")])
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    passing = pass_request(1)
    assert check_pass(bot.ask(passing), passing) == HAND[:3]  # it passed one card: the first three
    panics = play_request(2, ["3D", "8D"], ["TD"])
    assert check_play(bot.ask(panics), panics) == "3D"  # it panicked: the first legal card
    illegal = play_request(3, ["4S", "QS"], ["9S"])
    assert check_play(bot.ask(illegal), illegal) == "4S"  # it played the 2C: not legal
    lower = play_request(4, ["4S", "QS"], ["9S"])
    assert check_play(bot.ask(lower), lower) == "QS"  # its own answer, "qs", written as the referee does
    assert bot.ask(declare_request(5)) == Declare(id=5, declare=False)  # it panicked: no declaration
    moon = moon_request(6, ["subtract_from_shooter"])
    assert bot.ask(moon) == Moon(id=6, choice="subtract_from_shooter")  # "win" is no option
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    stderr = bot.stderr
    assert "ChoosePass returned" in stderr
    assert "ChoosePlay panicked: on purpose" in stderr
    assert 'ChoosePlay returned "2C"' in stderr
    assert "ChooseDeclare panicked" in stderr
    assert 'ChooseMoon returned "win"' in stderr


# ---------------------------------------------------------------------------------------------
# Java
# ---------------------------------------------------------------------------------------------
@only("java")
def test_the_java_sources_need_the_jdk_only(kit: Kit) -> None:
    """The folder builds from itself (no Maven, no dependency): two sources in the default
    package (``java -cp classes Name``, no folders), importing java.* alone."""
    sources = sorted(p.name for p in kit.folder.glob("*.java"))
    assert sources == ["Hearts.java", "SampleBot.java"]
    for source in sources:
        text = (kit.folder / source).read_text()
        imports = [line.split()[1] for line in text.splitlines() if line.startswith("import ")]
        assert all(name.startswith("java.") for name in imports), (source, imports)
        assert "package " not in text


@only("java")
def test_illegal_answers_and_exceptions_cost_a_decision_not_the_match(start: Start, probe: list[str]) -> None:
    """Each mistake of ``probes/BadBot.java`` is logged to stderr and replaced by a legal
    default; a card in lower case is read as its code; a debug print lands on stderr, not in
    the protocol."""
    bot = start(another(probe, "BadBot"))
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


@only("java")
def test_a_strict_java_bot_ends_on_its_exception(start: Start, probe: list[str]) -> None:
    """strict() true is for development: the exception shows at once instead of a fallback."""
    bot = start(another(probe, "BadBot", "--strict"))
    handshake(bot)
    bot.send(match_start())
    bot.send(pass_request(1))
    assert bot.wait_exit() != 0
    assert "IllegalStateException: no pass today" in bot.stderr


def run_json_probe(probe: list[str], lines: list[str], timeout: float) -> list[str]:
    assert all("\n" not in line for line in lines)
    result = subprocess.run(
        another(probe, "JsonProbe"), input="\n".join(lines).encode(), capture_output=True, timeout=timeout, check=False
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


JSON_CASES = [
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
"""Lines for the JSON reader: every kind of value, escapes and surrogates, numbers beyond any
integer, nesting at the bound and past it, and what is not JSON."""


def mutated_referee_lines(count: int) -> list[str]:
    """Referee lines with a few characters deleted, inserted or replaced (seeded)."""
    rng = random.Random(5)
    seeds = [codec.encode(m).decode().rstrip("\n") for m in (match_start(), round_start(), play_request(7, ["2C"], []))]
    alphabet = '{}[]",:\\0123456789eE.-+ tfnu'
    cases = []
    for _ in range(count):
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
    return cases


@only("java")
def test_the_json_reader_and_writer_agree_with_python(kit: Kit, probe: list[str]) -> None:
    """What Python's json reads, the kit reads to the same value and writes back as text that
    reads the same (numbers keep their digits); what it refuses, the kit refuses; nesting beyond
    64 levels is refused. Thousands of mutated referee lines as well, none of which may throw
    anything but the reader's own error."""
    cases = [*JSON_CASES, *mutated_referee_lines(3000)]
    results = run_json_probe(probe, cases, kit.timeout * 4)
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
# Rust
# ---------------------------------------------------------------------------------------------
@only("rust")
def test_clippy_finds_nothing(built: Built) -> None:
    """Clippy's default lints, as errors, on the kit, the bot and the kit's own unit tests."""
    if cargo(built, "clippy", "--version").returncode != 0:
        pytest.skip("clippy is not installed")
    result = cargo(built, "clippy", "--release", "--offline", "--bins", "--tests", "--", "-D", "warnings")
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr


@only("rust")
def test_the_rust_kits_unit_tests_pass(built: Built) -> None:
    """``cargo test``: the JSON reader on exact inputs (escapes, surrogate pairs, big integers,
    depth, what is not JSON), bounded line reading, card helpers, decks and a scripted session."""
    result = cargo(built, "test", "--release", "--offline")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "test result: ok" in result.stdout, result.stdout


@only("rust")
@pytest.mark.parametrize("preset", [*ENGINE_PRESETS, "american-moon-choice"])
def test_panics_and_illegal_answers_are_replaced(built: Built, probe: list[str], start: Start, preset: str) -> None:
    """A bot that panics or answers illegally in every method (``probes/buggy.rs``, built with
    the probe) still answers every request legally and stays alive; the kit says on stderr
    what it replaced."""
    bot = start(example(built, "buggy"))
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
# The bot list
# ---------------------------------------------------------------------------------------------
def test_bots_toml_lists_every_sample_bot() -> None:
    with (ROOT / "sample_bots" / "bots.toml").open("rb") as file:
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
