"""docs/architecture.md must be true, and kept true (issue 45): the page is read against the tree.

- **Every name it gives exists.** A path (``rules/turns.py``, ``check/steps/``,
  ``tests/test_layout.py``, ``docs/vectors.md``) is looked up from the repository's root, from
  ``referee/``, and, inside the drawing, from the folder of the block it stands in; a bare module
  name (``cards.py``) is looked up in its block's folder, or at the top of ``referee/``
  (``shared.py``); outside the drawing it must say its package (``rules/scoring.py``); a dotted
  name (``referee.names.safe_name``) must be a module, or a name defined at the top of one; a
  link must lead to a file of docs/.
- **It names every package** (a folder of referee/ or protocol/ with an ``__init__.py``) and
  **every module over** ``LONG`` **lines** (counted as ``wc -l`` counts them), so a new package or
  a module grown large fails here until the page says where it sits in the data flow.
- **Its import claims hold.** Each sentence of the page that says what some code imports
  ("imports only protocol/ ...", "never imports match/") is in ``IMPORT_CLAIMS`` with its check,
  read from the code's syntax trees (relative and function-level imports too); a new claim fails
  until it gets one, and a claim the page no longer makes fails until its check is removed.
- **Its known exceptions stay exact.** Every message a match tells a seat is built in
  rules/telling.py alone, but for the messages of the page's known exception
  (``NO_ONE_BUILDER``); every protocol line is encoded through ``match/outbox.py``'s ``bounded``
  but in the modules of the other (``ENCODERS``). A new exception fails until the page names
  it, and an exception fixed fails until the page stops naming it.

Fast tier: it reads files and starts nothing.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final, get_args

import pytest

from protocol.messages import RefereeMessage

pytestmark = pytest.mark.xdist_group("architecture-doc")
"""One worker: the files' syntax trees (about 1.5 s of CPU) parsed once, not on each worker."""

ROOT: Final = Path(__file__).resolve().parent.parent
DOC: Final = ROOT / "docs" / "architecture.md"
SHOWN: Final = DOC.relative_to(ROOT).as_posix()
PACKAGES: Final = ("referee", "protocol")
"""The folders whose packages and modules the page must name."""
LONG: Final = 150
"""A module of more lines than this must be named."""

PATH: Final = re.compile(
    r"(?<![\w./<>~…-])((?:[a-z_][a-z0-9_-]*/)+(?:[\w-]+(?:\.[\w-]+)*\.(?:py|md|toml|json|html|js|css))?)"
)
"""A path the page names: one or more folders, maybe a file (``store/duels.py``, ``static/``)."""
BARE: Final = re.compile(r"(?<![\w./-])([a-z_]\w*\.py)\b")
"""A module named by its file name alone (``cards.py``)."""
DOTTED: Final = re.compile(r"(?<![\w./-])((?:referee|protocol)(?:\.[a-z_]\w*)+)")
"""A module, or a name in one, written as Python names it (``referee.names.safe_name``)."""
LINK: Final = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")
"""A Markdown link's target (``performance.md#why``)."""
FENCE: Final = re.compile(r"^\s*```")


@dataclass(frozen=True)
class Named:
    """One name the page gives: its line, the text, and the folder of the drawing's block it
    stands in (``None``: prose, outside the drawing)."""

    line: int
    text: str
    block: Path | None

    def __str__(self) -> str:
        return f"{SHOWN}:{self.line}: `{self.text}`"


def drawing_blocks(text: str) -> Iterator[tuple[int, str, Path | None]]:
    """Each line of ``text`` with its number and the folder of its block: inside the first
    fenced block (the drawing), a line that starts at its left edge with a path starts a block
    (``referee/rules/``: that folder; ``referee/log_format.py``: the file's folder), and the
    indented lines below it are in it; outside the drawing the folder is ``None``."""
    fences, block = 0, None
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fences += 1
            continue
        inside = fences == 1
        if inside and line[:1].strip() and (head := PATH.match(line)):
            path = head[1]
            block = ROOT / (path if path.endswith("/") else path.rsplit("/", 1)[0] + "/")
        yield number, line, block if inside else None


def names_in(text: str) -> tuple[list[Named], list[Named], list[Named]]:
    """The paths, the bare module names and the dotted names ``text`` gives."""
    paths: list[Named] = []
    bare: list[Named] = []
    dotted: list[Named] = []
    for number, line, block in drawing_blocks(text):
        paths += [Named(number, m[1], block) for m in PATH.finditer(line)]
        bare += [Named(number, m[1], block) for m in BARE.finditer(line)]
        dotted += [Named(number, m[1].rstrip("."), block) for m in DOTTED.finditer(line)]
    return paths, bare, dotted


