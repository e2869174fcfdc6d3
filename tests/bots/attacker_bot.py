"""A cheating bot for the sandbox tests: before its hello it tries the attacks named in argv[1]
(comma-separated) and reports each as one line ``ATTACK {json}`` on stderr, then plays the
first legal card. argv[2] is a marker (used in file names, ports and process titles so tests
can find what it left); further arguments are attack parameters (``key=value``).

Attacks:
- ``snoop``: read every /proc/*/cmdline, /proc/*/environ and the targets of /proc/*/fd/*, and
  the file ``log=PATH``; report which of the strings in the file ``secrets=`` (separated by
  ``|``) it found anywhere;
- ``signal``: SIGSTOP every process it can see that is not its own;
- ``share``: write /tmp/share-MARKER and $HOME/share-MARKER, listen on 127.0.0.1:``port=``;
- ``look``: look for files named share-``peer=`` and connect to 127.0.0.1:``port=``;
- ``remember``: report whether /tmp/memory or $HOME/memory exists, then write both;
- ``linger``: leave a ``setsid`` child and a double-forked grandchild sleeping (titled with the
  marker) that outlive the bot;
- ``write``: try to write into the file ``target=PATH`` (the ladder database, a log).
"""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from first_legal_bot import answer, ends

ATTACKS = sys.argv[1].split(",")
MARKER = sys.argv[2]
PARAMS = dict(arg.split("=", 1) for arg in sys.argv[3:] if "=" in arg)
SECRETS = [s for s in Path(PARAMS["secrets"]).read_text().split("|") if s] if "secrets" in PARAMS else []
"""What to look for, read from a file (on its command line they would be found in its own
/proc/self/cmdline)."""


def report(name: str, **result: object) -> None:
    sys.stderr.write("ATTACK " + json.dumps({"attack": name, **result}) + "\n")
    sys.stderr.flush()


def read(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read(1 << 20)
    except OSError:
        return b""


def snoop() -> None:
    seen = b""
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    readable = 0
    for pid in pids:
        for part in ("cmdline", "environ"):
            data = read(f"/proc/{pid}/{part}")
            readable += bool(data)
            seen += data
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    seen += target.encode()
                    if target.startswith("/"):
                        seen += read(f"/proc/{pid}/fd/{fd}")
    if "log" in PARAMS:
        seen += read(PARAMS["log"])
    found = [s for s in SECRETS if s.encode() in seen]
    report("snoop", pids=len(pids), readable=readable, found=found, log_bytes=len(read(PARAMS.get("log", "/x"))))


def stop_others() -> None:
    mine = {os.getpid(), os.getppid()}
    stopped = []
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        if pid in mine:
            continue
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
    report("signal", stopped=len(stopped))


def share() -> None:
    wrote = []
    for folder in ("/tmp", os.environ.get("HOME", "/tmp")):
        with contextlib.suppress(OSError):
            with open(os.path.join(folder, f"share-{MARKER}"), "w") as file:
                file.write("hello partner")
            wrote.append(folder)
    listening = False
    try:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(PARAMS["port"])))
        server.listen(5)
        globals()["_server"] = server  # kept open while the bot plays
        listening = True
    except OSError as err:
        report("share_listen_error", error=str(err))
    report("share", wrote=wrote, listening=listening)


def look() -> None:
    time.sleep(0.5)  # give the partner time to write and listen
    peer = PARAMS["peer"]
    found = [
        folder
        for folder in ("/tmp", os.environ.get("HOME", "/tmp"), "/home", "/")
        if os.path.exists(os.path.join(folder, f"share-{peer}"))
    ]
    connected = False
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", int(PARAMS["port"])), timeout=1):
        connected = True
    report("look", found=found, connected=connected)


def remember() -> None:
    places = ["/tmp/memory", os.path.join(os.environ.get("HOME", "/tmp"), "memory")]
    found = [p for p in places if os.path.exists(p)]
    for place in places:
        with contextlib.suppress(OSError), open(place, "w") as file:
            file.write("the deal of the last rotation")
    report("remember", found=found)


def titled(*titles: str) -> int:
    """How many processes it can see whose command line holds one of ``titles`` (one pass)."""
    count = 0
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if proc.name.isdigit():
                line = (proc / "cmdline").read_bytes()
                count += any(title.encode() in line for title in titles)
    return count


def linger() -> None:
    # bash: dash's exec has no -a, and the sleepers would never have started
    subprocess.Popen(["setsid", "bash", "-c", f"exec -a linger-{MARKER} sleep 300"])
    if os.fork() == 0:
        if os.fork() == 0:
            os.setsid()
            os.execvp("bash", ["bash", "-c", f"exec -a linger2-{MARKER} sleep 300"])
        os._exit(0)
    deadline = time.monotonic() + 10
    while (started := titled(f"linger-{MARKER}", f"linger2-{MARKER}")) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    report("linger", started=started)


def write() -> None:
    target = PARAMS["target"]
    try:
        with open(target, "ab") as file:
            file.write(b"tampered")
        report("write", wrote=True)
    except OSError as err:
        report("write", wrote=False, error=err.strerror)


def kernel() -> None:
    """Pin kernel memory outside its group (netlink replies, loopback TCP buffers) and read a
    shared file's page cache state: every way is refused (issue 31)."""
    opened = {}
    for family in ("AF_NETLINK", "AF_INET", "AF_UNIX"):
        try:
            socket.socket(getattr(socket, family), socket.SOCK_DGRAM).close()
            opened[family] = "ok"
        except OSError as err:
            opened[family] = err.strerror
    fd = os.open("/usr/bin/env", os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # succeeds, does nothing
    try:
        os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)
        nowait = "ok"
    except OSError as err:
        nowait = err.strerror
    report("kernel", opened=opened, nowait=nowait)


for attack in ATTACKS:
    try:
        {
            "snoop": snoop,
            "signal": stop_others,
            "share": share,
            "look": look,
            "remember": remember,
            "linger": linger,
            "write": write,
            "kernel": kernel,
        }[attack]()
    except Exception as err:  # report, never crash: the test reads what happened
        report(attack, error=repr(err))


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    m = json.loads(line)
    reply = answer(m, f"attacker-{MARKER}")
    if reply is not None:
        send(reply)
    elif ends(m):
        break
