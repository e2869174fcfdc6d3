"""Running one match: the bots' seats (filled in ``referee.players``: a started process, a TCP
connection or a browser) asked for their decisions, every reply checked by the rules engine, and
the log recording it all.

- ``runner``: drives the match's machine (``referee.rules.match_turns``) over trio; ``phases``
  meets the round's events, ``asking`` (request, reply, clock), ``outbox`` (what each seat is
  told), ``faults`` (the policy's action carried out, fault reports), ``recorder`` and ``log``
  (the replay log), ``seat`` (``LiveSeat``: one seat for one match).
- ``play``: starting the bots, running the matches, cleaning up.
"""
