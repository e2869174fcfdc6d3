"""What a sandboxed bot is shown, read-only, besides the system: what its command line names.

A bot's files are what its command names, however it names them: the file of ``python3
bot.py``, the folders of ``java -cp classes:lib/x.jar Main`` and ``node nbot``, the working
folder of ``java -cp . Main``, ``node .`` and ``python3 -m mybot``, the folders of include
flags (``perl -Ilib``, ``ruby -I lib``) and of the path variables of its environment
(``PYTHONPATH``, ``PERL5LIB``, ``RUBYLIB``, ``NODE_PATH``, ``LUA_PATH``, ...); and the installation its
program comes from (``/opt/x/bin/node`` -> ``/opt/x``; a virtualenv; pyenv; nvm; sdkman;
rustup's toolchains). Never a shared folder whole (``/tmp``, ``/home``, a home folder, ``/``):
it may hold other people's files and Unix sockets, which a read-only mount does not stop a
bot from connecting to; a file named directly in one is shown alone. The referee's own files
inside what is shown are hidden by ``referee.sandbox.bwrap``.

The folder a bot starts in is shown whole when it is the bot's own (``own_folder``): its
command uses it, it is no shared folder, and no other bot of the run and none of the referee's
files lie in it. ``ruby -Ilib bin/bot`` run from its own folder then finds ``lib/`` however it
names it (``require_relative '../lib/x'``), while a folder several bots share (a bot list's
folder, the repository the referee runs from) still shows each bot only what its command names.

Pure path logic (no mounts, no processes), so that it can be tested on any layout.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final, NamedTuple, TypeAlias

HOME: Final = "/home/bot"
"""A bot's home inside (a private tmpfs); also its working folder when its command names none."""
KIT: Final = str(Path(__file__).resolve().parents[2] / "protocol")
"""The Python bot kit (``protocol/``): bots written with it import it from here when the
referee is installed in place (``pip install -e``)."""
ENGINE: Final = str(Path(__file__).resolve().parents[1])
"""The referee's own package (``referee/``), read-only: a bot may search with the rules engine
(``referee.rules``, as the search bot, ``sample_bots/python/hearts_bots/search_bot.py``,
does). The package holds code only, all of it public: no logs, no hands, no seeds (the
referee writes those elsewhere, and the files it writes are hidden in any case)."""
SHARED: Final = ("/tmp", "/var/tmp", "/dev/shm", "/run", "/var/run")
"""Folders where every program of the machine leaves files and sockets: nothing in them is
bound whole (a file named there is bound alone)."""
SHARED_ROOTS: Final = ("/home", "/root", "/var/lib", "/mnt", "/media", "/srv", "/var")
"""Folders that hold other people's homes and services: never bound whole themselves (a
folder inside one, such as a bot's own folder in a home, is)."""
CLASS_PATH_OPTIONS: Final = frozenset({"-cp", "-classpath", "--class-path", "-p", "--module-path"})
INCLUDE_FLAG: Final = "-I"
"""``perl -Ilib``, ``ruby -Ilib``, ``gcc``-like runtimes: a folder glued to its flag (``-I lib``,
two words, is named like any other argument)."""
PATH_VARIABLES: Final = {
    **dict.fromkeys(("PYTHONPATH", "PERL5LIB", "PERLLIB", "RUBYLIB", "NODE_PATH", "CLASSPATH"), ":"),
    **dict.fromkeys(("GEM_HOME", "GEM_PATH", "GOPATH"), ":"),
    **dict.fromkeys(("LUA_PATH", "LUA_CPATH", "LUA_PATH_5_4", "LUA_CPATH_5_4", "LUA_PATH_5_3"), ";"),
}
"""Variables of a bot's environment (``--bot-env``) that name where its runtime finds its
code, and the separator of their lists: each folder they name is shown as if its command named
it (Lua's patterns, ``lib/?.lua``, name the folder before the ``?``)."""
Place: TypeAlias = tuple[tuple[str, ...], str]
"""A started bot of the run: its command's words and the folder it starts in."""


class Sight(NamedTuple):
    """What to show a bot (``paths``, read-only, at their own places) and the variables its
    runtime needs to find its installation there (``env``: ``RUSTUP_HOME``)."""

    paths: list[str]
    env: dict[str, str]


