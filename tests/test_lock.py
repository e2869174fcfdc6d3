"""The lock (``requirements/test.lock``) and ``pyproject.toml`` agree.

CI and the README's test command install exactly the lock (with hashes), so that a new release
of click, mypy, ruff or anything else cannot turn main red without a commit. These tests fail
when ``pyproject.toml`` changes and the lock is not refreshed: a requirement with no pin, a
pin outside the range ``pyproject.toml`` allows, a pin left over from a requirement that is
gone, or a pin that nothing asks for. The refresh command is the one the lock's header names
and ``docs/development.md`` gives."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "test.lock"
BUILD_IN = ROOT / "requirements" / "build.in"
PYPROJECT_SOURCE = "hearts-referee (pyproject.toml)"
BUILD_SOURCE = "-r requirements/build.in"
# pins that appear only as a tool's exact version, so new rules arrive by a commit
EXACT = ("ruff", "mypy")


@dataclass
class Pin:
    name: str
    version: Version
    marker: Marker | None
    hashes: list[str] = field(default_factory=list)
    via: list[str] = field(default_factory=list)

    def applies(self, extra: str = "") -> bool:
        return self.marker is None or self.marker.evaluate({"extra": extra})


_PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)\s*(?:;\s*(?P<marker>[^\\]+?))?\s*\\?$"
)


def read_lock(text: str) -> list[Pin]:
    """The lock's pins in order, each with its hashes and what asked for it (uv's ``# via``)."""
    pins: list[Pin] = []
    via_block = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if match := _PIN.match(line):
            marker = match["marker"]
            pins.append(Pin(match["name"], Version(match["version"]), Marker(marker) if marker else None))
            via_block = False
        elif line.startswith("--hash="):
            pins[-1].hashes.append(line.removeprefix("--hash=").rstrip(" \\"))
        elif line.startswith("# via"):
            rest = line.removeprefix("# via").strip()
            if rest:
                pins[-1].via.append(rest)
                via_block = False
            else:
                via_block = True
        elif line.startswith("#   ") or (via_block and line.startswith("#")):
            if pins and via_block:
                pins[-1].via.append(line.lstrip("# ").strip())
        elif not line.startswith("#"):
            raise AssertionError(f"a line the lock should not hold: {line!r}")
    return pins


def pyproject_requirements() -> dict[str, list[Requirement]]:
    """What ``pyproject.toml`` asks for, by where: the package, the test extra, the build."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {
        "dependencies": [Requirement(r) for r in project["project"]["dependencies"]],
        "test": [Requirement(r) for r in project["project"]["optional-dependencies"]["test"]],
        "build": [Requirement(r) for r in project["build-system"]["requires"]],
    }


def build_in_requirements() -> list[Requirement]:
    lines = [line.split("#", 1)[0].strip() for line in BUILD_IN.read_text().splitlines()]
    return [Requirement(line) for line in lines if line]


@pytest.fixture(scope="module")
def pins() -> list[Pin]:
    return read_lock(LOCK.read_text())


def pins_for(pins: list[Pin], name: str) -> list[Pin]:
    return [p for p in pins if canonicalize_name(p.name) == canonicalize_name(name)]


def test_the_lock_is_read_whole(pins: list[Pin]) -> None:
    """The reader itself: every pin has hashes and a reason, and names are unique per marker."""
    assert len(pins) > 30
    for pin in pins:
        assert pin.hashes and all(h.startswith("sha256:") for h in pin.hashes), pin.name
        assert pin.via, f"{pin.name}: the lock does not say what asks for it"
    keys = [(canonicalize_name(p.name), str(p.marker)) for p in pins]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("where", ["dependencies", "test", "build"])
def test_every_requirement_of_pyproject_is_pinned_within_its_range(pins: list[Pin], where: str) -> None:
    for requirement in pyproject_requirements()[where]:
        found = [p for p in pins_for(pins, requirement.name) if p.applies()]
        assert found, f"{requirement} ({where} in pyproject.toml) is not in the lock: refresh it (docs/development.md)"
        for pin in found:
            assert requirement.specifier.contains(pin.version, prereleases=True), (
                f"the lock pins {pin.name}=={pin.version}, outside {requirement} in pyproject.toml: refresh it"
            )


def test_the_build_input_matches_the_build_system(pins: list[Pin]) -> None:
    """``requirements/build.in`` is how the build requirements get into the lock: the same list."""
    assert {str(r) for r in build_in_requirements()} == {str(r) for r in pyproject_requirements()["build"]}


def test_no_pin_is_left_from_a_requirement_that_is_gone(pins: list[Pin]) -> None:
    """A pin that says pyproject.toml asks for it must be one of its requirements; every other
    pin must be asked for by a pin in the lock."""
    asked = {canonicalize_name(r.name) for rs in pyproject_requirements().values() for r in rs}
    names = {canonicalize_name(p.name) for p in pins}
    for pin in pins:
        for source in pin.via:
            if source == PYPROJECT_SOURCE:
                assert canonicalize_name(pin.name) in asked, f"{pin.name}: pyproject.toml no longer asks for it"
            elif source == BUILD_SOURCE:
                assert canonicalize_name(pin.name) in {canonicalize_name(r.name) for r in build_in_requirements()}
            else:
                assert canonicalize_name(source) in names, f"{pin.name} is asked for by {source!r}, not in the lock"


def test_the_linters_are_exact_in_pyproject_and_the_lock(pins: list[Pin]) -> None:
    """ruff and mypy: one exact version in both places, so a new release changes nothing."""
    test = {canonicalize_name(r.name): r for r in pyproject_requirements()["test"]}
    for name in EXACT:
        (spec,) = test[name].specifier
        assert spec.operator == "==", f"{name} must be pinned with == in pyproject.toml, not {spec}"
        (pin,) = pins_for(pins, name)
        assert pin.version == Version(spec.version)


def test_the_refresh_command_is_the_documented_one() -> None:
    header = LOCK.read_text().splitlines()[:3]
    command = header[1].removeprefix("#").strip()
    assert command.startswith("uv pip compile pyproject.toml requirements/build.in --extra test --generate-hashes")
    assert command in (ROOT / "docs" / "development.md").read_text()


def test_the_reader_catches_what_it_should() -> None:
    """The checks above can fail: a lock that misses a pin or carries a stray one is read as such."""
    lock = (
        "click==8.0.0 \\\n    --hash=sha256:aa\n    # via hearts-referee (pyproject.toml)\n"
        "left-over==1.0 ; python_full_version < '3.0' \\\n    --hash=sha256:bb\n    # via\n"
        "    #   hearts-referee (pyproject.toml)\n    #   click\n"
    )
    pins = read_lock(lock)
    assert [(p.name, str(p.version), p.applies()) for p in pins] == [
        ("click", "8.0.0", True),
        ("left-over", "1.0", False),
    ]
    assert pins[1].via == [PYPROJECT_SOURCE, "click"]
    assert not Requirement("click>=8.1").specifier.contains(pins[0].version)
