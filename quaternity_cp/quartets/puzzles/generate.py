"""Puzzles found in seeded games: ``puzzle generate`` (docs/puzzles.md, "Generating").

Game ``u`` of a run with seed X is played through the one game interface
(:mod:`quaternity_cp.registry`: the game ``quartets`` with its registered agents,
``random`` by default), seeded with ``derive_seed(X, u)`` (its agents with
``derive_seed(X, u, seat + 1)``). Its candidate moments are those where one seat
alone is on turn with no open question; each is searched exactly
(:class:`~.search.PuzzleSearch`) and kept when its answer is unique with K in
the range asked for and its answer cannot be read off the grid printed with it
(:func:`read_off_the_grid`; ``allow_grid_answers`` keeps those too). Of a
game's kept moments one becomes a puzzle: drawn with ``derive_seed(X, u, 0)``
or, with a difficulty asked for, the first (most promising first) whose grade
has it. So a game's puzzle depends on X, u and the
options only: the run takes games 0, 1, 2, ... in order (in a process pool of
any size, each game one unit of work) and keeps the first ``count`` puzzles
that are not the same record twice. The same seed and options give the same
files, byte for byte.

Every search has a budget: ``max_positions`` (a moment whose search needs more
is passed over, the same on every machine) and the run's ``max_seconds``
(checked while every search and explanation runs: when it is over the run
stops with :class:`GenerateStopped`, never with different puzzles).
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Hashable

from ...budget import Limits, Stopped
from ..formats import record_from_json
from ..game import Game, Question
from ...registry import derive_seed, load_all
from ..position import Position
from ..state import QuaternityState
from ..rules import PRESETS, Rules
from ..solver import SolveError, check_goal
from .grade import DIFFICULTIES, THRESHOLDS, grade
from .puzzle import PuzzleStopped, answer_json, describe, solve_puzzle
from .search import PUZZLE_GOALS, QUARTET, PuzzleError, PuzzleSearch, TreeTooLarge, parse_first_move

if TYPE_CHECKING:
    from concurrent.futures import Future

#: The most candidate moments of one game given a full grade while looking for a difficulty.
GRADE_TRIES = 3
#: The default range of K: quartet (questions) and win (plies).
DEFAULT_QUESTIONS = {"quartet": (1, 4), "win": (1, 6)}
#: The default positions one search may store: the quartet search of one turn; the win goal's graph of
#: the rest of the game (the moments of a game are searched latest first, and the first one past the
#: limit ends the game's search: earlier moments have more game left).
DEFAULT_POSITIONS = {"quartet": 200_000, "win": 1_000}


class GenerateStopped(PuzzleError):
    """The run's time limit passed (the puzzles found before stay)."""


