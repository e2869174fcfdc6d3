"""The Go kit (sample_bots/go: the kit hearts/hearts.go and the sample bot main.go).

The folder is copied once per session under a temporary folder and built there, as an author
would (``go build -o bot .`` from inside it, HOME an empty folder, no module proxy), so no build
product is ever left in the repository; a second program, a state probe written by the tests,
is built in the same copy against the same kit. The tests skip without ``go``.

What is checked: the build and ``go vet``/``gofmt`` are clean and the kit uses the standard
library only; ``referee check`` passes every step in the bubblewrap sandbox and without it, in
several variants; whole matches against the Python sample bots end with every seat ``ok`` and
no fault; the state the kit keeps matches the rules engine's view at every decision; the TCP
client sends its token and retries as the other kits do; hostile lines never stop the bot.
Every wait has a generous limit that only guards against a hang: nothing here judges speed.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from protocol.bot import deck_codes, trick_winner
from protocol.messages import (
    BotHello,
    Declare,
    Goodbye,
    Hello,
    Moon,
    Play,
)
from protocol.ruleset import RuleSet
from referee.check.results import CheckReport
from referee.match.play import TableOptions
from referee.players.tcp import TcpSeat
from referee.rules import SeatView, ruleset
from tests.bot_process import Start
from tests.check.helpers import by_verdict, failures, needs_bwrap, sandbox, step
from tests.hostile_lines import HELLO_LINES, PLAY_LINES
from tests.protocol.table_driver import check_pass, check_play
from tests.sample_bots.bot_matches import ROOMY_MATCH, check_kit, entries, play, python_bot
from tests.sample_bots.kit_driver import (
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
    to_dict,
    voids_shown,
    winning_seat,
)
from tests.sample_bots.tcp_referee import LaunchTcp, Listener, TcpBot, serve_one_decision, tcp_bots
from tests.sample_bots.vectors_feed import assert_vector_states, feed_probe, sorted_passed, sorted_received
from tests.shared import verified
from tests.tiers import starts

pytestmark = pytest.mark.xdist_group("kit-go")
"""One worker runs the file's tests, so the kit is built once a run (pyproject.toml: --dist loadgroup)."""
ROOT = Path(__file__).resolve().parents[2]
GO_FOLDER = ROOT / "sample_bots" / "go"
BUILD_TIMEOUT = 600.0
"""Seconds a build may take: a first build on a cold cache compiles the standard library."""
TIMEOUT = 30.0
"""Seconds to wait for a connection or an exit: a hang guard."""
PYTHON_BOTS = {name: python_bot(name) for name in ("random", "heuristic")}

PROBE = """\
// A bot that reports the kit's state at every play (tests/sample_bots/test_kit_go.py).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"hearts-bot/hearts"
)

type probe struct {
	hearts.BaseBot
	events map[string]interface{}
}

func (p *probe) OnMessage(s *hearts.State, m hearts.Message) {
	if _, ok := m.(*hearts.PlayRequest); !ok { // the state as the events left it
		p.events = map[string]interface{}{
			"trick": append([]string{}, s.Trick...), "heartsBroken": s.HeartsBroken, "trickNumber": s.TrickNumber,
		}
	}
}

func (p *probe) ChoosePass(s *hearts.State, r *hearts.PassRequest) []string {
	return r.Legal[len(r.Legal)-r.Count:]
}

func (p *probe) ChoosePlay(s *hearts.State, r *hearts.PlayRequest) string {
	tricks := [][]interface{}{}
	for _, t := range s.Tricks {
		tricks = append(tricks, []interface{}{t.Leader, t.Cards, t.Winner, t.Points})
	}
	voids := []string{}
	for seat := 0; seat < s.NumPlayers; seat++ {
		v := ""
		for _, suit := range []byte(hearts.Suits) {
			if s.IsVoid(seat, suit) {
				v += string(suit)
			}
		}
		voids = append(voids, v)
	}
	wins := map[string]bool{}
	for _, card := range r.Legal {
		wins[card] = s.WouldWin(card)
	}
	seen := map[string]interface{}{
		"hand": s.Hand, "pointsTaken": s.PointsTaken, "scores": s.Scores, "seat": s.Seat,
		"events": p.events, "tricks": tricks, "unseen": s.Unseen(), "deck": hearts.Deck(&s.Rules),
		"voids": voids, "wouldWin": wins, "declarations": s.Declarations, "winningSeat": s.WinningSeat(),
		"trickPoints": s.TrickPoints(), "numPlayers": s.NumPlayers, "phase": s.MatchPhase,
		"passed": s.Passed, "received": s.Received,
	}
	data, _ := json.Marshal(seen)
	fmt.Fprintf(os.Stderr, "STATE %s\\n", data)
	return r.Legal[len(r.Legal)-1]
}

func main() {
	hearts.Run(&probe{}, hearts.Info{Name: "state-probe"})
}
"""


