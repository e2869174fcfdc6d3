"""When a duel's bot is broken (``referee/duel/faults.py``): the threshold (dropped from at least
three seats and from more than a tenth of them), the verdict it takes away (none, exit status
2, whatever the test said), and the sets it stops: every set when NEW or an opponent is broken,
only the broken bot's in a gauntlet. The bots that fail the roll call are broken before any
set."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from referee.duel.faults import BROKEN_LEAST, BROKEN_SHARE, SeatFaults, over_threshold
from referee.duel.feed import DuelFeed
from referee.duel.run import status_of
from referee.duel.status import duel_status
from referee.duel.store import DuelStore
from referee.rules import ruleset
from referee.shared import FaultReport
from referee.store.records import ScheduledMatch
from tests.duel.helpers import duel_settings, duel_store, scored
from tests.ladder.helpers import record_of


@pytest.mark.parametrize(
    ("dropped", "seats", "broken"),
    [
        (0, 0, False),
        (1, 1, False),  # one fault in the first match: not enough to judge
        (2, 2, False),
        (3, 3, True),  # a bot that faults in every seat: found within its first set
        (3, 30, False),  # a tenth exactly: not more than a tenth
        (4, 30, True),
        (10, 200, False),  # rare faults over a long run: part of its play, in its differences
    ],
)
def test_a_bot_is_broken_from_three_drops_and_over_a_tenth_of_its_seats(dropped: int, seats: int, broken: bool) -> None:
    assert (BROKEN_LEAST, BROKEN_SHARE) == (3, 0.10)
    assert over_threshold(dropped, seats) is broken
    assert SeatFaults("old", seats, {"crash": dropped} if dropped else {}).broken is broken


def test_a_broken_bot_takes_the_verdict_away_whatever_the_test_said() -> None:
    duel = duel_settings()
    h1 = [5.0, 7.0] * 40  # the test accepts H1 on these (with its prior spread, not on 40)
    assert duel_status(duel, ruleset("american"), {"old": h1}, {"old": 80}).verdict == "H1"
    faults = {"old": SeatFaults("old", 160, {"crash": 17})}
    status = duel_status(duel, ruleset("american"), {"old": h1}, {"old": 80}, faults)
    assert status.verdict == "broken" and status.exit_status == 2 and status.stopped
    assert [p.verdict for p in status.pairings] == ["broken"] and [b.bot for b in status.broken] == ["old"]
    fine = {"old": SeatFaults("old", 160, {"crash": 16})}  # a tenth: still measured
    assert duel_status(duel, ruleset("american"), {"old": h1}, {"old": 80}, fine).exit_status == 0


def test_a_broken_pool_bot_loses_its_row_only_a_broken_new_stops_the_gauntlet() -> None:
    gauntlet = duel_settings(olds=("a", "b"))
    faults = {"a": SeatFaults("a", 8, {"timeout": 5})}
    status = duel_status(gauntlet, ruleset("american"), {}, {"a": 1, "b": 1}, faults)
    assert [p.verdict for p in status.pairings] == ["broken", "continue"]
    assert not status.stopped and status.exit_status == 2 and status.role("a") == "pool bot"
    faults["new"] = SeatFaults("new", 8, {"crash": 8})
    assert duel_status(gauntlet, ruleset("american"), {}, {"a": 1, "b": 1}, faults).stopped


def play(store: DuelStore, group: Sequence[ScheduledMatch], dropped: Sequence[str] = ()) -> None:
    for match in group:
        statuses = ["crash" if bot in dropped else "ok" for bot in match.seats]
        store.record(record_of(match, scored(new=5, old=6)(match), statuses))


@pytest.mark.parametrize("dropped", ["old", "new", "x"])
def test_no_set_is_started_once_a_duels_bot_is_broken(tmp_path: Path, dropped: str) -> None:
    store = duel_store(tmp_path / "duel.db", duel_settings())
    feed = DuelFeed(store, duel_settings(), max_sets=100)
    play(store, feed() or [], dropped=[dropped])
    assert feed() is None and store.scheduled() == {"old": 1}
    status = status_of(store)
    assert status.verdict == "broken" and status.exit_status == 2
    seats = 8 if dropped == "x" else 4  # the opponent sits twice at [new, x, old, x]
    assert [b.bot for b in status.broken] == [dropped] and status.faults[dropped].reasons == {"crash": seats}


def test_a_gauntlet_plays_on_without_its_broken_pool_bot(tmp_path: Path) -> None:
    gauntlet = duel_settings(olds=("a", "b"))
    store = duel_store(tmp_path / "gauntlet.db", gauntlet)
    feed = DuelFeed(store, gauntlet, max_sets=3)
    while (group := feed()) is not None:
        play(store, group, dropped=["a"])
    assert store.scheduled() == {"a": 1, "b": 3}
    status = status_of(store)
    assert [p.verdict for p in status.pairings] == ["broken", "continue"] and status.exit_status == 2


def test_a_bot_that_failed_the_roll_call_gets_no_set(tmp_path: Path) -> None:
    gauntlet = duel_settings(olds=("a", "b"))
    store = duel_store(tmp_path / "gauntlet.db", gauntlet)
    failed = FaultReport(seat=0, name="a", reason="timeout", message="no hello", action="forfeit")
    feed = DuelFeed(store, gauntlet, max_sets=2, unstarted={"a": failed})
    while (group := feed()) is not None:
        play(store, group)
    assert store.scheduled() == {"b": 2}
    status = status_of(store, unstarted={"a": failed})
    assert status.broken[0].unstarted and status.broken[0].example == failed and status.exit_status == 2
    assert status_of(store).exit_status == 3  # a run whose roll call it passes measures it again
    new_failed = DuelFeed(store, gauntlet, max_sets=5, unstarted={"new": failed})
    assert new_failed() is None
