"""Any bot layout, first try (issue 23): every common way of starting a bot that plays bare
plays in the default sandbox too. Each case is a real bot in a folder of its own under /tmp
(as a new user keeps one), started by ``referee match`` from that folder, sandboxed and bare,
and every seat must end ``ok``."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.sandbox.bwrap import Sandbox
from referee.sandbox.sight import own_folder, shown_paths, uses_folder

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
FIRST = ROOT / "tests" / "bots" / "first_legal_bot.py"
GOOD = f"{PY} {FIRST}"
JAVA_BOT = ROOT / "tests" / "bots" / "java" / "Bot.java"
JS = ROOT / "sample_bots" / "javascript"
JDK = Path("/usr/lib/jvm")
SCRIPT_BOTS = ROOT / "tests" / "bots"
"""Perl, Ruby and Lua bots written from docs/protocol.md alone, each a ``bin/`` script on a
``lib/`` of its own, as such bots are laid out."""

Layout = Callable[[Path], str]
"""Makes a bot in a folder and returns the command that starts it from there."""


def python_file(folder: Path) -> str:
    shutil.copy(FIRST, folder / "bot.py")
    return f"{PY} bot.py"


def python_absolute(folder: Path) -> str:
    shutil.copy(FIRST, folder / "bot.py")
    return f"{PY} {folder / 'bot.py'}"


def shebang(folder: Path) -> str:
    (folder / "run").write_text(f"#!{PY}\n" + FIRST.read_text())
    (folder / "run").chmod(0o755)
    return "./run"


def shebang_env(folder: Path) -> str:
    """``#!/usr/bin/env python3``: the interpreter is found on PATH (here perhaps a pyenv shim)."""
    (folder / "run").write_text("#!/usr/bin/env python3\n" + FIRST.read_text())
    (folder / "run").chmod(0o755)
    return "./run"


def shebang_in_subfolder(folder: Path) -> str:
    (folder / "sub").mkdir(mode=0o755)
    (folder / "sub" / "run").write_text(f"#!{PY}\n" + FIRST.read_text())
    (folder / "sub" / "run").chmod(0o755)
    return "sub/run"


def python_package(folder: Path) -> str:
    (folder / "mybot").mkdir(mode=0o755)
    shutil.copy(FIRST, folder / "mybot" / "__main__.py")
    (folder / "mybot" / "__init__.py").write_text("")
    return f"{PY} -m mybot"


def python_module_file(folder: Path) -> str:
    shutil.copy(FIRST, folder / "mybot.py")
    return f"{PY} -m mybot"


def venv_with_dependency(folder: Path) -> str:
    """A virtualenv in the bot's folder with a module installed in it that the bot imports."""
    subprocess.run([PY, "-m", "venv", "--without-pip", str(folder / "venv")], check=True, timeout=120)
    (site,) = (folder / "venv").glob("lib/python3*/site-packages")
    (site / "layout_dependency.py").write_text("WHERE = 'venv'\n")
    (folder / "bot.py").write_text(
        "import layout_dependency  # noqa: F401 - installed in the venv\n" + FIRST.read_text()
    )
    return "venv/bin/python bot.py"


def shell_script(folder: Path, name: str = "run.sh") -> Path:
    (folder / "bot.py").write_text(FIRST.read_text())
    script = folder / name
    script.write_text(f'#!/bin/sh\nexec {PY} "$(dirname "$0")/bot.py"\n')
    script.chmod(0o755)
    return script


def sh_script(folder: Path) -> str:
    shell_script(folder)
    return "sh run.sh"


def dot_script(folder: Path) -> str:
    shell_script(folder)
    return "./run.sh"


def script_in_subfolder(folder: Path) -> str:
    (folder / "shbot").mkdir(mode=0o755)
    shell_script(folder / "shbot")
    return "shbot/run.sh"


def node_file(folder: Path) -> str:
    for name in ("bot.js", "hearts.js"):
        shutil.copy(JS / name, folder / name)
    return "node bot.js"


def node_folder(folder: Path) -> str:
    (folder / "nbot").mkdir(mode=0o755)
    for name in ("bot.js", "hearts.js"):
        shutil.copy(JS / name, folder / "nbot" / name)
    (folder / "nbot" / "package.json").write_text(json.dumps({"name": "nbot", "main": "bot.js"}))
    return "node nbot"


