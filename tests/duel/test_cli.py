"""``referee duel`` and ``referee gauntlet`` end to end, with real fast bots: the heuristic bot
accepted as better than the random bot (exit status 0); a bot against itself under another
name never accepted as better (H0, exit status 1, every set exactly even by the table's
symmetry); the JSON for scripts; no decision (exit status 3); errors (exit status 2); the
gauntlet's table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from referee.cli import main
from referee.duel.store import DuelStore
from referee.stats.sequential import MIN_SETS
from tests.duel.helpers import FIRST, HEURISTIC, RANDOM, SHORT, quick_first, quick_random
from tests.ladder.helpers import check_consistent

QUICK = [*SHORT, "--sandbox", "off", "-k", "2"]


def referee(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def as_json(result: Result) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.process
def test_the_heuristic_bot_is_accepted_as_better_than_the_random_bot(tmp_path: Path) -> None:
    db = tmp_path / "duel.db"
    # one round a match: sets of a few points, which the prior spread (a set could be worth
    # ±125 in a match to 100) outweighs only after about 75 sets
    old, opponent = quick_random(), quick_first()  # the Python heuristic bot against C bots
    args = ["duel", HEURISTIC, old, "--opponents", opponent, "--sprt", "0,2", "--max-sets", "150", "--db", str(db)]
    result = referee(*args, *QUICK, "--seed", "11", "--json")
    assert result.exit_code == 0, result.output
    found = as_json(result)
    assert found["verdict"] == "H1" and found["exit_status"] == 0
    (pairing,) = found["pairings"]
    assert pairing["verdict"] == "H1" and pairing["sprt"]["llr"] >= found["sprt"]["upper"]
    assert MIN_SETS <= pairing["sprt"]["sets"] <= pairing["sets"] <= pairing["sprt"]["sets"] + 1  # one set in flight
    assert pairing["mean"] > 2 and pairing["interval"][0] > 0
    assert check_consistent(db) == {"done": 4 * pairing["sets"], "total": 4 * pairing["sets"]}
    # run again: decided, so nothing is played and the answer is the same
    again = referee(*args, *QUICK, "--json")
    assert again.exit_code == 0 and as_json(again)["this_run"]["matches"] == 0
    assert as_json(again)["pairings"] == found["pairings"]


@pytest.mark.process
def test_a_bot_against_itself_under_another_name_is_never_better(tmp_path: Path) -> None:
    db = tmp_path / "duel.db"
    # --sprt 0,20: equal sets outweigh the prior spread by the first look (at 0,2 it takes 170)
    first = quick_first()
    result = referee("duel", first, first, "--opponents", first, "--sprt", "0,20", "--db", str(db), *QUICK)
    assert result.exit_code == 1, result.output
    assert "verdict: H0 accepted: new is better than old by at most 0 points a match" in result.output
    assert "exit status 1" in result.output
    store = DuelStore(db)
    try:
        # two copies of one deterministic bot: every set exactly even, whatever the cards (and
        # the test decides at its first look, with a set on the second table in flight)
        (differences,) = store.differences().values()
        assert set(differences) == {0.0} and MIN_SETS <= len(differences) <= MIN_SETS + 1
    finally:
        store.close()


@pytest.mark.process
def test_the_json_holds_the_settings_each_pairing_and_the_run(tmp_path: Path) -> None:
    db = tmp_path / "duel.db"
    result = referee("duel", FIRST, RANDOM, "--opponents", FIRST, "--max-sets", "2", "--db", str(db), *QUICK, "--json")
    assert result.exit_code == 3, result.output  # no --sprt: no decision
    found = as_json(result)
    assert set(found) == {
        "kind", "new", "opponents", "rules", "players", "matches_per_set", "level", "sprt", "pairings",
        "overall", "faults", "broken", "verdict", "exit_status", "db", "this_run", "interrupted",
    }  # fmt: skip
    assert (found["kind"], found["new"], found["opponents"], found["rules"]) == (
        "duel",
        "new",
        ["opponent"],
        "american",
    )
    assert found["sprt"] is None and found["verdict"] is None and found["exit_status"] == 3
    assert found["matches_per_set"] == 4 and found["this_run"]["matches"] == 8 and not found["interrupted"]
    (pairing,) = found["pairings"]
    assert set(pairing) == {
        "against", "sets", "scheduled", "mean", "sd", "interval", "confidence_sequence", "sprt", "verdict",
    }  # fmt: skip
    assert pairing["against"] == "old" and pairing["sets"] == pairing["scheduled"] == 2
    assert pairing["confidence_sequence"] == [None, None]  # too few sets for it
    assert pairing["sprt"] is None and pairing["verdict"] is None
    assert {bot: (f["seats"], f["dropped"]) for bot, f in found["faults"].items()} == {
        "new": (8, 0),
        "old": (8, 0),
        "opponent": (16, 0),
    }
    assert found["broken"] == []
    text = referee("duel", FIRST, RANDOM, "--opponents", FIRST, "--max-sets", "2", "--db", str(db), *QUICK)
    assert (
        text.exit_code == 3
        and "verdict: none, no sequential test (no --sprt): estimate only"
        " (faults: new 0/8 seats, old 0/8, opponent 0/16; exit status 3)"
        in text.output
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sprt", "2,1"], "finite d0 < d1"),
        (["--sprt", "1"], "expected two numbers D0,D1"),
        (["--alpha", "0.1"], "--alpha go with --sprt"),
        (["--sprt", "0,1", "--beta", "0.7"], "beta must be strictly between 0 and 0.5"),
        (["--opponents", "a", "--opponents", "b", "--opponents", "c"], "room for 2 opponents, not 3"),
        (["--bots", "BOTS"], "no bot named"),
        (["--variant", "nonsense"], "nonsense"),
    ],
)
def test_an_error_exits_with_status_2(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "bots.toml").write_text('[[bot]]\nname = "a"\ncommand = "python3 a.py"\n')
    args = [str(tmp_path / "bots.toml") if a == "BOTS" else a for a in args]
    result = referee("duel", FIRST, RANDOM, "--db", str(tmp_path / "duel.db"), "--sandbox", "off", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_an_unforeseen_error_exits_with_status_2_not_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something unforeseen")

    monkeypatch.setattr("referee.cli.duel.play_duel", broken)
    monkeypatch.delenv("REFEREE_DEBUG", raising=False)
    result = referee("duel", FIRST, RANDOM, "--db", str(tmp_path / "duel.db"), "--sandbox", "off")
    assert result.exit_code == 2
    assert "internal error: RuntimeError: something unforeseen" in result.output


@pytest.mark.process
def test_a_duel_refuses_a_database_made_for_another(tmp_path: Path) -> None:
    db = str(tmp_path / "duel.db")
    made = referee("duel", FIRST, RANDOM, "--opponents", FIRST, "--max-sets", "1", "--db", db, *QUICK, "-q")
    assert made.exit_code == 3, made.output
    assert made.output.strip().splitlines()[-1].startswith("verdict: ")  # quiet: the verdict only
    other = referee("duel", FIRST, HEURISTIC, "--opponents", FIRST, "--max-sets", "1", "--db", db, *QUICK)
    assert other.exit_code == 2 and "holds another duel" in other.output
    pool = tmp_path / "pool.toml"
    pool.write_text(f'[[bot]]\nname = "a"\ncommand = "{FIRST}"\n\n[[bot]]\nname = "b"\ncommand = "{RANDOM}"\n')
    gauntlet = referee("gauntlet", FIRST, "--pool", str(pool), "--db", db, *QUICK)
    assert gauntlet.exit_code == 2 and "holds another duel" in gauntlet.output
    assert "it is a duel, not a gauntlet" in gauntlet.output
    ladder = referee("ladder", "run", str(pool), "--db", db, "--sandbox", "off")
    assert ladder.exit_code == 1 and "the database of a `referee duel`, not a ladder" in ladder.output


@pytest.mark.process
def test_a_gauntlet_shows_new_against_each_bot_of_the_pool(tmp_path: Path) -> None:
    pool = tmp_path / "pool.toml"
    bots = {"random": RANDOM, "first": FIRST, "heuristic": HEURISTIC, "opponent": FIRST}
    pool.write_text("".join(f'[[bot]]\nname = "{name}"\ncommand = "{command}"\n\n' for name, command in bots.items()))
    db = str(tmp_path / "gauntlet.db")
    args = ["gauntlet", "heuristic", "--pool", str(pool), "--bots", str(pool), "--opponents", "opponent"]
    result = referee(*args, "--max-sets", "2", "--db", db, *QUICK)
    assert result.exit_code == 3, result.output
    rows = {line.split()[0]: line.split() for line in result.output.splitlines() if line.strip()}
    assert rows["random"][1] == rows["first"][1] == "2"  # NEW and the opponent are left out of the pool
    assert rows["pool"][:2] == ["pool", "mean"] and "heuristic" not in rows and "opponent" not in rows
    found = as_json(referee(*args, "--max-sets", "2", "--db", db, *QUICK, "--json"))
    assert found["kind"] == "gauntlet" and [p["against"] for p in found["pairings"]] == ["random", "first"]
    means = [p["mean"] for p in found["pairings"]]
    assert found["overall"]["mean"] == pytest.approx(sum(means) / 2)
    low, high = found["overall"]["interval"]
    assert low < found["overall"]["mean"] < high


@pytest.mark.process
def test_a_duel_on_a_local_cluster_plays_verifies_and_records_every_set(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="Dask is in the test extra (pip install -e '.[test]')")
    db = tmp_path / "duel.db"
    args = ["duel", FIRST, RANDOM, "--opponents", FIRST, "--max-sets", "3", "--db", str(db), *SHORT]
    result = referee(*args, "--cluster", "local:2", "-k", "2", "--json")
    assert result.exit_code == 3, result.output
    found = as_json(result)
    assert found["pairings"][0]["sets"] == 3 and found["this_run"]["matches"] == 12
    assert check_consistent(db) == {"done": 12, "total": 12}
    logs = sorted((tmp_path / "duel-logs").glob("*.jsonl"))
    assert len(logs) == 12
    verified = referee("replay", str(logs[0]), "--verify")
    assert verified.exit_code == 0 and "verified" in verified.output
