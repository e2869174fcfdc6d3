"""Entrants with a secret of their own (``referee ladder entrant add`` and ``list``;
``referee.ladder.entrants``): the link is printed once and only its SHA-256 is kept, a name
must be one a bot list takes, a new secret makes the old link open nothing, and the list never
prints a secret."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from referee.ladder.entrants import digest, name_problem, new_secret, owner
from referee.store.entrants import secret_digests
from tests.ladder.helpers import synthetic_store
from tests.ladder.test_run import ladder

LINK = re.compile(r"(\S+)/entrant\?key=([A-Za-z0-9_-]+)")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "class.db"
    synthetic_store(path, ["alice", "bob", "carol"], 1, lambda m: [0, 1, 2, 3]).close()
    return path


def link_in(output: str) -> tuple[str, str]:
    """(the address before ``/entrant``, the secret) of the one link printed."""
    (found,) = LINK.findall(output)
    return found


def digests(db: Path) -> tuple[tuple[str, str], ...]:
    with sqlite3.connect(db) as con:
        return secret_digests(con)


def test_entrant_add_prints_a_link_whose_secret_only_its_hash_keeps(db: Path) -> None:
    made = ladder("entrant", "add", "alice", "--db", str(db))
    assert made.exit_code == 0, made.output
    assert "entrant alice: made (its 1 version in class.db)" in made.output
    base, secret = link_in(made.output)
    assert base == "http://127.0.0.1:PORT" and "the one `referee ladder web` prints" in made.output
    assert len(secret) >= 43 and owner(secret, digests(db)) == "alice"
    assert digests(db) == (("alice", digest(secret)),)
    assert secret.encode() not in db.read_bytes()
    again = ladder("entrant", "add", "alice", "--db", str(db))
    assert again.exit_code == 1 and "cannot be printed again" in again.output and "--new-secret" in again.output
    assert not LINK.search(again.output) and owner(secret, digests(db)) == "alice"  # the link still opens


def test_a_new_secret_makes_the_old_link_open_nothing(db: Path) -> None:
    _, old = link_in(ladder("entrant", "add", "bob", "--db", str(db)).output)
    renewed = ladder("entrant", "add", "bob", "--db", str(db), "--new-secret", "--public-url", "https://l.example.org")
    assert renewed.exit_code == 0 and "entrant bob: a new secret made" in renewed.output
    base, new = link_in(renewed.output)
    assert base == "https://l.example.org" and new != old
    assert owner(old, digests(db)) is None and owner(new, digests(db)) == "bob"


def test_entrant_list_names_entrants_and_their_versions_never_a_secret(db: Path) -> None:
    assert "no entrants in class.db" in ladder("entrant", "list", "--db", str(db)).output
    secrets = [link_in(ladder("entrant", "add", name, "--db", str(db)).output)[1] for name in ("carol", "zed")]
    listed = ladder("entrant", "list", "--db", str(db))
    assert listed.exit_code == 0
    assert re.search(r"^carol: 1 version, link made \S+$", listed.output, re.M)
    assert re.search(r"^zed: no version yet, link made \S+$", listed.output, re.M)
    for secret in secrets:
        assert secret not in listed.output and digest(secret) not in listed.output


@pytest.mark.parametrize("name", ["..", ".", " alice", "a  b", "tab\there", "x" * 65, "", "a/b"])
def test_an_entrants_name_is_one_a_bot_list_takes(db: Path, name: str) -> None:
    assert name_problem(name) is not None
    refused = ladder("entrant", "add", name, "--db", str(db))
    assert refused.exit_code == 2 and not LINK.search(refused.output)
    assert digests(db) == ()


def test_entrant_add_needs_a_ladder(tmp_path: Path) -> None:
    missing = ladder("entrant", "add", "alice", "--db", str(tmp_path / "none.db"))
    assert missing.exit_code == 1 and "no such ladder" in missing.output
    assert not (tmp_path / "none.db").exists()


def test_a_key_is_found_by_comparing_every_digest() -> None:
    keys = {name: new_secret() for name in ("a", "b", "c")}
    stored = tuple((name, digest(secret)) for name, secret in keys.items())
    assert all(owner(secret, stored) == name for name, secret in keys.items())
    assert owner(None, stored) is None and owner("", stored) is None and owner(digest(keys["a"]), stored) is None
    assert all(not secret.startswith("-") for secret in (new_secret() for _ in range(200)))
