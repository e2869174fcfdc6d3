"""Running one match: bots become seats, the runner asks them for decisions and checks every
reply with the rules engine, and the log records it all.

- ``seats/``: how a seat is filled (a started process or a TCP connection), spoken to, and
  ended: ``link`` (bytes), ``spawn`` (forking), ``connection`` (the handshake), ``tcp``.
- ``runner``: the match loop over ``Round`` phases; ``asking`` (request, reply, clock),
  ``outbox`` (what each seat is told), ``faults`` (policies and fault reports), ``log``.
- ``play``: starting the bots, running the match, cleaning up.
"""