# ---------------------------------------------------------------------------------------------
# The build
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GoBuild:
    """The session's copy of sample_bots/go, built: the folder, and what vet and gofmt said."""

    folder: Path
    vet: str
    gofmt: str
    deps: list[str]
    env: dict[str, str]

    @property
    def bot(self) -> str:
        return str(self.folder / "bot")

    @property
    def probe(self) -> str:
        return str(self.folder / "probe" / "probe")


def go_run(args: list[str], folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False)


@pytest.fixture(scope="session")
@starts("compiler")
def go_build(tmp_path_factory: pytest.TempPathFactory) -> GoBuild:
    """Copy the folder (without any ``bot`` an author built in place) and build it from inside,
    with HOME an empty folder (the build cache goes there) and the module proxy off: a kit that
    needed anything beyond the standard library would fail here, not fetch it. Folders and
    files are made readable to all, since the sandbox runs the bot as a uid of its own."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not installed")
    base = tmp_path_factory.mktemp("go-kit")
    folder = base / "go"
    shutil.copytree(GO_FOLDER, folder, ignore=shutil.ignore_patterns("bot", "probe"))
    home = base / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GOPROXY": "off"}
    build = go_run([go, "build", "-o", "bot", "."], folder, env)
    assert build.returncode == 0, build.stdout + build.stderr
    vet = go_run([go, "vet", "./..."], folder, env)
    assert vet.returncode == 0, vet.stdout + vet.stderr
    gofmt = shutil.which("gofmt") or str(Path(go).resolve().parent / "gofmt")
    formatted = go_run([gofmt, "-l", "."], folder, env)
    assert formatted.returncode == 0, formatted.stderr
    deps = go_run([go, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./..."], folder, env)
    assert deps.returncode == 0, deps.stderr
    (folder / "probe").mkdir()
    (folder / "probe" / "main.go").write_text(PROBE)
    probe = go_run([go, "build", "-o", "probe/probe", "./probe"], folder, env)
    assert probe.returncode == 0, probe.stdout + probe.stderr
    for path in [base, folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IRGRP | stat.S_IROTH | (0o011 if path.is_dir() else 0))
    return GoBuild(
        folder=folder, vet=vet.stdout + vet.stderr, gofmt=formatted.stdout, deps=deps.stdout.split(), env=env
    )


def test_the_kit_builds_and_vets_clean(go_build: GoBuild) -> None:
    """The folder is what an author copies: one kit file, a module named hearts-bot that
    needs the standard library only, nothing for vet or gofmt to say, and the build product
    ignored by git."""
    assert go_build.vet == ""
    assert go_build.gofmt == ""
    assert sorted(go_build.deps) == ["hearts-bot", "hearts-bot/hearts"]
    assert sorted(p.name for p in (GO_FOLDER / "hearts").iterdir()) == ["hearts.go"]
    assert (GO_FOLDER / "go.mod").read_text().split() == ["module", "hearts-bot", "go", "1.19"]
    assert "/bot" in (GO_FOLDER / ".gitignore").read_text().split()
    assert os.access(go_build.bot, os.X_OK)


# ---------------------------------------------------------------------------------------------
# referee check
# ---------------------------------------------------------------------------------------------
def go_check(go_build: GoBuild, *, variant: str = "american", sandboxed: bool) -> CheckReport:
    """``referee check ./bot`` run from the bot's folder, as a bot list with ``folder`` and
    ``command = "./bot"`` runs it."""
    return check_kit("./bot", go_build.folder, variant=variant, sandbox=sandbox() if sandboxed else None)


@needs_bwrap
def test_check_passes_every_step_in_the_sandbox(go_build: GoBuild) -> None:
    """The way a ladder runs a bot: in bubblewrap, as a uid of its own, its folder read-only."""
    report = go_check(go_build, sandboxed=True)
    assert failures(report) == []
    assert by_verdict(report, "skip") == []
    assert report.exit_code == 0 and report.summary.ok
    assert report.summary.steps == 46
    assert report.summary.decisions > 300
    assert report.name == "go-ducker"
    assert report.sandboxed and report.sandbox.startswith("bubblewrap (")
    assert step(report, "sandbox.works").message.startswith(f"ran in {report.sandbox}: hello after")


def test_check_passes_without_the_sandbox(go_build: GoBuild) -> None:
    """Unsandboxed, as on an author's machine: every step but the sandbox's own passes."""
    report = go_check(go_build, sandboxed=False)
    assert failures(report) == []
    assert by_verdict(report, "skip") == ["sandbox.works"]
    assert report.exit_code == 0 and report.summary.ok


@pytest.mark.parametrize(
    "variant", ["dutch", "black-maria", "achterhoeks", "double-deck", "american-moon-choice", "omnibus", "american-5"]
)
def test_check_passes_in_other_variants(go_build: GoBuild, variant: str) -> None:
    """The general steps under each variant's own rules: its deck, players, passing,
    declarations and moon."""
    report = go_check(go_build, variant=variant, sandboxed=False)
    assert failures(report) == []
    assert report.variant == variant


# ---------------------------------------------------------------------------------------------
# Whole matches against the Python sample bots
# ---------------------------------------------------------------------------------------------
KIT_COMPLAINTS = ("panicked", "returned", "cannot read", "ignoring", "without", "skipping")
"""What the kit logs when it had to replace an answer or could not read a line: a clean match
has none of it (the kit would otherwise hide an illegal answer from the referee)."""


@pytest.mark.parametrize(
    ("variant", "opponents"),
    [
        ("american", ["random", "heuristic", "random"]),
        ("dutch", ["heuristic", "random", "heuristic"]),
        ("black-maria", ["heuristic", "random"]),
    ],
)
def test_whole_matches_against_the_python_bots(
    go_build: GoBuild, tmp_path: Path, variant: str, opponents: list[str]
) -> None:
    """A whole match to its end (no round limit): every seat stays ``ok``, the log holds no
    fault or fallback and verifies move by move, and the Go bot's stderr holds no complaint of
    the kit, so every answer was the bot's own and legal."""
    log = tmp_path / "match.jsonl"
    seats = [go_build.bot, *(PYTHON_BOTS[o] for o in opponents)]
    outcome = play(seats, ruleset(variant), 11, TableOptions(config=ROOMY_MATCH, cwd=ROOT), log)
    assert [s.status for s in outcome.seats] == ["ok"] * len(outcome.seats)
    assert outcome.faults == []
    assert outcome.reason in ("target_reached", "reached_zero", "nobody_can_reach_zero", "rounds_played")
    assert outcome.seats[0].name == "go-ducker"
    lines = entries(log)
    assert [e for e in lines if e["type"] in ("fault", "fallback")] == []
    assert verified(log) == "verified"
    stderr = next(e for e in lines if e["type"] == "stderr" and e["seat"] == 0)
    text = json.dumps(stderr)
    assert not [word for word in KIT_COMPLAINTS if word in text], text


