"""A sandboxed bot that fails for a path its sandbox does not show it is told which path, and
the exact option that shows it (issue 23): in ``referee match``, ``referee check`` and the
ladder's fault details. A bot refused a path inside a place it was shown (its sandbox runs it
as a user of its own) is told that instead, with the place and how to open it.

What a hint says comes from the bot's words and the places its sandbox showed it, never from a
look at this machine (issue 41): a bot that names a path of the organizer's machine learns
nothing from its hint, whether that path exists here or not, whatever its mode. Real bots,
real sandboxes; the stderr patterns of the common runtimes on their own."""

from __future__ import annotations

import builtins
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest

from referee.sandbox import misses
from referee.sandbox.misses import bind_hint, unshown_path
from referee.store.writer import LadderStore
from tests.check.helpers import check, sandbox, step
from tests.ladder.test_run import ladder
from tests.sandbox.test_bot_layouts import project

PY = sys.executable
ROOT = Path(__file__).resolve().parents[2]
FIRST = ROOT / "tests" / "bots" / "first_legal_bot.py"
GOOD = f"{PY} {FIRST}"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
BOT_FOLDER = "/srv/entrants/alice"
"""A place a bot was shown (its own folder), for the pure tests: nothing is looked up."""
SHOWN = (BOT_FOLDER, sys.prefix)
"""The places such a bot was shown: its folder and its Python's installation."""


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    """A data file in a folder the bot's command does not name."""
    tmp_path.chmod(0o755)
    data = tmp_path / "shared-data"
    data.mkdir(mode=0o755)
    made = data / "weights.txt"
    made.write_text("42\n")
    made.chmod(0o644)
    return made


@pytest.fixture
def needy(tmp_path: Path, weights: Path) -> Path:
    """A bot that opens that file by its absolute path before it says hello."""
    folder = tmp_path / "needy"
    folder.mkdir(mode=0o755)
    bot = folder / "bot.py"
    bot.write_text(f"open({str(weights)!r}).read()\n" + FIRST.read_text())
    return bot


@pytest.fixture
def decoys(tmp_path: Path) -> tuple[Path, Path]:
    """Two paths a hostile bot may name: a key this machine has (mode 600, in a folder closed
    to other users, as ``~/.ssh/id_rsa``) and one it does not have."""
    secret = tmp_path / "organizer" / ".ssh"
    secret.mkdir(parents=True)
    secret.chmod(0o700)
    there = secret / "id_rsa"
    there.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    there.chmod(0o600)
    return there, secret / "id_ed25519"


RUNTIME_LINES = [
    "python3: can't open file '{p}': [Errno 2] No such file or directory",
    "FileNotFoundError: [Errno 2] No such file or directory: '{p}'",
    "Error: Cannot find module '{p}'",
    "panic: open {p}: no such file or directory",
    "sh: 1: {p}: not found",
    "bwrap: execvp {p}: No such file or directory",
    "java.nio.file.NoSuchFileException: {p}",
    "Exception in thread main java.io.FileNotFoundException: {p} (No such file or directory)",
]
DENIED_LINES = [
    "{py}: can't open file '{p}': [Errno 13] Permission denied",
    "PermissionError: [Errno 13] Permission denied: '{p}'",
    "Error: EACCES: permission denied, open '{p}'",
    "sh: 0: cannot open {p}: Permission denied",
    "Exception in thread main java.io.FileNotFoundException: {p} (Permission denied)",
]


@pytest.mark.parametrize("line", RUNTIME_LINES)
def test_the_runtimes_messages_name_the_path(line: str, weights: Path) -> None:
    stderr = "starting\n" + line.format(p=weights) + "\n"
    assert unshown_path(stderr, SHOWN) == str(weights)
    hint = bind_hint(stderr, SHOWN) or ""
    assert hint.startswith(f"the bot looked for {weights}, which its sandbox does not show it"), hint
    assert f"--sandbox-bind {weights} (read-only)" in hint


