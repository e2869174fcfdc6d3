"""The bot ladder: many matches of duplicate play between the bots of a list, rated with
OpenSkill, kept in SQLite so a run can be killed at any moment and resumed.

``schedule`` draws the duplicate sets, ``ratings`` and ``stats`` do the arithmetic, ``store``
keeps everything in one SQLite file (its tables in ``schema``, an earlier referee's brought up
to date by ``migrations``, read by ``reader``), ``setup`` creates or resumes a ladder,
``runner`` plays the pending matches over bot processes kept alive between matches, ``play``
ties these together for ``referee ladder run`` (with the live view of ``progress``), and
``report`` and ``plot`` read the results back. Documented in ``docs/ladder.md``.
"""
