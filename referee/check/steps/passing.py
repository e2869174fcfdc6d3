"""Steps about passing, and about the bot keeping its own hand right afterwards."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.cards import Card
from protocol.messages import Pass
from referee.check.positions import POSITIONS, deal_hands, one_round
from referee.check.probe import Probe
from referee.check.steps.base import passing_rules, step
from referee.check.steps.playing import play_position
from referee.check.table import ScriptedTable
from referee.rules.presets import ruleset, with_options


async def _pass_once(
    probe: Probe, table: ScriptedTable, hands: Sequence[Sequence[Card]] | None = None, *, listen: bool = False
) -> None:
    table.start()
    table.deal(hands)
    table.advance()
    reply = await table.act()
    if isinstance(reply, Pass):
        probe.note(f"passed {' '.join(reply.cards)}")
    if listen:
        await probe.expect_silence("its pass reply and the passed event")
        probe.note("one line for the request, none for the passed event")
    table.end_match()


@step(
    "pass.legal",
    "Asked to pass, the bot answers with one line: exactly `count` different cards from `legal`, "
    "echoing the id; then nothing more (nor for the passed event that follows).",
)
async def pass_legal(probe: Probe) -> None:
    rules = passing_rules(probe.rules)
    await _pass_once(probe, ScriptedTable(probe, rules, seat=1 % rules.players, dealer=0), listen=True)


@step(
    "pass.four_cards",
    "With `pass_count` 4 the bot passes 4 cards: it reads `count` rather than assuming 3.",
)
async def pass_four(probe: Probe) -> None:
    rules = with_options(passing_rules(probe.rules), {"pass_count": 4})
    await _pass_once(probe, ScriptedTable(probe, rules, seat=0, dealer=2 % rules.players))


DOUBLE_DECK_HAND = "2C 2C 9C KD KD 4S QS QS AS 3H 3H 7H JH JH QH AH AH"


@step(
    "pass.double_deck",
    "In the double deck, where `legal` lists a code twice when the bot holds both copies, the "
    "bot passes a valid selection (a code twice only if it is listed twice).",
)
async def pass_double_deck(probe: Probe) -> None:
    rules = ruleset("double-deck")
    hands = deal_hands(rules, {3: DOUBLE_DECK_HAND}, seed=5)
    await _pass_once(probe, ScriptedTable(probe, rules, seat=3, dealer=1, seed=5), hands)


@step(
    "state.hand_after_pass",
    "After the passed event the bot plays the cards it received: it must lead the 2C it was "
    "passed, then follow a diamond lead with the 9D it was passed (its only diamond); each "
    "legal list holds that received card only.",
)
async def hand_after_pass(probe: Probe) -> None:
    await play_position(probe, POSITIONS["hand_after_pass"])


@step(
    "state.next_round",
    "A match of two rounds: after round_end the bot takes the new hand from round_start and "
    "plays the second round (a new pass direction where the variant passes) correctly.",
)
async def next_round(probe: Probe) -> None:
    rules = one_round(probe.rules, rounds=2)
    table = ScriptedTable(probe, rules, seat=1 % rules.players, dealer=0, seed=11)
    await table.play_match()
    probe.note(f"2 rounds, {len(probe.decisions)} decisions")


STEPS = (pass_legal, pass_four, pass_double_deck)
STATE_STEPS = (hand_after_pass, next_round)
