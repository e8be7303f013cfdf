"""Pictures: the game-free helpers of every game's SVG drawing (:mod:`quaternity_cp.quartets.svg`,
:mod:`quaternity_cp.quarto.svg`) and the HTML wrapping for notebooks.

A game's picture of a state is its registered part (``GAMES[name].svg(state)``).

>>> text_element(8, 18, "Turn: seat 0", anchor="start")
'<text x="8" y="18" font-size="12" text-anchor="start" font-weight="normal" fill="#222">Turn: seat 0</text>'
"""

from __future__ import annotations

from html import escape

FONT = "font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif"


def text_element(x: float, y: float, body: str, *, size: int = 12, anchor: str = "middle", weight: str = "normal",
                 fill: str = "#222", cls: str | None = None, extra: str = "") -> str:
    """One line of text at (x, y); ``body`` is escaped, ``extra`` is raw attributes (``' data-x="1"'``)."""
    c = f' class="{cls}"' if cls else ""
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}"{c}{extra}>{escape(body)}</text>')


def wrap_html(svg: str) -> str:
    """An SVG picture as an HTML fragment (for notebooks)."""
    return f'<div class="quaternity" style="overflow:auto;max-height:640px">{svg}</div>'


__all__ = ["FONT", "text_element", "wrap_html"]
