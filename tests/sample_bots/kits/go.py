"""The Go kit (``sample_bots/go``: the kit ``hearts/hearts.go`` and the sample bot ``main.go``).

The copy is built from inside, as an author would (``go build -o bot .``), with HOME an empty
folder and the module proxy off: a kit that needed anything beyond the standard library would
fail here, not fetch it. The state probe (``probes/probe.go``) is built against the same kit, in
a copy of the module of its own.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

from protocol.bot import deck_codes, trick_winner
from protocol.ruleset import RuleSet
from referee.rules import SeatView
from tests.sample_bots.kit_driver import cards_unseen, probe_state, voids_shown, winning_seat
from tests.sample_bots.kits.hostile import GO_LINES
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


def go() -> str:
    program = shutil.which("go")
    assert program is not None
    return program


def build(scratch: Path) -> Built:
    """The sample bot, built from inside the copy; folders and files made readable to all,
    since the sandbox runs the bot as a uid of its own."""
    folder = copy_folder(GO, scratch / "go")
    home = scratch / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GOPROXY": "off"}
    built_ok(run([go(), "build", "-o", "bot", "."], folder, env))
    for path in [scratch, folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IRGRP | stat.S_IROTH | (0o011 if path.is_dir() else 0))
    return Built(folder=folder, command="./bot", argv=[str(folder / "bot")], env=env)


def lint(built: Built, _: Path) -> str:
    """What ``go vet`` and ``gofmt -l`` say of the folder."""
    vet = built_ok(run([go(), "vet", "./..."], built.folder, built.env))
    gofmt = shutil.which("gofmt") or str(Path(go()).resolve().parent / "gofmt")
    formatted = run([gofmt, "-l", "."], built.folder, built.env)
    assert formatted.returncode == 0, formatted.stderr
    return vet + formatted.stdout


def build_probe(built: Built, scratch: Path) -> list[str]:
    """The probe, a second main package in another copy of the module (the sample's copy stays
    what an author has: ``go vet ./...`` and ``go list ./...`` see no probe)."""
    folder = scratch / "go"
    shutil.copytree(built.folder, folder, ignore=shutil.ignore_patterns("bot"))
    (folder / "probe").mkdir()
    (folder / "probe" / "main.go").write_text((PROBES / "probe.go").read_text())
    built_ok(run([go(), "build", "-o", "probe/probe", "./probe"], folder, built.env))
    return [str(folder / "probe" / "probe")]


def expected_state(view: SeatView, scores: list[int], rules: RuleSet) -> dict[str, Any]:
    """What the probe reports, from the engine's view of the seat and the Python kit's helpers
    (the deck and the trick winner)."""
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
        "numPlayers": rules.players,
        "phase": view.match_phase,
        "passed": view.passed or [],
        "received": view.received or [],
    }


GO = Kit(
    name="go",
    language="Go",
    folder=ROOT / "sample_bots" / "go",
    build=build,
    tools=("go",),
    bot_name="go-ducker",
    built_by_tests=True,
    timeout=30.0,
    lint=lint,
    ignored=("/bot",),
    build_line=("main.go", "go build -o bot ."),
    test_products=("probe",),
    passes=("AH", "AS", "KC"),
    plays=(
        Position(("9D",), ("TD", "KD", "2D"), "2D"),  # the only card that ducks
        Position(("9D",), ("3D", "5D", "8D"), "8D"),  # every card ducks: the highest
        Position(("9D",), ("TD", "KD"), "TD"),  # cannot duck: the lowest
        Position(("9D", "QD"), ("TD", "KD", "AD"), "TD"),  # ducks under the queen
        Position((), ("5C", "3H", "9S"), "3H"),  # leading: every card wins so far, so the lowest
        Position(("9D",), ("QS", "AH", "4C"), "QS"),  # void: sheds the card worth most
        Position(("9D",), ("AS", "2H", "4C"), "2H"),  # a heart before a higher card worth nothing
        Position(("KS",), ("QS", "2S", "AS"), "QS"),  # the queen under the king
    ),
    max_id=2**63 - 1,  # ids are decoded as int64
    quiet=False,
    check_variants=(
        "dutch",
        "black-maria",
        "achterhoeks",
        "double-deck",
        "american-moon-choice",
        "omnibus",
        "american-5",
    ),
    matches=True,
    probe=StateProbe(
        build=build_probe,
        expected=expected_state,
        presets=(
            "american",
            "american-3",
            "double-deck",
            "achterhoeks",
            "dutch",
            "black-maria",
            "omnibus",
            "american-moon-choice",
        ),
        sort=("hand", "unseen"),
        vector_extra={
            "declarations": lambda s: s.declared,
            "phase": lambda s: s.match_phase,
            "passed": sorted_passed,
            "received": sorted_received,
        },
    ),
    hostile=Hostile(ignored=GO_LINES, lenient=True),
    tcp=Tcp(giving_up={"0": "0s", "0.5": "500ms"}),  # a time.Duration
)
