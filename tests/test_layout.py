"""The tree tells the story of the data: these tests keep the layering that
docs/architecture.md draws (protocol -> rules -> match -> log -> replay/ladder/check -> duel -> cli),
read from the code's own imports, and its pieces small: no class over 250 lines and no
function over 60, read from the code's own syntax tree, unless an allow-list says why."""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.xdist_group("layout")
"""One worker: the syntax trees of referee/ (about 1.5 s of CPU) parsed once, not on each worker."""


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


@functools.cache
def syntax_tree(name: str) -> ast.Module:
    """The parsed module ``name``, parsed once a run (the checks below read each many times)."""
    return ast.parse(MODULES[name].read_text())


@functools.cache
def imports_of(name: str) -> tuple[tuple[str, bool], ...]:
    """Each project module ``name`` imports, and whether at the top level (not in a function)."""
    tree = syntax_tree(name)
    top = set(map(id, tree.body))
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found += [(target, id(node) in top) for target in targets if target in MODULES]
    return tuple(found)


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
    assert "referee.rules.turns" in edges["referee.match.phases"]
    assert "protocol.messages" in edges["referee.rules.turns"]


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


LADDER: Final = (
    "protocol",
    "referee.rules",
    "referee.log_format",
    "referee.players",
    "referee.match",
    "referee.replay",
    "referee.sandbox",
    "referee.private_files",
    "referee.names",
    "referee.seeds",
    "referee.errors",
    "referee.shared",
    "referee.stats",
    "referee.store",
    "referee.analysis",  # pure: the ladder analyses its finished matches (referee.ladder.analysis)
    "referee.ladder",
)
"""What the ladder's modules may import (the ladder's own among them); the duel's may import the
same, and the duel's."""

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("protocol", ("protocol",)),
    ("referee.shared", ("referee.shared",)),  # plain data several layers share; imports nothing of ours
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
            "referee.shared",
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
            "referee.players",
            "referee.sandbox",
            "referee.names",
            "referee.network",
            "referee.hints",
            "referee.seeds",
            "referee.errors",
            "referee.shared",
            "referee",
        ),
    ),
    (
        "referee.players",  # the bot-process layer: channels, programs, builds, TCP and browser seats
        (
            "protocol",
            "referee",
            "referee.sandbox",
            "referee.names",
            "referee.network",
            "referee.hints",
            "referee.errors",
            "referee.shared",
            "referee.players",
        ),
    ),
    ("referee.sandbox", ("referee.sandbox", "referee.errors")),
    ("referee.stats", ("protocol", "referee.rules", "referee.stats")),  # pure: the ladder, duel, bench share it
    (
        "referee.analysis",  # pure estimation over a verified log's record; its process pool is stdlib
        (
            "protocol",
            "referee.rules",
            "referee.log_format",
            "referee.replay",
            "referee.names",
            "referee.errors",
            "referee.analysis",
        ),
    ),
    (
        "referee.check",  # drives a bot with the match's pieces; reads no log, stores nothing
        (
            "protocol",
            "referee",
            "referee.rules",
            "referee.match",
            "referee.players",
            "referee.sandbox",
            "referee.names",
            "referee.network",
            "referee.hints",
            "referee.errors",
            "referee.check",
        ),
    ),
    (
        "referee.store",  # the ladder's database, below the ladder that plays it; no runtime package (issue 45)
        ("protocol", "referee.errors", "referee.shared", "referee.stats", "referee.store"),
    ),
    ("referee.ladder", LADDER),
    ("referee.duel", (*LADDER, "referee.duel")),  # above the ladder, never the other way round
    ("referee.web", (*LADDER, "referee.duel", "referee.network", "referee.web")),  # pages over all of them
    # the benchmarks measure everything below the CLI
    ("referee.bench", (*LADDER, "referee.duel", "referee.web", "referee.analysis", "referee.bench")),
]