@dataclass(frozen=True)
class GenerateOptions:
    """What ``puzzle generate`` makes: games of ``players`` x ``sets`` x ``set_size`` under the preset
    ``rules``, puzzles for ``goal`` with K in ``questions`` (low, high), of ``difficulty`` (None: any),
    played by ``agents`` (one name for every seat, or one per seat); ``max_positions`` per search
    (None: :data:`DEFAULT_POSITIONS`); ``allow_grid_answers``: also keep the puzzles whose answer
    can be read off the printed grid (:func:`read_off_the_grid`)."""

    players: int = 3
    sets: int = 3
    set_size: int = 3
    rules: str = "quaternity"
    goal: str = QUARTET
    questions: tuple[int, int] | None = None
    difficulty: str | None = None
    agents: tuple[str, ...] = ("random",)
    max_positions: int | None = None
    allow_grid_answers: bool = False

    def positions(self) -> int:
        return self.max_positions if self.max_positions is not None else DEFAULT_POSITIONS[self.goal]

    def k_range(self) -> tuple[int, int]:
        return self.questions if self.questions is not None else DEFAULT_QUESTIONS[self.goal]

    def check(self) -> None:
        """Raise :class:`PuzzleError` (one line) unless these options make puzzles."""
        spec = load_all()["quartets"]
        for name in ("players", "sets", "set_size"):
            option = spec.option(name)
            assert option is not None  # the game's options
            try:
                option.check(getattr(self, name))
            except ValueError as err:
                raise PuzzleError(str(err)) from None
        if self.rules not in PRESETS:
            raise PuzzleError(f"unknown rule preset {self.rules!r} (known: {', '.join(PRESETS)})")
        if self.goal not in PUZZLE_GOALS:
            raise PuzzleError(f"unknown goal {self.goal!r} (known: {', '.join(PUZZLE_GOALS)})")
        low, high = self.k_range()
        if not 1 <= low <= high:
            raise PuzzleError(f"questions: a range low-high with 1 <= low <= high, not {low}-{high}")
        if self.difficulty is not None and self.difficulty not in DIFFICULTIES:
            raise PuzzleError(f"unknown difficulty {self.difficulty!r} (known: {', '.join(DIFFICULTIES)})")
        agents = spec.agents
        game = {"preset": self.rules, "players": self.players, "sets": self.sets, "set_size": self.set_size}
        for a in self.agents:
            if a not in agents:
                raise PuzzleError(f"unknown agent {a!r} (known: {', '.join(sorted(agents))})")
            why = spec.refusal(a, game)  # (before any game is played: a classic-only agent, say)
            if why is not None:
                raise PuzzleError(f"agent {a!r} {why}")
        if len(self.agents) not in (1, self.players):
            raise PuzzleError(f"agents: give one name for every seat or one per seat ({self.players}), "
                              f"not {len(self.agents)}")
        if self.positions() < 1:
            raise PuzzleError("max_positions must be at least 1")
        start = Position(Game(self.players, self.sets, self.set_size), Rules.preset(self.rules))
        try:
            check_goal(start, self.goal, 0)
        except SolveError as err:  # e.g. classic: cards really dealt, hidden information
            raise PuzzleError(f"the {self.rules} preset makes no puzzles: {err}") from None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["questions"] = list(self.k_range())
        out["agents"] = list(self.agents)
        out["max_positions"] = self.positions()
        return out


def spec_game(opts: GenerateOptions) -> Game:
    """The Game of these options (from the game ``quartets``' own factory)."""
    return _new_game(opts, 0).game


def _new_game(opts: GenerateOptions, seed: int) -> QuaternityState:
    """A game of the options' size and preset, seeded: the game ``quartets``' own state."""
    state = load_all()["quartets"].new_state(seed, preset=opts.rules, players=opts.players, sets=opts.sets,
                                             set_size=opts.set_size)
    assert isinstance(state, QuaternityState)  # a Quaternity preset (classic is refused by check)
    return state


@dataclass
class Found:
    """The puzzle of one game: its record (``NAME.json``), its answer (``NAME.answer.json`` without
    the name) and the game it came from."""

    unit: int
    record: dict[str, Any]
    answer: dict[str, Any]


def read_off_the_grid(position: Position, tree: dict[str, Any], player: int) -> bool:
    """Whether a puzzle's answer can be read off the knowledge grid printed with it (the sheet's grid,
    :func:`quaternity_cp.quartets.svg.grid_svg`, at the puzzle's moment ``position``, whose forced cards
    are green squares): its strategy ``tree`` (docs/puzzles.md) is one line of ``player``'s moves, each
    question asking a seat for a card the grid shows as forced with that seat (so its answer is a forced
    yes), and any declaration; a branch, another seat's move or a free choice is something to work out.
    A one-question puzzle is read off the grid when its card is a green square of the seat asked."""
    analysis = position.analysis()
    game = position.game
    node = tree
    while "reached" not in node:
        if "declare" in node:
            node = node["next"]
            continue
        if "ask" not in node or not node.get("forced") or len(node["answers"]) != 1:
            return False
        move = parse_first_move(game, node["ask"])
        if not (isinstance(move, Question) and move.asker == player
                and analysis.forced_owner(move.card) == move.target):
            return False
        node = next(iter(node["answers"].values()))
    return True


