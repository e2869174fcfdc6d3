"""The entrant's upload form, ``POST /entrant/upload``: the one request of the ladder's pages
that writes, and so the one that must assume the worst of everything it is sent.

Who may upload: an entrant, by its key in the browser's cookie (the form of its page) or in an
``Authorization: Bearer KEY`` header (a script, a CI job: ``curl -F``). A wrong key is counted
against its address as on every page (``keys.WrongKeys``). A form sent from a browser must
prove it came from the entrant's own page, three ways at once: the cookie is ``SameSite=Strict``
(another site's form sends none), the ``Origin`` must be ours (a browser always sends one with a
form), and the form must carry ``csrf``, a value only the entrant's page shows
(``csrf_value``: made from the SHA-256 of its key that only the ladder's database holds, so it
survives a restart and changes with a new link). A bearer key needs none of these: no browser
sends that header by itself.

What is read, and how much: the body is refused at once when its ``Content-Length`` says it is
larger than an archive may be (``ArchiveLimits.archive_bytes``) with its fields, and counted as it
streams when it says nothing; it must arrive within ``BODY_SECONDS``; it is parsed as it comes
(``python-multipart``, its headers capped) into four known fields, each at most once and each
capped (``archive``, ``command``, ``build``, ``csrf``). Nothing is written until the whole form
is read and checked; then ``referee.ladder.uploads.receive`` unpacks the archive as hostile
input, in a worker thread, at most ``UNPACKS_AT_ONCE`` at a time.

How often: each entrant and each address has a token bucket (``ENTRANT_BURST`` uploads at once,
then one every ``ENTRANT_SECONDS``; an address's likewise); at most ``UPLOADS_AT_ONCE`` bodies
are read at once in all, ``UPLOADS_PER_ADDRESS`` from one address. None of this takes a page's
slot: a slow upload never holds the pages up."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
from collections import Counter, OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import trio
from python_multipart.multipart import MultipartParser, parse_options_header

from referee.ladder.upload_archive import DEFAULT_LIMITS
from referee.ladder.uploads import Upload, UploadRefused, receive
from referee.web.ladder.answers import header
from referee.web.ladder.budget import Bucket
from referee.web.link import AsgiReceive

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks

UPLOAD_PATH: Final = "/entrant/upload"
FIELDS: Final = {"archive": DEFAULT_LIMITS.archive_bytes, "command": 1_000, "build": 1_000, "csrf": 128}
"""The form's fields and the bytes each may hold; any other field is refused by name."""
OVERHEAD: Final = 64 * 1024
"""Bytes a body may hold beyond its fields: the boundaries and each part's headers."""
MAX_BODY: Final = sum(FIELDS.values()) + OVERHEAD
BODY_SECONDS: Final = 300.0
"""The whole body must arrive within this (20 MiB at about 0.5 Mbit/s)."""
UPLOADS_AT_ONCE: Final = 4
UPLOADS_PER_ADDRESS: Final = 2
UNPACKS_AT_ONCE: Final = 2
ENTRANT_BURST: Final = 5
ENTRANT_SECONDS: Final = 60.0
ADDRESS_BURST: Final = 10
ADDRESS_SECONDS: Final = 30.0
REMEMBERED: Final = 4096
"""Entrants and addresses whose buckets are kept; the oldest are forgotten first."""


class FormRefused(Exception):
    """An upload not taken, with the HTTP status and the words that say why."""

    def __init__(self, status: int, text: str, *, retry: int | None = None) -> None:
        super().__init__(text)
        self.status = status
        self.text = text
        self.retry = retry


def csrf_value(digest: str) -> str:
    """The value the entrant's form carries: an HMAC of a fixed purpose under the SHA-256 of
    its key (``referee.store.entrants``), which no other site can read or make."""
    return hmac.new(digest.encode(), b"hearts-ladder upload form", hashlib.sha256).hexdigest()


def bearer_key(scope: dict[str, Any]) -> str | None:
    """The key of an ``Authorization: Bearer KEY`` header (one such header, else ``None``)."""
    found = header(scope, b"authorization")
    if len(found) != 1:
        return None
    kind, _, key = found[0].strip().partition(" ")
    return key.strip() or None if kind.lower() == "bearer" else None


@dataclass
class Form:
    """A whole form as sent: its fields' bytes, by name."""

    fields: dict[str, bytes]
    filename: str = ""

    def text(self, name: str) -> str | None:
        """A text field, ``None`` when absent or blank; ``FormRefused`` when not UTF-8."""
        raw = self.fields.get(name)
        if raw is None:
            return None
        try:
            value = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise FormRefused(400, f"{name}: not UTF-8 text\n") from None
        return value or None


class _Parts:
    """``python-multipart``'s callbacks, each part's bytes kept up to its field's cap."""

    def __init__(self) -> None:
        self.fields: dict[str, bytearray] = {}
        self.filename = ""
        self.ended = False
        self._name = ""
        self._headers: dict[bytes, bytes] = {}
        self._field = bytearray()
        self._value = bytearray()

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self._begin,
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._data,
            "on_end": self._end,
        }

    def _begin(self) -> None:
        self._headers = {}
        self._name = ""

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        self._headers[bytes(self._field).lower()] = bytes(self._value)
        self._field.clear()
        self._value.clear()

    def _headers_finished(self) -> None:
        kind, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        raw = options.get(b"name")
        if kind != b"form-data" or raw is None:
            raise FormRefused(400, "a part of the form has no name (Content-Disposition: form-data; name=...)\n")
        name = raw.decode("latin-1")
        if name not in FIELDS:
            raise FormRefused(400, f"unknown field {name[:40]!r} (the form takes: {', '.join(FIELDS)})\n")
        if name in self.fields:
            raise FormRefused(400, f"field {name!r} given twice\n")
        self._name = name
        self.fields[name] = bytearray()
        if name == "archive":
            self.filename = options.get(b"filename", b"").decode("utf-8", "replace")[-200:]

    def _data(self, data: bytes, start: int, end: int) -> None:
        kept = self.fields[self._name]
        if len(kept) + end - start > FIELDS[self._name]:
            raise FormRefused(413, f"{self._name}: more than {FIELDS[self._name]:,} bytes\n")
        kept += data[start:end]

    def _end(self) -> None:
        self.ended = True


