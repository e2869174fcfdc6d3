"""An existing ladder's database for the ladder's commands that read or add to one (``ladder
table``, ``order``, ``analyze``, ``entrant``, ...): never made by them, only by ``ladder run``."""

from __future__ import annotations

from pathlib import Path

import click

from referee.errors import LadderError
from referee.store.writer import LadderStore


def open_existing(db: str) -> LadderStore:
    """An existing ladder, or a ``ClickException`` that says how to make one."""
    missing = click.ClickException(f"{db}: no such ladder (run `referee ladder run CONFIG --db {db}` first)")
    if not Path(db).exists():
        raise missing
    try:
        store = LadderStore(db)
    except LadderError as err:
        raise click.ClickException(str(err)) from None
    if not store.initialized:
        store.close()
        raise missing
    return store
