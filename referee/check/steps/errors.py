"""Steps about the referee's error messages: play on after a non-fatal one, exit after a fatal one.

The bot's replies here are legal; the check sends the errors anyway (their message says so),
because a bot meets them only after a mistake, when it is too late to find out how it copes.
"""

from __future__ import annotations

from protocol.cards import Card, card_code, rank_of, suit_of
from protocol.messages import Error, Play
from referee.check.positions import one_round
from referee.check.probe import Probe
from referee.check.steps.base import step
from referee.check.table import ScriptedTable, over
from referee.rules.round import PLAY

SCRIPTED = "referee check: a scripted error to see how your bot copes (your reply was legal)"


def _lowest_other(legal: list[Card], chosen: Card) -> Card:
    """The fallback's choice (lowest rank; clubs, diamonds, spades, hearts) among the legal
    cards other than the bot's, so the substitute always differs from what it chose."""
    return min((c for c in legal if card_code(c) != card_code(chosen)), key=lambda c: (rank_of(c), suit_of(c)))


async def _until_choice(table: ScriptedTable) -> None:
    """Play on to the bot's first play decision with at least two legal cards."""
    round_ = table.current
    while not over(round_):
        table.advance()
        if round_.phase == PLAY and round_.turn == table.seat and len(round_.legal_plays()) >= 2:
            return
        if not over(round_):
            await table.act()
    raise RuntimeError("the round ended before the bot had a choice of cards")


@step(
    "error.nonfatal_substitute",
    "After a non-fatal illegal_move error (the substitute policy), the referee plays another card "
    "for the bot; the bot takes that card out of its hand, keeps the one it chose, and answers "
    "every later request of the round correctly.",
)
async def nonfatal_substitute(probe: Probe) -> None:
    table = ScriptedTable(probe, one_round(probe.rules), seat=1 % probe.rules.players, dealer=0, seed=17)
    table.start()
    round_ = table.deal()
    await _until_choice(table)
    request = table.play_request()
    reply = await probe.ask(request, Play, request.id)
    chosen = table.check_play(request, reply)
    substitute = _lowest_other(round_.legal_plays(), chosen)
    message = f"{SCRIPTED}: the referee plays {card_code(substitute)} for you; play on"
    probe.post(Error(code="illegal_move", message=message, fatal=False, request_id=request.id, rule="must_follow_suit"))
    await probe.flush()
    table.apply_play(substitute)
    await table.finish_round()
    table.end_match()
    probe.note(f"chose {reply.card}, {card_code(substitute)} played instead; {len(probe.decisions)} decisions in all")


@step(
    "error.nonfatal_revoke",
    "After a non-fatal illegal_move error (the penalty policy), the round ends with round_end "
    "naming the bot in `revoke` and the same deal is played again with new cards: the bot plays "
    "the new round from its new round_start.",
)
async def nonfatal_revoke(probe: Probe) -> None:
    seat = 2 % probe.rules.players
    table = ScriptedTable(probe, one_round(probe.rules), seat=seat, dealer=0, seed=19)
    table.start()
    table.deal()
    await _until_choice(table)
    request = table.play_request()
    reply = await probe.ask(request, Play, request.id)
    table.check_play(request, reply)
    message = f"{SCRIPTED}: you take the revoke penalty and the hand is dealt again"
    probe.post(Error(code="illegal_move", message=message, fatal=False, request_id=request.id, rule="must_follow_suit"))
    await probe.flush()
    table.revoke()
    table.deal()
    await table.finish_round()
    table.end_match()
    probe.note(f"revoke after request {request.id}; the redeal played, {len(probe.decisions)} decisions in all")


@step(
    "error.fatal_exit",
    "After a fatal error (and its stdin closed, as the referee does) the bot exits within the "
    "grace period (1 s), with any status (over TCP: closes the connection); writing after the "
    "error earns a warning.",
)
async def fatal_exit(probe: Probe) -> None:
    table = ScriptedTable(probe, one_round(probe.rules), seat=0, dealer=1 % probe.rules.players, seed=23)
    table.start()
    table.deal()
    table.advance()
    await table.act()
    request_id = probe.decisions[-1].id
    message = f"{SCRIPTED}: you are dropped from the match; exit now"
    probe.post(Error(code="protocol_violation", message=message, fatal=True, request_id=request_id))
    await probe.flush()
    await probe.close_input()
    grace = probe.limits.grace
    lines = await probe.drain(grace)
    end = await probe.wait_end(grace / 4)
    if end is None:
        raise probe.not_ended(grace, "a fatal error and the end of its input", f"{probe.to_exit} within {grace:g} s")
    if lines:
        probe.warn(f"{len(lines)} line(s) written after the fatal error (the referee no longer reads them)")
    probe.note(f"{end.describe()} after the fatal error")


STEPS = (nonfatal_substitute, nonfatal_revoke, fatal_exit)
