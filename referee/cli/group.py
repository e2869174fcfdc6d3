"""The ``referee`` command group: each command group lives in its own module and is joined
here, so no command module imports another.

The modules are imported when their command runs, not before (click's "lazily loading
subcommands"): ``referee match`` must not pay for the benchmarks' imports (the web server, Dask's
client, every bench module: about three quarters of what importing them all costs), and every bot
a ladder starts through ``referee`` and every test that runs the command line starts faster."""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any

import click
import msgspec

from referee import __version__
from referee.cli.failures import internal_error_line
from referee.cli.options import (
    parse_options,
)
from referee.rules.errors import InvalidRuleSet
from referee.rules.presets import DEFAULT_PRESET, PRESETS, ruleset

COMMANDS: dict[str, str] = {
    "match": "referee.cli.match:match",
    "serve": "referee.cli.match:serve",
    "demo": "referee.cli.match:demo",
    "play": "referee.cli.play:play",
    "watch": "referee.cli.watch:watch",
    "bench": "referee.cli.bench:bench",
    "ladder": "referee.cli.ladder:ladder",
    "duel": "referee.cli.duel:duel",
    "gauntlet": "referee.cli.duel:gauntlet",
    "replay": "referee.cli.replay:replay",
    "analyze": "referee.cli.analyze:analyze",
    "check": "referee.cli.check:check",
    "new": "referee.cli.new:new",
    "vectors": "referee.cli.vectors:vectors",
}
"""Each command's module and name, imported on first use."""


class RefereeGroup(click.Group):
    """The ``referee`` group, with a last safety net: an exception that no check turned into a
    usage error becomes one line on stderr and exit status 1, not a traceback (unless
    ``REFEREE_DEBUG`` is set). Bad input is caught earlier, with a message naming the option."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module, name = COMMANDS[cmd_name].split(":")
            command = getattr(importlib.import_module(module), name)
            assert isinstance(command, click.Command), COMMANDS[cmd_name]
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

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
