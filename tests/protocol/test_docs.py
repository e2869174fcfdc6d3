"""The protocol documentation stays true: the generated schema and transcript are current, every
line of real matches validates against the schema, and docs/protocol.md names every message.

The matches here are real: four bot processes talking to the referee over pipes."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, get_args

import jsonschema
import msgspec
import pytest

from protocol import messages
from protocol.codec import encode
from protocol.messages import BOT_TYPES, REFEREE_TYPES, ErrorCode, Goodbye, Moon, MoonRequest, TimeLeft
from referee import docgen
from referee.match.config import MatchConfig
from referee.rules import ruleset

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"

# A bot that plays a code that is not a card: under the substitute policy it gets non-fatal
# errors up to the cap, then a fatal one. It answers declarations, so declare lines are seen.
ILLEGAL_BOT = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        out = {"type": "hello", "version": 1, "name": "illegal", "extra_field": [1, 2]}
    elif t == "pass_request":
        out = {"type": "pass", "id": m["id"], "cards": m["legal"][: m["count"]]}
    elif t == "declare_request":
        out = {"type": "declare", "id": m["id"], "declare": True}
    elif t == "play_request":
        out = {"type": "play", "id": m["id"], "card": "XX"}
    elif t == "goodbye" or (t == "error" and m["fatal"]):
        break
    else:
        continue
    print(json.dumps(out), flush=True)
"""


@cache
def schema() -> dict[str, Any]:
    return json.loads((ROOT / "docs" / "protocol.schema.json").read_text(encoding="utf-8"))


@cache
def validators() -> dict[str, jsonschema.Draft202012Validator]:
    """The whole schema, and one validator per direction (``send``: referee to bot)."""
    whole = schema()
    return {
        "any": jsonschema.Draft202012Validator(whole),
        "send": jsonschema.Draft202012Validator({"$ref": "#/$defs/RefereeMessage", "$defs": whole["$defs"]}),
        "recv": jsonschema.Draft202012Validator({"$ref": "#/$defs/BotMessage", "$defs": whole["$defs"]}),
    }


def assert_valid(direction: str, line: str) -> None:
    message = json.loads(line)
    for key in ("any", direction):
        errors = [e.message for e in validators()[key].iter_errors(message)]
        assert not errors, f"{direction} line fails the {key} schema: {line}\n{errors}"


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


# -- the generated files are current ---------------------------------------------------------
def test_the_schema_file_is_the_schema_of_the_message_types() -> None:
    text = (ROOT / "docs" / "protocol.schema.json").read_text(encoding="utf-8")
    assert text == docgen.schema_text(), "stale: run python -m referee.docgen write"


def test_the_schema_is_a_valid_draft_2020_12_schema_with_both_unions() -> None:
    whole = schema()
    jsonschema.Draft202012Validator.check_schema(whole)
    defs = whole["$defs"]
    assert whole["anyOf"] == [{"$ref": "#/$defs/RefereeMessage"}, {"$ref": "#/$defs/BotMessage"}]
    referee_tags = set(defs["RefereeMessage"]["discriminator"]["mapping"])
    bot_tags = set(defs["BotMessage"]["discriminator"]["mapping"])
    assert referee_tags == REFEREE_TYPES
    assert bot_tags == BOT_TYPES


def test_the_schema_text_is_sorted_and_indented() -> None:
    text = docgen.schema_text()
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.process
def test_the_transcript_block_matches_a_fresh_match() -> None:
    assert docgen.current_block(doc_text()) == docgen.transcript_block(docgen.transcript()), (
        "stale: run python -m referee.docgen write"
    )


@pytest.mark.process
def test_the_transcript_is_deterministic_and_has_no_times_of_its_own() -> None:
    first = docgen.transcript()
    assert first == docgen.transcript()
    lines = first.splitlines()
    assert all(line.startswith((">> ", "<< ")) for line in lines)
    assert '"match_id":"transcript-match"' in first
    assert '"t":' not in first and "started" not in first


# -- real matches validate against the schema ------------------------------------------------
def protocol_lines(
    tmp_path: Path, variant: str, commands: list[str] | None = None, config: MatchConfig | None = None
) -> Iterator[tuple[int, str, str]]:
    rules = ruleset(variant, {"end": "rounds", "rounds": 1})
    commands = commands or docgen.sample_bot_commands(rules.players)
    log = tmp_path / f"{variant}.jsonl"
    outcome = docgen.run_match(commands, rules, seed=11, log_path=log, config=config or docgen.TRANSCRIPT_CONFIG)
    assert outcome.rounds >= 1
    yield from docgen.protocol_lines(log)


@pytest.mark.process
@pytest.mark.parametrize("variant", ["american", "dutch"])
def test_every_line_of_a_real_match_validates_against_the_schema(tmp_path: Path, variant: str) -> None:
    lines = list(protocol_lines(tmp_path, variant))
    seats = {seat for seat, _, _ in lines}
    assert seats == {0, 1, 2, 3}
    seen: set[tuple[str, str]] = set()
    for _, direction, line in lines:
        assert_valid(direction, line)
        seen.add((direction, json.loads(line)["type"]))
    expected = {
        ("send", "hello"),
        ("recv", "hello"),
        ("send", "match_start"),
        ("send", "round_start"),
        ("send", "play_request"),
        ("recv", "play"),
        ("send", "card_played"),
        ("send", "trick_end"),
        ("send", "round_end"),
        ("send", "match_end"),
    }
    if variant == "american":
        expected |= {("send", "pass_request"), ("recv", "pass"), ("send", "passed")}
    assert expected <= seen, expected - seen
    if variant == "dutch":  # no passing in the Dutch game
        assert ("send", "pass_request") not in seen


