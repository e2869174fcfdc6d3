"""The JSON Schema of a vectors file's lines (``docs/vectors/schema.json``), with a description
for every field: msgspec reads only a class's docstring, so each field's docstring (the string
right under it) is read from the source of the modules that define the lines. Reading source
files is I/O, which the rules (``referee.rules``) never do: so it is here, beside them."""

from __future__ import annotations

import ast
import inspect
import itertools
import json
from types import ModuleType
from typing import Any, Final

import msgspec

import protocol.messages
import protocol.ruleset
import referee.rules.vectors
from referee.rules.vectors import FORMAT, Asked, Header, Line, MatchBegins, MatchOver, Told


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one line of a vectors file; the protocol's messages
    inside it are defined in full (as in docs/protocol.schema.json)."""
    (line,), components = msgspec.json.schema_components((Line,), ref_template="#/$defs/{name}")
    defs = dict(components)
    docs = field_docs(protocol.messages, protocol.ruleset, referee.rules.vectors)
    for name, definition in defs.items():
        fields = docs.get(name, {})
        for field, prop in definition.get("properties", {}).items():
            if field == "type" and "enum" in prop:
                prop["description"] = f"The {'line' if name in _LINE_NAMES else 'message'}'s type: `{prop['enum'][0]}`."
            elif field in fields:
                prop["description"] = fields[field]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"hearts-bot test vectors, format {FORMAT}",
        "description": "One line of a vectors file (JSON Lines, one object a line). See docs/vectors.md.",
        **line,
        "$defs": defs,
    }


_LINE_NAMES: Final = frozenset(cls.__name__ for cls in (Header, MatchBegins, Told, Asked, MatchOver))


def field_docs(*modules: ModuleType) -> dict[str, dict[str, str]]:
    """The attribute docstrings of the Struct fields in ``modules`` (the string right under a
    field), by class name and field name, as the schema's ``description``: msgspec reads only a
    class's docstring, so each field's is read from the source here (reST's double backquotes
    become Markdown's single ones)."""
    docs: dict[str, dict[str, str]] = {}
    for module in modules:
        for node in ast.parse(inspect.getsource(module)).body:
            if not isinstance(node, ast.ClassDef):
                continue
            fields = docs.setdefault(node.name, {})
            for field, after in itertools.pairwise(node.body):
                if (
                    isinstance(field, ast.AnnAssign)
                    and isinstance(field.target, ast.Name)
                    and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)
                ):
                    text = " ".join(inspect.cleandoc(after.value.value).split())
                    fields[field.target.id] = text.replace("``", "`")
    return docs


def schema_text() -> str:
    """The schema as a vectors folder holds it (``schema.json``): sorted keys, indent 2."""
    return json.dumps(schema(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
