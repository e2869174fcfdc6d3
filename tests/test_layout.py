"""The tree tells the story of the data: these tests keep the layering that
docs/architecture.md draws (protocol -> rules -> match -> log -> replay/ladder/check -> cli),
read from the code's own imports."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in ("referee", "protocol"):
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


MODULES = modules()


def imports_of(name: str) -> Iterator[tuple[str, bool]]:
    """Each project module ``name`` imports, and whether at the top level (not in a function)."""
    tree = ast.parse(MODULES[name].read_text())
    top = set(map(id, tree.body))
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for target in targets:
            if target in MODULES:
                yield target, id(node) in top


def graph(top_level_only: bool) -> dict[str, set[str]]:
    return {
        name: {target for target, at_top in imports_of(name) if at_top or not top_level_only} - {name}
        for name in MODULES
    }


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle in the import graph, if there is one (depth-first search)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_graph_sees_the_imports() -> None:
    """The checks below are only as good as the graph: a few known edges must be in it."""
    edges = graph(top_level_only=False)
    assert "referee.match.runner" in edges["referee.match.play"]
    assert "referee.log_format" in edges["referee.replay.reader"]
    assert "protocol.messages" in edges["referee.match.phases"]


def test_no_module_imports_itself_back() -> None:
    """No import cycles, lazy imports inside functions included (a cycle is a layering
    mistake, not something to hide behind a function-level import)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    try:  # restored: a higher limit would change what later tests see (a deep TOML file parses)
        assert find_cycle(graph(top_level_only=False)) is None
    finally:
        sys.setrecursionlimit(limit)


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("protocol", ("protocol",)),
    ("referee.rules", ("protocol", "referee.rules", "referee.errors")),
    ("referee.log_format", ("protocol", "referee.rules", "referee.log_format")),
    ("referee.errors", ("referee.errors",)),
    (
        "referee.replay",
        (
            "protocol",
            "referee.rules",
            "referee.log_format",
            "referee.replay",
            "referee.names",
            "referee.hints",
            "referee.errors",
        ),
    ),
    (
        "referee.match",
        (
            "protocol",
            "referee.rules",
            "referee.log_format",
            "referee.private_files",
            "referee.match",
            "referee.sandbox",
            "referee.names",
            "referee.network",
            "referee.hints",
            "referee.seeds",
            "referee.errors",
            "referee",
        ),
    ),
    ("referee.sandbox", ("referee.sandbox", "referee.errors")),
]


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize(("layer", "allowed"), LAYERS, ids=[layer for layer, _ in LAYERS])
def test_each_layer_imports_only_the_layers_below_it(layer: str, allowed: tuple[str, ...]) -> None:
    edges = graph(top_level_only=False)
    wrong = {
        (name, target)
        for name, targets in edges.items()
        if within(name, layer)
        for target in targets
        if not any(within(target, a) if a != "referee" else target == "referee" for a in allowed)
    }
    assert not wrong, f"{layer} reaches past its layer: {sorted(wrong)}"


def test_only_the_command_line_imports_the_command_line() -> None:
    edges = graph(top_level_only=False)
    users = {name for name, targets in edges.items() for t in targets if within(t, "referee.cli")}
    assert users and all(within(u, "referee.cli") or u == "referee.__main__" for u in users), sorted(users)


def test_no_class_of_the_match_package_is_over_250_lines() -> None:
    """The runner is split by concern (loop, phases, asking, clock, outbox, faults, log), each
    piece small enough to read and test alone."""
    for name, path in MODULES.items():
        if not within(name, "referee.match"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                assert length <= 250, f"{name}.{node.name} is {length} lines"
