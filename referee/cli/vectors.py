"""``referee vectors``: the rules as test vectors, written to a folder (docs/vectors.md)."""

from __future__ import annotations

from pathlib import Path

import click

from referee.rules.presets import PRESETS
from referee.rules.vectors import GAMES, preset_bytes
from referee.vectors_schema import schema_text

SCHEMA_FILE = "schema.json"


def write_vectors(out: Path, presets: list[str]) -> list[Path]:
    """Write each preset's vectors (``NAME.jsonl``) and their schema into ``out``; return the files."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in presets:
        path = out / f"{name}.jsonl"
        path.write_bytes(preset_bytes(name))
        written.append(path)
    path = out / SCHEMA_FILE
    path.write_text(schema_text(), encoding="utf-8")
    return [*written, path]


@click.command()
@click.option(
    "--variant",
    "variants",
    multiple=True,
    type=click.Choice(list(PRESETS)),
    help="Only this preset (repeatable); every preset by default.",
)
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
def vectors(variants: tuple[str, ...], out: Path) -> None:
    """Write test vectors to OUT: whole rounds of each preset played through the referee's own
    rules by a seeded policy (every request, reply and message, and each seat's table state at
    its requests), one NAME.jsonl per preset and schema.json. See docs/vectors.md."""
    names = list(variants) or [name for name in PRESETS if name in GAMES]
    for path in write_vectors(out, names):
        click.echo(f"{path}  {path.stat().st_size} bytes")
