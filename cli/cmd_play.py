"""``quaternity play``: a game against the agents in the terminal (for people without a browser).

Every registered game can be played: its options become this command's
options (from :class:`~quaternity_cp.registry.GameSpec`), its agents fill the
other seats, and its terminal view is the game's part ``terminal`` (a module in the game's
package: ``HELP`` and ``LEGEND`` (its lines of ``help``), ``show``,
``command`` (its own commands), ``to_action`` and ``final_text``; optionally ``help_text(table)`` (its
lines of ``help`` for one table, instead of ``HELP``) and ``hint_choices(table, legal)`` (the moves ``hint``
may suggest, and why none when there is none).
"""

from __future__ import annotations

import json
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click
from rich.text import Text

from quaternity_cp.registry import DEFAULT_GAME, GameSpec, derive_seed, load_all

from quaternity_cp.command import InputError, Whole, check_output, console, force_option, guarded, write_text

if TYPE_CHECKING:
    from rich.console import Console

    from quaternity_cp.web.session import WebGame

F = TypeVar("F", bound=Callable[..., Any])  # a click command function

_HINT_STREAM = 0x48494E54  # "HINT": the hint's seeds stand apart from the tournament's (game, seat) paths

#: The commands of every game, in ``help`` between the game's own (its module's ``HELP`` and ``LEGEND``).
HELP = """  legal      the legal moves                       hint   what an agent would play
  undo       take back your last move              help   this list
  save FILE  write the record (save! FILE replaces a file)   quit  stop (the record is saved with --save)"""


def game_options(func: F) -> F:
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
@click.option("--seat", type=Whole(min=0), default=0, show_default=True,
              help="Your seat. Who moves first: seat 0 in the Quaternity presets and in Quarto; in classic "
                   "Quartets a seat drawn at random (the game says which).")
@click.option("--pause/--no-pause", "pause", default=None,
              help="Wait for Enter after each agent's move, so that you can follow them one at a time "
                   "(default: when the input is a terminal).")
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
def play(game: str, seat: int, pause: bool | None, agents: str | None, hint_agent: str | None, seed: int | None,
         save: str | None, force: bool = False, **given: Any) -> None:
    """Play against the agents in the terminal: type your moves, see the grid of who may hold each card.

    The agents' moves are shown one at a time (with --pause, the default in a terminal, each waits for
    Enter). Type 'help' at the prompt for the commands (moves, undo, hint, why, save).
    """
    from quaternity_cp.errors import QuaternityError
    from quaternity_cp.web.session import WebError, WebGame, default_agent

    spec = load_all()[game]
    terminal = terminal_view(spec)
    written: set[str] = set()  # files this session wrote: 'save' may write them again
    if save is not None:
        check_output(save, "--save", force=force)
        written.add(os.path.abspath(save))
    # the options the person gave (a default is no choice: a rule set's options stay the rule set's)
    ctx = click.get_current_context()
    options = {o.name: given[o.name] for o in spec.options
               if ctx.get_parameter_source(o.name) is not click.core.ParameterSource.DEFAULT}
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
        table = WebGame.new(game, options, human=seat, agents=dict(zip(others, names)), seed=seed, advance=False)
    except WebError as err:
        raise InputError(str(err)) from None
    if pause is None:
        pause = sys.stdin.isatty()
    hint_name = hint_agent or spec.hint_agent or default_agent(spec)
    you = f"{spec.seat_label} {seat}"
    out = console()
    seated = ", ".join(f"{s}: {n}" for s, n in sorted(table.agent_names.items()))
    out.print(f"[bold]{table.view()['setup']}[/bold]; you are {you}; {seated}. Type 'help' for the commands.")
    out.print(Text(starter_text(table)))
    terminal.show(out, table, quiet=True)  # the table before the first move (classic: your hand)
    shown: list[str] = []
    your_turns = 0  # the times the person was asked for a move
    stale = False  # moves shown since the table was last drawn
    following = pause  # False after 'all' until the person's next turn
    while True:
        if table.agent_to_move() is not None:  # the agents move one at a time, each move shown as it is made
            table.agent_step()
            shown = report_moves(out, table, shown)
            stale = True
            if following and table.agent_to_move() is not None:
                answer = wait_for_enter()
                if answer in ("quit", "exit", "q"):
                    break
                if answer in ("all", "a", None):  # None: the input ended
                    following = False
            continue
        if table.state.is_terminal():
            if not your_turns and not shown:
                out.print(Text("The game ended at the deal, before anybody moved."))
            elif not your_turns:
                moves = "its one move" if len(shown) == 1 else f"all of its {len(shown)} moves"
                shown_words = "shown above" if len(shown) == 1 else "every one shown above"
                out.print(Text(f"The game ended before your turn came: the other players made {moves}, "
                               f"{shown_words}."))
            if stale:
                terminal.show(out, table, quiet=True)
            out.print(Text(terminal.final_text(table), style="bold"))
            break
        if stale:
            terminal.show(out, table, quiet=True)
            stale = False
        following = pause
        your_turns += 1
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
                own = terminal.help_text(table) if hasattr(terminal, "help_text") else terminal.HELP
                out.print("\n".join(["Commands (a move is typed as in the records):", own, HELP, terminal.LEGEND]))
            elif word == "legal":
                out.print("Legal moves: " + ", ".join(table.legal_texts()), soft_wrap=True)
            elif word == "undo":
                table.undo()
                shown = [entry["move"] for entry in table.view()["log"]]
                out.print("Taken back.")
                terminal.show(out, table)
            elif word == "hint":
                out.print(f"Hint ({hint_name}): {hint(table, hint_name, terminal)}")
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
                text = terminal.to_action(table, line)
                reason = refusal(table, text)
                if reason:
                    raise ValueError(reason)
                table.act(text)
                shown = report_moves(out, table, shown)
                stale = True
        except (WebError, QuaternityError, ValueError) as err:
            out.print(Text(f"! {err}", style="red"))
    if save:
        write_record(table, save)
        out.print(f"Record saved to {save}.")


