"""``quaternity play``: a game against the agents in the terminal (for people without a browser).

Every registered game can be played: its options become this command's
options (from :class:`~quaternity_cp.games.GameSpec`), its agents fill the
other seats, and its terminal view is the module ``play_<game>`` of this
package: ``HELP`` and ``LEGEND`` (its lines of ``help``), ``show``,
``command`` (its own commands), ``to_action`` and ``final_text``.
"""

from __future__ import annotations

import importlib
import json
import os
from types import ModuleType
from typing import Any, Callable

import click
from rich.text import Text

from quaternity_cp.games import DEFAULT_GAME, GameSpec, load_all

from .common import InputError, Whole, check_output, force_option, guarded, write_text
from .render import console

#: The commands of every game, in ``help`` between the game's own (its module's ``HELP`` and ``LEGEND``).
HELP = """  legal      the legal moves                       hint   what an agent would play
  undo       take back your last move              help   this list
  save FILE  write the record (save! FILE replaces a file)   quit  stop (the record is saved with --save)"""


def game_options(func: Callable) -> Callable:
    """Every registered game's options as options of the command (a game ignores those of other games)."""
    options: dict[str, tuple[str, Any]] = {}
    for spec in load_all().values():
        for o in spec.options:
            options.setdefault(o.name, (spec.name, o))
    for name, (game, o) in reversed(options.items()):
        flag, help_text = "--" + name.replace("_", "-"), f"{game}: {o.help}."
        if o.type is bool:
            func = click.option(flag, name, is_flag=True, default=o.default, help=help_text)(func)
        elif o.type is int:
            func = click.option(flag, name, type=Whole(o.low, o.high), default=o.default, show_default=True,
                                help=help_text)(func)
        else:
            func = click.option(flag, name, default=o.default, show_default=True, help=help_text)(func)
    return func


def _each(what: Callable[[GameSpec], Any]) -> str:
    """``game: what(game)`` for every registered game, for a help text."""
    return ", ".join(f"{name}: {what(spec)}" for name, spec in load_all().items())


@click.command()
@click.option("--game", "game", type=click.Choice(list(load_all())), default=DEFAULT_GAME, show_default=True,
              help="A registered game (an option below that names a game is that game's).")
@game_options
@click.option("--seat", type=Whole(min=0), default=0, show_default=True, help="Your seat (0 moves first).")
@click.option("--agents", default=None, metavar="A,B,...",
              help="The agents in the other seats, in seat order (one name: all of them). Default: the game's ("
                   + _each(lambda spec: spec.default_agent) + ").")
@click.option("--hint-agent", "hint_agent", default=None, metavar="NAME",
              help="The agent that suggests a move on 'hint' (default: the game's, "
                   + _each(lambda spec: spec.hint_agent or spec.default_agent) + ").")
@click.option("--seed", type=Whole(), default=None, help="Seed of the game and the agents (default: random).")
@click.option("--save", "save", metavar="FILE", default=None,
              help="Write the record here when the game ends or you quit (it passes quaternity check).")