# ---------------------------------------------------------------------------------------------
# The bot and the kit on pipes
# ---------------------------------------------------------------------------------------------
def test_the_bot_passes_its_highest_cards(start: Start, go_build: GoBuild) -> None:
    bot = start([go_build.bot])
    assert passed_from_hand(bot) == ["AH", "AS", "KC"]


@pytest.mark.parametrize(
    ("trick", "legal", "expected"),
    [
        (["9D"], ["TD", "KD", "2D"], "2D"),  # the only card that ducks
        (["9D"], ["3D", "5D", "8D"], "8D"),  # every card ducks: the highest
        (["9D"], ["TD", "KD"], "TD"),  # cannot duck: the lowest
        (["9D", "QD"], ["TD", "KD", "AD"], "TD"),  # ducks under the queen
        ([], ["5C", "3H", "9S"], "3H"),  # leading: every card wins so far, so the lowest
        (["9D"], ["QS", "AH", "4C"], "QS"),  # void: sheds the card worth most
        (["9D"], ["AS", "2H", "4C"], "2H"),  # a heart before a higher card worth nothing
        (["KS"], ["QS", "2S", "AS"], "QS"),  # the queen under the king
    ],
)
def test_the_bot_ducks_with_its_most_dangerous_card(
    start: Start, go_build: GoBuild, trick: list[str], legal: list[str], expected: str
) -> None:
    """The sample's play, which an author starts from: it reads the state's trick (from the
    request) through WouldWin and the points through CardPoints."""
    bot = start([go_build.bot])
    handshake(bot)
    bot.send(match_start())
    request = play_request(1, legal, trick)
    assert check_play(bot.ask(request), request) == expected