@pytest.mark.parametrize("line", RUNTIME_LINES + DENIED_LINES)
@pytest.mark.parametrize("shown", [SHOWN, (*SHOWN, "inside")])
def test_a_path_of_this_machine_and_a_missing_one_get_the_same_hint(
    line: str, shown: tuple[str, ...], decoys: tuple[Path, Path]
) -> None:
    """The probe of issue 41: a bot names the organizer's key and a file nobody has, outside
    what it was shown and inside it. One answer for both: the hint depends on the bot's words
    and its places, not on this machine."""
    there, missing = decoys
    places = [str(there.parent) if p == "inside" else p for p in shown]
    hints = []
    for decoy in (there, missing):
        hint = bind_hint("starting\n" + line.format(py=PY, p=decoy) + "\n", places)
        assert hint is None or str(decoy) in hint, hint
        hints.append(None if hint is None else hint.replace(str(decoy), "DECOY"))
    assert hints[0] == hints[1]
    if "inside" not in shown:
        assert hints[0] is not None and hints[0].startswith("the bot looked for DECOY, which its sandbox does not")
    elif "Permission denied" in line or "EACCES" in line:
        assert hints[0] is not None and hints[0].startswith(f"the bot may not read DECOY, in {there.parent},")
    else:
        assert hints[0] is None  # shown, and not found: the bot saw what this machine has
    for hint in hints:
        assert "(mode " not in (hint or "") and "on this machine" not in (hint or ""), hint


@pytest.mark.parametrize("line", DENIED_LINES)
def test_a_path_refused_inside_a_place_the_bot_was_shown_names_the_place(line: str) -> None:
    path = f"{BOT_FOLDER}/lib/weights.bin"
    hint = bind_hint("starting\n" + line.format(py=PY, p=path) + "\n", [BOT_FOLDER, "/opt/jdk"]) or ""
    assert hint.startswith(f"the bot may not read {path}, in {BOT_FOLDER}, which its sandbox shows it"), hint
    assert "runs the bot as a user of its own" in hint
    assert f"{BOT_FOLDER} and every folder in it down to {path} must be readable by other users" in hint
    assert hint.endswith(f"(chmod -R o+rX {BOT_FOLDER})") and "--sandbox-bind" not in hint and "(mode " not in hint


def test_no_hint_for_a_path_shown_and_not_found_or_that_every_sandbox_shows() -> None:
    shown = [BOT_FOLDER]
    assert bind_hint(f"can't open file '{BOT_FOLDER}/nothing.py': [Errno 2] No such file or directory", shown) is None
    assert bind_hint("open /usr/lib/x: no such file or directory", shown) is None
    assert bind_hint("open /usr/lib/x: Permission denied", shown) is None  # the system's: no chmod of /usr
    assert bind_hint("open /home/bot/.cache/x: Permission denied", shown) is None  # its own home
    assert bind_hint("reading /root/.ssh/id_rsa: all fine", shown) is None  # no failure on the line


def test_a_bot_run_as_the_operator_is_not_told_about_other_users() -> None:
    """Without root the sandbox runs a bot as the operator: a refusal inside its places is not
    about other users, and the sandbox has nothing to add."""
    line = f"PermissionError: [Errno 13] Permission denied: '{BOT_FOLDER}/x'"
    assert bind_hint(line, [BOT_FOLDER], stranger=False) is None
    assert bind_hint(line, [BOT_FOLDER]) is not None


def test_dot_dot_cannot_step_out_of_a_place_the_bot_was_shown() -> None:
    line = f"can't open file '{BOT_FOLDER}/../../../root/.ssh/id_rsa': [Errno 13] Permission denied"
    hint = bind_hint(line, [BOT_FOLDER]) or ""
    assert hint.startswith("the bot looked for /root/.ssh/id_rsa, which its sandbox does not show it"), hint
    twice = bind_hint("open //root/x: no such file or directory", [BOT_FOLDER]) or ""
    assert twice.startswith("the bot looked for /root/x,"), twice


PROJECT = "/srv/entrants/php"
"""A PHP bot's project folder (``bin/``, ``src/``, ``vendor/``), for the pure tests."""
WRITE_LINES = [
    "OSError: [Errno 30] Read-only file system: '{p}'",
    "PHP Warning:  file_put_contents({p}): Failed to open stream: Read-only file system in {q}/src/Cache.php on line 9",
    "Error: EROFS: read-only file system, open '{p}'",
    "touch: cannot touch '{p}': Read-only file system",
]


