"""The ``referee`` command group: each command group lives in its own module and is joined
here, so no command module imports another."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click
import msgspec

from referee import __version__
from referee.cli.bench import bench
from referee.cli.check import check
from referee.cli.duel import duel, gauntlet
from referee.cli.failures import internal_error_line
from referee.cli.ladder import ladder
from referee.cli.match import demo, match, serve
from referee.cli.new import new
from referee.cli.options import (
    parse_options,
)
from referee.cli.play import play
from referee.cli.replay import replay
from referee.cli.vectors import vectors
from referee.cli.watch import watch
from referee.rules.errors import InvalidRuleSet
from referee.rules.presets import DEFAULT_PRESET, PRESETS, ruleset


class RefereeGroup(click.Group):
    """The ``referee`` group, with a last safety net: an exception that no check turned into a
    usage error becomes one line on stderr and exit status 1, not a traceback (unless
    ``REFEREE_DEBUG`` is set). Bad input is caught earlier, with a message naming the option."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().main(*args, **kwargs)
        except Exception as err:
            if os.environ.get("REFEREE_DEBUG"):
                raise
            click.echo(internal_error_line(err), err=True)
            sys.exit(1)


@click.group(cls=RefereeGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


for command in (match, serve, demo, play, watch, bench, ladder, duel, gauntlet, replay, check, new, vectors):
    main.add_command(command)
