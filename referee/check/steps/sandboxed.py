"""The step about the sandbox: the bot still works when it is started in bubblewrap.

Every step of a check starts the bot in the same sandbox (``referee check --sandbox``), so a
bot that cannot start there at all fails ``handshake.hello``. This step says plainly that the
bot ran isolated, shook hands and answered a request so, and looks in its stderr for the usual
signs of a bot that reached for something the sandbox keeps from it (a file outside its
folder, a writable folder, the network). It comes after the steps about the game, so that a
mistake in the game is named by the step about it first. Without a sandbox it is skipped: the
bots are not isolated.
"""

from __future__ import annotations

from typing import Final

from referee.check.positions import one_round
from referee.check.probe import Probe
from referee.check.steps.base import step
from referee.check.table import ScriptedTable

OUT_OF_REACH: Final = (
    "Read-only file system",
    "Permission denied",
    "No such file or directory",
    "Network is unreachable",
)
"""Error texts (strerror) on a bot's stderr that suggest the sandbox kept something from it."""


@step(
    "sandbox.works",
    "Started in the sandbox (bubblewrap: its own namespaces, no network, a private /tmp, the "
    "system and its folder read-only), the bot shakes hands and answers its first request of a "
    "match; a warning when its stderr says a file or the network was out of reach. Skipped when "
    "the bots are not isolated (--sandbox off, no bubblewrap, or a tcp: bot).",
    sandboxed=True,
)
async def works(probe: Probe) -> None:
    assert probe.sandbox is not None  # the runner skips this step without a sandbox
    rules = one_round(probe.rules)
    table = ScriptedTable(probe, rules, seat=1 % rules.players, dealer=0, seed=47)
    table.start()
    table.deal()
    table.advance()
    await table.act()
    table.end_match()
    await probe.flush()
    answered = probe.decisions[0].request
    probe.note(f"ran in {probe.sandbox}: hello after {probe.startup_ms:.0f} ms, answered a {answered}")
    text, _ = probe.link.stderr_text()
    found = [hint for hint in OUT_OF_REACH if hint in text]
    if found:
        probe.warn(
            f"the bot's stderr says {found[0]!r}: in the sandbox only /tmp and $HOME are writable, it sees "
            "the system, its folder and its interpreter read-only, and has no network "
            "(referee check --sandbox-bind PATH shows it more)"
        )


STEPS = (works,)
