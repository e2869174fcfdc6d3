"""Steps about the start of a connection: hello, the version choice, and staying quiet."""

from __future__ import annotations

from referee.check.probe import Probe
from referee.check.steps.base import passing_rules, step
from referee.check.table import ScriptedTable


def _hello_note(probe: Probe) -> None:
    hello = probe.hello
    assert hello is not None
    probe.note(f"version {hello.version}, name {hello.name!r}, hello after {probe.startup_ms:.0f} ms")
    if not hello.name.strip():
        probe.warn("the name is empty: results will show the bot's command line instead")
    if hello.token is not None and not probe.tcp:
        probe.warn("the hello carries a token; tokens are for bots that connect over TCP, leave it out")


@step(
    "handshake.hello",
    "The bot answers the referee's hello (versions [1]) within the start-up limit with a hello "
    "that chooses version 1 and gives a name, and then writes nothing until it is asked.",
    handshake=False,
)
async def hello(probe: Probe) -> None:
    await probe.shake_hands((1,))
    _hello_note(probe)
    await probe.expect_silence("its hello")


@step(
    "handshake.versions_1_2",
    "Offered versions [1, 2] (a future referee), the bot still chooses 1, the only version that exists.",
    handshake=False,
)
async def versions_1_2(probe: Probe) -> None:
    await probe.shake_hands((1, 2))
    _hello_note(probe)


@step(
    "handshake.versions_2_1",
    "Offered versions [2, 1], the bot chooses 1: the order of the list means nothing.",
    handshake=False,
)
async def versions_2_1(probe: Probe) -> None:
    await probe.shake_hands((2, 1))
    _hello_note(probe)


@step(
    "handshake.unknown_fields",
    "A hello with fields the bot does not know (a later minor version) gets the same answer.",
    handshake=False,
)
async def hello_unknown_fields(probe: Probe) -> None:
    extra = {
        "features": ["tcp", "spectators"],
        "motd": {"type": "goodbye", "versions": [9], "text": "unknown fields must be ignored"},
        "x_limits": None,
    }
    await probe.shake_hands((1,), extra)
    _hello_note(probe)


@step(
    "events.silent",
    "Events get no answer: after match_start and round_start (which come before its first "
    "request) the bot writes nothing.",
)
async def events_silent(probe: Probe) -> None:
    rules = passing_rules(probe.rules)
    table = ScriptedTable(probe, rules, seat=2 % rules.players, dealer=0)
    table.start()
    table.deal()
    await probe.expect_silence("match_start and round_start")
    probe.note(f"nothing written in {probe.limits.quiet * 1000:.0f} ms after match_start and round_start")
    table.end_match()


STEPS = (hello, versions_1_2, versions_2_1, hello_unknown_fields, events_silent)
