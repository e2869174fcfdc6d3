"""Play one match between bot programs: start them, shake hands, run, say goodbye, clean up.

This is what ``referee match`` calls. Whatever happens (a bot that never starts talking, a
crash, an exception or a cancellation), every bot program is ended and reaped before
``play_match`` returns or raises.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import trio

from protocol.ruleset import RuleSet
from referee.connection import BotConnection, handshake, say_goodbye
from referee.link import BotStartError, ProcessLink
from referee.match_log import MatchLog
from referee.runner import MatchConfig, MatchOutcome, MatchRunner


async def play_match(
    commands: Sequence[str],
    rules: RuleSet,
    *,
    seed: int | None = None,
    config: MatchConfig | None = None,
    log_path: str | Path | None = None,
    cwd: str | Path | None = None,
    match_id: str | None = None,
) -> MatchOutcome:
    """Run one match between the bot ``commands`` (one per seat, in seat order). Raises
    ``BotStartError`` when a command cannot be started at all."""
    config = config or MatchConfig()
    seed = random.randrange(2**32) if seed is None else seed
    if len(commands) != rules.players:
        raise ValueError(f"{rules.players} bots needed for {rules.name}, got {len(commands)}")
    log = MatchLog(log_path)
    connections: list[BotConnection] = []
    runner: MatchRunner | None = None
    try:
        async with trio.open_nursery() as nursery:
            try:
                for command in commands:
                    link = await ProcessLink.start(command, nursery, cwd=cwd)
                    connections.append(BotConnection(link=link, command=command))
                async with trio.open_nursery() as handshakes:
                    for connection in connections:
                        handshakes.start_soon(handshake, connection, config.startup)
                runner = MatchRunner(
                    connections, rules, seed=seed, config=config, log=log, nursery=nursery, match_id=match_id
                )
                outcome = await runner.run()
            finally:
                with trio.CancelScope(shield=True):
                    async with trio.open_nursery() as closing:
                        for connection in connections:
                            closing.start_soon(say_goodbye, connection, config.grace)
        if runner is not None:
            runner.write_stderr()
        return outcome
    except BaseExceptionGroup as group:
        failed = group.subgroup(BotStartError)
        if failed is not None:
            raise _first(failed) from None
        raise
    finally:
        log.close()


def _first(group: BaseExceptionGroup[BotStartError]) -> BotStartError:
    error = group.exceptions[0]
    return error if isinstance(error, BotStartError) else _first(error)
