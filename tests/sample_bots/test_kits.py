"""Every bot kit (C++, Go, Java, Rust, JavaScript) and the sample C bot, one suite: each test
takes a ``kit`` (``tests/sample_bots/kits``) and runs for every kit that can do what it checks
(``tests/sample_bots/conftest.py``): its folder and build, ``referee check`` in the sandbox and
without, whole matches through the referee, its sample bot's choices, the protocol on pipes
(scripted rounds, unknown fields, errors, the end of input), the table state the kit keeps
against the rules engine and the vectors, hostile lines, and its TCP client. What a single
kit has that the others do not is in ``test_kit_only.py``.

Each kit's sample bot runs as a real program, built once a run from a copy of its folder under
the session's temporary directory (``kits.spec.Builds``), so no build product is ever left in
the repository; the kits whose tools are missing are skipped. The referee's side is played by
hand (``kit_driver``) or by the referee itself; every wait has a generous timeout that guards
against a hang: nothing here judges speed.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import pytest

from protocol import codec
from protocol.messages import (
    BotHello,
    CardPlayed,
    Declare,
    Declared,
    Error,
    Goodbye,
    Hello,
    MatchEnd,
    Moon,
    PassResult,
    RoundEnd,
    SeatOutcome,
    TrickEnd,
)
from referee.match.play import TableOptions
from referee.players.bot_config import BotEntry
from referee.players.building import build as build_bot
from referee.players.tcp import TcpSeat
from referee.rules import SeatView, ruleset
from referee.sandbox.bwrap import Sandbox
from tests.bot_process import BotProcess, Start
from tests.check.helpers import failures, needs_bwrap, sandbox, step
from tests.protocol.table_driver import check_pass, check_play
from tests.sample_bots.bot_matches import ROOMY_MATCH, check_kit, entries, play, python_bot
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
    round_start,
    states_written,
    to_dict,
)
from tests.sample_bots.kits import Builds, Built, Kit, kits
from tests.sample_bots.kits.spec import BAD_COMMAND_LINES, ROOT, copy_folder
from tests.sample_bots.tcp_referee import LaunchTcp, Listener, TcpBot, serve_one_decision, tcp_bots
from tests.sample_bots.vectors_feed import assert_vector_states, feed_probe
from tests.shared import verified

CHECK_STEPS = 46
"""The steps of ``referee check`` in American."""
PYTHON_BOTS = [python_bot("heuristic"), python_bot("random", 3), python_bot("random", 4)]
"""The sample bot's opponents in whole matches."""


# ---------------------------------------------------------------------------------------------
# The folder an author copies
# ---------------------------------------------------------------------------------------------
@kits(lambda kit: bool(kit.ignored))
def test_git_ignores_the_build_products(kit: Kit) -> None:
    """A build made in the folder (the docs' way) stays out of git."""
    lines = (kit.folder / ".gitignore").read_text().splitlines()
    assert [line for line in lines if line and not line.startswith("#")] == list(kit.ignored)


@kits(lambda kit: kit.build_line is not None)
def test_the_folder_gives_the_build_the_tests_run(kit: Kit) -> None:
    """The build line an author reads in the folder is the one built here."""
    assert kit.build_line is not None
    name, line = kit.build_line
    assert line in (kit.folder / name).read_text()


@kits(lambda kit: bool(kit.test_products))
def test_the_repository_holds_no_build_product_of_these_tests(kit: Kit) -> None:
    """The builds happen in copies: whatever an author may keep in the folder, what only these
    tests build (the probes) is never in it."""
    assert [name for name in kit.test_products if (kit.folder / name).exists()] == []


@pytest.mark.compiler
@kits(lambda kit: kit.lint is not None)
def test_builds_without_a_warning(kit: Kit, built: Built, tmp_path: Path) -> None:
    """With every warning the kit's tools give (``-Werror``, ``-Xlint:all``, ``go vet`` and
    ``gofmt``, cargo's own), the build says nothing: a new author's first build must not greet
    them with warnings of ours; and the documented command's program is there."""
    assert kit.lint is not None
    assert kit.lint(built, tmp_path) == ""
    program = built.folder / built.command.split()[-1]
    assert program.is_file()
    assert not built.command.startswith("./") or os.access(program, os.X_OK)


