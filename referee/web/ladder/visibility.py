"""What the public view of a ladder may show of a bot's faults (issue 42, "Who sees what"):
each fault by its reason, and nothing a bot wrote or the referee said about it.

A fault's message, hint and exit status, the line the bot sent and its stderr help the bot's
author, and help anyone else too: another entrant reads a rival's traceback (its strategy, its
file names, its secrets printed by mistake), and a message quotes what a bot sent. CodinGame
shows a player's stderr to that player only. So the public pages keep a fault's reason (and the
rule it broke, the action taken: the referee's own words, the same for every bot) and drop the
rest before anything is rendered: what is not in the record cannot leak from any renderer.

Pure functions on the pages' records: the static copy (``referee ladder export``) uses them,
and so can the live server's public view. The organizer's and the entrant's views show the
records as they are."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from referee.replay.record import MatchRecord
from referee.replay.withheld import withheld_record
from referee.web.ladder.queries import BotView, FaultRow


def public_fault(fault: FaultRow) -> FaultRow:
    """A bot page's fault with its reason, match and seat only: no message, hint, exit status,
    stderr, or log (the ``referee replay`` command names the organizer's file)."""
    return replace(fault, message="", hint=None, exit=None, stderr=[], stderr_lines=0, log=None)


def public_faults(faults: Iterable[FaultRow]) -> list[FaultRow]:
    """Each fault as ``public_fault`` shows it."""
    return [public_fault(fault) for fault in faults]


def public_bot_view(view: BotView) -> BotView:
    """A bot's page as the public sees it: its faults by reason only (render it with
    ``bot_body(..., details=False)``, which says so instead of "stderr: nothing")."""
    return replace(view, faults=public_faults(view.faults))


def public_record(record: MatchRecord) -> MatchRecord:
    """A match's replay as the public sees it: no seat's stderr or exit status, and each fault
    without its message, the line the bot sent, or its hint (``referee.replay.withheld``, of
    every seat)."""
    return withheld_record(record, frozenset(s.seat for s in record.seats) | {f.seat for f in record.faults})
