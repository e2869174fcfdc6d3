"""What the ladder's store takes and gives back: plain records of settings, results, figures
and faults, free of SQL (the tables they come from are in ``referee.ladder.schema``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.ruleset import RuleSet
from referee.ladder.schedule import ScheduledMatch
from referee.match.outcome import FaultReport
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
class SeatResult:
    seat: int
    bot: str
    score: int
    status: str
    moons: int
    win: float


@dataclass(frozen=True)
class MatchRecord:
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
