"""Quarto players, with quarto-lib's agent contract.

An agent answers two questions about a :class:`~quaternity_cp.quarto.Position`
(perfect information: the position is everything there is to know):

- ``choose_initial_piece(position) -> Piece``: the piece player 0 gives first;
- ``complete_turn(position) -> (Cell, Piece | None)``: where to place the piece
  in hand, and which piece to give (None when the placement ends the game).

Agents draw their random choices from ``self.rng`` (a :class:`random.Random`),
which the game adapter sets from the runner's seed before each decision.
Each registers itself for the game ``"quarto"`` on import, as a
:class:`QuartoGameAgent` (:func:`quaternity_cp.registry.register_agent`).

>>> from quaternity_cp.quarto import Position
>>> pos = Position()
>>> for text in ["LRTS", "A4 LRTH", "B4 LRSS", "C4 LSSH"]:
...     _ = pos.push(text)
>>> GreedyAgent().complete_turn(pos)   # four light pieces in the top row
(<Cell.D4: 3>, None)
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Callable, Hashable, Optional, Protocol

from ..registry import register_agent
from .core import Cell, Piece, QuartoError
from .position import Move, Position

if TYPE_CHECKING:
    from .solver import SolveResult


class QuartoAgent(Protocol):
    """quarto-lib's agent contract, on this library's position."""

    name: str
    rng: random.Random

    def choose_initial_piece(self, position: Position) -> Piece:
        """The piece player 0 gives at the start."""

    def complete_turn(self, position: Position) -> tuple[Cell, Optional[Piece]]:
        """Where to place the piece in hand, and the piece given (None if the placement ends the game)."""


def _in_hand(position: Position) -> Piece:
    """The piece the player to move holds (a turn is only completed once a piece was given)."""
    piece = position.piece
    assert piece is not None, "no piece in hand: the game has not started or is over"
    return piece


def _ends(position: Position, cell: Cell) -> bool:
    after = position.board.place(cell, _in_hand(position))
    return after.is_full() or after.wins_at(cell, position.squares)


class RandomAgent:
    """Any legal move, uniformly: a random empty cell, then a random piece left."""

    name = "random"

    def __init__(self, rng: Optional[random.Random] = None):
        self.rng = rng or random.Random(0)

    def choose_initial_piece(self, position: Position) -> Piece:
        return self.rng.choice(position.available_pieces())

    def complete_turn(self, position: Position) -> tuple[Cell, Optional[Piece]]:
        cell = self.rng.choice(position.empty_cells())
        if _ends(position, cell):
            return cell, None
        return cell, self.rng.choice(position.available_pieces())


class GreedyAgent:
    """Wins at once when it can; otherwise never gives a piece that lets the opponent win, when it can avoid it.

    Among the placements and pieces that remain (all of them safe, or, when no
    safe choice exists, all of them) it picks uniformly at random.
    """

    name = "greedy"

    def __init__(self, rng: Optional[random.Random] = None):
        self.rng = rng or random.Random(0)

    def choose_initial_piece(self, position: Position) -> Piece:
        return self.rng.choice(position.available_pieces())

    def winning_cells(self, position: Position) -> list[Cell]:
        """The cells where the piece in hand wins now."""
        return position.board.winning_cells(_in_hand(position), position.squares)

    def safe_choices(self, position: Position) -> list[tuple[Cell, Optional[Piece]]]:
        """Placements with the pieces that give the opponent no immediate win (a full board is safe)."""
        board, piece, squares = position.board, _in_hand(position), position.squares
        free = position.available_pieces()
        out: list[tuple[Cell, Optional[Piece]]] = []
        for cell in board.empty_cells():
            after = board.place(cell, piece)
            if after.is_full():
                out.append((cell, None))
                continue
            danger = after.winning_pieces(squares)
            out.extend((cell, p) for p in free if not danger >> p & 1)
        return out

    def complete_turn(self, position: Position) -> tuple[Cell, Optional[Piece]]:
        wins = self.winning_cells(position)
        if wins:
            return self.rng.choice(wins), None
        safe = self.safe_choices(position)
        if safe:
            return self.rng.choice(safe)
        # every choice loses at once: any legal move
        return RandomAgent(self.rng).complete_turn(position)


class SolverAgent:
    """Perfect play as far as its per-move budget reaches: the opening table, then the exact solver, then greedy.

    Each move: a win at once; else the shipped opening table's best move
    (:mod:`.openings`); else the exact solver (the compiled kernel when numba is
    there) within ``max_nodes`` nodes (default: 20 million with the compiled
    kernel, about a second; 200,000 in Python) and ``max_seconds``, tried
    only where it has a chance: from ``reach + 1`` empty cells down, ``reach``
    being the most empty cells it has solved within the budget so far
    (iterative deepening over the game: a success raises it, a failure lowers
    it); else greedy's safe-piece rules. With ``exact_from`` the solver is
    never tried with more empty cells than that. Node budgets keep its games
    reproducible (the same moves on any machine).
    """

    name = "solver"

    def __init__(
        self,
        rng: Optional[random.Random] = None,
        *,
        exact_from: Optional[int] = None,
        max_seconds: Optional[float] = None,
        max_nodes: Optional[int] = None,
        openings: bool = True,
    ):
        self.rng = rng or random.Random(0)
        self.exact_from = exact_from
        self.max_seconds = max_seconds
        self.max_nodes = max_nodes
        self.openings = openings
        self.reach: Optional[int] = None
        self.greedy = GreedyAgent(self.rng)

    def choose_initial_piece(self, position: Position) -> Piece:
        self.greedy.rng = self.rng
        return self.greedy.choose_initial_piece(position)

    def solve(self, position: Position) -> "SolveResult":
        """The solver's result for ``position`` (the player to move holds a piece), within the budget."""
        from .solver import fast_available, solve

        fast = fast_available()
        nodes = self.max_nodes
        if nodes is None:
            nodes = 20_000_000 if fast else 200_000
        return solve(
            position.board.as_tuple(),
            int(_in_hand(position)),
            squares=position.squares,
            max_seconds=self.max_seconds,
            max_nodes=nodes,
            kernel="fast" if fast else "python",  # a game has many searches: the kernel's loading pays for itself
        )

    def book(self, position: Position) -> Optional[tuple[Cell, Optional[Piece]]]:
        """The opening table's move (a draw or better), or None."""
        if not self.openings:
            return None
        from .openings import book_move

        found = book_move(position.board.as_tuple(), int(_in_hand(position)), position.squares)
        if found is None:
            return None
        (cell, piece), entry = found
        if entry.value == "loss":
            return None
        return Cell(cell), None if piece is None else Piece(piece)

    def complete_turn(self, position: Position) -> tuple[Cell, Optional[Piece]]:
        self.greedy.rng = self.rng
        wins = self.greedy.winning_cells(position)
        if wins:
            return self.rng.choice(wins), None
        book = self.book(position)
        if book is not None and position.is_legal(Move(*book)):
            return book
        empty = len(position.empty_cells())
        if self.reach is None:
            from .solver import fast_available

            self.reach = 13 if fast_available() else 9
        limit = self.reach + 1 if self.exact_from is None else min(self.reach + 1, self.exact_from)
        if empty <= limit:
            result = self.solve(position)
            if result.status == "interrupted":  # Ctrl-C stops the game, not only this search
                raise KeyboardInterrupt
            if result.status == "solved" and result.best is not None:
                self.reach = max(self.reach, empty)
                cell, piece = result.best
                move = Move(Cell(cell), None if piece is None else Piece(piece))
                if position.is_legal(move):
                    return Cell(cell), move.piece
            else:
                self.reach = min(self.reach, empty - 1)
        return self.greedy.complete_turn(position)


