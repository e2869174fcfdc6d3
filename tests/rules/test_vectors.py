"""The rules as vectors (``referee.rules.vectors``): the committed files in docs/vectors are what
the rules make today, byte for byte; they validate against their schema; between them they
cover what they claim (moons, a shooter's choice, declarations, cancelled cards, Dutch's two
phases). The kits check the states in them (tests/protocol/test_bot_vectors.py, tests/sample_bots)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from protocol.messages import (
    Error,
    MatchEnd,
    MoonRequest,
    PassRequest,
    Play,
    PlayRequest,
    RoundEnd,
    RoundStart,
    TrickEnd,
)
from referee.cli import main
from referee.rules.presets import PRESETS, ruleset
from referee.rules.vectors import FORMAT, GAMES, Asked, Header, Line, MatchBegins, Told, preset_bytes, read_line
from referee.vectors_schema import schema_text

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "docs" / "vectors"
REGENERATE = "the rules now make other vectors: if that is meant, run `referee vectors docs/vectors` and commit"


@cache
def lines(preset: str) -> list[Line]:
    return [read_line(line) for line in (VECTORS / f"{preset}.jsonl").read_bytes().splitlines()]


@pytest.mark.parametrize("preset", list(GAMES))
def test_the_committed_vectors_are_what_the_rules_make(preset: str) -> None:
    path = VECTORS / f"{preset}.jsonl"
    assert path.exists(), f"{path} is missing: {REGENERATE}"
    assert path.read_bytes() == preset_bytes(preset), f"{path}: {REGENERATE}"


def test_the_committed_schema_is_current_and_every_preset_has_vectors() -> None:
    assert (VECTORS / "schema.json").read_text(encoding="utf-8") == schema_text(), REGENERATE
    assert set(GAMES) == set(PRESETS)
    assert {p.stem for p in VECTORS.glob("*.jsonl")} == set(PRESETS), REGENERATE


def test_every_kind_of_line_validates_against_the_schema() -> None:
    """The first line of each kind (its type and its message's or request's) in every file:
    all lines of a kind have one shape, and validating all 3,000 costs 15 s."""
    validator = jsonschema.Draft202012Validator(json.loads(schema_text()))
    for preset in GAMES:
        seen: set[tuple[str, str]] = set()
        for number, line in enumerate((VECTORS / f"{preset}.jsonl").read_text(encoding="utf-8").splitlines()):
            data = json.loads(line)
            kind = (data["type"], (data.get("message") or data.get("request") or {}).get("type", ""))
            if kind not in seen:
                seen.add(kind)
                errors = [e.message for e in validator.iter_errors(data)]
                assert errors == [], f"{preset} line {number + 1}"


def test_the_command_writes_the_same_files(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["vectors", "--variant", "dutch-35", "--variant", "american", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["american.jsonl", "dutch-35.jsonl", "schema.json"]
    for name in ("american.jsonl", "dutch-35.jsonl", "schema.json"):
        assert (tmp_path / name).read_bytes() == (VECTORS / name).read_bytes()
    assert "american.jsonl" in result.output


def test_an_unknown_variant_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["vectors", "--variant", "skat", str(tmp_path)])
    assert result.exit_code == 2
    assert list(tmp_path.iterdir()) == []


def features(preset: str) -> set[str]:
    """What a preset's vectors show: ``moon``, ``moon1``/``moon2`` (in phase 1 or 2),
    ``choice`` (a moon request), ``declared``, ``cancelled`` (a trick nobody won),
    ``switch`` (phase 1 to 2), ``passing``, ``reached_zero`` (a Dutch match's own end), ``tie``
    (several winners), ``cut`` (a match cut short in the middle of a round)."""
    seen: set[str] = set()
    previous = None
    for line in lines(preset):
        message = line.message if isinstance(line, Told) else None
        if isinstance(message, RoundEnd):
            if message.moon is not None:
                seen |= {"moon", f"moon{message.match_phase}"}
            if message.next_match_phase != message.match_phase:
                seen.add("switch")
            if any(message.declared or []):
                seen.add("declared")
        if isinstance(message, TrickEnd) and message.winner is None:
            seen.add("cancelled")
        if isinstance(message, MatchEnd):
            seen |= {message.reason} if message.reason == "reached_zero" else set()
            seen |= {"tie"} if len(message.winners) > 1 else set()
            seen |= {"cut"} if isinstance(previous, TrickEnd) else set()
        if isinstance(line, Asked) and isinstance(line.request, MoonRequest):
            seen.add("choice")
        if isinstance(line, Asked) and isinstance(line.request, PassRequest):
            seen.add("passing")
        previous = message if message is not None else previous
    return seen


COVERS = {
    "american": {"moon", "passing"},
    "american-moon-choice": {"moon", "choice"},
    "american-3": {"moon", "passing"},
    "american-5": {"moon", "passing"},
    "double-deck": {"cancelled", "passing", "moon", "cut"},
    "argentine": {"moon", "passing"},
    "black-maria": {"moon", "passing", "cut"},
    "dutch": {"moon1", "moon2", "switch", "reached_zero", "tie"},
    "dutch-modern": {"moon1", "moon2", "reached_zero", "tie"},
    "dutch-35": {"moon", "choice", "moon2", "reached_zero"},
    "achterhoeks": {"declared", "moon1", "moon2", "switch", "reached_zero", "tie"},
}


@pytest.mark.parametrize("preset", list(COVERS))
def test_the_vectors_cover_what_the_docs_say(preset: str) -> None:
    assert COVERS[preset] <= features(preset)


def test_the_header_and_the_requests() -> None:
    """Each file starts with its header; ids count up within a match; every reply answers its
    request's id and is legal, but the one revoke of a match whose ``match`` line says so."""
    for preset in GAMES:
        header = lines(preset)[0]
        assert isinstance(header, Header) and header.preset == preset and header.format == FORMAT
        for line in lines(preset):
            if isinstance(line, Asked):
                assert line.reply.id == line.request.id
                if isinstance(line.request, PlayRequest):
                    assert isinstance(line.reply, Play)
                    assert line.reply.card in line.state.hand
                    assert line.reply.card in line.request.legal or revokes(line)


def revokes(line: Asked) -> bool:
    """Whether ``line``'s reply is a revoke: another suit played while the seat holds the led one."""
    request, reply = line.request, line.reply
    assert isinstance(request, PlayRequest) and isinstance(reply, Play) and request.trick
    led = request.trick[0][-1]
    return reply.card[-1] != led and all(card[-1] == led for card in request.legal)


@pytest.mark.parametrize("preset", list(GAMES))
def test_a_revoke_is_answered_with_the_revoke_penalty_and_a_redeal(preset: str) -> None:
    """Where a ``match`` line says ``revoke`` (docs/vectors.md): in the first round, from that
    trick on, that seat revokes once; it alone is told an ``illegal_move`` error (not fatal, the rule,
    the request's id); the round ends at once, the revoker +``revoke_points`` (the round's
    penalty total by default) and every other seat 0; the hand is dealt again with the same pass
    direction; the match's end counts the seat's penalty. Every preset shows one."""
    rules, begun, begun_at, revoked = ruleset(preset), None, 0, 0
    found = lines(preset)
    for at, line in enumerate(found):
        if isinstance(line, MatchBegins):
            begun, begun_at = line, at
        if not (isinstance(line, Asked) and isinstance(line.reply, Play) and line.reply.card not in line.request.legal):
            continue
        assert begun is not None and begun.revoke is not None and revokes(line)
        assert isinstance(line.request, PlayRequest) and line.request.trick_number >= begun.revoke.trick
        assert line.seat == begun.revoke.seat
        revoked += 1
        error, end, *_ = (f for f in found[at + 1 :] if isinstance(f, Told))
        assert error.seat == line.seat and isinstance(error.message, Error)
        assert (error.message.code, error.message.fatal, error.message.rule, error.message.request_id) == (
            "illegal_move", False, "must_follow_suit", line.request.id)  # fmt: skip
        assert isinstance(end.message, RoundEnd) and end.message.revoke == line.seat and end.message.round == 0
        worth = rules.revoke_points if rules.revoke_points is not None else sum(end.message.score_changes)
        assert worth > 0 and end.message.score_changes == [worth if s == line.seat else 0 for s in range(rules.players)]
        told = [(i, f) for i, f in enumerate(found) if begun_at < i and isinstance(f, Told) and f.seat == line.seat]
        dealt = [f.message for i, f in told if i < at and isinstance(f.message, RoundStart)]
        again = next(f.message for i, f in told if i > at and isinstance(f.message, RoundStart))
        assert [m.round for m in dealt] == [0] and again.round == 1 and again.hand != dealt[0].hand
        assert (again.dealer, again.pass_direction) == (dealt[0].dealer, dealt[0].pass_direction)
        match_end = next(f.message for f in found[at:] if isinstance(f, Told) and isinstance(f.message, MatchEnd))
        assert [o.penalties for o in match_end.seats] == [int(s == line.seat) for s in range(rules.players)]
    assert revoked == sum(1 for line in found if isinstance(line, MatchBegins) and line.revoke is not None) >= 1


def test_every_field_of_the_schema_has_a_description() -> None:
    """Every property of every definition in the vectors' schema says what it means (from the
    field's docstring, ``referee.vectors_schema.field_docs``), so an outsider need not guess."""
    committed = json.loads((VECTORS / "schema.json").read_text(encoding="utf-8"))
    properties = [
        (name, field, prop)
        for name, definition in committed["$defs"].items()
        for field, prop in definition.get("properties", {}).items()
    ]
    assert len(properties) > 150
    missing = [f"{name}.{field}" for name, field, prop in properties if not str(prop.get("description", "")).strip()]
    assert missing == [], f"fields without a description (add a docstring under the field): {missing}"


@pytest.mark.parametrize("preset", list(GAMES))
def test_a_match_starts_where_its_match_line_says(preset: str) -> None:
    """What an outsider's engine sets up from a ``match`` line (docs/vectors.md) is what the
    match's first ``round_start`` tells every seat: the scores, the phase, the pass direction of
    ``schedule_index``; and a ``max_tricks`` match ends right after that many tricks of its last
    round."""
    schedule = ruleset(preset).pass_schedule
    begun: MatchBegins | None = None
    tricks = rounds = 0
    for line in lines(preset):
        message = line.message if isinstance(line, Told) else None
        if isinstance(line, MatchBegins):
            begun, rounds = line, 0
        elif isinstance(message, RoundStart):
            assert begun is not None
            tricks, rounds = 0, message.round + 1
            if message.round == 0:
                assert message.scores == (begun.scores or [0] * len(message.scores))
                assert message.match_phase == begun.match_phase
                assert message.pass_direction == schedule[begun.schedule_index % len(schedule)]
        elif isinstance(message, TrickEnd):
            tricks += 1
        elif isinstance(message, MatchEnd) and begun is not None and begun.max_tricks is not None:
            assert (rounds, tricks) == (begun.max_rounds, begun.max_tricks), begun.match_id
