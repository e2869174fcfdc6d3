"""Steps about whole matches: other variants, two matches on one connection, and the exit."""

from __future__ import annotations

import trio

from protocol.messages import Goodbye
from protocol.ruleset import RuleSet
from referee.check.conversation import StepFailed
from referee.check.positions import one_round
from referee.check.probe import Probe
from referee.check.steps.base import Step, step
from referee.check.table import ScriptedTable
from referee.rules.errors import InvalidRuleSet
from referee.rules.presets import ruleset


def _variant_step(name: str, preset: str, seat: int, summary: str) -> Step:
    async def run(probe: Probe) -> None:
        rules = one_round(ruleset(preset))
        table = ScriptedTable(probe, rules, seat=seat, dealer=0, seed=29)
        await table.play_match()
        probe.note(f"{preset}: a round from seat {seat}, {len(probe.decisions)} decisions")

    return step(f"variant.{name}", summary)(run)


three_players = _variant_step(
    "three_players",
    "american-3",
    2,
    "A round of american-3: three players, 17 cards each (the 2D removed); the bot in seat 2.",
)
five_players = _variant_step(
    "five_players",
    "american-5",
    4,
    "A round of american-5: five players, 10 cards each (the 3C and 2D removed); the bot in seat 4.",
)
double_deck = _variant_step(
    "double_deck",
    "double-deck",
    5,
    "A round of double-deck: six players, two decks (the 2D twice removed), 17 cards each with "
    "codes that appear twice; the bot in seat 5.",
)
dutch = _variant_step(
    "dutch",
    "dutch",
    1,
    "A round of dutch: 32 cards dealt 3-2-3, no passing, the player left of the dealer leads any "
    "card, hearts may be led at any time; the bot in seat 1.",
)


def _other_rules(variant: str, rules: RuleSet) -> RuleSet:
    """The same variant for another number of players, where it has one."""
    try:
        return ruleset(variant, {"players": 3 if rules.players != 3 else 4})
    except InvalidRuleSet:
        return rules


@step(
    "connection.two_matches",
    "Two matches on one connection (as a ladder plays them): after match_end comes another "
    "match_start with another seat and another number of players; request ids keep counting. "
    "The bot forgets the first match and plays the second correctly.",
)
async def two_matches(probe: Probe) -> None:
    first = one_round(probe.rules)
    second = one_round(_other_rules(probe.variant, probe.rules))
    await ScriptedTable(probe, first, seat=0, dealer=1, seed=31, match_id="check-1").play_match()
    await ScriptedTable(probe, second, seat=second.players - 1, dealer=0, seed=37, match_id="check-2").play_match()
    await probe.flush()
    probe.note(
        f"{first.players} then {second.players} players, {len(probe.decisions)} decisions, "
        f"ids 1 to {probe.decisions[-1].id}"
    )


@step(
    "exit.goodbye",
    "After a whole match the bot writes nothing in answer to match_end; on goodbye it exits with "
    "status 0 within the grace period (1 s) (over TCP: closes the connection; the status is not "
    "visible). Exiting only when stdin closes, or writing after goodbye, earns a warning.",
)
async def goodbye(probe: Probe) -> None:
    table = ScriptedTable(probe, one_round(probe.rules), seat=0, dealer=0, seed=41)
    await table.play_match()
    await probe.expect_silence("match_end")
    probe.post(Goodbye(reason="done"))
    await probe.flush()
    grace = probe.limits.grace
    start = trio.current_time()
    status = "" if probe.tcp else " with status 0"
    wanted = f"{probe.to_exit}{status} within {grace:g} s of goodbye"
    end = await probe.wait_end(grace)
    if end is None:
        await probe.close_input()
        end = await probe.wait_end(grace)
        if end is None:
            raise probe.not_ended(grace, "goodbye and after its input ended", wanted)
        how = "closes the connection" if probe.tcp else "exits"
        closes = "half-closes the connection" if probe.tcp else "closes stdin"
        probe.warn(f"the bot {how} when its input ends, not on goodbye (this works: the referee {closes})")
    elapsed = (trio.current_time() - start) * 1000
    lines = await probe.drain(grace / 4)
    if lines:
        probe.warn(f"{len(lines)} line(s) written after goodbye (the referee no longer reads them)")
    if end.code is None:  # over TCP: no exit status to see
        probe.note(f"closed the connection {elapsed:.0f} ms after goodbye (an exit status is not visible over TCP)")
        return
    if end.code != 0:
        raise StepFailed(
            f"after goodbye the bot {end.describe()}",
            expected="exit status 0 after goodbye",
            got=f"exit status {end.code}",
            reason="exit_status",
        )
    probe.note(f"exited with status 0, {elapsed:.0f} ms after goodbye")


@step(
    "exit.end_of_input",
    "When its input ends in the middle of a match (the referee went away), the bot exits within "
    "the grace period (1 s) (over TCP: the check half-closes the connection and the bot closes it).",
)
async def end_of_input(probe: Probe) -> None:
    table = ScriptedTable(probe, one_round(probe.rules), seat=1 % probe.rules.players, dealer=0, seed=43)
    table.start()
    table.deal()
    table.advance()
    await table.act()
    await probe.flush()
    await probe.close_input()
    grace = probe.limits.grace
    end = await probe.wait_end(grace)
    if end is None:
        raise probe.not_ended(grace, "its input ended", f"{probe.to_exit} within {grace:g} s of the end of its input")
    probe.note(end.describe())


STEPS = (three_players, five_players, double_deck, dutch, two_matches, goodbye, end_of_input)