def resolve(name: Named) -> Path | None:
    """Where the tree holds what ``name`` names: a path from the root, from referee/ or from its
    block's folder; a bare module name in its block's folder, or at the top of referee/ (the
    modules every layer shares: ``shared.py``)."""
    block = [name.block] if name.block else []
    places = [ROOT, ROOT / "referee", *block] if "/" in name.text else [*block, ROOT / "referee"] if block else []
    for place in places:
        if (place / name.text).exists():
            return (place / name.text).resolve()
    return None


@functools.cache
def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


@functools.cache
def named_in_doc() -> frozenset[Path]:
    """Every file and folder of the tree the page names."""
    paths, bare, _ = names_in(doc_text())
    return frozenset(found for name in paths + bare if (found := resolve(name)) is not None)


@functools.cache
def syntax_tree(path: Path) -> ast.Module:
    """The parsed file at ``path``, parsed once a run (several checks read each)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def line_count(path: Path) -> int:
    """Lines as ``wc -l`` counts them (newlines)."""
    return path.read_bytes().count(b"\n")


def package_folders() -> list[Path]:
    return sorted(init.parent for top in PACKAGES for init in (ROOT / top).rglob("__init__.py"))


def module_files() -> list[Path]:
    skip = {"__init__.py", "__main__.py"}
    return sorted(p for top in PACKAGES for p in (ROOT / top).rglob("*.py") if p.name not in skip)


def shown(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() + ("/" if path.is_dir() else "")


# -- every name exists ---------------------------------------------------------------------------
def test_every_path_and_module_the_doc_names_exists() -> None:
    paths, bare, _ = names_in(doc_text())
    missing = [
        f"{name}: not in the tree (looked for it from the root, from referee/"
        + (f" and from {shown(name.block)}" if name.block else "")
        + "): correct the name, or remove it if the code is gone"
        for name in paths + [b for b in bare if b.block is not None]
        if resolve(name) is None
    ]
    assert not missing, "\n".join(missing)


def test_a_module_named_in_the_prose_says_its_package() -> None:
    """Outside the drawing there is no block to find a bare ``x.py`` in: write ``rules/x.py``."""
    _, bare, _ = names_in(doc_text())
    loose = []
    for name in (b for b in bare if b.block is None):
        homes = sorted(shown(p) for p in module_files() if p.name == name.text)
        loose.append(f"{name}: write it with its package ({' or '.join(homes) or 'no such module'})")
    assert not loose, "\n".join(loose)


def defines(path: Path, name: str) -> bool:
    """Whether the module at ``path`` defines or imports ``name`` at its top level."""
    for node in syntax_tree(path).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(node, ast.Assign | ast.AnnAssign) and any(
            isinstance(t, ast.Name) and t.id == name for t in targets
        ):
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
            (a.asname or a.name.split(".")[0]) == name for a in node.names
        ):
            return True
    return False


def dotted_problem(dotted: str) -> str | None:
    """Why ``dotted`` names nothing (``None``: it names a module, or a name at a module's top)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        module = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if module.exists():
            rest = parts[cut:]
            if not rest or defines(module, rest[0]):
                return None
            return f"{shown(module)} defines no `{rest[0]}` at its top level"
    return "no such module"


def test_every_dotted_name_the_doc_gives_is_in_the_code() -> None:
    _, _, dotted = names_in(doc_text())
    wrong = [f"{name}: {why}: correct the name" for name in dotted if (why := dotted_problem(name.text))]
    assert not wrong, "\n".join(wrong)


def test_every_link_leads_to_a_file() -> None:
    targets = [(m[1], doc_text()[: m.start()].count("\n") + 1) for m in LINK.finditer(doc_text())]
    broken = [
        f"{SHOWN}:{line}: the link to `{target}` leads nowhere (links are read from docs/): correct it"
        for target, line in targets
        if "://" not in target and not (DOC.parent / target).exists()
    ]
    assert not broken, "\n".join(broken)


# -- every package and every long module is named ------------------------------------------------
def test_every_package_is_named() -> None:
    unnamed = [
        f"{shown(folder)} is a package the page does not name: give it a block `{shown(folder)}` in the "
        "drawing of docs/architecture.md (or a line in its parent's block), where its data flows, "
        "with what it does"
        for folder in package_folders()
        if folder.resolve() not in named_in_doc()
    ]
    assert not unnamed, "\n".join(unnamed)


def test_every_module_over_the_limit_is_named() -> None:
    unnamed = [
        f"{shown(path)} ({line_count(path)} lines) is not named: add a line `{path.name}  <its job, in "
        f"one line>` to the block of {shown(path.parent)} in the drawing of docs/architecture.md"
        for path in module_files()
        if line_count(path) > LONG and path.resolve() not in named_in_doc()
    ]
    assert not unnamed, "\n".join(unnamed)


# -- the import claims hold ----------------------------------------------------------------------
def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def imports_of(path: Path) -> frozenset[str]:
    """Every module the file at ``path`` imports, anywhere in it (a function's lazy import too),
    by absolute name: a relative import resolved, ``from X import Y`` as ``X`` and ``X.Y``."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(syntax_tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = ".".join([*package[: len(package) - node.level + 1], *([module] if module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return frozenset(found)


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def files_of(prefix: str) -> list[Path]:
    """The files of the module or package ``prefix`` (``referee.rules``, ``referee.shared``),
    or of a folder of bots (``sample_bots/python``)."""
    folder = ROOT.joinpath(*prefix.split("."))
    if "/" in prefix:
        folder = ROOT / prefix
    if folder.is_dir():
        return sorted(folder.rglob("*.py"))
    return [folder.with_suffix(".py")]


def ours(module: str) -> bool:
    return module.split(".", maxsplit=1)[0] in PACKAGES


def reaching(prefix: str, allowed: Callable[[str], bool]) -> list[str]:
    """``importer imports target`` for each import of ``prefix``'s files that ``allowed`` refuses
    (a module once: not ``X.name`` beside ``X``)."""
    found = []
    for path in files_of(prefix):
        refused = {target for target in imports_of(path) if target and not allowed(target)}
        found += [f"{shown(path)} imports {t}" for t in sorted(refused) if t.rsplit(".", 1)[0] not in refused]
    return found


def only(*allowed: str) -> Callable[[str], bool]:
    """Of our modules, only these (and anything outside referee/ and protocol/)."""
    return lambda target: not ours(target) or any(within(target, a) for a in allowed)


def importers_of(prefix: str) -> set[str]:
    """Every module of referee/ and protocol/ outside ``prefix`` that imports it."""
    return {
        module_name(path)
        for top in PACKAGES
        for path in (ROOT / top).rglob("*.py")
        if not within(module_name(path), prefix) and any(within(t, prefix) for t in imports_of(path))
    }


STDLIB: Final = frozenset(sys.stdlib_module_names) | {"__future__"}


def standard_or(*allowed: str) -> Callable[[str], bool]:
    """The standard library and ``allowed`` (top-level names: ``msgspec``, ``protocol``) only."""
    return lambda target: target.split(".")[0] in STDLIB | set(allowed)


def none_of(*refused: str) -> Callable[[str], bool]:
    return lambda target: not any(within(target, r) for r in refused)


def only_imported_by(prefix: str, *allowed: str) -> list[str]:
    return [f"{importer} imports {prefix}" for importer in sorted(importers_of(prefix) - set(allowed))]


IMPORT_CLAIMS: dict[str, Callable[[], list[str]]] = {
    "imports only msgspec and the standard library": lambda: reaching("protocol", standard_or("msgspec", "protocol")),
    "imports only protocol/ and referee/errors.py, never trio or click": lambda: [
        *reaching("referee.rules", only("protocol", "referee.rules", "referee.errors")),
        *reaching("referee.rules", none_of("trio", "click")),
    ],
    "imports only referee/errors.py": lambda: reaching("referee.sandbox", only("referee.sandbox", "referee.errors")),
    "it never imports match/": lambda: reaching("referee.players", none_of("referee.match")),
    "written by match/, read by replay/; neither imports the other": lambda: [
        *reaching("referee.match", none_of("referee.replay")),
        *reaching("referee.replay", none_of("referee.match")),
    ],
    "imports only protocol/, stats/, shared.py and errors.py": lambda: reaching(
        "referee.store", only("protocol", "referee.stats", "referee.shared", "referee.errors", "referee.store")
    ),
    "imports no referee/log_format.py, replay/ or store/": lambda: reaching(
        "referee.check", none_of("referee.log_format", "referee.replay", "referee.store")
    ),
    "nothing but `referee/__main__.py` imports it": lambda: only_imported_by("referee.cli", "referee.__main__"),
    "only referee/__main__.py imports it": lambda: only_imported_by("referee.cli", "referee.__main__"),
    "importing nothing of ours": lambda: reaching("referee.shared", only("referee.shared")),
    "They import nothing of the referee but `protocol/` and `referee/rules/`": lambda: reaching(
        "sample_bots/python", lambda target: not within(target, "referee") or within(target, "referee.rules")
    ),
}
"""Each sentence of the page that says what some code imports (its words as the page has them,
lines joined), and the check that holds it: the imports that break it (none: it is true)."""

NOT_CLAIMS: Final = (
    "follows the data, not the imports",
    "Which package may import which",
    "listing the packages it may import",
    "no import cycles",
    "each imported when its command runs",
    "each of its sentences about imports is checked",
)
"""Words about imports that claim nothing a check could hold."""

IMPORT_WORD: Final = re.compile(r"\bimport\w*", re.IGNORECASE)


@functools.cache
def joined_doc() -> tuple[str, tuple[int, ...]]:
    """The page with its lines joined (every run of white space one space), and the line each
    character of it came from."""
    text, lines = "", []
    for match in re.finditer(r"\S+", doc_text()):
        line = doc_text().count("\n", 0, match.start()) + 1
        word = match[0] if not text else " " + match[0]
        text += word
        lines += [line] * len(word)
    return text, tuple(lines)


@pytest.mark.parametrize("claim", list(IMPORT_CLAIMS))
def test_each_import_claim_is_true(claim: str) -> None:
    text, _ = joined_doc()
    assert claim in text, (
        f"IMPORT_CLAIMS checks {claim!r}, which {SHOWN} no longer says: remove its entry in "
        "tests/test_architecture_doc.py (or put the claim back)"
    )
    broken = IMPORT_CLAIMS[claim]()
    assert not broken, (
        f"{SHOWN} says {claim!r}, but:\n  "
        + "\n  ".join(broken)
        + "\nFix the code, or correct the sentence in the doc (and its key in IMPORT_CLAIMS)"
    )


def test_every_import_claim_is_checked() -> None:
    """A sentence about imports that no check holds would be the next false claim."""
    text, lines = joined_doc()
    covered = [
        range(found.start(), found.end())
        for words in [*IMPORT_CLAIMS, *NOT_CLAIMS]
        for found in re.finditer(re.escape(words), text)
    ]
    loose = [
        f"{SHOWN}:{lines[word.start()]}: '...{text[max(0, word.start() - 50) : word.end() + 50]}...' "
        "reads as a claim about imports that no check holds: add its words to IMPORT_CLAIMS in "
        "tests/test_architecture_doc.py with a check read from the code (or to NOT_CLAIMS if it "
        "claims nothing)"
        for word in IMPORT_WORD.finditer(text)
        if not any(word.start() in span for span in covered)
    ]
    assert not loose, "\n".join(loose)


# -- one builder per event and request -----------------------------------------------------------
BUILDER: Final = ROOT / "referee" / "rules" / "telling.py"
NO_ONE_BUILDER: Final = {"Error", "Hello", "Goodbye"}
"""The messages the page names as its known exception to "One builder per event and request"."""


@functools.cache
def calls_of(path: Path) -> tuple[tuple[str, str, int], ...]:
    """Each call in the file at ``path`` of a name it imported from one of our modules: the
    module, the name there (not the local alias) and the line."""
    imported: dict[str, tuple[str, str]] = {}
    calls: list[tuple[str, int]] = []
    for node in ast.walk(syntax_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.module and ours(node.module):
            imported.update({alias.asname or alias.name: (node.module, alias.name) for alias in node.names})
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.append((node.func.id, node.lineno))
    return tuple((*imported[name], line) for name, line in calls if name in imported)


def referee_files() -> list[Path]:
    return sorted((ROOT / "referee").rglob("*.py"))


def builders() -> dict[str, set[str]]:
    """Where each message of ``protocol.messages`` is built in referee/: the file and line of
    each call of its class."""
    found: dict[str, set[str]] = {}
    for path in referee_files():
        for module, name, line in calls_of(path):
            if module == "protocol.messages":
                found.setdefault(name, set()).add(f"{shown(path)}:{line}")
    return found


def test_each_event_and_request_has_one_builder() -> None:
    """The page says every event and request of a match is built in rules/telling.py alone,
    and names the messages that are not (``NO_ONE_BUILDER``): both stay true."""
    messages = {kind.__name__ for kind in get_args(RefereeMessage)}
    assert messages >= NO_ONE_BUILDER
    built = builders()
    elsewhere = {
        name: sorted(place for place in built.get(name, ()) if not place.startswith(shown(BUILDER)))
        for name in sorted(messages - NO_ONE_BUILDER)
    }
    wrong = {name: places for name, places in elsewhere.items() if places}
    assert not wrong, (
        f"built outside {shown(BUILDER)}: {wrong}. Build them there (one function per message), or "
        f"name them in {SHOWN}'s known exception to 'One builder per event and request' and in NO_ONE_BUILDER"
    )
    fixed = sorted(name for name in NO_ONE_BUILDER if len(built.get(name, ())) <= 1)
    assert not fixed, (
        f"{fixed} now have one builder: take them out of {SHOWN}'s known exception to 'One builder "
        "per event and request' and out of NO_ONE_BUILDER"
    )


ENCODERS: Final = {
    "referee/match/outbox.py": "bounded itself: every line a match's outbox writes",
    "referee/match/recorder.py": "a bot's reply, encoded again for the log: no line is sent",
    "referee/players/connection.py": "the known exception: hello, its error, goodbye",
    "referee/web/server.py": "the known exception: the seat-taken line",
    "referee/check/probe.py": "the known exception: the check's lines",
    "referee/check/late.py": "the known exception: the check's late error",
}
"""Every module of referee/ that encodes a protocol line itself (``protocol.codec.encode``), and
why: the page's "Lines out" says the others go through ``match/outbox.py``'s ``bounded``."""


def encoders() -> set[str]:
    """The modules of referee/ that call ``protocol.codec``'s ``encode`` (by any local name)."""
    return {shown(path) for path in referee_files() if ("protocol.codec", "encode") in {c[:2] for c in calls_of(path)}}


def test_the_lines_sent_without_bounded_are_the_known_exception() -> None:
    found = encoders()
    new = sorted(found - set(ENCODERS))
    assert not new, (
        f"{new} encode protocol lines themselves: send them through match/outbox.py's bounded, or name "
        f"them in {SHOWN}'s known exception under 'Lines out' and in ENCODERS"
    )
    gone = sorted(set(ENCODERS) - found)
    assert not gone, (
        f"{gone} no longer encode lines themselves: take them out of ENCODERS and, if the page names them "
        "under 'Lines out', out of its known exception"
    )


# -- the readers read what they should -----------------------------------------------------------
SAMPLE: Final = """Prose: `rules/turns.py`, `scoring.py`, `referee.names.safe_name`; [a](performance.md).
```
referee/rules/  (pure)
  turns.py      the machine, sans-I/O; see check/steps/
        │
referee/log_format.py  the log
  shared.py's   data
```
After: `cards.py`, /dev/full, <ladder>/bots/x.py.
"""


def test_the_reader_finds_what_a_page_names() -> None:
    """The checks above are only as good as the reader: paths, bare and dotted names are found
    with their lines and blocks, and resolved where the page means them."""
    paths, bare, dotted = names_in(SAMPLE)
    rules, top = ROOT / "referee" / "rules/", ROOT / "referee/"
    assert [(n.line, n.text, n.block) for n in paths] == [
        (1, "rules/turns.py", None),
        (3, "referee/rules/", rules),
        (4, "check/steps/", rules),
        (6, "referee/log_format.py", top),
    ]
    assert [(n.line, n.text, n.block) for n in bare] == [
        (1, "scoring.py", None),
        (4, "turns.py", rules),
        (7, "shared.py", top),
        (9, "cards.py", None),
    ]
    assert [(n.line, n.text) for n in dotted] == [(1, "referee.names.safe_name")]
    assert resolve(bare[1]) == ROOT / "referee" / "rules" / "turns.py"
    assert resolve(bare[2]) == ROOT / "referee" / "shared.py"
    assert resolve(paths[2]) == ROOT / "referee" / "check" / "steps"
    assert resolve(bare[0]) is None  # prose: no block to look in
    assert resolve(Named(4, "nowhere.py", rules)) is None
    assert dotted_problem("referee.names.safe_name") is None
    assert dotted_problem("referee.names") is None
    assert "defines no `unsafe_name`" in str(dotted_problem("referee.names.unsafe_name"))
    assert "defines no `nowhere`" in str(dotted_problem("referee.nowhere.x"))


def test_the_import_checks_see_the_imports() -> None:
    """... and the import checks see the imports, lazy ones and the command line's entry too."""
    assert "referee.errors" in imports_of(ROOT / "referee" / "rules" / "errors.py")
    assert reaching("referee.rules", only("protocol", "referee.rules"))  # the claim the page once made
    assert reaching("referee.check", none_of("referee.match"))  # check/probe.py: the match's clock
    assert "referee.__main__" in importers_of("referee.cli")
    assert standard_or("msgspec")("msgspec.json") and standard_or()("os.path") and not standard_or()("trio")
    assert reaching("sample_bots/python", lambda target: not within(target, "protocol"))  # the kit
