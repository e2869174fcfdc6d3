"""The JavaScript kit (``sample_bots/javascript/hearts.js``) and its sample bot (``bot.js``),
run with node from the repository root as ``sample_bots/bots.toml`` says: nothing to build."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.sample_bots.bot_matches import BOTS, sample_bot_command
from tests.sample_bots.kit_driver import probe_state
from tests.sample_bots.kits.spec import PROBES, ROOT, Built, Kit, Position, StateProbe, Tcp

HEARTS_JS = ROOT / "sample_bots" / "javascript" / "hearts.js"


def build(_: Path) -> Built:
    """Nothing to build: the command of the bot list, from the repository root."""
    entry = BOTS["javascript"]
    return Built(folder=ROOT, command=entry.command, argv=shlex.split(sample_bot_command(entry)))


def build_probe(built: Built, scratch: Path) -> list[str]:
    """The probe, a script that loads the kit by its path."""
    probe = scratch / "probe.js"
    probe.write_text((PROBES / "probe.js").read_text().replace("HEARTS_JS", json.dumps(str(HEARTS_JS))))
    return [built.argv[0], str(probe)]


JAVASCRIPT = Kit(
    name="javascript",
    language="JavaScript",
    folder=ROOT / "sample_bots" / "javascript",
    build=build,
    tools=("node",),
    bot_name="javascript-ducker",
    passes=("AH", "AS", "KC"),
    plays=(
        Position(("9D",), ("TD", "KD", "2D"), "2D"),  # the lowest card that ducks
        Position(("9D",), ("TD", "KD"), "TD"),  # cannot duck: the lowest
        Position(("9D", "QD"), ("TD", "KD", "AD"), "TD"),  # ducks under the queen
        Position(("9D", "QD"), ("KD", "AD"), "KD"),
        Position((), ("5C", "3H", "9S"), "3H"),  # leading: every card wins so far, so the lowest
        Position(("9D",), ("QS", "AH", "4C"), "4C"),  # void: nothing wins, so the lowest
    ),
    max_id=2**53 - 1,  # a JSON number: exact up to 2**53
    line_limit=False,  # it reads a line of any length
    probe=StateProbe(
        build=build_probe,
        expected=lambda view, scores, _: probe_state(view, scores),
        presets=("american", "double-deck"),
        sort=("hand",),
    ),
    tcp=Tcp(),
)
