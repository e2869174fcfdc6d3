"""Create a ladder, or resume one: the database must have been made with the same rules and
seed; its bots follow the bot list (``referee.ladder.pool``), and a larger ``--games`` (or new
versions to catch up) schedules more sets after the ones it has."""

from __future__ import annotations

import fcntl
import math
import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from protocol.ruleset import RuleSet
from referee.errors import LadderError
from referee.ladder.pool import pool_change
from referee.ladder.schedule import first_sets
from referee.players.bot_config import BotEntry
from referee.private_files import close_up as close_up_fd
from referee.private_files import open_no_link, private_folder, trusted_file
from referee.seeds import random_seed
from referee.store.records import LadderSettings, PoolChange
from referee.store.writer import LadderStore

DEFAULT_GAMES = 20
"""Duplicate sets of a new ladder when ``--games`` is not given."""


def logs_folder(db: str | Path) -> Path:
    """Where a ladder's replay logs go: ``NAME-logs/`` beside ``NAME.db``."""
    path = Path(db)
    return path.with_name(f"{path.stem}-logs")


@contextmanager
def run_lock(db: str | Path) -> Iterator[None]:
    """Only one ``ladder run`` at a time per database: an advisory lock on ``DB.lock`` (mode
    0600), released by the system when the process ends, however it ends."""
    path = lock_path(db)
    fd = open_no_link(path, os.O_RDWR | os.O_CREAT)
    try:
        close_up_fd(fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LadderError(f"{db} is in use by another `referee ladder run`") from None
        yield
    finally:
        os.close(fd)


def lock_path(db: str | Path) -> Path:
    return Path(f"{db}.lock")


def private_files(db: str | Path) -> list[Path]:
    """The ladder's own files, which no bot may see: the database with its journal, WAL and
    shared-memory files, the run lock and the logs folder (whether they exist yet or not)."""
    return [Path(f"{db}{suffix}") for suffix in ("", "-journal", "-wal", "-shm", ".lock")] + [logs_folder(db)]


def close_up(db: str | Path) -> None:
    """Before the ladder's files are opened: each that exists must be a regular file of the
    referee's own user, never a link (a forged ``-wal`` replayed by SQLite would rewrite the
    ratings), made 0600 (ladders made before the files were private were 0644); the logs
    folder too, made 0700. Raises ``UntrustedFile`` naming the file and the way out."""
    for path in private_files(db)[:-1]:
        trusted_file(path)
    folder = logs_folder(db)
    if folder.is_symlink() or folder.exists():
        private_folder(folder)


def open_ladder(
    db: str | Path,
    entries: Sequence[BotEntry],
    rules: RuleSet | None,
    *,
    games: int | None = None,
    seed: int | None = None,
    default_rules: RuleSet,
) -> tuple[LadderStore, list[str]]:
    """The ladder in ``db``, created if it is new, its pool brought to ``entries`` if not
    (``referee.ladder.pool``: new entrants and versions join, removed ones retire). ``rules``,
    ``games`` and ``seed`` are what the user asked for (``None``: not given). Sets are drawn as
    tables free up (``referee.ladder.feed``). Returns the store and notes for the user; raises
    ``LadderError`` when the database belongs to another ladder."""
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise LadderError("bot names in the config must be unique")
    if len(entries) < 2:
        raise LadderError("a ladder needs at least two bots")
    if games is not None and games < 1:
        raise LadderError("--games must be at least 1")
    store = LadderStore(db)
    try:
        if not store.initialized:
            return store, _create(store, entries, rules or default_rules, games, seed)
        _check_same_ladder(db, store, entries, rules, seed)
        return store, _follow_pool(store, entries, games)
    except BaseException:
        store.close()
        raise


def _create(
    store: LadderStore, entries: Sequence[BotEntry], rules: RuleSet, games: int | None, seed: int | None
) -> list[str]:
    now = _now()
    ladder_seed = random_seed() if seed is None else seed
    count = DEFAULT_GAMES if games is None else games
    settings = LadderSettings(ladder_seed=ladder_seed, rules=rules, games=count, created=now)
    first = first_sets([e.name for e in entries], rules.players, ladder_seed, count)
    store.initialize(settings, pool_change([], entries, now).added, first)
    plural = "s" if count != 1 else ""
    return [f"new ladder: {count} duplicate set{plural} of {rules.players} matches, ladder seed {ladder_seed}"]


def _follow_pool(store: LadderStore, entries: Sequence[BotEntry], games: int | None) -> list[str]:
    """Bring a ladder's pool to ``entries`` and its sets to ``games`` (when more); notes."""
    settings = store.settings()
    change = _pool_change(store, entries)
    notes = change.describe()
    target = settings.games
    if games is not None and games > settings.games:
        target = games
        more = games - settings.games
        notes.append(f"scheduled {more} more duplicate set{'s' if more != 1 else ''} ({games} in all)")
    elif games is not None and games < settings.games:
        notes.append(f"the ladder already has {settings.games} duplicate sets; they all stay scheduled")
    extra = sets_for_newcomers(store, change)
    if extra:
        target += extra
        notes.append(catch_up_line(extra, target))
    if not change.empty or target != settings.games:
        dropped = store.change_pool(change, target)
        if dropped:
            notes.append(
                f"{len(dropped)} set{'s' if len(dropped) != 1 else ''} not begun with retired versions drawn again"
            )
    done, total = store.progress()
    notes.append(f"resuming: {done} of {total} matches done")
    return notes


def _pool_change(store: LadderStore, entries: Sequence[BotEntry]) -> PoolChange:
    try:
        return pool_change(store.versions(), entries, _now())
    except ValueError as err:
        raise LadderError(f"{store.path}: {err}; give the entrant another name") from None


def sets_for_newcomers(store: LadderStore, change: PoolChange) -> int:
    """Sets to add so that the new versions sit at about as many sets as the versions playing
    before the change had, on average (each new set seats the newcomers first): none for a
    ladder that has not drawn a set yet."""
    if not change.added:
        return 0
    new = {v.name for v in change.added}
    joined = store.active()  # before the change: the versions it replaces count too (all may be new)
    if not joined:
        return 0
    seen = Counter(name for s in store.sets() for name in set(s.table))
    mean = sum(seen[n] for n in joined) / len(joined)
    seats = store.settings().rules.players
    return math.ceil(len(new) * mean / min(len(new), seats))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def check_same_ladder(db: str | Path, entries: Sequence[BotEntry], rules: RuleSet | None, seed: int | None) -> None:
    """Before anything is built or started: when ``db`` holds a ladder, raise ``LadderError``
    unless the rules (when given) and the seed (when given) are the ones it was made with and
    the bot list can be followed (its bots may differ: the pool changes). The message lists
    every difference and the two ways to go on."""
    if not Path(db).is_file():
        return
    store = LadderStore(db)
    try:
        if store.initialized:
            _check_same_ladder(db, store, entries, rules, seed)
            _pool_change(store, entries)
    finally:
        store.close()


def _check_same_ladder(
    db: str | Path, store: LadderStore, entries: Sequence[BotEntry], rules: RuleSet | None, seed: int | None
) -> None:
    duel = store.meta_value("duel")
    if duel is not None:
        kind = duel.get("kind", "duel") if isinstance(duel, dict) else "duel"
        raise LadderError(
            f"{db} is the database of a `referee {kind}`, not a ladder: run that command again to go on, or"
            f" give `ladder run` another --db (for example --db {_free_name(db)})"
        )
    settings = store.settings()
    differences = []
    if rules is not None:
        changed = rule_differences(settings.rules, rules)
        if changed:
            differences.append(f"it is a ladder of {settings.rules.name} with other rules ({changed})")
    if seed is not None and seed != settings.ladder_seed:
        differences.append(f"it has ladder seed {settings.ladder_seed}, not {seed}")
    if not differences:
        return
    done, _ = store.progress()
    keep = "run with the rules it was made with" + (" (without --variant/--set)" if rules is not None else "")
    keep += " and without --seed" if seed is not None else ""
    fresh = f"start a new ladder with another --db (for example --db {_free_name(db)})"
    if done == 0:
        fresh += f"; no match of it is finished, so deleting {db} loses nothing"
    raise LadderError(f"{db} was made with other settings: {'; '.join(differences)}. To go on: {keep}, or {fresh}")


def bot_differences(stored: Mapping[str, str], given: Mapping[str, str]) -> list[str]:
    """What differs between a ladder's bots and a config's, by name then command: as
    sentences, empty when they are the same bots."""
    added = [n for n in given if n not in stored]
    removed = [n for n in stored if n not in given]
    changed = [f"{n} runs {given[n]!r}, not {stored[n]!r}" for n in given if n in stored and given[n] != stored[n]]
    parts = [f"added {', '.join(added)}"] if added else []
    parts += [f"removed {', '.join(removed)}"] if removed else []
    parts += changed
    return [f"the config has other bots ({'; '.join(parts)})"] if parts else []


def rule_differences(stored: RuleSet, given: RuleSet) -> str:
    """The options (name and description aside) in which ``given`` differs from ``stored``,
    as ``option: stored -> given`` pairs; empty when the rules are the same."""
    before = msgspec.to_builtins(stored)
    after = msgspec.to_builtins(given)
    changed = [k for k in before if k not in ("name", "description") and before[k] != after[k]]
    if not changed and before != after:
        changed = [k for k in before if before[k] != after[k]]
    return ", ".join(f"{k}: {before[k]!r} in the ladder, {after[k]!r} given" for k in changed)


def _free_name(db: str | Path) -> str:
    """A database name beside ``db`` that is not taken: ``NAME-2.db``, ``NAME-3.db``, ..."""
    path = Path(db)
    number = 2
    while (candidate := path.with_name(f"{path.stem}-{number}{path.suffix}")).exists():
        number += 1
    return str(candidate)


def catch_up_line(extra: int, games: int) -> str:
    """What a start and a live edit say of the sets added for new versions to catch up."""
    return f"{extra} more duplicate set{'s' if extra != 1 else ''} for the new versions to catch up ({games} in all)"
