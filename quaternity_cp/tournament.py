"""Tournaments: many seeded games between agents, for every registered game, on one machine or a cluster.

One runner serves every game of :mod:`quaternity_cp.registry` and knows none by
name: the game and its agents come from the registry. Game ``k`` of a tournament is played from the seed
``derive_seed(seed, k)`` (each seat's agent gets ``derive_seed(seed, k, seat + 1)``)
and with the ``k mod m``-th of the ``m`` distinct seat orders of the line-up, so
every seat order is played equally often when the number of games is a
multiple of ``m``, and the results never depend on how many workers ran the
games or in which order they finished. Games run in batches on local worker
processes (``workers``) or on a Dask distributed cluster (``cluster``: a scheduler
address or a ``Client``); the statistics are computed afterwards, in game order.
Published experiments built on it live in :mod:`quaternity_cp.quartets.experiments`.

Faults: a local worker process that dies is replaced and its batch played
again (a batch lost :data:`MAX_LOSSES` times stops the run: a game that kills
its process is a bug); Dask replaces its own workers, and a cluster left without
any is reported through ``notice`` (and, with ``cluster_wait``, stops the run).
An interrupt (``KeyboardInterrupt``, which the command raises for SIGINT and
SIGTERM) stops the workers at once. Every early stop raises
:class:`TournamentInterrupted` carrying the statistics of the games finished so
far (``partial``); the records already written stay.

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
import signal
import statistics
import time
import traceback
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .errors import QuaternityError
from .files import atomic_path, probe_folder, write_atomic
from .registry import GAMES, derive_seed, load_all

Z95 = 1.959963984540054

#: A batch whose worker process dies this many times stops the run (a game that kills its process is a bug).
MAX_LOSSES = 3
#: On a cluster, the workers are looked for when no batch has finished for this many seconds.
CLUSTER_CHECK_SECONDS = 10.0


#: What the counts of :meth:`TournamentResult.summary` are (its key ``counts``, for a reader of the JSON).
COUNTS = {
    "wins": "games the agent won, alone or sharing the win",
    "draws": "games nobody won (a draw, a tie that all lose, an unfinished game)",
    "losses": "games another seat won and the agent did not",
    "share": "the agent's share of the wins: 1/k of each game won with k winners",
    "win_rate": "wins / seats_held",
    "ci95": "the 95% Wilson interval of win_rate (of wins, not of share)",
    "share_rate": "share / seats_held",
}


class TournamentError(QuaternityError, ValueError):
    """A tournament that cannot be run as asked (unknown game or agent, wrong line-up size, ...)."""


class TournamentInterrupted(QuaternityError):
    """The run stopped before every game was played; ``result`` holds the games finished so far.

    ``cause`` says why: ``"interrupt"`` (a ``KeyboardInterrupt``: Ctrl-C, or the
    signal the command turns into one), ``"lost"`` (a batch killed its worker
    process :data:`MAX_LOSSES` times), ``"cluster"`` (no Dask worker for
    ``cluster_wait`` seconds, or the scheduler lost) or ``"records"`` (a record
    could not be written). ``result.summary()`` says ``"partial": true``.
    """

    def __init__(self, message: str, cause: str, result: "TournamentResult | None" = None):
        super().__init__(message)
        self.cause = cause
        self.result = result


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
    fallbacks: tuple[int, ...] = ()  # per seat: decisions its agent took by its cheaper rule (its ``fallbacks``)
    winners: tuple[int, ...] | None = None  # the seats that won (alone or shared); () nobody; None: from returns

    def winning_seats(self) -> tuple[int, ...]:
        """The seats that won the game, alone or sharing the win; () when nobody won (a draw, an unfinished
        game). Without ``winners``: the seats with a share of the win and the top score (see
        :func:`game_winners`)."""
        if self.winners is not None:
            return tuple(self.winners)
        return _winners_from(self.returns, self.scores)


def _winners_from(returns: Sequence[float], scores: Sequence[float]) -> tuple[int, ...]:
    """The winners of a finished game whose state cannot name them: the seats with a share of the win and
    the top score (a Quarto draw, 1/2 to each seat and no score, has none)."""
    top = max(scores, default=0.0)
    return tuple(p for p, r in enumerate(returns) if r > 0 and top > 0 and scores[p] == top)


def game_winners(state: Any) -> tuple[int, ...]:
    """The seats that won a finished game, alone or shared; () when nobody won. The state's own
    ``winners()`` when it has one (Quaternity, classic); otherwise the seats with a share of the win
    (``returns``) that also have the top score (``scores``): a Quarto draw gives 1/2 to each seat but
    nobody scores, so nobody won it."""
    own = getattr(state, "winners", None)
    if callable(own):
        return tuple(own())
    return _winners_from(state.returns(), state.scores())


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (successes may be fractional: shared wins).

    Each bound is computed as its distance from the nearer end, ``2 s^2 / (n (2 s + z^2 + r))`` with
    ``r = z sqrt(z^2 + 4 s f / n)`` (``s`` successes, ``f`` failures; the same for ``1 -`` the upper
    bound with ``f``), a sum of positive terms: exactly 0 with no successes, exactly 1 with no failures.
    """
    if n <= 0:
        return (0.0, 1.0)
    s = float(successes)
    f = n - s
    z2 = z * z
    root = z * math.sqrt(z2 + 4 * s * f / n)
    return (2 * s * s / (n * (2 * s + z2 + root)), 1 - 2 * f * f / (n * (2 * f + z2 + root)))


