"""Hidden deals drawn uniformly among those consistent with one seat's information.

``referee.rules.sampling`` finds what a ``SeatView`` says of the other hands (``Knowledge``:
each seat's card count, the cards it must hold, such as the seat's own passed cards at their
receiver, and the cards it cannot hold: voids shown by play, a heart led before hearts were
broken, the first-trick and queen rules, the opening lead). Here a world is drawn by
*rejection*: the free hidden cards are shuffled and cut into the other seats' free room (every
split equally likely), a split that gives a seat a card it cannot hold is drawn again, and the
round is replayed from the deal to check every rule (``sampling.replay``). Each consistent deal
is accepted with the same probability, so the worlds are exactly uniform over the consistent
deals. When ``TRIES`` draws in a row fail (many voids late in a round make a consistent split
rare), the world comes from ``sampling``'s constrained dealer instead, which is close to
uniform but not exactly; ``exact`` says which, and the report counts those worlds.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Final

from referee.rules.deck import Deck
from referee.rules.errors import IllegalMove
from referee.rules.round import Round
from referee.rules.sampling import Knowledge, SamplingError, replay, sample_round_from
from referee.rules.view import SeatView

TRIES: Final = 400
"""Rejection draws before a world falls back to the constrained dealer."""


class Dealer:
    """Draws worlds for one decision: the knowledge and the free cards computed once."""

    def __init__(self, deck: Deck, view: SeatView, know: Knowledge) -> None:
        self.deck, self.view, self.know = deck, view, know
        me = know.seat
        self.others = [s for s in range(len(know.counts)) if s != me]
        rest = Counter(know.pool)
        for s in self.others:
            rest.subtract(know.must[s])
        if any(v < 0 for v in rest.values()):
            raise SamplingError("a seat must hold a card that is not hidden")
        self.free = sorted(rest.elements())
        self.room = [know.counts[s] - len(know.must[s]) for s in self.others]
        if sum(self.room) != len(self.free) or any(r < 0 for r in self.room):
            raise SamplingError("the hidden cards do not fill the other hands")

    def world(self, rng: random.Random) -> tuple[Round, bool]:
        """A consistent world, and whether it was drawn exactly uniformly."""
        know, free = self.know, self.free[:]
        for _ in range(TRIES):
            rng.shuffle(free)
            hands = [list(know.own) if s == know.seat else list(know.must[s]) for s in range(len(know.counts))]
            start = 0
            for s, room in zip(self.others, self.room, strict=True):
                part = free[start : start + room]
                start += room
                mask = 0
                for face in part:
                    mask |= 1 << face
                if mask & know.forbid[s]:
                    break
                hands[s] += part
            else:
                try:
                    full = [hand + know.played_by[s] for s, hand in enumerate(hands)]
                    return replay(self.deck, self.view, full), True
                except (IllegalMove, SamplingError):
                    continue
        return sample_round_from(self.deck, self.view, know, rng), False
