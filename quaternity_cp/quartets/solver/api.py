"""The solver's entry point: :func:`solve` and its :class:`SolveResult`."""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ...budget import INTERRUPTED, SOLVED, Budget, LimitError, Limits, SearchResult, Status, Stopped
from ..engines import Engine
from ...errors import QuaternityError
from ..game import Declaration, Game, Question
from ..position import Position, State
from ..rules import Rules
from .core import INF, Context, Node, ProgressFn
from .graph import DOOMED, GameGraph
from .moves import Choice, move_text
from .quartet import FAIL, SUCCESS, QuartetSearch

if TYPE_CHECKING:
    from .kernel import KNode

GOALS = ("quartet", "win", "value")
FREE_CHOICE = "adversary"  # who picks among seats sharing the turn: the goal player's opponents


def _plies(n: object) -> str:
    """A number of plies in words: "1 ply", "3 plies"."""
    return f"{n} ply" if n == 1 else f"{n} plies"


class SolveError(QuaternityError, ValueError):
    """A goal that does not apply to the position (wrong player count, player not on turn, ...)."""


@dataclass
class SolveResult(SearchResult):
    """The outcome of a solve (a :class:`~quaternity_cp.budget.SearchResult`).

    ``result``: for ``quartet`` and ``win`` True or False; for ``value`` ``"win"``,
    ``"loss"`` or ``"draw"`` (seen from ``player``); None when unproven.
    ``status``: ``"solved"``, ``"limit"`` (``max_positions`` reached), ``"time"``
    (``max_seconds`` passed) or ``"interrupted"`` (Ctrl-C). ``strategy`` is the winning side's strategy tree,
    ``defense`` the refutation of a no, ``line`` a drawing line. ``tree_stopped``: None, or what cut
    that tree short once the result was proven (``"time"``, ``"limit"``, ``"interrupted"``; the result
    stands, the tree is partial: its cut branches say ``"stopped"``).
    """

    goal: str
    player: int
    result: bool | str | None
    status: Status
    game: Game = field(repr=False)
    rules: Rules = field(repr=False)
    engine: str = ""
    positions: int = 0  # distinct positions (canonical keys) stored
    expanded: int = 0  # positions whose moves were generated
    engine_calls: int = 0
    seconds: float = 0.0
    max_questions: int | None = None
    questions: int | None = None  # quartet: least questions that force a claim (yes), or a lower bound (no)
    plies: int | None = None  # win/value: the forced win takes at most this many moves (see solve)
    winner: int | None = None  # value: the seat that forces a win, if any
    strategy: dict | None = None
    defense: dict | None = None
    line: dict | None = None
    free_choice: str = FREE_CHOICE
    tree_stopped: str | None = None

    def outcome(self) -> str:
        """The proven result in one word: yes, no (quartet, win), win, loss or draw (value)."""
        if isinstance(self.result, bool):
            return "yes" if self.result else "no"
        return str(self.result)

    def summary(self) -> str:
        """The verdict in one sentence."""
        g = self.game
        who = g.seat_name(self.player)
        if not self.proven:
            why = {"interrupted": "interrupted", "limit": "position limit reached",
                   "time": "time limit reached"}.get(self.status, self.status)
            return f"unproven ({why})"
        if self.goal == "quartet":
            within = f" within {self.max_questions} question{'s' if self.max_questions != 1 else ''}" \
                if self.max_questions is not None else ""
            if self.result:
                n = self.questions
                how = "by declaring" if n == 0 else f"with at most {n} question{'s' if n != 1 else ''}"
                return f"yes: {who} forces a quartet {how}, whatever the answers"
            more = f" (it needs at least {self.questions})" if self.questions is not None else ""
            return f"no: {who} cannot force a quartet in this turn{within}{more}"
        if self.goal == "win":
            if self.result:
                return f"yes: {who} can force being a winner (in at most {_plies(self.plies)})"
            return f"no: the other players together can stop {who} from winning"
        if self.result == "win":
            return f"win: {who} forces being the only winner (in at most {_plies(self.plies)})"
        if self.result == "loss":
            winner = self.winner
            assert winner is not None  # a loss is the other seat's forced win
            other = g.seat_name(winner)
            return f"loss: {other} forces being the only winner (in at most {_plies(self.plies)})"
        return "draw: neither player can force being the only winner (a tie or a game that never ends)"

    def to_json(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "player": self.player,
            "result": self.result if self.proven else None,
            "verdict": self.verdict,
            "proven": self.proven,
            "status": self.status,
            "summary": self.summary(),
            "max_questions": self.max_questions,
            "questions": self.questions,
            "plies": self.plies,
            "winner": self.winner,
            "strategy": self.strategy,
            "defense": self.defense,
            "line": self.line,
            "tree_stopped": self.tree_stopped,
            "positions": self.positions,
            "expanded": self.expanded,
            "engine_calls": self.engine_calls,
            "seconds": round(self.seconds, 3),
            "engine": self.engine,
            "rules": self.rules.to_dict() | {"name": self.rules.name},
            "free_choice": self.free_choice,
        }


