"""Steps about legal plays: one crafted position per rule, built with the rules engine.

Every play request carries the full legal list the engine computes, so a bot that picks from
it passes; a bot that works out its own legal cards (or keeps its hand wrong) may not.
"""

from __future__ import annotations

from referee.check.positions import POSITIONS, Position
from referee.check.probe import Probe
from referee.check.steps.base import Step, step
from referee.check.table import ScriptedTable


async def play_position(probe: Probe, position: Position) -> None:
    """Deal the position, play to each decision it is about and check the bot's answers."""
    table = ScriptedTable(
        probe, position.rules, position.seat, dealer=position.dealer, seed=position.seed, opponents=position.opponents()
    )
    table.start()
    table.deal(position.deal())
    for number, legal in sorted(position.expect.items()):
        request, reply = await table.until_play(number)
        if tuple(request.legal) != legal:
            raise RuntimeError(f"position {position}: decision {number} has legal {request.legal}, not {legal}")
        probe.note(f"legal {' '.join(request.legal)}: played {reply.card}")
    table.end_match()


def _position_step(name: str, summary: str) -> Step:
    position = POSITIONS[name]

    async def run(probe: Probe) -> None:
        await play_position(probe, position)

    return step(f"play.{name}", summary)(run)


lead_two = _position_step(
    "lead_two_of_clubs",
    "Holding the 2C on the first trick, the bot leads it (legal: [2C]).",
)
lead_three = _position_step(
    "lead_three_of_clubs",
    "Three players with the 2C removed (american-3, remove=[2C]): holding the 3C, now the "
    "lowest club, the bot leads it (legal: [3C]).",
)
follow_suit = _position_step(
    "follow_suit",
    "Clubs led on the first trick: the bot follows with one of its three clubs.",
)
first_trick_no_points = _position_step(
    "first_trick_no_points",
    "Void in clubs on the first trick: the bot discards a diamond or spade, never a heart or the QS.",
)
first_trick_only_points = _position_step(
    "first_trick_only_points",
    "Void in clubs on the first trick with only hearts and the QS: it may (must) discard a penalty card.",
)
hearts_not_broken = _position_step(
    "hearts_not_broken",
    "Leading the second trick before hearts are broken (it won the first with its only club, the "
    "AC), the bot leads a diamond or spade.",
)
only_hearts_left = _position_step(
    "only_hearts_left",
    "Leading before hearts are broken with nothing but hearts, the bot leads a heart.",
)
hearts_broken = _position_step(
    "hearts_broken",
    "Leading after a heart was discarded on the first trick (hearts_broken: true), any card may "
    "be led, hearts included.",
)
void_discard = _position_step(
    "void_discard",
    "Void in the led suit after the first trick, the bot may play any card, hearts and the QS included.",
)
queen_follow = _position_step(
    "queen_must_drop_follow",
    "queen_must_drop: spades led with the KS already in the trick, the bot must play the QS (legal: [QS]).",
)
queen_void = _position_step(
    "queen_must_drop_void",
    "queen_must_drop: void in the led suit while holding the QS, the bot must discard her (legal: [QS]).",
)
cancelled_trick = _position_step(
    "cancelled_trick",
    "double-deck: the two 2C cancel each other on the first trick, so its trick_end has winner "
    "null and points 0 and the same seat leads again; void in clubs, the bot plays one of its hearts.",
)

STEPS = (
    lead_two,
    lead_three,
    follow_suit,
    first_trick_no_points,
    first_trick_only_points,
    hearts_not_broken,
    only_hearts_left,
    hearts_broken,
    void_discard,
    queen_follow,
    queen_void,
    cancelled_trick,
)