def test_ids_beyond_float_precision_are_echoed_exactly(start: Start, go_build: GoBuild) -> None:
    """2**53 + 1 and 2**63 - 1 do not survive a float64: the kit decodes ids as int64."""
    bot = start([go_build.bot])
    handshake(bot)
    bot.send(match_start())
    for request_id in (2**53 + 1, 2**63 - 1, 1):
        bot.send_dict({**to_dict(play_request(1, ["2C"], [])), "id": request_id})
        reply = bot.receive()
        assert isinstance(reply, Play)
        assert reply.id == request_id


def test_illegal_answers_and_panics_are_replaced(start: Start, go_build: GoBuild, tmp_path: Path) -> None:
    """A bot whose choices are illegal or panic still answers legally, with the kit's
    default, and says why on stderr; its next decisions are its own again."""
    folder = tmp_path / "faulty"
    shutil.copytree(go_build.folder, folder, ignore=shutil.ignore_patterns("bot", "probe"))
    (folder / "main.go").write_text(FAULTY)
    go = shutil.which("go")
    assert go is not None
    build = go_run([go, "build", "-o", "bot", "."], folder, go_build.env)
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
    declare = declare_request(5)
    assert bot.ask(declare) == Declare(id=5, declare=False)  # it panicked: no declaration
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


FAULTY = """\
package main

import "hearts-bot/hearts"

type faulty struct{ hearts.BaseBot }

func (faulty) ChoosePass(s *hearts.State, r *hearts.PassRequest) []string { return r.Legal[:1] }

func (faulty) ChoosePlay(s *hearts.State, r *hearts.PlayRequest) string {
	switch r.ID {
	case 2:
		panic("on purpose")
	case 3:
		return "2C"
	}
	return "qs"
}

func (faulty) ChooseDeclare(s *hearts.State, r *hearts.DeclareRequest) bool {
	var declarations []bool
	return declarations[3]
}

func (faulty) ChooseMoon(s *hearts.State, r *hearts.MoonRequest) string { return "win" }

func main() { hearts.Run(faulty{}, hearts.Info{Name: "faulty"}) }
"""


