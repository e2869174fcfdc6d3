"""The code stays lint-clean (ruff) and type-clean (strict mypy) on referee/ and protocol/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", "referee", "protocol", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


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
