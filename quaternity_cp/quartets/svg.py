"""The picture of the game ``"quartets"``: the knowledge grid of a Quaternity position as SVG.

The grid has a row per card in play and a column per seat: a green square
where the seat must hold the card (forced), a dot where it may, a faint point
where it cannot. Column heads carry each seat's name, hand size and score, the
seat on turn is marked, claimed sets are listed below, and the open question's
cell is outlined. The picture scales to the width it is given (a ``viewBox``),
and its long texts wrap (the status, who may hold a whole set, the rows of
claimed sets) instead of widening it. With ``probabilities`` (from :mod:`quaternity_cp.quartets.count`) each
cell shows the exact chance instead of a dot.

Every cell is an element with ``data-card``, ``data-seat`` and ``data-state``
(``forced``, ``possible`` or ``impossible``), and every claimed set one with
``data-set`` and ``data-seat``, so that pages and tests can read the picture.

>>> from quaternity_cp import Game, Position
>>> pos = Position(Game(3, 2, 3))
>>> _ = pos.push_str("0>1:A0+")
>>> svg = grid_svg(pos)
>>> svg.startswith("<svg") and 'data-card="A0" data-seat="0" data-state="forced"' in svg
True

A :class:`~quaternity_cp.quartets.position.Position` shows itself as this grid in a
notebook once this package is loaded (``import quaternity_cp.quartets``, which
:func:`quaternity_cp.registry.load_all` does): the core never imports its pictures.
"""

from __future__ import annotations

from fractions import Fraction
from html import escape
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .constraints import Constraints, bits
from ..names import seat_names
from ..svg import FONT, text_element, text_lines, wrap_html, wrap_words

if TYPE_CHECKING:  # pragma: no cover
    from .position import Position

ROW = 22  # height of a card row
GAP = 6  # space between two sets
LABEL = 56  # width of the card-name column
QUARTET = 112  # width of the "whole set" column (its text wraps)
LINE = 13  # height of one line of wrapped 11 px text

FORCED_FILL = "#2e7d32"
POSSIBLE_FILL = "#37474f"
IMPOSSIBLE_FILL = "#c5c9cc"
TURN_FILL = "#fff3c4"
QUESTION_STROKE = "#d84315"
LEGAL_FILL = "#e3f2fd"
CLAIM_FILL = "#6a1b9a"


def _fraction_text(p: Fraction) -> str:
    if p == 1:
        return "1"
    if p == 0:
        return "0"
    return f"{float(p):.2f}".lstrip("0") if p < 1 else f"{float(p):.2f}"


