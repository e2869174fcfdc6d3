"""A whole match (referee/rules/match.py): scores, the end of the match, phases, dealer and
schedule, and the redeal after a revoke.

The rounds are hand-built so that their result is known: when every seat holds one whole
suit, the seat that leads (the 2C holder, or in the Dutch game the seat left of the dealer)
takes every trick and so every penalty card. Where a test needs a score that a few rounds
cannot reach, it sets ``match.scores`` (and ``match.phase``) before recording such a round.
"""

from __future__ import annotations

import pytest

from protocol.ruleset import RuleSet
from referee.rules import Match, RoundResult, RulesError, ruleset
from tests.rules.helpers import match_round, piket_split, play_lowest, suit_split

AMERICAN_HOLD = ruleset("american", {"pass_count": 0})
DUTCH = ruleset("dutch")


def sweep_american(match: Match, shooter: int) -> RoundResult:
    """A round in which ``shooter`` holds every club (so leads the 2C) and takes every trick."""
    suits = ["S", "D", "H", "C"]
    suits.remove("C")
    suits.insert(shooter, "C")
    round_ = match_round(match, suit_split("".join(suits)))
    assert round_.turn == shooter
    play_lowest(round_)
    return match.record(round_)


def sweep_dutch(match: Match) -> RoundResult:
    """A piket round in which the seat left of the dealer leads and takes every trick."""
    round_ = match_round(match, piket_split("CDSH"))
    assert round_.turn == (match.dealer + 1) % match.rules.players
    play_lowest(round_)
    if round_.phase == "moon":
        round_.choose_moon(round_.turn, "subtract_from_shooter")
    return match.record(round_)


def lowest_round(match: Match) -> RoundResult:
    """A seeded round played with the lowest legal card."""
    round_ = match.next_round()
    for seat in round_.awaiting() if round_.phase == "pass" else []:
        round_.pass_cards(seat, round_.hand(seat)[: match.rules.pass_count])
    play_lowest(round_)
    if round_.phase == "moon":
        round_.choose_moon(round_.turn, "add_to_others")
    return match.record(round_)


# -- target ------------------------------------------------------------------------------------


def test_scores_add_up_round_by_round() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    first = sweep_american(match, 3)
    assert first.score_changes == [26, 26, 26, 0]
    assert match.scores == [26, 26, 26, 0]
    sweep_american(match, 1)
    assert match.scores == [52, 26, 52, 26]
    assert match.results[0] is first
    assert not match.over


def test_match_ends_after_the_round_in_which_a_score_reaches_the_target() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    match.scores = [74, 0, 10, 0]
    sweep_american(match, 3)
    assert match.over
    assert match.result is not None
    assert match.result.reason == "target_reached"
    assert match.result.scores == [100, 26, 36, 0]
    assert match.result.winners == [3]
    assert not match.result.tie
    assert match.result.rounds == 1


def test_just_below_the_target_goes_on() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    match.scores = [73, 73, 73, 0]
    sweep_american(match, 3)
    assert match.scores == [99, 99, 99, 0]
    assert not match.over
    assert match.result is None


def test_two_players_cross_the_target_in_one_round_and_the_lowest_wins() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    match.scores = [80, 85, 60, 70]
    sweep_american(match, 3)
    assert match.scores == [106, 111, 86, 70]
    assert match.result is not None
    assert match.result.winners == [3]


def test_equal_lowest_scores_are_a_tie() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    match.scores = [80, 85, 34, 60]
    sweep_american(match, 3)
    assert match.result is not None
    assert match.result.scores == [106, 111, 60, 60]
    assert match.result.winners == [2, 3]
    assert match.result.tie


def test_custom_target() -> None:
    match = Match(ruleset("american", {"pass_count": 0, "target": 50}), 1, first_dealer=0)
    sweep_american(match, 0)
    assert not match.over
    sweep_american(match, 0)
    assert match.result is not None
    assert match.result.scores == [0, 52, 52, 52]
    assert match.result.winners == [0]


