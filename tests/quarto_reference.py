"""A plain, independent reading of Quarto's rules (QUARTO rules in docs), for the tests to compare against.

Nothing here imports the library: cells are ``(row_from_top, column)`` pairs,
pieces are 4-bit numbers, a board is a dict cell -> piece, and every check is a
loop over the lines written out from their coordinates.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product


def ref_lines(squares: bool = False) -> list[list[tuple[int, int]]]:
    lines = [[(r, c) for c in range(4)] for r in range(4)]
    lines += [[(r, c) for r in range(4)] for c in range(4)]
    lines.append([(i, i) for i in range(4)])
    lines.append([(i, 3 - i) for i in range(4)])
    if squares:
        for r, c in product(range(3), range(3)):
            lines.append([(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)])
    return lines


def cell_number(rc: tuple[int, int]) -> int:
    return rc[0] * 4 + rc[1]


def cell_name(rc: tuple[int, int]) -> str:
    return "ABCD"[rc[1]] + str(4 - rc[0])


def shares_trait(pieces: list[int]) -> bool:
    for bit in range(4):
        values = {(p >> bit) & 1 for p in pieces}
        if len(values) == 1:
            return True
    return False


def ref_winning_lines(board: dict[tuple[int, int], int], squares: bool = False) -> list[list[tuple[int, int]]]:
    out = []
    for line in ref_lines(squares):
        if all(rc in board for rc in line) and shares_trait([board[rc] for rc in line]):
            out.append(line)
    return out


def ref_reachable_board(board: dict[tuple[int, int], int], squares: bool = False) -> bool:
    """Whether some order of placing the board's pieces completes no line before the last placement (exhaustive)."""
    if len(set(board.values())) != len(board):
        return False
    cells = sorted(board)

    @lru_cache(maxsize=None)
    def extendable(placed: frozenset) -> bool:
        # `placed` has no winning line; can the rest be added one by one, only the last completing lines?
        if len(placed) == len(cells):
            return True
        for rc in cells:
            if rc in placed:
                continue
            nxt = placed | {rc}
            sub = {x: board[x] for x in nxt}
            if len(nxt) < len(cells) and ref_winning_lines(sub, squares):
                continue
            if extendable(nxt):
                return True
        return False

    return extendable(frozenset())


def ref_position_states(board: dict[tuple[int, int], int], squares: bool = False) -> set[tuple]:
    """Every (piece in hand, to_move) that a legal game reaching ``board`` can have (empty: unreachable).

    Placement n is made by player n % 2; a finished game has no piece in hand and
    is written with to_move null or the player who would be next.
    """
    if not ref_reachable_board(board, squares):
        return set()
    n = len(board)
    nxt = (n + 1) % 2
    if ref_winning_lines(board, squares) or n == 16:
        return {(None, None), (None, nxt)}
    if n == 0:
        return {(None, 0)} | {(p, 1) for p in range(16)}
    used = set(board.values())
    return {(p, nxt) for p in range(16) if p not in used}


def ref_value(board: dict[tuple[int, int], int], piece: int, squares: bool = False) -> int:
    """The game value for the player to move, who holds ``piece``: 1 win, 0 draw, -1 loss (plain minimax)."""
    memo: dict = {}

    def value(b: frozenset, hand: int) -> int:
        key = (b, hand)
        if key in memo:
            return memo[key]
        cur = dict(b)
        best = -1
        empty = [(r, c) for r in range(4) for c in range(4) if (r, c) not in cur]
        for rc in empty:
            after = {**cur, rc: hand}
            if any(rc in line for line in ref_winning_lines(after, squares)):
                best = 1
                break
            if len(after) == 16:
                best = max(best, 0)
                continue
            used = set(after.values())
            fb = frozenset(after.items())
            for q in range(16):
                if q not in used:
                    best = max(best, -value(fb, q))
                    if best == 1:
                        break
            if best == 1:
                break
        memo[key] = best
        return best

    return value(frozenset(board.items()), piece)


def ref_search_value(board: list, piece: int, squares: bool = False) -> int:
    """The game value (1 win, 0 draw, -1 loss) for the player to move holding ``piece``, fast enough for
    positions with 9 or 10 empty cells.

    ``board`` is a list of 16 cells numbered row from the top times 4 plus column (``cell_number``),
    each a piece or None. Two memoised yes/no searches, no window and no bounds: "can the player to move
    force a win" and "can it avoid losing". Neither search gives a piece with which the opponent completes
    a line at once while another piece is left that does not (such a gift loses on the spot).
    """
    through = [[tuple(cell_number(rc) for rc in line if cell_number(rc) != cell)
                for line in ref_lines(squares) if cell in map(cell_number, line)] for cell in range(16)]

    def completes(cells: tuple, cell: int, p: int) -> bool:
        for others in through[cell]:
            a, b, c = (cells[x] for x in others)
            # four pieces share a trait: a bit set in all four, or clear in all four
            if a >= 0 and b >= 0 and c >= 0 and (p & a & b & c or ~(p | a | b | c) & 15):
                return True
        return False

    def gifts(cells: tuple, hand: int) -> list[int]:
        empty = [x for x in range(16) if cells[x] < 0]
        left = [q for q in range(16) if q != hand and q not in cells]
        return [q for q in left if not any(completes(cells, x, q) for x in empty)]

    wins: dict = {}
    holds: dict = {}

    def can_win(cells: tuple, hand: int) -> bool:
        key = (cells, hand)
        if key not in wins:
            empty = [x for x in range(16) if cells[x] < 0]
            out = any(completes(cells, x, hand) for x in empty)
            for x in empty if not out and len(empty) > 1 else ():
                after = cells[:x] + (hand,) + cells[x + 1:]
                if any(not can_hold(after, q) for q in gifts(after, hand)):
                    out = True
                    break
            wins[key] = out
        return wins[key]

    def can_hold(cells: tuple, hand: int) -> bool:
        key = (cells, hand)
        if key not in holds:
            empty = [x for x in range(16) if cells[x] < 0]
            out = len(empty) == 1 or any(completes(cells, x, hand) for x in empty)
            for x in empty if not out else ():
                after = cells[:x] + (hand,) + cells[x + 1:]
                if any(not can_win(after, q) for q in gifts(after, hand)):
                    out = True
                    break
            holds[key] = out
        return holds[key]

    cells = tuple(-1 if p is None else p for p in board)
    if can_win(cells, piece):
        return 1
    return 0 if can_hold(cells, piece) else -1
