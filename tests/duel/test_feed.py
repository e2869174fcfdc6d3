"""Which set a duel plays next (``referee/duel/feed.py``): new sets only while the test has not
decided and the cap is not reached; sets in flight at a decision finished and recorded, not
counted in the verdict; a resumed run finishing the sets a killed one left before any new one;
a gauntlet's sets going to the undecided bot with fewest sets."""

from __future__ import annotations

from pathlib import Path

from referee.duel.feed import DuelFeed
from referee.duel.run import status_of
from referee.stats.sequential import MIN_SETS
from referee.store.records import ScheduledMatch
from tests.duel.helpers import Scores, duel_settings, duel_store, play_set, play_until_done, scored


def better_by(points: int) -> Scores:
    """NEW better by ``points`` in one half of the matches, by ``points + 4`` in the other: a
    mean of ``points + 2`` with some spread (at 40, enough for the SPRT's prior spread to be
    outweighed by ``MIN_SETS``)."""

    def scores(match: ScheduledMatch) -> list[int]:
        return scored(new=5, old=5 + points + 4 * (match.rotation % 2))(match)

    return scores


def noisy(index: int) -> Scores:
    """A difference of +3 or -3 a set, alternately: a mean of zero."""
    return scored(new=5, old=8 if index % 2 else 2)


def test_no_set_is_started_once_the_test_has_decided(tmp_path: Path) -> None:
    store = duel_store(tmp_path / "duel.db", duel_settings())
    feed = DuelFeed(store, duel_settings(), max_sets=100)
    assert play_until_done(feed, store, lambda index: better_by(40)) == MIN_SETS
    status = status_of(store)
    assert status.verdict == "H1" and status.exit_status == 0
    assert feed() is None and store.scheduled() == {"old": MIN_SETS}


def test_a_mean_of_zero_accepts_h0(tmp_path: Path) -> None:
    """Sets of ±3 points: H0, once the prior spread (a set could be worth ±125) is outweighed,
    at about 175 sets for ``--sprt 0,2``."""
    store = duel_store(tmp_path / "duel.db", duel_settings())
    played = play_until_done(DuelFeed(store, duel_settings(), max_sets=400), store, noisy)
    status = status_of(store)
    assert 150 <= played <= 200 and status.verdict == "H0" and status.exit_status == 1


def test_sets_in_flight_at_a_decision_are_finished_and_left_out_of_the_verdict(tmp_path: Path) -> None:
    store = duel_store(tmp_path / "duel.db", duel_settings())
    feed = DuelFeed(store, duel_settings(), max_sets=100)
    for _ in range(MIN_SETS - 1):
        play_set(store, feed(), better_by(40))
    deciding, in_flight = feed(), feed()  # two tables busy
    assert deciding is not None and in_flight is not None
    play_set(store, deciding, better_by(40))
    assert feed() is None  # decided: nothing new for the free table
    play_set(store, in_flight, scored(new=50, old=0))  # the busy table finishes: recorded, shown
    status = status_of(store)
    (pairing,) = status.pairings
    assert pairing.sets == MIN_SETS + 1 and pairing.estimate.mean < 42
    assert pairing.sprt is not None and pairing.sprt.sets == MIN_SETS and status.verdict == "H1"


def test_a_resumed_run_finishes_the_sets_a_killed_one_left_first(tmp_path: Path) -> None:
    store = duel_store(tmp_path / "duel.db", duel_settings(sprt=None))
    killed = DuelFeed(store, duel_settings(sprt=None), max_sets=4)
    first, second, third = killed(), killed(), killed()
    assert first is not None and second is not None and third is not None
    play_set(store, first, noisy(0))
    play_set(store, second[:2], noisy(1))  # cut off after two matches; the third never started
    resumed = DuelFeed(store, duel_settings(sprt=None), max_sets=4)
    again = resumed()
    assert again is not None and [(m.set_index, m.rotation) for m in again] == [(1, 2), (1, 3)]
    assert [m.set_index for m in resumed() or []] == [2] * 4
    fourth = resumed()
    assert fourth is not None and fourth[0].set_index == 3
    assert resumed() is None and store.scheduled() == {"old": 4}


def test_without_a_test_the_sets_stop_at_the_cap(tmp_path: Path) -> None:
    store = duel_store(tmp_path / "duel.db", duel_settings(sprt=None))
    assert play_until_done(DuelFeed(store, duel_settings(sprt=None), max_sets=5), store, noisy) == 5
    status = status_of(store)
    assert status.verdict is None and status.exit_status == 3 and status.pairings[0].sets == 5


def test_a_gauntlet_plays_the_undecided_bot_with_fewest_sets(tmp_path: Path) -> None:
    duel = duel_settings(olds=("old", "old2"))
    store = duel_store(tmp_path / "gauntlet.db", duel)
    cap = MIN_SETS + 10
    feed = DuelFeed(store, duel, max_sets=cap)
    order: list[str] = []
    while (group := feed()) is not None:
        against = group[0].seats[group[0].seats.index("new") + 2]
        # against old2, 0 and 2 in turn: a mean halfway between D0 and D1, never decided
        halfway = scored(new=5, old=5 + 2 * (order.count("old2") % 2))
        order.append(against)
        play_set(store, group, better_by(40) if against == "old" else halfway)
    assert order == ["old", "old2"] * MIN_SETS + ["old2"] * (cap - MIN_SETS)  # in turn, then the one left open
    status = status_of(store)
    assert [p.verdict for p in status.pairings] == ["H1", "continue"]
    assert [p.sets for p in status.pairings] == [MIN_SETS, cap]
    assert status.verdict == "continue" and status.exit_status == 3


def test_the_feeds_running_tests_agree_with_a_full_read_after_every_set(tmp_path: Path) -> None:
    """The feed reads each set once, as it completes (``referee.duel.tally``); with three tables
    finishing their sets out of order, against two bots, what it says after every set is what
    reading every set again says."""
    duel = duel_settings(olds=("old", "old2"))
    store = duel_store(tmp_path / "gauntlet.db", duel)
    feed = DuelFeed(store, duel, max_sets=12)
    busy = [feed(), feed(), feed()]
    index = 0
    while any(group is not None for group in busy):
        table = index % len(busy)
        group = busy[table]
        index += 1
        if group is None:
            continue
        play_set(store, group, scored(new=5, old=5 + index % 7, other=3 + index % 4))
        assert feed.status() == status_of(store)
        busy[table] = feed()
    assert [p.sets for p in feed.status().pairings] == [12, 12]