# ---------------------------------------------------------------------------------------------
# The state the kit keeps
# ---------------------------------------------------------------------------------------------
def expected_state(view: SeatView, scores: list[int], rules: RuleSet) -> dict[str, Any]:
    """What the probe should report, from the engine's view of the seat and the Python kit's
    helpers (the deck and the trick winner)."""
    n = rules.players
    winner = winning_seat(view, rules)
    return {
        **probe_state(view, scores),
        "tricks": [[t.leader, t.cards, -1 if t.winner is None else t.winner, t.points] for t in view.tricks],
        "unseen": cards_unseen(view, rules),
        "deck": deck_codes(rules),
        "voids": ["".join(s for s in "CDSH" if s in v) for v in voids_shown(view)],
        "wouldWin": {
            card: trick_winner([*view.trick, card], rules.identical_cards) == len(view.trick) for card in view.legal
        },
        "declarations": view.declared,
        "winningSeat": -1 if winner is None else winner,
        "trickPoints": sum(rules.card_points.get(c, 0) for c in view.trick),
        "numPlayers": n,
        "phase": view.match_phase,
        "passed": view.passed or [],
        "received": view.received or [],
    }


@pytest.mark.parametrize(
    "preset",
    ["american", "american-3", "double-deck", "achterhoeks", "dutch", "black-maria", "omnibus", "american-moon-choice"],
)
def test_the_kit_keeps_the_table_state(start: Start, go_build: GoBuild, preset: str) -> None:
    """At every play of a few rounds driven by the rules engine (two matches on one
    connection, another seat each), the probe's state is the engine's view of its seat:
    hand, trick, tricks, points, scores, voids, the unseen cards, WouldWin and more."""
    bot = start([go_build.probe])
    handshake(bot)
    rules = ruleset(preset)
    expected: list[dict[str, Any]] = []

    def record(view: SeatView, scores: list[int]) -> None:
        expected.append(expected_state(view, scores, rules))

    for number, seat in enumerate((1, rules.players - 1)):
        drive_match(bot, rules, seat=seat, seed=7 + number, max_rounds=3, on_play_request=record, match_id=f"m{number}")
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    assert_states(states_written(bot.stderr, sort=("hand", "unseen")), expected)