# -- helpers ------------------------------------------------------------------------------
def terminal_view(spec: GameSpec) -> ModuleType:
    """The game's terminal view: its part ``terminal`` (a module, see :class:`~quaternity_cp.registry.GameSpec`)."""
    if "terminal" not in spec.parts:
        raise InputError(f"--game: {spec.name} cannot be played in the terminal yet (try quaternity serve)")
    module: ModuleType = spec.part("terminal")
    return module


def write_record(table: WebGame, path: str) -> None:
    """Write the game's record to ``path`` (atomically)."""
    write_text(path, json.dumps(table.record(), indent=2) + "\n")


def report_moves(out: Console, table: WebGame, shown: list[str]) -> list[str]:
    """Print the moves made since the moves ``shown`` (in notation) were printed, the agents' and the
    person's own alike, in words and in notation; a question shown open is told again with its answer.
    Returns the moves now shown."""
    log = table.view()["log"]
    moves = [entry["move"] for entry in log]
    same = next((i for i, (now, before) in enumerate(zip(moves, shown)) if now != before), min(len(moves), len(shown)))
    for entry in log[same:]:
        out.print(Text(f"  {entry.get('text', '')}  [{entry['move']}]"), soft_wrap=True)
    return moves


def starter_text(table: WebGame) -> str:
    """Who moves first, in words: drawn at random (classic Quartets: the game's chance event ``first``) or
    by the rules (seat 0)."""
    st = table.state
    drawn = next((c.outcome for c in getattr(st, "chance", ()) if c.kind == "first"), None)
    if drawn is not None:
        who = table.seat_name(int(drawn), table.human)
        return f"{who} {'were' if who == 'You' else 'was'} drawn to start."
    if st.is_terminal():
        return "The game is over before its first move."
    first = st.current_player()
    who = table.seat_name(first, table.human)
    return f"{who} {'move' if who == 'You' else 'moves'} first."


def wait_for_enter() -> str | None:
    """The pause after an agent's move: what the person typed ('' for Enter), None when the input ended."""
    try:
        return input("  (Enter: next move; 'all': the moves up to your turn; 'quit') ").strip().lower()
    except EOFError:
        return None


def refusal(table: WebGame, text: str) -> str | None:
    """Why the person's move ``text`` is refused (:meth:`WebGame.refusal`: the game's own checker's words),
    or None when it is legal (or when it is not the person's turn or no move at all: :meth:`WebGame.act`
    says so)."""
    st = table.state
    if st.is_terminal() or st.current_player() != table.human:
        return None
    return table.refusal(text)


def hint(table: WebGame, name: str, terminal: ModuleType | None = None) -> str:
    """What the agent ``name`` would play for the person now, among the moves the game's terminal view lets a
    hint suggest (its optional ``hint_choices(table, legal) -> (actions, why none)``; Go Fish: only questions
    whose answer may be yes), or why there is none."""
    import random

    st = table.state
    if st.is_terminal() or st.current_player() != table.human:
        return "it is not your turn"
    legal = st.legal_actions()
    choose = getattr(terminal, "hint_choices", None)
    if choose is not None:
        legal, why_none = choose(table, legal)
        if not legal:
            return str(why_none or "no hint for this position")
    agent = table.spec.agents[name]()
    # the hint's own generator, one way from the table's seed: never the generator that dealt the cards
    rng = random.Random(derive_seed(table.seed, _HINT_STREAM, table.human))
    action = agent.step(st.observation(table.human), legal, rng)
    return st.action_to_string(action)


__all__ = ["play", "game_options", "terminal_view", "refusal", "starter_text"]
