"""What the ladder's store takes and gives back: plain records of settings, results, figures
and faults, free of SQL (the tables they come from are in ``referee.store.schema``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from protocol.ruleset import RuleSet
from referee.shared import BotEntry, FaultReport
from referee.stats.ratings import finishing_ranks


@dataclass(frozen=True)
class LadderSettings:
    """What a ladder was created with; its schedule follows from these and the bot names."""

    ladder_seed: int
    rules: RuleSet
    games: int
    """Duplicate sets scheduled."""
    created: str


@dataclass(frozen=True)
class Finalist:
    """A bot of the season's final, with its rating when the regular season ended (the
    ratings of the regular season, kept apart from what the final's matches do to them)."""

    bot: str
    mu: float
    sigma: float


@dataclass(frozen=True)
class Season:
    """A ladder's season, as the ``season`` table keeps it (``referee.ladder.season``): times
    in ISO 8601, UTC."""

    ends: str | None = None
    """No duplicate set begins after it; then the final, if any, and the run ends."""
    closes: str | None = None
    """Submissions close: no new version is taken after it (never after ``ends``)."""
    final_top: int = 0
    """The final seats the best this many of the standings at the end (0: no final)."""
    final_sets: int = 0
    """Duplicate sets the final plays."""
    ends_given: str | None = None
    """``--season-end`` as the organizer gave it (``+3d``): the same words again ask for the
    same season, however much later the run is started again."""
    closes_given: str | None = None
    finalists: tuple[Finalist, ...] | None = None
    """Chosen when the regular season's last set ended, best first; ``None`` until then."""
    regular_ended: str | None = None

    @property
    def has_final(self) -> bool:
        return self.ends is not None and self.final_top >= 2 and self.final_sets >= 1


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot: str
    score: int
    status: str
    moons: int
    win: float


@dataclass(frozen=True)
class StoredMatch:
    """A finished match, as the ladder keeps it."""

    match: ScheduledMatch
    match_id: str
    reason: str
    rounds: int
    decisions: int
    log: str | None
    seats: list[SeatResult]
    sandboxed: bool | None = None
    """Whether the bots ran in the bubblewrap sandbox (``None``: not said)."""
    fresh_bots: bool | None = None
    """Whether every bot process was started for this match (``False``: ``--keep-bots``)."""
    faults: list[FaultReport] = field(default_factory=list)
    """Every fault of the match, explained (``MatchOutcome.faults``), in order."""

    @property
    def ranks(self) -> list[int]:
        return finishing_ranks([s.score for s in self.seats], [s.status != "ok" for s in self.seats])


@dataclass(frozen=True)
class BotFigures:
    """A bot's totals over the matches it played."""

    bot: str
    matches: int
    seats: int
    wins: float
    score: int
    rounds: int
    """Rounds summed over its seats (for points per round)."""
    moons: int
    crashes: int
    timeouts: int
    errors: int
    """Drops for any other reason (bad JSON, illegal move, protocol violation, ...)."""
    sandboxed: int = 0
    """Matches it played with its bots in the sandbox."""
    fresh_bots: int = 0
    """Matches it played with freshly started bot processes."""


@dataclass(frozen=True)
class ResultModes:
    """How the done matches of a ladder were played: counts of matches."""

    matches: int
    sandboxed: int
    unsandboxed: int
    fresh_bots: int
    kept_bots: int
    unknown: int
    """Matches recorded before the ladder kept the mode (either column NULL)."""

    @property
    def all_safe(self) -> bool:
        """Every result came from sandboxed, freshly started bots."""
        return self.sandboxed == self.fresh_bots == self.matches


@dataclass(frozen=True)
class Drop:
    """A seat of a done match whose bot was dropped (``results.status`` other than ``ok``)."""

    match: str
    """The match's key, ``SET-ROTATION`` (its log's name)."""
    seq: int
    seat: int
    bot: str
    reason: str
    log: str | None


@dataclass(frozen=True)
class StoredFault:
    """A fault of a done match as the ``faults`` table keeps it, explained; the report's
    ``name`` is the ladder's name of the bot."""

    match: str
    seq: int
    log: str | None
    report: FaultReport


@dataclass(frozen=True)
class BotVersion:
    """One version of an entrant, as the ladder keeps it."""

    name: str
    """Its name in results, ratings and logs: the entrant's for version 1, else ``NAME@N``."""
    entrant: str
    version: int
    command: str
    entry: BotEntry | None
    """The bot list's entry it was made from, under the entrant's name (``None``: a ladder
    from before schema 6 kept the command only)."""
    position: int
    replaces: str | None = None
    added: str | None = None
    retired: str | None = None

    @property
    def active(self) -> bool:
        return self.retired is None

    def runs_as(self) -> BotEntry:
        """The entry that starts this version: the list's entry under the version's name."""
        entry = self.entry or BotEntry(name=self.entrant, command=self.command)
        return msgspec.structs.replace(entry, name=self.name)


@dataclass
class PoolChange:
    """What reading the bot list changes in the ladder."""

    at: str
    """When: the time stamped on the versions added and retired."""
    added: list[BotVersion] = field(default_factory=list)
    """New versions: new entrants, and new versions of changed ones."""
    retired: list[str] = field(default_factory=list)
    """Versions that leave the schedule (removed, or replaced by a new version)."""
    back: list[str] = field(default_factory=list)
    """Retired versions whose entrant is in the list again, unchanged: they play again."""
    entries: dict[str, BotEntry] = field(default_factory=dict)
    """Entries kept for versions that had none (ladders from before schema 6) or whose entry
    changed in what does not make another bot (``build_timeout``), by version name."""
    positions: dict[str, int] = field(default_factory=dict)
    """Active versions whose entrant moved in the list, by version name."""

    @property
    def empty(self) -> bool:
        return not (self.added or self.retired or self.back or self.entries or self.positions)

    def describe(self) -> list[str]:
        """One line per change, for the organizer."""
        lines = []
        for version in self.added:
            if version.replaces is None:
                lines.append(f"new entrant {version.name}")
            else:
                lines.append(f"new version {version.name} of {version.entrant} (replaces {version.replaces})")
        replaced = {v.replaces for v in self.added}
        lines += [f"{name} retired (removed from the bot list)" for name in self.retired if name not in replaced]
        lines += [f"{name} plays again (back in the bot list)" for name in self.back]
        return lines


@dataclass(frozen=True)
class DuplicateSet:
    """One table and one seed, to be played in every rotation."""

    index: int
    table: tuple[str, ...]
    """Bot names by table position; the cyclic order is kept in every rotation."""
    seed: int

    @property
    def rotations(self) -> int:
        return len(self.table)

    def seating(self, rotation: int) -> tuple[str, ...]:
        """Bot names by seat in a rotation: the bot at table position ``p`` sits in seat
        ``(p + rotation) % n``, so over the set every bot holds every seat once."""
        n = len(self.table)
        return tuple(self.table[(seat - rotation) % n] for seat in range(n))

    def matches(self) -> list[ScheduledMatch]:
        return [ScheduledMatch(self.index, r, self.seating(r), self.seed) for r in range(self.rotations)]


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the schedule: a rotation of a duplicate set."""

    set_index: int
    rotation: int
    seats: tuple[str, ...]
    seed: int

    @property
    def key(self) -> str:
        """A name for files: the set and the rotation."""
        return match_key(self.set_index, self.rotation)


def match_key(set_index: int, rotation: int) -> str:
    """A match's name (its replay log's): ``SSSSS-R``, the set and the rotation."""
    return f"{set_index:05d}-{rotation}"