def shared(folder: str) -> bool:
    """Whether a folder may not be shown to a bot whole, nor given to a build to write in: a
    shared folder itself or one that contains one (``/tmp``, ``/``, ``/home``), or a user's home
    folder itself. A folder of its own inside one (``/tmp/mybot``, ``/home/me/bots``) may be: it
    is what the operator named."""
    folder = os.path.abspath(folder)
    if any(inside(s, folder) for s in (*SHARED, *SHARED_ROOTS)):
        return True
    return _home_itself(folder)


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def uses_folder(
    args: Sequence[str], cwd: str, host: Callable[[str], str] = str, env: dict[str, str] | None = None
) -> bool:
    """Whether a command needs the folder it is started in: its program or something it names
    is a path that exists there (``./bot``, ``bot.py``, ``-cp .``, ``node .``, ``python3 -m
    pkg``'s ``pkg``, ``-Ilib``, ``PERL5LIB=lib``), however it is spelt: ``php /p/bin/bot`` run
    in ``/p`` uses ``/p`` as ``php bin/bot`` does (issue 43: the same bot passed in one spelling
    and failed in the other, its ``vendor/`` unseen), unless the folder is a shared one. When
    not, the bot starts in its home instead, and its ``PWD`` names no folder of the referee's (a
    bot started from ``/root/ladders/final`` learnt that name)."""
    program = args[0] if args else ""
    if "/" in program and not os.path.isabs(program):
        return True
    named = [*_named(args, cwd, host), *_in_variables(env or {}, cwd, host)]
    if any(not os.path.isabs(part) for part in named):
        return True
    folder = os.path.abspath(cwd)
    spelt = [os.path.normpath(p) for p in (program, *named) if os.path.isabs(p)]
    return not shared(folder) and any(inside(p, folder) for p in spelt)


def own_folder(
    args: Sequence[str],
    cwd: str,
    env: dict[str, str],
    *,
    others: Sequence[Place],
    referees: Sequence[str],
    host: Callable[[str], str] = str,
) -> bool:
    """Whether the folder a bot starts in is its own, to be shown whole: its command uses it
    (``uses_folder``), it is no shared folder (``/tmp``, a home, ``/``), and nothing lies in it
    of another bot of the run (``others``: a folder one starts in and uses, a path one names)
    nor of the referee's (``referees``: its logs, the ladder's database and logs folder), which
    a mask alone would leave to a list kept complete. Copies of the same bot (the same command
    in the same folder) are no others."""
    cwd = os.path.abspath(cwd)
    if shared(cwd) or not uses_folder(args, cwd, host, env):
        return False
    return not crowding(args, cwd, others=others, referees=referees, host=host)


def crowding(
    args: Sequence[str],
    cwd: str,
    *,
    others: Sequence[Place],
    referees: Sequence[str],
    host: Callable[[str], str] = str,
) -> list[str]:
    """What lies in the folder a bot starts in that is not its own (see ``own_folder``): the
    paths of other bots' files and of the referee's, so that an organizer can be told why the
    folder is not shown whole, and what to move."""
    cwd = os.path.abspath(cwd)
    own: Place = (tuple(args), cwd)
    theirs = [path for place in others if place != own for path in footprint(*place, host=host)]
    return [path for path in dict.fromkeys((*theirs, *referees)) if inside(path, cwd)]


def footprint(args: Sequence[str], cwd: str, host: Callable[[str], str] = str) -> list[str]:
    """Where a bot's files lie, as far as its command says: the folder it starts in when it
    uses it, its program when given as a path, and every path it names."""
    cwd = os.path.abspath(cwd)
    paths = [cwd] if uses_folder(args, cwd, host) else []
    if args and "/" in args[0]:
        paths.append(os.path.normpath(os.path.join(cwd, args[0])))
    return paths + [os.path.normpath(os.path.join(cwd, part)) for part in _named(args, cwd, host)]


def shown_paths(
    args: Sequence[str],
    cwd: str,
    env: dict[str, str],
    extra: Sequence[str] = (),
    host: Callable[[str], str] = str,
    *,
    build: bool = False,
) -> Sight:
    """Everything a bot started with ``args`` in ``cwd`` is shown: what its command names (a
    file's folder, a named folder whole), its program's installation (for a ``build``, of
    every program its shell line names), the referee's Python, the kit and the rules engine
    (``KIT``, ``ENGINE``), and the configured ``extra`` paths. ``host`` says where a path lies
    outside (a built bot's files lie in its build's copy)."""
    paths: list[str] = []
    alone: list[str] = []
    runtime_env: dict[str, str] = {}

    def show(file: str, folder: str) -> None:
        """``folder`` whole, or ``file`` alone when the folder is shared."""
        if shared(folder):
            alone.append(file)
        else:
            paths.append(folder)

    for part in [*_named(args, cwd, host), *_in_variables(env, cwd, host)]:
        named = os.path.normpath(os.path.join(cwd, part))
        if os.path.isdir(host(named)):
            if not shared(named):
                paths.append(named)  # a class path, a package, a module's folder: whole
        else:
            show(named, os.path.dirname(named))
    programs = _programs(args, build)
    for program in programs:
        found = shutil.which(program, path=env.get("PATH")) if "/" not in program else os.path.join(cwd, program)
        if found:
            for candidate in {os.path.abspath(found), os.path.realpath(found)}:
                _show_installation(candidate, show, paths, runtime_env)
            if program == programs[0]:
                programs += _interpreter(host(os.path.abspath(found)))
    paths += [sys.base_prefix, sys.prefix, KIT, ENGINE]
    paths = [p for p in paths if not shared(p)] + alone + list(extra)  # extra binds: the operator's own choice
    unique: list[str] = []
    for path in sorted({os.path.abspath(p) for p in paths if p and os.path.exists(host(os.path.abspath(p)))}, key=len):
        if path == "/":
            continue  # never the whole machine: a bot run from / sees the system paths only
        if not any(inside(path, u) for u in unique):
            unique.append(path)
    return Sight(unique, runtime_env)


