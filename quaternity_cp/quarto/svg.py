"""Quarto's pictures: the board, the piece in hand and the pieces left, as SVG.

Every cell is an element with ``data-cell`` (and ``data-piece`` when taken),
every piece left one with ``data-piece``; the cells and pieces a person may
choose are tinted and marked ``data-legal``, so that pages and tests can read
the picture. A Quarto :class:`~quaternity_cp.quarto.Position` shows itself as
this picture in a notebook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from ..svg import FONT, text_element, text_lines, wrap_words
from .core import Cell, Piece

if TYPE_CHECKING:
    from .position import Position

QUARTO_CELL = 70
LIGHT, DARK = "#f3dcae", "#6d4330"


def piece_svg(piece: int, cx: float, cy: float, size: float, *, attrs: str = "") -> str:
    """One Quarto piece seen from above: light or dark, round or square, tall (large) or short
    (small), solid or hollow (a hole in the top)."""
    piece = Piece(piece)
    dark, square, short, hollow = (piece.trait(i) for i in range(4))
    r = size * (0.28 if short else 0.42)
    fill = DARK if dark else LIGHT
    stroke = "#3e2723" if dark else "#8d6e63"
    out = [f'<g class="piece" data-piece="{piece.name}"{attrs}><title>{piece.name}: {piece.describe()}</title>']
    if square:
        out.append(f'<rect x="{cx - r:.1f}" y="{cy - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}" rx="3" '
                   f'fill="{fill}" stroke="{stroke}" stroke-width="2"/>')
    else:
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="{fill}" stroke="{stroke}" stroke-width="2"/>')
    if hollow:
        h = r * 0.45
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{h:.1f}" fill="{"#2b1a12" if dark else "#b08a5a"}"/>')
    out.append("</g>")
    return "".join(out)


def quarto_svg(position: Position, *, note: str | None = None, legal_cells: Iterable[int] = (),
               legal_pieces: Iterable[int] = (), status: bool = True) -> str:
    """A Quarto position as SVG: the board (columns A-D, rows 4 to 1 from the top), below it the
    piece in hand and the pieces left (narrow enough for a phone), winning lines outlined. Cells carry ``data-cell`` (and ``data-piece`` when
    taken), the pieces left ``data-piece``; ``legal_cells`` / ``legal_pieces`` are tinted and
    marked ``data-legal`` (the page lets a person click them). ``status``: the line above the board
    saying whose turn it is (a page that says it in its own words leaves it out).

    >>> from quaternity_cp.quarto import Position
    >>> pos = Position()
    >>> _ = pos.push("LRTS"); _ = pos.push("A1 DSSH")
    >>> 'data-cell="A1" data-piece="LRTS"' in quarto_svg(pos)
    True
    """
    C = QUARTO_CELL
    legal_cells = set(int(c) for c in legal_cells)
    legal_pieces = set(int(p) for p in legal_pieces)
    small = 38  # a piece left
    left = 28
    width = left + 4 * C + 14  # narrow enough for a phone: the piece in hand and the pieces left go below
    parts: list[str] = []
    y = 18
    heading = quarto_status(position) if status else None
    for text, fill, weight, size, cls in ((heading, "#222", "bold", 13, "status"), (note, "#b71c1c", "normal", 12, "note")):
        if not text:
            continue
        lines = wrap_words(text, width - 16, size, bold=weight == "bold")
        parts.append(text_lines(8, y, lines, size=size, step=size + 4, cls=cls, fill=fill, weight=weight))
        y += (size + 4) * len(lines) + 1
    top = y + 8 if parts else 14
    board = position.board
    winning = {int(c) for line in position.winning_lines for c in line}
    parts.append(f'<rect x="{left - 6}" y="{top - 6}" width="{4 * C + 12}" height="{4 * C + 12}" rx="14" '
                 f'fill="#455a64"/>')
    for cell in Cell:
        x, cy = left + cell.col * C, top + cell.row * C
        piece = board[cell]
        attrs = f' data-cell="{cell.name}"' + (f' data-piece="{piece.name}"' if piece is not None else "")
        if int(cell) in legal_cells:
            attrs += ' data-legal="1"'
        if int(cell) in winning:
            attrs += ' data-winning="1"'
        fill = "#e3f2fd" if int(cell) in legal_cells else "#eceff1"
        parts.append(f'<g class="cell"{attrs}>')
        parts.append(f'<circle cx="{x + C / 2}" cy="{cy + C / 2}" r="{C / 2 - 4}" fill="{fill}" '
                     f'stroke="{"#d84315" if int(cell) in winning else "#90a4ae"}" '
                     f'stroke-width="{4 if int(cell) in winning else 1}"/>')
        if piece is not None:
            parts.append(piece_svg(piece, x + C / 2, cy + C / 2, C - 10))
        parts.append("</g>")
    for col in range(4):
        parts.append(text_element(left + col * C + C / 2, top + 4 * C + 22, "ABCD"[col], size=12, fill="#555"))
    for row in range(4):
        parts.append(text_element(left - 16, top + row * C + C / 2 + 4, str(4 - row), size=12, fill="#555"))
    # the piece in hand, then the pieces left (two rows of eight), below the board
    y = top + 4 * C + 34
    hand = position.piece
    box = 56
    parts.append(text_element(8, y + box / 2 + 4, "In hand", anchor="start", weight="bold", size=12))
    parts.append(f'<rect x="70" y="{y}" width="{box}" height="{box}" rx="8" fill="#fff8e1" stroke="#ffb300"/>')
    if hand is not None:
        parts.append(f'<g class="hand" data-piece="{Piece(hand).name}">'
                     + piece_svg(hand, 70 + box / 2, y + box / 2, box - 8) + "</g>")
        parts.append(text_element(70 + box + 10, y + box / 2 + 4, f"{Piece(hand).name}: {Piece(hand).describe()}",
                                  anchor="start", size=11))
    y += box + 22
    parts.append(text_element(8, y, "Pieces left", anchor="start", weight="bold", size=12))
    y += 8
    for i, p in enumerate(position.available_pieces()):
        px = 8 + (i % 8) * small
        py = y + (i // 8) * small
        legal = int(p) in legal_pieces
        parts.append(f'<g class="left"{" data-legal=" + chr(34) + "1" + chr(34) if legal else ""} '
                     f'data-piece="{Piece(p).name}">')
        parts.append(f'<rect x="{px}" y="{py}" width="{small - 3}" height="{small - 3}" rx="6" '
                     f'fill="{"#e3f2fd" if legal else "#fafafa"}" stroke="#cfd8dc"/>')
        parts.append(piece_svg(p, px + (small - 3) / 2, py + (small - 3) / 2, small - 7))
        parts.append("</g>")
    left_over = len(position.available_pieces())
    height = y + max(1, (left_over + 7) // 8) * small + 6
    body = "\n".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="quarto-board" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" style="max-width:100%;height:auto;{FONT}">\n'
            f'<rect width="100%" height="100%" fill="#fff"/>\n{body}\n</svg>\n')


def quarto_status(position: Position) -> str:
    """One line: who places which piece, who won, or a draw."""
    if position.over:
        if position.winner is not None:
            return f"Game over: player {position.winner} completed a line and wins."
        return "Game over: a draw (the board is full)."
    if position.piece is None:
        return f"Player {position.to_move} chooses the first piece for the opponent."
    return f"Player {position.to_move} places {position.piece} and gives the next piece."


def state_svg(state: Any) -> str:
    """The picture of a Quarto game state (the game's registered ``svg`` part)."""
    return quarto_svg(state.position)


__all__ = ["quarto_svg", "piece_svg", "quarto_status", "state_svg"]
