"""``quaternity play``: a game against the agents in the terminal (for people without a browser)."""

from __future__ import annotations

import json
import re

import click
from rich.table import Table
from rich.text import Text

from .main import InputError, guarded
from .render import console, owner_cells

HELP = """Commands (a move is typed as in the records):
  1 A0 / ask 1 A0 / 0>1:A0?   ask seat 1 for card A0 (use names if the players have them)
  yes / no                    answer the question put to you (when both answers are legal)
  declare B                   declare set B (rules with declarations)
  A1 DSSH / DSSH / A1         Quarto: place on A1 and give DSSH / give the first piece / last placement
  legal      the legal moves          grid       the grid again (prob: with exact probabilities)
  why A0     why A0 is where it is    why B      why set B was claimed
  hint       what an agent would play undo       take back your last move
  save FILE  write the record         quit       stop (the record is saved with --save)"""


@click.command()
@click.option("--game", "game", type=click.Choice(["quartets", "quarto"]), default="quartets", show_default=True,
              help="Quartets (any rule preset, or classic) or Quarto.")
@click.option("--preset", default="quaternity", show_default=True,
              help="Rule preset: quaternity, quaternity-seat, blind, pythagoras or classic.")
@click.option("--players", type=click.IntRange(2, 10), default=3, show_default=True)
@click.option("--sets", type=click.IntRange(1, 26), default=3, show_default=True)
@click.option("--set-size", "set_size", type=click.IntRange(2, 10), default=3, show_default=True)
@click.option("--squares", is_flag=True, help="Quarto: squares of four also win.")
@click.option("--seat", type=int, default=0, show_default=True, help="Your seat (0 moves first).")
@click.option("--agents", default=None, metavar="A,B,...",
              help="The agents in the other seats, in seat order (one name: all of them). Default: knowledge "
                   "(Quarto: greedy).")
@click.option("--hint-agent", "hint_agent", default=None, metavar="NAME",
              help="The agent that suggests a move on 'hint' (default: knowledge; Quarto: solver).")
@click.option("--seed", type=int, default=None, help="Seed of the game and the agents (default: random).")
@click.option("--save", "save", metavar="FILE", default=None,
              help="Write the record here when the game ends or you quit (it passes quaternity check).")
@guarded
def play(game: str, preset: str, players: int, sets: int, set_size: int, squares: bool, seat: int,
         agents: str | None, hint_agent: str | None, seed: int | None, save: str | None) -> None:
    """Play against the agents in the terminal: type your moves, see the grid of who may hold each card.

    Type 'help' at the prompt for the commands (moves, undo, hint, why, save).
    """
    from quaternity_cp.errors import QuaternityError
    from quaternity_cp.games import load_all
    from quaternity_cp.web.session import WebError, WebGame

    specs = load_all()
    options = {"squares": squares} if game == "quarto" else {
        "preset": preset, "players": players, "sets": sets, "set_size": set_size}
    seats = 2 if game == "quarto" else players
    if not 0 <= seat < seats:
        raise InputError(f"--seat: the game has seats 0 to {seats - 1}")
    names = [a.strip() for a in agents.split(",")] if agents else []
    others = [s for s in range(seats) if s != seat]
    if len(names) == 1:
        names = names * len(others)
    if names and len(names) != len(others):
        raise InputError(f"--agents: {len(others)} other seat(s) to fill, got {len(names)} names")
    known = specs[game].agents
    for name in names + ([hint_agent] if hint_agent else []):
        if name not in known:
            raise InputError(f"--agents: unknown agent {name!r} (known: {', '.join(sorted(known))})")
    try:
        table = WebGame.new(game, options, human=seat, agents=dict(zip(others, names)), seed=seed)
    except WebError as err:
        raise InputError(str(err)) from None
    hint_name = hint_agent or ("solver" if game == "quarto" else "knowledge")
    out = console()
    out.print(f"[bold]{table.view()['setup']}[/bold]; you are "
              + (f"player {seat}" if game == "quarto" else f"seat {seat}") + "; "
              + ", ".join(f"{s}: {n}" for s, n in sorted(table.agent_names.items())) + ". Type 'help' for the commands.")
    seen = 0
    show(out, table)
    while True:
        seen = report_moves(out, table, seen)
        if table.state.is_terminal():
            out.print(Text(final_text(table), style="bold"))
            break
        try:
            line = input(f"{'player' if game == 'quarto' else 'seat'} {seat}> ").strip()
        except EOFError:
            line = "quit"
        if not line:
            continue
        word, _, rest = line.partition(" ")
        word = word.lower()
        try:
            if word in ("quit", "exit", "q"):
                break
            elif word in ("help", "?", "h"):
                out.print(HELP)
            elif word == "legal":
                out.print("Legal moves: " + ", ".join(table.legal_texts()), soft_wrap=True)
            elif word in ("grid", "board"):
                show(out, table)
            elif word in ("prob", "probabilities"):
                show(out, table, probabilities=True)
            elif word == "undo":
                table.undo()
                seen = len(table.view()["log"])
                out.print("Taken back.")
                show(out, table)
            elif word == "hint":
                out.print(f"Hint ({hint_name}): {hint(table, hint_name)}")
            elif word == "why" and rest:
                for text in why(table, rest.strip()):
                    out.print(Text(text))
            elif word == "save" and rest:
                write_record(table, rest.strip())
                out.print(f"Saved {rest.strip()}.")
            else:
                table.act(to_action(table, line))
                seen = report_moves(out, table, seen)
                show(out, table, quiet=True)
        except (WebError, QuaternityError, ValueError) as err:
            out.print(Text(f"! {err}", style="red"))
    if save:
        write_record(table, save)
        out.print(f"Record saved to {save}.")


