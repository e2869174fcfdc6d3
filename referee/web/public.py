"""Text shown to whoever opens a page, without the absolute paths of the organizer's machine.

A ladder's pages (a bot's faults, hints, stderr and command, a match's replay) and the live
table's messages are read by every viewer, and by every entrant. What the referee wrote there
names the organizer's files: ``cannot start bot 'python3 /root/ladders/class/bots/alice/bot.py'``,
a log in ``/root/ladders/class/class-logs/``, a build's copy in ``/tmp/hearts-builds-x1/alice-y2``.
None of that is a viewer's business, and a folder's name (a user name, a class, a layout) is
something an attacker would like to know. So every such text goes through ``Public.text`` (or
``Public.json`` for a message already encoded) just before it is shown:

- a path in a known place (the ladder's folder, which holds its database, its logs folder and
  usually its bot list) is written from that place's label: ``<ladder>/bots/alice/bot.py``;
- a path into a build's copy is written from ``<build>``: ``<build>/target/bot``;
- any other path in a home folder (``/root/...``, ``/home/NAME/...``) keeps its last two
  parts after a mark: ``…/.ssh/id_rsa``;
- every other path (``/usr/bin/python3``, ``/opt/jdk``) is left as it is: the same on every
  machine, and often what the bot's author needs to read.

Pure text work: no path is looked up here (the places are given), so that what a page says never
depends on what a bot named.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

MARK: Final = "…"
"""What stands for the part of a home path that is left out."""
LADDER: Final = "<ladder>"
BUILD: Final = "<build>"
KEPT_PARTS: Final = 2
"""Parts of a home path kept after the mark."""
BUILDS: Final = "hearts-builds-"
"""How the scratch folder of build copies starts (``referee.players.build_folder``)."""
_STOP: Final = r"\s'\"`()<>,;:\\"
"""Characters that end a path in running text (and in JSON text: a quote, an escape). A path
may start anywhere, even after a letter: in JSON text a line break before it is ``\\n``, in a
terminal's colours ``m``."""
_HOME: Final = re.compile(r"/+(?:root|home/+[^/]+)(?=/|$)")


@dataclass(frozen=True)
class Public:
    """The known places of one view, each with the label it is written from
    (``(absolute folder, label)``); the deepest place that holds a path wins."""

    places: tuple[tuple[str, str], ...] = ()

    def text(self, text: str) -> str:
        """``text`` with every absolute path of the organizer's machine made relative to a
        known place, or shortened (see the module's docstring)."""
        labels = _spellings(self.places)

        def replace(found: re.Match[str]) -> str:
            place = found.groupdict().get("place")
            if place is not None:
                return labels[place] + (found.group("rest") or "")
            return shorten(found.group("path"))

        return _pattern(self.places).sub(replace, text)

    def lines(self, lines: Sequence[str]) -> list[str]:
        """Several lines (a bot's stderr), each made public."""
        return [self.text(line) for line in lines]

    def json(self, data: bytes) -> bytes:
        """A JSON text made public as ``text`` does: a path ends at a quote or an escape and
        what replaces it holds neither, so the result is JSON still, of the same structure."""
        return self.text(data.decode("utf-8", errors="replace")).encode()


NOWHERE: Final = Public()
"""A view that knows no place: home paths and build copies shortened, nothing else."""


def shorten(path: str) -> str:
    """A path no known place holds: from ``<build>`` in a build's copy, shortened after a mark
    in a home folder, else as it is."""
    parts = path.split("/")
    for index, part in enumerate(parts):
        if part.startswith(BUILDS):  # the scratch folder, then the copy's own folder
            return "/".join([BUILD, *parts[index + 2 :]])
    home = _HOME.match(path)
    if home is None:
        return path
    rest = [p for p in path[home.end() :].split("/") if p]
    return "/".join([MARK, *rest[-KEPT_PARTS:]])


@functools.lru_cache(maxsize=64)
def _spellings(places: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """Each place as it may be written (as given, and as a JSON string spells it: a folder
    with a quote or a backslash in its name), deepest first, with its label."""
    spelt: dict[str, str] = {}
    for folder, label in sorted(places, key=lambda place: -len(place[0])):
        for form in (folder, json.dumps(folder, ensure_ascii=False)[1:-1]):
            if form and form != "/":
                spelt.setdefault(form, label)
    return dict(sorted(spelt.items(), key=lambda item: -len(item[0])))


@functools.lru_cache(maxsize=64)
def _pattern(places: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """One pass over a text: a known place (and the rest of its path) where one starts, else
    any path. One pass, so that what was written from a label is never looked at again."""
    known = "|".join(re.escape(folder) for folder in _spellings(places))
    place = rf"(?P<place>{known})(?P<rest>/[^{_STOP}]*)?(?![^{_STOP}])|" if known else ""
    return re.compile(rf"{place}(?P<path>/[^{_STOP}]+)")


def _forms(folder: str) -> list[str]:
    """A folder as the referee may have written it: absolute, and with its links resolved
    (the organizer's own folder: never a path a bot named)."""
    return list(dict.fromkeys([folder, os.path.realpath(folder)]))


def ladder_public(db: str | Path) -> Public:
    """What a ladder's pages may say: paths in the ladder's folder (the database's, which
    holds its logs folder and, by default, its bot list) from ``<ladder>``."""
    return _public(os.path.dirname(os.path.abspath(db)), LADDER)


def log_public(log: str | Path) -> Public:
    """What a page that follows ``log`` may say: a ladder's log (in its ``NAME-logs`` folder,
    ``referee.ladder.setup.logs_folder``) as a ladder's page does; any other knows no place
    (a log in ``/tmp`` does not make ``/tmp`` a ladder), its home paths shortened all the same."""
    folder = os.path.dirname(os.path.abspath(log))
    if os.path.basename(folder).endswith("-logs"):
        return _public(os.path.dirname(folder), LADDER)
    return NOWHERE


@functools.lru_cache(maxsize=64)
def _public(folder: str, label: str) -> Public:
    return Public(tuple((form, label) for form in _forms(folder)))