# -- strategy trees ----------------------------------------------------------------
class _Tree:
    """Builds a JSON tree of moves to a depth (in plies), with a cap on its size.

    ``pick(node, data)`` returns the moves to show at a node as (move, data for the
    child); ``end(state)`` returns a dict ending a branch after a completed move, or None.
    The search's ``budget`` still runs (its time is checked at every node and engine
    call): a limit or Ctrl-C cuts the tree short, ``cut`` says which; the branches
    not built say ``"stopped"``.
    """

    def __init__(self, ctx: Context, pick, end, depth: int, budget: Budget, cap: int = 400, stop=None):
        self.ctx, self.pick, self.end, self.depth, self.cap = ctx, pick, end, depth, cap
        self.budget = budget
        self.stop = stop
        self.size = 0
        self.cut: str | None = None

    def build(self, state: State, data, result: SolveResult) -> dict:
        """The tree from ``state``; a cut is noted in ``result.tree_stopped``."""
        tree = self._node(state, data, self.depth)
        if self.cut is not None:
            result.tree_stopped = self.cut
        return tree

    def _stopped(self, err: BaseException) -> dict:
        self.cut = err.reason if isinstance(err, Stopped) else INTERRUPTED
        return {"truncated": True, "stopped": self.cut}

    def _node(self, state: State, data, depth: int) -> dict:
        ctx = self.ctx
        try:
            self.budget.check_time()
            node = ctx.describe(state)
            if node.over:
                return {"end": "over", "winners": list(node.winners), "scores": list(state.scores)}
            if self.stop is not None:
                stopped = self.stop(node)
                if stopped is not None:
                    return stopped
            if depth <= 0 or self.size >= self.cap:
                return {"truncated": True}
            st = node.state
            chosen = self.pick(node, data)
            if not chosen and not ctx.moves(node):
                return {"end": "stuck", "to_move": list(st.turn)}  # no legal move: the game cannot go on
        except (Stopped, KeyboardInterrupt) as err:
            return self._stopped(err)
        out: dict[str, Any] = {"to_move": node.mover if node.mover >= 0 else list(st.turn), "moves": []}
        for move, child_data in chosen:
            if self.cut is not None:  # the moves left are not shown
                out["stopped"] = self.cut
                break
            try:
                child = ctx.play(st, move)
                entry: dict[str, Any] = {"move": move_text(ctx.game, move),
                                         "player": move.seat if isinstance(move, Choice) else node.mover}
                if isinstance(move, Question) and move.answer is not None and st.pending is None:
                    entry["forced_answer"] = True
                if not isinstance(move, Choice) and child.last_claims:
                    entry["claims"] = {ctx.game.set_name(s): p for s, p in child.last_claims}
                end = None if child.pending is not None else self.end(child)
            except (Stopped, KeyboardInterrupt) as err:
                out["stopped"] = self._stopped(err)["stopped"]
                break
            self.size += 1
            entry["next"] = end if end is not None else self._node(child, child_data, depth - 1)
            out["moves"].append(entry)
        return out


