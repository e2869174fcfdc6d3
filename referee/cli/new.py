"""``referee new LANGUAGE FOLDER``: a bot folder to start from (``referee.starter``)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import NoReturn

import click

from referee.starter import (
    STARTERS,
    TRANSCRIPT_FILE,
    StarterError,
    make_folder,
    make_neutral_folder,
    must_be_new,
    starter,
)


@click.command("new")
@click.argument("language", metavar="LANGUAGE")
@click.argument("folder", metavar="FOLDER", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--neutral",
    is_flag=True,
    help="For a language without a kit: a README with where the protocol, its JSON Schema and the test vectors "
    "are and the exact check, match and ladder commands, and a transcript of one round (played now by a sample "
    "bot) to test against.",
)
@click.option(
    "--command",
    "bot_command",
    metavar="COMMAND",
    default=None,
    help="With --neutral: the command that starts the bot in FOLDER (default: php bot.php for php, ruby bot.rb "
    "for ruby, ...; else ./bot).",
)
def new(language: str, folder: Path | None, neutral: bool, bot_command: str | None) -> None:
    """Make FOLDER a bot to start from in LANGUAGE (python, javascript, java, rust, go, c++):
    the kit, a sample bot that plays legally and a README with how to build, play, check and
    ladder it. FOLDER must be new or empty. For any other language, --neutral."""
    if folder is None:
        _no_folder(language, neutral)
    if bot_command is not None and not neutral:
        raise click.UsageError("--command is for --neutral folders (a kit's folder has its own command)")
    if neutral:
        _neutral(language, folder, bot_command)
        return
    try:
        chosen = make_folder(language, folder)
    except StarterError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"made {folder}: a {chosen.language} bot (README.md says how to build, play, check and ladder it)")
    if chosen.build:
        click.echo(f"  build:  cd {folder} && {chosen.build}")
    click.echo(f'  check:  cd {folder} && referee check "{chosen.command}"')


def _no_folder(language: str, neutral: bool) -> NoReturn:
    """``referee new LANGUAGE`` without its FOLDER (``referee new php``, as a bot author asks
    first): a language without a kit gets the pointers it gets with one (the protocol, its
    schema, the vectors, ``--neutral``), not only click's "Missing argument"."""
    if not neutral:
        try:
            starter(language)
        except StarterError as err:
            raise click.ClickException(str(err)) from None
    raise click.UsageError("Missing argument 'FOLDER'.")


def _neutral(language: str, folder: Path, bot_command: str | None) -> None:
    from referee.docgen import transcript  # noqa: PLC0415 (a match's modules only for --neutral)

    try:
        must_be_new(folder)  # before the round is played
        command = make_neutral_folder(language, folder, transcript(), bot_command)
    except StarterError as err:
        raise click.ClickException(str(err)) from None
    click.echo(
        f"made {folder}: the start of a {language} bot (README.md: what to read, the check and ladder commands; "
        f"{TRANSCRIPT_FILE}: one round to test against)"
    )
    click.echo(f'  check:  cd {folder} && referee check "{command}"')


new.help = inspect.cleandoc(new.help or "") + f"\n\nLanguages with a kit: {', '.join(STARTERS)}."
