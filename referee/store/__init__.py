"""A ladder's SQLite database, a package of its own below the ladder that plays it: the file
and its transactions (``database``), the tables (``schema``), the numbered upgrades of older
databases (``migrations``), the queries (``reader``: ``LadderReader``), what they return and
what a run hands it (``records``: versions, sets, matches, results) and every write, each in
one transaction (``writer``: ``LadderStore``). Every SQL statement of ``referee`` is here
(``tests/test_layout.py``): beside those, the duplicate sets counted and compared
(``duplicates``), a duel's queries (``duels``), what the web pages read (``pages``) and what the
benchmarks do to a database (``fixtures``). The duel's and the web pages' readers build on it."""