# ---------------------------------------------------------------------------------------------
# referee check
# ---------------------------------------------------------------------------------------------
@contextmanager
def checked_folder(kit: Kit, built: Built, tmp_path: Path, box: Sandbox) -> Iterator[tuple[Path, Sandbox | None]]:
    """Where the sandboxed check runs the bot from, and the sandbox that shows it: the tests'
    build, or (``kit.sandbox_build``) the build of the referee's own build step, sandboxed on a
    copy of the folder as a uid of its own, as a ladder does."""
    if kit.sandbox_build is None:
        yield built.folder, box
        return
    copy_folder(kit, tmp_path / kit.name)
    entry = BotEntry(name=kit.name, folder=kit.name, command=built.command, build=kit.sandbox_build)
    ladder = build_bot(entry, tmp_path, sandbox=box)
    program = built.command.split()[-1]
    try:
        assert ladder.copy is not None and (ladder.copy / program).is_file()
        assert not (tmp_path / kit.name / program).exists()  # the build wrote only its copy
        yield ladder.folder, ladder.sandbox(box)
    finally:
        if ladder.copy is not None:
            shutil.rmtree(ladder.copy, ignore_errors=True)


@needs_bwrap
@kits(lambda kit: bool(kit.check_variants))
def test_check_passes_every_step_in_the_sandbox(kit: Kit, built: Built, tmp_path: Path) -> None:
    """The way a ladder runs a bot: in bubblewrap, as a uid of its own, its folder read-only,
    run from its own folder as a bot list with ``folder`` runs it."""
    with checked_folder(kit, built, tmp_path, sandbox()) as (folder, box):
        report = check_kit(built.command, folder, sandbox=box)
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict != "pass"] == []
    assert report.exit_code == 0 and report.summary.ok
    assert report.summary.steps == len(report.steps) == CHECK_STEPS
    assert report.summary.decisions > 300
    assert report.name == kit.bot_name
    assert report.sandboxed and report.sandbox.startswith("bubblewrap (")
    assert step(report, "sandbox.works").message.startswith(f"ran in {report.sandbox}: hello after")


@kits(lambda kit: bool(kit.check_variants))
def test_check_passes_without_a_sandbox(kit: Kit, built: Built) -> None:
    """Unsandboxed, as on an author's machine: every step but the sandbox's own passes."""
    report = check_kit(built.command, built.folder)
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict != "pass"] == ["sandbox.works"]
    assert report.exit_code == 0 and report.summary.ok
    assert report.summary.steps == CHECK_STEPS
    assert not report.sandboxed


@kits(lambda kit: bool(kit.check_variants), each=("variant", lambda kit: kit.check_variants))
def test_check_passes_in_other_variants(kit: Kit, built: Built, variant: str) -> None:
    """The general steps under each variant's own rules: its deck (the piket deck, two decks
    with identical cards), its players (three to six), passing, declarations, a bonus card and
    the moon."""
    report = check_kit(built.command, built.folder, variant=variant)
    assert failures(report) == []
    assert [s.name for s in report.steps if s.verdict == "skip"] == ["sandbox.works"]
    assert report.exit_code == 0 and report.variant == variant


# ---------------------------------------------------------------------------------------------
# Whole matches against the Python sample bots
# ---------------------------------------------------------------------------------------------
KIT_COMPLAINTS = ("panicked", "threw", "returned", "cannot read", "ignoring", "without", "skipping", "skipped")
"""What a kit logs when it had to replace an answer or could not read a line."""
MATCHES = {"american": (0, 11), "dutch": (2, 12), "black-maria": (1, 13)}
"""Each family of rules (passing and the queen; the 32-card two-phase game without passing;
three players, hearts any time and more penalty cards): the kit's seat and the seed."""


