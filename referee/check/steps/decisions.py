"""Steps about the variants' own decisions: Achterhoeks declarations and the moon choice.

They use the variant under check when it has the decision, otherwise a preset that has it
(``achterhoeks``, ``american-moon-choice``), so every bot is asked once.
"""

from __future__ import annotations

from protocol.messages import Declare
from protocol.ruleset import RuleSet
from referee.check.positions import Opponents, moon_position, one_round
from referee.check.probe import Probe
from referee.check.steps.base import step
from referee.check.table import ScriptedTable
from referee.rules.presets import ruleset


def declaring_rules(rules: RuleSet) -> RuleSet:
    return rules if rules.declarations else ruleset("achterhoeks")


@step(
    "declare.first",
    "Achterhoeks miezen: asked first (nobody has declared yet), the bot answers declare with true "
    "or false, echoing the id.",
)
async def declare_first(probe: Probe) -> None:
    rules = declaring_rules(probe.rules)
    table = ScriptedTable(probe, rules, seat=1, dealer=0)
    table.start()
    table.deal()
    table.advance()
    reply = await table.act()
    if isinstance(reply, Declare):
        probe.note(f"{rules.name}: declared {str(reply.declare).lower()}")
    table.end_match()


@step(
    "declare.after_others",
    "Asked after other seats have declared (their declared events, and the request's list), the "
    "bot declares and then plays the whole round, scored with the declarations.",
)
async def declare_after_others(probe: Probe) -> None:
    rules = one_round(declaring_rules(probe.rules))
    n = rules.players
    seat = n - 1
    before = range(1, seat)  # dealer 0: seats declare from 1 clockwise
    declarations = {s: i % 2 == 0 for i, s in enumerate(before)}
    table = ScriptedTable(probe, rules, seat=seat, dealer=0, opponents=Opponents(7, declarations=declarations))
    table.start()
    table.deal()
    table.advance()
    reply = await table.act()
    result = await table.finish_round()
    table.end_match()
    if isinstance(reply, Declare):
        probe.note(
            f"{rules.name}: after [{', '.join(str(declarations[s]).lower() for s in before)}] "
            f"declared {str(reply.declare).lower()}; "
            f"round scored {result.score_changes}"
        )


@step(
    "moon.choice",
    "The bot takes every trick (it holds all the clubs and leads) and is asked how its moon is "
    "scored: it answers moon with one of the options, echoing the id.",
)
async def moon_choice(probe: Probe) -> None:
    position = moon_position(probe.rules)
    table = ScriptedTable(probe, position.rules, position.seat, dealer=position.dealer, seed=position.seed)
    table.start()
    round_ = table.deal(position.deal())
    await table.finish_round()
    table.end_match()
    if round_.result is None or round_.result.moon != position.seat:
        raise RuntimeError("moon.choice: the bot did not shoot the moon")
    probe.note(f"{position.rules.name}: took every trick, chose {round_.result.moon_scoring}")


STEPS = (declare_first, declare_after_others, moon_choice)
