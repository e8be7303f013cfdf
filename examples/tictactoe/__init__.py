"""Tic-tac-toe: the docs' example of adding a game (docs/adding-a-game.md). One package, registered on import.

Two players, ``x`` (seat 0, who starts) and ``o`` (seat 1), take turns marking an empty cell of a 3 x 3 grid;
three marks in a row, a column or a diagonal win, a full grid without one is a draw (the win is shared).
An action is a cell, 0..8 row by row; its notation is the cell's name, ``a1`` (top left) to ``c3``.
A record is ``{"game": "tictactoe", "moves": ["b2", "a1", ...]}`` (``game.json`` beside this file is one).

>>> state = SPEC.new_state(0)
>>> for cell in ("a1", "a2", "b2", "a3", "c3"):  # x: a1 b2 c3, a diagonal
...     state.apply_action(state.string_to_action(cell))
>>> state.is_terminal(), state.returns()
(True, [1.0, 0.0])
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Hashable

from quaternity_cp.errors import QuaternityError
from quaternity_cp.registry import TERMINAL, ChanceOutcome, GameSpec, register_agent, register_game

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = "xo"


class TicTacToeError(QuaternityError, ValueError):
    """An illegal move or a bad record (the message says which and why, in one line)."""


def cell_name(cell: int) -> str:
    return "abc"[cell % 3] + str(cell // 3 + 1)


@dataclass(frozen=True)
class Observation:
    """What a player sees: everything (tic-tac-toe has no hidden information)."""

    seat: int
    board: tuple[int | None, ...]  # per cell the seat that marked it, or None
    to_move: int | None  # None once the game is over


class TicTacToeState:
    """A game in progress (the :class:`~quaternity_cp.registry.GameState` interface)."""

    num_players = 2

    def __init__(self) -> None:
        self.moves: list[int] = []  # the cells marked, in order
        self.chance: list[ChanceOutcome] = []  # no random events

    # -- the rules ------------------------------------------------------------------------------
    @property
    def board(self) -> tuple[int | None, ...]:
        cells: list[int | None] = [None] * 9
        for i, cell in enumerate(self.moves):
            cells[cell] = i % 2
        return tuple(cells)

    def winner(self) -> int | None:
        board = self.board
        return next((board[a] for a, b, c in LINES if board[a] is not None and board[a] == board[b] == board[c]),
                    None)

    def is_terminal(self) -> bool:
        return self.winner() is not None or len(self.moves) == 9

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.moves) % 2

    def free_cells(self) -> list[int]:
        return [] if self.is_terminal() else [c for c, seat in enumerate(self.board) if seat is None]

    def legal_actions(self) -> list[Hashable]:
        return list(self.free_cells())

    def apply_action(self, action: Hashable) -> None:
        if not isinstance(action, int) or action not in self.free_cells():
            what = cell_name(action) if isinstance(action, int) and 0 <= action < 9 else repr(action)
            raise TicTacToeError(f"{what} is not a legal move here (the free cells: "
                                 f"{' '.join(map(cell_name, self.free_cells())) or 'none, the game is over'})")
        self.moves.append(action)

    def undo(self) -> None:
        self.moves.pop()

    def scores(self) -> list[float]:
        winner = self.winner()
        return [float(p == winner) for p in range(2)]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        winner = self.winner()
        return [0.5, 0.5] if winner is None else self.scores()

    # -- what a player sees, notation, records ---------------------------------------------------------
    def observation(self, player: int) -> Observation:
        return Observation(player, self.board, None if self.is_terminal() else len(self.moves) % 2)

    def action_to_string(self, action: Hashable) -> str:
        assert isinstance(action, int)  # one of this game's actions: a cell
        return cell_name(action)

    def string_to_action(self, text: str) -> int:
        names = [cell_name(c) for c in range(9)]
        if not isinstance(text, str) or text.strip().lower() not in names:
            raise TicTacToeError(f"{text!r} is not a cell (a1 .. c3: column letter, row number)")
        return names.index(text.strip().lower())

    def record(self) -> dict[str, Any]:
        return {"game": "tictactoe", "moves": [cell_name(c) for c in self.moves]}

    def clone(self) -> "TicTacToeState":
        other = TicTacToeState()
        other.moves = list(self.moves)
        return other


def new_state(seed: int) -> TicTacToeState:
    """A fresh game (the seed is not used: tic-tac-toe has no chance)."""
    return TicTacToeState()


# -- agents: any free cell; or win if it can, else block, else the centre, else any free cell ------------
class Random:
    name = "random"

    def step(self, observation: Observation, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        return rng.choice(legal_actions)


class Greedy:
    name = "greedy"

    def step(self, observation: Observation, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        board, me = observation.board, observation.seat
        for seat in (me, 1 - me):  # complete my line, else block the other's
            for cell in legal_actions:
                if any(cell in line and sum(board[c] == seat for c in line) == 2 for line in LINES):
                    return cell
        return 4 if 4 in legal_actions else rng.choice(legal_actions)


register_agent("tictactoe", "random", Random)
register_agent("tictactoe", "greedy", Greedy)

SPEC = register_game(GameSpec(
    name="tictactoe",
    new_state=new_state,
    description="Tic-tac-toe: three in a row on a 3x3 grid (the docs' example game)",
    default_agent="greedy",
    hint_agent="greedy",
    seat_label="player",
    parts={  # every part a game can declare (quaternity_cp.registry.PARTS), each imported on first use
        "check": f"{__name__}.parts:check_record",
        "svg": f"{__name__}.parts:state_svg",
        "report": f"{__name__}.parts:text_report",
        "web": f"{__name__}.parts",
        "page": f"{__name__}.parts:PAGE",
        "cli": f"{__name__}.cli:tictactoe",
        "terminal": f"{__name__}.terminal",
        "codec": f"{__name__}.codec:codec_for",
        "spiel": f"{__name__}.spiel",
        "puzzles": f"{__name__}.puzzles",
        "tournament": f"{__name__}.parts:TOURNAMENT",
        "packed": f"{__name__}.packed:packed_for",  # the shared partitioned solver's keys
    },
))
