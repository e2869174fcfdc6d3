"""The C++ kit (``sample_bots/cpp/hearts.hpp``) and its sample bot (``bot.cpp``), built with g++.

The sample bot is built with the build line the docs give, plus ``-Werror``, so a warning fails
the build. The state probe (``probes/probe.cpp``) is the sample bot compiled with
AddressSanitizer and UndefinedBehaviorSanitizer, writing its table state to stderr at every
play, so a memory error or undefined behaviour anywhere in the kit shows up as a sanitizer
report wherever it runs: in every variant against the engine, on the vectors, fed hostile lines
(``test_kit_only.py``), through ``referee check``.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from protocol.bot import deck_codes
from protocol.ruleset import RuleSet
from referee.rules import SeatView
from tests.sample_bots.kit_driver import cards_played, cards_unseen, probe_state, voids_shown
from tests.sample_bots.kits.hostile import CPP_ANSWERED, CPP_IGNORED
from tests.sample_bots.kits.spec import (
    PROBES,
    ROOT,
    Built,
    Hostile,
    Kit,
    Position,
    StateProbe,
    Tcp,
    built_ok,
    copy_folder,
    run,
)
from tests.sample_bots.vectors_feed import sorted_passed, sorted_received

BUILD = ["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-o", "bot", "bot.cpp"]
"""The build line of docs/writing-a-bot.md and the Makefile, run inside the folder."""
SANITIZE = ["-std=c++17", "-O0", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined"]
SANITIZE += ["-fno-sanitize-recover=all", "-Wall", "-Wextra", "-Werror"]
"""The probe's build: ``-O0`` compiles in 7 s of CPU where ``-O1`` takes 18 (every check of
the sanitizers is made at either level; the warnings that need the optimizer are the ``-O2``
build's, built with ``-Werror``)."""
SANITIZER_REPORTS = ("AddressSanitizer", "LeakSanitizer", "runtime error", "UndefinedBehaviorSanitizer")


def assert_no_sanitizer_report(text: str) -> None:
    for marker in SANITIZER_REPORTS:
        assert marker not in text, text[-6000:]


def build(scratch: Path) -> Built:
    """The sample bot, built as the docs say (``-Werror`` added: a warning fails the build)."""
    folder = copy_folder(CPP, scratch / "cpp")
    said = built_ok(run([*BUILD, "-Werror"], folder))
    return Built(folder=folder, command="./bot", argv=[str(folder / "bot")], warnings=said)


def build_probe(built: Built, _: Path) -> list[str]:
    """The probe, in the sample's folder, built with the sanitizers (any report aborts it:
    ``-fno-sanitize-recover``)."""
    (built.folder / "probe.cpp").write_text((PROBES / "probe.cpp").read_text())
    built_ok(run(["g++", *SANITIZE, "-o", "probe", "probe.cpp"], built.folder))
    return [str(built.folder / "probe")]


def expected_state(view: SeatView, scores: list[int], rules: RuleSet) -> dict[str, object]:
    """What the probe prints at a play request, from the engine's view of the seat."""
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


def after_matches(stderr: str, rules: RuleSet) -> None:
    """The deck of each match (``DECK``) is the Python kit's."""
    deck = deck_codes(msgspec.convert(msgspec.to_builtins(rules), RuleSet))
    decks = [json.loads(line[5:]) for line in stderr.splitlines() if line.startswith("DECK ")]
    assert decks == [deck, deck]


CPP = Kit(
    name="cpp",
    language="C++",
    folder=ROOT / "sample_bots" / "cpp",
    build=build,
    tools=("g++",),
    bot_name="cpp-ducker",
    built_by_tests=True,
    timeout=30.0,  # the sanitizer build on a busy machine is slow
    lint=lambda built, _: built.warnings,
    ignored=("/bot",),
    build_line=("bot.cpp", " ".join(BUILD)),
    test_products=("probe.cpp", "probe"),
    passes=("AH", "AS", "KC"),
    plays=(
        Position(("9D",), ("2D", "TD", "KD"), "2D"),  # the only card that ducks
        Position(("9D", "QD"), ("2D", "TD", "JD", "AD"), "JD"),  # the highest that ducks
        Position(("2C", "7C", "QC"), ("3C", "4C", "5C", "9C"), "9C"),  # ... under the queen
        Position(("TD",), ("3D", "8D"), "8D"),
        Position(("9D",), ("TD", "KD"), "TD"),  # cannot duck: the lowest
        Position((), ("5C", "3H", "9S"), "3H"),  # leading: the lowest
        Position(("9D",), ("QS", "AH", "4C"), "QS"),  # void: the most points
        Position(("9D",), ("KS", "AH", "4C"), "AH"),  # a heart before a higher spade
        Position(("9C",), ("TD", "JD", "3H"), "3H", "omnibus"),  # void: the heart, never the bonus card
        Position(("9C",), ("KS", "AS", "QH"), "KS", "black-maria"),  # KS 10, AS 7, QH 1
        Position(("KD", "KD"), ("5D", "QD"), "5D", "double-deck"),  # the kings cancel: any diamond wins
    ),
    check_variants=("dutch", "black-maria", "achterhoeks", "double-deck", "omnibus"),
    matches=True,
    probe=StateProbe(
        build=build_probe,
        expected=expected_state,
        presets=(
            "american",
            "american-3",
            "american-5",
            "double-deck",
            "omnibus",
            "black-maria",
            "dutch",
            "achterhoeks",
            "american-moon-choice",
        ),
        sort=("hand", "passed", "received"),
        ignored=("winning",),
        vector_extra={
            "declarations": lambda s: s.declared,
            "trickLeader": lambda s: s.trick_leader,
            "passed": sorted_passed,
            "received": sorted_received,
        },
        after=after_matches,
        clean=assert_no_sanitizer_report,
    ),
    hostile=Hostile(ignored=CPP_IGNORED, answered=CPP_ANSWERED, on_probe=True),
    tcp=Tcp(),
)