def test_no_more_rounds_after_the_match_is_over() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    match.scores = [99, 0, 0, 0]
    sweep_american(match, 3)
    assert match.over
    with pytest.raises(RulesError, match="the match is over"):
        match.next_round()


# -- fixed number of rounds ------------------------------------------------------------------------


def test_dutch_classic_ends_after_twelve_rounds_fewest_points_wins() -> None:
    match = Match(ruleset("dutch-classic"), 12, first_dealer=0)
    for _ in range(11):
        lowest_round(match)
        assert not match.over
    lowest_round(match)
    assert match.result is not None
    assert match.result.reason == "rounds_played"
    assert match.result.rounds == 12
    low = min(match.scores)
    assert match.result.winners == [s for s, v in enumerate(match.scores) if v == low]


def test_dutch_classic_the_redealt_hand_after_a_revoke_is_not_one_of_the_twelve() -> None:
    """RuleSet.revoke_points: after a revoke "the hand is dealt again"; the dealer and the pass
    schedule stay (the revoked deal is no round of the schedule), so the redeal replays the
    round and a match of ``rounds: 12`` still plays twelve complete rounds."""
    match = Match(ruleset("dutch-classic"), 12, first_dealer=0)
    round_ = match.next_round()
    round_.apply_revoke(1)
    match.record(round_)
    for _ in range(11):
        lowest_round(match)
    assert not match.over, "the match ended after 11 complete rounds and one revoked deal"
    lowest_round(match)
    assert match.over


def test_round_limit_is_a_safety_net() -> None:
    match = Match(ruleset("american", {"pass_count": 0, "round_limit": 2}), 1, first_dealer=0)
    sweep_american(match, 3)
    assert not match.over
    sweep_american(match, 2)
    assert match.result is not None
    assert match.result.reason == "round_limit"
    assert match.result.scores == [52, 52, 26, 26]
    assert match.result.winners == [2, 3]
    assert match.result.rounds == 2


# -- two phases --------------------------------------------------------------------------------


def test_phase_two_starts_the_round_after_the_threshold_is_reached() -> None:
    match = Match(DUTCH, 1, first_dealer=3)
    match.scores = [0, 40, 0, 0]
    crossing = sweep_dutch(match)  # seat 0 shoots: the others get 15
    assert crossing.match_phase == 1
    assert match.scores == [0, 55, 15, 15]
    assert match.phase == 2
    assert not match.over
    round_ = match_round(match, piket_split("CDSH"))
    assert round_.match_phase == 2
    assert round_.turn == 1
    play_lowest(round_)
    result = match.record(round_)
    assert result.match_phase == 2
    assert result.score_changes == [0, -15, 0, 0]
    assert match.scores == [0, 40, 15, 15]
    assert match.phase == 2


def test_phase_one_goes_on_below_the_threshold() -> None:
    match = Match(DUTCH, 1, first_dealer=3)
    match.scores = [0, 34, 0, 0]
    sweep_dutch(match)
    assert match.scores == [0, 49, 15, 15]
    assert match.phase == 1
    assert match.next_round().match_phase == 1


def test_phase_one_scores_at_or_below_zero_do_not_end_the_match() -> None:
    match = Match(ruleset("omnibus", {"end": "two_phase", "pass_count": 0}), 1, first_dealer=0)
    match.scores = [0, 0, 0, -5]
    sweep_american(match, 3)
    assert not match.over
    assert match.phase == 1


def test_dutch_35_turns_at_35() -> None:
    for name, phase in (("dutch-35", 2), ("dutch", 1)):
        match = Match(ruleset(name), 1, first_dealer=3)
        match.scores = [0, 20, 0, 0]
        round_ = match_round(match, piket_split("CDSH"))
        play_lowest(round_)
        if round_.phase == "moon":
            round_.choose_moon(round_.turn, "add_to_others")
        match.record(round_)
        assert match.scores == [0, 35, 15, 15]
        assert match.phase == phase, name


def test_dutch_35_shooter_may_subtract_in_phase_one() -> None:
    match = Match(ruleset("dutch-35"), 1, first_dealer=3)
    match.scores = [20, 20, 0, 0]
    result = sweep_dutch(match)  # seat 0 shoots and chooses to subtract
    assert result.moon_scoring == "subtract_from_shooter"
    assert match.scores == [5, 20, 0, 0]
    assert match.phase == 1
    assert not match.over