def test_a_file_refused_beside_a_shown_bin_folder_asks_for_the_project_folder() -> None:
    """Issue 43's whack-a-mole: ``php /p/bin/hearts-bot`` started elsewhere is shown ``/p/bin``;
    it needs ``/p/vendor/autoload.php``, which loads ``/p/src/Client.php``. Each hint names the
    path refused (not the file that asked, named last on PHP's line) and binds ``/p`` at once."""
    shown = (f"{PROJECT}/bin", "/usr/bin")
    for line in [
        f"PHP Warning:  require({PROJECT}/vendor/autoload.php): Failed to open stream: No such file or directory "
        f"in {PROJECT}/bin/hearts-bot on line 3",
        f"PHP Fatal error:  Uncaught Error: Failed opening required '{PROJECT}/vendor/autoload.php' "
        f"(include_path='.:/usr/share/php') in {PROJECT}/bin/hearts-bot:3",
    ]:
        hint = bind_hint(line, shown) or ""
        assert hint.startswith(f"the bot looked for {PROJECT}/vendor/autoload.php, which its sandbox does not"), hint
        assert f"--sandbox-bind {PROJECT} (read-only)" in hint and "autoload.php (read-only)" not in hint
    after_vendor = (
        f"PHP Warning:  require({PROJECT}/src/Client.php): Failed to open stream: No such file or directory in "
        f"{PROJECT}/vendor/autoload.php on line 9"
    )
    hint = bind_hint(after_vendor, (*shown, f"{PROJECT}/vendor")) or ""
    assert hint.startswith(f"the bot looked for {PROJECT}/src/Client.php,") and f"--sandbox-bind {PROJECT} " in hint
    # a shared folder is never the end of a chain: the file alone
    hint = bind_hint("open /tmp/vendor/x.php: no such file or directory", ["/tmp/bin"]) or ""
    assert "--sandbox-bind /tmp/vendor/x.php (read-only)" in hint, hint


@pytest.mark.parametrize("line", WRITE_LINES)
def test_a_write_into_the_bots_read_only_folder_is_named_a_write(line: str) -> None:
    path = f"{BOT_FOLDER}/var/cache.json"
    hint = bind_hint("starting\n" + line.format(p=path, q=BOT_FOLDER) + "\n", SHOWN) or ""
    assert hint.startswith(f"the bot tried to write {path}, in {BOT_FOLDER}, which its sandbox shows it read-only"), (
        hint
    )
    assert "its private /tmp ($TMPDIR) and its home /home/bot ($HOME)" in hint
    assert "--sandbox-bind" not in hint and "chmod" not in hint
    elsewhere = bind_hint(line.format(p="/srv/other/x", q=BOT_FOLDER), SHOWN) or ""
    assert elsewhere.startswith("the bot tried to write /srv/other/x, which its sandbox does not show it read-only")
    assert bind_hint(line.format(p="/tmp/x", q=BOT_FOLDER), SHOWN) is None  # its own /tmp: no sandbox matter


STDERRS = [
    *(line.format(py=PY, p=p, q=PROJECT) for line in RUNTIME_LINES + DENIED_LINES + WRITE_LINES
      for p in ("/root/.ssh/id_rsa", f"{BOT_FOLDER}/bot.py", f"{BOT_FOLDER}/../x", "/usr/lib/x", "/tmp/w", "/")),
    "Traceback (most recent call last):\n  File \"/srv/entrants/alice/bot.py\", line 1\nOSError: boom",
    "",
    "no path at all: not found",
    f"PHP Warning:  require({PROJECT}/vendor/autoload.php): Failed to open stream: No such file or directory "
    f"in {PROJECT}/src/Client.php on line 3",
]  # fmt: skip