async def read_form(scope: dict[str, Any], receive_body: AsgiReceive, seconds: float = BODY_SECONDS) -> Form:
    """The form of a ``multipart/form-data`` request, read as it streams and within
    ``seconds``; ``FormRefused`` says what is wrong (413 as soon as it is too large)."""
    kinds = header(scope, b"content-type")
    kind, options = parse_options_header(kinds[0] if len(kinds) == 1 else "")
    boundary = options.get(b"boundary", b"")
    if kind != b"multipart/form-data" or not 1 <= len(boundary) <= 70:
        raise FormRefused(415, "send the upload as multipart/form-data (a form, or curl -F)\n")
    lengths = header(scope, b"content-length")
    if lengths and (not lengths[0].isascii() or not lengths[0].isdigit() or int(lengths[0]) > MAX_BODY):
        raise FormRefused(413, f"the upload is larger than {MAX_BODY:,} bytes (an archive: at most "
                               f"{FIELDS['archive']:,})\n")  # fmt: skip
    parts = _Parts()
    parser = MultipartParser(boundary, parts.callbacks(), max_header_count=4, max_header_size=1024)
    read = 0
    with trio.move_on_after(seconds) as deadline:
        while True:
            message = await receive_body()
            if message.get("type") == "http.disconnect":
                raise FormRefused(400, "the upload was cut off\n")
            chunk = message.get("body", b"")
            read += len(chunk)
            if read > MAX_BODY:
                raise FormRefused(413, f"the upload is larger than {MAX_BODY:,} bytes\n")
            try:
                parser.write(chunk)
            except FormRefused:
                raise
            except Exception:  # the parser's own errors: a body that is not the form it says
                raise FormRefused(400, "the body is not a well-formed multipart/form-data form\n") from None
            if not message.get("more_body", False):
                break
    if deadline.cancelled_caught:
        raise FormRefused(408, f"the upload took longer than {seconds:.0f} s to arrive\n")
    if not parts.ended:
        raise FormRefused(400, "the form ended before its last boundary\n")
    return Form({name: bytes(value) for name, value in parts.fields.items()}, parts.filename)


class _Buckets:
    """A token bucket per name (an entrant, an address), the least recently used forgotten."""

    def __init__(self, burst: int, seconds: float) -> None:
        self.burst = burst
        self.seconds = seconds
        self._kept: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, name: str) -> bool:
        bucket = self._kept.pop(name, None) or Bucket(1 / self.seconds, self.burst)
        self._kept[name] = bucket
        while len(self._kept) > REMEMBERED:
            self._kept.popitem(last=False)
        return bucket.take()


@dataclass
class UploadDoor:
    """How many uploads are let in: by entrant and address over time, and at once."""

    entrants: _Buckets = field(default_factory=lambda: _Buckets(ENTRANT_BURST, ENTRANT_SECONDS))
    addresses: _Buckets = field(default_factory=lambda: _Buckets(ADDRESS_BURST, ADDRESS_SECONDS))
    reading: Counter[str] = field(default_factory=Counter)
    unpacking: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(UNPACKS_AT_ONCE))

    def let_in(self, entrant: str, address: str) -> None:
        """Count one upload of ``entrant`` from ``address`` now, or ``FormRefused`` (429, 503)."""
        if not self.addresses.take(address):
            raise FormRefused(429, "too many uploads from this address: wait a little\n", retry=int(ADDRESS_SECONDS))
        if not self.entrants.take(entrant):
            raise FormRefused(429, f"too many uploads: {ENTRANT_BURST} at once, then one every "
                                   f"{ENTRANT_SECONDS:.0f} s\n", retry=int(ENTRANT_SECONDS))  # fmt: skip
        if sum(self.reading.values()) >= UPLOADS_AT_ONCE or self.reading[address] >= UPLOADS_PER_ADDRESS:
            raise FormRefused(503, "busy: other uploads are being received, try again\n", retry=5)

    @contextlib.contextmanager
    def reading_from(self, address: str) -> Iterator[None]:
        """While a body from ``address`` is read: it counts against the uploads at once."""
        self.reading[address] += 1
        try:
            yield
        finally:
            self.reading[address] -= 1
            if self.reading[address] <= 0:
                del self.reading[address]

    async def receive(self, db: Path, entrant: str, form: Form) -> Upload:
        """Keep the form's upload for ``entrant`` (``referee.ladder.uploads.receive``), in a worker
        thread; ``FormRefused`` (400) when it is not taken at all."""
        archive = form.fields.get("archive")
        if not archive:
            raise FormRefused(400, "archive: no file was sent (a .zip or .tar.gz of your bot's folder)\n")
        command, build = form.text("command"), form.text("build")
        now = datetime.now(UTC).isoformat(timespec="seconds")

        def keep() -> Upload:
            return receive(db, entrant, archive, command=command, build=build, now=now)

        try:
            return await trio.to_thread.run_sync(keep, limiter=self.unpacking)
        except UploadRefused as refused:
            raise FormRefused(400, f"{refused}\n") from None
