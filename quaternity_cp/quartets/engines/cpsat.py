"""The CP-SAT engine: the authority every other engine is checked against.

One Boolean ``x[c, p]`` per card in play and seat in its domain; exactly one
owner per card; hand sizes and per-set bounds are linear (cardinality)
constraints. Possible owners and quartets are found with few solves: every
(card, seat) pair and every (set, seat) quartet seen in any solution is
recorded, then CP-SAT is asked for a solution showing something not seen yet,
until it proves none exists. One worker and a fixed seed keep runs reproducible.

OR-Tools (with numpy and pandas, about half a second) is imported on the first
solve, not with this module: the other engines and the command's start-up do
not pay for it.

Ctrl-C: every solve goes through :func:`run_solve`. OR-Tools would catch SIGINT
itself during a solve and leave the default handler behind (after which Ctrl-C
kills the process with nothing printed); it is told not to
(``catch_sigint_signal``), and Python's own handler is put back after every
solve in any case. A solve runs in the calling thread for at most
:data:`DIRECT_SECONDS` (Python's handler runs as soon as it returns); one that
needs longer runs again in a worker thread, the calling thread waiting for it in
short steps, so that Ctrl-C (KeyboardInterrupt) stops it with ``stop_search``
within a fraction of a second.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from typing import TYPE_CHECKING, Any, Iterator

from ..constraints import Constraints, bits
from .base import Analysis, infeasible_analysis, quartet_candidates
from .matching import matching_feasible

if TYPE_CHECKING:  # pragma: no cover
    from ortools.sat.python import cp_model


#: a solve runs in the calling thread (no thread to start) for at most this long; past it, again in a worker
#: thread that Ctrl-C can stop (the engine's solves take milliseconds)
DIRECT_SECONDS = 0.5
#: how often the calling thread looks up from waiting for a solve in a worker thread
_WAIT_STEP = 0.05


def run_solve(solver: "cp_model.CpSolver", model: "cp_model.CpModel", seconds: float = math.inf,
              direct_seconds: float = DIRECT_SECONDS) -> Any:
    """``solver.solve(model)`` within ``seconds``: its status, stoppable by Ctrl-C, leaving the SIGINT handler
    as it was.

    The solver's ``max_time_in_seconds`` is this function's (``seconds`` is the limit). A KeyboardInterrupt
    (Ctrl-C) during the solve stops it and goes on.
    """
    from ...imports import cp_model as _load_cp_model
    _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
    from ortools.sat.python import cp_model

    params = solver.parameters
    if params.catch_sigint_signal:
        params.catch_sigint_signal = False  # OR-Tools would install its own handler and leave SIG_DFL behind
    if threading.current_thread() is not threading.main_thread():  # no Ctrl-C reaches this thread
        params.max_time_in_seconds = seconds
        return solver.solve(model)
    handler = signal.getsignal(signal.SIGINT)
    start = time.perf_counter()
    try:
        if direct_seconds > 0:
            first = min(seconds, direct_seconds)
            if params.max_time_in_seconds != first:
                params.max_time_in_seconds = first
            status = solver.solve(model)
            if status != cp_model.UNKNOWN or seconds <= direct_seconds:
                return status
        remaining = seconds - (time.perf_counter() - start)
        if remaining <= 0:
            return cp_model.UNKNOWN
        params.max_time_in_seconds = remaining
        return _solve_in_worker(solver, model)
    finally:
        if handler is not None and signal.getsignal(signal.SIGINT) is handler:
            signal.signal(signal.SIGINT, handler)  # the handler in the operating system is Python's again


def _solve_in_worker(solver: "cp_model.CpSolver", model: "cp_model.CpModel") -> Any:
    """The solve in a worker thread; the calling thread waits in short steps, so that a KeyboardInterrupt
    raised there stops the solve (``stop_search``, repeated until the worker has finished) and goes on."""
    done = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["status"] = solver.solve(model)
        except BaseException as err:  # noqa: BLE001 - handed to the calling thread
            box["error"] = err
        finally:
            done.set()

    worker = threading.Thread(target=work, name="cp-sat solve", daemon=True)
    worker.start()
    try:
        while not done.wait(_WAIT_STEP):
            pass
    except BaseException:
        while not done.is_set():  # stop_search before the solve has started does nothing: again until done
            solver.stop_search()
            done.wait(_WAIT_STEP)
        raise
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["status"]


class CpSatEngine:
    """Exact analysis with OR-Tools CP-SAT (after the matching pre-filter)."""

    name = "cpsat"

    def __init__(self, seed: int = 0, prefilter: bool = True) -> None:
        self.seed = seed
        self.prefilter = prefilter
        self.solves = 0  # solver calls made, for benchmarks and tests

    # -- model ---------------------------------------------------------------
    def _model(self, c: Constraints) -> "tuple[cp_model.CpModel, dict[tuple[int, int], cp_model.IntVar]]":
        from ...imports import cp_model as _load_cp_model
        _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        x: dict[tuple[int, int], cp_model.IntVar] = {}
        S = c.set_size
        full = (1 << c.players) - 1
        per_player: list[list[cp_model.IntVar]] = [[] for _ in range(c.players)]
        for s in c.sets_in_play:
            per_set: list[list[cp_model.IntVar]] = [[] for _ in range(c.players)]
            for card in range(s * S, (s + 1) * S):
                row = []
                for p in bits(c.domains[card] & full):
                    v = model.new_bool_var(f"x{card}_{p}")
                    x[card, p] = v
                    row.append(v)
                    per_set[p].append(v)
                    per_player[p].append(v)
                model.add_exactly_one(row)
            for p in range(c.players):
                lo, hi = c.lo[p][s], min(c.hi[p][s], S)
                if lo > 0 or hi < len(per_set[p]):
                    model.add_linear_constraint(sum(per_set[p]), lo, hi)
        for p in range(c.players):
            model.add(cp_model.LinearExpr.sum(per_player[p]) == c.hands[p])
        return model, x

    def _solver(self) -> "cp_model.CpSolver":
        from ...imports import cp_model as _load_cp_model
        _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = self.seed
        # The models are small and tight; presolve, LP relaxation and symmetry
        # detection cost more than they save (measured: about 4x faster without).
        solver.parameters.cp_model_presolve = False
        solver.parameters.linearization_level = 0
        solver.parameters.symmetry_level = 0
        return solver

    def _precheck(self, c: Constraints) -> bool:
        if c.obviously_infeasible():
            return False
        if self.prefilter and not matching_feasible(c):
            return False
        return True

    # -- interface -------------------------------------------------------------
    def feasible(self, c: Constraints) -> bool:
        if not self._precheck(c):
            return False
        if not c.sets_in_play:
            return True
        model, _ = self._model(c)
        self.solves += 1
        status = run_solve(self._solver(), model)
        from ...imports import cp_model as _load_cp_model
        _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
        from ortools.sat.python import cp_model

        if status == cp_model.UNKNOWN:  # pragma: no cover - without a time limit, never
            raise RuntimeError("CP-SAT did not decide a solve without a time limit")
        return status in (cp_model.OPTIMAL, cp_model.FEASIBLE)

    def analyze(self, c: Constraints) -> Analysis:
        if not self._precheck(c):
            return infeasible_analysis(c)
        if not c.sets_in_play:
            return Analysis(True, (0,) * len(c.domains), (0,) * c.sets)
        model, x = self._model(c)
        from ...imports import cp_model as _load_cp_model
        _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
        from ortools.sat.python import cp_model

        S = c.set_size
        # quartet indicators: q -> all cards of s with p
        q: dict[tuple[int, int], cp_model.IntVar] = {}
        for p, s in quartet_candidates(c):
            v = model.new_bool_var(f"q{s}_{p}")
            for card in range(s * S, (s + 1) * S):
                model.add_implication(v, x[card, p])
            q[p, s] = v
        owners = [0] * len(c.domains)
        quartets = [0] * c.sets
        unseen_x = dict(x)
        unseen_q = dict(q)
        solver = self._solver()
        round_ = 0
        while True:
            if round_:
                if not unseen_x and not unseen_q:
                    break
                gate = model.new_bool_var(f"round{round_}")
                model.add_bool_or(list(unseen_x.values()) + list(unseen_q.values())).only_enforce_if(gate)
                model.clear_assumptions()
                model.add_assumption(gate)
            round_ += 1
            self.solves += 1
            status = run_solve(solver, model)
            if status == cp_model.UNKNOWN:  # pragma: no cover - without a time limit, never
                raise RuntimeError("CP-SAT did not decide a solve without a time limit")
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                if round_ == 1:
                    return infeasible_analysis(c)
                break
            holder = {card: p for (card, p), v in x.items() if solver.boolean_value(v)}
            for card, p in _swap_witnesses(c, holder):
                if not owners[card] >> p & 1:
                    owners[card] |= 1 << p
                    unseen_x.pop((card, p), None)
            for p, s in _quartet_witnesses(c, holder, list(unseen_q)):
                quartets[s] |= 1 << p
                unseen_q.pop((p, s), None)
        return Analysis(True, tuple(owners), tuple(quartets))


def _counts(c: Constraints, holder: dict[int, int]) -> dict[tuple[int, int], int]:
    S = c.set_size
    count: dict[tuple[int, int], int] = {}
    for card, p in holder.items():
        count[p, card // S] = count.get((p, card // S), 0) + 1
    return count


def _swap_witnesses(c: Constraints, holder: dict[int, int]) -> Iterator[tuple[int, int]]:
    """(card, seat) pairs of the deal and of every deal one swap of two cards away.

    Swapping cards of different seats keeps the hand sizes; it is a deal when both
    cards may go to their new seats and the per-set counts stay in bounds. These
    cheap witnesses save solver calls; they never claim anything without a deal.
    """
    yield from holder.items()
    S = c.set_size
    count = _counts(c, holder)
    cards = sorted(holder)
    doms, lo, hi = c.domains, c.lo, c.hi
    for i, c1 in enumerate(cards):
        p1, s1 = holder[c1], c1 // S
        d1 = doms[c1]
        for c2 in cards[i + 1:]:
            p2 = holder[c2]
            if p2 == p1 or not d1 >> p2 & 1 or not doms[c2] >> p1 & 1:
                continue
            s2 = c2 // S
            if s1 != s2 and (
                count[p1, s1] - 1 < lo[p1][s1] or count.get((p1, s2), 0) + 1 > hi[p1][s2]
                or count[p2, s2] - 1 < lo[p2][s2] or count.get((p2, s1), 0) + 1 > hi[p2][s1]
            ):
                continue
            yield c1, p2
            yield c2, p1


def _quartet_witnesses(
    c: Constraints, holder: dict[int, int], wanted: list[tuple[int, int]]
) -> Iterator[tuple[int, int]]:
    """(seat, set) quartets shown by the deal, or by a greedy repair of it.

    The repair moves every card of s to p and hands each loser back as many of
    p's other cards as it lost, respecting domains and bounds; when the greedy
    choice fails nothing is claimed and the solver decides.
    """
    S = c.set_size
    count = _counts(c, holder)
    for p, s in wanted:
        lost: dict[int, int] = {}
        for card in c.cards_of(s):
            q = holder[card]
            if q != p:
                lost[q] = lost.get(q, 0) + 1
        if not lost:
            yield p, s
            continue
        taken: dict[tuple[int, int], int] = {}
        ok = True
        spare = [card for card, q in holder.items() if q == p and card // S != s]
        used: set[int] = set()
        for q, m in lost.items():
            if count[q, s] - m < c.lo[q][s]:
                ok = False
                break
            for card in spare:
                if m == 0:
                    break
                t = card // S
                if card in used or not c.domains[card] >> q & 1:
                    continue
                if count[p, t] - taken.get((p, t), 0) - 1 < c.lo[p][t]:
                    continue
                if count.get((q, t), 0) + taken.get((q, t), 0) + 1 > c.hi[q][t]:
                    continue
                used.add(card)
                taken[p, t] = taken.get((p, t), 0) + 1
                taken[q, t] = taken.get((q, t), 0) + 1
                m -= 1
            if m:
                ok = False
                break
        if ok:
            yield p, s