def test_the_hints_make_no_file_system_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way to look at the host raises while the hints are made: none is used."""
    calls: list[str] = []

    def refuse(name: str) -> Callable[..., NoReturn]:
        def looked(*args: Any, **kwargs: Any) -> NoReturn:
            calls.append(name)
            raise AssertionError(f"the hints looked at the host: {name}{args}")

        return looked

    shown = (*SHOWN, f"{PROJECT}/bin")
    expected = [bind_hint(text, shown) for text in STDERRS]
    with monkeypatch.context() as patched:
        for module, name in [(os, "stat"), (os, "lstat"), (os, "access"), (os, "listdir"), (os, "scandir"),
                             (os, "open"), (os, "readlink"), (os.path, "exists"), (os.path, "lexists"),
                             (os.path, "isdir"), (os.path, "isfile"), (os.path, "islink"), (os.path, "realpath"),
                             (os.path, "abspath"), (builtins, "open")]:  # fmt: skip
            patched.setattr(module, name, refuse(f"{module.__name__}.{name}"))
        got = [misses.bind_hint(text, shown) for text in STDERRS]
        got += [misses.bind_hint(text, shown, stranger=False) for text in STDERRS]
    assert calls == []
    assert got[: len(STDERRS)] == expected
    assert any(h is not None and "does not show it" in h for h in got)  # the texts reached the hints
    assert any(h is not None and "user of its own" in h for h in got)
    assert any(h is not None and "tried to write" in h for h in got)
    assert any(h is not None and f"--sandbox-bind {PROJECT} (read-only)" in h for h in got)


@pytest.mark.process
@needs_bwrap
def test_match_names_the_hidden_path_and_the_option_then_plays_with_it(needy: Path, weights: Path) -> None:
    def match(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [PY, "-m", "referee.cli", "match", "--sandbox", "on", "--set", "end=rounds", "--set", "rounds=1",
             *extra, f"{PY} {needy}", GOOD, GOOD, GOOD],
            cwd=needy.parent, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip

    failed = match()
    assert failed.returncode == 0, failed.stderr
    said = failed.stdout + failed.stderr
    assert f"the bot looked for {weights}, which its sandbox does not show it" in said
    assert f"--sandbox-bind {weights}" in said
    fixed = match("--sandbox-bind", str(weights), "--json")
    assert [s["status"] for s in json.loads(fixed.stdout)["seats"]] == ["ok"] * 4, fixed.stderr


@pytest.mark.process
@needs_bwrap
def test_check_names_the_hidden_path(needy: Path, weights: Path) -> None:
    report = check(f"{PY} {needy}", sandbox=sandbox())
    first = step(report, "handshake.hello")
    assert first.verdict == "fail"
    assert f"--sandbox-bind {weights}" in (first.hint or ""), first


def hostile(folder: Path, lines: list[str], link: Path | None = None) -> Path:
    """A bot that writes ``lines`` on its stderr and exits before it says hello, in a folder of
    its own (readable by the user its sandbox runs it as), holding a link to ``link``."""
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    if link is not None:
        (folder / "key").symlink_to(link)
    bot = folder / "bot.py"
    said = "".join(line + "\n" for line in lines)
    bot.write_text(f"import sys\nsys.stderr.write({said!r})\nsys.exit(1)\n")
    bot.chmod(0o644)
    return bot


@pytest.mark.process
@needs_bwrap
def test_a_hostile_bot_learns_nothing_of_the_host_from_its_hints(tmp_path: Path, decoys: tuple[Path, Path]) -> None:
    """Issue 41's attack, end to end: four sandboxed bots crash naming the organizer's key (it
    exists, mode 600) or a key nobody has, directly or through a link in their own folder. The
    fault reports of ``referee match`` give each pair the same hint, the path aside."""
    tmp_path.chmod(0o755)
    there, missing = decoys
    bots = []
    for decoy in (there, missing):
        bots.append(hostile(tmp_path / f"direct-{decoy.name}",
                            [f"{PY}: can't open file '{decoy}': [Errno 13] Permission denied"]))  # fmt: skip
        folder = tmp_path / f"linked-{decoy.name}"
        bots.append(hostile(folder, [f"PermissionError: [Errno 13] Permission denied: '{folder}/key'"], link=decoy))
    done = subprocess.run(
        [PY, "-m", "referee.cli", "match", "--sandbox", "on", "--set", "end=rounds", "--set", "rounds=1", "--json",
         *(f"{PY} {bot}" for bot in bots)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    hints = {}
    for fault in json.loads(done.stdout)["faults"]:
        folder = bots[fault["seat"]].parent
        hint = str(fault["hint"]).replace(str(folder), "FOLDER")
        hints[folder.name] = hint.replace(str(there), "DECOY").replace(str(missing), "DECOY")
    assert hints["direct-id_rsa"] == hints["direct-id_ed25519"], hints
    assert hints["direct-id_rsa"].startswith("the bot looked for DECOY, which its sandbox does not show it"), hints
    assert hints["linked-id_rsa"] == hints["linked-id_ed25519"], hints
    assert "--sandbox-bind" not in hints["linked-id_rsa"], hints  # its own folder: shown, binding changes nothing
    if os.geteuid() == 0:  # bots run as users of their own: told what to open
        assert hints["linked-id_rsa"].endswith("(chmod -R o+rX FOLDER)"), hints
    for hint in hints.values():
        assert "(mode " not in hint and "on this machine" not in hint, hint


@pytest.fixture
def closed(tmp_path: Path) -> Path:
    """A bot's file in a folder that other users may not enter (as ``mktemp -d`` makes one)."""
    folder = tmp_path / "closed"
    folder.mkdir()
    folder.chmod(0o700)
    bot = folder / "bot.py"
    bot.write_text(FIRST.read_text())
    bot.chmod(0o644)
    return bot


