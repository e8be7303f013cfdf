"""``quaternity play --game gofish``: the table of bounds in the terminal and typed questions and answers.

The command's game loop (:mod:`quaternity_cli.cmd_play`) finds this module as the game's ``terminal`` part:
``HELP`` and ``LEGEND`` (its lines of ``help``), :func:`show`, :func:`command`, :func:`to_action` and
:func:`final_text`. A person types a move as in the records (``0>1:A?`` to ask, ``0>1:A+`` or ``0>1:A-`` to
answer) or shorter: ``1 A`` (ask seat 1 for an A) when on turn, ``yes``/``no`` (or ``y``, ``n``, ``+``,
``-``) when asked. At a table whose suits are named in play (option ``name_suits``), ``1 Narwhals`` asks seat 1
for a suit nobody has named or asked about yet and names it Narwhals (the first to ask names a suit).
``ask 1 A`` is the same as ``1 A``; a suit may be typed in any case and by the start of its name when that start
is one suit's only (``1 narw``); an unknown suit is refused with the list of the suits. The table's status line
shows a question legal now as an example; ``help`` (:func:`help_text`) gives the full forms of the person's own
moves; ``hint`` suggests only questions whose answer may be yes (:func:`hint_choices`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Hashable

from rich.table import Table
from rich.text import Text

from .game import GoFish, Move
from .web import current_game, explain, naming, result
from .words import article

if TYPE_CHECKING:
    from rich.console import Console

    from quaternity_cp.web.session import WebGame

#: The lines of ``help`` for Go Fish: its moves and its own commands (:func:`help_text` gives them for one table,
#: with the person's own seat in the full forms and a question legal now).
HELP = """  1 A / ask 1 A  ask seat 1 for an A (in full, you being seat Y: Y>1:A?); a suit in any case, or the start
                 of its name
  1 Narwhals     ask seat 1 for a new suit and name it Narwhals (tables with name_suits)
  yes / no       answer the question you are asked (in full, seat X having asked you, seat Y, for an A:
                 X>Y:A+ or X>Y:A-)
  table          the table of what is known again
  why 1 A        why seat 1's count of A has its range (without a seat: every player's)"""

#: The last lines of ``help``: what the table shows.
LEGEND = """The table: a row per player (its cards in brackets), a column per suit; each cell is how many of the
suit the player holds in every consistent table: one number when fixed, lo-hi otherwise. [4] marks a four
(the whole suit, provably); * the open question's cell."""


def show(out: Console, table: WebGame, *, quiet: bool = False) -> None:
    """The table of bounds and the status line (what to do, or whose decision it is)."""
    game = current_game(table)
    b = game.bounds()
    setup = game.setup
    q = game.pending
    grid = Table(show_header=True, title="What is known (exact ranges over the consistent tables)",
                 title_justify="left")
    grid.add_column("player")
    for suit in setup.suits:
        grid.add_column(suit, justify="center")
    hands = game.hands()
    for p in range(setup.player_count):
        cells = []
        for s in range(setup.suit_count):
            lo, hi = (b.low[p][s], b.high[p][s]) if b.feasible else (0, 0)
            text = str(lo) if lo == hi else f"{lo}-{hi}"
            if lo == setup.suit_size:
                cells.append(Text(f"[{text}]", style="bold green"))
            elif q is not None and q.asked == p and q.suit == s:
                cells.append(Text(text + "*", style="bold red"))
            else:
                cells.append(Text(text))
        name = table.seat_name(p, table.human)
        grid.add_row(f"{name} ({hands[p]})", *cells)
    out.print(grid)
    if table.state.is_terminal():
        return
    view = table.view()
    out.print(Text(view["status"], style="bold"))
    if view["your_turn"] and game.pending is None:
        sample = example(table)
        if sample is not None:
            out.print(Text(f"For example: {sample}  (or 'help' for the commands)"))


