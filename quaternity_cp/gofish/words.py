"""Quantum Go Fish in words: how a seat is named and the one line saying where a game stands.

The command line, the picture, the report and the web table say the same thing
the same way: who is to ask, who must answer (and which answers are legal), or
who won and how.
"""

from __future__ import annotations

from ..names import seat_name
from .game import GoFish


def seat_text(game: GoFish, seat: int | None) -> str:
    """``seat`` for a reader: its player's name, else ``seat N``; ``nobody`` for None."""
    if seat is None:
        return "nobody"
    s = game.setup
    return seat_name(list(s.players) if s.named_players else None, seat)


def capitalised(text: str) -> str:
    """A sentence's first word with a capital (``seat 2`` -> ``Seat 2``; names as they are)."""
    return text[:1].upper() + text[1:]


def status_line(game: GoFish) -> str:
    """Who won and how, or who is to ask, or who is to answer which question (and what it may answer)."""
    out = game.outcome

    def who(seat: int | None) -> str:
        return seat_text(game, seat)

    def Who(seat: int | None) -> str:  # noqa: N802 (at the start of a sentence)
        return capitalised(seat_text(game, seat))

    if out is not None:
        if out.reason == "determined":
            return f"Game over: {who(out.winner)} wins: every hand is determined on its turn."
        if out.reason == "four":
            return f"Game over: {who(out.winner)} wins: it provably holds a whole suit."
        if out.reason == "invalid":
            return f"Game over: {who(out.loser)} loses by an illegal move; nobody wins."
        if out.reason == "draw":
            return "Game over: a draw, a position repeated."
        return "Game over: nobody has a legal question; nobody wins."
    q = game.pending
    if q is not None:
        answers = game.legal_answers()
        can = "yes or no" if len(answers) == 2 else "only yes" if answers == [True] else "only no"
        return (f"{Who(q.asked)} to answer {who(q.asker)}'s question for {game.setup.suits[q.suit]}: {can} "
                "can be answered.")
    return f"{Who(game.turn)} to ask."


__all__ = ["seat_text", "capitalised", "status_line"]
