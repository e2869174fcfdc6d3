"""Create a duel's database, or resume one: it must hold the same duel (the same bots in the
same roles, the same rules, seed and sequential test), since a test whose question changed
half-way keeps none of its promises. What was not given (rules, seed, ``--sprt``) is taken
from the database, as ``referee ladder run`` takes a ladder's rules."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec

from protocol.ruleset import RuleSet
from referee.duel.settings import DuelSettings
from referee.duel.store import DuelStore
from referee.duel.tables import TableError, duel_table
from referee.errors import LadderError
from referee.ladder.play import LadderPlan
from referee.ladder.setup import bot_differences, rule_differences
from referee.seeds import random_seed
from referee.stats.sequential import SprtBounds
from referee.store.records import LadderSettings


def check_same_duel(plan: LadderPlan, duel: DuelSettings) -> DuelSettings:
    """Before anything is built or started: the duel ``plan.db`` holds, when it holds one, must
    be ``duel`` (its test taken from the database when ``duel`` has none); raises
    ``LadderError`` listing every difference. Returns the duel to run."""
    if not Path(plan.db).is_file():
        _check_table(duel, plan.rules or plan.default_rules)
        return duel
    store = DuelStore(plan.db)
    try:
        if not store.initialized:
            _check_table(duel, plan.rules or plan.default_rules)
            return duel
        return _same_duel(plan, store, duel)
    finally:
        store.close()


def _check_table(duel: DuelSettings, rules: RuleSet) -> None:
    """Raise ``LadderError`` unless the duel's bots make a table of ``rules``."""
    try:
        duel_table(duel.new, duel.olds[0], duel.opponents, rules.players)
    except TableError as err:
        raise LadderError(f"{err} ({rules.name}, {rules.players} players)") from None


def open_duel(plan: LadderPlan, duel: DuelSettings) -> tuple[DuelStore, list[str]]:
    """The duel in ``plan.db``, created (no set yet: they are scheduled as the test asks for
    them) or resumed; the store and notes for the user."""
    rules = plan.rules or plan.default_rules
    _check_table(duel, rules)
    store = DuelStore(plan.db)
    try:
        if not store.initialized:
            seed = random_seed() if plan.seed is None else plan.seed
            created = datetime.now(UTC).isoformat(timespec="seconds")
            bots = [(e.name, e.command) for e in plan.entries]
            store.create(LadderSettings(ladder_seed=seed, rules=rules, games=0, created=created), duel, bots)
            return store, [f"new {duel.kind}: {rules.name}, {rules.players} players, seed {seed}"]
        _same_duel(plan, store, duel)
    except BaseException:
        store.close()
        raise
    done = store.set_count()
    return store, [f"resuming: {done} complete set{'s' if done != 1 else ''}"]


def _same_duel(plan: LadderPlan, store: DuelStore, duel: DuelSettings) -> DuelSettings:
    stored = store.duel()
    db = plan.db
    if stored is None:
        raise LadderError(f"{db} is a ladder's database, not a {duel.kind}'s: give another --db")
    settings = store.settings()
    given = duel if duel.sprt is not None else msgspec.structs.replace(duel, sprt=stored.sprt)
    differences = bot_differences(dict(store.bots()), {e.name: e.command for e in plan.entries})
    differences += _role_differences(stored, given)
    differences += _rules_and_seed(settings, plan.rules, plan.seed)
    if differences:
        raise LadderError(
            f"{db} holds another {stored.kind}: {'; '.join(differences)}. To go on with it, run the command it was"
            " made with; or give another --db for a new one"
        )
    return given


def _role_differences(stored: DuelSettings, given: DuelSettings) -> list[str]:
    if stored.kind != given.kind:
        return [f"it is a {stored.kind}, not a {given.kind}"]
    roles = {"new": "NEW", "olds": "OLD" if stored.kind == "duel" else "pool", "opponents": "opponents", "sprt": "test"}
    found = []
    for role, said in roles.items():
        before, after = getattr(stored, role), getattr(given, role)
        if before != after:
            found.append(f"its {said}: {_shown(before)}, not {_shown(after)}")
    return found


def _rules_and_seed(settings: LadderSettings, rules: RuleSet | None, seed: int | None) -> list[str]:
    found = []
    if rules is not None and (changed := rule_differences(settings.rules, rules)):
        found.append(f"it plays {settings.rules.name} with other rules ({changed})")
    if seed is not None and seed != settings.ladder_seed:
        found.append(f"it has seed {settings.ladder_seed}, not {seed}")
    return found


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        return ", ".join(value) or "none"
    if isinstance(value, SprtBounds):
        return f"--sprt {value.d0:g},{value.d1:g} --alpha {value.alpha:g} --beta {value.beta:g}"
    return "none" if value is None else str(value)
