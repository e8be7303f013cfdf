"""Puzzles: generate, verify and grade Quaternity puzzles with unique answers (docs/puzzles.md).

- :mod:`.search`: the exact answer of a puzzle (K, every winning first move, the
  traps, the strategy tree), asked of the solver;
- :mod:`.grade`: the difficulty, from what a person must reason;
- :mod:`.answers`: the files (``NAME.json``, ``NAME.answer.json``): writing and reading them;
- :mod:`.puzzle`: one puzzle solved and graded (what generate and verify share);
- :mod:`.generate`: seeded games searched for puzzles, in a process pool;
- :mod:`.verify`: is a stated answer right and unique, and how hard is the puzzle;
- :mod:`.sheet`: the printable page of a folder of puzzles (``puzzle sheet``).

Nothing here is a second solver: every verdict comes from :mod:`quaternity_cp.quartets.solver`,
every explanation from :mod:`quaternity_cp.quartets.explain`, every game from :mod:`quaternity_cp.registry`.
"""