def node_dot(folder: Path) -> str:
    for name in ("bot.js", "hearts.js"):
        shutil.copy(JS / name, folder / name)
    (folder / "package.json").write_text(json.dumps({"name": "nbot", "main": "bot.js"}))
    return "node ."


@functools.cache
def java_classes() -> tempfile.TemporaryDirectory[str]:
    """The Java bot compiled once a worker (``javac`` is more than a second of CPU each time)."""
    classes = tempfile.TemporaryDirectory(prefix="java-bot-")
    subprocess.run(["javac", "-d", classes.name, str(JAVA_BOT)], check=True, timeout=300, capture_output=True)
    return classes


def compiled_java(into: Path) -> None:
    """The compiled Java bot's class files in ``into``."""
    into.mkdir(mode=0o755, exist_ok=True)
    for made in Path(java_classes().name).iterdir():
        shutil.copy(made, into / made.name)


def java_dot(folder: Path) -> str:
    compiled_java(folder)
    return "java -cp . Bot"


def java_folder(folder: Path) -> str:
    compiled_java(folder / "jbot")
    return "java -cp jbot Bot"


def java_absolute(folder: Path) -> str:
    compiled_java(folder / "jbot")
    return f"java -cp {folder / 'jbot'} Bot"


def java_class_path_list(folder: Path) -> str:
    compiled_java(folder / "jbot")
    (folder / "lib").mkdir(mode=0o755)
    return "java -cp lib:jbot Bot"


def java_jar(folder: Path) -> str:
    compiled_java(folder / "classes")
    subprocess.run(["jar", "cfe", "bot.jar", "Bot", "-C", "classes", "."], cwd=folder, check=True, timeout=300)
    return "java -jar bot.jar"


def jvm_outside_usr(folder: Path) -> str:
    """A JDK of its own outside ``/usr`` (as sdkman or a downloaded JDK keeps one): a copy."""
    real = Path(os.path.realpath(shutil.which("java") or "")).parents[1]
    jdk = folder.parent / "opt-jdk"
    if not jdk.exists():
        done = subprocess.run(["cp", "-al", str(real), str(jdk)], check=False, capture_output=True)
        if done.returncode != 0:  # another file system: a real copy
            shutil.rmtree(jdk, ignore_errors=True)
            subprocess.run(["cp", "-a", str(real), str(jdk)], check=True)
    compiled_java(folder / "jbot")
    return f"{jdk}/bin/java -cp jbot Bot"


def script_bot(folder: Path, language: str) -> None:
    """The ``language`` bot's ``bin/`` and ``lib/`` in the folder."""
    for part in ("bin", "lib"):
        shutil.copytree(SCRIPT_BOTS / language / part, folder / part)


def perl_include(folder: Path) -> str:
    script_bot(folder, "perl")
    return "perl -Ilib bin/bot.pl"


def perl_findbin(folder: Path) -> str:
    """``use lib "$FindBin::Bin/../lib"``: the classic Perl way to find a bot's own modules,
    which its command line does not name: only its own folder, shown whole, has them."""
    script_bot(folder, "perl")
    script = folder / "bin" / "bot.pl"
    own_lib = 'use FindBin;\nuse lib "$FindBin::Bin/../lib";\nuse Hearts;'
    script.write_text(script.read_text().replace("use Hearts;", own_lib))
    return "perl bin/bot.pl"


def perl5lib(folder: Path) -> str:
    script_bot(folder, "perl")
    return "perl bin/bot.pl"


def ruby_include(folder: Path) -> str:
    script_bot(folder, "ruby")
    return "ruby -Ilib bin/bot"


def ruby_include_apart(folder: Path) -> str:
    script_bot(folder, "ruby")
    return "ruby -I lib bin/bot"


def ruby_require_relative(folder: Path) -> str:
    """``require_relative '../lib/hearts'``: named by no argument, found in the bot's own folder."""
    script_bot(folder, "ruby")
    script = folder / "bin" / "bot"
    script.write_text(script.read_text().replace("require 'hearts'", "require_relative '../lib/hearts'"))
    return "ruby bin/bot"


def rubylib(folder: Path) -> str:
    script_bot(folder, "ruby")
    return "ruby bin/bot"


