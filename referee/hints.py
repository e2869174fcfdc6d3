"""What a bot author should try next, for each way a bot fails.

A fault's reason (``bad_json``, ``timeout``, ...) and message say what the referee saw; the
hint says what usually causes it, in the author's terms: a debug print on stdout, a reply
left in an output buffer, a missing token. ``referee match``, ``referee check`` and the
replay views all print the same hint for the same fault, from here.
"""

from __future__ import annotations

import signal

STDOUT_IS_PROTOCOL = (
    "stdout carries the protocol only, one JSON object per line: write logs and debug output to "
    "stderr (Python: print(..., file=sys.stderr); Java: System.err.println; Rust: eprintln!)"
)
FLUSH = (
    "was the line flushed? A line left in the output buffer never arrives (Python: "
    "print(..., flush=True); Java: System.out.flush(); C: fflush(stdout); Rust: stdout().flush(); every "
    "language: docs/writing-a-bot.md#flushing-your-output)"
)

READ_BY_LINE = (
    "read each line as it comes, not a block of input (mawk: run it as mawk -W interactive; PHP: fgets(STDIN), "
    'not fread; Perl: <STDIN>, not read; Ruby: STDIN.gets; Lua: io.read("l"); bash: read -r; Python: '
    "sys.stdin.readline(), not sys.stdin.buffer.read(N); every language: docs/writing-a-bot.md#flushing-your-output)"
)
READS_LATE = (
    "the bot reads its input late: its answer came only once its input ended, and it read the referee's later "
    f"lines only then (its stderr, below), so it waits for a block of input, not a line: {READ_BY_LINE}"
)
"""For a bot seen answering only after it read lines the referee wrote later: its input, not its output."""
OR_READS_LATE = f"; if it does flush, it reads its input in blocks: {READ_BY_LINE}"
"""Added to ``FLUSH`` when a line came once the input ended and nothing says which end held it."""
NO_REPLY = (
    "no reply arrived within the bot's time (the decision limit, then its bank): a bot that thinks that long must "
    f"think less per decision; else {FLUSH}; or it reads its input in blocks: {READ_BY_LINE}"
)
"""For a request never answered: its time first, then the line's way out, then its way in."""


def slow_hint(took: float, limit: float, *, per_decision: float, bank: float, start: bool = False) -> str:
    """For a bot seen answering ``took`` seconds after it was asked, over the ``limit`` it had
    (``per_decision`` to decide plus what was left of a match's ``bank``; at the handshake:
    the start-up limit): its time first, since it is slow, not silent."""
    if start:
        return (
            f"the bot said hello {took:.2f} s after the referee's, over the start-up limit of {limit:g} s: start "
            "faster (load big data after hello, or lazily), or give it more with --startup"
        )
    return (
        f"the bot answered {took:.2f} s after the request, over the {limit:g} s it had ({per_decision:g} s to "
        f"decide, then the bank: {bank:g} s a match, drained by every decision over {per_decision:g} s): it is slow, "
        f"not silent: think less per decision (stop a search at a deadline well below {per_decision:g} s), or give "
        "it more with --time-per-move and --time-bank"
    )


_SIGNAL_CAUSES = {
    "SIGKILL": "killed outright: out of memory, --memory-limit, or the sandbox's end",
    "SIGXCPU": "over its CPU time (--cpu-limit)",
    "SIGSEGV": "stopped by a segmentation fault (a bug in its code or in its runtime)",
    "SIGABRT": "aborted (a failed assertion or a runtime's fatal error)",
    "SIGTERM": "terminated from outside",
}


def exit_text(code: int | None) -> str:
    """An exit status as a person reads it: ``exited with code 1``, ``killed by signal 9
    (SIGKILL)``. A status over 128 from a sandbox is a signal passed on as a number."""
    if code is None:
        return "still running"
    if code < 0:
        return f"killed by signal {-code} ({_signal_name(-code)})"
    if code > 128 and _signal_name(code - 128) != "?":
        return f"exited with code {code} (signal {code - 128}, {_signal_name(code - 128)})"
    return f"exited with code {code}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "?"


def _looks_like_json(line: str) -> bool:
    return line.lstrip().startswith(("{", "["))


def hint(reason: str, message: str = "", line: str | None = None, exit_code: int | None = None) -> str | None:
    """The next thing to check for a fault, or ``None`` when the message says it all.
    ``line`` is the bot's offending line (when there was one), ``exit_code`` its program's
    exit status (when it has ended)."""
    if reason == "bad_json":
        if line is not None and line.strip() and not _looks_like_json(line):
            return STDOUT_IS_PROTOCOL
        if line is not None and not line.strip():
            return "an empty line is not a message: write exactly one JSON object per line"
        return "write exactly one JSON object per line, UTF-8, nothing before or after it"
    if reason == "timeout":
        if "hello" in message or "start-up" in message:
            return f"no hello arrived: {FLUSH}; or the bot takes longer than --startup to start"
        if "connected" in message:
            return "no bot connected to this TCP seat: start it with the printed address and the seat's token"
        return NO_REPLY
    if reason == "crash":
        code = exit_code
        name = _signal_name(-code) if code is not None and code < 0 else None
        if name is None and code is not None and code > 128:
            name = _signal_name(code - 128)
        cause = _SIGNAL_CAUSES.get(name or "")
        if cause:
            return f"the bot was {cause}; its stderr (below, or in the log) shows what it was doing"
        return "the bot's program ended: its stderr (below, or in the log) shows why"
    if reason == "memory":
        return (
            "all the bot's processes together, with its files in /tmp and $HOME and any memfd, count against one "
            "memory bound (default 1024 MiB; --group-memory): free what you no longer need, cap a JVM with -Xmx"
        )
    if reason == "processes":
        return (
            "all the bot's processes and threads together count against one bound (default 256; --group-processes): "
            "use a fixed pool of threads, and wait for the children you start"
        )
    if reason == "cpu":
        return "the bot spent its whole --cpu-limit: every process's CPU time counts; think less per decision"
    if reason == "disconnect":
        return "the bot closed its output or its connection while the match went on: keep reading until goodbye"
    if reason == "bad_token":
        if "no token" in message:
            return 'a TCP bot\'s hello must carry "token": the token the referee printed for its seat (kits: --token)'
        return "use the token the referee printed for this seat (tcp:NAME:TOKEN chooses it)"
    if reason == "no_common_version":
        return 'answer the referee\'s hello with a "version" from its "versions" list (this referee speaks 1)'
    if reason == "unknown_message":
        return "a bot sends only hello, pass, play, declare and moon (see docs/protocol.md, Messages from the bot)"
    if reason == "wrong_id":
        return 'copy the request\'s "id" into the reply; answer each request once, in order'
    if reason == "protocol_violation":
        if "expected a" in message:
            return "answer each request with its own reply type (pass_request -> pass, play_request -> play, ...)"
        return "check the message's fields and their types against docs/protocol.md (Messages from the bot)"
    if reason == "illegal_move":
        return 'the request\'s "legal" list holds every card the rules allow now: choose from it'
    if reason == "output_flood":
        return "write one reply per request; keep stderr logging under 1 MiB between two decisions"
    if reason == "line_too_long":
        return "a line may be at most 65536 bytes: is a newline missing at the end of each message?"
    return None
