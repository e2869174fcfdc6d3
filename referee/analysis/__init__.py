"""Analysis of a logged match: where a seat lost points, and how much the cards decided.

For each decision of a seat, from that seat's information alone (``infoset``), every legal
choice is valued by sampling the hidden hands uniformly among the deals consistent with what
the seat knew (``worlds``) and playing the round out with a fixed policy (``estimate``); the
choice made is compared with the best, with a paired confidence interval, and graded
(``grading``), in points of the round and in the chance of finishing first (``winchance``).
``luck`` values each seat's cards the same way from the deal. ``run`` drives a whole match
(in parallel over processes) and ``report`` is its output; ``duplicate`` sums the luck of a
ladder's duplicate set over its rotations. Nothing here does I/O but ``run``'s
process pool; the command line is ``referee.cli.analyze``. See docs/analysis.md.
"""

from referee.analysis.estimate import Budget
from referee.analysis.infoset import Decision, InfoSet, match_decisions
from referee.analysis.report import Analysis, DecisionReport, SeatSummary
from referee.analysis.run import analyse_match

__all__ = [
    "Analysis",
    "Budget",
    "Decision",
    "DecisionReport",
    "InfoSet",
    "SeatSummary",
    "analyse_match",
    "match_decisions",
]
