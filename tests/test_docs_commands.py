"""The docs cannot drift from the commands (issue 43): every ``referee ...`` command line of
README.md and docs/*.md, in code blocks (a ``\\`` continuation joined) and in inline code, goes
through the command line's parser without running: the group and each subcommand's
``make_context`` with ``resilient_parsing=False``, so an option that no command has, a value out
of range or of the wrong type, a missing argument of a code block's line, or a subcommand that
does not exist is a failure naming the file and line.

- **Synopses** (``referee match [--seed N] BOT...``, ``bench engine|openspiel``): a line with
  brackets, a ``|`` or ``...`` is a template; only its subcommands and option names are checked,
  not its values (``N`` is no integer). So is a line with a placeholder (``--seed S``,
  ``OUT.svg``) that does not parse as it is (``referee check BOT`` parses, and is checked whole).
- **Inline code** may name a command without all its arguments (``referee ladder table``
  in a sentence): a missing argument or subcommand is allowed there, a wrong option or value is
  not. A code block's line is meant to be pasted, so it must be whole.
- **Paths that must exist** (``click.Path(exists=True)``: a bot's folder, a ladder's database)
  are not looked up: the docs name files a reader has (``ladder.db``, ``mybot/``), not files of
  this repository. The check is skipped for existence only, by parsing with ``click.Path``'s
  ``exists`` off (``_paths_unchecked``); a path that exists is still checked as the type says
  (a file where a folder is wanted fails). Everything else (callbacks included: a ``--host``
  must resolve) runs as on a real command line.

``TEMPLATES`` lists the few lines that are templates on purpose in another way, each with why.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest

from referee.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

TEMPLATES: dict[str, str] = {}
"""Command lines (as extracted, whitespace collapsed) that are not meant to parse, and why."""

FENCE = re.compile(r"^\s*(```|~~~)")
SHELL_BLOCKS = {"", "sh", "bash", "shell", "console", "yaml"}
INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
START = re.compile(
    r"(?:^|&&|\|\||;|\$\(|\||\bsudo\s+|\bexec\s+|^\$\s+|^-?\s*run:\s*)\s*(?:[A-Z_]+=\S*\s+)*(referee\s.*)$"
)
"""Where a shell line runs ``referee``: at its start (after a ``$`` prompt, environment
assignments or a YAML ``run:``), or after ``&&``, ``;``, ``|``, ``$(``."""
BARE_START = re.compile(r"^(?:\$\s+)?(referee\s.*)$")
SYNOPSIS = re.compile(r"\[|\]|\.\.\.|(?<![|])\|(?![|])|<[^>]*>|\{[^}]*\}")


@dataclass(frozen=True)
class DocCommand:
    file: str
    line: int
    text: str
    inline: bool

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text}"


def _code_lines(text: str) -> Iterator[tuple[int, str, str | None]]:
    """Each line of ``text`` with its number and the language of its fenced block (``None``:
    prose). Only shell blocks are kept (``sh``, ``console``, ``yaml`` or no language; ``text``
    blocks show output), a line ending in ``\\`` joined with the next."""
    fence: str | None = None
    pending: tuple[int, str] | None = None
    for read, raw in enumerate(text.splitlines(), 1):
        number, line = read, raw
        if FENCE.match(line) is not None:
            fence = line.strip()[3:].strip() if fence is None else None
            continue
        if fence is None:
            yield number, line, None
            continue
        if fence not in SHELL_BLOCKS:
            continue
        if pending is not None:
            number, line = pending[0], f"{pending[1]} {line.strip()}"
            pending = None
        if line.rstrip().endswith("\\"):
            pending = (number, line.rstrip()[:-1].rstrip())
            continue
        yield number, line, fence


def extract(path: Path) -> list[DocCommand]:
    """The ``referee`` command lines of one Markdown file."""
    found: list[DocCommand] = []
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    prose: list[tuple[int, str]] = []
    for number, line, block in _code_lines(path.read_text(encoding="utf-8")):
        if block is not None:
            start = START if block else BARE_START  # a block without a language may be a tree, a table
            if (match := start.search(line.strip())) is not None:
                found.append(DocCommand(name, number, match[1].strip(), inline=False))
            continue
        prose.append((number, line))
    # inline code may wrap onto the next line: look for it in each paragraph, joined
    paragraph: list[tuple[int, str]] = []
    for number, line in [*prose, (0, "")]:
        if line.strip():
            paragraph.append((number, line))
            continue
        joined, starts = "", []
        for n, text in paragraph:
            starts.append((len(joined), n))
            joined += text.strip() + " "
        for match in INLINE.finditer(joined):
            code = " ".join(match[1].split())
            if code.startswith("referee "):
                line_number = max(n for offset, n in starts if offset <= match.start())
                found.append(DocCommand(name, line_number, code, inline=True))
        paragraph = []
    return found


COMMANDS = [c for path in DOCS for c in extract(path)]


SHELL = re.compile(r"\d?>.*|<.*|&&?|\|\|?|;")
"""A word that ends the command: a redirection, ``&``, a pipe, ``&&``, ``;``."""
PLACEHOLDER = re.compile(r"(?:^|[=,:])[A-Z][A-Z0-9_]*(?:$|[=,.])")
"""A word that stands for a value: ``N``, ``FILE``, ``OUT.svg``, ``OPTION=VALUE``, ``D0,D1``."""


def _words(command: DocCommand) -> list[str]:
    """The command's words after ``referee``, up to a redirection, pipe or ``;`` (a trailing
    ``# comment`` dropped)."""
    words = shlex.split(command.text.replace("\u2026", "..."), comments=True)[1:]
    ends = [i for i, word in enumerate(words) if SHELL.fullmatch(word)]
    return words[: ends[0]] if ends else words


def _is_synopsis(command: DocCommand) -> bool:
    """A template: brackets, ``a|b``, ``...``, ``<x>``."""
    return SYNOPSIS.search(command.text.split(" #")[0]) is not None


def _has_placeholders(command: DocCommand) -> bool:
    """A word stands for a value (``--seed N``, ``OUT.svg``): a template if it does not parse."""
    return any(PLACEHOLDER.search(word) for word in _words(command) if not word.startswith("-"))


class _PathsUnchecked:
    """``click.Path(exists=True)`` without the lookup while a docs line is parsed."""

    def __enter__(self) -> None:
        self.convert = click.Path.convert

        def convert(path_type: click.Path, value: Any, param: Any, ctx: Any) -> Any:
            exists = path_type.exists
            path_type.exists = False
            try:
                return self.convert(path_type, value, param, ctx)
            finally:
                path_type.exists = exists

        click.Path.convert = convert  # type: ignore[method-assign,assignment]

    def __exit__(self, *exc: object) -> None:
        click.Path.convert = self.convert  # type: ignore[method-assign]


def parse(words: list[str], *, partial: bool = False) -> None:
    """Parse ``referee WORDS`` as the command line would, running nothing; raises
    ``click.UsageError`` (a ``BadParameter``, ``NoSuchOption``, ...) when it would be refused.
    ``partial``: a missing argument or subcommand is no error (inline code in a sentence)."""
    command: click.Command = main
    parent: click.Context | None = None
    name = "referee"
    with _PathsUnchecked():
        while True:
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # --help prints its page
                    ctx = command.make_context(name, list(words), parent=parent, resilient_parsing=False)
            except click.exceptions.Exit:  # --help, --version
                return
            except (click.MissingParameter, click.exceptions.NoArgsIsHelpError):
                if partial:
                    return
                raise
            except click.BadOptionUsage as err:  # `--html` named in a sentence, its value left out
                if partial and err.message.endswith("requires an argument."):
                    return
                raise
            if not isinstance(command, click.Group):
                return
            rest = [*ctx._protected_args, *ctx.args]
            if not rest:
                if partial or command.invoke_without_command:
                    return
                raise click.UsageError(f"{name}: a subcommand is missing")
            _, found, words = command.resolve_command(ctx, rest)
            assert found is not None
            command, parent, name = found, ctx, found.name or rest[0]


def check_names(words: list[str]) -> None:
    """For a synopsis: each subcommand exists and each option it names is one of its command's."""
    command: click.Command = main
    ctx = click.Context(main, info_name="referee")
    for word in words:
        if isinstance(command, click.Group) and not word.startswith(("-", "[")):
            if re.fullmatch(r"[a-z][a-z-]*", word) is None:
                return  # a placeholder (COMMAND, a|b): nothing more to look up
            found = command.get_command(ctx, word)
            if found is None:
                raise click.UsageError(f"no command {word!r} in {ctx.command_path}")
            command, ctx = found, click.Context(found, info_name=word, parent=ctx)
            continue
        option = word.strip("[]()").partition("=")[0]
        if re.fullmatch(r"--?[a-zA-Z][\w-]*", option) is None:
            continue  # a value, an argument, a placeholder
        names = {n for p in command.get_params(ctx) for n in (*p.opts, *p.secondary_opts)}
        if option not in names:
            raise click.NoSuchOption(option, ctx=ctx)


def verify(command: DocCommand) -> None:
    """Parse the line; a synopsis, or a line whose placeholders do not parse (``--seed N``),
    only for its subcommands and option names."""
    words = _words(command)
    if _is_synopsis(command):
        check_names(words)
        return
    try:
        parse(words, partial=command.inline)
    except click.UsageError:
        if not _has_placeholders(command):
            raise
        check_names(words)


def test_the_docs_name_many_commands() -> None:
    """The extraction finds them (in blocks, continued lines and inline code), not nothing."""
    assert len(COMMANDS) > 300
    assert sum(not c.inline for c in COMMANDS) > 80
    assert any(c.file == "docs/security.md" and "ladder run --sandbox on" in c.text for c in COMMANDS)


def test_every_command_line_of_the_docs_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # a path the docs name that exists is checked from here
    refused = []
    for command in COMMANDS:
        if " ".join(command.text.split()) in TEMPLATES:
            continue
        try:
            verify(command)
        except (click.UsageError, ValueError) as err:  # ValueError: shlex, an unclosed quote
            refused.append(
                f"{command}\n  refused: {err.format_message() if isinstance(err, click.UsageError) else err}"
            )
    assert refused == [], "\n".join(refused)


def test_every_template_is_still_in_the_docs() -> None:
    texts = {" ".join(c.text.split()) for c in COMMANDS}
    assert sorted(set(TEMPLATES) - texts) == []


@pytest.mark.parametrize(
    ("text", "inline"),
    [
        ("referee match --cpu-limits 5 a b c d", False),  # no such option
        ('referee check "python3 bot.py" --time-per-move -1', False),  # out of range
        ("referee ladder runn bots.toml", False),  # no such subcommand
        ("referee watch --pace 1", False),  # a code block's line must be whole (watch LOG)
        ("referee ladder run [--games N] [--bogus] CONFIG", False),  # a synopsis's option names
        ("referee duel --sprt 0,2,3", True),  # a value refused, in inline code too
    ],
)
def test_a_wrong_line_is_caught(text: str, inline: bool) -> None:
    with pytest.raises(click.UsageError):
        verify(DocCommand("x.md", 1, text, inline=inline))


def test_a_right_line_passes(tmp_path: Path) -> None:
    for text, inline in [
        ('referee match "python3 a.py" b c d --seed 7 --cpu-limit 5', False),
        ("referee ladder table", True),
        ("referee ladder run [--games N] [--db FILE] CONFIG", False),
        (f"referee ladder run {tmp_path / 'missing.toml'} --games 4", False),  # paths not looked up
    ]:
        verify(DocCommand("x.md", 1, text, inline=inline))


FOREIGN_OPTIONS: dict[str, str] = {
    "--tcp": "the kits' bots (docs/writing-a-bot.md): where to connect",
    "--token": "the kits' bots: the seat's token",
    "--retry-for": "the kits' bots: how long to retry a busy referee",
    "--budget": "the search bot (docs/bots.md)",
    "--max-seconds": "the search bot",
    "--rollouts": "the search bot",
    "--uct-c": "the search bot",
    "--log-level": "the search bot",
    "--random": "the C sample bot",
    "--dist": "pytest-xdist (docs/development.md)",
    "--tiers-record": "the suite's pytest plugin (tests/tiers.py)",
    "--config-settings": "pip",
    "--require-hashes": "pip",
    "--no-deps": "pip",
    "--no-build-isolation": "pip",
    "--upgrade": "uv pip compile",
    "--upgrade-package": "uv pip compile",
    "--universal": "uv pip compile",
    "--die-with-parent": "bubblewrap (docs/security.md)",
    "--offline": "cargo (the Rust kit)",
}
"""Options the docs name in inline code that belong to another program, and whose."""


def _all_options() -> set[str]:
    names: set[str] = set()

    def walk(command: click.Command, ctx: click.Context) -> None:
        names.update(n for p in command.get_params(ctx) for n in (*p.opts, *p.secondary_opts))
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                found = command.get_command(ctx, name)
                assert found is not None
                walk(found, click.Context(found, info_name=name, parent=ctx))

    walk(main, click.Context(main, info_name="referee"))
    return names


def test_every_option_the_docs_name_alone_exists() -> None:
    """An option in inline code of its own (`--cpu-limit` in a sentence, not in a command line)
    is an option of some referee command, or of another program named in FOREIGN_OPTIONS."""
    known = _all_options() | set(FOREIGN_OPTIONS)
    unknown = [
        f"{path.relative_to(ROOT)}: {match[1]}"
        for path in DOCS
        for match in re.finditer(r"`(--[a-z][\w-]*)", path.read_text(encoding="utf-8"))
        if match[1] not in known
    ]
    assert unknown == []
    assert "--cpu-limits" not in known
