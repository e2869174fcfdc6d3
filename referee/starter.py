"""``referee new LANGUAGE FOLDER``: a bot folder to start from, in each language with a kit
(``--neutral``: for any other language, what to read and one round to test against).

A starter is the language's kit and a sample bot on it, copied from ``sample_bots/`` (the one
home of each kit: a fix there reaches every new bot), with a README that says how to build,
play, check and enter it in a ladder, and the line for a ladder's bot list. As created, it
builds with the language's own tools and passes ``referee check`` in the default sandbox.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.errors import RefereeError

SAMPLES: Final = Path(__file__).resolve().parents[1] / "sample_bots"


class StarterError(RefereeError):
    """The folder cannot be made (it exists and is not empty, the language is unknown...)."""


@dataclass(frozen=True)
class Starter:
    """One language's starter: files copied from ``sample_bots/`` (source, name in the new
    folder), the build line (run in the folder) and the command that starts the bot there."""

    language: str
    files: tuple[tuple[str, str], ...]
    command: str
    build: str | None
    needs: tuple[str, ...]
    """Programs the build and the bot need (the language's Debian packages bring them)."""
    packages: str
    """How to get them on Debian."""


STARTERS: Final = {
    "python": Starter(
        "python",
        (("python/starter_bot.py", "bot.py"),),
        "python3 bot.py",
        None,
        ("python3",),
        "the kit comes with the referee: pip install -e . in its folder",
    ),
    "javascript": Starter(
        "javascript",
        (("javascript/hearts.js", "hearts.js"), ("javascript/bot.js", "bot.js")),
        "node bot.js",
        None,
        ("node",),
        "apt-get install nodejs",
    ),
    "java": Starter(
        "java",
        (
            ("java/Hearts.java", "Hearts.java"),
            ("java/SampleBot.java", "SampleBot.java"),
            ("java/.gitignore", ".gitignore"),
        ),
        "java -jar bot.jar",
        "javac -d classes Hearts.java SampleBot.java && jar cfe bot.jar SampleBot -C classes .",
        ("javac", "jar", "java"),
        "apt-get install default-jdk-headless",
    ),
    "rust": Starter(
        "rust",
        (
            ("rust/Cargo.toml", "Cargo.toml"),
            ("rust/Cargo.lock", "Cargo.lock"),
            ("rust/src/hearts.rs", "src/hearts.rs"),
            ("rust/src/main.rs", "src/main.rs"),
            ("rust/.gitignore", ".gitignore"),
        ),
        "./target/release/hearts-bot",
        "cargo build --release --offline",
        ("cargo",),
        "apt-get install cargo (or rustup)",
    ),
    "go": Starter(
        "go",
        (
            ("go/go.mod", "go.mod"),
            ("go/hearts/hearts.go", "hearts/hearts.go"),
            ("go/main.go", "main.go"),
            ("go/.gitignore", ".gitignore"),
        ),
        "./bot",
        "go build -o bot .",
        ("go",),
        "apt-get install golang-go",
    ),
    "c++": Starter(
        "c++",
        (
            ("cpp/hearts.hpp", "hearts.hpp"),
            ("cpp/bot.cpp", "bot.cpp"),
            ("cpp/Makefile", "Makefile"),
            ("cpp/.gitignore", ".gitignore"),
        ),
        "./bot",
        "make",
        ("g++", "make"),
        "apt-get install g++ make",
    ),
}
ALIASES: Final = {"js": "javascript", "node": "javascript", "cpp": "c++", "py": "python", "golang": "go"}


def starter(language: str, folder: Path | None = None) -> Starter:
    """The starter of ``language`` (or one of its other names); raises ``StarterError``, for a
    language without a kit with where to start instead (``where_to_start``)."""
    key = ALIASES.get(language.lower(), language.lower())
    if key not in STARTERS:
        raise StarterError(where_to_start(language, folder))
    return STARTERS[key]


def must_be_new(folder: Path) -> None:
    """Raise ``StarterError`` unless ``folder`` is missing or an empty folder."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise StarterError(f"{folder} exists and is not an empty folder: choose a new one (nothing was written)")


def make_folder(language: str, folder: Path) -> Starter:
    """Make ``folder`` (it must not exist, or be empty) with the starter of ``language``:
    the kit, the sample bot, a README and a ``.gitignore`` for what the build makes."""
    chosen = starter(language, folder)
    must_be_new(folder)
    missing = [source for source, _ in chosen.files if not (SAMPLES / source).is_file()]
    if missing:
        raise StarterError(f"the {chosen.language} kit is missing here: {', '.join(missing)} in {SAMPLES}")
    folder.mkdir(parents=True, exist_ok=True)
    for source, name in chosen.files:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / source, target)
        os.chmod(target, 0o644)
    (folder / "README.md").write_text(readme(chosen, folder))
    return chosen


def bot_name(folder: Path) -> str:
    """A ladder name from the folder's name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.resolve().name).strip("-.") or "my-bot"


def ladder_entry(chosen: Starter, folder: Path) -> str:
    """The lines for a ladder's bot list (the folder absolute: the list may live anywhere)."""
    lines = [
        "[[bot]]",
        f'name = "{bot_name(folder)}"',
        f'folder = "{folder.resolve()}"',
        f'command = "{chosen.command}"',
    ]
    if chosen.build:
        lines.append(f'build = "{chosen.build}"')
    return "\n".join(lines)


def readme(chosen: Starter, folder: Path) -> str:
    """How to build, play, check and ladder the new bot, with the exact commands."""
    name = bot_name(folder)
    build = f"\n{chosen.build}" if chosen.build else ""
    built = "Build it, then play" if chosen.build else "Play"
    return f"""# {name}: a Hearts bot in {chosen.language}

Made by `referee new {chosen.language} {folder}`: the {chosen.language} kit and a sample bot on
it. Edit the bot's choices; the kit speaks the protocol (docs/protocol.md) and keeps the table
state. Needs: {", ".join(chosen.needs)} ({chosen.packages}).

## {built} a match against the sample bots

Run these in this folder:

```sh{build}
referee match "{chosen.command}" "python3 {SAMPLES}/python/random_bot.py" \\
              "python3 {SAMPLES}/python/heuristic_bot.py" "python3 {SAMPLES}/python/random_bot.py"
```

## Check it against the protocol

```sh
referee check "{chosen.command}"
```

Every step should pass (`referee check --help`, docs/check.md). It runs in the default
sandbox, as a ladder runs it.

## Enter it in a ladder

Add this to a ladder's bot list (a TOML file, as sample_bots/bots.toml):

```toml
{ladder_entry(chosen, folder)}
```

In the sandbox the build runs on a copy of this folder, as a user of its own, and the bot
plays from that copy (docs/ladder.md).
"""


# ---------------------------------------------------------------------------------------------
# A language without a kit: the neutral folder
# ---------------------------------------------------------------------------------------------
DOCS: Final = SAMPLES.parent / "docs"
"""The protocol, its JSON Schema and the test vectors, which a bot without a kit starts from."""
NEUTRAL_COMMANDS: Final = {
    "php": "php bot.php",
    "ruby": "ruby bot.rb",
    "perl": "perl bot.pl",
    "lua": "lua bot.lua",
    "bash": "bash bot.sh",
    "sh": "sh bot.sh",
    "awk": "mawk -W interactive -f bot.awk",
    "r": "Rscript bot.R",
    "julia": "julia bot.jl",
    "tcl": "tclsh bot.tcl",
    "ocaml": "ocaml bot.ml",
    "elixir": "elixir bot.exs",
    "dart": "dart run bot.dart",
}
"""The command a neutral folder's README uses for a language (``--command`` chooses another);
any other language gets ``./bot``: a program or a script with a ``#!`` line."""
TRANSCRIPT_FILE: Final = "transcript.txt"


def where_to_start(language: str, folder: Path | None = None) -> str:
    """What a bot author in a language without a kit reads first, and how to get the folder."""
    return (
        f"no starter for {language!r}: choose one of {', '.join(STARTERS)}; or write the bot yourself, in any "
        "language: it reads and writes one JSON line at a time on stdin/stdout:\n"
        f"  the protocol:            {DOCS / 'protocol.md'}\n"
        f"  its JSON Schema:         {DOCS / 'protocol.schema.json'}\n"
        f"  the rules as vectors:    {DOCS / 'vectors.md'}\n"
        "For a folder to start from (a README with the exact check and ladder commands, and a transcript of one "
        f"round to test against): referee new {shlex.quote(language)} {shlex.quote(str(folder or 'FOLDER'))} --neutral"
    )


def make_neutral_folder(language: str, folder: Path, transcript: str, command: str | None = None) -> str:
    """Make ``folder`` (new or empty) the starting point of a bot in ``language`` without a kit:
    a README (what to read, the rules of the road, the exact check, match and ladder commands)
    and ``transcript.txt``, seat 0's side of one round (``transcript``: ``referee.docgen``'s,
    played by a real sample bot). The bot's command (``command``, else ``NEUTRAL_COMMANDS``'
    guess, else ``./bot``) is returned."""
    must_be_new(folder)
    chosen = command or NEUTRAL_COMMANDS.get(language.lower(), "./bot")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TRANSCRIPT_FILE).write_text(transcript, encoding="utf-8")
    (folder / "README.md").write_text(neutral_readme(language, folder, chosen), encoding="utf-8")
    return chosen


