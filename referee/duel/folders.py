"""Why a bot of a duel is not shown its folder whole, and the fix: a folder of its own
(``dir=FOLDER``, or ``folder =`` for a bot of a list) and the database outside it.

The sandbox shows a bot the folder it starts in whole only when that folder is its own
(``referee.sandbox.sight.own_folder``): no other bot's files and none of the referee's lie in
it. Otherwise the bot sees only the paths its command names, and a bot spread over folders
(``bin/`` loading ``src/`` and ``vendor/``, a config file read by a relative path) fails to
start. ``referee duel "php bin/bot" "php ../previous/bin/bot"`` run from the new version's
folder is such a case: OLD starts there too and names ``../previous``, so the folder is the
bot's of neither. The ladder says the same of its bot lists
(``referee.ladder.roll_call.crowded_folders``); this says it with a duel's fixes."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from referee.ladder.roll_call import OTHER_BOTS, crowding, some
from referee.ladder.runner import RunOptions


def crowded_lines(
    commands: Mapping[str, str], names: Sequence[str], options: RunOptions, listed: Collection[str] = ()
) -> list[str]:
    """One line for each folder that bots of ``names`` start in and use but that is shown whole
    to none of them (``roll_call.crowding``): what lies in it (other bots' files, the duel's
    database and logs) and what to do about each. ``listed``: the bots of a TOML bot list
    (``--bots``, ``--pool``), whose folder is the list's ``folder =``, not a ``dir=``."""
    crowded, referees = crowding(commands, names, options)
    return [_line(folder, bots, paths, referees, listed) for folder, (bots, paths) in crowded.items()]


def _line(folder: str, bots: Sequence[str], paths: Sequence[str], referees: set[str], listed: Collection[str]) -> str:
    theirs = [p for p in paths if p not in referees]
    ours = [p for p in paths if p in referees]
    held = [f"{OTHER_BOTS} ({some(theirs)})"] if theirs else [] if ours else [OTHER_BOTS]
    held += [f"the referee's files ({some(ours)})"] if ours else []
    fixes = [own_folders(bots, listed)]
    fixes += ["and --db outside every bot's folder"] if ours else []
    return (
        f"the folder {folder} is used by {', '.join(bots)} but holds {' and '.join(held)}: it is shown whole to none "
        f"of them, only the paths each command names, so a bot that loads files it does not name fails "
        f"({'; '.join(fixes)}; docs/testing-bots.md)"
    )


def own_folders(bots: Sequence[str], listed: Collection[str]) -> str:
    """The fix for ``bots``: a folder of its own each, given as each was named: ``dir=`` for a
    command line, ``folder =`` for a bot of a list (as the ladder says: it has no ``dir=``)."""
    by_line = 'dir=FOLDER as its first word, e.g. "dir=../previous php bin/bot"'
    by_list = 'folder = "FOLDER" in its entry of the bot list, e.g. folder = "new"'
    lines = [b for b in bots if b not in listed]
    lists = [b for b in bots if b in listed]
    if not lists:
        ways = by_line
    elif not lines:
        ways = by_list
    else:
        ways = f"{', '.join(lines)}: {by_line}; {', '.join(lists)}: {by_list}"
    return f"give each bot a folder of its own: {ways}"
