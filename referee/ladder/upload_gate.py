"""Whether a ladder takes its entrants' uploads: only while its bots run in a sandbox.

An upload is a stranger's code. Its build line and its bot are kept off the machine by the
sandbox alone (``referee.sandbox.bwrap``: a uid of its own, the system read-only, the
referee's files hidden); without one, the build runs in place as the referee's own user and the
bot beside the ladder's database. So a run whose bots are not sandboxed (``--sandbox off``, or
``auto`` where bubblewrap does not work, or a cluster not held to ``--sandbox on``) takes no
upload: those received are refused with ``NO_SANDBOX`` rather than built, a run that would start
an upload taken earlier is refused before anything is built, and the organizer is told at the
start when the ladder has entrants. ``--trust-uploads`` (``UploadGate.trusted``) is the
organizer's override, for a machine that can be thrown away.

The pages (``ladder web``) run apart from the run and cannot see its sandbox, so each run
keeps what it decided in ``NAME-uploads/.sandbox.json`` (``keep_gate``), which the upload
form and the entrant's page read (``uploads_closed``): a ladder no run has said so of takes no
upload either."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import msgspec

from referee.errors import LadderError
from referee.ladder.uploads import keep_whole, read_kept, uploads, uploads_folder

NO_SANDBOX: Final = "no-sandbox"
"""The reason code of an upload refused because the ladder's bots run without a sandbox."""
GATE_NAME: Final = ".sandbox.json"
"""The run's word on its sandbox, in the uploads folder (a dot name: no entrant's folder)."""
FIX: Final = "run the ladder with --sandbox on"


class UploadGate(msgspec.Struct, frozen=True, kw_only=True):
    """What a run said of its bots' sandbox, for the uploads: taken when ``sandboxed``, or when
    the organizer ``trusted`` them."""

    sandboxed: bool
    trusted: bool = False
    how: str = ""
    """How the run chose its sandbox, or why there is none (``--sandbox off``): shown with a
    refusal."""
    since: str = ""
    """When the run said it (ISO 8601, UTC); empty until kept."""

    @classmethod
    def of_run(cls, mode: str, *, sandboxed: bool, trusted: bool, cluster: bool = False) -> UploadGate:
        """The gate of a run with ``--sandbox mode`` whose bots are ``sandboxed`` (on a cluster
        only ``on`` is: with ``auto`` a worker without bubblewrap runs bots unsandboxed)."""
        if sandboxed:
            how = f"--sandbox {mode}" + (" on every worker" if cluster else ": bubblewrap works here")
        elif mode == "off":
            how = "--sandbox off"
        elif cluster:
            how = f"--sandbox {mode} on a cluster: a worker without bubblewrap runs bots unsandboxed"
        else:
            how = f"--sandbox {mode}: bubblewrap does not work here"
        return cls(sandboxed=sandboxed, trusted=trusted, how=how)

    def refusal(self) -> str | None:
        """Why no upload is taken (``None``: they are), naming ``NO_SANDBOX``."""
        if self.sandboxed or self.trusted:
            return None
        return (
            f"uploads are closed ({NO_SANDBOX}): this ladder runs its bots without a sandbox ({self.how}), "
            "and an uploaded bot is built and run only in one"
        )


NOT_SAID: Final = UploadGate(sandboxed=False, how="no run of it has said yet that it runs one")
"""The gate of a ladder whose run never said (none yet, or one older than this): closed."""


def keep_gate(db: str | Path, gate: UploadGate) -> UploadGate:
    """Keep ``gate`` for the pages, stamped now (``uploads.keep_whole``: whole, never through a
    link)."""
    folder = uploads_folder(db)
    folder.mkdir(parents=True, exist_ok=True, mode=0o755)
    kept = msgspec.structs.replace(gate, since=datetime.now(UTC).isoformat(timespec="seconds"))
    keep_whole(folder / GATE_NAME, kept)
    return kept


def read_gate(db: str | Path) -> UploadGate:
    """The gate the ladder's last run kept; ``NOT_SAID`` when none can be read (closed)."""
    return read_kept(uploads_folder(db) / GATE_NAME, UploadGate, 4096) or NOT_SAID


def uploads_closed(db: str | Path) -> str | None:
    """Why the ladder in ``db`` takes no upload now (``None``: it takes them): what the upload
    form answers and the entrant's page shows."""
    return read_gate(db).refusal()


def check_run(db: str | Path, gate: UploadGate) -> None:
    """Before a run builds anything: a ladder that took an upload is never run with that upload
    outside a sandbox (its build would run in place, as the referee's user); ``LadderError``
    naming the way on. A ladder with no upload taken runs, its uploads refused."""
    taken = sorted({u.entrant for u in uploads(db) if u.version is not None})
    if gate.refusal() is not None and taken:
        shown = ", ".join(taken[:5]) + (", ..." if len(taken) > 5 else "")
        raise LadderError(
            f"this run has no sandbox ({gate.how}), and {len(taken)} entrant(s) play uploaded bots in this ladder "
            f"({shown}): an upload is never built or run outside one; {FIX} (or --trust-uploads, on a machine "
            "you can throw away)"
        )


def start_warning(gate: UploadGate, entrants: int) -> str | None:
    """What the organizer is told at a start when the ladder has ``entrants`` and takes no
    upload (``None``: nothing to tell)."""
    why = gate.refusal()
    if why is None or entrants == 0:
        return None
    return f"{why}: the uploads of its {entrants} entrant(s) are refused, and their pages say so; {FIX}"
