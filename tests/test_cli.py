"""The ``referee`` command line, run in-process through click's ``CliRunner``."""

from __future__ import annotations

import json

import msgspec
import pytest
from click.testing import CliRunner, Result

from protocol.cards import parse_card
from protocol.ruleset import RuleSet
from referee import __version__
from referee.cli import main
from referee.rules import PRESETS, deck_for, ruleset


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert result.exception is None
    return result.output


def test_version() -> None:
    output = ok("--version")
    assert __version__ in output
    assert output.strip() == f"referee, version {__version__}"


def test_help_lists_the_commands() -> None:
    output = ok("--help")
    assert "variants" in output and "bench" in output


def test_variants_lists_every_preset_with_its_description() -> None:
    lines = ok("variants").splitlines()
    assert len(lines) == len(PRESETS)
    for line, (name, preset) in zip(lines, PRESETS.items(), strict=True):
        assert line.split()[0] == name
        assert f"{preset.rules.players}p" in line.split()
        assert line.endswith(preset.rules.description)
        assert preset.rules.description


@pytest.mark.parametrize("name", list(PRESETS))
def test_variant_json_round_trips_to_the_rule_set(name: str) -> None:
    data = json.loads(ok("variants", name, "--json"))
    assert list(data) == [name]
    rules = msgspec.convert(data[name], RuleSet)
    assert rules == ruleset(name) == PRESETS[name].rules
    assert set(data[name]) == set(RuleSet.__struct_fields__)


def test_variant_without_json_names_its_sources() -> None:
    output = ok("variants", "dutch")
    assert output.splitlines()[0].startswith("dutch")
    assert PRESETS["dutch"].sources in output


def test_variants_json_without_a_name_holds_every_preset() -> None:
    data = json.loads(ok("variants", "--json"))
    assert list(data) == list(PRESETS)
    for name, fields in data.items():
        assert msgspec.convert(fields, RuleSet) == PRESETS[name].rules


def test_set_players_3_on_dutch_gives_30_cards() -> None:
    data = json.loads(ok("variants", "dutch", "--set", "players=3", "--json"))
    rules = msgspec.convert(data["dutch"], RuleSet)
    assert rules.players == 3
    assert sorted(rules.remove) == ["7D", "8D"]
    deck = deck_for(rules)
    assert len(deck.cards) == 30
    assert deck.hand_size == 10
    assert rules == ruleset("dutch", {"players": 3})


def test_several_sets_apply_in_order_and_read_json_values() -> None:
    data = json.loads(
        ok(
            "variants",
            "american",
            "--set",
            "players=5",
            "--set",
            'remove=["2D","2C"]',
            "--set",
            "moon_points=null",
            "--set",
            "moon=shooter_choice",
            "--json",
        )
    )
    rules = msgspec.convert(data["american"], RuleSet)
    assert rules.players == 5
    assert rules.remove == ("2D", "2C")
    assert rules.moon_points is None
    assert rules.moon == "shooter_choice"
    assert deck_for(rules).lead_card == parse_card("3C")  # the 3C leads without the 2C


def test_set_without_a_name_starts_from_american() -> None:
    data = json.loads(ok("variants", "--set", "players=6", "--json"))
    assert list(data) == ["american"]
    rules = msgspec.convert(data["american"], RuleSet)
    assert rules.players == 6 and rules.copies == 2
    assert len(deck_for(rules).cards) == 102


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        (["nosuchoption=1"], "unknown option 'nosuchoption'"),
        (["players=two"], "players"),
        (["players=2"], "players must be 3 or more"),
        (["players=true"], "players"),
        (["pass_count=9"], "pass_count"),
        (['remove=["ZZ"]'], "ZZ"),
        (["deal_packets=[]"], "deal_packets"),
        (["moon=sometimes"], "sometimes"),
        (['card_points={"QS": "x"}'], "card_points"),
        (["copies=3"], "copies"),
        (["players=3", 'pass_schedule=["across"]'], "across"),
    ],
)
def test_bad_set_exits_nonzero_with_a_clear_message(pairs: list[str], message: str) -> None:
    args = ["variants", "american"]
    for pair in pairs:
        args += ["--set", pair]
    result = run(*args)
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.output.startswith("Error: ")
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("pair", ["nonsense", "=3"])
def test_set_without_option_equals_value_is_a_usage_error(pair: str) -> None:
    result = run("variants", "--set", pair)
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert "OPTION=VALUE" in result.output


def test_unknown_preset_exits_nonzero() -> None:
    result = run("variants", "no-such-preset")
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)
    assert "no preset named 'no-such-preset'" in result.output
    assert "Traceback" not in result.output


def test_bench_engine_json() -> None:
    output = ok("bench", "engine", "--seconds", "0.2", "--json")
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    data = json.loads(lines[0])
    assert isinstance(data, dict)
    for key in ("hands_per_second", "decisions_per_second"):
        assert isinstance(data[key], int | float) and not isinstance(data[key], bool)
        assert data[key] > 0
    assert data["variant"] == "american"
    assert data["hands"] > 0 and data["decisions"] > data["hands"]


def test_bench_engine_playouts() -> None:
    """Playouts from mid-round positions: plain copies, and sampled worlds (the search bot's unit)."""
    data = json.loads(ok("bench", "engine", "--playouts", "--seconds", "0.2", "--variant", "double-deck", "--json"))
    assert data["variant"] == "double-deck" and data["policy"] == "greedy"
    assert data["positions"] >= 1 and data["playouts"] > 0
    assert data["playouts_per_second"] > 0 and data["worlds_per_second"] > 0
    output = ok("bench", "engine", "--playouts", "--seconds", "0.1")
    assert output.startswith("american: ") and "playouts/s" in output


@pytest.mark.process
def test_bench_match_json_puts_cpu_against_cpu() -> None:
    """The headline ratio is the referee's CPU per decision over the echo's CPU per round trip,
    both measured in the same run (issue 13); the old figure against echo wall time is kept."""
    data = json.loads(ok("bench", "match", "--games", "1", "--json").strip())
    assert data["games"] == 1 and data["decisions"] > 50 and data["timeouts"] == 0
    assert data["echo_round_trips"] == data["decisions"]
    assert data["referee_us_per_decision"] > 0 and data["echo_cpu_us_per_round_trip"] > 0
    cpu_ratio = data["referee_us_per_decision"] / data["echo_cpu_us_per_round_trip"]
    assert data["ratio"] == pytest.approx(cpu_ratio, rel=0.02, abs=0.01)
    wall_ratio = data["referee_us_per_decision"] / data["echo_us_per_round_trip"]
    assert data["ratio_to_echo_wall"] == pytest.approx(wall_ratio, rel=0.02, abs=0.01)


def test_bench_openspiel_plays_both_engines_side_by_side() -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel is in the test extra; this machine lacks it")
    data = json.loads(ok("bench", "openspiel", "--blocks", "2", "--seconds", "0.1", "--json").strip())
    assert len(data["ours"]) == len(data["openspiel"]) == 2
    assert all(h > 0 for h in data["ours"] + data["openspiel"])
    assert data["ratio"] == pytest.approx(data["ours_median"] / data["openspiel_median"], rel=0.01)


def test_bench_engine_text_and_variant_choice() -> None:
    output = ok("bench", "engine", "--seconds", "0.05", "--variant", "dutch")
    assert output.startswith("dutch: ")
    assert "hands/s" in output and "decisions/s" in output
    result = run("bench", "engine", "--variant", "no-such-preset")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
