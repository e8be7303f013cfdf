"""What the web table shows, computed by the library from a game's record and the person's view.

Quartets (every Quaternity preset and classic): the record is replayed
(:func:`quaternity_cp.replay.replay`); the grid is the public constraint state,
or in classic the person's private one (:mod:`quaternity_cp.knowledge`: the
public state plus its own hand, as ``analyze --as SEAT`` shows it).
Explanations come from :mod:`quaternity_cp.explain`, probabilities from
:mod:`quaternity_cp.count`. Quarto: the record is replayed by
:mod:`quaternity_cp.quarto.formats`; the verdict is the exact solver's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import QuaternityError
from ..game import Declaration
from ..svg import grid_svg, quarto_status, quarto_svg

MAX_COUNT_STATES = 500_000  # probabilities beyond this table size are refused with a note
QUARTO_SOLVE_SECONDS = 30.0  # the verdict on demand says "unproven" past this


@dataclass
class QuartetsView:
    """The person's view of a quartets game: the record, its replay, the grid's constraints."""

    record: Any
    result: Any
    constraints: Any  # the private constraints in classic, the public ones otherwise
    hand: list[int]
    classic: bool


def quartets_knowledge(table) -> QuartetsView:
    from ..formats import record_from_json
    from ..replay import replay

    record = record_from_json(table.full_record())
    result = replay(record, mark_forced=False)
    pos = result.position
    if record.deal is None:
        return QuartetsView(record, result, pos.constraints, [], False)
    from ..classic import Table
    from ..knowledge import private_constraints, public_constraints

    cards = Table(record.game, record.deal)
    for report in result.reports:
        cards.apply(report.move)
    hand = cards.hand(table.human)
    c = public_constraints(pos, settled=not cards.putdowns_due())
    return QuartetsView(record, result, private_constraints(c, table.human, hand), hand, True)


def quartets_view(table, *, probabilities: bool = False) -> dict[str, Any]:
    k = quartets_knowledge(table)
    record, pos = k.record, k.result.position
    g = record.game
    questions: dict[tuple[int, int], str] = {}
    answers: list[dict[str, str]] = []
    declarations: list[dict[str, str]] = []
    for text in table.legal_texts():
        move = g.parse_move(text)
        if isinstance(move, Declaration):
            declarations.append({"text": text, "set": g.set_name(move.set)})
        elif move.answer is None:
            questions[move.card, move.target] = text
        else:
            answers.append({"text": text, "answer": "yes" if move.answer else "no"})
    probs, note = None, None
    if probabilities:
        from ..count import CountLimitError, DealCounter

        try:
            counter = DealCounter(k.constraints, MAX_COUNT_STATES)
            probs = counter.card_probabilities() if counter.count() else None
        except CountLimitError:
            note = "Too many deals to count exactly here; the grid shows who may hold each card."
    svg = grid_svg(pos, constraints=k.constraints if k.classic else None, probabilities=probs, legal=questions,
                   mine=k.hand, viewer=table.human)
    names = [g.player_name(p) if g.named_players else f"seat {p}" for p in range(g.players)]
    return {
        "kind": "quartets",
        "svg": svg,
        "setup": f"{g.players} players, {g.sets} sets of {g.set_size} cards, rules {record.rules.name}",
        "players": names,
        "classic": k.classic,
        "hand": [g.card_name(c) for c in k.hand],
        "claimed": {g.set_name(s): p for s, p in sorted(pos.claimed.items())},
        "winners": pos.winners() if pos.over else None,
        "questions": len(questions),
        "answers": answers,
        "declarations": declarations,
        "pending": None if pos.pending is None else g.move_str(pos.pending),
        "probabilities": probs is not None,
        "note": note,
        "log": [{"move": text, "you": _mover(move) == table.human} for move, text in zip(record.moves, record.texts)],
    }


def _mover(move) -> int:
    return move.player if isinstance(move, Declaration) else move.asker


def _lines(record, e) -> list[str]:
    from ..report import _lines as report_lines

    return report_lines(record, e)


def explain(table, *, card: str | None = None, set_name: str | None = None, seat: int | None = None) -> list[str]:
    """Why a card is where the grid says (or why a set was claimed), as lines of text."""
    from ..explain import Explainer, ExplanationError

    k = quartets_knowledge(table)
    record = k.record
    g = record.game
    try:
        if card is not None:
            c = g.card(card)
            if c in k.hand:
                return [f"{g.card_name(c)} is in your hand."]
            facts = Explainer(record, k.result).card(c, seat)
        elif set_name is not None:
            facts = Explainer(record, k.result).quartet(g.set(set_name))
        else:
            raise QuaternityError("say which card or set to explain")
    except ExplanationError:
        facts = []
    lines = [line for e in facts for line in _lines(record, e)]
    if not lines and k.classic:
        who = "nobody" if seat is None else (g.player_name(seat) if g.named_players else f"seat {seat}")
        return [f"Not known in public: it follows from the public record together with your own hand"
                f" ({' '.join(g.card_name(c) for c in k.hand) or 'no cards'})"
                + ("" if card is None else f" that {card} is with {who}") + "."]
    return lines or ["Nothing to explain here."]


# -- Quarto ------------------------------------------------------------------------------------------
def quarto_position(table):
    from ..quarto import formats as qf

    record = qf.record_from_json(table.record())
    result = qf.replay(record)
    if not result.valid:  # the state only ever applies legal moves
        raise QuaternityError(f"the game's record does not replay: {result.message}")
    return result.position


def quarto_view(table) -> dict[str, Any]:
    pos = quarto_position(table)
    cells, pieces, placements = set(), set(), {}
    from ..quarto.core import Cell, Piece

    for text in table.legal_texts():
        parts = text.split()
        if len(parts) == 1 and len(parts[0]) == 4:
            pieces.add(int(Piece.parse(parts[0])))
        else:
            cells.add(int(Cell.parse(parts[0])))
            if len(parts) == 2:
                pieces.add(int(Piece.parse(parts[1])))
    return {
        "kind": "quarto",
        "svg": quarto_svg(pos, legal_cells=cells, legal_pieces=pieces),
        "setup": "Quarto" + (", squares also win" if pos.squares else ""),
        "players": ["player 0", "player 1"],
        "status": quarto_status(pos),
        "winner": pos.winner,
        "piece": None if pos.piece is None else str(pos.piece),
        "empty_cells": len(pos.empty_cells()),
        "moves": table.legal_texts(),
        "log": [{"move": str(m), "you": i % 2 == table.human} for i, m in enumerate(pos.moves)],
    }


def quarto_verdict(table, max_seconds: float = QUARTO_SOLVE_SECONDS) -> dict[str, Any]:
    """The exact value of the Quarto position for the player to move, with a best move."""
    from ..quarto.solver import solve

    pos = quarto_position(table)
    if pos.over:
        return {"text": quarto_status(pos), "value": None}
    board = [None if p is None else int(p) for p in pos.board.as_tuple()]
    piece = None if pos.piece is None else int(pos.piece)
    res = solve(board, piece, squares=pos.squares, max_seconds=max_seconds)
    who = f"player {pos.to_move}"
    if res.value is None:
        return {"text": f"Unproven: the solver stopped after {res.nodes:,} positions ({res.status}); "
                        "ask again later in the game.", "value": None, "nodes": res.nodes}
    best = "" if res.best is None else f" Best move: {_move_text(res.best)}."
    return {"text": f"{who.capitalize()} (to move) can force a {res.value}.{best} "
                    f"({res.nodes:,} positions, {res.seconds:.2f} s)",
            "value": res.value, "best": None if res.best is None else _move_text(res.best), "nodes": res.nodes}


def _move_text(best) -> str:
    """A solver move, a Move or a (cell, piece) pair of numbers, in the record notation."""
    if not isinstance(best, tuple):
        return str(best)
    from ..quarto.core import Cell, Piece
    from ..quarto.position import Move

    cell, piece = best
    return str(Move(None if cell is None else Cell(cell), None if piece is None else Piece(piece)))


__all__ = ["quartets_view", "quarto_view", "quarto_verdict", "explain", "quartets_knowledge"]
