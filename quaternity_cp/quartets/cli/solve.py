"""``quaternity quartets solve`` (``quaternity solve`` of the game's records, and of the start of a game): exact
solving of a position."""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable

import click
from rich.console import Console
from rich.tree import Tree

from ...budget import INTERRUPTED
from ...command import EXIT_ILLEGAL, EXIT_INTERRUPTED, EXIT_OK, InputError, emit_json, guarded
from ...command.interrupts import STARTED_VARIABLE, Interrupts, signal_started
from ...errors import QuaternityError
from ..game import Game
from ..position import Position
from ..replay import replay
from ..rules import Rules
from ..solver import GOALS, Limits, SolveResult, check_goal
from ..solver import solve as solve_position
from .common import common_options, default_engine, load, rules_option
#: --max-positions when not given: the memory of a solve stays under about 1 GB (measured with
#: benchmarks/solver_memory.py, see docs/solver.md)
DEFAULT_MAX_POSITIONS = 500_000


@click.command()
@click.argument("file", required=False)
@click.option("--start", nargs=3, type=int, default=None, metavar="P N S",
              help="Solve the start of a game of P players, N sets of S cards (instead of FILE).")
@click.option("--goal", type=click.Choice(GOALS), default="win", show_default=True,
              help="quartet: can the player on turn force a set claimed before its turn ends; "
                   "win: can the player force being a winner against all others together; "
                   "value: win, loss or draw with two players.")
@click.option("--player", "player", default=None, metavar="P",
              help="The player whose goal it is (seat or name; default: the player on turn).")
@click.option("--max-questions", type=click.IntRange(min=0), default=None, metavar="K",
              help="quartet goal: within K questions.")
@click.option("--depth", type=click.IntRange(min=0), default=6, show_default=True, metavar="D",
              help="Show the strategy tree to D moves along each branch (an open question and its answer "
                   "are two moves; a question whose answer is forced is one).")
@click.option("--max-positions", type=click.IntRange(min=1), default=DEFAULT_MAX_POSITIONS, show_default=True,
              metavar="N", help="Stop once N positions are stored (the result is then unproven): memory grows "
                                "with them, up to about 1 GB at the default (see docs/solver.md).")
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=None, metavar="T",
              callback=lambda ctx, param, value: _finite_seconds(value),
              help="Stop after T seconds (the result is then unproven; checked before every engine call). "
                   "Default: none (--max-positions bounds the search).")
@common_options
@guarded
def solve(file: str | None, start: tuple[int, int, int] | None, goal: str, player: str | None,
          max_questions: int | None, depth: int, max_positions: int | None, max_seconds: float | None,
          as_json: bool, rules: str | None, engine: str | None) -> None:
    """Solve a position exactly: can a player force a quartet, force a win; the game's value.

    FILE is a position or a record (the position after its moves is solved);
    --start P N S solves the start of a game under --rules (default quaternity).
    Nothing is hidden in Quaternity, so the answer is exact: every legal answer
    and every move of the other players is considered, cycles included (a game
    that never ends is won by nobody). When the turn is shared (handover =
    fewest), the goal player's opponents choose who moves. Illegal moves are
    never played.

    Exit codes: 0 solved, or stopped by --max-positions or --max-seconds
    (verdict "unproven"),
    1 an illegal record or an invalid position, 2 bad input, 130 interrupted
    (Ctrl-C: the verdict known is printed first, "unproven" when the search
    was stopped; a second Ctrl-C does not cut it short).
    """
    if (file is None) == (start is None):
        raise InputError("give either FILE or --start P N S")
    if start is not None:
        game = Game(*start)
        rule_set = _parse_rules(rules)
        position = Position(game, rule_set, engine=default_engine(engine))
        label = "start of the game"
    else:
        assert file is not None  # exactly one of FILE and --start (checked above)
        record = load(file, rules)
        result = replay(record, engine=default_engine(engine), mark_forced=False)
        if result.error is not None:
            i = result.error_index
            assert i is not None  # set with the error
            _fail_position(as_json, f"move {i} ({record.texts[i - 1]}) is illegal: {result.error}")
        if not result.position.is_valid():
            _fail_position(as_json, "the position is invalid: no deal is consistent with it")
        position = result.position
        game = record.game
        label = "stdin" if file == "-" else file
    seat = None
    if player is not None:
        try:
            seat = game.player(player)
        except QuaternityError as err:
            raise InputError(f"--player: {err}") from None
    seat = check_goal(position, goal, seat, max_questions=max_questions)  # a goal that does not apply: exit 2
    if not as_json:  # the position first, while the solver works
        print_header(label, game, position.rules)
    progress, done = _progress(as_json)
    with Interrupts() as ctrl_c:  # Ctrl-C stops the search; once more, it still waits for the verdict
        try:
            res = ctrl_c.run(solve_position, position, goal, seat, max_questions=max_questions, depth=depth,
                             limits=Limits(max_positions, max_seconds), engine=engine, progress=progress)
        finally:
            done()
        if as_json:
            emit_json({"position": label, "players": game.players, "sets": game.sets, "set_size": game.set_size,
                       "player_names": list(game.player_names), **res.to_json()})
        else:
            print_result(game, res)
    interrupted = ctrl_c.interrupted or INTERRUPTED in (res.status, res.tree_stopped)
    sys.exit(EXIT_INTERRUPTED if interrupted else EXIT_OK)


