"""Tournaments: many seeded games between agents, for every registered game, on one machine or a cluster.

One runner serves every game of :mod:`quaternity_cp.games` and knows none by
name: the game and its agents come from the registry. Game ``k`` of a tournament is played from the seed
``derive_seed(seed, k)`` (each seat's agent gets ``derive_seed(seed, k, seat + 1)``)
and with the ``k mod m``-th of the ``m`` distinct seat orders of the line-up, so
every seat order is played equally often when the number of games is a
multiple of ``m``, and the results never depend on how many workers ran the
games or in which order they finished. Games run in batches on a local process
pool (``workers``) or on a Dask distributed cluster (``cluster``: a scheduler
address or a ``Client``); the statistics are computed afterwards, in game order.
Published experiments built on it live in :mod:`quaternity_cp.experiments`.

>>> result = run_tournament("quartets", ["koole-first", "koole-random", "koole-random"], games=6, seed=1,
...                         options={"preset": "classic", "players": 3, "sets": 6, "set_size": 4})
>>> sorted(result.summary()["results"])
['koole-first', 'koole-random']
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from .errors import QuaternityError
from .games import GAMES, derive_seed, load_all

Z95 = 1.959963984540054


class TournamentError(QuaternityError, ValueError):
    """A tournament that cannot be run as asked (unknown game or agent, wrong line-up size, ...)."""


@dataclass
class GameResult:
    """One finished game: who sat where and what each seat got."""

    index: int
    seats: tuple[str, ...]  # agent name per seat
    returns: tuple[float, ...]
    scores: tuple[float, ...]
    length: int  # decisions taken (questions, answers, declarations, placements)
    finished: bool
    record: dict | None = None


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (successes may be fractional: shared wins)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def seat_orders(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct seat order of the line-up (an agent named twice is not told apart), sorted."""
    return sorted(set(itertools.permutations(lineup)))


# -- playing ---------------------------------------------------------------------------------
def play_game(game: str, options: dict, seats: Sequence[str], seed: int, index: int,
              record: bool = False) -> GameResult:
    """Play game ``index`` of a tournament with seed ``seed``: the agents ``seats`` in seat order."""
    spec = load_all()[game]  # a worker process loads the games (and their agents) here
    state = spec.new_state(derive_seed(seed, index), **options)
    agents = [spec.agents[name]() for name in seats]
    rngs = [random.Random(derive_seed(seed, index, p + 1)) for p in range(len(seats))]
    length = 0
    stuck = False
    while not state.is_terminal():
        p = state.current_player()
        legal = state.legal_actions()
        if not legal:  # no legal move although the game is not over: it ends unfinished, nobody wins
            stuck = True
            break
        state.apply_action(agents[p].step(state.observation(p), legal, rngs[p]))
        length += 1
    finished = not stuck and not getattr(state, "unfinished", False)
    return GameResult(index, tuple(seats), tuple(state.returns()), tuple(state.scores()), length, finished,
                      state.record() if record else None)


def play_batch(game: str, options: dict, orders: list[tuple[str, ...]], seed: int, indices: list[int],
               record: bool = False) -> list[GameResult]:
    """Play the games ``indices`` (a worker's unit of work)."""
    return [play_game(game, options, orders[k % len(orders)], seed, k, record) for k in indices]


def _play_batch_args(args: tuple) -> list[GameResult]:
    return play_batch(*args)


