"""A ladder's season: an end time after which no duplicate set begins, a submissions freeze
after which no new version is taken, and a final among the best of the standings at the end.

Pure: what a time given on the command line means, whether versions are taken at a moment,
and what a season is at a moment. The web's upload form asks ``taking_versions`` before it
keeps an upload; the follower of a running ladder asks it again before it takes one, and
refuses with ``closed_reason`` (``referee.ladder.follow``), so the freeze holds whoever asks.
The run itself (its feed, its wait for the end, the final) is ``referee.ladder.season_run``.

Times are kept in ISO 8601, UTC, to the second. Given on the command line, a time is ISO 8601
with its offset (``2026-03-01T18:00:00+01:00``, or ``Z``) or a duration from now (``+90m``,
``+2h``, ``+3d``, ``+1d12h``; ``s``, ``m``, ``h``, ``d``, ``w``): a time without an offset is
refused, since the machine's zone is nobody's to guess."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final, Literal

from referee.store.records import Season

State = Literal["regular", "final", "over"]
"""Where a season stands: its regular sets are drawn (``regular``), its end time has passed
and its final is to be played (``final``), or nothing more is played (``over``)."""

UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
DURATION = re.compile(r"\+((?:[0-9]{1,6}[smhdw])+)")
PART = re.compile(r"([0-9]{1,6})([smhdw])")


class SeasonTimeError(ValueError):
    """A time given for a season that cannot be read; the message says what is accepted."""


def utc_now() -> datetime:
    """The wall clock, in UTC: the clock a season is measured by (tests give their own)."""
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """A moment as the season keeps it: ISO 8601, UTC, to the second."""
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def moment(text: str) -> datetime:
    """A kept time (``stamp``) read back."""
    return datetime.fromisoformat(text)


def parse_time(text: str, now: datetime) -> datetime:
    """A season time as given: ISO 8601 with an offset, or ``+`` a duration from ``now``."""
    given = text.strip()
    duration = DURATION.fullmatch(given)
    if duration is not None:
        seconds = sum(int(n) * UNITS[unit] for n, unit in PART.findall(duration.group(1)))
        return (now + timedelta(seconds=seconds)).replace(microsecond=0)
    try:
        found = datetime.fromisoformat(given)
    except ValueError:
        found = None
    if found is None or found.tzinfo is None:
        why = "it has no offset" if found is not None else "it is not a time"
        raise SeasonTimeError(
            f"{text!r}: {why}; give ISO 8601 with an offset (2026-03-01T18:00:00+01:00, or Z for UTC)"
            " or a duration from now (+90m, +2h, +3d, +1d12h)"
        )
    return found.astimezone(UTC).replace(microsecond=0)


@dataclass(frozen=True)
class SeasonAsked:
    """What ``ladder run`` was asked for: the flags as given (``None``: not given)."""

    ends: str | None = None
    closes: str | None = None
    final_top: int | None = None
    final_sets: int | None = None
    change: bool = False
    """``--change-season``: flags that differ from the stored season replace it (before its
    end time); without it they are refused."""

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.ends, self.closes, self.final_top, self.final_sets))


def season_of(asked: SeasonAsked, stored: Season | None, now: datetime) -> Season:
    """The season ``asked`` makes of ``stored`` (``None``: a ladder without one): each flag
    given replaces what is stored, the others stay. Submissions close at the end time unless
    an earlier time is given. Raises ``SeasonTimeError`` for a time that cannot be read or a
    season that cannot be (a freeze after the end, a final with no end or of one bot)."""
    base = stored or Season()
    ends, ends_given = base.ends, base.ends_given
    if asked.ends is not None and asked.ends != base.ends_given:
        ends, ends_given = stamp(parse_time(asked.ends, now)), asked.ends
    closes, closes_given = base.closes, base.closes_given
    if asked.closes is not None and asked.closes != base.closes_given:
        closes, closes_given = stamp(parse_time(asked.closes, now)), asked.closes
    elif closes_given is None:
        closes = ends  # no freeze of its own: submissions close at the end
    if closes is not None and ends is not None and moment(closes) > moment(ends):
        raise SeasonTimeError(f"submissions cannot close ({closes}) after the season ends ({ends})")
    top = base.final_top if asked.final_top is None else asked.final_top
    sets = base.final_sets if asked.final_sets is None else asked.final_sets
    if (top or sets) and ends is None:
        raise SeasonTimeError("a final needs an end time (--season-end): it is played once the season ends")
    if (top > 0) != (sets > 0):
        raise SeasonTimeError("a final needs both --final-top N (2 or more) and --final-sets M (1 or more)")
    if top == 1:
        raise SeasonTimeError("--final-top must be 2 or more: a final of one bot decides nothing")
    return Season(
        ends=ends,
        closes=closes,
        final_top=top,
        final_sets=sets,
        ends_given=ends_given,
        closes_given=closes_given,
        finalists=base.finalists,
        regular_ended=base.regular_ended,
    )


def differences(stored: Season, wanted: Season) -> list[str]:
    """What ``wanted`` changes of ``stored``, in words (empty: the same season)."""
    found = []
    for what, before, after in (
        ("the season ends", stored.ends, wanted.ends),
        ("submissions close", stored.closes, wanted.closes),
        ("the final's top", stored.final_top, wanted.final_top),
        ("the final's sets", stored.final_sets, wanted.final_sets),
    ):
        if before != after:
            found.append(f"{what}: {_shown(before)} stored, {_shown(after)} given")
    return found


def _shown(value: object) -> str:
    return "none" if value is None or value == 0 else str(value)


def taking_versions(season: Season | None, now: datetime) -> bool:
    """Whether a new version (a bot list's edit, an entrant's upload) may be taken at ``now``:
    always without a season or a freeze, and before the freeze. The upload form asks it when
    an upload arrives, the ladder's follower when it takes one."""
    return season is None or season.closes is None or now < moment(season.closes)


def closed_reason(season: Season) -> str:
    """Why a new version is refused once submissions have closed (its time named)."""
    return f"submissions closed at {season.closes}: no new version is taken after it"


def ended(season: Season | None, now: datetime) -> bool:
    """Whether the regular season is over at ``now``: no new set of it may begin."""
    return season is not None and season.ends is not None and now >= moment(season.ends)


def seconds_left(season: Season, now: datetime) -> float:
    """Seconds from ``now`` to the end time (0 when it has passed)."""
    if season.ends is None:
        return float("inf")
    return max(0.0, (moment(season.ends) - now).total_seconds())


def state(season: Season, now: datetime, final_done: int) -> State:
    """Where the season stands at ``now``, its final having ``final_done`` complete sets."""
    if not ended(season, now):
        return "regular"
    if not season.has_final or (season.finalists is not None and len(season.finalists) < 2):
        return "over"
    return "over" if final_done >= season.final_sets else "final"