def _end_over(state: State):
    return None  # the tree itself reports finished games


def _stop_doomed(graph: GameGraph):
    def stop(node: Node):
        if graph.key_of(node) is DOOMED:
            return {"end": "out of reach", "player": graph.doomed_player, "scores": list(node.state.scores)}
        return None
    return stop


# -- the goals ------------------------------------------------------------------------
def _solve_quartet(ctx: Context, root: Node, player: int, result: SolveResult, *, max_questions, depth,
                   budget: Budget, progress) -> None:
    search = QuartetSearch(ctx, player, budget=budget, progress=progress)
    try:
        ok, bound = search.deepen(root, max_questions)
    finally:
        result.positions = len(search.tt)
        result.expanded = search.expanded
    result.result = ok
    result.questions = bound if bound < INF else None
    result.status = SOLVED

    def end(state: State):
        cls = search.classify(state)
        if cls == SUCCESS:
            return {"end": "quartet", "sets": [ctx.game.set_name(s) for s, p in state.last_claims if p == player]}
        if cls == FAIL:
            return {"end": "turn lost", "turn": list(state.turn), "over": state.over}
        return None

    def after_ok(state: State, k: int) -> bool:
        return search.after(state, k)[0]

    if ok:
        def pick(node: Node, k: int):
            if node.state.pending is not None:
                return [(m, k) for m in search.ordered(node)]
            for m in search.ordered(node):
                if isinstance(m, Declaration):
                    return [(m, k)]
                if k >= 1 and search.child_ok(node.state, m, k - 1):
                    return [(m, k - 1)]
            raise AssertionError("no winning move at a proven node")  # pragma: no cover
        result.strategy = _Tree(ctx, pick, end, depth, budget).build(root.state, bound, result)
    else:
        allowed = max_questions if max_questions is not None else INF

        def pick(node: Node, k: int):
            if node.state.pending is not None:
                for m in search.ordered(node):
                    if not after_ok(ctx.play(node.state, m), k):
                        return [(m, k)]
                raise AssertionError("no defending answer at a refuted node")  # pragma: no cover
            if k < 1:
                return []
            return [(m, k - 1) for m in search.ordered(node)]
        result.defense = _Tree(ctx, pick, end, depth, budget).build(root.state, allowed, result)


def _solve_graph(ctx: Context, root: Node, player: int, goal: str, result: SolveResult, *, depth,
                 budget: Budget, progress, lazy: bool = True) -> None:
    graph = GameGraph(ctx, cannot_win(ctx.rules, player) if goal == "win" else None)
    graph.doomed_player = player
    if goal == "win":
        try:
            if lazy:
                rid, rank = graph.build_lazy(ctx.search_root(root), player, order=opponent_order(ctx, player),
                                             budget=budget, progress=progress)
            else:  # every reachable position first, then the attractor (the same verdict and plies)
                rid = graph.build(ctx.search_root(root), budget=budget, progress=progress)
                rank = graph.win_ranks(player)
        finally:
            result.positions = len(graph)
            result.expanded = graph.expanded
        result.result = rid in rank
        result.status = SOLVED
        if result.result:
            result.plies = rank[rid]
            result.strategy = _graph_strategy(ctx, graph, rank, {player}, depth, budget).build(root.state, None,
                                                                                               result)
        else:
            result.defense = _graph_defense(ctx, graph, rank, {player}, depth, budget).build(root.state, None,
                                                                                             result)
        return
    try:
        rid = graph.build(ctx.search_root(root), budget=budget, progress=progress)
    finally:
        result.positions = len(graph)
        result.expanded = graph.expanded
    pred = graph.predecessors()
    # value: two players, each side's attractor to "only winner"
    other = 1 - player
    rank_p = graph.attractor([i for i, w in graph.winners.items() if w == (player,)],
                             lambda u: graph.mover[u] == player, pred)
    rank_q = graph.attractor([i for i, w in graph.winners.items() if w == (other,)],
                             lambda u: graph.mover[u] == other, pred)
    result.status = SOLVED
    if rid in rank_p:
        result.result, result.winner, result.plies = "win", player, rank_p[rid]
        tree = _graph_strategy(ctx, graph, rank_p, {player}, depth, budget)
    elif rid in rank_q:
        result.result, result.winner, result.plies = "loss", other, rank_q[rid]
        tree = _graph_strategy(ctx, graph, rank_q, {other}, depth, budget)
    else:
        result.result = "draw"
        result.line = _graph_line(ctx, graph, rank_p, rank_q, player, depth, budget).build(root.state, None, result)
        return
    result.strategy = tree.build(root.state, None, result)


