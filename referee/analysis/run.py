"""A whole match analysed: every decision of the chosen seats and the luck of their deals,
in parallel over processes (each task is pure: an ``InfoSet`` or a ``LuckTask``, a seed, a
budget), or in this process with one worker.

Each task's seed is derived from the analysis seed and the task's place in the match (round,
seat, decision), never from the order the workers finish in, so the same seed gives the same
figures with any number of workers.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed

from protocol.ruleset import RuleSet
from referee.analysis.estimate import Budget, ChoiceValue, DecisionEstimate, Interval, estimate
from referee.analysis.grading import grade
from referee.analysis.infoset import PHASES, Decision, deal_views, match_decisions
from referee.analysis.luck import LuckTask, RoundLuck, round_luck
from referee.analysis.report import ERRORS, Analysis, DecisionReport, SeatSummary, Verdict
from referee.analysis.winchance import first_chance, shape_of
from referee.replay.record import MatchRecord
from referee.rules.playout import PlayoutPolicy

_MOON_REASON = "nothing is hidden once the round is played: the choice moves the match score only"
Progress = Callable[[int, int], None]
"""Called with (tasks done, tasks in all) as tasks finish."""
Task = tuple[str, object, int, Budget, PlayoutPolicy]


def task_seed(seed: int, *place: object) -> int:
    return random.Random(":".join(str(p) for p in (seed, *place))).getrandbits(64)


def _work(task: Task) -> object:
    kind, payload, seed, budget, policy = task
    if kind == "luck":
        assert isinstance(payload, LuckTask)
        return round_luck(payload, seed, budget.luck, policy)
    assert isinstance(payload, Decision)
    return estimate(payload.info, payload.chosen, seed, budget, policy)


def _run(tasks: list[Task], workers: int, progress: Progress | None, executor: Executor | None = None) -> list[object]:
    """Every task's result, in the tasks' order: in this process (one worker), over a pool of
    ``workers`` processes, or over ``executor`` (a Dask client's, ``--cluster``)."""
    results: list[object] = [None] * len(tasks)
    if executor is not None:
        _gather(executor, tasks, results, progress)
        return results
    if workers <= 1:
        for i, task in enumerate(tasks):
            results[i] = _work(task)
            if progress:
                progress(i + 1, len(tasks))
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        _gather(pool, tasks, results, progress)
    return results


def _gather(pool: Executor, tasks: list[Task], results: list[object], progress: Progress | None) -> None:
    futures = {pool.submit(_work, task): i for i, task in enumerate(tasks)}
    for done, future in enumerate(as_completed(futures), 1):
        results[futures[future]] = future.result()
        if progress:
            progress(done, len(tasks))


def _unvalued(i: int, d: Decision) -> DecisionReport | None:
    """The report of a decision that is not valued, or ``None`` for one that is."""
    reason: str | None = None
    if d.fallback:
        verdict: Verdict = "fallback"
    elif d.info.kind == "moon" and d.outcomes is None:
        verdict, reason = (
            "not_analysed",
            _MOON_REASON,
        )
    elif d.info.kind == "moon":
        return None
    elif d.info.kind == "play" and len(d.info.view.legal) == 1:
        verdict = "forced"
    else:
        return None
    return DecisionReport(
        index=i, seat=d.info.view.seat, round=d.info.round, trick=d.trick, kind=d.info.kind, phase=d.phase,
        chosen=d.chosen, verdict=verdict, reason=reason,
    )  # fmt: skip


def moon_estimate(d: Decision, rules: RuleSet) -> DecisionEstimate:
    """A moon choice valued exactly: nothing is hidden once the round is played, and each
    choice's score changes are the rules' (``Decision.outcomes``). Its points are the seat's
    change less the others' mean change, equal for both choices (26 off the shooter or 26 on
    each other seat): the choice moves the match alone, so it is judged by the chance of
    finishing first after the round (``winchance``), with no interval to it."""
    seat, shape = d.info.view.seat, shape_of(rules)
    assert d.outcomes is not None
    values = []
    for choice, changes in d.outcomes.items():
        others = [c for j, c in enumerate(changes) if j != seat]
        points = changes[seat] - sum(others) / max(1, len(others))
        after = tuple(s + c for s, c in zip(d.info.scores, changes, strict=True))
        chance = first_chance(shape, after, d.info.round + 1, seat)
        values.append(ChoiceValue(choice=choice, points=Interval(points, points, points), chance=chance))
    values.sort(key=lambda v: (-v.chance, v.choice != d.chosen))
    chosen = next(v for v in values if v.choice == d.chosen)
    best = values[0]
    lost = best.chance - chosen.chance
    return DecisionEstimate(choices=values, best=best.choice, loss=Interval(0.0, 0.0, 0.0),
                    chance_loss=Interval(lost, lost, lost), worlds=0, exact_worlds=0, playouts=0)  # fmt: skip


def _valued(i: int, d: Decision, e: DecisionEstimate) -> DecisionReport:
    loss, chance = e.loss, e.chance_loss
    verdict = grade(e.best == d.chosen, (loss.mean, loss.low, loss.high), (chance.mean, chance.low, chance.high))
    return DecisionReport(
        index=i, seat=d.info.view.seat, round=d.info.round, trick=d.trick, kind=d.info.kind, phase=d.phase,
        chosen=d.chosen, verdict=verdict, best=e.best, loss=loss, chance_loss=chance, choices=e.choices,
        worlds=e.worlds, exact_worlds=e.exact_worlds, playouts=e.playouts, valued=e.valued or len(e.choices),
    )  # fmt: skip


def _summary(record: MatchRecord, seat: int, reports: list[DecisionReport], luck: list[RoundLuck]) -> SeatSummary:
    mine = [r for r in reports if r.seat == seat]
    valued = [r for r in mine if r.loss is not None]
    by_phase: dict[str, float] = {}
    for phase in PHASES:
        losses = [r.loss.mean for r in valued if r.phase == phase and r.loss is not None]
        if losses:
            by_phase[phase] = sum(losses) / len(losses)
    total = sum(r.loss.mean for r in valued if r.loss is not None)
    grades = {g: sum(r.verdict == g for r in mine) for g in ("best", "good", *ERRORS, "forced", "fallback")}
    rounds = [r for r in luck if r.seat == seat]
    return SeatSummary(
        seat=seat, name=record.seats[seat].name, decisions=len(mine), analysed=len(valued),
        mean_loss=total / len(valued) if valued else 0.0, loss_by_phase=by_phase, total_loss=total,
        grades=grades, luck=sum(r.luck.mean for r in rounds), expected=sum(r.dealt.mean for r in rounds),
        actual=sum(r.actual for r in rounds),
    )  # fmt: skip


def analyse_match(
    record: MatchRecord,
    seats: Sequence[int],
    *,
    seed: int = 1,
    budget: Budget | None = None,
    policy: PlayoutPolicy = "greedy",
    workers: int = 1,
    progress: Progress | None = None,
    log_name: str = "log",
    executor: Executor | None = None,
) -> Analysis:
    """Analyse ``seats``' decisions and deals in a verified match (see the package docstring);
    ``executor``: value them there (a Dask client's executor) rather than over ``workers``
    processes: the same figures, each task's seed being its own."""
    budget = budget or Budget()
    started = time.perf_counter()
    decisions = list(match_decisions(record, seats))
    reports: list[DecisionReport | None] = [_unvalued(i, d) for i, d in enumerate(decisions)]
    tasks: list[Task] = []
    slots: list[int] = []
    for i, d in enumerate(decisions):
        if reports[i] is None and d.outcomes is not None:
            reports[i] = _valued(i, d, moon_estimate(d, record.rules))
        elif reports[i] is None:
            tasks.append(("decision", d, task_seed(seed, d.info.round, d.info.view.seat, i), budget, policy))
            slots.append(i)
    luck_tasks = [
        LuckTask(rules=record.rules, round=number, dealt=dealt, after_pass=start, actual=actual)
        for seat in seats
        for number, _scores, dealt, start, actual in deal_views(record, seat)
    ]
    tasks += [("luck", t, task_seed(seed, "luck", t.round, t.dealt.seat), budget, policy) for t in luck_tasks]
    results = _run(tasks, workers, progress, executor)
    for i, result in zip(slots, results, strict=False):
        assert isinstance(result, DecisionEstimate)
        reports[i] = _valued(i, decisions[i], result)
    luck = [r for r in results[len(slots) :] if isinstance(r, RoundLuck)]
    done = [r for r in reports if r is not None]
    graded = sorted((r for r in done if r.verdict in ERRORS and r.loss), key=lambda r: -(r.loss.mean if r.loss else 0))
    return Analysis(
        log=log_name, match_id=record.match_id, variant=record.rules.name,
        seats=[_summary(record, s, done, luck) for s in seats], decisions=done, worst=[r.index for r in graded[:3]],
        luck=luck, seed=seed, policy=policy, budget=budget, seconds=time.perf_counter() - started,
        playouts=sum(r.playouts for r in done) + len(luck) * budget.luck * 2,
    )  # fmt: skip
