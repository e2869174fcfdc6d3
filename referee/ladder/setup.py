"""Create a ladder, or resume one: the database must have been made from the same bots and
rules, and a larger ``--games`` schedules more sets after the ones it has."""

from __future__ import annotations

import fcntl
import os
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from protocol.ruleset import RuleSet
from referee.bot_config import BotEntry
from referee.ladder.errors import LadderError
from referee.ladder.schedule import draw_sets, extend_sets
from referee.ladder.store import LadderSettings, LadderStore

DEFAULT_GAMES = 20
"""Duplicate sets of a new ladder when ``--games`` is not given."""


def logs_folder(db: str | Path) -> Path:
    """Where a ladder's replay logs go: ``NAME-logs/`` beside ``NAME.db``."""
    path = Path(db)
    return path.with_name(f"{path.stem}-logs")


@contextmanager
def run_lock(db: str | Path) -> Iterator[None]:
    """Only one ``ladder run`` at a time per database: an advisory lock on ``DB.lock``,
    released by the system when the process ends, however it ends."""
    path = Path(f"{db}.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LadderError(f"{db} is in use by another `referee ladder run`") from None
        yield
    finally:
        os.close(fd)


def open_ladder(
    db: str | Path,
    entries: Sequence[BotEntry],
    rules: RuleSet | None,
    *,
    games: int | None = None,
    seed: int | None = None,
    default_rules: RuleSet,
) -> tuple[LadderStore, list[str]]:
    """The ladder in ``db``, created with its whole schedule if it is new. ``rules``,
    ``games`` and ``seed`` are what the user asked for (``None``: not given). Returns the
    store and notes for the user; raises ``LadderError`` when the database belongs to another
    ladder."""
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise LadderError("bot names in the config must be unique")
    if len(entries) < 2:
        raise LadderError("a ladder needs at least two bots")
    if games is not None and games < 1:
        raise LadderError("--games must be at least 1")
    store = LadderStore(db)
    notes: list[str] = []
    if not store.initialized:
        rules = rules or default_rules
        ladder_seed = secrets.randbelow(2**31) if seed is None else seed
        count = DEFAULT_GAMES if games is None else games
        settings = LadderSettings(
            ladder_seed=ladder_seed, rules=rules, games=count, created=datetime.now(UTC).isoformat(timespec="seconds")
        )
        sets = draw_sets(names, rules.players, ladder_seed, count)
        store.initialize(settings, [(e.name, e.command) for e in entries], sets)
        plural = "s" if count != 1 else ""
        notes.append(f"new ladder: {count} duplicate set{plural} of {rules.players} matches, ladder seed {ladder_seed}")
        return store, notes
    settings = store.settings()
    stored_bots = store.bots()
    if sorted(stored_bots) != sorted((e.name, e.command) for e in entries):
        listed = ", ".join(f"{n} ({c})" for n, c in stored_bots)
        store.close()
        raise LadderError(f"{db} is a ladder of other bots: {listed}; use the same config or another --db")
    if rules is not None and msgspec.json.encode(rules) != msgspec.json.encode(settings.rules):
        store.close()
        raise LadderError(f"{db} is a ladder of {settings.rules.name} with other rules; use another --db")
    if seed is not None and seed != settings.ladder_seed:
        store.close()
        raise LadderError(f"{db} has ladder seed {settings.ladder_seed}, not {seed}")
    existing = store.sets()
    if games is not None and games > len(existing):
        more = extend_sets(names, settings.rules.players, settings.ladder_seed, existing, games)
        store.extend(more, games)
        notes.append(f"scheduled {len(more)} more duplicate sets ({games} in all)")
    elif games is not None and games < len(existing):
        notes.append(f"the ladder already has {len(existing)} duplicate sets; they all stay scheduled")
    done, total = store.progress()
    notes.append(f"resuming: {done} of {total} matches done")
    return store, notes
