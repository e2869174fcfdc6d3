"""The old name of ``referee.rules.deck`` (``Table`` and ``table_for``, renamed ``Deck`` and
``deck_for`` in issue 45), kept so that a bot that imports it still runs; importing it warns."""

import warnings

from referee.rules.deck import Deck as Table
from referee.rules.deck import deck_for as table_for

warnings.warn(
    "referee.rules.table is now referee.rules.deck (Table is Deck, table_for is deck_for)", DeprecationWarning, 2
)

__all__ = ["Table", "table_for"]
