"""``referee ladder web``: the ladder's pages in a browser, read-only, updating as matches end.

One job per module: ``reading`` (the read-only connection, used from one worker thread at a
time), ``queries`` (one short read of the database per page, into plain records), ``versions``
(an entrant's versions), ``tables`` (the matches in play, found from the ladder's files),
``logs`` (a match's verified replay page and a bot's decision times, from logs inside the
ladder's logs folder only), ``markup`` and the page modules ``board``, ``bot``, ``lists`` and
``chart`` (server-rendered HTML, every text escaped), ``answers`` (a response and a hostile
request read), ``budget`` (what a flood may take), ``app`` (the ASGI application),
``published`` (the address visitors open, the addresses printed), ``token_file`` (the token
kept in a file), ``forwarded`` (a reverse proxy's word, from its address only) and ``server``
(Hypercorn on trio, TLS when given, or a process of its own beside a run); ``visibility`` (the
public view of a bot's faults and a match's record). Who sees what: ``viewer`` (the public, an
entrant, the organizer, and what each may see), ``who`` (who asks, from the secrets a request
brings), ``keys`` (wrong keys counted), ``finished`` (a match's replay and log as its viewer
gets them) and ``entrant_page``. ``referee ladder export`` makes a static
copy of the public pages: ``export`` (with the renderers above), ``site_paths`` (its files'
names and relative links), ``match_rows`` (its CSV and JSON) and ``site_folder`` (a folder
renamed into place whole). Documented in docs/ladder.md, "The web view", "Published safely",
"Who sees what" and "A static copy"."""
