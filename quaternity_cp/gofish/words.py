"""Quantum Go Fish in words: how a seat is named and the one line saying where a game stands.

The command line, the picture, the report and the web table say the same thing
the same way: who is to ask, who must answer (and which answers are legal), or
who won and how.
"""

from __future__ import annotations

from typing import Callable

from ..names import seat_name
from .game import GoFish


def seat_text(game: GoFish, seat: int | None) -> str:
    """``seat`` for a reader: its player's name, else ``seat N``; ``nobody`` for None."""
    if seat is None:
        return "nobody"
    s = game.setup
    return seat_name(list(s.players) if s.named_players else None, seat)


def article(suit: str) -> str:
    """A suit asked for, with its article: "an A", "a B" for a lettered suit (by how the letter is said: "an F",
    "an H"); a named suit as it is ("Narwhals").

    >>> article("A"), article("B"), article("F"), article("Narwhals")
    ('an A', 'a B', 'an F', 'Narwhals')
    """
    if len(suit) > 1:
        return suit
    return ("an " if suit.upper() in "AEFHILMNORSX" else "a ") + suit


def capitalised(text: str) -> str:
    """A sentence's first word with a capital (``seat 2`` -> ``Seat 2``; names as they are)."""
    return text[:1].upper() + text[1:]


def priority_note(game: GoFish, name: "Callable[[int], str] | None" = None) -> str | None:
    """When the game ended with wins for several players at once (the asker's determination and another's four,
    or fours of several players), which rule of the option ``priority`` chose the winner, as a sentence; None when
    only one player could win. ``name`` names a seat (default :func:`seat_text`).

    >>> g = GoFish(2)
    >>> _ = g.push("0>1:B-")
    >>> g.outcome
    Outcome(winner=0, reason='determined', loser=None)
    >>> print(priority_note(g))
    Seat 1 held a whole suit at the same moment, but under the rule priority = mover the asker's win comes first: every hand is determined on seat 0's question.
    """
    out = game.outcome
    if out is None or out.winner is None or not game.moves:
        return None
    who = name if name is not None else (lambda seat: seat_text(game, seat))
    mover = game.parse_move(game.moves[-1]).asker
    b = game.bounds()
    determined = b.feasible and b.determined
    fours = game.fours()
    if len(({mover} if determined else set()) | set(fours)) < 2:
        return None  # one player could win: no rule had to choose
    P = game.players
    order = [(mover + i) % P for i in range(P)]
    holders = [p for p in order if p in fours]
    if game.rules.priority == "mover":
        if determined:
            others = [p for p in holders if p != mover]
            return (f"{capitalised(_join([who(p) for p in others]))} held a whole suit at the same moment, but "
                    f"under the rule priority = mover the asker's win comes first: every hand is determined on "
                    f"{_possessive(who(mover))} question.")
        return (f"{capitalised(_join([who(p) for p in holders]))} held a whole suit at the same moment; under the "
                f"rule priority = mover the asker's four comes first, then the first counting on from the asker: "
                f"{who(out.winner)}.")
    also = "; every hand was determined as well, on the asker's question" if determined else ""
    return (f"{capitalised(_join([who(p) for p in holders]))} held a whole suit at the same moment{also}; under the "
            f"rule priority = four-first a four comes first, the first counting on from the asker "
            f"({who(mover)}): {who(out.winner)}.")


def _possessive(name: str) -> str:
    return "your" if name.lower() == "you" else f"{name}'s"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def status_line(game: GoFish) -> str:
    """Who won and how, or who is to ask, or who is to answer which question (and what it may answer)."""
    out = game.outcome

    def who(seat: int | None) -> str:
        return seat_text(game, seat)

    def Who(seat: int | None) -> str:  # noqa: N802 (at the start of a sentence)
        return capitalised(seat_text(game, seat))

    if out is not None:
        note = priority_note(game)  # several could win at once: the rule that chose
        also = f" {note}" if note else ""
        if out.reason == "determined":
            return f"Game over: {who(out.winner)} wins: every hand is determined on its turn.{also}"
        if out.reason == "four":
            return f"Game over: {who(out.winner)} wins: it provably holds a whole suit.{also}"
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


__all__ = ["seat_text", "article", "capitalised", "priority_note", "status_line"]