def command(out: Console, table: WebGame, word: str, rest: str) -> bool:
    """Go Fish's own commands (``table``, also ``board``, ``grid``; ``why SEAT SUIT``); False for anything else
    (a move, then)."""
    if word in ("table", "board", "grid"):
        show(out, table)
        return True
    if word == "why":
        parts = rest.replace(":", " ").split()
        if len(parts) not in (1, 2) or (len(parts) == 2 and not parts[0].isdigit()):
            raise ValueError("why: say which cell, e.g. 'why 1 A' (seat 1, suit A) or 'why A' (every seat)")
        seat = int(parts[0]) if len(parts) == 2 else None
        if seat is not None and not 0 <= seat < table.players:
            raise ValueError(f"why: the game has seats 0 to {table.players - 1}")
        for line in explain(table, table.human, set_name=parts[-1], seat=seat):
            out.print(Text(line), soft_wrap=True)
        return True
    return False


def example(table: WebGame) -> str | None:
    """A question the person may ask now, as typed (``1 A``), with its meaning: one whose answer may be yes when
    there is one (:func:`hint_choices`); None when the person has no question to ask."""
    from .words import seat_text

    game = current_game(table)
    if game.pending is not None or game.turn != table.human or game.over:
        return None
    questions = game.legal_questions()
    hopeful = _hopeful(game, questions)
    if not (hopeful or questions):
        return None
    choice = (hopeful or questions)[0]
    asked, suit = game.setup.players[choice.asked], game.setup.suits[choice.suit]
    return f"{asked} {suit} (ask {seat_text(game, choice.asked)} for {article(suit)})"


def help_text(table: WebGame) -> str:
    """The lines of ``help`` for this table: those of :data:`HELP` with the person's own seat in the full forms of
    its moves (its question ``Y>1:A?``; its answer to seat X's question ``X>Y:A+``), and a question legal now."""
    from .words import seat_text

    game = current_game(table)
    players, suits = game.setup.players, game.setup.suits
    other = next(p for p in range(game.players) if p != table.human)
    suit = suits[0]
    q = game.pending
    if q is not None and q.asked == table.human:  # the question open to the person: its own full forms
        other, suit = q.asker, suits[q.suit]
    you, them, who = players[table.human], players[other], seat_text(game, other)
    rows = [
        (f"{them} {suit} / ask {them} {suit}", f"ask {who} for {article(suit)} (in full: {you}>{them}:{suit}?); "
                                               "a suit in any case, or the start of its name"),
        (f"{them} Narwhals", f"ask {who} for a new suit and name it Narwhals (tables with name_suits)"),
        ("yes / no", f"answer the question you are asked (in full, {who} having asked you for {article(suit)}: "
                     f"{them}>{you}:{suit}+ or {them}>{you}:{suit}-)"),
        ("table", "the table of what is known again"),
        (f"why {them} {suit}", f"why {who}'s count of {suit} has its range (without a seat: every player's)"),
    ]
    width = max(len(cmd) for cmd, _ in rows) + 2
    lines = [f"  {cmd.ljust(width)}{words}" for cmd, words in rows]
    sample = example(table)
    if sample is not None:
        lines.append(f"  For example, now: {sample}")
    return "\n".join(lines)


def _hopeful(game: GoFish, questions: list[Move]) -> list[Move]:
    """The ``questions`` whose answer may be yes: asked now, some consistent table gives the asked player a card
    of the suit (a question to a player who provably holds none of it can only be answered no)."""
    out = []
    for q in questions:
        game.push(q.question())
        try:
            if not game.over and True in game.legal_answers():
                out.append(q)
        finally:
            game.pop()
    return out


def hint_choices(table: WebGame, legal: list[Hashable]) -> tuple[list[Hashable], str | None]:
    """What ``hint`` may suggest among the ``legal`` actions (the game loop asks the hint agent to choose among
    them): an answer when the person is asked; when it asks, only the questions whose answer may be yes. With
    none, the empty list and why (every question the person may ask would be answered no)."""
    game = current_game(table)
    if game.pending is not None:
        return legal, None
    questions = [m for m in legal if isinstance(m, Move) and m.answer is None]
    hopeful = set(_hopeful(game, questions))
    chosen: list[Hashable] = [m for m in legal if m in hopeful]
    if chosen:
        return chosen, None
    return [], ("no hint: every question you may ask now would be answered no (each player you may ask provably "
                "holds none of each suit you may ask for); ask one all the same: 'legal' lists them")