@kits(lambda kit: kit.matches, each=("variant", lambda kit: list(MATCHES)))
def test_whole_matches_against_the_python_bots(kit: Kit, built: Built, tmp_path: Path, variant: str) -> None:
    """A whole match to the rules' own end through the referee, the kit's bot run from its
    folder: every seat ``ok``, no fault or fallback in the log, which verifies move by move,
    and the bot exited 0 and wrote nothing to stderr (a kit that logs the match's end: no
    complaint), so every answer was the bot's own and legal."""
    seat, seed = MATCHES[variant]
    rules = ruleset(variant)
    seats = PYTHON_BOTS[: rules.players - 1]
    seats.insert(seat, built.command)
    log = tmp_path / "match.jsonl"
    outcome = play(seats, rules, seed, TableOptions(config=ROOMY_MATCH, cwd=ROOT, folders={seat: built.folder}), log)
    assert [s.status for s in outcome.seats] == ["ok"] * rules.players, outcome.seats
    assert outcome.faults == []
    assert outcome.reason in ("target_reached", "reached_zero", "nobody_can_reach_zero", "rounds_played")
    assert outcome.seats[seat].name == kit.bot_name
    lines = entries(log)
    assert lines[0]["type"] == "header" and lines[0]["rules"]["name"] == variant
    assert [e for e in lines if e["type"] in ("fault", "fallback")] == []
    assert verified(log) == "verified"
    mine = next(e for e in lines if e["type"] == "stderr" and e["seat"] == seat)
    assert mine["exit_code"] == 0
    if kit.quiet:
        assert mine["text"] == ""
    else:  # it logs the match's end, and nothing else
        assert [word for word in KIT_COMPLAINTS if word in mine["text"]] == [], mine["text"]


# ---------------------------------------------------------------------------------------------
# The sample bot's choices
# ---------------------------------------------------------------------------------------------
@kits(lambda kit: kit.passes is not None)
def test_the_sample_bot_passes_what_it_should(kit: Kit, built: Built, start: Start) -> None:
    """The duckers pass their highest cards (the C bot its first)."""
    assert passed_from_hand(start(built.argv)) == list(kit.passes or ())


@kits(lambda kit: bool(kit.plays))
def test_the_sample_bot_plays_what_it_should(kit: Kit, built: Built, start: Start) -> None:
    """One position per branch of the sample's play, which an author starts from, all in one
    process, a match each: it reads the trick from the request and the kit's helpers (would
    this card win, cancelling twins in the double deck, the card points of the rule set)."""
    bot = start(built.argv)
    handshake(bot)
    for number, position in enumerate(kit.plays):
        bot.send(match_start(seat=1, rules=ruleset(position.preset), match_id=f"m-{number}"))
        request = play_request(BIG_ID + number, list(position.legal), list(position.trick))
        assert check_play(bot.ask(request), request) == position.plays, position
    bot.send(Goodbye())
    assert bot.wait_exit() == 0


# ---------------------------------------------------------------------------------------------
# The protocol on pipes, scripted
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def bot(built: Built, start: Start) -> BotProcess:
    """The kit's sample bot on pipes."""
    return start(built.argv)


def test_hello(bot: BotProcess) -> None:
    handshake(bot)
    bot.expect_silence()


def test_scripted_round(bot: BotProcess) -> None:
    """A round as the referee tells it: passing, a declaration, a trick, the moon; then, on the
    same connection, a second match after match_end."""
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
    assert bot.ask(ask_declare) == Declare(id=BIG_ID + 1, declare=False)
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

    assert bot.ask(moon_request(BIG_ID + 4)) == Moon(id=BIG_ID + 4, choice="add_to_others")
    bot.send(ROUND_END)
    seats = [SeatOutcome(seat=s, name=f"bot-{s}", status="ok") for s in range(4)]
    bot.send(MatchEnd(match_id="m-1", scores=[26, 0, 26, 26], winners=[1], reason="round_limit", rounds=1, seats=seats))
    bot.expect_silence()

    bot.send(match_start(seat=2, match_id="m-2"))
    bot.send(round_start())
    again = play_request(7, ["3D", "8D"], ["TD"])
    check_play(bot.ask(again), again)
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    bot.expect_end_of_output()