def cannot_win(rules: Rules, player: int) -> Callable[[Node], bool]:
    """Positions where ``player`` can no longer be a winner, whatever happens (pruned for the win goal):
    :func:`cannot_be_winner` of the position's scores and sets left."""
    tie = rules.tie
    memo: dict[tuple, bool] = {}

    def doomed(node: Node) -> bool:
        scores = node.scores
        key = (scores, node.sets_left)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = cannot_be_winner(tie, scores, key[1], player)
        return hit

    return doomed


def cannot_be_winner(tie: str, scores: Sequence[int], sets_left: int, player: int) -> bool:
    """Whether ``player`` can no longer be a winner with these ``scores`` and ``sets_left`` sets unclaimed: even
    with every unclaimed set its score stays below the best other score, or only equals it while a tie does not
    make it a winner (``all-lose``; ``first``: the other reached it earlier; ``random``: the draw may go to the
    other). The tie rule is :func:`quaternity_cp.quartets.outcome.winners`, asked for the player's best end
    against the best other score, the tie settled against the player."""
    from ..outcome import winners as winners_of  # here: only this function of the module is the tie rule's

    best = max([s for q, s in enumerate(scores) if q != player])
    top = scores[player] + sets_left
    # seat 0: the player with every set left; seat 1: the best other, who reached its score first and wins the draw
    return 0 not in winners_of((top, best), tie=tie, reached=(1, 0), tie_break=1)


def _children(ctx: Context, graph: GameGraph, node: Node):
    """The moves explored at ``node`` (after a lazy build, an opponent's other moves are left out)."""
    for m in ctx.moves(node):
        child = ctx.describe(ctx.play(node.state, m))
        j = graph.ids.get(graph.key_of(child))
        if j is not None and j in graph.succ[graph.id_of(node)]:
            yield m, child, j


def opponent_order(ctx: Context, player: int) -> _OpponentOrder:
    """The opponents' moves, those most likely to keep ``player`` from winning first (a lazy build
    explores only the first until the player's attractor needs more): a shared turn to another seat;
    a no to the player's question; a declaration; a question the target must answer yes; a question
    to the player; the rest."""
    return _OpponentOrder(player)


class _OpponentOrder:
    """The order of :func:`opponent_order`, called with a node and its moves, with the ``early`` test
    that :meth:`.graph.GameGraph.build_lazy` looks for."""

    __slots__ = ("player",)

    def __init__(self, player: int):
        self.player = player

    def score(self, node: Node | KNode, m) -> int:
        """The rank of move m at ``node`` (lower first)."""
        player = self.player
        if isinstance(m, Choice):
            return 1 if m.seat == player else 0
        if isinstance(m, Declaration):
            return 0
        q = node.pending
        if q is not None:
            return (0 if not m.answer else 1) if q.asker == player else (0 if m.answer else 1)
        if m.answer is True:
            return 1
        return 2 if m.target == player else 3

    def __call__(self, node: Node, moves: list) -> list:
        score = self.score
        return sorted(moves, key=lambda m: score(node, m))

    def early(self, node: Node | KNode, m) -> bool:
        # moves are generated declarations first (0), then questions (1 at best): a question of
        # score 1 comes before every move generated after it, and a sort keeps the first of equals
        return node.pending is None and not isinstance(m, Choice) and self.score(node, m) <= 1