# ---------------------------------------------------------------------------------------------
# Hostile lines
# ---------------------------------------------------------------------------------------------
def hostile_lines() -> list[bytes]:
    """Lines no referee sends, each meant to trip a reader: nesting deeper than the protocol
    allows (within Go's own limit and past it), numbers no integer holds, escapes, invalid
    UTF-8, wrong types, absurd seats and counts, unknown types, non-objects, an overlong
    line, and the hostile bot lines the referee's own tests use."""
    deep = 1000
    too_deep = 30_000  # past encoding/json's 10,000 levels, still within the line limit
    play = b'{"type":"play_request","id":900001,"legal":["2C"],"trick":[],"leader":1,"trick_number":0,'
    play += b'"hearts_broken":false,"time":{"decision_ms":1000,"bank_ms":1000}'
    start = to_dict(match_start())
    lines = [
        b"[" * deep + b"]" * deep,
        b'{"a":' * deep + b"1" + b"}" * deep,
        b"[" * too_deep + b"]" * too_deep,
        b'{"type":"news","x":' + b"[" * too_deep + b"]" * too_deep + b"}",
        play + b',"x":' + b"[" * deep + b"]" * deep + b"}",
        play + b',"x":' + b"[" * too_deep + b"]" * too_deep + b"}",
        play.replace(b"900001", b"9" * 5000) + b"}",
        play.replace(b"900001", b"1e999") + b"}",
        play.replace(b"900001", b"1.5") + b"}",
        play.replace(b"900001", b"9223372036854775808") + b"}",
        play.replace(b"900001", b'"900001"') + b"}",
        play.replace(b'"legal":["2C"]', b'"legal":"2C"') + b"}",
        play.replace(b'"legal":["2C"]', b'"legal":[]') + b"}",
        play.replace(b'"legal":["2C"]', b'"legal":["\\u0032C"]') + b"}",
        play.replace(b'"legal":["2C"]', b'"legal":["\\ud800","\\u0000","\xff\xfe"]') + b"}",
        play.replace(b'"trick":[]', b'"trick":[' + b'"QS",' * 10_000 + b'"QS"]') + b"}",
        play.replace(b'"leader":1', b'"leader":-99999999999') + b"}",
        play.replace(b"play_request", b"pl\\u0061y_request") + b"}",
        b'{"type":"card_played","seat":0,"card":"2C","trick_number":0,"x":1e999,"y":' + b"9" * 5000 + b"}",
        b'{"type":"card_played","seat":1000000000,"card":"2C","trick_number":0}',
        b'{"type":"card_played","seat":-5,"card":"","trick_number":-1}',
        b'{"type":"card_played","seat":' + b"9" * 40 + b',"card":"QS","trick_number":0}',
        b'{"type":"trick_end","trick_number":0,"leader":-7,"cards":["2C","3C"],"winner":1000000000,"points":1}',
        b'{"type":"trick_end","trick_number":0,"leader":3,"cards":[' + b'"2C",' * 5000 + b'"2C"],"winner":-1}',
        b'{"type":"declared","seat":1000000000,"declared":true}',
        b'{"type":"declare_request","id":900002,"declarations":[' + b"true," * 10_000 + b'null],"points":10}',
        b'{"type":"pass_request","id":900003,"count":5,"legal":["2C"],"to_seat":2}',
        b'{"type":"pass_request","id":900004,"count":-3,"legal":["2C"],"to_seat":2}',
        b'{"type":"pass_request","id":900005,"count":1e3,"legal":["2C"],"to_seat":2}',
        b'{"type":"moon_request","id":900006,"options":[],"points":26}',
        b'{"type":"moon_request","id":900007,"options":["\\u0000",5],"points":26}',
        b'{"type":"round_start","round":0,"dealer":99,"hand":null,"pass_to":-4,"scores":[' + b"1," * 20_000 + b"1]}",
        b'{"type":"round_end","scores":[1,2],"points_taken":null,"next_match_phase":' + b"9" * 30 + b"}",
        b'{"type":"match_end","scores":"x","winners":[' + b"-1," * 1000 + b"1]}",
        b'{"type":"error","code":"news","message":"not fatal: a string","fatal":"yes"}',
        b'{"type":"error","code":' + b"[" * deep + b"]" * deep + b',"fatal":null}',
        json.dumps({**start, "rules": {**start["rules"], "players": 10**9, "copies": 10**9}}).encode(),
        json.dumps({**start, "seat": -3, "rules": {"players": -1, "card_points": {"2C": 10**30}}}).encode(),
        json.dumps({**start, "players": [{"seat": i, "name": "x"} for i in range(1500)], "rules": None}).encode(),
        json.dumps({**start, "rules": "american"}).encode(),
        b'{"type":"weather","x":1}',
        b'{"type":"play_request_v2","id":5,"legal":["2C"]}',
        b'{"type":""}',
        b'{"type":null,"id":5}',
        b'{"type":5,"id":5}',
        b'{"type":["play_request"],"id":5,"legal":["2C"]}',
        b'{"type":{"a":1},"id":5}',
        b'{"id":5,"legal":["2C"]}',
        b"null",
        b"[]",
        b'"play_request"',
        b"123",
        b"true",
        b"",
        b"  \t ",
        b"\xef\xbb\xbf" + json.dumps(to_dict(play_request(900008, ["2C"], []))).encode(),
        b'{"type":"play_request","id":900009,"legal":[NaN]}',
        b'{"type":"weather"} trailing',
        b'{"type":"weather"',
        b"\x00\x01\x02\xff",
        b'{"type":"weather","x":"' + b'\\u00e9\\ud83d\\ude00\\n\\t\\\\\\"' * 100 + b'"}',
        b'{"type":"news","padding":"' + b"x" * 70_000 + b'"}',  # past the line limit: skipped
    ]
    for table in (PLAY_LINES, HELLO_LINES):
        lines += [line.replace(b"{id}", b"900010") for line, _ in table.values()]
    return lines