def test_the_store_and_the_players_import_no_runtime_package() -> None:
    """The store keeps ``BotEntry`` and ``FaultReport`` without the match or the bot processes,
    and a bot's connection knows the faults that leave it gone without the log's format: ``LAYERS``
    may not be loosened back (issue 45, 'Shared data lives in runtime packages')."""
    allowed = dict(LAYERS)
    assert not {"referee.match", "referee.players", "referee.log_format"} & set(allowed["referee.store"])
    assert not {"referee.match", "referee.log_format"} & set(allowed["referee.players"])
    assert allowed["referee.shared"] == ("referee.shared",)


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


def test_every_package_has_its_layer() -> None:
    """A new package gets a line in ``LAYERS`` (the command line alone may import anything)."""
    packages = {f"referee.{p.parent.name}" for p in (ROOT / "referee").glob("*/__init__.py")}
    missing = packages - {"referee.cli"} - {layer for layer, _ in LAYERS}
    assert not missing, sorted(missing)


def test_only_the_command_line_imports_the_command_line() -> None:
    edges = graph(top_level_only=False)
    users = {name for name, targets in edges.items() for t in targets if within(t, "referee.cli")}
    assert users and all(within(u, "referee.cli") or u == "referee.__main__" for u in users), sorted(users)


CLASS_CAP = 250
FUNCTION_CAP = 60

LARGE_CLASSES: dict[str, str] = {
    "referee.rules.round.Round": (
        "the rules engine's hot path, one state machine: every phase reads and writes the same "
        "slots (hands, turn, trick, phase). Split by phase, the play state would live in a "
        "second object: an attribute hop on every card, two objects to copy in Round.copy (once "
        "per candidate move in a search), and properties for the fields that telling, the "
        "fallback and the bots read (trick, leader, turn, broken: 59 ns a read through a "
        "property against 9 ns for a slot). Mixins sharing the slots would only spread the one "
        "state machine over files. docs/performance.md, 'Why Round is one class'"
    ),
}
"""Classes allowed over ``CLASS_CAP`` lines, each with the reason it must stay larger."""

LONG_FUNCTIONS: dict[str, str] = {}
"""Functions allowed over ``FUNCTION_CAP`` lines, each with the reason it must stay longer."""


HOLDS_STATEMENTS = (ast.stmt, ast.ExceptHandler, ast.match_case)
"""Nodes a definition can sit in (a ``def`` or ``class`` is a statement): the walk below looks
into these only, never into an expression (3.7 s to parse and walk every node at collection,
in every worker, before)."""


def definitions(tree: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST, int]]:
    """Every class and function in ``tree`` (methods and nested ones too) by its dotted name,
    with its length in lines from its ``class`` or ``def`` line (decorators not counted)."""
    for node in ast.iter_child_nodes(tree):
        if not isinstance(node, HOLDS_STATEMENTS):
            continue
        name = prefix
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            name = f"{prefix}.{node.name}"
            yield name, node, node.end_lineno - node.lineno + 1
        yield from definitions(node, name)


@functools.cache
def lengths(kind: str) -> dict[str, int]:
    """The length of every definition of ``kind`` (``classes`` or ``functions``) in referee/
    and protocol/, measured when a test first asks."""
    types = ast.ClassDef if kind == "classes" else (ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        qualified: length
        for name in MODULES
        for qualified, node, length in definitions(syntax_tree(name), name)
        if isinstance(node, types)
    }


def test_the_measure_sees_every_definition() -> None:
    """The checks below are only as good as the walk: methods, nested functions and the
    command line's click commands are measured, by their dotted names."""
    classes, functions = lengths("classes"), lengths("functions")
    assert "referee.rules.round.Round" in classes
    assert "referee.rules.round.Round.play" in functions
    assert "referee.match.phases.RoundPhases._ask_all.ask" in functions  # nested, async
    assert "referee.cli.match.match" in functions
    assert "protocol.codec.LineSplitter" in classes
    assert "referee.players.channel.FdLink.exchange" in functions
    tree = ast.parse("class A:\n    def f(self):\n        def g():\n            pass\n")
    assert [(name, length) for name, _, length in definitions(tree, "m")] == [("m.A", 4), ("m.A.f", 3), ("m.A.f.g", 2)]
    tree = ast.parse("if x:\n    def h():\n        pass\ntry:\n    pass\nexcept E:\n    class K:\n        y = [1]\n")
    assert [(name, length) for name, _, length in definitions(tree, "m")] == [("m.h", 2), ("m.K", 2)]