def _graph_strategy(ctx, graph, rank, side, depth: int, budget: Budget) -> _Tree:
    def pick(node: Node, _):
        if node.mover in side:
            best = min(_children(ctx, graph, node), key=lambda t: rank.get(t[2], INF))
            return [(best[0], None)]
        return [(m, None) for m in ctx.moves(node)]
    return _Tree(ctx, pick, _end_over, depth, budget, stop=_stop_doomed(graph))


def _graph_defense(ctx, graph, rank, side, depth: int, budget: Budget) -> _Tree:
    def pick(node: Node, _):
        if node.mover in side:
            return [(m, None) for m in ctx.moves(node)]
        outside = [(m, j) for m, _, j in _children(ctx, graph, node) if j not in rank]
        # prefer ending the game, then any move that keeps the player out of its attractor
        outside.sort(key=lambda t: graph.mover[t[1]] != -2)
        return [(outside[0][0], None)] if outside else []
    return _Tree(ctx, pick, _end_over, depth, budget, stop=_stop_doomed(graph))


def _graph_line(ctx, graph, rank_p, rank_q, player, depth: int, budget: Budget) -> _Tree:
    def pick(node: Node, _):
        kids = list(_children(ctx, graph, node))
        if not kids:
            return []
        safe = [t for t in kids if t[2] not in rank_p and t[2] not in rank_q]
        if not safe:
            avoid = rank_q if node.mover == player else rank_p
            safe = [t for t in kids if t[2] not in avoid] or kids
        return [(safe[0][0], None)]
    return _Tree(ctx, pick, _end_over, depth, budget)


# -- entry point ------------------------------------------------------------------
def check_goal(position: Position, goal: str = "win", player: int | None = None, *,
               max_questions: int | None = None) -> int:
    """The seat whose ``goal`` :func:`solve` would decide at ``position``: ``player``, or the default
    (the seat on turn; seat 0 when the turn is shared or the game is over). Raises
    :class:`SolveError` when the goal does not apply, as :func:`solve` does before it searches."""
    if goal not in GOALS:
        raise SolveError(f"unknown goal {goal!r} (known: {', '.join(GOALS)})")
    game, rules = position.game, position.rules
    st = position.state
    if player is None:
        player = st.turn[0] if len(st.turn) == 1 else 0
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < game.players:
        raise SolveError(f"unknown player {player!r} (seats are 0..{game.players - 1})")
    if max_questions is not None:
        if goal != "quartet":
            raise SolveError("--max-questions only applies to the quartet goal")
        if isinstance(max_questions, bool) or not isinstance(max_questions, int) or max_questions < 0:
            raise SolveError(f"max_questions must be a whole number >= 0, not {max_questions!r}")
    if goal == "value" and game.players != 2:
        raise SolveError(f"the value goal is for two players, not {game.players}")
    unsupported = [text for text, on in (("dealt = true", rules.dealt), ("empty_hand = ask", rules.empty_hand == "ask"),
                                          ("tie = random", rules.tie == "random" and goal != "quartet")) if on]
    if unsupported:  # classic quartets: hidden information, put-downs, empty askers, drawn winners
        raise SolveError(f"the solver does not handle the rule option{'s' if len(unsupported) > 1 else ''} "
                         f"{', '.join(unsupported)} (for classic quartets see analyze --as and count --as)")
    if goal == "quartet":
        if st.over:
            raise SolveError("the game is over")
        if player not in st.turn:
            raise SolveError(f"the quartet goal needs {game.player_name(player)} on turn")
    return player