@pytest.mark.process
@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="only a referee run as root runs its bots as users of their own")
def test_check_of_a_bot_in_a_closed_folder_names_the_folder(closed: Path) -> None:
    """What a clean clone in ``mktemp -d`` showed: the bot's own file, shown to it, refused."""
    report = check(f"{PY} {closed}", sandbox=sandbox())
    first = step(report, "handshake.hello")
    assert first.verdict == "fail"
    assert f"the bot may not read {closed}, in {closed.parent}, which its sandbox shows it" in (first.hint or ""), first
    assert f"chmod -R o+rX {closed.parent}" in (first.hint or ""), first


@pytest.mark.process
@needs_bwrap
def test_the_ladder_s_roll_call_names_the_hidden_path(needy: Path, weights: Path, tmp_path: Path) -> None:
    """The bot is left out before the first match, with the option that shows it the path."""
    config = tmp_path / "bots.toml"
    config.write_text(
        f'[[bot]]\nname = "needy"\ncommand = "{PY} {needy}"\n\n[[bot]]\nname = "good"\ncommand = "{GOOD}"\n\n'
        f'[[bot]]\nname = "good2"\ncommand = "{GOOD}"\n'
    )
    db = tmp_path / "l.db"
    ran = ladder("run", str(config), "--games", "1", "--db", str(db), "--sandbox", "on", "--quiet")
    assert ran.exit_code == 0, ran.output
    assert "bot needy refused: it failed its start-up check" in ran.output
    assert f"--sandbox-bind {weights}" in ran.output, ran.output
    store = LadderStore(db)
    try:
        assert store.progress()[0] == store.progress()[1]  # the ladder went on without it
    finally:
        store.close()


@pytest.mark.process
@needs_bwrap
def test_check_names_a_write_into_the_bots_own_folder(tmp_path: Path) -> None:
    """A bot keeping a cache beside its file (tests/bots/writer_bot.py): told it was a write, and
    where it may write instead; nothing is written in its folder."""
    tmp_path.chmod(0o755)
    folder = tmp_path / "writer"
    folder.mkdir(mode=0o755)
    for name in ("writer_bot.py", "first_legal_bot.py"):
        shutil.copy(ROOT / "tests" / "bots" / name, folder / name)
    report = check(f"{PY} {folder / 'writer_bot.py'}", "handshake.hello", sandbox=sandbox())
    first = step(report, "handshake.hello")
    assert first.verdict == "fail", first
    hint = first.hint or ""
    assert hint.startswith(f"the bot tried to write {folder / 'cache.json'}, in {folder}, which its sandbox"), first
    assert "/tmp" in hint and "/home/bot" in hint and "--sandbox-bind" not in hint
    assert not (folder / "cache.json").exists()


@pytest.mark.process
@needs_bwrap
def test_a_project_bot_started_from_elsewhere_is_told_to_bind_its_project_folder(tmp_path: Path) -> None:
    """``python3 /p/bin/bot.py`` (bin/ loading src/ and vendor/) started from another folder sees
    only ``/p/bin``: the hint binds ``/p``, not one file, and with that bind it plays."""
    tmp_path.chmod(0o755)
    home = tmp_path / "phpish"
    home.mkdir(mode=0o755)
    script = project(home)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)

    def match(*extra: str) -> dict[str, Any]:
        done = subprocess.run(
            [PY, "-m", "referee.cli", "match", "--json", "--sandbox", "on", "--set", "end=rounds", "--set",
             "rounds=1", *extra, f"{PY} {script}", GOOD, GOOD, GOOD],
            cwd=elsewhere, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    failed = match()
    (fault,) = [f for f in failed["faults"] if f["seat"] == 0]
    assert f"--sandbox-bind {home} (read-only)" in str(fault["hint"]), fault
    fixed = match("--sandbox-bind", str(home))
    assert [s["status"] for s in fixed["seats"]] == ["ok"] * 4
