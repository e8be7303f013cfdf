"""Published experiments reproduced with the tournament runner (:mod:`quaternity_cp.tournament`).

The seed's experiment (``quaternity experiment koole``): its web app's four
strategies for classic Quartets (:mod:`quaternity_cp.quartets.agents.koole`) played in
every line-up of three at 3 players x 6 sets of 4, our win rates set beside the
published ones (:data:`KOOLE_PUBLISHED`) with the difference in standard errors.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any, Callable

from .agents.koole import STRATEGIES
from ..registry import derive_seed
from ..tournament import TournamentError, run_tournament

#: The web app's published win rates (% of its games won; own strategy against the two opponents),
#: rows own strategy, columns the opponent pairs of KOOLE_PAIRS; about 1,000 games a cell.
KOOLE_PUBLISHED = {
    "random": (33, 17, 25, 25, 13, 18, 18, 23, 21, 24),
    "first": (66, 44, 51, 51, 33, 38, 37, 36, 33, 40),
    "second": (49, 30, 39, 48, 25, 32, 40, 33, 36, 39),
    "combined": (51, 31, 32, 38, 26, 27, 30, 28, 30, 33),
}
KOOLE_PAIRS = (("random", "random"), ("random", "first"), ("random", "second"), ("random", "combined"),
               ("first", "first"), ("first", "second"), ("first", "combined"), ("second", "second"),
               ("second", "combined"), ("combined", "combined"))
KOOLE_PUBLISHED_GAMES = 1000
KOOLE_GAME = "quartets"
KOOLE_OPTIONS = {"preset": "classic", "players": 3, "sets": 6, "set_size": 4}


def koole_experiment(games: int = 1000, seed: int = 0, *, workers: int = 1, cluster: Any = None,
                     second_fallback: str = "first",
                     progress: Callable[[int, int], None] | None = None,
                     notice: Callable[[str], None] | None = None,
                     cluster_wait: float | None = None) -> dict[str, Any]:
    """Every line-up of three koole strategies at 3 players x 6 sets of 4, ``games`` games each.

    ``second_fallback = "random"`` plays the second-order strategy as the app's
    earlier code did (agent ``koole-second-random``) instead of its current code.

    Returns ``cells``: one per (own strategy, opponent pair) with our win rate, its
    standard error and 95% interval, the published figure and the difference in
    standard errors of the difference (both samples' errors combined), and
    ``lineups``: the tournament summary of each of the 20 line-ups. ``notice`` and
    ``cluster_wait`` go to :func:`~quaternity_cp.tournament.run_tournament`; a line-up
    that stops early raises its :class:`~quaternity_cp.tournament.TournamentInterrupted`.
    """
    if second_fallback not in ("first", "random"):
        raise TournamentError(f"second_fallback must be first or random, not {second_fallback!r}")
    agent = {s: f"koole-{s}" for s in STRATEGIES}
    if second_fallback == "random":
        agent["second"] = "koole-second-random"
    lineups = list(itertools.combinations_with_replacement(STRATEGIES, 3))
    total = games * len(lineups)
    summaries: dict[tuple[str, ...], dict[str, Any]] = {}
    start = time.monotonic()
    for i, lineup in enumerate(lineups):
        def step(done: int, _n: int, base: int = i * games) -> None:
            if progress is not None:
                progress(base + done, total)

        result = run_tournament(KOOLE_GAME, [agent[s] for s in lineup], games, derive_seed(seed, i),
                                options=KOOLE_OPTIONS, workers=workers, cluster=cluster, progress=step,
                                notice=notice, cluster_wait=cluster_wait)
        summaries[lineup] = result.summary()
    cells = []
    for own in STRATEGIES:
        for j, pair in enumerate(KOOLE_PAIRS):
            seated = tuple(sorted((own, *pair), key=STRATEGIES.index))
            entry = summaries[seated]["results"][agent[own]]
            n = entry["seats_held"]
            p = entry["win_rate"]
            theirs = KOOLE_PUBLISHED[own][j] / 100
            se_ours = math.sqrt(p * (1 - p) / n) if n else 0.0
            se_theirs = math.sqrt(theirs * (1 - theirs) / KOOLE_PUBLISHED_GAMES)
            se = math.hypot(se_ours, se_theirs)
            cells.append({
                "strategy": own, "opponents": list(pair), "games": n, "ours": p, "se": se_ours,
                "ci95": entry["ci95"], "theirs": theirs, "difference": p - theirs,
                "z": (p - theirs) / se if se > 0 else 0.0,
            })
    return {
        "experiment": "koole", "options": KOOLE_OPTIONS, "games_per_lineup": games, "seed": seed,
        "second_fallback": second_fallback,
        "cells": cells,
        "lineups": [{"lineup": [agent[s] for s in k], **{key: v[key] for key in ("results", "seats", "length")}}
                    for k, v in summaries.items()],
        "run": {"seconds": time.monotonic() - start, "workers": workers},
    }


__all__ = ["koole_experiment", "KOOLE_PUBLISHED", "KOOLE_PAIRS", "KOOLE_PUBLISHED_GAMES", "KOOLE_GAME",
           "KOOLE_OPTIONS"]