@pytest.mark.parametrize(
    ("kind", "cap", "allowed"),
    [("classes", CLASS_CAP, LARGE_CLASSES), ("functions", FUNCTION_CAP, LONG_FUNCTIONS)],
    ids=["classes", "functions"],
)
def test_no_class_or_function_is_over_its_cap_without_a_reason(kind: str, cap: int, allowed: dict[str, str]) -> None:
    """Every package in pieces small enough to read and test alone: no class over 250 lines
    and no function over 60 in referee/ and protocol/, unless the allow-list says why it
    must be larger. An entry whose definition is gone or back under the cap is removed."""
    over = {name: length for name, length in lengths(kind).items() if length > cap}
    unexplained = {name: length for name, length in over.items() if name not in allowed}
    assert not unexplained, f"over {cap} lines with no reason in the allow-list: {unexplained}"
    stale = sorted(set(allowed) - set(over))
    assert not stale, f"in the allow-list but not over {cap} lines (remove them): {stale}"
    assert all(reason.strip() for reason in allowed.values())


TEST_ONLY_FOLDERS: Final = {"bots": "the test bots: programs the tests start, not tests of a package"}
"""Folders of tests/ that mirror no package, each with what it holds."""


def test_tests_are_laid_out_like_the_packages() -> None:
    """A test of ``referee/X`` lives in ``tests/X`` (``protocol`` and ``sample_bots`` too), so the
    tests of a package are found beside each other; the match's tests once lived in
    ``tests/referee`` beside the sandbox's and the search bot's."""
    packages = {p.name for p in (ROOT / "referee").iterdir() if (p / "__init__.py").exists()}
    homes = packages | {"protocol", "sample_bots"} | set(TEST_ONLY_FOLDERS)
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders <= homes, f"test folders that mirror no package: {sorted(folders - homes)}"


SQL_START: Final = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|PRAGMA|WITH|BEGIN)\s")
"""A string that is SQL (case matters: ``"Create the logs"`` is English)."""

SQL_ALLOWED: dict[str, str] = {}
"""Modules of referee/ outside referee/store/ allowed an ``execute`` call or a SQL string, each
with the reason it must hold one. Empty: every query is the store's (issue 45)."""


def sql_in(source: str) -> list[str]:
    """Every SQL in a module's source, read from its syntax tree: a call of a method named
    ``execute*`` (``execute``, ``executemany``, ``executescript``: whatever the connection or
    cursor is called), and a string constant that starts as a SQL statement (an f-string's
    first part too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.startswith("execute"):
            found.append(f"line {node.lineno}: .{node.func.attr}(...)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_START.match(node.value):
            found.append(f"line {node.lineno}: {node.value.strip()[:40]!r}")
    return found


def sql_outside_the_store(package: Path) -> dict[str, list[str]]:
    """The SQL in each module of ``package`` (a folder, ``referee/``) but its ``store/``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative.parts[0] != "store" and (sql := sql_in(path.read_text())):
            found[relative.as_posix()] = sql
    return found


def test_every_query_is_in_the_store() -> None:
    """No ``execute`` call and no SQL string in referee/ outside referee/store/ (its reader,
    writer and small modules of one job each: pages.py, duels.py, duplicates.py, ...) unless
    the allow-list says why: a query the pages, the duel or the ladder need is asked of the
    store by name, and written once. An entry whose module holds no SQL any more is removed."""
    found = sql_outside_the_store(ROOT / "referee")
    unexplained = {module: sql for module, sql in found.items() if module not in SQL_ALLOWED}
    assert not unexplained, f"SQL outside referee/store/ (move it into the store): {unexplained}"
    stale = sorted(set(SQL_ALLOWED) - set(found))
    assert not stale, f"in the allow-list but holding no SQL (remove them): {stale}"
    assert all(reason.strip() for reason in SQL_ALLOWED.values())


