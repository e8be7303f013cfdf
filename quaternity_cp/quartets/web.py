"""The web view of the game ``"quartets"``: what the web table shows, from the game's record and the person's view.

The record is replayed (:func:`quaternity_cp.replay.replay`); the grid is the
public constraint state, or in classic the person's private one
(:mod:`quaternity_cp.knowledge`: the public state plus its own hand, as
``analyze --as SEAT`` shows it). Explanations come from
:mod:`quaternity_cp.explain`, probabilities from :mod:`quaternity_cp.count`.
The game's registered ``web`` part: :func:`view` and :func:`explain`; the
table is a :class:`quaternity_cp.web.session.WebGame`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..count import CountLimitError, DealCounter
from ..errors import QuaternityError
from ..game import Declaration
from .report import explanation_lines
from .svg import grid_svg

MAX_COUNT_STATES = 500_000  # probabilities beyond this table size are refused with a note
PROBABILITIES = True  # the view shows each card's exact probabilities on demand


@dataclass
class QuartetsView:
    """The person's view of a quartets game: the record, its replay, the grid's constraints."""

    record: Any
    result: Any
    constraints: Any  # the private constraints in classic, the public ones otherwise
    hand: list[int]
    classic: bool


def quartets_knowledge(table: Any) -> QuartetsView:
    """The person's view of the table's game: its record replayed and, in classic, its private constraints."""
    from ..formats import record_from_json
    from ..replay import replay

    record = record_from_json(table.full_record())
    result = replay(record, mark_forced=False)
    if record.deal is None:
        return QuartetsView(record, result, result.position.constraints, [], False)
    from ..knowledge import seat_view

    hand, constraints = seat_view(record, result, table.human)
    return QuartetsView(record, result, constraints, hand, True)


def view(table: Any, *, probabilities: bool = False) -> dict[str, Any]:
    """What the web table shows of a quartets game (its grid, the person's legal moves, the log), as JSON data."""
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


def explain(table: Any, *, card: str | None = None, set_name: str | None = None, seat: int | None = None) -> list[str]:
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
    lines = [line for e in facts for line in explanation_lines(record, e)]
    if not lines and k.classic:
        who = "nobody" if seat is None else (g.player_name(seat) if g.named_players else f"seat {seat}")
        return [f"Not known in public: it follows from the public record together with your own hand"
                f" ({' '.join(g.card_name(c) for c in k.hand) or 'no cards'})"
                + ("" if card is None else f" that {card} is with {who}") + "."]
    return lines or ["Nothing to explain here."]


__all__ = ["view", "explain", "quartets_knowledge", "QuartetsView"]