ROUND_END = RoundEnd(
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
"""The end of the scripted round: seat 1 shot the moon."""


def test_a_round_written_in_one_go(kit: Kit, bot: BotProcess) -> None:
    """The referee writes the events and the request in one write (CRLF too); a second match
    follows on the same connection; unknown types and fields are ignored; the moon is chosen
    from the options offered; goodbye ends the program with 0 and nothing more on stdout (nor,
    for a quiet kit, on stderr)."""
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
    check_play(bot.receive(), request)
    bot.send(TrickEnd(trick_number=0, leader=1, cards=["2C", "7C", "QC", "9C"], winner=3, points=0))
    moon = moon_request(4, ["subtract_from_shooter"])
    assert bot.ask(moon) == Moon(id=4, choice="subtract_from_shooter")
    bot.send(match_start(seat=2, match_id="m-2"))
    again = play_request(5, ["3D", "8D"], ["TD"])
    check_play(bot.ask(again), again)
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    assert bot.rest_of_output() == []
    assert not kit.quiet or bot.stderr.splitlines() == []


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


@kits(lambda kit: kit.line_limit)
def test_a_line_of_the_protocols_length_is_read_and_a_longer_one_skipped(
    kit: Kit, built: Built, kit_builds: Builds, start: Start
) -> None:
    """A line of exactly 65536 bytes is read; one byte more is skipped, and the next line read.
    A ``\r`` before the newline is part of the line and counts (protocol.md)."""
    bot = start(reader(kit, built, kit_builds))
    handshake(bot)
    bot.send(match_start())
    for size, end, answered in (
        (codec.MAX_LINE, b"\n", True),
        (codec.MAX_LINE + 1, b"\n", False),
        (codec.MAX_LINE, b"\r\n", True),
        (codec.MAX_LINE + 1, b"\r\n", False),
    ):
        head = b'{"type":"play_request","id":90,"legal":["2C"],"trick":[],"pad":"'
        line = head + b"x" * (size - len(head) - 2 - (len(end) - 1)) + b'"}' + end[:-1]
        assert len(line) == size
        bot.send_raw(line + b"\n")
        if answered:
            assert bot.receive_json() == {"type": "play", "id": 90, "card": "2C"}
        request = play_request(91, ["2D", "AD"], ["9D"])
        check_play(bot.ask(request), request)
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    clean(kit, bot.stderr)


def test_non_fatal_error_is_not_the_end(bot: BotProcess) -> None:
    handshake(bot)
    bot.send(match_start())
    bot.send(Error(code="timeout", message="too slow; a fallback card was played", fatal=False, request_id=3))
    bot.expect_silence()
    assert bot.proc.poll() is None
    request = play_request(4, ["5C"], [])
    check_play(bot.ask(request), request)


def test_fatal_error_makes_it_exit(kit: Kit, bot: BotProcess) -> None:
    """After a non-fatal error the match goes on; a fatal one ends the program with the kit's
    status, and the kit says why on stderr."""
    handshake(bot)
    bot.send(match_start())
    bot.send(Error(code="illegal_move", message="not fatal", fatal=False, request_id=1, rule="must_follow_suit"))
    request = play_request(2, ["2D", "AD"], ["9D"])
    check_play(bot.ask(request), request)
    bot.send(Error(code="timeout", message="you are dropped", fatal=True, request_id=3, rule=None))
    assert bot.wait_exit() == kit.fatal_exit
    bot.expect_end_of_output()
    assert kit.fatal_log is None or kit.fatal_log.format(code="timeout", message="you are dropped") in bot.stderr


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


IDS = [1, 2**31, 2**53 - 1, 2**53 + 1, 2**63 - 1, 2**64 + 1, 10**40]
"""Request ids: 32 bits and more, past a double's precision and past 64 bits."""


@kits(each=("request_id", lambda kit: [i for i in IDS if kit.max_id is None or i <= kit.max_id]))
def test_request_ids_are_echoed_exactly(bot: BotProcess, request_id: int) -> None:
    """An id is echoed as the referee wrote it, whatever its size (up to the kit's own limit)."""
    handshake(bot)
    bot.send(match_start())
    bot.send_raw(b'{"type":"play_request","id":%d,"legal":["2C"],"trick":[]}\r\n' % request_id)
    assert bot.receive_json() == {"type": "play", "id": request_id, "card": "2C"}
    assert bot.ask(declare_request(request_id)) == Declare(id=request_id, declare=False)
    assert bot.ask(moon_request(request_id)) == Moon(id=request_id, choice="add_to_others")


@kits(each=("preset", lambda kit: ENGINE_PRESETS))
def test_plays_legal_matches_against_the_engine(bot: BotProcess, preset: str) -> None:
    """Two matches on one connection, from two seats, against the engine: every reply is one
    the engine accepts."""
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
# The table state the kit keeps, against the rules engine and the vectors (its state probe)
# ---------------------------------------------------------------------------------------------
def clean(kit: Kit, stderr: str) -> None:
    """What the kit's probe checks of any stderr it wrote (the C++ probe's: no sanitizer report)."""
    if kit.probe is not None and kit.probe.clean is not None:
        kit.probe.clean(stderr)


@kits(lambda kit: kit.probe is not None, each=("preset", lambda kit: kit.probe.presets if kit.probe else ()))
def test_the_kit_keeps_the_table_state(kit: Kit, probe: list[str], start: Start, preset: str) -> None:
    """The rules engine deals and plays the other seats at random, two matches on one
    connection from two seats; at every play request the kit's state (hand, points, scores,
    the trick, hearts broken and the trick's number as the events left them, and what more the
    kit keeps: voids, the cards unseen, tricks, passes, declarations, who is winning) equals
    the engine's view of the seat, and every reply is legal."""
    assert kit.probe is not None
    bot = start(probe)
    handshake(bot)
    rules = ruleset(preset)
    expected = []

    def record(view: SeatView, scores: list[int]) -> None:
        assert kit.probe is not None
        expected.append(kit.probe.expected(view, scores, rules))

    decisions = 0
    for number, seat in enumerate((1, rules.players - 1)):
        decisions += drive_match(
            bot, rules, seat=seat, seed=7 + number, max_rounds=3, on_play_request=record, match_id=f"m{number}"
        )
    bot.send(Goodbye())
    assert bot.wait_exit() == 0
    assert decisions > 0
    stderr = bot.stderr
    clean(kit, stderr)
    if kit.probe.after is not None:
        kit.probe.after(stderr, rules)
    seen = states_written(stderr, sort=kit.probe.sort)
    for state in seen:
        for key in kit.probe.ignored:
            state.pop(key)
    assert_states(seen, expected)
    if kit.probe.stray is not None:  # printed to stdout at each play: the kit sent it to stderr
        assert stderr.count(kit.probe.stray) == len(seen)


@kits(lambda kit: kit.probe is not None)
def test_the_kit_keeps_the_state_the_vectors_give(kit: Kit, probe: list[str], start: Start) -> None:
    """docs/vectors (docs/vectors.md): the last seat of every preset's vectors, fed to the probe
    a match after another on one connection; at each play its state (hand, points taken, scores,
    the trick, hearts broken and the trick's number as the events left them, and what more the
    kit's probe reports of the vector's state) is the vector's."""
    assert kit.probe is not None
    bot = start(probe)
    handshake(bot)
    expected = feed_probe(bot)
    clean(kit, bot.stderr)
    assert_vector_states(states_written(bot.stderr), expected, snake=kit.probe.snake, extra=kit.probe.vector_extra)


# ---------------------------------------------------------------------------------------------
# Hostile lines
# ---------------------------------------------------------------------------------------------
def reader(kit: Kit, built: Built, builds: Builds) -> list[str]:
    """The program fed hostile lines: the sample bot, or the kit's probe (``Hostile.on_probe``)."""
    return builds.probe(kit) if kit.hostile is not None and kit.hostile.on_probe else built.argv


def answer_after(bot: BotProcess, kit: Kit, number: int) -> None:
    """The next request is answered with its id: the bot lives on and answered nothing in
    between (a lenient kit: nothing but valid answers to what it could read as requests)."""
    assert kit.hostile is not None
    ping = play_request(10**12 + number, ["2D", "AD"], ["9D"])
    bot.send(ping)
    for _ in range(5):
        reply = bot.receive()  # a valid bot message within the hang guard, or the test fails
        if getattr(reply, "id", None) == ping.id:
            check_play(reply, ping)
            return
        assert kit.hostile.lenient, (number, reply)
        assert getattr(reply, "id", 900001) >= 900001 or isinstance(reply, BotHello), (number, reply)
    pytest.fail(f"line {number}: no answer to the request after it")


@kits(lambda kit: kit.hostile is not None)
def test_hostile_lines_do_not_stop_the_kit(kit: Kit, built: Built, kit_builds: Builds, start: Start) -> None:
    """After each hostile line a real request gets its right answer (so the line drew none);
    odd but readable requests get their exact replies; a match_start then resets whatever the
    lines disturbed, as in a real match; the last line, goodbye without its newline, is still
    read, and the program exits 0 with nothing more on stdout."""
    hostile = kit.hostile
    assert hostile is not None
    bot = start(reader(kit, built, kit_builds))
    handshake(bot)
    bot.send(match_start())
    bot.send(round_start())
    for number, line in enumerate(hostile.ignored):
        assert b"\n" not in line
        bot.send_raw(line + b"\n")
        answer_after(bot, kit, number)
    for number, (line, reply) in enumerate(hostile.answered):
        bot.send_raw(line + b"\n")
        assert bot.receive_line() == reply + b"\n", line[:200]
        answer_after(bot, kit, len(hostile.ignored) + number)
    bot.send(match_start(seat=2, match_id="after"))
    request = play_request(BIG_ID, ["4S", "QS"], ["9S"])
    assert check_play(bot.ask(request), request) == "4S"
    bot.send_raw(b'{"type":"goodbye"}')
    assert bot.proc.stdin is not None
    bot.proc.stdin.close()
    assert bot.wait_exit() == 0
    assert bot.rest_of_output() == []
    stderr = bot.stderr
    clean(kit, stderr)
    assert [text for text in hostile.logged if text not in stderr] == []
    assert [text for text in hostile.unlogged if text in stderr] == []


# ---------------------------------------------------------------------------------------------
# TCP
# ---------------------------------------------------------------------------------------------
tcp_kits = kits(lambda kit: kit.tcp is not None)


@pytest.fixture
def tcp_bot(kit: Kit, built: Built, tmp_path: Path) -> Iterator[LaunchTcp]:
    """The sample bot started as a TCP client with arguments, from its folder."""
    with tcp_bots(built.argv, built.folder, tmp_path, kit.timeout) as launch:
        yield launch


@pytest.fixture
def referee(kit: Kit) -> Iterator[Listener]:
    """A referee played by hand on a loopback port."""
    with Listener(kit.timeout) as fake:
        yield fake


TOKEN_WAYS: dict[str, tuple[list[str], dict[str, str], str]] = {
    "option": (["--tcp", "{address}", "--token", "s3cret"], {}, "s3cret"),
    "inline": (["--tcp={address}", "--token=s3cret=x"], {}, "s3cret=x"),
    "file": (["--tcp", "{address}", "--token-file", "{file}"], {}, "s3cret"),
    "environment": (["--tcp", "{address}"], {"HEARTS_TOKEN": "s3cret-env"}, "s3cret-env"),
    "option before environment": (["--tcp", "{address}", "--token", "s3cret"], {"HEARTS_TOKEN": "other"}, "s3cret"),
}
"""How a token may be given (the bot's arguments and environment), and the token it sends."""


@tcp_kits
@pytest.mark.parametrize("how", list(TOKEN_WAYS))
def test_the_token_goes_in_the_hello(kit: Kit, tcp_bot: LaunchTcp, referee: Listener, tmp_path: Path, how: str) -> None:
    """From --token, --token= (a token may hold '='), the first line of --token-file or
    HEARTS_TOKEN (an option first); the protocol goes over the socket, never stdout; goodbye
    ends the bot with 0."""
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\nnot this line\n")
    token_file.chmod(0o600)
    words, env, token = TOKEN_WAYS[how]
    bot = tcp_bot(*(w.format(address=referee.address, file=token_file) for w in words), env=env)
    with referee.accept() as connection:
        serve_one_decision(connection, token, kit.bot_name)
    assert bot.wait() == 0
    assert bot.stdout == b"", "the protocol goes over the socket, not stdout"


BUSY = Error(code="busy", message="too many connections in their handshake", fatal=True, request_id=None, rule=None)
DROPPED = Error(code="busy", message="dropped: another connection", fatal=True, request_id=None, rule=None)


@tcp_kits
def test_retries_until_the_referee_seats_it(kit: Kit, tcp_bot: LaunchTcp) -> None:
    """Before its seat, every way a connection can fail is tried again after a pause, each
    retry a line on stderr: refused (nobody listening yet), closed at once, ``busy`` instead of
    the hello, ``busy`` after the bot's hello (dropped for another connection), closed after
    the bot's hello without a word; the sixth connection plays."""
    assert kit.tcp is not None
    with Listener(kit.timeout, listening=False) as referee:  # bound, not listening: refused
        bot = tcp_bot(f"--tcp={referee.address}", "--retry-for=300", env={"HEARTS_TOKEN": "t0k"})
        bot.wait_for(kit.tcp.refused_log)
        referee.listen()
        referee.accept().close()
        with referee.accept() as connection:
            connection.send(BUSY)
        with referee.accept() as connection:
            connection.send(Hello())
            assert connection.receive_hello().token == "t0k"
            connection.send(DROPPED)
        with referee.accept() as connection:
            connection.send(Hello())
            connection.receive_hello()
        with referee.accept() as connection:
            serve_one_decision(connection, "t0k", kit.bot_name)
        assert bot.wait() == 0
    stderr = bot.stderr
    refused = stderr.count(kit.tcp.refused_log)  # once at least; more on a busy machine before listen()
    assert refused >= 1 and stderr.count("trying again in") == refused + 4, stderr
    assert f"the referee is busy ({BUSY.message}); trying again in" in stderr
    assert f"the referee is busy ({DROPPED.message}); trying again in" in stderr
    assert stderr.count("the referee closed the connection; trying again in") == 2, stderr


@tcp_kits
@pytest.mark.parametrize("code", ["bad_token", "seat_taken"])
def test_a_refused_token_is_final(
    kit: Kit, tcp_bot: LaunchTcp, referee: Listener, code: Literal["bad_token", "seat_taken"]
) -> None:
    """``bad_token`` and ``seat_taken`` are not retried: the bot hangs up, exits 1 and never
    connects again (after its exit no connection waits in the listen queue)."""
    bot = tcp_bot("--tcp", referee.address, "--token", "wrong")
    with referee.accept() as connection:
        connection.send(Hello())
        assert connection.receive_hello().token == "wrong"
        connection.send(Error(code=code, message="no seat has this token", fatal=True, request_id=None, rule=None))
        assert connection.hung_up()
        assert bot.wait() == 1
    assert referee.nobody_waiting()
    assert "trying again" not in bot.stderr
    assert f"referee error {code} (fatal): no seat has this token" in bot.stderr


@kits(lambda kit: kit.tcp is not None, each=("seconds", lambda _: ["0", "0.5"]))
def test_gives_up_when_nobody_listens(kit: Kit, tcp_bot: LaunchTcp, seconds: str) -> None:
    """A referee that is not listening is tried again until --retry-for runs out (with 0, not
    at all)."""
    assert kit.tcp is not None
    with Listener(kit.timeout, listening=False) as closed:
        bot = tcp_bot("--tcp", closed.address, "--retry-for", seconds)
        assert bot.wait() == 1
        address = closed.address
    stderr = bot.stderr
    assert f"{kit.tcp.refused_log} {address}" in stderr
    assert f"giving up after {kit.tcp.giving_up[seconds]}" in stderr
    assert seconds != "0" or "trying again" not in stderr


@kits(lambda kit: kit.tcp is not None, each=("command_line", lambda _: list(BAD_COMMAND_LINES)))
def test_a_bad_command_line_exits_two(tcp_bot: LaunchTcp, command_line: str) -> None:
    assert tcp_bot(*BAD_COMMAND_LINES[command_line]).wait() == 2


@tcp_kits
@pytest.mark.parametrize("token_from", ["environment", "file"])
def test_a_tcp_seat_plays_a_referee_match(kit: Kit, tcp_bot: LaunchTcp, tmp_path: Path, token_from: str) -> None:
    """``referee match tcp:NAME`` with the token kept off the command line, in the bot's
    environment or in a 0600 file: the bot connects, plays a round, every seat ``ok``, and it
    exits 0 on goodbye with nothing on stdout."""
    started: list[TcpBot] = []

    def on_listening(address: tuple[str, int], seats: list[TcpSeat]) -> None:
        assert [s.seat for s in seats] == [0]
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

    rules = ruleset("american", {"end": "rounds", "rounds": 1})
    options = TableOptions(config=ROOMY_MATCH, cwd=ROOT, on_listening=on_listening, connect_timeout=kit.timeout)
    outcome = play([f"tcp:{kit.name}", *PYTHON_BOTS], rules, 21, options)
    assert started[0].wait() == 0, started[0].stderr
    assert [s.status for s in outcome.seats] == ["ok"] * 4, outcome.seats
    assert outcome.seats[0].name == kit.bot_name
    assert outcome.faults == []
    assert started[0].stdout == b""