def grid_svg(
    position: Position,
    *,
    constraints: Constraints | None = None,
    probabilities: Mapping[int, Mapping[int, Fraction]] | None = None,
    note: str | None = None,
    legal: Mapping[tuple[int, int], str] | None = None,
    mine: Iterable[int] = (),
    viewer: int | None = None,
) -> str:
    """The knowledge grid of ``position`` as an SVG document (a string).

    ``constraints`` replaces the position's own (a player's private view:
    the same claims, scores and turn, narrower domains). ``probabilities``:
    card -> seat -> chance, shown in the cells. ``note``: one line above the
    grid (an illegal move, say). ``legal``: (card, seat) cells where the viewer
    may ask that seat for that card, mapped to the action's text: tinted, and
    marked ``data-legal`` and ``data-action``.
    ``mine``: cards the viewer holds, ``viewer``: that seat (its column is
    labelled "you").
    """
    g = position.game
    st = position.state
    c = constraints if constraints is not None else st.constraints
    analysis = position.analysis() if constraints is None else position.engine.analyze(c)
    P = g.players
    names = seat_names(g, viewer)
    col = max([44] + [7 * len(n) + 14 for n in names])
    legal = dict(legal or {})
    mine = set(mine)
    sets = list(c.sets_in_play)
    forced_q = analysis.forced_quartets(c) if analysis.feasible else {}

    qx = LABEL + P * col + 8  # the "whole set" column
    width = qx + QUARTET
    text_room = width - 16
    parts: list[str] = []
    y = 18
    # -- status lines (wrapped to the grid's width) ---------------------------------------
    status = _status_line(position, viewer)
    lines = wrap_words(status, text_room, 13, bold=True)
    parts.append(text_lines(8, y, lines, size=13, step=17, cls="status", weight="bold"))
    y += 17 * len(lines) + 1
    notes: list[tuple[str, str, str]] = []
    if note:
        notes.append((note, "#b71c1c", "note"))
    if not analysis.feasible:
        notes.append(("No consistent deal: the position is invalid.", "#b71c1c", "invalid"))
    if st.pending is not None:
        ans = position.answers() if constraints is None else None
        text = f"Open question {g.move_str(st.pending)}"
        if ans is not None:
            legal_answers = [k for k in ("yes", "no") if ans[k]]
            text += ": legal answer" + ("s " if len(legal_answers) != 1 else " ") + (
                " and ".join(legal_answers) if legal_answers else "none")
        notes.append((text, QUESTION_STROKE, "question"))
    for text, fill, cls in notes:
        lines = wrap_words(text, text_room, 12)
        parts.append(text_lines(8, y, lines, size=12, step=15, cls=cls, fill=fill))
        y += 15 * len(lines) + 3

    # -- column heads -------------------------------------------------------------------
    head_top = y + 2
    x0 = LABEL
    turn = set(st.turn)
    for p in range(P):
        x = x0 + p * col
        attrs = f' data-seat="{p}"' + (' data-turn="1"' if p in turn else "")
        parts.append(f'<g class="seat"{attrs}>')
        if p in turn:
            parts.append(f'<rect x="{x + 1}" y="{head_top}" width="{col - 2}" height="50" rx="4" fill="{TURN_FILL}"/>')
            parts.append(text_element(x + col / 2, head_top + 11, "▼ turn", size=10, fill="#8d6e00"))
        parts.append(text_element(x + col / 2, head_top + 25, names[p], weight="bold", size=12))
        cards = f"{c.hands[p]} card" + ("" if c.hands[p] == 1 else "s")
        parts.append(text_element(x + col / 2, head_top + 38, cards, size=10, fill="#555"))
        parts.append(text_element(x + col / 2, head_top + 49, f"score {st.scores[p]}", size=10, fill="#555",
                           cls="score", extra=f' data-score="{st.scores[p]}"'))
        parts.append("</g>")
    if sets:
        parts.append(text_element(qx, head_top + 25, "whole set", anchor="start", size=10, fill="#555"))
        parts.append(text_element(qx, head_top + 38, "may be with", anchor="start", size=10, fill="#555"))
    y = head_top + 56

    # -- rows ---------------------------------------------------------------------------------
    pending = st.pending
    S = g.set_size
    for s in sets:
        top = y
        for i, card in enumerate(range(s * S, (s + 1) * S)):
            owners = analysis.owners[card] if analysis.feasible else 0
            forced = analysis.forced_owner(card) if analysis.feasible else None
            cy = y + ROW / 2
            shade = "#f7f7f7" if i % 2 == 0 else "#ffffff"
            name = g.card_name(card)
            parts.append(f'<g class="card" data-card="{escape(name)}">')
            parts.append(f'<rect x="0" y="{y}" width="{x0 + P * col}" height="{ROW}" fill="{shade}"/>')
            parts.append(text_element(8, cy + 4, name + (" ★" if card in mine else ""), anchor="start", size=12,
                               weight="bold" if card in mine else "normal", cls="card-label"))
            for p in range(P):
                x = x0 + p * col
                cx = x + col / 2
                state = "forced" if forced == p else "possible" if owners >> p & 1 else "impossible"
                extra = ""
                if (card, p) in legal:
                    extra = f' data-legal="1" data-action="{escape(legal[card, p])}"'
                parts.append(f'<g class="cell {state}" data-card="{escape(name)}" data-seat="{p}" '
                             f'data-state="{state}"{extra}>')
                if (card, p) in legal:  # the tint is the click target too
                    parts.append(f'<rect x="{x + 1}" y="{y + 1}" width="{col - 2}" height="{ROW - 2}" rx="3" '
                                 f'fill="{LEGAL_FILL}"/>')
                prob = probabilities.get(card, {}).get(p) if probabilities is not None else None
                if probabilities is not None and state != "impossible":
                    prob = prob if prob is not None else Fraction(0)
                    if state == "forced":
                        parts.append(f'<rect x="{x + 4}" y="{y + 3}" width="{col - 8}" height="{ROW - 6}" rx="3" '
                                     f'fill="{FORCED_FILL}"/>')
                        parts.append(text_element(cx, cy + 4, "1", size=11, fill="#fff", weight="bold"))
                    else:
                        alpha = 0.12 + 0.6 * float(prob)
                        parts.append(f'<rect x="{x + 4}" y="{y + 3}" width="{col - 8}" height="{ROW - 6}" rx="3" '
                                     f'fill="#1565c0" fill-opacity="{alpha:.2f}"/>')
                        parts.append(text_element(cx, cy + 4, _fraction_text(prob), size=11, cls="prob",
                                           extra=f' data-prob="{prob}"'))
                elif state == "forced":
                    parts.append(f'<rect x="{cx - 7}" y="{cy - 7}" width="14" height="14" rx="2" fill="{FORCED_FILL}"/>')
                elif state == "possible":
                    parts.append(f'<circle cx="{cx}" cy="{cy}" r="4.5" fill="{POSSIBLE_FILL}"/>')
                else:
                    parts.append(f'<circle cx="{cx}" cy="{cy}" r="1.6" fill="{IMPOSSIBLE_FILL}"/>')
                if pending is not None and pending.card == card and pending.target == p:
                    parts.append(f'<rect x="{x + 2}" y="{y + 1}" width="{col - 4}" height="{ROW - 2}" rx="3" '
                                 f'fill="none" stroke="{QUESTION_STROKE}" stroke-width="2"/>')
                parts.append("</g>")
            parts.append("</g>")
            y += ROW
        # whole-set column for this set: its text wraps, and a set whose text needs more lines than it has
        # rows gets the room below its rows
        holders = list(bits(analysis.quartets[s])) if analysis.feasible else []
        fq = forced_q.get(s)
        if fq is not None:
            text, fill, weight = f"{names[fq]} (forced)", FORCED_FILL, "bold"
        else:
            text = "anyone" if P > 2 and len(holders) == P else ", ".join(names[p] for p in holders) or "nobody"
            fill, weight = "#555", "normal"
        lines = wrap_words(f"{g.set_name(s)}: {text}", QUARTET - 6, 11)
        first = top + ROW // 2 + 4 if len(lines) == 1 else top + 12
        attrs = f' data-set="{escape(g.set_name(s))}"' + (f' data-forced="{fq}"' if fq is not None else "")
        parts.append(f'<g class="quartet"{attrs}>')
        parts.append(text_lines(qx, first, lines, size=11, step=LINE, cls="holders", fill=fill, weight=weight))
        parts.append("</g>")
        y = max(y, first + LINE * (len(lines) - 1) + 4) + GAP

    # -- claimed sets: chips that wrap onto new rows -------------------------------------------
    claimed = sorted(position.claimed.items())
    if claimed:
        y += 8
        parts.append(text_element(8, y + 4, "Claimed:", anchor="start", weight="bold", size=12))
        x = 70
        for s, p in claimed:
            label = f"{g.set_name(s)} by {names[p]}"
            w = 7 * len(label) + 16
            if x > 70 and x + w > width - 4:
                x, y = 70, y + 24
            parts.append(f'<g class="claimed" data-set="{escape(g.set_name(s))}" data-seat="{p}">')
            parts.append(f'<rect x="{x}" y="{y - 10}" width="{w}" height="20" rx="10" fill="{CLAIM_FILL}"/>')
            parts.append(text_element(x + w / 2, y + 4, label, size=11, fill="#fff"))
            parts.append("</g>")
            x += w + 6
        y += 16
    y += 6
    body = "\n".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="quaternity-grid" width="{width:g}" height="{y:g}" '
            f'viewBox="0 0 {width:g} {y:g}" style="max-width:100%;height:auto;{FONT}">\n'
            f'<rect width="100%" height="100%" fill="#fff"/>\n{body}\n</svg>\n')


def _status_line(position: Position, viewer: int | None = None) -> str:
    g = position.game
    names = seat_names(g, viewer)
    if position.over:
        if position.loser is not None:
            lead = f"Game over: {names[position.loser]} lost by an illegal move."
        else:
            lead = "Game over."
        winners = position.winners()
        return f"{lead} Winner{'s' if len(winners) > 1 else ''}: " + (
            ", ".join(names[p] for p in winners) if winners else "nobody")
    turn = position.turn
    if len(turn) == 1:
        return f"Turn: {names[turn[0]]}"
    return "Turn: free choice among " + ", ".join(names[p] for p in turn)


def position_html(position: Position) -> str:
    """The grid of ``position`` as an HTML fragment (a :class:`~quaternity_cp.quartets.position.Position`'s notebook picture)."""
    return wrap_html(grid_svg(position))


def state_svg(state: Any) -> str:
    """The picture of a quartets game state (the game's registered ``svg`` part): the grid of its public record."""
    from .formats import record_from_json
    from .replay import replay

    return grid_svg(replay(record_from_json(state.record()), mark_forced=False, history=False).position)


__all__ = ["grid_svg", "position_html", "state_svg"]