def test_the_sql_finder_finds_sql(tmp_path: Path) -> None:
    """The check above is only as good as its finder: a call by any name of the connection, a
    query in an f-string, a statement on its own line are found; English is not."""
    assert sql_in("def f(db):\n    db.execute('SELECT 1')\n") == ["line 2: .execute(...)", "line 2: 'SELECT 1'"]
    assert len(sql_in("cursor.executemany(q, rows)\nx.conn.executescript(script)\n")) == 2
    assert sql_in('q = f"""\n    WITH done AS ({inner}) SELECT * FROM done"""\n') == ["line 1: 'WITH done AS ('"]
    assert sql_in("s = 'PRAGMA user_version'\nt = 'DELETE FROM sets WHERE set_index = ?'\n") != []
    english = '"""Create the logs. With fresh bots, select a seat."""\nx = "UPDATED" + " with " + "Select"\n'
    assert sql_in(english) == []
    (tmp_path / "store").mkdir()
    (tmp_path / "web").mkdir()
    (tmp_path / "store" / "pages.py").write_text("def f(db):\n    return db.execute('SELECT 1')\n")
    (tmp_path / "web" / "planted.py").write_text("def f(reader):\n    return reader.db.execute(QUERY)\n")
    assert sql_outside_the_store(tmp_path) == {"web/planted.py": ["line 2: .execute(...)"]}


SHARED_CLASS_NAMES: dict[str, str] = {
    # the replay log's header (referee/log_format.py) and a vectors file's first line
    # (referee/rules/vectors.py): the vectors' class names are published as the $defs of
    # docs/vectors/schema.json, so that one keeps its name
    "Header": "the log's header and the vectors' first line; the vectors' name is in docs/vectors/schema.json",
}
"""Class names defined more than once in referee/ and protocol/, each with the reason. A name
that starts with ``_`` is not counted: a module-private helper (``_Line``, ``_Peek``, ``_Walk``)
is never imported, so no reader meets two of them under one name."""


def class_places(trees: dict[str, ast.Module]) -> dict[str, list[str]]:
    """Where each public class of ``trees`` (by module name) is defined, nested ones too:
    ``module:line`` by class name."""
    found: dict[str, list[str]] = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found.setdefault(node.name, []).append(f"{module}:{node.lineno}")
    return found


def test_one_name_one_class() -> None:
    """No two classes of referee/ and protocol/ share a name (issue 45, 'One name, one thing'):
    a reader who meets ``Decision`` knows which one it is. A class that fits a name another
    already holds gets a more exact one (``DecisionTime`` beside the analysis's ``Decision``),
    unless the allow-list says why both must keep it. An entry no longer shared is removed."""
    shared = {
        name: places for name, places in class_places({m: syntax_tree(m) for m in MODULES}).items() if len(places) > 1
    }
    unexplained = {name: places for name, places in shared.items() if name not in SHARED_CLASS_NAMES}
    assert not unexplained, f"class names defined more than once (rename one): {unexplained}"
    stale = sorted(set(SHARED_CLASS_NAMES) - set(shared))
    assert not stale, f"in the allow-list but defined once (remove them): {stale}"
    assert all(reason.strip() for reason in SHARED_CLASS_NAMES.values())


def test_the_class_finder_finds_every_class() -> None:
    """The check above is only as good as its finder: a class nested in a function or another
    class counts; a module-private one does not."""
    one = ast.parse("class A:\n    class B:\n        pass\nclass _C:\n    pass\n")
    two = ast.parse("def f():\n    class A:\n        pass\n    class _C:\n        pass\n")
    assert class_places({"one": one, "two": two}) == {"A": ["one:1", "two:2"], "B": ["one:2"]}