def test_hostile_lines_do_not_stop_the_bot(start: Start, go_build: GoBuild) -> None:
    """After each hostile line comes a real request, which must get its right answer. A line
    the kit can still read as a request or a hello may be answered too, with a valid message
    (the kit is lenient, not strict); nothing else may come out, and the bot must live on and
    exit 0 on goodbye."""
    bot = start([go_build.bot])
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    for number, line in enumerate(hostile_lines()):
        assert b"\n" not in line
        bot.send_raw(line + b"\n")
        ping = play_request(10**12 + number, ["2C", "3C"], [])
        bot.send(ping)
        for _ in range(5):
            reply = bot.receive()  # a valid bot message within the hang guard, or the test fails
            if getattr(reply, "id", None) == ping.id:
                break
            assert getattr(reply, "id", 900001) >= 900001 or isinstance(reply, BotHello), (number, reply)
        else:
            pytest.fail(f"line {number}: no answer to the request after it")
        check_play(reply, ping)
        assert bot.proc.poll() is None, f"line {number} ended the bot"
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    bot.expect_end_of_output()


# ---------------------------------------------------------------------------------------------
# TCP
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def tcp_bot(tmp_path: Path, go_build: GoBuild) -> Iterator[LaunchTcp]:
    """The Go bot started as a TCP client with arguments, from its folder."""
    with tcp_bots([go_build.bot], go_build.folder, tmp_path, TIMEOUT) as launch:
        yield launch


@pytest.mark.parametrize("given", ["flag", "inline", "file", "environment"])
def test_the_kit_over_tcp_sends_its_token(tcp_bot: LaunchTcp, tmp_path: Path, given: str) -> None:
    """The token from --token, --token=, --token-file (first line) or HEARTS_TOKEN goes in
    the hello; the protocol goes over the socket, never stdout; goodbye ends the bot with 0."""
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-file\nsecond line\n")
    token_file.chmod(0o600)
    with Listener(TIMEOUT) as referee:
        address = referee.address
        args, env, token = {
            "flag": (["--tcp", address, "--token", "s3cret"], None, "s3cret"),
            "inline": ([f"--tcp={address}", "--token=s3cret=x"], None, "s3cret=x"),
            "file": (["--tcp", address, "--token-file", str(token_file)], None, "s3cret-file"),
            "environment": (["--tcp", address], {"HEARTS_TOKEN": "s3cret-env"}, "s3cret-env"),
        }[given]
        bot = tcp_bot(*args, env=env)
        with referee.accept() as connection:
            serve_one_decision(connection, token, "go-ducker")
        assert bot.wait() == 0
    assert bot.stdout == b""


def test_the_kit_retries_until_the_referee_seats_it(tcp_bot: LaunchTcp) -> None:
    """Not listening yet, then ``busy`` before the hello, then a connection dropped after the
    bot's hello but before its seat: three retries, each logged, then the match."""
    with Listener(TIMEOUT, listening=False) as referee:  # bound, not listening: connections are refused
        bot = tcp_bot("--tcp", referee.address, "--token", "t0k")
        bot.wait_for("cannot connect")
        referee.listen()
        with referee.accept() as connection:
            connection.send_raw(b'{"type":"error","code":"busy","message":"too many","fatal":true}\n')
        with referee.accept() as connection:
            connection.send(Hello())
            connection.receive_hello()
        with referee.accept() as connection:
            serve_one_decision(connection, "t0k", "go-ducker")
        assert bot.wait() == 0
    stderr = bot.stderr
    refused = stderr.count("cannot connect to")  # once at least; more on a busy machine before listen()
    assert refused >= 1 and stderr.count("trying again in") == refused + 2, stderr
    assert "the referee is busy (too many)" in stderr
    assert "the referee closed the connection; trying again" in stderr