def phase_two(rules: RuleSet, scores: list[int], first_dealer: int) -> Match:
    match = Match(rules, 1, first_dealer=first_dealer)
    match.phase = 2
    match.scores = list(scores)
    return match


def test_zero_or_below_wins() -> None:
    match = phase_two(DUTCH, [10, 30, 30, 30], first_dealer=3)
    sweep_dutch(match)
    assert match.result is not None
    assert match.result.reason == "reached_zero"
    assert match.result.scores == [-5, 30, 30, 30]
    assert match.result.winners == [0]


def test_exactly_zero_wins_with_zero_or_below() -> None:
    match = phase_two(DUTCH, [15, 30, 30, 30], first_dealer=3)
    sweep_dutch(match)
    assert match.result is not None
    assert match.result.winners == [0]
    assert match.result.scores[0] == 0


def test_phase_two_goes_on_while_everyone_is_above_zero() -> None:
    match = phase_two(DUTCH, [16, 30, 30, 30], first_dealer=3)
    sweep_dutch(match)
    assert match.scores == [1, 30, 30, 30]
    assert not match.over


EXACT = ruleset("dutch", {"finish": "exact_zero"})


def test_exact_zero_below_zero_does_not_win() -> None:
    match = phase_two(EXACT, [12, 30, 30, 30], first_dealer=3)
    sweep_dutch(match)
    assert match.scores == [-3, 30, 30, 30]
    assert not match.over


def test_exact_zero_wins_on_zero() -> None:
    match = phase_two(EXACT, [-3, 15, 30, 30], first_dealer=0)  # seat 1 leads and takes 15
    sweep_dutch(match)
    assert match.result is not None
    assert match.result.reason == "reached_zero"
    assert match.result.winners == [1]


def test_exact_zero_nobody_can_reach_zero_when_all_are_below() -> None:
    match = phase_two(EXACT, [-5, -2, -1, 10], first_dealer=2)  # seat 3 leads and takes 15
    sweep_dutch(match)
    assert match.result is not None
    assert match.result.reason == "nobody_can_reach_zero"
    assert match.result.scores == [-5, -2, -1, -5]
    assert match.result.winners == [2]


def test_several_finishers_without_tie_break_all_win() -> None:
    match = phase_two(DUTCH, [5, 0, 30, 30], first_dealer=3)
    sweep_dutch(match)
    assert match.result is not None
    assert match.result.scores[:2] == [-10, 0]
    assert match.result.winners == [0, 1]
    assert match.result.tie


def test_tie_break_furthest_below_zero() -> None:
    match = phase_two(ruleset("dutch-35"), [5, 0, 30, 30], first_dealer=3)
    sweep_dutch(match)
    assert match.result is not None
    assert match.result.reason == "reached_zero"
    assert match.result.winners == [0]
    assert not match.result.tie


def test_tie_break_can_still_tie_at_the_same_score() -> None:
    match = phase_two(ruleset("dutch-35"), [15, 0, 30, 30], first_dealer=3)
    sweep_dutch(match)
    assert match.result is not None
    assert match.result.winners == [0, 1]
    assert match.result.tie


def test_modern_dutch_from_phase_one_to_the_end() -> None:
    match = Match(ruleset("dutch-modern"), 1, first_dealer=3)
    match.scores = [45, 0, 10, 10]
    round_ = match_round(match, piket_split("CDSH"))
    play_lowest(round_)
    match.record(round_)  # seat 0 shoots in phase 1: 0 for seat 0, 15 to the others
    assert match.scores == [45, 15, 25, 25]
    assert match.phase == 1
    match.scores = [50, 15, 25, 25]
    sweep_dutch(match)  # seat 1 leads, shoots: phase 1 still
    assert match.scores == [65, 15, 40, 40]
    assert match.phase == 2
    sweep_dutch(match)  # seat 2 leads, takes all 15: subtracted, no moon in phase 2
    assert match.scores == [65, 15, 25, 40]
    sweep_dutch(match)  # seat 3
    sweep_dutch(match)  # seat 0
    assert match.scores == [50, 15, 25, 25]
    assert not match.over
    sweep_dutch(match)  # seat 1: 15 -> 0
    assert match.result is not None
    assert match.result.winners == [1]
    assert match.result.reason == "reached_zero"