def seat_orders(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct seat order of the line-up (an agent named twice is not told apart), sorted (all of them:
    for a small line-up; the runner takes each with :func:`seat_order`)."""
    return sorted(set(itertools.permutations(lineup)))


def order_count(lineup: Sequence[str]) -> int:
    """The number of distinct seat orders of the line-up: ``P! / (c_1! c_2! ...)`` for agents named ``c_i`` times."""
    total = math.factorial(len(lineup))
    for c in Counter(lineup).values():
        total //= math.factorial(c)
    return total


def seat_order(lineup: Sequence[str], k: int) -> tuple[str, ...]:
    """The ``k mod m``-th of the ``m`` distinct seat orders, as in :func:`seat_orders` but without listing
    them (a line-up of 12 agents has up to 479,001,600): each seat in turn takes the first name whose
    block of orders (those starting so) holds the rank."""
    counts = Counter(lineup)
    names = sorted(counts)
    left = len(lineup)
    total = order_count(lineup)
    k %= total
    out = []
    while left:
        for name in names:
            if not counts[name]:
                continue
            block = total * counts[name] // left  # the orders that put ``name`` in this seat
            if k < block:
                out.append(name)
                counts[name] -= 1
                total, left = block, left - 1
                break
            k -= block
    return tuple(out)


# -- playing ---------------------------------------------------------------------------------
def play_game(game: str, options: dict, seats: Sequence[str], seed: int, index: int,
              record: bool = False) -> GameResult:
    """Play game ``index`` of a tournament with seed ``seed``: the agents ``seats`` in seat order."""
    spec = load_all()[game]  # a worker process loads the games (and their agents) here
    state = spec.new_state(derive_seed(seed, index), **spec.resolved(options))
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
                      state.record() if record else None, tuple(int(getattr(a, "fallbacks", 0)) for a in agents),
                      () if stuck else game_winners(state))


def play_batch(game: str, options: dict, lineup: Sequence[str], seed: int, indices: list[int],
               record: bool = False) -> list[GameResult]:
    """Play the games ``indices`` of the line-up (a worker's unit of work), each in its seat order."""
    return [play_game(game, options, seat_order(lineup, k), seed, k, record) for k in indices]


def _play_batch_args(args: tuple) -> list[GameResult]:
    return play_batch(*args)


# -- the runner --------------------------------------------------------------------------------
@dataclass
class TournamentResult:
    """All games of a tournament, in game order, and the statistics computed from them.

    ``orders`` is the number of distinct seat orders of the line-up; ``requested``
    the number of games asked for (None: as many as played), fewer were played
    when the run stopped early (``partial`` in the summary). ``rules``: the rules the
    games were played under (:func:`rules_in_force`; None when not known).
    """

    game: str
    options: dict
    lineup: list[str]
    seed: int
    games: list[GameResult]
    orders: int
    workers: int = 1
    cluster: str | None = None
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    requested: int | None = None
    rules: Any = None

    def summary(self) -> dict[str, Any]:
        """The statistics as one JSON-ready dict (independent of workers; timing under ``run``)."""
        n = len(self.games)
        P = len(self.lineup)
        names = list(dict.fromkeys(self.lineup))
        held = {a: 0 for a in names}
        wins = {a: 0 for a in names}  # games won, alone or shared
        draws = {a: 0 for a in names}  # games nobody won
        share = {a: 0.0 for a in names}  # 1/k of each game won with k winners
        score = {a: 0.0 for a in names}
        fallbacks = {a: 0 for a in names}
        seat_held = {a: [0] * P for a in names}
        seat_wins = {a: [0] * P for a in names}
        seat_draws = {a: [0] * P for a in names}
        seat_share = {a: [0.0] * P for a in names}
        seat_total = [0] * P
        seat_share_total = [0.0] * P
        lengths = []
        no_winner = unfinished = 0
        for r in self.games:
            lengths.append(r.length)
            if not r.finished:
                unfinished += 1
            won = r.winning_seats()
            if not won:
                no_winner += 1
            for p, a in enumerate(r.seats):
                part = 1 / len(won) if p in won else 0.0
                held[a] += 1
                seat_held[a][p] += 1
                score[a] += r.scores[p]
                share[a] += part
                seat_share[a][p] += part
                seat_share_total[p] += part
                if p in won:
                    wins[a] += 1
                    seat_wins[a][p] += 1
                    seat_total[p] += 1
                elif not won:
                    draws[a] += 1
                    seat_draws[a][p] += 1
            for a, k in zip(r.seats, r.fallbacks):
                fallbacks[a] += k
        results = {}
        for a in names:
            k = held[a]
            results[a] = {
                "wins": wins[a],
                "draws": draws[a],
                "losses": k - wins[a] - draws[a],
                "share": share[a],
                "seats_held": k,
                "win_rate": wins[a] / k if k else 0.0,
                "ci95": list(wilson(wins[a], k)),
                "share_rate": share[a] / k if k else 0.0,
                "mean_score": score[a] / k if k else 0.0,
                "per_seat": [
                    {"seat": p, "games": seat_held[a][p], "wins": seat_wins[a][p], "draws": seat_draws[a][p],
                     "losses": seat_held[a][p] - seat_wins[a][p] - seat_draws[a][p], "share": seat_share[a][p],
                     "win_rate": seat_wins[a][p] / seat_held[a][p] if seat_held[a][p] else None}
                    for p in range(P)
                ],
                "fallbacks": fallbacks[a],
            }
        seats: list[dict[str, Any]] = [
            {"seat": p, "wins": seat_total[p], "share": seat_share_total[p],
             "win_rate": seat_total[p] / n if n else 0.0, "ci95": list(wilson(seat_total[p], n))} for p in range(P)]
        rates = [s["win_rate"] for s in seats]
        played = Counter(r.index % self.orders for r in self.games)  # game k plays the (k mod m)-th order
        requested = n if self.requested is None else self.requested
        return {
            "game": self.game,
            "options": self.options,
            "rules": self.rules,
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
            "counts": dict(COUNTS),
            "unfinished": unfinished,
            "seat_orders": self.orders,
            "balanced": n == 0 or (len(played) == self.orders and len(set(played.values())) == 1),
            "partial": n < requested,
            "games_requested": requested,
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


def rules_in_force(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The rules the games of ``game`` are played under with ``options``, as the game's records write their
    ``"rules"`` (a fresh game's record): a preset name as ``{"preset": name}``, ``{}`` when the record has none
    (the game's defaults). What a tournament reports as ``rules``: Go Fish's options that differ from the default
    rules (``{"ask_void": "forbid", "four": "some", "win_after_ask": true}`` for geraschenko), quartets' preset
    and options, Quarto's ``{"squares": true}``."""
    spec = load_all()[game]
    state = spec.new_state(0, **spec.resolved(options))
    record = getattr(state, "record", None)
    data = record() if callable(record) else None
    rules = data.get("rules") if isinstance(data, Mapping) else None
    if isinstance(rules, str):
        return {"preset": rules}
    return dict(rules) if isinstance(rules, Mapping) else {}


def check_lineup(game: str, lineup: Sequence[str], options: dict) -> None:
    """Raise :class:`TournamentError` unless the game and agents exist, the options are the game's (types
    and choices of its metadata; the game checks its own limits as it makes the first state), every agent
    accepts them (an agent's ``refuses`` hook) and the line-up fills the table."""
    load_all()
    if game not in GAMES:
        raise TournamentError(f"unknown game {game!r} (known: {', '.join(sorted(GAMES))})")
    spec = GAMES[game]
    for name in lineup:
        if name not in spec.agents:
            raise TournamentError(f"unknown agent {name!r} for {game} (known: {', '.join(sorted(spec.agents))})")
    try:
        spec.check_options(options, bounds=False)
    except QuaternityError as err:
        raise TournamentError(str(err)) from None
    for name in dict.fromkeys(lineup):
        reason = spec.refusal(name, options)
        if reason:
            raise TournamentError(f"agent {name!r}: {reason}")
    try:
        state = spec.new_state(0, **spec.resolved(options))
    except QuaternityError as err:
        raise TournamentError(str(err)) from None
    except Exception as err:  # a value the game did not expect: still the options' fault, not a bug of ours
        raise TournamentError(f"the options of {game} are refused: {type(err).__name__}: {err}") from None
    if state.num_players != len(lineup):
        n, seats = len(lineup), state.num_players
        raise TournamentError(f"the line-up has {n} agent{'' if n == 1 else 's'} for {seats} "
                              f"seat{'' if seats == 1 else 's'}")


class _Run:
    """The games of one run as they come in (in any order), their records, and the result so far."""

    def __init__(self, game: str, options: dict, lineup: list[str], seed: int, games: int,
                 orders: int, workers: int, folder: Path | None,
                 progress: Callable[[int, int], None] | None):
        self.head = (game, options, lineup, seed)
        self.requested = games
        self.orders = orders
        self.workers = workers
        self.folder = folder
        self.progress = progress
        self.results: list[GameResult | None] = [None] * games
        self.rules = rules_in_force(game, options)  # once, before any game: the options are checked already
        self.done = 0
        self.cluster: str | None = None
        self.start = time.monotonic()

    def take(self, batch: list[GameResult]) -> None:
        """Keep finished games; a game is counted once its record (when asked for) is written."""
        for r in batch:
            if self.folder is not None:
                path = self.folder / f"game-{r.index:06d}.json"
                try:
                    write_atomic(path, json.dumps(r.record) + "\n")
                except OSError as err:
                    raise TournamentInterrupted(f"records: cannot write {path} ({err.strerror or err})",
                                                "records") from None
                r.record = None
            self.results[r.index] = r
            self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.requested)

    def result(self) -> TournamentResult:
        game, options, lineup, seed = self.head
        return TournamentResult(game, options, lineup, seed, [r for r in self.results if r is not None],
                                self.orders, workers=self.workers, cluster=self.cluster,
                                seconds=time.monotonic() - self.start, requested=self.requested, rules=self.rules)


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
    notice: Callable[[str], None] | None = None,
    cluster_wait: float | None = None,
) -> TournamentResult:
    """Play ``games`` games of ``game`` between the agents of ``lineup`` (one per seat, rotated).

    ``workers`` > 1 plays on local worker processes; ``cluster`` (a Dask scheduler
    address like ``tcp://host:8786``, or a ``distributed.Client``) plays on a Dask
    cluster instead. ``records`` is a folder (made if missing, checked before the
    first game) that receives every game as ``game-000000.json`` (a record
    ``quaternity check`` accepts), written atomically. ``progress(done, total)`` is
    called as batches finish; ``notice(text)`` receives what the run has to say
    (a worker replaced, no Dask worker left). ``cluster_wait``: seconds to wait when
    no Dask worker is left before stopping (None: wait for one).

    Raises :class:`TournamentInterrupted` (with the games finished so far) when the
    run stops early: see its ``cause``.
    """
    options = dict(options or {})
    lineup = list(lineup)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise TournamentError(f"games must be a whole number >= 1, not {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise TournamentError(f"workers must be a whole number >= 1, not {workers!r}")
    if cluster_wait is not None and not (isinstance(cluster_wait, (int, float)) and cluster_wait >= 0):
        raise TournamentError(f"cluster_wait must be a number of seconds >= 0, not {cluster_wait!r}")
    check_lineup(game, lineup, options)
    orders = order_count(lineup)
    folder = None if records is None else _records_folder(records)
    parallel = cluster is not None or workers > 1
    if batch_size is None:
        batch_size = max(1, min(250, games // (8 * (workers if cluster is None else 4)))) if parallel else games
    batches = [list(range(i, min(games, i + batch_size))) for i in range(0, games, batch_size)]
    args = [(game, options, lineup, seed, b, folder is not None) for b in batches]
    run = _Run(game, options, lineup, seed, games, orders, workers, folder, progress)
    try:
        if cluster is not None:
            _run_dask(cluster, args, run, notice, cluster_wait)
        elif workers > 1:
            _run_local(workers, args, run.take, notice)
        else:
            for k in range(games):
                run.take([play_game(game, options, seat_order(lineup, k), seed, k, folder is not None)])
    except TournamentInterrupted as err:
        err.result = run.result()
        raise
    except KeyboardInterrupt:
        raise TournamentInterrupted(f"interrupted after {run.done} of {games} game{'' if games == 1 else 's'}",
                                    "interrupt",
                                    run.result()) from None
    return run.result()


def _records_folder(records: str | os.PathLike) -> Path:
    """The records folder, made if missing; TournamentError unless a new file can be made in it."""
    folder = Path(records)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe_folder(folder)
    except (OSError, ValueError) as err:
        raise TournamentError(f"records: cannot write in {folder} ({getattr(err, 'strerror', None) or err})") from None
    return folder


def _span(indices: list[int]) -> str:
    return f"game {indices[0]}" if len(indices) == 1 else f"games {indices[0]}-{indices[-1]}"


# -- local worker processes --------------------------------------------------------------------
def _work(conn: Any) -> None:
    """A local worker process: play each batch the main process sends, send back its games."""
    # Ctrl-C reaches every process of the terminal: the main process alone decides what it does
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return  # the main process is gone
        try:
            message: tuple = ("ok", play_batch(*task), "")
        except Exception as err:
            message = ("error", err, traceback.format_exc())
        try:
            conn.send(message)
        except (EOFError, OSError):
            return
        except Exception as err:  # an error that cannot be pickled: send its text
            conn.send(("error", TournamentError(f"{type(message[1]).__name__}: {message[1]}"), str(err)))


class _Worker:
    """One local worker process, its end of the pipe, and the batch it plays (None: idle)."""

    def __init__(self, context: Any):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_work, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.batch: int | None = None

    def receive(self) -> tuple | None:
        """The worker's message, or None when it is gone."""
        try:
            return self.conn.recv() if self.conn.poll() else None
        except (EOFError, OSError):
            return None

    def stop(self) -> None:
        """End the process at once (it may be in the middle of a batch) and wait for it."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
            if self.process.is_alive():
                self.process.kill()
        self.process.join()
        self.conn.close()


def _run_local(workers: int, args: list[tuple], take: Callable[[list[GameResult]], None],
               notice: Callable[[str], None] | None) -> None:
    """Play the batches on ``workers`` local processes, one batch each at a time, so that a worker that
    dies is known with its batch: it is replaced and the batch played again, at most MAX_LOSSES times."""
    import multiprocessing
    from multiprocessing.connection import wait

    # workers start from a clean process, never a fork of this one (which may run threads: a progress bar)
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    todo = deque(range(len(args)))
    losses = [0] * len(args)
    pool: list[_Worker] = []
    try:
        while todo or any(w.batch is not None for w in pool):
            while len(pool) < min(workers, len(todo) + sum(w.batch is not None for w in pool)):
                pool.append(_Worker(context))
            for w in pool:
                if w.batch is None and todo:
                    w.batch = todo.popleft()
                    try:
                        w.conn.send(args[w.batch])
                    except OSError:  # gone already: its sentinel says so below; the batch never started
                        todo.appendleft(w.batch)
                        w.batch = None
            ready = wait([w.conn for w in pool] + [w.process.sentinel for w in pool])
            for w in list(pool):
                if w.conn not in ready and w.process.sentinel not in ready:
                    continue
                message = w.receive()
                if message is not None:
                    kind, payload, text = message
                    if kind == "error":
                        payload.add_note(f"in a worker process:\n{text}")
                        raise payload
                    w.batch = None
                    take(payload)
                    continue
                pool.remove(w)
                w.stop()
                if w.batch is None:
                    continue
                losses[w.batch] += 1
                span = _span(args[w.batch][4])
                if losses[w.batch] >= MAX_LOSSES:
                    raise TournamentInterrupted(
                        f"the {span} ended their worker process {MAX_LOSSES} times (last exit code "
                        f"{w.process.exitcode}); stopped: this is a bug, please report it", "lost")
                todo.appendleft(w.batch)
                if notice is not None:
                    notice(f"a worker process ended (exit code {w.process.exitcode}) while playing the {span}; "
                           "another one plays them again")
    finally:
        for w in pool:
            w.stop()


# -- Dask ---------------------------------------------------------------------------------------
def _run_dask(cluster: Any, args: list[tuple], run: _Run, notice: Callable[[str], None] | None,
              cluster_wait: float | None) -> None:
    """Play the batches on a Dask cluster (the optional extra ``[cluster]``); Dask replaces lost workers.

    When no batch has finished for :data:`CLUSTER_CHECK_SECONDS`, the workers are looked
    for: none left is said through ``notice`` (and again when one is back), and stops
    the run after ``cluster_wait`` seconds (None: never).
    """
    from concurrent.futures import CancelledError

    from .cluster import ClusterError, connect

    try:
        client, own = connect(cluster)
    except ClusterError as err:
        raise TournamentError(str(err)) from None
    from dask.distributed import as_completed
    futures: list = []
    try:
        run.cluster = address = str(client.scheduler.address)
        futures = client.map(_play_batch_args, args, pure=False)
        pending = as_completed(futures)
        quiet_since = time.monotonic()
        gone_since: float | None = None
        while not pending.is_empty():
            if pending.has_ready():
                for fut in pending.next_batch(block=False):
                    try:
                        batch = fut.result()
                    except CancelledError:
                        raise TournamentInterrupted(f"the Dask scheduler at {address} cancelled the games "
                                                    "(lost or restarted)", "cluster") from None
                    run.take(batch)
                quiet_since = time.monotonic()
                if gone_since is not None:
                    gone_since = _say_back(address, notice)
                continue
            time.sleep(0.05)
            now = time.monotonic()
            if now - quiet_since < CLUSTER_CHECK_SECONDS:
                continue
            quiet_since = now
            if _dask_workers(client):
                if gone_since is not None:
                    gone_since = _say_back(address, notice)
                continue
            if gone_since is None:
                gone_since = now
                if notice is not None:
                    notice(f"no Dask worker is connected to {address}: waiting for one"
                           + (f" for up to {cluster_wait:g} s" if cluster_wait is not None else "")
                           + f" ({run.done} of {run.requested} games played; Ctrl-C stops with those)")
            if cluster_wait is not None and now - gone_since >= cluster_wait:
                raise TournamentInterrupted(f"no Dask worker connected to {address} for {cluster_wait:g} s",
                                            "cluster")
    finally:
        left = [f for f in futures if not f.done()]
        try:
            if left:
                client.cancel(left)
        finally:
            if own:
                client.close()


def _say_back(address: str, notice: Callable[[str], None] | None) -> float | None:
    """Say that a worker is back (after saying that none was left); None: the time since none was left."""
    if notice is not None:
        notice(f"a Dask worker is connected to {address} again: playing on")
    return None


def _dask_workers(client: Any) -> int:
    """The number of workers the scheduler knows (0 when it cannot be asked)."""
    try:
        return len(client.nthreads())
    except Exception:  # the scheduler cannot be reached: no worker either
        return 0


# -- pictures ---------------------------------------------------------------------------------
def plot_results(summary: dict, path: str | os.PathLike, title: str | None = None) -> None:
    """Draw each agent's win rate (games won, alone or shared) with its 95% Wilson interval (matplotlib, the
    optional extra ``[plot]``), written atomically; the format is the file's suffix (.png, .svg, ...)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise TournamentError("--plot needs matplotlib: pip install 'quaternity-cp[plot]'") from None
    names = list(summary["results"])
    rates = [summary["results"][a]["win_rate"] for a in names]
    low = [max(0.0, r - summary["results"][a]["ci95"][0]) for a, r in zip(names, rates)]
    high = [max(0.0, summary["results"][a]["ci95"][1] - r) for a, r in zip(names, rates)]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.4 * len(names) + 1), 3.6))
    try:
        ax.bar(range(len(names)), rates, yerr=[low, high], capsize=6, color="#4c72b0")
        ax.set_xticks(range(len(names)), names)
        ax.set_ylabel("games won, alone or shared\n(95% Wilson interval)")
        ax.set_ylim(0, 1)
        fair = 1 / len(summary["lineup"])
        ax.axhline(fair, color="grey", linestyle=":", linewidth=1)
        ax.set_title(title or f"{summary['game']}: {summary['games']} games, seed {summary['seed']}")
        fig.tight_layout()
        suffix = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=suffix or None)
    finally:
        plt.close(fig)


__all__ = ["run_tournament", "play_game", "play_batch", "seat_orders", "seat_order", "order_count", "wilson",
           "plot_results", "game_winners", "COUNTS",
           "TournamentResult", "GameResult", "TournamentError", "TournamentInterrupted", "check_lineup", "rules_in_force",
           "MAX_LOSSES", "CLUSTER_CHECK_SECONDS"]
