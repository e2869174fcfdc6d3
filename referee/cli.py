"""The ``referee`` command line: thin click commands that parse options and call the library."""

from __future__ import annotations

import json
from typing import Any

import click
import msgspec

from referee import __version__
from referee.bench import bench_engine
from referee.rules.errors import InvalidRuleSet
from referee.rules.presets import DEFAULT_PRESET, PRESETS, ruleset


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``OPTION=VALUE`` pairs as a dict; a VALUE is read as JSON when it parses
    (``players=5``, ``remove=["2D"]``, ``moon_points=null``), else as a string."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected OPTION=VALUE, got {pair!r}", param_hint="--set")
        try:
            value: Any = json.loads(text)
        except json.JSONDecodeError:
            value = text
        options[key.strip()] = value
    return options


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """A Hearts referee for bots in any language."""


@main.command()
@click.argument("name", required=False)
@click.option("--set", "pairs", multiple=True, metavar="OPTION=VALUE", help="Override one rule option.")
@click.option("--json", "as_json", is_flag=True, help="Print full rule sets as JSON.")
def variants(name: str | None, pairs: tuple[str, ...], as_json: bool) -> None:
    """List the preset variants, or show one preset (with --set overrides)."""
    options = parse_options(pairs)
    if name is None and options:
        name = DEFAULT_PRESET
    names = [name] if name else list(PRESETS)
    try:
        rule_sets = {n: ruleset(n, options) for n in names}
    except InvalidRuleSet as err:
        raise click.ClickException(str(err)) from None
    if as_json:
        click.echo(json.dumps({n: msgspec.to_builtins(r) for n, r in rule_sets.items()}, indent=2))
        return
    width = max(len(n) for n in names)
    for n, rules in rule_sets.items():
        click.echo(f"{n:<{width}}  {rules.players}p  {rules.description}")
        if name:
            click.echo(f"{'':<{width}}  follows seeds {PRESETS[n].sources}")


@main.group()
def bench() -> None:
    """Benchmarks (figures recorded in docs/performance.md)."""


@bench.command()
@click.option("--variant", default=DEFAULT_PRESET, show_default=True, type=click.Choice(list(PRESETS)))
@click.option("--seconds", default=5.0, show_default=True, type=float, help="How long to play.")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def engine(variant: str, seconds: float, seed: int, as_json: bool) -> None:
    """Random legal hands through the rules API: hands and decisions per second."""
    result = bench_engine(variant, seconds, seed)
    if as_json:
        click.echo(msgspec.json.encode(result).decode())
        return
    click.echo(
        f"{result.variant}: {result.hands} hands, {result.decisions} decisions in {result.seconds:.2f} s\n"
        f"  {result.hands_per_second:,.0f} hands/s   {result.decisions_per_second:,.0f} decisions/s"
    )
