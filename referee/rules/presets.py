"""Named presets: each variant in ``shared/seeds`` as a ``RuleSet``, with the seed it follows.

A preset also knows how its deck and passing change with the number of players (the seeds
give a 3- and a 5-player deck for most variants), so ``ruleset("dutch", {"players": 3})`` is the
Dutch game for three. Any single option can then be overridden; the result is checked by
building its ``Deck``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import msgspec

from protocol.ruleset import HEART_CODES, RuleSet, standard_points
from referee.rules.deck import deck_for
from referee.rules.errors import InvalidRuleSet


class Preset(NamedTuple):
    rules: RuleSet
    sources: str
    """The seed texts (``shared/seeds/NNN_*.txt``) and passages this preset follows."""
    by_players: Mapping[int, Mapping[str, Any]]
    """Options that change with the number of players; ``0`` applies to any count of 6 or more
    that is not listed."""


def _points(**extra: int) -> dict[str, int]:
    points = standard_points()
    points.update(extra)
    return points


_DECK_FIELDS = ("remove", "add", "copies", "trim_to_deal_evenly")
_DEFAULTS: dict[str, Any] = msgspec.structs.asdict(RuleSet())

_AMERICAN_PLAYERS: dict[int, dict[str, Any]] = {
    4: {"pass_schedule": ("left", "right", "across", "hold")},
    3: {"remove": ("2D",), "pass_schedule": ("left", "right", "hold")},
    5: {"remove": ("3C", "2D"), "pass_schedule": ("left", "right", "left2", "right2", "hold")},
    6: {"copies": 2, "trim_to_deal_evenly": True, "pass_schedule": ("left", "right", "across", "hold")},
    0: {"copies": 2, "trim_to_deal_evenly": True, "pass_schedule": ("left", "right", "hold")},
}
_DUTCH_PLAYERS: dict[int, dict[str, Any]] = {
    3: {"remove": ("7D", "8D")},
    5: {"add": ("6S", "6C", "6D")},
}
_DUTCH_35_PLAYERS: dict[int, dict[str, Any]] = {
    3: {"remove": tuple(r + s for r in "78" for s in "CDSH"), "threshold": 30},
    5: {"add": tuple(r + s for r in "56" for s in "CDSH")},
}

_DUTCH = RuleSet(
    name="dutch",
    description="Dutch hartenjagen: 32 cards dealt 3-2-3, no passing, H 1, QS 5, JC 2; up to 50, then back to 0",
    deck="piket",
    deal_packets=(3, 2, 3),
    pass_count=0,
    pass_schedule=("hold",),
    opening_lead="left_of_dealer",
    first_trick_no_points=False,
    hearts_lead="any_time",
    card_points=_points(QS=5, JC=2),
    moon="add_to_others",
    moon_phase2="subtract_from_shooter",
    end="two_phase",
    threshold=50,
    finish="zero_or_below",
)

PRESETS: dict[str, Preset] = {
    "american": Preset(
        RuleSet(
            name="american",
            description="The Windows game: pass 3 left/right/across/hold, 2C leads, QS 13, moon +26 to others, 100",
        ),
        "000 (Hartenjagen regels in het kort; Strafkaarten; Puntentelling), 001 (Amerikaans hartenjagen)",
        _AMERICAN_PLAYERS,
    ),
    "american-moon-choice": Preset(
        RuleSet(
            name="american-moon-choice",
            description="American, the shooter chooses: +26 to the others or -26 to self",
            moon="shooter_choice",
        ),
        "000 (Puntentelling: 'Volgens een andere veelgebruikte regel mag de speler kiezen')",
        _AMERICAN_PLAYERS,
    ),
    "american-no-hold": Preset(
        RuleSet(
            name="american-no-hold",
            description="American without the hold round: left, right, across",
            pass_schedule=("left", "right", "across"),
        ),
        "000 (Varianten: Zonder rustronde)",
        {
            4: {"pass_schedule": ("left", "right", "across")},
            3: {"remove": ("2D",), "pass_schedule": ("left", "right")},
            5: {"remove": ("3C", "2D"), "pass_schedule": ("left", "right", "left2", "right2")},
            6: {"copies": 2, "trim_to_deal_evenly": True, "pass_schedule": ("left", "right", "across")},
            0: {"copies": 2, "trim_to_deal_evenly": True, "pass_schedule": ("left", "right")},
        },
    ),
    "american-3": Preset(
        RuleSet(
            name="american-3",
            description="American for 3: 2D removed, 17 cards each, pass left/right/hold",
            players=3,
            **_AMERICAN_PLAYERS[3],
        ),
        "000 (Met 3 of 5 spelers: 'Meestal is dat de ruiten 2; de klaveren 3 wordt ook genoemd')",
        _AMERICAN_PLAYERS,
    ),
    "american-5": Preset(
        RuleSet(
            name="american-5",
            description="American for 5: 3C and 2D removed, 10 each, pass 1st/2nd left and right, hold",
            players=5,
            **_AMERICAN_PLAYERS[5],
        ),
        "000 (Met 3 of 5 spelers: 'de klaveren 3 en de ruiten 2, of de ruiten 2 en de klaveren 2')",
        _AMERICAN_PLAYERS,
    ),
    "double-deck": Preset(
        RuleSet(
            name="double-deck",
            description="6 players, two decks shuffled together (2D twice removed), identical cards cancel",
            players=6,
            copies=2,
            trim_to_deal_evenly=True,
        ),
        "000 (Met 3 of 5 spelers: 'Met zes of meer spelers schud je twee kaartspellen door elkaar')",
        _AMERICAN_PLAYERS,
    ),
    "omnibus": Preset(
        RuleSet(
            name="omnibus",
            description="American plus the JD as a bonus card worth -10 (not part of the moon)",
            card_points=_points(JD=-10),
        ),
        "000 (Varianten: Ruitenboer als bonuskaart)",
        _AMERICAN_PLAYERS,
    ),
    "argentine": Preset(
        RuleSet(
            name="argentine",
            description="American with every jack 5 (JH 5, not 6): 45 points a round",
            card_points=_points(JC=5, JD=5, JS=5, JH=5),
        ),
        "000 (Varianten: Argentijns hartenjagen)",
        _AMERICAN_PLAYERS,
    ),
    "black-maria": Preset(
        RuleSet(
            name="black-maria",
            description="3 players, pass right every round, hearts led any time, QS 13, KS 10, AS 7",
            players=3,
            remove=("2D",),
            pass_schedule=("right",),
            first_trick_no_points=False,
            hearts_lead="any_time",
            card_points=_points(KS=10, AS=7),
        ),
        "000 (Varianten: Black Maria)",
        {3: {"remove": ("2D",)}, 5: {"remove": ("3C", "2D")}},
    ),
    "dutch": Preset(
        _DUTCH,
        "000 (Nederlands hartenjagen met 32 kaarten), 001 (Spelregels Nederlands hartenjagen)",
        _DUTCH_PLAYERS,
    ),
    "dutch-modern": Preset(
        msgspec.structs.replace(
            _DUTCH,
            name="dutch-modern",
            description="Dutch, 'modern' scoring: moon only in the first phase; ends at 0 or below",
            deal_packets=(1,),
            moon_phase2="none",
        ),
        "002 (Puntentelling Modern Hartenjagen)",
        _DUTCH_PLAYERS,
    ),
    "dutch-classic": Preset(
        msgspec.structs.replace(
            _DUTCH,
            name="dutch-classic",
            description="Dutch, 'classic' scoring: hearts 1, every queen 13 (QH 13); 12 rounds, fewest wins",
            deal_packets=(1,),
            card_points={**{code: 1 for code in HEART_CODES}, "QC": 13, "QD": 13, "QS": 13, "QH": 13},
            moon_points=15,
            moon_phase2="none",
            end="rounds",
            rounds=12,
        ),
        "002 (Puntentelling Klassiek Hartenjagen)",
        _DUTCH_PLAYERS,
    ),
    "dutch-35": Preset(
        msgspec.structs.replace(
            _DUTCH,
            name="dutch-35",
            description="Dutch up to 35 then back to 0 or below, shooter's choice, furthest below 0 wins",
            deal_packets=(1,),
            moon="shooter_choice",
            threshold=35,
            tie_break="furthest_below_zero",
        ),
        "004 (Hoe werkt de puntentelling?; Kan ik ook met drie of vijf spelers spelen?)",
        _DUTCH_35_PLAYERS,
    ),
    "achterhoeks": Preset(
        msgspec.structs.replace(
            _DUTCH,
            name="achterhoeks",
            description="Dutch deck and play, JS 8, QD 6, QC 3, hearts 1 (25); 'miezen' declarations",
            card_points={**{code: 1 for code in HEART_CODES}, "JS": 8, "QD": 6, "QC": 3},
            declarations=True,
        ),
        "000 (Varianten: Achterhoeks hartenjagen)",
        _DUTCH_PLAYERS,
    ),
}

DEFAULT_PRESET = "american"


def ruleset(name: str = DEFAULT_PRESET, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The rule set of a preset with options overridden. Setting ``players`` first applies the
    preset's own deck and passing for that number of players; the other overrides follow.
    Raises ``InvalidRuleSet`` for an unknown preset, option or value, or options that clash."""
    preset = PRESETS.get(name)
    if preset is None:
        raise InvalidRuleSet(f"no preset named {name!r}; presets: {', '.join(PRESETS)}")
    options = dict(overrides or {})
    data: dict[str, Any] = msgspec.structs.asdict(preset.rules)
    players = options.get("players")
    if isinstance(players, int) and players != preset.rules.players:
        for key in _DECK_FIELDS:
            data[key] = _DEFAULTS[key]
        adjust = preset.by_players.get(players)
        if adjust is None:
            adjust = preset.by_players.get(0, {}) if players >= 6 else {}
        data.update(adjust)
        if players % 2:
            data["pass_schedule"] = tuple(d for d in data["pass_schedule"] if d != "across") or ("hold",)
    return _apply(data, options)


def with_options(rules: RuleSet, overrides: Mapping[str, Any]) -> RuleSet:
    """A rule set with some options changed, checked like ``ruleset``."""
    return _apply(msgspec.structs.asdict(rules), overrides)


def _apply(data: dict[str, Any], options: Mapping[str, Any]) -> RuleSet:
    """``data`` (a rule set as a dict) with ``options`` applied, converted and checked; the
    description notes what was changed."""
    unknown = sorted(set(options) - set(RuleSet.__struct_fields__))
    if unknown:
        raise InvalidRuleSet(f"unknown option {unknown[0]!r}; options: {', '.join(RuleSet.__struct_fields__)}")
    data = {**data, **options}
    changed = {k: v for k, v in options.items() if k not in ("name", "description")}
    if changed and "description" not in options:
        data["description"] = f"{data['description']} [with {', '.join(f'{k}={v}' for k, v in changed.items())}]"
    try:
        rules = msgspec.convert(data, RuleSet)
    except msgspec.ValidationError as err:
        raise InvalidRuleSet(f"bad option value: {err}") from None
    deck_for(rules)
    return rules