def _limits(opts: GenerateOptions, deadline: float | None) -> Limits:
    if deadline is None:
        return Limits(max_positions=opts.positions())
    left = deadline - time.time()
    if left <= 0:
        raise GenerateStopped("time limit reached")
    return Limits(max_positions=opts.positions(), max_seconds=left)


def _moments(opts: GenerateOptions, seed: int, unit: int) -> tuple[list[tuple[int, Any]], dict[str, Any]]:
    """Game ``unit`` played out: its candidate moments (public moves so far, state), latest first,
    and its record."""
    spec = load_all()["quartets"]
    state = _new_game(opts, derive_seed(seed, unit))
    names = opts.agents * opts.players if len(opts.agents) == 1 else opts.agents
    agents = [spec.agents[n]() for n in names]
    rngs = [random.Random(derive_seed(seed, unit, p + 1)) for p in range(opts.players)]
    moments = []
    played = 0  # public moves so far (a question and its answer are one)
    while not state.is_terminal():
        st = state.position.state
        if st.pending is None and played and len(st.turn) == 1:
            moments.append((played, st))
        p = state.current_player()
        legal: list[Hashable] = list(state.legal_actions())
        if not legal:  # no legal move although the game is not over: it ends here
            break
        state.apply_action(agents[p].step(state.observation(p), legal, rngs[p]))
        if state.position.pending is None:
            played += 1
    return moments[::-1], state.record()


def find_in_game(opts: GenerateOptions, seed: int, unit: int, deadline: float | None = None) -> Found | None:
    """The puzzle of game ``unit`` of the run with ``seed``, or None (see the module docstring).

    Raises :class:`GenerateStopped` once ``deadline`` (a :func:`time.time` value) has passed."""
    moments, full = _moments(opts, seed, unit)
    low, high = opts.k_range()
    game_rules = {k: full[k] for k in ("players", "sets", "set_size", "rules")}
    hits = []
    game, rules = spec_game(opts), Rules.preset(opts.rules)
    for played, st in moments:
        pos = Position(game, rules, state=st)
        search = PuzzleSearch(pos, opts.goal, st.turn[0], limits=_limits(opts, deadline))
        ans = search.answer(high, min_questions=low, unique_only=True)
        if ans.status == "time":
            raise GenerateStopped("time limit reached")
        if not ans.proven:
            if opts.goal != QUARTET:
                break  # the win goal: earlier moments have larger games left; they would not fit either
            continue
        if ans.unique and ans.questions is not None and low <= ans.questions <= high:
            try:
                tree, stats = search.strategy()  # without explanations: a lower bound of the score
            except TreeTooLarge:
                continue  # a strategy nobody could print
            except Stopped:
                raise GenerateStopped("time limit reached") from None
            if not opts.allow_grid_answers and read_off_the_grid(pos, tree, st.turn[0]):
                continue  # its answer is a green square of the printed grid: nothing to find
            hits.append((played, st.turn[0], grade(ans, stats).score))
    if not hits:
        return None
    rng = random.Random(derive_seed(seed, unit, 0))
    if opts.difficulty is None:
        order = [rng.choice(hits)]
    else:
        level = DIFFICULTIES.index(opts.difficulty)
        top = THRESHOLDS[level] if level < len(THRESHOLDS) else float("inf")
        # explanations only raise a score: a lower bound past the band rules a moment out; the rest
        # are tried highest first (the closest from below)
        order = sorted((h for h in hits if h[2] < top), key=lambda h: -h[2])[:GRADE_TRIES]
    for played, player, _ in order:
        record = record_from_json(game_rules | {"moves": full["moves"][:played]})
        try:
            left = _limits(opts, deadline)
            puzzle = solve_puzzle(record, opts.goal, player, max_questions=high, limits=left,
                                  explain_seconds=left.max_seconds)
        except PuzzleStopped as stop:
            if stop.reason == "time":
                raise GenerateStopped("time limit reached") from None
            continue
        except TreeTooLarge:
            continue
        assert puzzle.grade is not None
        if opts.difficulty is not None and puzzle.grade.difficulty != opts.difficulty:
            continue
        title, text = describe(puzzle)
        answer = answer_json("", puzzle, title=title, description=text, seed=seed,
                             generator=opts.to_json() | {"game": unit, "moves": played})
        del answer["puzzle"]
        return Found(unit, game_rules | {"moves": full["moves"][:played]}, answer)
    return None