def _named(args: Sequence[str], cwd: str, host: Callable[[str], str]) -> Iterator[str]:
    """The existing files and folders a command line names, as written (relative or not):
    each argument, the value of ``--opt=VALUE``, each part of a class path (``A:B``), and the
    module of ``python3 -m NAME`` (``NAME/`` or ``NAME.py``)."""
    for index, arg in enumerate(args[1:], start=1):
        if not arg or "\0" in arg:
            continue
        value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
        if arg.startswith(INCLUDE_FLAG) and len(arg) > len(INCLUDE_FLAG) and "=" not in arg:
            value = arg[len(INCLUDE_FLAG) :]  # -Ilib
        after_option = args[index - 1] in CLASS_PATH_OPTIONS
        parts = value.split(":") if after_option or ":" in value else [value]
        if args[index - 1] == "-m":  # a module: its package folder or its file, from the working folder
            root = value.split(".")[0]
            parts = [root, root + ".py"]
        for part in parts:
            if part and os.path.exists(host(os.path.normpath(os.path.join(cwd, part)))):
                yield part


def _in_variables(env: dict[str, str], cwd: str, host: Callable[[str], str]) -> Iterator[str]:
    """The existing folders and files the path variables of an environment name (``PATH_VARIABLES``),
    as written: ``PERL5LIB=lib:/opt/perl`` -> ``lib``, ``/opt/perl``; ``LUA_PATH=lib/?.lua;;``
    -> ``lib``."""
    for name, separator in PATH_VARIABLES.items():
        for written in env.get(name, "").split(separator):
            part = os.path.dirname(written.split("?", 1)[0] + "x") or "." if "?" in written else written
            if part and "\0" not in part and os.path.exists(host(os.path.normpath(os.path.join(cwd, part)))):
                yield part


def _programs(args: Sequence[str], build: bool) -> list[str]:
    """The programs a command runs: its first word; for a build (``sh -c LINE``), also every
    word of its shell line that names a program on PATH (``cargo``, ``go``, ``mvn``)."""
    programs = [args[0]] if args else []
    if build and len(args) >= 3 and args[1] == "-c":
        lexer = shlex.shlex(args[2], posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:  # an unclosed quote: sh will say so
            words = []
        programs += [w for w in words if w and "/" not in w and "=" not in w and shutil.which(w)]
    return programs


def _interpreter(path: str) -> list[str]:
    """The interpreter a script's ``#!`` line names (``#!/usr/bin/env python3`` -> ``python3``,
    ``#!/opt/py/bin/python3 -u`` -> that program): it must be shown with its installation too."""
    try:
        with open(path, "rb") as file:
            first = file.readline(256)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    words = first[2:].decode("utf-8", errors="replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return words[:1]


def _show_installation(candidate: str, show: Callable[[str, str], None], paths: list[str], env: dict[str, str]) -> None:
    """A program's installation: ``/opt/x/bin/node`` -> ``/opt/x``; a version manager's shims
    (pyenv, rbenv) -> the whole manager; rustup's proxies in ``~/.cargo/bin`` -> that folder and
    rustup's home, not the rest of ``~/.cargo`` (its credentials and caches); a program in
    ``~/.local/bin`` or a home's ``bin`` -> that folder, not the home."""
    bin_dir = os.path.dirname(candidate)
    if os.path.basename(bin_dir) not in ("bin", "sbin", "shims"):
        show(candidate, bin_dir)
        return
    prefix = os.path.dirname(bin_dir)
    if os.path.basename(prefix) == ".cargo":  # rustup: its proxies find the toolchains in RUSTUP_HOME
        rustup_home = os.environ.get("RUSTUP_HOME") or os.path.join(os.path.dirname(prefix), ".rustup")
        if os.path.isdir(rustup_home):
            paths.append(rustup_home)
            env["RUSTUP_HOME"] = rustup_home
        paths.append(bin_dir)
    elif _home_itself(prefix) or os.path.basename(prefix) == ".local":
        paths.append(bin_dir)
    else:
        show(candidate, prefix)


def _home_itself(folder: str) -> bool:
    return folder == os.path.expanduser("~") or os.path.dirname(folder) == "/home" or folder == "/root"
