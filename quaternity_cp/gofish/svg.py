"""Quantum Go Fish's picture: the table of what is known, as SVG.

One row per player (its name and how many cards it holds), one column per
suit; each cell shows the exact range of that player's count of that suit over
the consistent tables: one number when it is fixed, ``lo–hi`` otherwise, on a
tint that is darker the more is known. A cell where a player provably holds the
whole suit (a four) is outlined; the open question's cell (the asked player,
the suit) is marked. Every cell is an element with ``data-player``,
``data-suit``, ``data-low`` and ``data-high``, so that pages and tests can read
the picture. The picture is the public view: everything in it was said aloud.

>>> from quaternity_cp.gofish.game import GoFish
>>> g = GoFish(3)
>>> _ = g.push("0>1:A+")
>>> svg = bounds_svg(g)
>>> svg.startswith("<svg") and 'data-player="0" data-suit="0" data-low="2" data-high="4"' in svg
True
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..svg import FONT
from .game import GoFish
from .words import status_line

CELL_W, CELL_H, NAME_W, HEAD_H = 64, 34, 110, 30
CHAR_W = 8  # about the width of a character of the picture's font, in pixels
FIXED, OPEN, FOUR, ASKED = "#c8e6c9", "#ffffff", "#2e7d32", "#d84315"


def _tint(low: int, high: int, size: int) -> str:
    """White when nothing is known of the cell, pale green as its range narrows, green when fixed."""
    if low == high:
        return FIXED
    known = 1 - (high - low) / size
    level = int(255 - 40 * known)
    return f"#{level:02x}{255:02x}{level:02x}"


def bounds_svg(game: GoFish, *, note: str | None = None, status: bool = True,
               names: "list[str] | None" = None) -> str:
    """The table of bounds of ``game``'s current position (see the module's docstring); ``names``: each seat as
    the reader calls it (the web table: "You", "Seat 1"), default its name or ``seat N``."""
    b = game.bounds()
    setup = game.setup
    P, K, S = setup.player_count, setup.suit_count, setup.suit_size
    hands = game.hands()
    fours = {(p, s) for p in range(P) for s in range(K) if b.feasible and b.low[p][s] == S}
    q = game.pending
    labels = [f"{names[p] if names is not None else ('seat ' if not setup.named_players else '') + player} "
              f"({hands[p]})" for p, player in enumerate(setup.players)]
    # long names widen their column (about CHAR_W a character): nothing overlaps, nothing is cut
    name_w = max(NAME_W, CHAR_W * max(len(label) for label in labels) + 30)
    cell_w = max(CELL_W, CHAR_W * max(len(suit) for suit in setup.suits) + 12)
    lines = [status_line(game)] if status else []
    if note:
        lines.append(note)
    width = max(name_w + K * cell_w + 10, max((CHAR_W * len(line) + 12 for line in lines), default=0))
    height = HEAD_H + P * CELL_H + 10 + 20 * len(lines)
    parts = []
    for s, suit in enumerate(setup.suits):
        x = name_w + s * cell_w + cell_w / 2
        parts.append(f'<text x="{x:.0f}" y="{HEAD_H - 10}" text-anchor="middle" font-weight="bold">'
                     f'{escape(suit)}</text>')
    for p, player in enumerate(setup.players):
        y = HEAD_H + p * CELL_H
        turn = not game.over and q is None and game.turn == p
        label = labels[p]
        weight = ' font-weight="bold"' if turn else ""
        parts.append(f'<text x="6" y="{y + CELL_H / 2 + 5:.0f}" data-hand="{hands[p]}"{weight}>'
                     f'{escape(("▶ " if turn else "") + label)}</text>')
        for s in range(K):
            x = name_w + s * cell_w
            lo, hi = (b.low[p][s], b.high[p][s]) if b.feasible else (0, 0)
            stroke = FOUR if (p, s) in fours else ASKED if q is not None and q.asked == p and q.suit == s else "#999"
            width_line = 3 if stroke != "#999" else 1
            parts.append(
                f'<g data-player="{p}" data-suit="{s}" data-low="{lo}" data-high="{hi}">'
                f'<rect x="{x + 2}" y="{y + 2}" width="{cell_w - 4}" height="{CELL_H - 4}" rx="4" '
                f'fill="{_tint(lo, hi, S)}" stroke="{stroke}" stroke-width="{width_line}"/>'
                f'<text x="{x + cell_w / 2:.0f}" y="{y + CELL_H / 2 + 5:.0f}" text-anchor="middle">'
                f'{lo if lo == hi else f"{lo}–{hi}"}</text></g>')
    y = HEAD_H + P * CELL_H + 24
    for line in lines:
        parts.append(f'<text x="6" y="{y}">{escape(line)}</text>')
        y += 20
    body = "\n".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="gofish-table" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" style="max-width:100%;height:auto;{FONT}">\n'
            f'<rect width="100%" height="100%" fill="#fff"/>\n{body}\n</svg>\n')


def state_svg(state: Any) -> str:
    """The picture of a Go Fish game state (the game's registered ``svg`` part)."""
    return bounds_svg(state.game)


__all__ = ["bounds_svg", "state_svg", "status_line"]