def find_in_games(opts: GenerateOptions, seed: int, units: range, deadline: float | None = None) -> list[Found | None]:
    """:func:`find_in_game` for each game of ``units`` (a worker's unit of work)."""
    return [find_in_game(opts, seed, u, deadline) for u in units]


def _find_args(args: tuple[GenerateOptions, int, range, float | None]) -> list[Found | None]:
    return find_in_games(*args)


#: Games per unit of work of a pool: a unit takes a fraction of a second (the quartet goal's games are short).
BLOCK = {"quartet": 2, "win": 1}


def _units(opts: GenerateOptions, seed: int, games: int, jobs: int, deadline: float | None) -> Iterator[Found | None]:
    """The results of games 0 .. games-1, in order: in this process (``jobs`` 1) or in a pool."""
    if jobs <= 1:
        for u in range(games):
            yield find_in_game(opts, seed, u, deadline)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # workers start from a clean process, never a fork of this one (as the tournament's); a fork server
    # imports the search once, and each worker starts as a fork of it
    context: Any
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__, "quaternity_cp.quartets", "quaternity_cp.quartets.agents",
                                        "quaternity_cp.quartets.explain", "ortools.sat.python.cp_model"])
    else:
        context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(jobs, mp_context=context)
    block = BLOCK[opts.goal]
    window: deque[Future[list[Found | None]]] = deque()
    nxt = 0
    try:
        while True:
            while len(window) < 2 * jobs and nxt < games:
                window.append(pool.submit(_find_args, (opts, seed, range(nxt, min(games, nxt + block)), deadline)))
                nxt += block
            if not window:
                return
            yield from window.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def puzzle_names(opts: GenerateOptions, seed: int, count: int) -> list[str]:
    """The names of the puzzles a run writes, in order: ``<preset>-<P>x<N>x<S>-<goal>-<seed>-<n>``."""
    base = f"{opts.rules}-{opts.players}x{opts.sets}x{opts.set_size}-{opts.goal}-{seed}"
    return [f"{base}-{n:03d}" for n in range(1, count + 1)]


def generate(opts: GenerateOptions, seed: int, count: int, *, jobs: int = 1, max_seconds: float | None = None,
             max_games: int | None = None,
             found: Callable[[str, dict[str, Any], dict[str, Any]], None] | None = None) -> list[str]:
    """Find ``count`` puzzles (see the module docstring); ``found(name, record, answer)`` is called
    for each, in order, as soon as it is known. Returns the names found: fewer than ``count`` when
    ``max_games`` games (default 200 per puzzle) gave no more. Raises :class:`GenerateStopped`
    when ``max_seconds`` pass first."""
    opts.check()
    if count < 1:
        raise PuzzleError("count must be at least 1")
    games = max_games if max_games is not None else 200 * count
    deadline = None if max_seconds is None else time.time() + max_seconds
    names = puzzle_names(opts, seed, count)
    seen: set[tuple[str, ...]] = set()
    out: list[str] = []
    units = _units(opts, seed, games, jobs, deadline)
    try:
        for result in units:
            if result is None:
                continue
            key = tuple(result.record["moves"])
            if key in seen:  # two games may reach the same moment: one puzzle
                continue
            seen.add(key)
            name = names[len(out)]
            answer = {"puzzle": name} | result.answer
            if found is not None:
                found(name, result.record, answer)
            out.append(name)
            if len(out) == count:
                break
    finally:
        close = getattr(units, "close", None)
        if close is not None:
            close()
    return out


__all__ = ["BLOCK", "DEFAULT_POSITIONS", "DEFAULT_QUESTIONS", "GRADE_TRIES", "Found", "GenerateOptions", "GenerateStopped", "find_in_game",
           "find_in_games", "generate", "puzzle_names", "read_off_the_grid"]
