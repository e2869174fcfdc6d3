"""``referee ladder export DIR``: the ladder's public pages as a static site, to put on any
static web host (or open from the files), with no server at all.

The pages are made by the live pages' own renderers (``board_body``, ``bot_body``,
``matches_body``, ``page``, and ``Logs.replay_page`` for the verified replays), so the copy
shows what the live pages show, with the public view's rule (``visibility``: no bot's stderr,
each fault by its reason) and without the organizer's paths (``referee.web.public``, applied by
the renderers as live). What only a server can do is left out: the script that asks for updates,
the tables in play, the match list's filter form. Each bot's page has its "where this bot loses
points" as live (``referee.web.ladder.losses``, from what ``referee ladder analyze`` stored), its
links to a step of a replay kept when the copy holds that replay, left as text otherwise. Every
link is made relative to its page (``site_paths``), so the copy works from ``file://`` and under
any path prefix.

Everything the pages show is read in one read transaction (the copy is of one moment of the
ladder, however many matches end while it is made); the replays are then read from the logs
folder, the latest ``replays`` of them, since a replay page is the heaviest part (a log is read
and verified through the rules: some 0.1 s and 0.1 MB a match of 14 rounds). The files are written into a
new folder that replaces DIR only when complete (``site_folder``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from markupsafe import Markup

from referee.errors import LadderError
from referee.ladder.setup import logs_folder
from referee.store.analysis import SeatAnalysis
from referee.store.reader import LadderReader
from referee.web.ladder import queries
from referee.web.ladder.board import board_body
from referee.web.ladder.bot import bot_body
from referee.web.ladder.lists import matches_body
from referee.web.ladder.logs import Logs
from referee.web.ladder.markup import page
from referee.web.ladder.match_rows import FinishedMatch, finished_matches, match_pages, matches_csv, matches_json
from referee.web.ladder.reading import Reading
from referee.web.ladder.site_folder import NewFolder, check_folder, write_folder
from referee.web.ladder.site_paths import INDEX, STYLE, Site, bot_file, matches_file, replay_file
from referee.web.ladder.visibility import public_bot_view, public_record
from referee.web.server import STATIC

CSV_FILE = "matches.csv"
JSON_FILE = "matches.json"
Progress = Callable[[int, int], None]
"""Told the replays done and asked for, after each."""


@dataclass
class Moment:
    """What the copy shows, read in one read transaction, and when it was made."""

    ladder: str
    made: str
    stamp: str
    seats: int
    board: queries.Board
    bots: list[queries.BotView]
    names: list[str]
    lists: dict[str | None, list[queries.MatchList]]
    matches: list[FinishedMatch]
    asked: list[str]
    """The keys of the matches whose replay is asked for, newest first."""
    logs: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    """Of those, each one the database has a log for: its log, match id and seats' names."""
    analyses: dict[str, list[SeatAnalysis]] = field(default_factory=dict)
    """Each bot's latest analysed seats, newest first: its page's "where this bot loses points"."""


@dataclass(frozen=True)
class Exported:
    """What was written: for the command's last lines and the tests."""

    folder: Path
    files: int
    bytes: int
    bots: int
    finished: int
    asked: int
    """Replays asked for: the latest ``replays`` finished matches (all by default)."""
    replays: int
    """Replay pages written; ``asked - replays`` logs could not be read."""
    unreadable: list[str]


def export_ladder(
    db: Path,
    folder: Path,
    *,
    replays: int | None = None,
    force: bool = False,
    made: str | None = None,
    progress: Progress | None = None,
) -> Exported:
    """The copy of the ladder in ``db`` written to ``folder``; ``replays``: how many of the
    latest finished matches get a replay page (``None``: all); ``progress``: told after each
    replay (done, asked), the slow part."""
    made = made or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    _not_the_ladders(db, folder)
    check_folder(folder, force)  # at once: the read may take seconds (and again before DIR is replaced)
    reading = Reading(db)
    try:
        moment = reading.read(lambda reader: _read(reader, replays, db.stem, made))
    finally:
        reading.close()
    logs = Logs(logs_folder(db))
    written = write_folder(folder, lambda out: _write(out, moment, logs, progress), force=force)
    return replace(written, folder=Path(os.path.abspath(folder)))


def _not_the_ladders(db: Path, folder: Path) -> None:
    """A DIR that holds the ladder (its database, its logs) is refused: ``--force`` would
    replace it with the copy."""
    where = folder.resolve()
    for own in (db, logs_folder(db)):
        if own.resolve().is_relative_to(where):
            raise LadderError(f"{folder}: holds the ladder's {own.name}: the copy goes in a folder of its own")


def _read(reader: LadderReader, replays: int | None, ladder: str, made: str) -> Moment:
    names = queries.bot_names(reader)
    views = [view for name in names if (view := queries.bot_view(reader, name)) is not None]
    matches = finished_matches(reader)
    lists = {bot: match_pages(matches, bot) for bot in [None, *names]}
    latest = matches[::-1] if replays is None else matches[::-1][:replays]
    logs = {m.key: found for m in latest if (found := queries.match_log(reader, m.key)) is not None}
    seats = max((len(m.seats) for m in matches), default=reader.settings().rules.players)
    asked = [m.key for m in latest]
    board = queries.board(reader)
    analyses = {view.version.name: queries.bot_analyses(reader, view.version.name) for view in views}
    return Moment(ladder, made, queries.stamp(reader), seats, board, views, names, lists, matches, asked, logs,
                  analyses)  # fmt: skip


def _write(out: NewFolder, moment: Moment, logs: Logs, progress: Progress | None) -> Exported:
    site = Site(lists={bot: found[0].pages for bot, found in moment.lists.items()})
    for view in moment.bots:
        site.add_bot(view.version.name)
    unreadable = []
    for done, key in enumerate(moment.asked, 1):
        found = moment.logs.get(key)
        body = None if found is None else logs.replay_page(*found, shown=public_record)
        if body is None:
            unreadable.append(key)
        else:
            out.write(replay_file(key), body)
            site.add_replay(key)
        if progress is not None:
            progress(done, len(moment.asked))

    def write_page(at: str, title: str, body: Markup, section: str) -> None:
        whole = page(title, moment.ladder, body, stamp=moment.stamp, tables="", section=section, copy=moment.made)
        out.write(at, site.relink(whole, at))

    out.write(STYLE, (STATIC / STYLE).read_bytes())
    write_page(INDEX, "Leaderboard", board_body(moment.board), "board")
    for view in moment.bots:
        name = view.version.name
        body = bot_body(public_bot_view(view), logs.times(view.recent), details=False,
                        analyses=moment.analyses.get(name, []))  # fmt: skip
        write_page(bot_file(view.version.name), view.version.name, body, "bot")
    for bot, listing in moment.lists.items():
        for listed in listing:
            write_page(matches_file(bot, listed.page), "Matches", matches_body(listed, moment.names), "matches")
    rows = [_with_replay(m, site) for m in moment.matches]
    out.write(CSV_FILE, matches_csv(rows, moment.seats))
    out.write(JSON_FILE, matches_json(rows, moment.ladder, moment.made))
    return Exported(out.root, out.files, out.bytes, len(moment.bots), len(moment.matches), len(moment.asked),
                    len(site.replays), unreadable)  # fmt: skip


def _with_replay(match: FinishedMatch, site: Site) -> FinishedMatch:
    return replace(match, replay=replay_file(match.key)) if match.key in site.replays else match
