"""A bot that breaks the protocol in one named way (argv[1]) that `referee check` must catch,
and otherwise plays like first_legal_bot. Further arguments are ignored (tests pass a marker
so they can find stray processes).

It keeps its hand (from round_start, passed and its own card_played) so that modes can
misuse it the way real bots do."""

import itertools
import json
import sys
import time
from pathlib import Path

MODE = sys.argv[1]
hand: list[str] = []
answered = itertools.count(1)
"""Counts the requests answered (the counting_id mode's idea of an id)."""


def known_fields() -> tuple[dict[str, set[str]], set[str]]:
    """The fields of every message type and of the rules, from protocol/ (imported only by the
    mode that needs it, so the other modes start as fast as a plain script)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from protocol import messages  # noqa: PLC0415  (only this mode needs it)
    from protocol.ruleset import RuleSet  # noqa: PLC0415

    known = {
        str(cls.__struct_config__.tag): {"type", *cls.__struct_fields__}
        for cls in vars(messages).values()
        if isinstance(cls, type) and issubclass(cls, messages._Message) and cls.__struct_config__.tag
    }
    known["hello"] |= {"protocol", "versions", "referee"}
    return known, set(RuleSet.__struct_fields__)


KNOWN, RULE_FIELDS = known_fields() if MODE == "deny_unknown_fields" else ({}, set())
TYPES = {
    "hello", "match_start", "round_start", "pass_request", "passed", "declare_request", "declared",
    "play_request", "card_played", "trick_end", "moon_request", "round_end", "match_end", "error", "goodbye",
}  # fmt: skip


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def reply_id(message: dict) -> int:
    count = next(answered)
    rid = message["id"]
    if MODE == "counting_id":
        return count
    if MODE == "int32_id":
        return (rid + 2**31) % 2**32 - 2**31
    if MODE == "wrong_id":
        return rid + 1
    return rid


def unknown_fields(message: dict) -> list[str]:
    extra = sorted(set(message) - KNOWN.get(message["type"], set(message)))
    if message["type"] == "match_start":
        extra += sorted(set(message["rules"]) - RULE_FIELDS)
    return extra


def hello(message: dict) -> None:
    if MODE == "no_name":
        send({"type": "hello", "version": 1})
    elif MODE == "wrong_version":
        send({"type": "hello", "version": 2, "name": MODE})
    elif MODE == "highest_version":
        send({"type": "hello", "version": max(message["versions"]), "name": MODE})
    else:
        send({"type": "hello", "version": 1, "name": f"check-hostile-{MODE}"})
    if MODE == "stray_line":
        send({"type": "hello", "version": 1, "name": "twice"})


def play(message: dict) -> str:
    legal = message["legal"]
    if MODE == "illegal_card":
        return next((c for c in hand if c not in legal), legal[0])
    if MODE == "ignores_passed":
        return next((c for c in hand if c in legal), hand[0] if hand else legal[0])
    return legal[0]


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind not in TYPES and MODE == "crash_on_unknown":
        sys.stderr.write(f"KeyError: {kind!r}\n")
        sys.exit(1)
    if MODE == "deny_unknown_fields" and unknown_fields(message):
        sys.stderr.write(f"unknown field(s) {unknown_fields(message)} in {kind}\n")
        sys.exit(2)
    if MODE == "slow" and kind.endswith("_request"):
        time.sleep(0.6 * message["time"]["decision_ms"] / 1000)
    if kind == "hello":
        hello(message)
    elif kind == "round_start" or (kind == "passed" and MODE != "ignores_passed"):
        hand = list(message["hand"])
    elif kind == "card_played" and message["card"] in hand:
        hand.remove(message["card"])
    elif kind in ("match_start", "round_end") and MODE == "answers_events":
        send({"type": "hello", "version": 1, "name": "ack"})
    elif kind == "pass_request":
        send({"type": "pass", "id": reply_id(message), "cards": message["legal"][: message["count"]]})
    elif kind == "play_request":
        send({"type": "play", "id": reply_id(message), "card": play(message)})
    elif kind == "declare_request" and MODE != "no_declare":
        send({"type": "declare", "id": reply_id(message), "declare": False})
    elif kind == "moon_request":
        send({"type": "moon", "id": reply_id(message), "choice": "keep" if MODE == "bad_moon" else "add_to_others"})
    elif kind == "error" and (message["fatal"] or MODE == "quits_on_error"):
        sys.exit(1)
    elif kind == "goodbye":
        if MODE == "linger":
            time.sleep(60)
        sys.exit(2 if MODE == "exit_nonzero" else 0)
