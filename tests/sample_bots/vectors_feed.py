"""The vectors (docs/vectors, docs/vectors.md) as every kit's test reads them: one seat's side of
a preset's matches (what it is told and asked, in order), and the state the vector gives at each
of its requests in the terms of the kits' state probes (``tests.sample_bots.kit_driver``).

Each kit's harness feeds a seat's lines into the kit's own state update (the Python kit in
process, the others through their probe program on pipes: the probe answers each request with
a move of its own, which is ignored, as the vector's reply is what the match went on with) and
compares what the kit holds with the vector's ``state`` at each request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from protocol.messages import Declare, Goodbye, Moon, Pass, Play, PlayRequest, RefereeMessage
from referee.rules.vectors import GAMES, Asked, SeatState, Told, read_line
from tests.bot_process import BotProcess

VECTORS = Path(__file__).resolve().parents[2] / "docs" / "vectors"
PRESETS = tuple(GAMES)


@dataclass(frozen=True)
class Step:
    """One line of a seat's side: a message it is told, or a request with the vector's state."""

    message: RefereeMessage
    state: SeatState | None = None


@cache
def seat_side(preset: str, seat: int) -> tuple[Step, ...]:
    """``seat``'s side of ``preset``'s vectors, in order."""
    steps: list[Step] = []
    for raw in (VECTORS / f"{preset}.jsonl").read_bytes().splitlines():
        line = read_line(raw)
        if isinstance(line, Told) and line.seat in (None, seat):
            steps.append(Step(line.message))
        elif isinstance(line, Asked) and line.seat == seat:
            steps.append(Step(line.request, line.state))
    return tuple(steps)


def feed_seat(preset: str) -> int:
    """The seat a kit's harness plays in ``preset`` (the last: it follows the bold seat)."""
    rules = read_line((VECTORS / f"{preset}.jsonl").read_bytes().split(b"\n", 1)[0])
    return rules.rules.players - 1  # type: ignore[union-attr]


def probe_view(state: SeatState) -> dict[str, Any]:
    """What a kit's state probe reports at a play request (``kit_driver.probe_state``), from the
    vector's state: the hand sorted, points taken, the scores before the round, the seat, and
    the trick as the events left it."""
    return {
        "hand": sorted(state.hand),
        "pointsTaken": state.points_taken,
        "scores": state.scores,
        "seat": state.seat,
        "events": {"trick": state.trick, "heartsBroken": state.hearts_broken, "trickNumber": state.trick_number},
    }


def play_states(preset: str, seat: int) -> list[SeatState]:
    """The vector's states at ``seat``'s play requests in ``preset``: where a probe reports."""
    return [
        step.state
        for step in seat_side(preset, seat)
        if step.state is not None and isinstance(step.message, PlayRequest)
    ]


def feed_probe(bot: BotProcess, presets: tuple[str, ...] = PRESETS) -> list[tuple[str, SeatState]]:
    """Feed a probe (its handshake done) one seat's side of each preset's vectors, a match after
    another on one connection, then goodbye; return what it should have reported at each play.
    Each request gets a reply with its id (its content is the probe's own)."""
    expected: list[tuple[str, SeatState]] = []
    for preset in presets:
        seat = feed_seat(preset)
        for step in seat_side(preset, seat):
            if step.state is None:
                bot.send(step.message)
            else:
                reply = bot.ask(step.message)
                assert isinstance(reply, (Pass, Play, Declare, Moon)), f"{preset}: {reply}"
                assert reply.id == getattr(step.message, "id", None)
        expected += [(preset, state) for state in play_states(preset, seat)]
    bot.send(Goodbye())
    assert bot.wait_exit() == 0, bot.stderr[-3000:]
    return expected


UNORDERED = {"hand", "passed", "received"}
"""Lists of cards a kit may keep in any order: compared sorted."""
SNAKE = {"pointsTaken": "points_taken", "heartsBroken": "hearts_broken", "trickNumber": "trick_number"}
"""The probe report's keys in snake case (the Rust probe's)."""


Extra = Mapping[str, Callable[[SeatState], Any]]
"""More keys of a probe's report, each from the vector's state (the passes, the declarations)."""


def assert_vector_states(
    reported: list[dict[str, Any]],
    expected: list[tuple[str, SeatState]],
    *,
    snake: bool = False,
    extra: Extra | None = None,
) -> None:
    """A probe's reports match the vectors' states one for one, in the keys of ``probe_view``
    (``snake``: the Rust probe's snake-case keys) and ``extra``."""
    assert len(reported) == len(expected) > 0
    key = (lambda k: SNAKE.get(k, k)) if snake else (lambda k: k)
    for number, (seen, (preset, state)) in enumerate(zip(reported, expected, strict=True)):
        want = {**probe_view(state), **{k: value(state) for k, value in (extra or {}).items()}}
        got = {k: seen[key(k)] for k in want if k != "events"}
        for cards in UNORDERED & got.keys():
            got[cards] = sorted(got[cards])
        got["events"] = {k: seen[key("events")][key(k)] for k in want["events"]}
        assert got == want, f"{preset}, play request {number}"


def sorted_passed(state: SeatState) -> list[str]:
    return sorted(state.passed or [])


def sorted_received(state: SeatState) -> list[str]:
    return sorted(state.received or [])
