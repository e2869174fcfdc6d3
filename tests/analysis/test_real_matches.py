"""The analysis on real logged matches played by bot processes (process tier): a ladder's
duplicate set, whose luck nearly cancels over its rotations where one match's does not; the
blunder bot's blunders in natural play flagged through ``referee analyze``; the command line
itself (the text report, the JSON against its schema, a tampered log refused)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import msgspec
import pytest
import trio

from referee.analysis import match_decisions
from referee.analysis.duplicate import set_luck
from referee.analysis.report import ERRORS, Analysis
from referee.match.play import TableOptions, play_match
from referee.replay.reader import read_log
from referee.replay.record import MatchRecord
from referee.replay.verify import verify
from referee.rules import ruleset
from referee.store.records import DuplicateSet
from tests.replay.helpers import PY, ROOT, SLOW

pytestmark = pytest.mark.process

sys.path.insert(0, str(ROOT / "tests" / "bots"))
from blunder_bot import blunders  # noqa: E402

RANDOM = f"{PY} sample_bots/python/random_bot.py --seed 1"
HEURISTIC = f"{PY} sample_bots/python/heuristic_bot.py"
FIRST = f"{PY} tests/bots/first_legal_bot.py"
BLUNDER = f"{PY} tests/bots/blunder_bot.py"
BLUNDER_SEEDS = (12, 51)
"""Matches where the blunder bot's rule applies often: 10 plays (1 to 5 a match, 2.4 on average
over seeds 1 to 60), in 180 decisions of seat 0 to analyse (seeds 1 to 4 took 482 for 10)."""


def _play(bots: list[str], rules_name: str, options: dict[str, object], seed: int, path: Path) -> MatchRecord:
    rules = ruleset(rules_name, options)
    trio.run(lambda: play_match(bots, rules, seed=seed, log_path=path, options=TableOptions(config=SLOW, cwd=ROOT)))
    return verify(read_log(path).select(None)[0])


def _referee(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def blunder_logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Whole American matches (to 100) of the blunder bot at seat 0 against the sample bots."""
    folder = tmp_path_factory.mktemp("blunder")
    paths = []
    for seed in BLUNDER_SEEDS:
        path = folder / f"blunder-{seed}.jsonl"
        _play([BLUNDER, HEURISTIC, RANDOM, HEURISTIC], "american", {}, seed, path)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def blunder_analyses(blunder_logs: list[Path]) -> list[tuple[str, Analysis]]:
    """``referee analyze LOG --seat 0 --json`` of each, as printed and decoded."""
    found = []
    for path in blunder_logs:
        done = _referee("analyze", path, "--seat", "0", "--json", "--budget", "64", "--workers", "2")
        assert done.returncode == 0, done.stderr
        found.append((done.stdout, msgspec.json.decode(done.stdout, type=Analysis)))
    return found


def test_a_duplicate_sets_luck_nearly_cancels(tmp_path: Path) -> None:
    """A ladder's duplicate set (``DuplicateSet``: one seed, every seat rotation) of four sample
    bots, four rounds a match, each match valued as ``referee analyze --seed 1+i``. In every
    match some bot's luck against the table's (its *edge*) is outside its 95% interval of zero:
    one match's luck does not cancel. Over the set every bot's edge is inside its 95% interval
    of zero: "nearly" is "within the sampling noise", which is what is left, each bot having
    held the same cards."""
    dup = DuplicateSet(0, (RANDOM, HEURISTIC, FIRST, BLUNDER), 12345)
    records = [
        _play(list(m.seats), "american", {"end": "rounds", "rounds": 4}, m.seed, tmp_path / f"{m.rotation}.jsonl")
        for m in dup.matches()
    ]
    assert len({tuple(tuple(r.hands[0]) for r in rec.rounds) for rec in records}) == 1  # the same deals
    luck = set_luck(records, seed=1)
    assert sorted(b.name for b in luck.bots) == ["blunder", "first-legal", "heuristic", "random"]
    for i in range(len(records)):
        assert any(not b.edges[i].low <= 0 <= b.edges[i].high for b in luck.bots), [b.edges[i] for b in luck.bots]
    for bot in luck.bots:
        assert bot.edge.low <= 0 <= bot.edge.high, bot
        biggest = max(abs(e.mean) for e in bot.edges)
        assert abs(bot.edge.mean) < biggest / 2, bot


BLUNDER_LOGS = pytest.mark.xdist_group("blunder-logs")
"""The tests of the blunder bot's logs on one worker: their module fixtures (two whole matches,
each analysed) are made once, not once on each worker that runs one of them."""


@BLUNDER_LOGS
def test_the_blunder_bots_natural_blunders_are_flagged(
    blunder_logs: list[Path], blunder_analyses: list[tuple[str, Analysis]]
) -> None:
    """Every play of the blunder bot where its rule applied (it took the Q♠ when a lower card
    ducked, or dropped her on a spade trick it could duck, another spade left to guard her),
    found in the real logs, is graded an error by ``referee analyze`` in at least 95% of those
    decisions."""
    planted = flagged = 0
    for path, (_text, analysis) in zip(blunder_logs, blunder_analyses, strict=True):
        record = verify(read_log(path).select(None)[0])
        for index, d in enumerate(match_decisions(record, [0])):
            if d.info.kind != "play" or d.fallback:
                continue
            card = blunders(list(d.info.view.legal), list(d.info.view.trick))
            if card is None:
                continue
            assert d.chosen == card
            report = analysis.decisions[index]
            assert (report.round, report.trick, report.chosen) == (d.info.round, d.trick, d.chosen)
            planted += 1
            flagged += report.verdict in ERRORS
    assert planted >= 10, planted
    assert flagged >= 0.95 * planted, (flagged, planted)


@BLUNDER_LOGS
def test_the_command_line_on_a_real_log(
    blunder_logs: list[Path], blunder_analyses: list[tuple[str, Analysis]], tmp_path: Path
) -> None:
    """``referee analyze`` as a process: exit 0 and the text report's three worst decisions;
    ``--json`` valid against the JSON Schema of its msgspec Structs; a tampered log refused,
    naming the difference, with exit status 1 (docs/analysis.md); a file that is no log, 3."""
    log = blunder_logs[1]
    done = _referee("analyze", log, "--seat", "0", "--budget", "8", "--workers", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("the three worst decisions:")
    worst = lines[start + 1 : start + 4]
    assert len(worst) == 3 and all("loss" in w and w.split()[-1] in ERRORS for w in worst), worst
    assert "seat 0 (blunder):" in done.stdout and "mean loss" in done.stdout and "luck" in done.stdout
    schema = msgspec.json.schema(Analysis)
    for text, analysis in blunder_analyses:
        jsonschema.validate(json.loads(text), schema)
        assert len(analysis.worst) == 3
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('{"type":"round_end"'))
    entry = json.loads(lines[at])
    entry["result"]["score_changes"][0] += 1
    lines[at] = json.dumps(entry, separators=(",", ":"))
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")
    refused = _referee("analyze", tampered, "--seat", "0", "--budget", "16")
    assert refused.returncode == 1, refused.stderr
    assert "refused: the log does not verify (mismatch at round 0" in refused.stderr, refused.stderr
    assert "score_changes" in refused.stderr
    assert refused.stdout == ""
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"type": "nonsense"}\n')
    assert _referee("analyze", junk).returncode == 3
