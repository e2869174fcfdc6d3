"""A bot written before the rules' ``Table`` became ``Deck`` (issue 45) still imports it, and is
told the new name."""

from __future__ import annotations

import importlib
import sys

import pytest

import referee.rules
from referee.rules import Deck, deck_for, ruleset


def test_the_old_names_are_the_new_ones_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="Deck"):
        assert referee.rules.Table is Deck
    with pytest.warns(DeprecationWarning, match="deck_for"):
        assert referee.rules.table_for is deck_for
    with pytest.raises(AttributeError, match="Tabel"):
        referee.rules.Tabel  # noqa: B018 - a misspelling is still an error


def test_the_old_module_imports_with_a_warning() -> None:
    sys.modules.pop("referee.rules.table", None)
    with pytest.warns(DeprecationWarning, match=r"referee\.rules\.deck"):
        old = importlib.import_module("referee.rules.table")
    assert old.Table is Deck and isinstance(old.table_for(ruleset("american")), Deck)