def lua_path(folder: Path) -> str:
    script_bot(folder, "lua")
    return f"{LUA} bin/bot.lua"


def pythonpath(folder: Path) -> str:
    (folder / "lib").mkdir(mode=0o755)
    shutil.copy(FIRST, folder / "lib" / "first_legal.py")
    (folder / "bin").mkdir(mode=0o755)
    (folder / "bin" / "bot.py").write_text("import first_legal\n\nfirst_legal.play('pythonpath')\n")
    return f"{PY} bin/bot.py"


def node_path(folder: Path) -> str:
    (folder / "lib").mkdir(mode=0o755)
    shutil.copy(JS / "hearts.js", folder / "lib" / "hearts.js")
    (folder / "bin").mkdir(mode=0o755)
    text = (JS / "bot.js").read_text().replace("require(path.join(__dirname, 'hearts.js'))", "require('hearts')")
    assert "require('hearts')" in text
    (folder / "bin" / "bot.js").write_text(text)
    return "node bin/bot.js"


PROJECT_BOT = """import os
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "vendor", "autoload.py")) as loader:  # PHP's require: by its path
    exec(loader.read())
"""


def project(folder: Path) -> Path:
    """A bot spread over a project's folders as a PHP bot with Composer is (issue 43): ``bin/``
    runs it and loads ``vendor/autoload.py`` by its path, which loads ``src/client.py``; nothing
    names ``src/`` or ``vendor/`` on its command line. Returns its ``bin/`` script."""
    for part in ("bin", "src", "vendor"):
        (folder / part).mkdir(mode=0o755)
    (folder / "vendor" / "autoload.py").write_text(
        'with open(os.path.join(ROOT, "src", "client.py")) as client:\n    exec(client.read())\n'
    )
    (folder / "src" / "client.py").write_text("LOADED = True\n")
    script = folder / "bin" / "bot.py"
    script.write_text(PROJECT_BOT + FIRST.read_text())
    return script


def project_relative(folder: Path) -> str:
    project(folder)
    return f"{PY} bin/bot.py"


def project_absolute(folder: Path) -> str:
    return f"{PY} {project(folder)}"


LUA = next((name for name in ("lua5.4", "lua", "luajit") if shutil.which(name)), "lua5.4")

CASES: dict[str, tuple[Layout, str | None]] = {
    "python3 bot.py": (python_file, None),
    "python3 /abs/bot.py": (python_absolute, None),
    "python3 bin/bot.py (src/ and vendor/ beside bin/)": (project_relative, None),
    "python3 /abs/bin/bot.py (the same, spelt absolute)": (project_absolute, None),
    "./run (shebang)": (shebang, None),
    "./run (#!/usr/bin/env python3)": (shebang_env, "python3"),
    "sub/run (shebang in a subfolder)": (shebang_in_subfolder, None),
    "python3 -m mybot (package)": (python_package, None),
    "python3 -m mybot (mybot.py)": (python_module_file, None),
    "venv/bin/python bot.py (a dependency in the venv)": (venv_with_dependency, None),
    "sh run.sh": (sh_script, None),
    "./run.sh": (dot_script, None),
    "shbot/run.sh": (script_in_subfolder, None),
    "node bot.js": (node_file, "node"),
    "node nbot": (node_folder, "node"),
    "node .": (node_dot, "node"),
    "java -cp . Bot": (java_dot, "javac"),
    "java -cp jbot Bot": (java_folder, "javac"),
    "java -cp /abs/jbot Bot": (java_absolute, "javac"),
    "java -cp lib:jbot Bot": (java_class_path_list, "javac"),
    "java -jar bot.jar": (java_jar, "jar"),
    "a JVM outside /usr": (jvm_outside_usr, "javac"),
    "perl -Ilib bin/bot.pl": (perl_include, "perl"),
    "perl bin/bot.pl (FindBin ../lib)": (perl_findbin, "perl"),
    "PERL5LIB=lib perl bin/bot.pl": (perl5lib, "perl"),
    "ruby -Ilib bin/bot": (ruby_include, "ruby"),
    "ruby -I lib bin/bot": (ruby_include_apart, "ruby"),
    "ruby bin/bot (require_relative ../lib)": (ruby_require_relative, "ruby"),
    "RUBYLIB=lib ruby bin/bot": (rubylib, "ruby"),
    "LUA_PATH=lib/?.lua;; lua bin/bot.lua": (lua_path, LUA),
    "PYTHONPATH=lib python3 bin/bot.py": (pythonpath, None),
    "NODE_PATH=lib node bin/bot.js": (node_path, "node"),
}
ENVS: dict[str, dict[str, str]] = {
    "PERL5LIB=lib perl bin/bot.pl": {"PERL5LIB": "lib"},
    "RUBYLIB=lib ruby bin/bot": {"RUBYLIB": "lib"},
    "LUA_PATH=lib/?.lua;; lua bin/bot.lua": {"LUA_PATH": "lib/?.lua;;"},
    "PYTHONPATH=lib python3 bin/bot.py": {"PYTHONPATH": "lib"},
    "NODE_PATH=lib node bin/bot.js": {"NODE_PATH": "lib"},
}
"""The variables a layout's bot is given (``--bot-env``): the other bots get them too."""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A folder of the user's own under /tmp (mode 755), as a new user keeps bots."""
    tmp_path.chmod(0o755)
    folder = tmp_path / "mybot"
    folder.mkdir(mode=0o755)
    return folder