# -- dealer, schedule and revoke -----------------------------------------------------------------


def test_revoke_redeals_with_the_same_dealer_and_pass_direction() -> None:
    match = Match(ruleset("american"), 21, first_dealer=1)
    first = match.next_round()
    assert (first.dealer, first.pass_direction) == (1, "left")
    result = first.apply_revoke(2)
    assert match.record(first) is result
    assert match.scores == [0, 0, 26, 0]
    again = match.next_round()
    assert again.dealer == 1
    assert again.pass_direction == "left"
    assert again.dealt != first.dealt  # a new deal
    assert again.match_phase == 1
    for seat in range(4):
        again.pass_cards(seat, again.hand(seat)[:3])
    play_lowest(again)
    match.record(again)
    following = match.next_round()
    assert following.dealer == 2
    assert following.pass_direction == "right"


def test_dutch_revoke_costs_fifteen() -> None:
    match = Match(DUTCH, 2, first_dealer=0)
    round_ = match.next_round()
    round_.play(1, round_.legal_plays()[0])  # the revoke comes to light during play
    round_.apply_revoke(3)
    match.record(round_)
    assert match.scores == [0, 0, 0, 15]
    assert match.dealer == 0
    assert match.next_round().dealer == 0


def test_revoke_counts_towards_the_target() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    match.scores = [0, 80, 0, 0]
    round_ = match.next_round()
    round_.apply_revoke(1)
    match.record(round_)
    assert match.result is not None
    assert match.result.scores == [0, 106, 0, 0]
    assert match.result.winners == [0, 2, 3]


def test_next_round_needs_the_current_round_finished() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    round_ = match.next_round()
    with pytest.raises(RulesError, match="not finished"):
        match.next_round()
    with pytest.raises(RulesError, match="once finished"):
        match.record(round_)
    play_lowest(round_)
    match.record(round_)
    assert match.next_round() is match.current


def test_a_round_cannot_be_recorded_twice() -> None:
    """``Match.record``: "only the current round, once finished, can be recorded" guards the
    scores; recording the same finished round again must not count its points twice (nor move
    the dealer and the pass schedule on twice)."""
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    sweep_american(match, 3)
    assert match.scores == [26, 26, 26, 0]
    round_ = match.current
    assert round_ is not None
    with pytest.raises(RulesError):
        match.record(round_)
    assert match.scores == [26, 26, 26, 0]
    assert match.dealer == 1


def test_record_refuses_a_round_of_another_match() -> None:
    match = Match(AMERICAN_HOLD, 1, first_dealer=0)
    match.next_round()
    other = Match(AMERICAN_HOLD, 1, first_dealer=0).next_round()
    play_lowest(other)
    with pytest.raises(RulesError, match="only the current round"):
        match.record(other)


def test_a_resumed_match_starts_where_it_is_told_and_refuses_what_no_match_reaches() -> None:
    """``Match.resumed``: the vectors start some matches in phase 2 or later in the pass
    schedule; the round it deals first has that phase and that pass direction."""
    rules = ruleset("dutch")
    match = Match.resumed(rules, 3, scores=[0, 9, 12, 20], phase=2, schedule_index=0)
    assert match.scores == [0, 9, 12, 20] and match.phase == 2
    assert match.next_round().match_phase == 2
    american = ruleset("american")
    across = Match.resumed(american, 3, schedule_index=2)
    assert across.next_round().pass_direction == american.pass_schedule[2]
    with pytest.raises(RulesError, match="3 scores for 4 seats"):
        Match.resumed(american, 3, scores=[0, 0, 0])
    with pytest.raises(RulesError, match="no match phase 2"):
        Match.resumed(american, 3, phase=2)
