"""The Rust kit (``sample_bots/rust/src/hearts.rs``) and its sample bot (``src/main.rs``), built
with cargo: ``cargo build --release --offline`` in the copy, with ``CARGO_TARGET_DIR`` inside it,
so the bot runs as a new author's would, from its own folder as ``./target/release/hearts-bot``.

Two more programs on the kit, written into the copy only as cargo examples, test what the
sample bot cannot show: the state probe (``probes/probe.rs``) and a buggy bot
(``probes/buggy.rs``) whose panics and illegal answers the kit must replace.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from protocol.ruleset import RuleSet
from referee.rules import SeatView
from tests.sample_bots.kit_driver import cards_unseen, voids_shown, winning_seat
from tests.sample_bots.kits.hostile import RUST_LINES
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

COMMAND = "./target/release/hearts-bot"
"""The documented command, run from the bot's folder."""


def cargo(built: Built, *args: str) -> subprocess.CompletedProcess[str]:
    """A cargo command in the copy, as its build ran."""
    return run([built.env["CARGO"], *args], built.folder, built.env)


def build(scratch: Path) -> Built:
    """One release build per session (it is slow); a ``target/`` left in the repository by
    someone's own build is not copied, and nothing is written back."""
    program = shutil.which("cargo")
    assert program is not None
    version = run([program, "--version"], scratch)
    if version.returncode != 0:  # rustup's cargo without a toolchain
        pytest.skip(f"cargo does not run here: {version.stderr.strip()[:200]}")
    folder = copy_folder(RUST, scratch / "rust")
    env = {**os.environ, "CARGO_TARGET_DIR": str(folder / "target"), "CARGO_TERM_COLOR": "never", "CARGO": program}
    env.pop("RUSTFLAGS", None)  # the build the documentation gives, nothing added
    said = built_ok(run([program, "build", "--release", "--offline"], folder, env))
    lines = said.splitlines()
    assert any("Finished" in line for line in lines), said
    warnings = "\n".join(line for line in lines if line.lstrip().startswith(("warning", "error")))
    return Built(folder=folder, command=COMMAND, argv=[str(folder / COMMAND)], warnings=warnings, env=env)


def example(built: Built, name: str) -> list[str]:
    """The command line of the cargo example ``name`` (built with the probe)."""
    return [str(built.folder / "target" / "release" / "examples" / name)]


def build_probe(built: Built, _: Path) -> list[str]:
    """The probe and the buggy bot, built as cargo examples in the copy only."""
    examples = built.folder / "examples"
    examples.mkdir(exist_ok=True)
    for name in ("probe", "buggy"):
        (examples / f"{name}.rs").write_text((PROBES / f"{name}.rs").read_text())
    built_ok(cargo(built, "build", "--release", "--offline", "--examples"))
    return example(built, "probe")


def expected_state(view: SeatView, scores: list[int], rules: RuleSet) -> dict[str, Any]:
    """What the probe prints: the engine's view of the seat, in the probe's terms."""
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


RUST = Kit(
    name="rust",
    language="Rust",
    folder=ROOT / "sample_bots" / "rust",
    build=build,
    tools=("cargo",),
    bot_name="rust-ducker",
    built_by_tests=True,
    timeout=30.0,
    lint=lambda built, _: built.warnings,
    ignored=("target/",),
    build_line=("Cargo.toml", "cargo build --release --offline"),
    test_products=("examples",),
    passes=("AH", "AS", "KC"),
    plays=(
        Position(("9D",), ("TD", "KD", "2D"), "2D"),  # the only card that ducks
        Position(("9D",), ("2D", "5D", "KD"), "5D"),  # the highest card that ducks
        Position(("9D",), ("QS", "AH", "4C"), "QS"),  # void: the costliest card goes
        Position(("9D",), ("TD", "KD"), "TD"),  # cannot duck, others still to play: the lowest
        Position(("9D", "2D", "3D"), ("TD", "KD"), "KD"),  # cannot duck, last: the highest
        Position(("9S", "2S", "3S"), ("KS", "QS"), "KS"),  # last, but the queen would cost 13
        Position((), ("5C", "3H", "9S"), "5C"),  # leading: the cheapest card
    ),
    check_variants=("dutch", "black-maria", "achterhoeks", "omnibus", "double-deck"),
    matches=True,
    probe=StateProbe(
        build=build_probe,
        expected=expected_state,
        presets=("american", "double-deck", "achterhoeks", "dutch", "black-maria", "omnibus"),
        stray="stray output: the kit must send it to stderr",
        vector_extra={
            "declared": lambda s: s.declared,
            "leader": lambda s: s.trick_leader,
            "passed": sorted_passed,
            "received": sorted_received,
        },
        snake=True,
    ),
    hostile=Hostile(ignored=RUST_LINES, logged=("nested too deep", "longer than 65536 bytes"), unlogged=("panicked",)),
    tcp=Tcp(),
)
