"""A worker's result, checked before it counts: the coordinator trusts no worker.

What a worker returns (``MatchDone``) crossed the network from a machine the coordinator does
not control, so it is read as untrusted input: the log must be one complete match whose
header is the match the coordinator asked for (seed, rules, the command of every seat), the
rules engine must verify it move by move, and the outcome the worker claims must be what the
verified log says. Only then is a record made for the store; anything else is a
``ResultRefused`` naming what is wrong (the coordinator sends the match again).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from protocol.ruleset import RuleSet
from referee.errors import LadderError
from referee.ladder.cluster_worker import MatchDone
from referee.ladder.runner import match_record
from referee.log_format import RoundScored
from referee.replay.reader import LogError, parse_log
from referee.replay.verify import verify
from referee.store.records import ScheduledMatch, StoredMatch


class ResultRefused(LadderError):
    """A worker's result that the coordinator does not accept (named in the message)."""


def check_result(
    match: ScheduledMatch,
    rules: RuleSet,
    commands: Mapping[str, str],
    done: MatchDone,
    log_path: Path,
) -> StoredMatch:
    """The store's record of a worker's result, or ``ResultRefused`` naming what is wrong: the
    log must hold the one match asked for (seed, rules, seats), complete and verified by the
    rules engine, and the outcome must say what the log says."""
    where = f"match {match.key} from worker {done.worker}"
    if (done.set_index, done.rotation) != (match.set_index, match.rotation):
        raise ResultRefused(f"{where}: the result is for match {done.set_index}-{done.rotation}")
    if done.outcome is None:
        raise ResultRefused(f"{where}: no outcome")
    try:
        replay = parse_log(done.log, where)
    except LogError as err:
        raise ResultRefused(f"{where}: the log cannot be read: {err}") from None
    if len(replay.matches) != 1 or replay.cut_line is not None:
        raise ResultRefused(f"{where}: the log holds {len(replay.matches)} matches, or ends cut off")
    logged = replay.matches[0]
    header = logged.header
    if header.seed_number() != match.seed:
        raise ResultRefused(f"{where}: the log's seed is not the match's")
    if header.rules != rules:
        raise ResultRefused(f"{where}: the log's rules are not the ladder's")
    wanted = [commands[name] for name in match.seats]
    if [s.command for s in header.seats] != wanted:
        raise ResultRefused(f"{where}: the log's seats are not the match's seating")
    record = verify(logged)
    assert record.verification is not None
    if record.verification.status != "verified" or record.result is None:
        raise ResultRefused(f"{where}: the log does not verify: {record.verification.describe()}")
    outcome = done.outcome
    result = record.result
    claims = (outcome.seed, outcome.match_id, outcome.scores, outcome.winners, outcome.reason, outcome.rounds)
    facts = (str(header.seed_number()), header.match_id, result.scores, result.winners, result.reason, result.rounds)
    if claims != facts or [s.status for s in outcome.seats] != [s.status for s in record.seats]:
        raise ResultRefused(f"{where}: the outcome does not agree with its verified log")
    rounds = [line.entry.result for line in logged.entries if isinstance(line.entry, RoundScored)]
    return match_record(match, outcome, rounds, str(log_path), sandboxed=done.sandboxed, fresh_bots=True)
