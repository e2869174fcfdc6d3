"""The statistics the ladder, the duel and the benchmarks share, pure and with no I/O: the mean
and spread of set differences (``estimate``), the sign test (``signs``), the sequential test
and its confidence sequence (``sequential``, ``betting``), what both say of a pair
(``evidence``) and the players' ratings (``ratings``, OpenSkill)."""
