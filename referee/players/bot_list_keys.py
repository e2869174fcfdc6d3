"""A bot list read strictly: a key the referee does not know is an error, never ignored
(``buidl = "make"`` would run no build and then say "there is no ./bot"), and every error
names the entry it is in, by its name when it has one, else by its number, with the line of
its ``[[bot]]`` header. A file with no ``[[bot]]`` table is no bot list (the path may name any
file of the organizer's: a symlinked ``.env`` is valid TOML), and its key names are never
quoted: only a key that is a typo of a bot list's own (``[[bots]]``) is named, with its fix.

Pure: it looks at the parsed TOML (and the text, for line numbers) and says what is wrong."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence

LIST_KEYS = ("bot", "cwd")
"""The keys of a bot list's top level."""
ENTRY_KEYS = ("name", "command", "build", "folder", "build_timeout")
"""The keys of one ``[[bot]]`` entry (``BotEntry``'s fields)."""

_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*bot[ \t]*\]\]", re.MULTILINE)


def header_lines(text: str) -> list[int]:
    """The line numbers (1, 2, ...) of the ``[[bot]]`` headers, in order."""
    return [text.count("\n", 0, m.start()) + 1 for m in _HEADER.finditer(text)]


def entry_label(index: int, entry: object, lines: Sequence[int]) -> str:
    """How an error names an entry: ``bot 'x' (entry 2, line 7)``, or ``bot entry 2 (line 7)``
    when it has no name to show."""
    where = f"line {lines[index]}" if index < len(lines) else ""
    name = entry.get("name") if isinstance(entry, Mapping) else None
    if isinstance(name, str) and name.strip() and name.isprintable() and len(name) <= 80:
        return f"bot {name!r} (entry {index + 1}{', ' + where if where else ''})"
    return f"bot entry {index + 1}{' (' + where + ')' if where else ''}"


def unknown_key(key: str, known: Sequence[str]) -> str:
    """The refusal of an unknown key, with the closest known one when there is one."""
    close = _closest(key, known)
    hint = f": did you mean `{close}`?" if close else f" (known: {', '.join(known)})"
    return f"unknown key `{key}`{hint}"


def _closest(key: str, known: Sequence[str]) -> str | None:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return close[0] if close else None


def not_a_list(data: Mapping[str, object]) -> str:
    """Why a file without a ``[[bot]]`` table is refused, naming none of its keys but the typos of a
    list's own (see the module's docstring): those of another file are not the referee's to
    print, in a warning any viewer of the run's output may read."""
    typos = [k for k in data if k not in LIST_KEYS and _closest(k, LIST_KEYS)]
    others = sum(1 for k in data if k not in LIST_KEYS) - len(typos)
    said = ["not a bot list: it has no [[bot]] table"]
    said += [f"the list: {unknown_key(k, LIST_KEYS)}" for k in typos]
    if others:
        said.append(f"{others} other key{'s' if others > 1 else ''} no bot list has (not shown)")
    return "; ".join(said)


def key_problems(data: Mapping[str, object], text: str) -> list[str]:
    """Every unknown key of the list and of its entries, and every duplicate name, each naming
    where it is; empty when the keys are right (their values are checked after). For a file
    with no ``[[bot]]`` table, one problem: ``not_a_list``."""
    entries = data.get("bot")
    if not isinstance(entries, list):
        return [not_a_list(data)]
    problems = [f"the list: {unknown_key(k, LIST_KEYS)}" for k in data if k not in LIST_KEYS]
    lines = header_lines(text)
    seen: dict[str, str] = {}
    for index, entry in enumerate(entries):
        label = entry_label(index, entry, lines)
        if not isinstance(entry, Mapping):
            problems.append(f"{label}: not a table of keys")
            continue
        problems += [f"{label}: {unknown_key(k, ENTRY_KEYS)}" for k in entry if k not in ENTRY_KEYS]
        name = entry.get("name")
        if isinstance(name, str):
            if name in seen:
                problems.append(f"{label}: the name {name!r} is taken by {seen[name]}; every bot needs its own")
            else:
                seen[name] = label
    return problems


_ENTRY_PATH = re.compile(r"\$\.bot\[(\d+)\]")


def where_in_list(message: str, data: Mapping[str, object], text: str) -> str:
    """A validation message (``... - at `$.bot[1].command```) with the entry it is about named
    in front of it."""
    found = _ENTRY_PATH.search(message)
    entries = data.get("bot")
    if found is None or not isinstance(entries, list) or int(found.group(1)) >= len(entries):
        return message
    index = int(found.group(1))
    return f"{entry_label(index, entries[index], header_lines(text))}: {message}"