#: The agents by name.
AGENTS: dict[str, Callable[..., QuartoAgent]] = {"random": RandomAgent, "greedy": GreedyAgent, "solver": SolverAgent}


def make_agent(name: str, rng: Optional[random.Random] = None) -> QuartoAgent:
    """A fresh agent by name."""
    try:
        factory = AGENTS[name]
    except KeyError:
        raise QuartoError(f"no Quarto agent {name!r} (known: {', '.join(sorted(AGENTS))})") from None
    return factory(rng)


def decide(agent: QuartoAgent, position: Position) -> Move:
    """The agent's move in ``position``, as a :class:`Move`."""
    if position.piece is None:
        return Move(None, agent.choose_initial_piece(position))
    cell, piece = agent.complete_turn(position)
    return Move(cell, piece)


def play(first: QuartoAgent, second: QuartoAgent, *, squares: bool = False) -> Position:
    """One game: ``first`` is player 0 (gives the first piece), ``second`` player 1; the finished position."""
    pos = Position(squares=squares)
    seats = (first, second)
    while (side := pos.to_move) is not None:  # None once the game is over
        pos.push(decide(seats[side], pos))
    return pos


class QuartoGameAgent:
    """A Quarto agent (quarto-lib's contract) as a :class:`~quaternity_cp.registry.Agent` of the game ``"quarto"``."""

    def __init__(self, agent: QuartoAgent):
        self.agent = agent
        self.name = agent.name

    def step(self, observation: Position, legal_actions: list[Hashable], rng: random.Random) -> Move:
        self.agent.rng = rng
        move = decide(self.agent, observation)
        if legal_actions and move not in legal_actions:
            raise QuartoError(f"agent {self.name} chose an illegal move {move}")
        return move


def _game_agent(name: str) -> Callable[[], QuartoGameAgent]:
    return lambda: QuartoGameAgent(AGENTS[name]())


for _name in AGENTS:
    register_agent("quarto", _name, _game_agent(_name))


__all__ = [
    "QuartoAgent",
    "RandomAgent",
    "GreedyAgent",
    "SolverAgent",
    "AGENTS",
    "make_agent",
    "decide",
    "play",
    "QuartoGameAgent",
]