@pytest.mark.process
def test_errors_and_declarations_of_a_real_match_validate(tmp_path: Path) -> None:
    script = tmp_path / "illegal_bot.py"
    script.write_text(ILLEGAL_BOT, encoding="utf-8")
    bad = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    commands = [bad, *docgen.sample_bot_commands(4)[1:]]
    config = MatchConfig(per_decision=5.0, bank=10.0, startup=10.0, policy="substitute", illegal_move_cap=2)
    lines = list(protocol_lines(tmp_path, "achterhoeks", commands, config))
    seen: set[tuple[str, str]] = set()
    errors: list[dict[str, Any]] = []
    for seat, direction, line in lines:
        assert_valid(direction, line)
        message = json.loads(line)
        seen.add((direction, message["type"]))
        if message["type"] == "error":
            assert seat == 0
            errors.append(message)
    assert {("send", "declare_request"), ("recv", "declare"), ("send", "declared")} <= seen
    assert [e["fatal"] for e in errors] == [False, False, True]
    assert {(e["code"], e["rule"]) for e in errors} == {("illegal_move", "not_a_card")}


def test_messages_no_sample_match_shows_validate_too() -> None:
    assert_valid("send", encode(Goodbye()).decode())
    request = MoonRequest(
        id=9, options=["add_to_others", "subtract_from_shooter"], points=26, time=TimeLeft(decision_ms=1, bank_ms=2)
    )
    assert_valid("send", encode(request).decode())
    assert_valid("recv", encode(Moon(id=9, choice="subtract_from_shooter")).decode())


def test_the_schema_refuses_what_the_referee_refuses() -> None:
    bot = validators()["recv"]
    assert not bot.is_valid({"type": "play", "id": "1", "card": "2C"})
    assert not bot.is_valid({"type": "moon", "id": 1, "choice": "keep"})
    assert not bot.is_valid({"type": "chat", "text": "hi"})
    assert not bot.is_valid({"type": "hello", "version": 1})
    assert bot.is_valid({"type": "play", "id": 1, "card": "2C", "comment": "unknown fields are allowed"})


# -- docs/protocol.md ------------------------------------------------------------------------
def test_every_message_type_is_documented() -> None:
    text = doc_text()
    for tag in sorted(REFEREE_TYPES | BOT_TYPES):
        assert f"### `{tag}`" in text, f"docs/protocol.md has no section for {tag!r}"


def test_every_field_of_every_message_is_documented() -> None:
    text = doc_text()
    structs = [
        obj
        for obj in vars(messages).values()
        if isinstance(obj, type) and issubclass(obj, msgspec.Struct) and obj.__module__ == messages.__name__
    ]
    assert len(structs) > 20
    for struct in structs:
        for field in msgspec.structs.fields(struct):
            assert f"`{field.encode_name}`" in text, f"{struct.__name__}.{field.name} is not in docs/protocol.md"


def test_every_error_code_and_termination_reason_is_documented() -> None:
    text = doc_text()
    for code in get_args(ErrorCode):
        assert f"| `{code}` |" in text, code
    for reason in ("timeout", "crash", "disconnect", "bad_json", "line_too_long", "illegal_move"):
        assert f"| `{reason}` |" in text, reason
    for reason in ("protocol_violation", "wrong_id", "unknown_message", "no_common_version"):
        assert f"| `{reason}` |" in text, reason


def test_every_message_in_the_transcript_is_annotated_where_it_first_appears() -> None:
    text = doc_text()
    before = text[: text.index(docgen.START_MARKER)]
    block = docgen.current_block(text)
    kinds = []
    for match in re.finditer(r'^(>>|<<) \{"type":"(\w+)"', block, flags=re.MULTILINE):
        kind = f"`{match.group(1)} {match.group(2)}`"
        if kind not in kinds:
            kinds.append(kind)
    assert len(kinds) >= 10
    positions = [before.find(f"- {kind}:") for kind in kinds]
    assert all(p >= 0 for p in positions), [k for k, p in zip(kinds, positions, strict=True) if p < 0]
    assert positions == sorted(positions), "annotations are not in order of first appearance"


def test_the_doc_links_the_rules_and_the_other_docs() -> None:
    text = doc_text()
    for target in ("rules.md", "protocol.schema.json", "writing-a-bot.md", "replay-format.md"):
        assert f"]({target}" in text
        assert (ROOT / "docs" / target).exists()


# -- the entry point -------------------------------------------------------------------------
@pytest.mark.process
def test_check_reports_a_stale_schema_and_transcript_and_write_fixes_them(tmp_path: Path) -> None:
    schema_path = tmp_path / "protocol.schema.json"
    doc_path = tmp_path / "protocol.md"
    schema_path.write_text("{}\n", encoding="utf-8")
    doc_path.write_text(f"# x\n{docgen.START_MARKER}\nold\n{docgen.END_MARKER}\nafter\n", encoding="utf-8")
    assert len(docgen.stale(schema_path, doc_path)) == 2
    assert docgen.write(schema_path, doc_path) == [schema_path, doc_path]
    assert docgen.stale(schema_path, doc_path) == []
    assert doc_path.read_text(encoding="utf-8").endswith(f"```\n{docgen.END_MARKER}\nafter\n")
    assert docgen.write(schema_path, doc_path) == []


def test_the_markers_must_be_there_once() -> None:
    with pytest.raises(ValueError, match="transcript"):
        docgen.replace_block("no markers", "x")
    twice = f"{docgen.START_MARKER}{docgen.END_MARKER}{docgen.START_MARKER}{docgen.END_MARKER}"
    with pytest.raises(ValueError, match="transcript"):
        docgen.current_block(twice)


@pytest.mark.process
def test_python_m_referee_docgen_check_passes_on_the_repository() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "referee.docgen", "check"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
