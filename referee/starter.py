"""``referee new LANGUAGE FOLDER``: a bot folder to start from, in each language with a kit.

A starter is the language's kit and a sample bot on it, copied from ``sample_bots/`` (the one
home of each kit: a fix there reaches every new bot), with a README that says how to build,
play, check and enter it in a ladder, and the line for a ladder's bot list. As created, it
builds with the language's own tools and passes ``referee check`` in the default sandbox.
"""

from __future__ import annotations

import os
import re
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


def starter(language: str) -> Starter:
    """The starter of ``language`` (or one of its other names); raises ``StarterError``."""
    key = ALIASES.get(language.lower(), language.lower())
    if key not in STARTERS:
        raise StarterError(f"no starter for {language!r}: choose one of {', '.join(STARTERS)}")
    return STARTERS[key]


def make_folder(language: str, folder: Path) -> Starter:
    """Make ``folder`` (it must not exist, or be empty) with the starter of ``language``:
    the kit, the sample bot, a README and a ``.gitignore`` for what the build makes."""
    chosen = starter(language)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise StarterError(f"{folder} exists and is not an empty folder: choose a new one (nothing was written)")
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
