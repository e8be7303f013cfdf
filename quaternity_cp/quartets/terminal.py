"""``quaternity play`` for the game ``"quartets"``: the grid in the terminal, typed moves, explanations.

:mod:`quaternity_cli.cmd_play` runs the game loop for every game and finds this module by the game's name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from .constraints import bits
from .count import CountLimitError, CountLimits, DealCounter
from .formats import record_from_json
from .game import Question
from ..names import seat_name, seat_names
from .cli.render import owner_cells
from .web import COUNT_SECONDS, MAX_COUNT_STATES, explain, quartets_knowledge

if TYPE_CHECKING:
    from rich.console import Console

    from ..web.session import WebGame

#: The lines of ``help`` for Quartets: its moves and its own commands.
HELP = """  1 A0 / ask 1 A0 / 0>1:A0?   ask seat 1 for card A0 (the prompt shows a question legal now; names if
                              the players have them)
  yes / no                    answer the question put to you (when both answers are legal)
  declare B                   declare set B (rules with declarations)
  grid       the grid of who may hold each card    prob   the grid with each card's exact chances
  why A0     why A0 is where it is                 why B  why set B was claimed"""

#: The last lines of ``help``: the marks of the grid.
LEGEND = "The grid: ■ the card must be with that player, ● it may be, · it cannot be; ★ your cards (classic)."


def show(out: Console, table: WebGame, *, probabilities: bool = False, quiet: bool = False) -> None:
    """The grid of who may hold each card (with exact probabilities on demand), the scores, then whose turn it
    is; at the end only the grid (the last line, :func:`final_text`, has the scores)."""
    k = quartets_knowledge(table)
    pos = k.result.position
    g = k.record.game
    c = k.constraints
    analysis = pos.engine.analyze(c)
    probs = None
    if probabilities:
        try:
            probs = DealCounter(c, limits=CountLimits(max_states=MAX_COUNT_STATES, max_seconds=COUNT_SECONDS)).card_probabilities()
        except CountLimitError:
            out.print("Too many deals to count exactly here.")
    names = seat_names(g)
    if c.sets_in_play and not (quiet and table.state.is_terminal()):
        marks = "1 forced, · impossible" if probs is not None else "■ forced, ● possible, · impossible"
        grid = Table(title=("Chance that each player holds each card" if probs is not None else
                            "Who may hold each card") + f" ({marks}" + ("; ★ your cards)" if k.hand else ")"),
                     title_justify="left")
        grid.add_column("card")
        for p in range(g.players):
            label = g.seat_name(p, table.human)
            grid.add_column(f"{label}\n({c.hands[p]})", justify="center")
        grid.add_column("whole set may be with")
        for s in c.sets_in_play:
            for i, card in enumerate(c.cards_of(s)):
                cells = owner_cells(analysis, card, g.players, probs)
                whole = ""
                if i == 0:
                    holders = [names[p] for p in bits(analysis.quartets[s])]
                    whole = ", ".join(holders) or "nobody"
                grid.add_row(g.card_name(card) + (" ★" if card in k.hand else ""), *cells, whole)
        out.print(grid)
    if table.state.is_terminal():
        return
    view = table.view()
    scores = ", ".join(f"{g.seat_name(p, table.human)}: {int(s)}" for p, s in enumerate(view["scores"]))
    claimed = ", ".join(f"{s} by {g.seat_name(p, table.human)}" for s, p in view["claimed"].items())
    out.print(f"Scores: {scores}" + (f"; claimed: {claimed}" if claimed else ""))
    if view["your_turn"]:
        if view["answers"]:
            out.print(Text(f"You are asked {view['pending']}: answer yes or no.", style="bold"))
        else:
            sample = example(table)
            out.print(Text("Your turn: ask" + (f" (e.g. '{sample}')" if sample else "") + ", "
                           + ("declare a set, " if view["declarations"] else "") + "or type 'help'.", style="bold"))


def command(out: Console, table: WebGame, word: str, rest: str) -> bool:
    """Quartets' own commands (``grid``, ``prob``, ``why A0``, ``why B``); False for anything else (a move)."""
    if word in ("grid", "board"):
        show(out, table)
    elif word in ("prob", "probabilities"):
        show(out, table, probabilities=True)
    elif word == "why" and rest:
        for text in why(table, rest):
            out.print(Text(text))
    else:
        return False
    return True


def to_action(table: WebGame, line: str) -> str:
    """The action text for what the person typed: a move as written in records, or a short form
    (``1 A0``, ``ask 1 A0``, ``yes``, ``no``, ``declare B``)."""
    legal = table.legal_texts()
    text = line.strip()
    g = record_from_json(table.record()).game
    low = text.lower()
    if low in ("yes", "y", "no", "n"):
        want = low.startswith("y")
        for t in legal:
            m = g.parse_move(t)
            if getattr(m, "answer", None) is want:
                return t
        raise ValueError(f"'{text}' is not a legal answer now" if any(
            getattr(g.parse_move(t), "answer", None) is not None for t in legal) else "nobody asked you anything")
    parts = text.split()
    if parts and parts[0].lower() == "ask":
        parts = parts[1:]
    if parts and parts[0].lower() == "declare" and len(parts) == 2:
        return f"{g.player_name(table.human)}!{parts[1]}"
    if len(parts) == 2 and not re.search(r"[>!:]", text):
        return f"{g.player_name(table.human)}>{parts[0]}:{parts[1]}?"
    if re.fullmatch(r".+>.+:[^?+-]+", text):
        return text + "?"
    return text


def final_text(table: WebGame) -> str:
    """The last line: the scores, how a tie for first was decided (in the web table's words: drawn by lot,
    shared, nobody), the winners ("you" for the person, as everywhere else), and the outcome for the
    person: "You won.", "You lost." or "A draw: nobody won." """
    view = table.view()
    names = [seat_name(view["players"], p, table.human) for p in range(len(view["players"]))]
    result = view["result"]
    winners = result["winners"]
    scores = ", ".join(f"{name}: {int(s)}" for name, s in zip(names, view["scores"]))
    words = result.get("text", "")
    # the web table's sentence on a tie for first (or a game stopped unfinished), without its tally of sets
    said = words.split(" Sets: ")[0].strip() if words.startswith(("Tie for first", "The game stopped")) \
        or " lost by an illegal move" in words else ""
    text = f"Game over. Scores: {scores}." + (f" {said}" if said else "")
    if not winners:
        return text + " A draw: nobody won."
    who = ", ".join(names[p] for p in winners)
    return (text + f" Winner{'s' if len(winners) > 1 else ''}: {who}. "
            + ("You won." if result["outcome"] == "won" else "You lost."))


def example(table: WebGame) -> str | None:
    """A question the person may ask now, in the short form the prompt suggests ("1 B2"), or None."""
    g = record_from_json(table.record()).game
    for text in table.legal_texts():
        move = g.parse_move(text)
        if isinstance(move, Question) and move.answer is None:
            return f"{g.player_name(move.target)} {g.card_name(move.card)}"
    return None


def why(table: WebGame, subject: str) -> list[str]:
    """``why A0`` (a card) or ``why B`` (a set): the explanation, as lines."""
    if re.fullmatch(r"[A-Za-z]+[0-9]+", subject):
        return explain(table, table.human, card=subject)
    return explain(table, table.human, set_name=subject)


__all__ = ["HELP", "LEGEND", "show", "command", "to_action", "final_text", "why", "example"]