NEUTRAL_README: Final = """# {name}: a Hearts bot in {language}

Made by `referee new {language} {folder} --neutral`: there is no kit for {language} here, so
this folder holds what a bot in any language starts from. A bot is a program that reads one
JSON object per line on stdin and answers each request with one JSON line on stdout; the
referee starts it with the command `{command}` in this folder (change it below if yours differs).

## What to read

- The protocol, every message and rule of the conversation: {protocol}
- The JSON Schema of every message (a line the bot writes must be valid against
  `#/$defs/BotMessage`): {schema}
- The rules as test vectors, whole rounds of every variant with the table state at each
  request, for a bot that keeps its own: {vectors}
- `{transcript}` (here): one round as seat 0 saw it, played when this folder was made by
  the referee and its Python sample bot (which plays random legal cards). `>>` is a line the
  referee sent, `<<` the bot's answer. Feed your bot the `>>` lines in order: it must answer
  each `hello` and each request (`pass_request`, `play_request`, ...) with one line of the same
  `type` as the `<<` line after it and the request's `id` (its own legal choice), and nothing
  else.

## The rules of the road

1. Answer the referee's `hello` with `{{"type":"hello","version":1,"name":...}}` within the
   start-up time (10 s).
2. Answer each request with exactly one line carrying the request's `id`; pick from `legal`
   (or `options`).
3. Write nothing else on stdout; flush after every line; log to stderr. Read each line as it
   comes (no input buffering that waits for more).
4. Ignore message types and fields you do not know.
5. Exit on `goodbye`, on a fatal `error`, or at the end of input.

## Check it against the protocol

Run in this folder:

```sh
referee check "{command}"
```

Every step should pass (`referee check --help`, {check}). It runs in the default
sandbox, as a ladder runs it.

## Play a match against the sample bots

```sh
referee match "{command}" "{random}" "{random}" "{random}"
```

## Enter it in a ladder

The ladder's list and database go beside this folder, not in it (a bot's folder is its own):

```sh
mkdir -p {ladder}
cat > {ladder}/bots.toml <<'EOF'
[[bot]]
name = "{name}"
folder = "{absolute}"
command = "{command}"

[[bot]]
name = "random"
command = "{random}"
EOF
referee ladder run {ladder}/bots.toml --games 10 --db {ladder}/ladder.db
referee ladder table --db {ladder}/ladder.db
```
"""
"""The neutral folder's README (``str.format`` fields: ``neutral_readme``)."""


def neutral_readme(language: str, folder: Path, command: str) -> str:
    """The neutral folder's README: where the contract is, and the commands for this folder."""
    return NEUTRAL_README.format(
        name=bot_name(folder),
        language=language,
        folder=folder,
        absolute=folder.resolve(),
        command=command,
        transcript=TRANSCRIPT_FILE,
        protocol=DOCS / "protocol.md",
        schema=DOCS / "protocol.schema.json",
        vectors=DOCS / "vectors.md",
        check=DOCS / "check.md",
        random=f"python3 {SAMPLES}/python/random_bot.py",
        ladder=folder.resolve().parent / "hearts-ladder",
    )
