"""The code stays lint-clean (ruff) and type-clean (strict mypy) on referee/, protocol/ and the
Python sample bots (sample_bots/python: the files mypy checks are pyproject.toml's)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.process
def test_ruff_is_clean() -> None:
    result = run("ruff", "check", "referee", "protocol", "tests", "sample_bots")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.process
def test_mypy_strict_is_clean() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_rules_never_import_io_libraries() -> None:
    for path in (ROOT / "referee" / "rules").glob("*.py"):
        text = path.read_text()
        for banned in ("import trio", "import click", "from trio", "from click", "open("):
            assert banned not in text, f"{path.name} uses {banned!r}: referee/rules must stay pure"


def test_protocol_never_imports_referee() -> None:
    for path in (ROOT / "protocol").glob("*.py"):
        text = path.read_text()
        assert "import referee" not in text and "from referee" not in text, path.name


def imported_modules(tree: ast.AST) -> set[str]:
    """Every module a file imports by its absolute name, in functions too."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_the_sample_bots_use_the_referee_as_a_library() -> None:
    """The Python sample bots import the kit and the rules engine as any bot does, from the
    installed referee: nothing of the referee beyond ``referee.rules``, and no path tricks
    (``sys.path``, ``importlib``, ``site``) to find the repository's files instead."""
    files = sorted((ROOT / "sample_bots").rglob("*.py"))
    assert any(path.name == "search_bot.py" for path in files)
    for path in files:
        tree = ast.parse(path.read_text())
        modules = imported_modules(tree)
        ours = {m for m in modules if m.split(".")[0] == "referee"}
        assert all(m == "referee.rules" or m.startswith("referee.rules.") for m in ours), (path, ours)
        assert not {m.split(".")[0] for m in modules} & {"importlib", "site"}, path
        path_uses = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "path"]
        assert not [n for n in path_uses if isinstance(n.value, ast.Name) and n.value.id == "sys"], path
