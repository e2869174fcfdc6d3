"""``referee new LANGUAGE FOLDER``: a bot folder to start from (``referee.starter``)."""

from __future__ import annotations

from pathlib import Path

import click

from referee.starter import STARTERS, StarterError, make_folder


@click.command("new")
@click.argument("language", metavar="LANGUAGE")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def new(language: str, folder: Path) -> None:
    """Make FOLDER a bot to start from in LANGUAGE (python, javascript, java, rust, go, c++):
    the kit, a sample bot that plays legally and a README with how to build, play, check and
    ladder it. FOLDER must be new or empty."""
    try:
        chosen = make_folder(language, folder)
    except StarterError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"made {folder}: a {chosen.language} bot (README.md says how to build, play, check and ladder it)")
    if chosen.build:
        click.echo(f"  build:  cd {folder} && {chosen.build}")
    click.echo(f'  check:  cd {folder} && referee check "{chosen.command}"')


new.help = (new.help or "") + f"\n\nLanguages: {', '.join(STARTERS)}."
