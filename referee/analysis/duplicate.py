"""The luck of a duplicate set: each bot's luck over the set's rotations, against the table's.

A ladder's duplicate set (``referee.ladder.schedule``) plays one seed in every seat rotation:
every rotation is dealt the same hands round by round, and over the set each bot holds each
seat's cards once. The luck of the deal (``luck``) of one match can be large; over the set it
should nearly cancel, as the set was made for. ``set_luck`` says by how much.

Each match is valued as ``referee analyze --seed S+i`` values the ``i``-th (the luck of each
seat's cards from its own view as dealt, seed drawn from the round and seat), so every figure
is an independent estimate with its 95% interval, and a sum of them has the half-widths added
in quadrature. A bot's *edge* is its luck minus the mean of the table's bots (in one match:
minus the mean over its seats; over the set: minus the mean of the bots' totals). Over a whole
set each bot held the same cards, so the edges differ from zero by the sampling noise alone:
every edge's interval should contain zero, where one match's edges are far from it.

What is left, the table's mean (``SetLuck.common``), is the same for every bot and moves no
ranking: the four seats' own-view figures of one deal need not add to zero (a seat valuing its
hand does not know where the other cards lie: with the Q♠ guarded by one seat, each of the
others fears her), and that residual is zero only on average over deals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from referee.analysis.estimate import Interval
from referee.analysis.infoset import deal_views
from referee.analysis.luck import LuckTask, round_luck
from referee.analysis.run import task_seed
from referee.replay.record import MatchRecord
from referee.rules.playout import PlayoutPolicy


class BotLuck(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    matches: list[Interval]
    """The bot's luck in each match (summed over its rounds and its seats), records' order."""
    edges: list[Interval]
    """Per match: the bot's luck minus the mean over the match's seats."""
    total: Interval
    """Summed over the set's matches."""
    edge: Interval
    """``total`` minus the mean of the bots' totals: near zero over a whole set."""


class SetLuck(msgspec.Struct, frozen=True, kw_only=True):
    bots: list[BotLuck]
    """In the order the bots first appear."""
    common: float
    """The mean of the bots' totals: the same for every bot (see the module docstring)."""


def sum_intervals(values: Sequence[Interval]) -> Interval:
    """The sum of independent estimates: means added, half-widths in quadrature."""
    mean = sum(v.mean for v in values)
    half = math.sqrt(sum(_half(v) ** 2 for v in values))
    return Interval(mean, mean - half, mean + half)


def _half(value: Interval) -> float:
    return (value.high - value.low) / 2


def edges(values: Sequence[Interval]) -> list[Interval]:
    """Each independent estimate minus the mean of all, with its interval."""
    n = len(values)
    mean = sum(v.mean for v in values) / n
    found = []
    for i, v in enumerate(values):
        var = ((n - 1) / n * _half(v)) ** 2 + sum((_half(w) / n) ** 2 for j, w in enumerate(values) if j != i)
        found.append(Interval(v.mean - mean, v.mean - mean - math.sqrt(var), v.mean - mean + math.sqrt(var)))
    return found


def match_luck(record: MatchRecord, seed: int, worlds: int, policy: PlayoutPolicy) -> list[Interval]:
    """Each seat's luck over the match's finished rounds (as ``referee analyze --seed``)."""
    seats = []
    for seat in range(record.rules.players):
        rounds = [
            round_luck(
                LuckTask(rules=record.rules, round=number, dealt=dealt, after_pass=None, actual=actual),
                task_seed(seed, "luck", number, seat), worlds, policy,
            ).luck
            for number, _scores, dealt, _start, actual in deal_views(record, seat)
        ]  # fmt: skip
        seats.append(sum_intervals(rounds))
    return seats


def set_luck(
    records: Sequence[MatchRecord], *, seed: int = 1, worlds: int = 128, policy: PlayoutPolicy = "greedy"
) -> SetLuck:
    """The luck of each bot over ``records``, the matches of one duplicate set (the ``i``-th
    valued with seed ``seed + i``)."""
    names: dict[str, tuple[list[Interval], list[Interval]]] = {}
    for i, record in enumerate(records):
        seats = match_luck(record, seed + i, worlds, policy)
        mine: dict[str, list[int]] = {}
        for seat in range(record.rules.players):
            mine.setdefault(record.seats[seat].name, []).append(seat)
        seat_edges = edges(seats)
        for name, held in mine.items():
            luck, edge = names.setdefault(name, ([], []))
            luck.append(sum_intervals([seats[s] for s in held]))
            edge.append(sum_intervals([seat_edges[s] for s in held]))
    totals = [sum_intervals(luck) for luck, _edge in names.values()]
    return SetLuck(
        bots=[
            BotLuck(name=name, matches=luck, edges=edge, total=total, edge=over)
            for (name, (luck, edge)), total, over in zip(names.items(), totals, edges(totals), strict=True)
        ],
        common=sum(t.mean for t in totals) / len(totals),
    )
