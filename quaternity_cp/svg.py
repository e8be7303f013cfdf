"""Pictures: the game-free helpers of every game's SVG drawing (:mod:`quaternity_cp.quartets.svg`,
:mod:`quaternity_cp.quarto.svg`) and the HTML wrapping for notebooks.

A game's picture of a state is its registered part (``GAMES[name].svg(state)``).

>>> text_element(8, 18, "Turn: seat 0", anchor="start")
'<text x="8" y="18" font-size="12" text-anchor="start" font-weight="normal" fill="#222">Turn: seat 0</text>'
>>> wrap_words("A: seat 0, seat 1, seat 2", 70)
['A: seat 0,', 'seat 1,', 'seat 2']
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


def wrap_words(text: str, width: float, size: int = 11, *, bold: bool = False) -> list[str]:
    """``text`` cut at spaces into lines at most about ``width`` pixels wide at font ``size`` (``bold``: wider
    letters); a word longer than a line keeps a line of its own."""
    room = max(4, int(width / ((0.7 if bold else 0.6) * size)))
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= room:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def text_lines(x: float, y: float, lines: list[str], *, size: int, step: float, cls: str, fill: str = "#222",
               weight: str = "normal", extra: str = "") -> str:
    """Lines of text as one ``text`` element (one ``tspan`` a line), the first line's baseline at ``y``."""
    spans = "".join(f'<tspan x="{x:g}" y="{y + i * step:g}">{escape(t)}</tspan>' for i, t in enumerate(lines))
    return (f'<text font-size="{size}" text-anchor="start" font-weight="{weight}" fill="{fill}" class="{cls}"'
            f'{extra}>{spans}</text>')


def wrap_html(svg: str) -> str:
    """An SVG picture as an HTML fragment (for notebooks)."""
    return f'<div class="quaternity" style="overflow:auto;max-height:640px">{svg}</div>'


__all__ = ["FONT", "text_element", "text_lines", "wrap_words", "wrap_html"]
