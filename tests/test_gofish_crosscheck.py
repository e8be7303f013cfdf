"""bigsolve.crosscheck (issue 38, item 6) compares plies, not only verdicts: ranks one ply off are seen.

crosscheck re-solves positions sampled from a solved partitioned graph with the Python solver and counts the
seats where the two disagree. A rank that says "wins in 4 plies" where the truth is 3 is as wrong as a lost
verdict (the solved-starts tables print plies): here every rank is shifted by one ply, the verdicts left alone,
and every sampled seat that wins must be reported.
"""

from __future__ import annotations

import numpy as np
import pytest

from quaternity_cp.gofish import bigsolve as bs
from quaternity_cp.gofish import fastgraph as fg


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """The 3-player start with 3 suits of 2 (59 positions, solved in well under a second), with its ranks."""
    built = bs.build(fg.Shape.of(3, 3, 2, {}), str(tmp_path_factory.mktemp("graph")), parts=2)
    return built, bs.attract(built).ranks


def one_ply_off(ranks: np.ndarray, by: int) -> np.ndarray:
    """Every forced win ``by`` plies longer (-1, no forced win, stays)."""
    return np.where(ranks >= 0, ranks + by, ranks).astype(ranks.dtype)


@pytest.mark.parametrize("by_layer", [False, True])
def test_ranks_one_ply_off_are_disagreements(solved, by_layer):
    built, ranks = solved
    right = bs.crosscheck(built, ranks, samples=30, seed=1, max_positions=1500, by_layer=by_layer)
    assert right["compared"] == 30 and right["disagreements"] == 0
    assert 0 < right["wins_seen"] < 3 * right["compared"]  # wins and losses both sampled
    for by in (1, 2) if not by_layer else (1,):
        wrong = one_ply_off(ranks, by)
        assert (wrong >= 0).tolist() == (ranks >= 0).tolist()  # the same verdicts: only the plies differ
        got = bs.crosscheck(built, wrong, samples=30, seed=1, max_positions=1500, by_layer=by_layer)
        assert got["compared"] == right["compared"] and got["wins_seen"] == right["wins_seen"]
        assert got["disagreements"] == got["wins_seen"], got  # every sampled seat's win is one (two) plies off


def test_each_seats_plies_are_compared(solved):
    """Ranks one ply off for one seat only (counted from each position's mover): that seat's sampled wins are
    reported, and the seats' reports add up to the whole shift's."""
    built, ranks = solved
    whole = bs.crosscheck(built, one_ply_off(ranks, 1), samples=30, seed=3, max_positions=1500)
    parts = []
    for seat in range(3):
        wrong = ranks.copy()
        wrong[:, seat] = one_ply_off(ranks[:, seat], 1)
        parts.append(bs.crosscheck(built, wrong, samples=30, seed=3, max_positions=1500)["disagreements"])
    assert sum(parts) == whole["disagreements"] == whole["wins_seen"] > 0 and sum(p > 0 for p in parts) >= 2, parts