def _suit(table: WebGame, game: GoFish, typed: str) -> str:
    """The suit the person means by ``typed``: its name as written, in any case, or the start of its name when
    that start is one suit's only; at a table whose suits are named in play, a new name names a fresh suit.
    Else a ValueError that lists the suits."""
    suits = game.setup.suits
    if typed in suits:
        return typed
    low = typed.casefold()
    same = [s for s in suits if s.casefold() == low]
    if len(same) == 1:
        return same[0]
    starts = [s for s in suits if s.casefold().startswith(low)] if low else []
    if len(starts) == 1:
        return starts[0]
    if naming(table, game) is not None and not same and not starts:
        return typed  # a new name for the first fresh suit (the game checks the name)
    listed = ", ".join(suits)
    if len(starts) > 1:
        raise ValueError(f"{typed!r} starts the names of several suits ({', '.join(starts)}): type more of it "
                         f"(the suits: {listed})")
    raise ValueError(f"unknown suit {typed!r}: the suits are {listed} (a suit may be typed in any case, or by the "
                     "start of its name)")


def _player(game: GoFish, typed: str) -> str:
    """The player the person means by ``typed``: a seat number or a player's name (in any case)."""
    players = game.setup.players
    if typed in players:
        return typed
    same = [p for p in players if p.casefold() == typed.casefold()]
    if len(same) == 1:
        return same[0]
    raise ValueError(f"unknown player {typed!r}: the seats are {', '.join(players)}")


def to_action(table: WebGame, line: str) -> str:
    """The move text for what the person typed: the notation, ``ASKED SUIT`` (or ``ask ASKED SUIT``) when asking,
    ``yes``/``no``; suits in any case or by a unique start of their name."""
    text = line.strip()
    game = current_game(table)
    q = game.pending
    word = text.lower()
    if word in ("y", "yes", "+", "n", "no", "-"):
        if q is None or q.asked != table.human:
            raise ValueError("nobody asked you anything: ask a question (e.g. '1 A': seat 1, for an A)")
        return game.move_text(q.__class__(q.asker, q.asked, q.suit, word in ("y", "yes", "+")))
    if q is not None and q.asked == table.human and ">" not in text:
        raise ValueError(f"{table.seat_name(q.asker, table.human)} asks you for {article(game.setup.suits[q.suit])}: "
                         "answer yes or no")
    first, _, rest = text.partition(" ")
    if first.lower() == "ask" and rest.strip():
        text = rest.strip()  # ask SEAT SUIT: the short form
        if ">" in text:
            raise ValueError("ask SEAT SUIT, e.g. 'ask 1 A' (or the move in full, e.g. "
                             f"'{game.setup.players[table.human]}>1:A?', without 'ask')")
    if q is None and ">" not in text and game.turn is not None:
        parts = text.replace(":", " ").split(None, 1)  # (a suit's name may have spaces inside)
        if len(parts) == 2:
            return f"{game.setup.players[game.turn]}>{_player(game, parts[0])}:{_suit(table, game, parts[1].strip())}?"
        if len(parts) == 1:
            raise ValueError(f"say whom you ask and for which suit, e.g. 'ask 1 {game.setup.suits[0]}' "
                             f"(the suits: {', '.join(game.setup.suits)})")
    if ">" in text and ":" in text:  # the notation: its suit in any case or by a unique start too
        head, _, tail = text.rpartition(":")
        sign = tail[-1:] if tail[-1:] in ("+", "-", "?") else "?"
        name = tail[:-1] if tail[-1:] in ("+", "-", "?") else tail
        if name and name not in game.setup.suits:
            name = _suit(table, game, name)
        return f"{head}:{name}{sign}"
    return text


def final_text(table: WebGame) -> str:
    """The last line: who won and why, or why nobody did ("You" for the person)."""
    return "Game over. " + str(result(table, table.human, current_game(table))["text"])


__all__ = ["HELP", "LEGEND", "show", "command", "to_action", "final_text", "help_text", "hint_choices", "example"]
