"""The quartet goal: can P, on turn, get a set claimed for it before its turn ends?

P asks; the asked player picks any legal answer. A branch succeeds when a move
(an answer to P's question, or P's declaration) claims a set for P; it fails
when the game is over or the turn is no longer P's alone after the move (a no,
or a hand-over that leaves P out or shares the turn: a shared turn is a free
choice that, as everywhere in the solver, goes against the goal player).

This game cannot cycle: while P keeps the turn without claiming, every move
either is a yes that gives P one more card or claims a set for another seat (a
no keeps the turn with P only through the fallback, after claims emptied the
asked player's hand), and P's hand only shrinks by a claim of its own. So the
number of sets in play never grows and P's hand grows whenever it stays the
same: the search is a plain AND-OR search over a finite acyclic graph.

``d(node)`` is the least number of P's questions that forces a claim (0 when P
can declare a set; ``INF`` when P cannot force one at all). The search asks
"is d <= k?" with iterative deepening on k; a transposition table keyed by the
canonical key keeps, per position, a proven lower bound (d > k failed) and a
proven upper bound (d <= k succeeded). A failure that never met the budget
yields the bound ``INF`` (impossible at any depth), which ends the deepening.
"""

from __future__ import annotations

import time

from ...budget import Budget
from ..game import Declaration
from ..position import State
from .core import INF, Context, Node, ProgressFn

SUCCESS, FAIL, CONTINUE = "success", "fail", "continue"


class QuartetSearch:
    """The search of one quartet goal: ``player``'s, within ``budget`` (its positions are those stored)."""

    def __init__(self, ctx: Context, player: int, *, budget: Budget | None = None,
                 progress: ProgressFn | None = None, every: float = 0.5):
        self.budget = budget if budget is not None else Budget()
        self.ctx = ctx
        self.player = player
        self.tt: dict[tuple, list[int]] = {}  # key -> [lower bound, upper bound] on d
        self.expanded = 0
        self.progress = progress
        self.every = every
        self.start = self.last = time.monotonic()
        self.iteration = 0

    # -- outcome of a completed move ---------------------------------------------
    def classify(self, state: State) -> str:
        P = self.player
        if any(p == P for _, p in state.last_claims):
            return SUCCESS
        if state.over or state.turn != (P,):
            return FAIL
        return CONTINUE

    # -- move ordering --------------------------------------------------------------
    def ordered(self, node: Node) -> list:
        """P's moves, most promising first: declarations; questions the target must answer yes;
        questions it may answer yes; cards of the sets where P holds most."""
        moves = self.ctx.moves(node)
        if node.state.pending is not None:
            return sorted(moves, key=lambda m: m.answer)  # a no first: it usually ends the turn
        c = node.state.constraints
        a = node.analysis
        P = self.player
        S = c.set_size

        def score(m):
            if isinstance(m, Declaration):
                return (-1, 0, 0)
            owners = a.owners[m.card]
            s = m.card // S
            held = sum(1 for card in c.cards_of(s) if a.owners[card] == 1 << P)
            yes = 0 if owners == 1 << m.target else 1 if owners >> m.target & 1 else 2
            return (yes, -max(held, c.lo[P][s]), -c.hi[P][s])

        return sorted(moves, key=score)

    # -- search ---------------------------------------------------------------------
    def _tick(self) -> None:
        self.expanded += 1
        self.budget.check_time()
        if self.progress is not None and self.expanded % 16 == 0:
            now = time.monotonic()
            if self.progress is not None and now - self.last >= self.every:
                self.last = now
                self.progress({"positions": len(self.tt), "expanded": self.expanded, "depth": self.iteration,
                               "seconds": now - self.start, "engine_calls": self.ctx.engine.calls})

    def search(self, node: Node, k: int) -> tuple[bool, int]:
        """Whether d(node) <= k; with a proven bound: d when true (<= k), a lower bound (> k) when false."""
        entry = self.tt.get(node.key)
        if entry is None:
            self.budget.check_positions(len(self.tt))  # the positions stored never exceed the limit
            entry = self.tt[node.key] = [0, INF]
        else:
            if entry[1] <= k:
                return True, entry[1]
            if entry[0] > k:
                return False, entry[0]
        self._tick()
        ctx = self.ctx
        if node.state.pending is not None:
            worst = 0
            for move in self.ordered(node):
                ok, b = self.after(ctx.play(node.state, move), k)
                if not ok:
                    entry[0] = max(entry[0], b)
                    return False, b
                worst = max(worst, b)
            entry[1] = min(entry[1], worst)
            return True, worst
        best = INF
        for move in self.ordered(node):
            if isinstance(move, Declaration):
                entry[1] = 0
                return True, 0
            if k < 1:
                best = min(best, 1)
                continue
            child = ctx.play(node.state, move)
            if child.pending is None:  # a question whose answer was forced
                ok, b = self.after(child, k - 1)
            else:
                ok, b = self.search(ctx.describe(child), k - 1)
            if ok:
                entry[1] = min(entry[1], 1 + b)
                return True, 1 + b
            best = min(best, 1 + b if b < INF else INF)
        entry[0] = max(entry[0], best)
        return False, best

    def child_ok(self, state: State, move, k: int) -> bool:
        """Whether P's question ``move`` forces a claim with ``k`` more questions."""
        child = self.ctx.play(state, move)
        if child.pending is None:
            return self.after(child, k)[0]
        return self.search(self.ctx.describe(child), k)[0]

    def after(self, state: State, k: int) -> tuple[bool, int]:
        """Whether the position after a completed move forces a claim with ``k`` more questions (as
        :meth:`search`, a claim made by the move itself counting as done)."""
        cls = self.classify(state)
        if cls == SUCCESS:
            return True, 0
        if cls == FAIL:
            return False, INF
        return self.search(self.ctx.describe(state), k)

    def deepen(self, root: Node, limit: int | None) -> tuple[bool, int]:
        """Iterative deepening: (True, least k) or (False, proven lower bound, INF if never)."""
        k = 0
        while True:
            self.iteration = k
            ok, b = self.search(root, k)
            if ok:
                return True, b
            if b >= INF or (limit is not None and b > limit):
                return False, b
            k = max(k + 1, b)