def _finite_seconds(value: float | None) -> float | None:
    """--max-seconds: a finite number > 0 (click lets nan and inf through its range check)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value!r} is not a finite number of seconds", param_hint="'--max-seconds'")
    return value


def _parse_rules(rules: str | None) -> Rules:
    return Rules() if rules is None else rules_option(rules)


def _fail_position(as_json: bool, message: str) -> None:
    if as_json:
        emit_json({"valid": False, "error": message})
    else:
        click.echo(f"quaternity: {message}", err=True)
    sys.exit(EXIT_ILLEGAL)


def _progress(as_json: bool) -> tuple[Callable[[dict[str, Any]], None] | None, Callable[[], None]]:
    """A live status line on standard error (only on a terminal). With the tests' QUATERNITY_TEST_SIGNAL_STARTED
    set, the first report of the search (after about half a second of it) prints "quaternity: search started"."""
    if os.environ.get(STARTED_VARIABLE):
        started: list[bool] = []

        def first(info: dict[str, Any]) -> None:
            if not started:
                started.append(True)
                signal_started()

        return first, lambda: None
    if not sys.stderr.isatty():
        return None, lambda: None
    console = Console(stderr=True)
    status = console.status("solving...")
    status.start()

    def update(info: dict[str, Any]) -> None:
        extra = f", depth {info['depth']}" if "depth" in info else ""
        status.update(f"solving: {info['positions']:,} positions, {info['expanded']:,} expanded"
                      f"{extra}, {info['seconds']:.0f} s (Ctrl-C stops)")

    return update, status.stop


# -- human output -------------------------------------------------------------------
def print_header(label: str, game: Game, rules: Rules) -> None:
    """The first line of the output: the position solved."""
    Console(highlight=False, soft_wrap=True).print(
        f"[bold]{label}[/bold]: {game.players} players, {game.sets} sets of {game.set_size} cards,"
        f" rules [bold]{rules.name}[/bold]")


def print_result(game: Game, res: SolveResult) -> None:
    """The rest: the goal, the verdict, the trees, what the search took."""
    out = Console(highlight=False, soft_wrap=True)
    goal = {"quartet": "force a quartet in this turn", "win": "force being a winner",
            "value": "value of the game"}[res.goal]
    within = f" within {res.max_questions} questions" if res.max_questions is not None else ""
    out.print(f"Goal: {goal}{within}, for {game.seat_name(res.player)}")
    style = "bold yellow" if not res.proven else "bold green" if res.verdict in ("yes", "win") else "bold red" \
        if res.verdict in ("no", "loss") else "bold"
    out.print(f"Result: [{style}]{res.summary()}[/{style}]")
    for title, tree in (("Winning strategy", res.strategy), ("Defence", res.defense), ("Drawing line", res.line)):
        if tree is None:
            continue
        if title == "Winning strategy" and res.goal == "value" and res.result == "loss":
            assert res.winner is not None  # a loss is the other seat's forced win
            title = f"Winning strategy of {game.seat_name(res.winner)}"
        root = Tree(f"[bold]{title}[/bold]:")
        _add(root, game, tree)
        out.print(root, soft_wrap=False, crop=False)
        out.print("[dim](one move per class of equivalent moves; a question whose answer is forced is shown"
                  " with its answer)[/dim]")
    if res.tree_stopped is not None:
        why = {"interrupted": "interrupted", "time": "time limit reached",
               "limit": "position limit reached"}.get(res.tree_stopped, res.tree_stopped)
        out.print(f"[yellow]The tree is cut short ({why}); the result above is proven.[/yellow]")
    out.print(f"Explored {res.positions:,} positions ({res.expanded:,} expanded, {res.engine_calls:,} engine calls)"
              f" in {res.seconds:.2f} s with engine {res.engine}.")


def _end_text(game: Game, node: dict[str, Any]) -> str | None:
    end = node.get("end")
    if end == "over":
        winners = node["winners"]
        won = ", ".join(game.seat_name(p) for p in winners) if winners else "nobody"
        return f"game over ({'-'.join(map(str, node['scores']))}), winner{'s' if len(winners) > 1 else ''}: {won}"
    if end == "stuck":
        return "no legal move: the game cannot go on (nobody wins)"
    if end == "out of reach":
        return f"{game.seat_name(node['player'])} can no longer win ({'-'.join(map(str, node['scores']))})"
    if end == "quartet":
        return "[green]quartet " + ", ".join(node["sets"]) + "[/green]"
    if end == "turn lost":
        if node.get("over"):
            return "[red]game over without a quartet[/red]"
        return "[red]turn passes to " + " or ".join(game.seat_name(p) for p in node["turn"]) + "[/red]"
    return None


def _add(parent: Tree, game: Game, node: dict[str, Any]) -> None:
    if node.get("truncated"):
        parent.add("[dim]... (cut short)[/dim]" if node.get("stopped") else "[dim]...[/dim]")
        return
    end = _end_text(game, node)
    if end is not None:
        parent.add(end)
        return
    if not node.get("moves"):
        parent.add("[dim]no move shown[/dim]")
        return
    for entry in node["moves"]:
        label = entry["move"]
        if entry.get("forced_answer"):
            label += " [dim](only legal answer)[/dim]"
        if entry.get("claims"):
            label += "  claims " + ", ".join(f"{s} for {game.seat_name(p)}" for s, p in entry["claims"].items())
        nxt = entry["next"]
        end = _end_text(game, nxt)
        if end is not None:
            parent.add(f"{label}  -> {end}")
        elif nxt.get("truncated"):
            parent.add(f"{label}  [dim]...{' (cut short)' if nxt.get('stopped') else ''}[/dim]")
        else:
            _add(parent.add(label), game, nxt)
    if node.get("stopped"):
        parent.add("[dim]... (cut short)[/dim]")
