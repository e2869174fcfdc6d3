"""``referee ladder web``: the ladder's pages in a browser, read-only, updating as matches end.

One job per module: ``versions`` (a bot's entrant and version, whatever the schema), ``queries``
(one read of the database per page, into plain records), ``reading`` (the read-only connection,
used from one worker thread at a time), ``replays`` (a match's verified replay page, from a log
inside the ladder's logs folder only), ``html`` and the page modules (``board``, ``bot``,
``lists``, ``chart``: server-rendered HTML, every text escaped), ``app`` (the ASGI application:
every request hostile) and ``server`` (Hypercorn on trio). Documented in docs/ladder.md, "The
web view"."""