# -- helpers ------------------------------------------------------------------------------
def write_record(table, path: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(table.record(), fh, indent=2)
            fh.write("\n")
    except OSError as err:
        raise InputError(f"{path}: cannot write ({err.strerror})") from None


def to_action(table, line: str) -> str:
    """The action text for what the person typed (short forms allowed)."""
    legal = table.legal_texts()
    text = line.strip()
    if table.game == "quarto":
        return " ".join(text.upper().split())
    from quaternity_cp.formats import record_from_json

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


def report_moves(out, table, seen: int) -> int:
    """Print the moves made since the person last looked (the agents' moves)."""
    log = table.view()["log"]
    for entry in log[seen:]:
        out.print(f"  {'you' if entry['you'] else '   '}  {entry['move']}")
    return len(log)


def final_text(table) -> str:
    view = table.view()
    if view["kind"] == "quarto":
        return view["status"]
    winners = view["winners"] or []
    who = ", ".join("you" if p == table.human else view["players"][p] for p in winners) or "nobody"
    scores = ", ".join(f"{name}: {int(s)}" for name, s in zip(view["players"], view["scores"]))
    return f"Game over. Scores: {scores}. Winner{'s' if len(winners) > 1 else ''}: {who}."


def show(out, table, *, probabilities: bool = False, quiet: bool = False) -> None:
    """The grid (Quartets) or the board (Quarto), then whose turn it is."""
    if table.game == "quarto":
        show_quarto(out, table)
        return
    from quaternity_cp.constraints import bits
    from quaternity_cp.web.views import quartets_knowledge

    k = quartets_knowledge(table)
    pos = k.result.position
    g = k.record.game
    c = k.constraints
    analysis = pos.engine.analyze(c)
    probs = None
    if probabilities:
        from quaternity_cp.count import CountLimitError, DealCounter

        try:
            probs = DealCounter(c, 500_000).card_probabilities()
        except CountLimitError:
            out.print("Too many deals to count exactly here.")
    names = [g.player_name(p) if g.named_players else f"seat {p}" for p in range(g.players)]
    if c.sets_in_play and not (quiet and table.state.is_terminal()):
        grid = Table(title="Who may hold each card (■ forced, ● possible, · impossible"
                     + ("; ★ your cards)" if k.hand else ")"), title_justify="left")
        grid.add_column("card")
        for p in range(g.players):
            label = "you" if p == table.human else names[p]
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
    view = table.view()
    scores = ", ".join(f"{'you' if p == table.human else n}: {int(s)}"
                       for p, (n, s) in enumerate(zip(names, view["scores"])))
    claimed = ", ".join(f"{s} by {'you' if p == table.human else names[p]}" for s, p in view["claimed"].items())
    out.print(f"Scores: {scores}" + (f"; claimed: {claimed}" if claimed else ""))
    if view["your_turn"]:
        if view["answers"]:
            out.print(Text(f"You are asked {view['pending']}: answer yes or no.", style="bold"))
        else:
            out.print(Text("Your turn: ask (e.g. '1 A0'), " + ("declare a set, " if view["declarations"] else "")
                           + "or type 'help'.", style="bold"))


def show_quarto(out, table) -> None:
    from quaternity_cp.quarto.core import Cell
    from quaternity_cp.web.views import quarto_position

    pos = quarto_position(table)
    board = Table(show_header=True, title="Board (row 1 at the bottom)", title_justify="left")
    board.add_column("")
    for col in "ABCD":
        board.add_column(col, justify="center")
    winning = {c for line in pos.winning_lines for c in line}
    for row in range(4):
        cells = []
        for col in range(4):
            cell = Cell.at(row, col)
            piece = pos.board[cell]
            cells.append(Text(str(piece) if piece is not None else "·", style="bold red" if cell in winning else ""))
        board.add_row(str(4 - row), *cells)
    out.print(board)
    out.print("Pieces left: " + (" ".join(str(p) for p in pos.available_pieces()) or "none"))
    view = table.view()
    out.print(Text(view["status"], style="bold"))
    if view["your_turn"]:
        out.print("Your move: " + ("give the first piece (e.g. 'LRTS')" if pos.piece is None
                                   else f"place {pos.piece} and give a piece (e.g. 'A1 DSSH')") + ".")


def hint(table, name: str) -> str:
    """What the agent ``name`` would play for the person now."""
    import random

    from quaternity_cp.games import GAMES

    st = table.state
    if st.is_terminal() or st.current_player() != table.human:
        return "it is not your turn"
    agent = GAMES[table.game].agents[name]()
    action = agent.step(st.observation(table.human), st.legal_actions(), random.Random(table.seed))
    return st.action_to_string(action)


def why(table, subject: str) -> list[str]:
    from quaternity_cp.web.views import explain

    if table.game != "quartets":
        return ["Explanations are for Quartets games."]
    if re.fullmatch(r"[A-Za-z]+\d+", subject):
        return explain(table, card=subject)
    return explain(table, set_name=subject)


__all__ = ["play"]