# -- the runner --------------------------------------------------------------------------------
@dataclass
class TournamentResult:
    """All games of a tournament, in game order, and the statistics computed from them."""

    game: str
    options: dict
    lineup: list[str]
    seed: int
    games: list[GameResult]
    orders: list[tuple[str, ...]]
    workers: int = 1
    cluster: str | None = None
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The statistics as one JSON-ready dict (independent of workers; timing under ``run``)."""
        n = len(self.games)
        P = len(self.lineup)
        names = list(dict.fromkeys(self.lineup))
        held = {a: 0 for a in names}
        wins = {a: 0.0 for a in names}
        score = {a: 0.0 for a in names}
        seat_held = {a: [0] * P for a in names}
        seat_wins = {a: [0.0] * P for a in names}
        seat_total = [0.0] * P
        lengths = []
        no_winner = unfinished = 0
        for r in self.games:
            lengths.append(r.length)
            if not r.finished:
                unfinished += 1
            if sum(r.returns) == 0:
                no_winner += 1
            for p, a in enumerate(r.seats):
                held[a] += 1
                wins[a] += r.returns[p]
                score[a] += r.scores[p]
                seat_held[a][p] += 1
                seat_wins[a][p] += r.returns[p]
                seat_total[p] += r.returns[p]
        results = {}
        for a in names:
            k = held[a]
            results[a] = {
                "wins": wins[a],
                "seats_held": k,
                "win_rate": wins[a] / k if k else 0.0,
                "ci95": list(wilson(wins[a], k)),
                "mean_score": score[a] / k if k else 0.0,
                "per_seat": [
                    {"seat": p, "games": seat_held[a][p], "wins": seat_wins[a][p],
                     "win_rate": seat_wins[a][p] / seat_held[a][p] if seat_held[a][p] else None}
                    for p in range(P)
                ],
            }
        seats: list[dict[str, Any]] = [
            {"seat": p, "wins": seat_total[p], "win_rate": seat_total[p] / n if n else 0.0,
             "ci95": list(wilson(seat_total[p], n))} for p in range(P)]
        rates = [s["win_rate"] for s in seats]
        return {
            "game": self.game,
            "options": self.options,
            "games": n,
            "seed": self.seed,
            "lineup": list(self.lineup),
            "results": results,
            "seats": seats,
            "seat_effect": (max(rates) - min(rates)) if rates else 0.0,
            "length": {
                "mean": statistics.fmean(lengths) if lengths else 0.0,
                "median": statistics.median(lengths) if lengths else 0,
                "min": min(lengths) if lengths else 0,
                "max": max(lengths) if lengths else 0,
            },
            "no_winner": no_winner,
            "unfinished": unfinished,
            "seat_orders": len(self.orders),
            "balanced": n % len(self.orders) == 0,
            **self.extra,
        }

    def to_json(self) -> dict[str, Any]:
        """:meth:`summary` plus how the run went (``run``: workers, cluster, seconds, games per second)."""
        out = self.summary()
        out["run"] = {
            "workers": self.workers,
            "cluster": self.cluster,
            "seconds": self.seconds,
            "games_per_second": len(self.games) / self.seconds if self.seconds > 0 else None,
        }
        return out


def check_lineup(game: str, lineup: Sequence[str], options: dict) -> None:
    """Raise :class:`TournamentError` unless the game and agents exist and the line-up fills the table."""
    load_all()
    if game not in GAMES:
        raise TournamentError(f"unknown game {game!r} (known: {', '.join(sorted(GAMES))})")
    spec = GAMES[game]
    for name in lineup:
        if name not in spec.agents:
            raise TournamentError(f"unknown agent {name!r} for {game} (known: {', '.join(sorted(spec.agents))})")
    state = spec.new_state(0, **options)
    if state.num_players != len(lineup):
        raise TournamentError(f"the line-up has {len(lineup)} agents for {state.num_players} seats")


def run_tournament(
    game: str,
    lineup: Sequence[str],
    games: int,
    seed: int = 0,
    *,
    options: dict | None = None,
    workers: int = 1,
    cluster: Any = None,
    records: str | os.PathLike | None = None,
    batch_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentResult:
    """Play ``games`` games of ``game`` between the agents of ``lineup`` (one per seat, rotated).

    ``workers`` > 1 plays on a local process pool; ``cluster`` (a Dask scheduler
    address like ``tcp://host:8786``, or a ``distributed.Client``) plays on a Dask
    cluster instead. ``records`` is a directory that receives every game as
    ``game-000000.json`` (a record ``quaternity check`` accepts). ``progress(done,
    total)`` is called as batches finish.
    """
    options = dict(options or {})
    lineup = list(lineup)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise TournamentError(f"games must be a whole number >= 1, not {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise TournamentError(f"workers must be a whole number >= 1, not {workers!r}")
    check_lineup(game, lineup, options)
    orders = seat_orders(lineup)
    folder = None if records is None else Path(records)
    want_records = folder is not None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    parallel = cluster is not None or workers > 1
    if batch_size is None:
        batch_size = max(1, min(250, games // (8 * (workers if cluster is None else 4)))) if parallel else games
    batches = [list(range(i, min(games, i + batch_size))) for i in range(0, games, batch_size)]
    args = [(game, options, orders, seed, b, want_records) for b in batches]
    results: list[GameResult | None] = [None] * games
    done = 0
    start = time.monotonic()

    def take(batch_results: list[GameResult]) -> None:
        nonlocal done
        for r in batch_results:
            results[r.index] = r
            if folder is not None:
                path = folder / f"game-{r.index:06d}.json"
                path.write_text(json.dumps(r.record) + "\n", encoding="utf-8")
                r.record = None
        done += len(batch_results)
        if progress is not None:
            progress(done, games)

    cluster_name = None
    if cluster is not None:
        cluster_name = _run_dask(cluster, args, take)
    elif workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # workers start from a clean process, never a fork of this one (which may run threads: a progress bar)
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method)) as pool:
            futures = [pool.submit(_play_batch_args, a) for a in args]
            for fut in as_completed(futures):
                take(fut.result())
    else:
        for a in args:
            for k in a[4]:
                take([play_game(game, options, orders[k % len(orders)], seed, k, want_records)])
    return TournamentResult(game, options, lineup, seed, [r for r in results if r is not None], orders,
                            workers=workers, cluster=cluster_name, seconds=time.monotonic() - start)


def _run_dask(cluster: Any, args: list[tuple], take: Callable[[list[GameResult]], None]) -> str:
    """Play the batches on a Dask cluster (the optional extra ``[cluster]``)."""
    try:
        from dask.distributed import Client, as_completed
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise TournamentError("--cluster needs Dask: pip install 'quaternity-cp[cluster]'") from None
    own = not isinstance(cluster, Client)
    try:
        client = Client(cluster) if own else cluster
    except (OSError, TimeoutError, ValueError) as err:
        raise TournamentError(f"cannot reach the Dask scheduler at {cluster}: {err}") from None
    try:
        futures = client.map(_play_batch_args, args, pure=False)
        for fut in as_completed(futures):
            take(fut.result())
        return str(client.scheduler.address)
    finally:
        if own:
            client.close()


# -- pictures ---------------------------------------------------------------------------------
def plot_results(summary: dict, path: str | os.PathLike, title: str | None = None) -> None:
    """Draw each agent's win rate with its 95% interval (matplotlib, the optional extra ``[plot]``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise TournamentError("--plot needs matplotlib: pip install 'quaternity-cp[plot]'") from None
    names = list(summary["results"])
    rates = [summary["results"][a]["win_rate"] for a in names]
    low = [r - summary["results"][a]["ci95"][0] for a, r in zip(names, rates)]
    high = [summary["results"][a]["ci95"][1] - r for a, r in zip(names, rates)]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.4 * len(names) + 1), 3.6))
    ax.bar(range(len(names)), rates, yerr=[low, high], capsize=6, color="#4c72b0")
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    fair = 1 / len(summary["lineup"])
    ax.axhline(fair, color="grey", linestyle=":", linewidth=1)
    ax.set_title(title or f"{summary['game']}: {summary['games']} games, seed {summary['seed']}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


__all__ = ["run_tournament", "play_game", "play_batch", "seat_orders", "wilson", "plot_results",
           "TournamentResult", "GameResult", "TournamentError", "check_lineup"]