@force_option
@guarded
def play(game: str, seat: int, agents: str | None, hint_agent: str | None, seed: int | None, save: str | None,
         force: bool = False, **given: Any) -> None:
    """Play against the agents in the terminal: type your moves, see the grid of who may hold each card.

    Type 'help' at the prompt for the commands (moves, undo, hint, why, save).
    """
    from quaternity_cp.errors import QuaternityError
    from quaternity_cp.web.session import WebError, WebGame, default_agent

    spec = load_all()[game]
    terminal = terminal_view(spec)
    written: set[str] = set()  # files this session wrote: 'save' may write them again
    if save is not None:
        check_output(save, "--save", force=force)
        written.add(os.path.abspath(save))
    options = {o.name: given[o.name] for o in spec.options}
    seats = spec.seats(options)
    if not 0 <= seat < seats:
        raise InputError(f"--seat: the game has seats 0 to {seats - 1}")
    names = [a.strip() for a in agents.split(",")] if agents else []
    others = [s for s in range(seats) if s != seat]
    if len(names) == 1:
        names = names * len(others)
    if names and len(names) != len(others):
        raise InputError(f"--agents: {len(others)} other seat(s) to fill, got {len(names)} names")
    known = spec.agents
    for name in names + ([hint_agent] if hint_agent else []):
        if name not in known:
            raise InputError(f"--agents: unknown agent {name!r} (known: {', '.join(sorted(known))})")
    try:
        table = WebGame.new(game, options, human=seat, agents=dict(zip(others, names)), seed=seed)
    except WebError as err:
        raise InputError(str(err)) from None
    hint_name = hint_agent or spec.hint_agent or default_agent(spec)
    you = f"{spec.seat_label} {seat}"
    out = console()
    seated = ", ".join(f"{s}: {n}" for s, n in sorted(table.agent_names.items()))
    out.print(f"[bold]{table.view()['setup']}[/bold]; you are {you}; {seated}. Type 'help' for the commands.")
    shown = report_moves(out, table, [])  # the agents' first moves, then the table and whose turn it is
    terminal.show(out, table)
    while True:
        if table.state.is_terminal():
            out.print(Text(terminal.final_text(table), style="bold"))
            break
        try:
            line = input(f"{you}> ").strip()
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
                out.print("\n".join(["Commands (a move is typed as in the records):", terminal.HELP, HELP,
                                     terminal.LEGEND]))
            elif word == "legal":
                out.print("Legal moves: " + ", ".join(table.legal_texts()), soft_wrap=True)
            elif word == "undo":
                table.undo()
                shown = [entry["move"] for entry in table.view()["log"]]
                out.print("Taken back.")
                terminal.show(out, table)
            elif word == "hint":
                out.print(f"Hint ({hint_name}): {hint(table, hint_name)}")
            elif word in ("save", "save!") and rest:
                path = rest.strip()
                if os.path.abspath(path) not in written:
                    try:
                        check_output(path, "save", force=word == "save!")
                    except InputError as err:
                        raise ValueError(str(err).replace("pass --force", f"'save! {path}'")) from None
                write_record(table, path)
                written.add(os.path.abspath(path))
                out.print(f"Saved {path}.")
            elif terminal.command(out, table, word, rest.strip()):
                pass
            else:
                table.act(terminal.to_action(table, line))
                shown = report_moves(out, table, shown)
                terminal.show(out, table, quiet=True)
        except (WebError, QuaternityError, ValueError) as err:
            out.print(Text(f"! {err}", style="red"))
    if save:
        write_record(table, save)
        out.print(f"Record saved to {save}.")


# -- helpers ------------------------------------------------------------------------------
def terminal_view(spec: GameSpec) -> ModuleType:
    """The game's terminal view: the module ``play_<game>`` of this package."""
    try:
        return importlib.import_module(f"{__package__}.play_{spec.name.replace('-', '_')}")
    except ModuleNotFoundError:
        raise InputError(f"--game: {spec.name} cannot be played in the terminal yet (try quaternity serve)") from None


def write_record(table, path: str) -> None:
    """Write the game's record to ``path`` (atomically)."""
    write_text(path, json.dumps(table.record(), indent=2) + "\n")


def report_moves(out, table, shown: list[str]) -> list[str]:
    """Print the moves made since the moves ``shown`` (in notation) were printed, the agents' and the
    person's own alike, in words and in notation; a question shown open is told again with its answer.
    Returns the moves now shown."""
    log = table.view()["log"]
    moves = [entry["move"] for entry in log]
    same = next((i for i, (now, before) in enumerate(zip(moves, shown)) if now != before), min(len(moves), len(shown)))
    for entry in log[same:]:
        out.print(Text(f"  {entry.get('text', '')}  [{entry['move']}]"), soft_wrap=True)
    return moves


def hint(table, name: str) -> str:
    """What the agent ``name`` would play for the person now."""
    import random

    st = table.state
    if st.is_terminal() or st.current_player() != table.human:
        return "it is not your turn"
    agent = table.spec.agents[name]()
    action = agent.step(st.observation(table.human), st.legal_actions(), random.Random(table.seed))
    return st.action_to_string(action)


__all__ = ["play", "game_options", "terminal_view"]
