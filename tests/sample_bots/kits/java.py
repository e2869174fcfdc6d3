"""The Java kit (``sample_bots/java/Hearts.java``) and its sample bot (``SampleBot.java``), built
with the JDK alone (javac, jar) the way the docs say, from inside a copy of the folder.

The probes (``probes/*.java``: the state probe, a bot that makes every mistake, a JSON reader)
are compiled against the kit's classes with every lint on, warnings as errors: a bot author's
code on the kit's public API must compile clean too. A JVM starts slowly on a loaded machine,
so the hang guard is generous.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from protocol.ruleset import RuleSet
from referee.rules import SeatView
from tests.sample_bots.kit_driver import cards_unseen, probe_state, voids_shown, winning_seat
from tests.sample_bots.kits.hostile import JAVA_LINES
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

BUILD = "javac -d classes Hearts.java SampleBot.java && jar cfe bot.jar SampleBot -C classes ."
"""The build line of the docs, run from inside the folder."""
COMMAND = "java -jar bot.jar"
"""The command of the docs, run from inside the folder."""
PROGRAMS = ("StateProbe", "BadBot", "JsonProbe")
"""The probes, compiled together."""


def build(scratch: Path) -> Built:
    folder = copy_folder(JAVA, scratch / "java")
    built_ok(run(["sh", "-c", BUILD], folder))
    assert (folder / "bot.jar").is_file()
    return Built(folder=folder, command=COMMAND, argv=["java", "-jar", str(folder / "bot.jar")])


def lint(_: Built, scratch: Path) -> str:
    """The kit and the sample bot compiled in a fresh copy with every lint on and warnings as
    errors: what an author copies should not start them off with warnings of ours."""
    folder = copy_folder(JAVA, scratch / "java")
    command = ["javac", "-Xlint:all", "-Werror", "-d", "classes", "Hearts.java", "SampleBot.java"]
    result = run(command, folder)
    assert result.returncode == 0, result.stderr
    return result.stderr


def build_programs(built: Built, scratch: Path) -> Path:
    """The probes' classes, beside the kit's (``java -cp KIT:PROBES Name``)."""
    sources = []
    for name in PROGRAMS:
        (scratch / f"{name}.java").write_text((PROBES / f"{name}.java").read_text())
        sources.append(str(scratch / f"{name}.java"))
    classes = scratch / "classes"
    command = ["javac", "-Xlint:all", "-Werror", "-cp", str(built.folder / "classes"), "-d", str(classes), *sources]
    result = run(command, scratch)
    assert result.returncode == 0, result.stderr
    return classes


def program(built: Built, programs: Path, name: str, *args: str) -> list[str]:
    """The command line of the probe ``name``."""
    return ["java", "-cp", f"{built.folder / 'classes'}{os.pathsep}{programs}", name, *args]


def build_probe(built: Built, scratch: Path) -> list[str]:
    """The state probe, compiled with the other probes (``another`` runs them)."""
    return program(built, build_programs(built, scratch), "StateProbe")


def another(probe: list[str], name: str, *args: str) -> list[str]:
    """The command line of the probe ``name``, from the state probe's."""
    return [*probe[:-1], name, *args]


def expected_state(view: SeatView, scores: list[int], rules: RuleSet) -> dict[str, Any]:
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


JAVA = Kit(
    name="java",
    language="Java",
    folder=ROOT / "sample_bots" / "java",
    build=build,
    tools=("javac", "jar", "java"),
    bot_name="java-ducker",
    built_by_tests=True,
    timeout=60.0,
    lint=lint,
    ignored=("classes/", "bot.jar"),
    build_line=("SampleBot.java", BUILD),
    passes=("AH", "AS", "KC"),
    plays=(  # one position per branch of SampleBot.choosePlay
        Position(("9D",), ("TD", "KD", "2D"), "2D"),  # the only card that ducks
        Position(("9S",), ("4S", "8S", "KS"), "8S"),  # the highest card that ducks
        Position(("9D", "QD"), ("TD", "KD", "AD"), "TD"),  # ducks under the queen
        Position(("9D",), ("TD", "KD"), "TD"),  # cannot duck, not last: the lowest
        Position(("9D", "QD", "2D"), ("KD", "AD"), "AD"),  # last to play and must win: the highest
        Position(("2S", "3S", "4S"), ("5S", "QS"), "5S"),  # ... that costs nothing
        Position((), ("5C", "3H", "9S"), "3H"),  # leading: the lowest
        Position(("9D",), ("4C", "QS", "AH"), "QS"),  # void: the costliest card
        Position(("9D",), ("4C", "2H", "AH"), "AH"),  # void, equal points: the highest
        Position(("9D",), ("4C", "KS"), "KS"),  # void, no points: the highest
    ),
    check_variants=("achterhoeks", "double-deck"),
    sandbox_build=BUILD,
    matches=True,
    probe=StateProbe(
        build=build_probe,
        expected=expected_state,
        presets=("american", "double-deck", "black-maria", "dutch"),
        sort=("hand", "unseen"),
    ),
    hostile=Hostile(ignored=JAVA_LINES, logged=("skipped a line longer than 65536 bytes",)),
    tcp=Tcp(giving_up={"0": "0.0 s", "0.5": "0.5 s"}),
)