def solve(
    position: Position,
    goal: str = "win",
    player: int | None = None,
    *,
    max_questions: int | None = None,
    depth: int = 8,
    limits: Limits | None = None,
    max_positions: int | None = None,
    max_seconds: float | None = None,
    engine: str | Engine | None = None,
    progress: ProgressFn | None = None,
    lazy: bool = True,
) -> SolveResult:
    """Solve ``position`` exactly for ``goal``.

    - ``quartet``: can ``player`` (on turn) force a set claimed for it before its
      turn ends (within ``max_questions`` of its questions), whatever the answers?
    - ``win``: can ``player`` force being a winner (under the rules' tie option)
      against every strategy of all the other players together?
    - ``value`` (two players): ``win`` when ``player`` can force being the only
      winner, ``loss`` when the other can, else ``draw``.

    ``player`` defaults to the seat on turn (seat 0 when the turn is shared or
    the game is over). A shared turn (``handover = fewest``) is a free choice
    made by the goal player's opponents. Illegal moves are never chosen. A line
    that never ends wins for nobody. ``depth`` limits the strategy trees (plies).
    ``plies`` (win, value) is the number of moves within which the win is
    forced, counting a question whose answer is forced as one move with its
    answer; ``questions`` (quartet) is the least number of the player's
    questions that forces a claim (for a no within ``max_questions``: a proven
    lower bound, None when no number of questions does).

    ``limits`` (a :class:`~quaternity_cp.budget.Limits`: ``max_positions``
    distinct positions stored, ``max_seconds``; or those two keywords) and
    Ctrl-C stop the search: the result is then unproven (``status`` says why).
    They run from the first engine call (the position's check) to the last
    (the strategy trees): once the result is proven, they only cut the trees
    short (``tree_stopped`` says why; the result stands).
    ``progress`` is called about twice a second with a dict of counters.
    ``engine`` defaults to :func:`~.core.default_engine_name` (``sets``).
    ``lazy=False`` makes the win goal explore every reachable position before
    deciding (the same verdict, plies and strategy, from more positions), as
    the value goal always does: for measurements and cross-checks.
    """
    player = check_goal(position, goal, player, max_questions=max_questions)
    try:
        limits = Limits.given(limits, max_positions, max_seconds)
    except LimitError as err:
        raise SolveError(str(err)) from None
    if not isinstance(lazy, bool):
        raise SolveError(f"lazy must be True or False, not {lazy!r}")
    game, rules = position.game, position.rules
    st = position.state
    if goal == "quartet" and len(st.turn) > 1:
        st = replace(st, turn=(player,))  # the question is about the player's own turn
    budget = limits.start()
    ctx = Context(game, rules, engine, scores=goal != "quartet")
    ctx.engine.budget = budget  # the time is checked before every engine call, from the first
    result = SolveResult(goal, player, None, INTERRUPTED, game, rules, engine=ctx.engine.name,
                         max_questions=max_questions)
    thresholds = gc.get_threshold()
    gc.set_threshold(1_000_000, 50, 100)  # a solve allocates millions of small objects that live long
    try:
        if not st.over and not ctx.engine.feasible(st.constraints):
            from ...errors import PositionError
            raise PositionError("the position is invalid: no deal is consistent with it")
        root = ctx.describe(st)
        if goal == "quartet":
            _solve_quartet(ctx, root, player, result, max_questions=max_questions, depth=depth,
                           budget=budget, progress=progress)
        else:
            _solve_graph(ctx, root, player, goal, result, depth=depth, budget=budget, progress=progress,
                         lazy=lazy)
    except Stopped as stop:
        result.status = stop.reason
        result.result = None
    except KeyboardInterrupt:
        result.status = INTERRUPTED
        result.result = None
    finally:
        gc.set_threshold(*thresholds)
    result.seconds = budget.elapsed()
    result.engine_calls = ctx.calls
    return result


def start_position(players: int, sets: int, set_size: int, rules: Rules | str | dict | None = None,
                   *, engine: str | Engine | None = None) -> Position:
    """The starting position of a game of P players, N sets of S cards."""
    return Position(Game(players, sets, set_size), rules, engine=engine)
