"""Ratings: OpenSkill's Plackett-Luce model, updated from each match's finishing order.

Every seat is a one-player team. The finishing order is by final score, lower is better; equal
scores share a rank (the competition ranking "1224": a seat's rank is the number of seats that
did strictly better), and OpenSkill gives tied seats the same change of mu. A seat whose bot
was dropped during the match (crash, timeout, garbage, ...) ranks below every seat whose bot
finished, whatever the referee's fallback moves scored for it.

When there are fewer bots than seats, a bot holds several seats. Each seat is then rated as a
copy of the bot's rating and the bot keeps the mean of its seats' changes (mu by its mean
change, sigma by the root of its seats' mean variance), so one match counts once.

The update is a pure function of the ratings before it and the match's seats and ranks, so
the ratings after any sequence of matches can be computed again from the stored results
(``replay``) and come out bit for bit the same.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""OpenSkill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300."""

ORDINAL_Z = 3.0
"""The conservative rating is ``mu - ORDINAL_Z * sigma``."""


@dataclass(frozen=True)
class Rating:
    """A bot's skill estimate: a normal distribution with mean ``mu`` and deviation ``sigma``."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: the skill the ladder is about 99.9% sure the bot has at least."""
        return self.mu - ORDINAL_Z * self.sigma


INITIAL = Rating(MODEL.mu, MODEL.sigma)


def finishing_ranks(scores: Sequence[int], dropped: Sequence[bool] | None = None) -> list[int]:
    """Ranks by seat, 0 best: lower score is better, equal scores share a rank, and a dropped
    seat ranks below every seat that was not dropped."""
    dropped = dropped or [False] * len(scores)
    keys = [(bool(d), s) for d, s in zip(dropped, scores, strict=True)]
    return [sum(other < key for other in keys) for key in keys]


def rate_match(ratings: Mapping[str, Rating], seats: Sequence[str], ranks: Sequence[int]) -> dict[str, Rating]:
    """The new ratings of the bots at a table after one match (``seats``: bot names by seat,
    ``ranks`` by seat as from ``finishing_ranks``). Bots missing from ``ratings`` start at
    ``INITIAL``."""
    teams = [[MODEL.rating(mu=ratings.get(b, INITIAL).mu, sigma=ratings.get(b, INITIAL).sigma)] for b in seats]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    changes: dict[str, list[tuple[float, float]]] = {}
    for name, team in zip(seats, rated, strict=True):
        changes.setdefault(name, []).append((team[0].mu, team[0].sigma))
    new: dict[str, Rating] = {}
    for name, seat_ratings in changes.items():
        before = ratings.get(name, INITIAL)
        mu = before.mu + sum(mu - before.mu for mu, _ in seat_ratings) / len(seat_ratings)
        sigma = math.sqrt(sum(s * s for _, s in seat_ratings) / len(seat_ratings))
        new[name] = Rating(mu, sigma)
    return new


def replay(bots: Iterable[str], matches: Iterable[tuple[Sequence[str], Sequence[int]]]) -> dict[str, Rating]:
    """The ratings after ``matches`` (seats and ranks, in the order they were rated), from
    the initial rating."""
    ratings = dict.fromkeys(bots, INITIAL)
    for seats, ranks in matches:
        ratings.update(rate_match(ratings, seats, ranks))
    return ratings


def predict_win(a: Rating, b: Rating) -> float:
    """OpenSkill's probability that a bot rated ``a`` finishes ahead of one rated ``b``."""
    first = MODEL.rating(mu=a.mu, sigma=a.sigma)
    second = MODEL.rating(mu=b.mu, sigma=b.sigma)
    return MODEL.predict_win([[first], [second]])[0]


def skill_above(a: Rating, b: Rating) -> float:
    """The probability that the skill ``a`` stands for is above the skill ``b`` stands for
    (both read as independent normal distributions)."""
    spread = math.sqrt(a.sigma**2 + b.sigma**2)
    return NormalDist().cdf((a.mu - b.mu) / spread)
