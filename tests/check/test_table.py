"""The check's scripted table tells a bot what a match tells it.

For seeds in every preset, the same bot at the same seat plays a whole match twice: once at
the check's ``ScriptedTable`` (the other seats played by the check), once in a real match
(``MatchRunner``, the other seats played by bots that choose exactly as the check's seats
do). The lines the bot reads must be the same, byte for byte, from ``match_start`` to
``match_end``. Only the handshake before them may differ, and is left out: the check's
``hello`` names the check as the referee. Nothing else is ignored: the request ids count
from 1 on both, and on trio's mock clock no decision draws on its bank, so every request
carries the same time left.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any, TypeVar

import pytest
import trio
import trio.testing

from protocol.cards import Card, card_codes
from protocol.ruleset import RuleSet
from referee.check.positions import Opponents
from referee.check.probe import Limits, Probe
from referee.check.table import ScriptedTable
from referee.match.config import MatchConfig
from referee.rules import PRESETS, Match, Round, ruleset
from referee.rules.wire import bot_card, bot_cards
from tests.match.scripted import MemoryLink, ScriptedBot, connect, play_on

T = TypeVar("T")
NAME = "alike"
"""Every bot's hello name, so that the seats carry the same names at both tables."""
MATCH_ID = "same-1"
SEEDS = (1, 2)


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


# -- choices that depend only on the seed and where they are made --------------------------------
def _rng(seed: int, *where: object) -> random.Random:
    return random.Random(":".join(str(w) for w in (seed, *where)))


def pick_play(seed: int, legal: Sequence[T], round_number: int, trick: int, seat: int) -> T:
    return legal[_rng(seed, "play", round_number, trick, seat).randrange(len(legal))]


def pick_pass(seed: int, legal: Sequence[T], count: int, round_number: int, seat: int) -> list[T]:
    return [legal[i] for i in _rng(seed, "pass", round_number, seat).sample(range(len(legal)), count)]


def pick_declare(seed: int, seat: int) -> bool:
    return _rng(seed, "declare", seat).random() < 0.5


class AlikeOpponents(Opponents):
    """The check's seats, choosing as ``AlikeBot`` does from the request it would be sent (the
    same codes in the same order), and naming the cards by code as a bot does: with a double
    deck a code is the copy the referee takes, not the copy the check's own seats might pick,
    and that shows in the order of a hand."""

    def play(self, round_: Round, seat: int, round_number: int) -> Card:
        legal = card_codes(round_.legal_plays())
        return bot_card(pick_play(self.seed, legal, round_number, round_.trick_number, seat))

    def pass_cards(self, round_: Round, seat: int, round_number: int) -> list[Card]:
        count = round_.deck.rules.pass_count
        return bot_cards(pick_pass(self.seed, card_codes(round_.legal_passes(seat)), count, round_number, seat))

    def declare(self, seat: int) -> bool:
        return pick_declare(self.seed, seat)


class AlikeBot:
    """A bot's brain for ``ScriptedBot``. Around the tested seat it plays as the check's seats
    do (which always score a moon ``add_to_others``); at the tested seat it also chooses how
    to score a moon."""

    def __init__(self, seed: int, *, tested: bool) -> None:
        self.seed = seed
        self.tested = tested
        self.seat = -1
        self.round = -1

    async def __call__(self, message: dict[str, Any]) -> list[bytes] | None:
        kind = message["type"]
        reply: dict[str, Any]
        if kind == "hello":
            reply = {"type": "hello", "version": 1, "name": NAME}
        elif kind == "match_start":
            self.seat = message["seat"]
            return []
        elif kind == "round_start":
            self.round = message["round"]
            return []
        elif kind == "pass_request":
            cards = pick_pass(self.seed, message["legal"], message["count"], self.round, self.seat)
            reply = {"type": "pass", "id": message["id"], "cards": cards}
        elif kind == "play_request":
            card = pick_play(self.seed, message["legal"], self.round, message["trick_number"], self.seat)
            reply = {"type": "play", "id": message["id"], "card": card}
        elif kind == "declare_request":
            reply = {"type": "declare", "id": message["id"], "declare": pick_declare(self.seed, self.seat)}
        elif kind == "moon_request":
            options = message["options"]
            choice = options[_rng(self.seed, "moon", self.round).randrange(len(options))]
            reply = {"type": "moon", "id": message["id"], "choice": choice if self.tested else "add_to_others"}
        else:
            return []
        return [json.dumps(reply).encode()]


# -- the two tables ------------------------------------------------------------------------------
def after_handshake(bot: ScriptedBot) -> list[bytes]:
    kinds = [m["type"] for m in bot.received]
    return bot.lines[kinds.index("match_start") :]


async def in_a_match(rules: RuleSet, seed: int, seat: int) -> list[bytes]:
    """What the bot at ``seat`` reads in a real match."""
    bots = [ScriptedBot(AlikeBot(seed, tested=s == seat)) for s in range(rules.players)]
    config = MatchConfig()
    async with trio.open_nursery() as nursery:
        connections = [await connect(bot, nursery) for bot in bots]
        outcome = await play_on(connections, rules, seed=seed, config=config, nursery=nursery, match_id=MATCH_ID)
    assert [s.status for s in outcome.seats] == ["ok"] * rules.players
    return after_handshake(bots[seat])


async def at_the_check(rules: RuleSet, seed: int, seat: int) -> list[bytes]:
    """What the bot at ``seat`` reads at the check's scripted table, dealt as the match deals."""
    bot = ScriptedBot(AlikeBot(seed, tested=True))
    async with trio.open_nursery() as nursery:
        ours, theirs = trio.testing.memory_stream_pair()
        nursery.start_soon(bot.serve, theirs)
        link = MemoryLink(ours)
        probe = Probe(link, Limits(), rules, rules.name)  # type: ignore[arg-type]  # any BotLink serves
        await probe.shake_hands()
        table = ScriptedTable(
            probe,
            rules,
            seat,
            dealer=Match(rules, seed).first_dealer,
            seed=seed,
            opponents=AlikeOpponents(seed),
            match_id=MATCH_ID,
            names=[NAME],
        )
        await table.play_match()
        await probe.flush()
        await link.close()
    return after_handshake(bot)


@pytest.mark.parametrize(("preset", "seed"), [(p, s) for p in PRESETS for s in SEEDS])
async def test_the_scripted_table_sends_what_a_match_sends(
    preset: str, seed: int, autojump_clock: trio.testing.MockClock
) -> None:
    rules = ruleset(preset)
    seat = seed % rules.players
    match = await in_a_match(rules, seed, seat)
    check = await at_the_check(rules, seed, seat)
    kinds = [json.loads(line)["type"] for line in match]
    assert kinds[0] == "match_start"
    assert kinds[-1] == "match_end"
    assert json.loads(match[-1])["reason"] != "interrupted"
    assert "play_request" in kinds
    assert len(check) == len(match)
    for number, (sent, told) in enumerate(zip(match, check, strict=True)):
        assert told == sent, f"line {number} after the handshake differs"