@pytest.mark.process
@pytest.mark.parametrize("sandbox", ["auto", "off"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_layout_plays_sandboxed_and_bare(case: str, sandbox: str, home: Path) -> None:
    layout, needs = CASES[case]
    if needs is not None and shutil.which(needs) is None:
        pytest.skip(f"{needs} is not installed")
    if sandbox == "auto" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    command = layout(home)
    log = home.parent / "match.jsonl"
    env = [f"--bot-env={name}={value}" for name, value in ENVS.get(case, {}).items()]
    done = subprocess.run(
        [PY, "-m", "referee.cli", "match", "--json", "--sandbox", sandbox, "--startup", "60",
         "--time-per-move", "30", "--set", "end=rounds", "--set", "rounds=1", "--log", str(log),
         *env, command, GOOD, GOOD, GOOD],
        cwd=home, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    stderr = [json.loads(line) for line in log.read_text().splitlines() if '"stderr"' in line]
    assert [s["status"] for s in result["seats"]] == ["ok"] * 4, (done.stderr, stderr)
    assert "NOT isolated" not in done.stderr  # auto chose the sandbox: the case was played in it


def test_a_shebang_names_its_interpreter_which_is_shown() -> None:
    folder = FIRST.parent
    sight = shown_paths(["./first_legal_bot.py"], str(folder), {"PATH": os.environ["PATH"]})
    assert str(folder) in sight.paths


def test_a_class_path_shows_each_folder_it_names(home: Path) -> None:
    for name in ("a", "b"):
        (home / name).mkdir()
    (home / "lib.jar").write_text("")
    sight = shown_paths(["java", "-cp", "a:b:lib.jar:nothing", "Main"], str(home), {"PATH": "/usr/bin"})
    assert {str(home / "a"), str(home / "b")} <= set(sight.paths) or str(home) in sight.paths
    assert uses_folder(["java", "-cp", "a:b", "Main"], str(home))
    assert uses_folder(["java", "-cp", str(home / "a"), "Main"], str(home))  # spelt absolute: the same folder
    assert not uses_folder(["java", "-cp", str(FIRST.parent), "Main"], str(home))  # another folder's
    shared = shown_paths(["java", "-cp", "/tmp:.", "Main"], "/tmp", {"PATH": "/usr/bin"})
    assert "/tmp" not in shared.paths  # never a shared folder whole


def test_rustup_shows_its_toolchains_and_not_the_rest_of_its_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rustup's proxies in ``~/.cargo/bin`` find the toolchains in ``~/.rustup``; the rest of
    ``~/.cargo`` (its credentials, its registry) is not shown."""
    monkeypatch.delenv("RUSTUP_HOME", raising=False)
    fake_home = tmp_path / "someone"
    (fake_home / ".cargo" / "bin").mkdir(parents=True)
    (fake_home / ".rustup" / "toolchains").mkdir(parents=True)
    (fake_home / ".cargo" / "credentials.toml").write_text("token = 'secret'\n")
    cargo = fake_home / ".cargo" / "bin" / "cargo"
    cargo.write_text("#!/bin/sh\n")
    cargo.chmod(0o755)
    env = {"PATH": f"{cargo.parent}:/usr/bin"}
    sight = shown_paths(["sh", "-c", "cd x && cargo build --release"], "/", env, build=True)
    assert str(fake_home / ".cargo" / "bin") in sight.paths
    assert str(fake_home / ".rustup") in sight.paths
    assert not any(p in (str(fake_home), str(fake_home / ".cargo")) for p in sight.paths)
    assert sight.env == {"RUSTUP_HOME": str(fake_home / ".rustup")}


def test_a_bots_own_folder_is_shown_whole_and_a_shared_one_is_not(home: Path, tmp_path: Path) -> None:
    """The folder a bot starts in is shown whole when it is its own; not when another bot of the
    run uses it or lies in it, nor when the referee's files lie in it, nor when it is shared;
    copies of the same bot are no others."""
    script_bot(home, "ruby")
    ruby = ["ruby", "bin/bot"]
    env = {"PATH": "/usr/bin"}
    assert own_folder(ruby, str(home), env, others=[], referees=[])
    assert own_folder(ruby, str(home), env, others=[(tuple(ruby), str(home))] * 3, referees=[])
    (home / "b.py").write_text("")
    (home / "other").mkdir()
    for other in [(("python3", "b.py"), str(home)), (("./bot",), str(home / "other")), ((PY, str(home / "b.py")), "/")]:
        assert not own_folder(ruby, str(home), env, others=[other], referees=[]), other
    assert own_folder(ruby, str(home), env, others=[((PY, str(FIRST)), str(home))], referees=[])  # uses no folder
    assert not own_folder(ruby, str(home), env, others=[], referees=[str(home / "match.jsonl")])
    assert not own_folder(["python3", "x.py"], "/tmp", env, others=[], referees=[])
    # issue 43: a file of the folder spelt absolute uses the folder as its relative spelling
    # does (it was said to use none, and a bot that passed as ``php bin/bot`` failed as ``php
    # /p/bin/bot``, its vendor/ unseen); a file of another folder uses none
    assert own_folder(["python3", str(home / "b.py")], str(home), env, others=[], referees=[])
    assert not own_folder(["python3", str(FIRST)], str(home), env, others=[], referees=[])
    assert not own_folder(["python3", "/tmp/b.py"], "/tmp", env, others=[], referees=[])  # shared: never


def test_the_sandbox_shows_an_own_folder_whole_and_else_what_is_named(home: Path) -> None:
    sandbox = Sandbox(bwrap="bwrap", privileged=False)
    script_bot(home, "perl")
    args = ["perl", "-Ilib", "bin/bot.pl"]
    binds = bound(sandbox.options(args, home, sandbox.environment(None)))
    assert str(home) in binds
    beside = sandbox.among([(["python3", "other.py"], home)])
    (home / "other.py").write_text("")
    binds = bound(beside.options(args, home, beside.environment(None)))
    assert str(home) not in binds and {str(home / "bin"), str(home / "lib")} <= binds
    binds = bound(sandbox.hiding(home / "ladder.db").options(["perl", "bin/bot.pl"], home, {"PERL5LIB": "lib"}))
    assert str(home) not in binds and {str(home / "bin"), str(home / "lib")} <= binds


def test_path_variables_and_include_flags_show_what_they_name(home: Path) -> None:
    for name in ("lib", "lua", "gems"):
        (home / name).mkdir()
    env = {"PATH": "/usr/bin", "RUBYLIB": f"lib:{home / 'gems'}", "LUA_PATH": "lua/?.lua;;", "NODE_PATH": "none"}
    sight = shown_paths(["ruby", "x"], str(home), env)
    assert {str(home / "lib"), str(home / "lua"), str(home / "gems")} <= set(sight.paths)
    assert uses_folder(["ruby", "x"], str(home), env=env)
    assert str(home / "lib") in shown_paths(["perl", "-Ilib", "x"], str(home), {}).paths
    assert uses_folder(["ruby", "x"], str(home), env={"RUBYLIB": str(home / "gems")})  # absolute, in the folder
    assert not uses_folder(["ruby", "x"], str(home), env={"RUBYLIB": str(FIRST.parent)})  # another folder


def bound(options: list[str]) -> set[str]:
    """The paths a ``bwrap`` command line binds read-only."""
    return {options[i + 2] for i, word in enumerate(options) if word == "--ro-bind"}