@pytest.mark.parametrize("code", ["bad_token", "seat_taken"])
def test_a_refused_token_is_final(tcp_bot: LaunchTcp, code: str) -> None:
    """``bad_token`` and ``seat_taken`` are not retried: the bot exits 1 and never connects
    again (after its exit no connection waits in the listen queue)."""
    with Listener(TIMEOUT) as referee:
        bot = tcp_bot("--tcp", referee.address, "--token", "wrong")
        with referee.accept() as connection:
            connection.send(Hello())
            connection.receive_hello()
            error = {"type": "error", "code": code, "message": "no", "fatal": True, "request_id": None}
            connection.send_raw(json.dumps(error).encode() + b"\n")
            assert bot.wait() == 1
        assert referee.nobody_waiting()
    assert "trying again" not in bot.stderr
    assert f"referee error {code} (fatal): no" in bot.stderr


def test_no_retries_with_retry_for_zero(tcp_bot: LaunchTcp) -> None:
    with Listener(TIMEOUT, listening=False) as closed:
        bot = tcp_bot("--tcp", closed.address, "--retry-for", "0")
        assert bot.wait() == 1
    assert "giving up after 0s" in bot.stderr
    assert "trying again" not in bot.stderr


@pytest.mark.parametrize("args", [["--tcp"], ["--tcp", "nowhere"], ["--tcp", "h:1", "--retry-for", "-1"]])
def test_a_bad_command_line_exits_2(tcp_bot: LaunchTcp, args: list[str]) -> None:
    assert tcp_bot(*args).wait() == 2


def test_a_match_over_tcp_against_the_referee(tcp_bot: LaunchTcp, tmp_path: Path) -> None:
    """The real referee with a ``tcp:`` seat: the bot, given the token in a file, connects,
    plays two rounds and exits 0 on goodbye; every seat ``ok``."""
    token_file = tmp_path / "token"
    token_file.write_text("go-tcp-token\n")
    token_file.chmod(0o600)
    seats = ["tcp:go:go-tcp-token", PYTHON_BOTS["random"], PYTHON_BOTS["heuristic"], PYTHON_BOTS["random"]]
    rules = ruleset("american", {"end": "rounds", "rounds": 2})
    started: list[TcpBot] = []

    def on_listening(address: tuple[str, int], _: list[TcpSeat]) -> None:
        started.append(tcp_bot("--tcp", f"{address[0]}:{address[1]}", "--token-file", str(token_file)))

    outcome = play(seats, rules, 5, TableOptions(config=ROOMY_MATCH, cwd=ROOT, on_listening=on_listening))
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    assert outcome.seats[0].name == "go-ducker"
    assert outcome.faults == []
    assert started[0].wait() == 0, started[0].stderr
    assert started[0].stdout == b""


def test_the_repository_holds_no_build_product_of_these_tests() -> None:
    """The builds happen in copies: whatever ``bot`` an author may keep in the folder, the
    probe, which only these tests build, is never in it."""
    assert not (GO_FOLDER / "probe").exists()


def test_the_kit_keeps_the_state_the_vectors_give(start: Start, go_build: GoBuild) -> None:
    """docs/vectors (docs/vectors.md): the last seat of every preset's vectors, fed to the probe
    a match after another on one connection; at each play its state (hand, points taken, scores,
    the trick, hearts broken and the trick's number as the events left them) is the vector's."""
    bot = start([go_build.probe])
    handshake(bot)
    expected = feed_probe(bot)
    extra = {"declarations": lambda s: s.declared, "phase": lambda s: s.match_phase}
    extra |= {"passed": sorted_passed, "received": sorted_received}
    assert_vector_states(states_written(bot.stderr), expected, extra=extra)
