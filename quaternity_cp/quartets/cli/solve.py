"""``quaternity quartets solve`` (``quaternity solve`` of the game's records, and of the start of a game): exact
solving of a position."""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any, Callable

import click
from rich.tree import Tree

from ...budget import INTERRUPTED, Status
from click.core import ParameterSource

from ...command import (EXIT_ILLEGAL, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, InputError, Whole, console, emit_json,
                        fail, guarded, say)
from ...command.interrupts import STARTED_VARIABLE, Interrupts, signal_started
from ...command.runs import Stops, graph_progress, lazy_line, progress_option
from ...errors import QuaternityError
from ...threads import MAX_THREADS, available_cores
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
#: --max-positions of a --packed solve when not given (under 1 GB: 4x4x4 blind stopped there, 10.0 million
#: positions, peaked at 0.74 GB with its keys as codes, 1.16 GB with them as they were)
PACKED_MAX_POSITIONS = 10_000_000
#: the memory a local worker of the partitioned solver takes at most (the solver's caches and a chunk of a layer)
WORKER_BYTES = 600 * 2**20
#: the most local workers
MAX_WORKERS = 64
#: the most parts (:data:`quaternity_cp.partitioned.MAX_PARTS`)
MAX_PARTS = 256
#: the parts when none are given (:data:`quaternity_cp.quartets.bigsolve.DEFAULT_PARTS`)
DEFAULT_PARTS = 8


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
@click.option("--checkpoint", default=None, metavar="FOLDER",
              help="With --start: solve by the partitioned solver, the graph built by layers in parts (on Dask "
                   "workers) and kept in FOLDER: a run stopped by Ctrl-C, a limit or a crash goes on from there "
                   "(goals win and value; docs/solver.md). With --packed: the lazy solve's state is kept in FOLDER "
                   "(every --save-every seconds and when it stops), and the same command goes on from it.")
@click.option("--save-every", type=click.FloatRange(min=0), default=None, metavar="T",
              callback=lambda ctx, param, value: _finite_seconds(value),
              help="With --packed and --checkpoint: save the lazy solve's state every T seconds besides when it "
                   "stops (default 1800; each save writes every array: about a minute at 200 million "
                   "positions).")
@click.option("--parts", type=Whole(1, MAX_PARTS), default=None, metavar="K",
              help=f"With --checkpoint: the graph's partitions, 1..{MAX_PARTS} and no more than the start's size "
                   "calls for (4 up to 8 cards, 16 up to 12; default: a checkpoint's own, else 2 for small starts "
                   f"(2 players, 8 cards or fewer, 3 players and 12 cards or fewer), {DEFAULT_PARTS} for the others).")
@click.option("--workers", type=Whole(0, MAX_WORKERS), default=None, metavar="N",
              help=f"With --checkpoint: local Dask worker processes, 0..{MAX_WORKERS} and no more than the memory "
                   "holds (0: in this process; default: one per core).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="With --checkpoint: a Dask scheduler (tcp://host:8786) instead of local workers; the folder "
                   "must then be on storage every worker sees.")
@click.option("--drop-graph", is_flag=True,
              help="With --checkpoint: remove the graph's files once the answer is known (the manifest stays); "
                   "with --packed, the lazy solve's state, its folder keeping the answer only.")
@click.option("--attractor", type=click.Choice(("whole", "partitioned")), default="whole", show_default=True,
              help="With --checkpoint: the attractor over the whole graph in this process, or partitioned: in "
                   "rounds, part by part on the workers, checkpointed by rounds.")
@click.option("--packed", "lazy_packed", is_flag=True,
              help="With --start and the goal win: decide the player's forced win lazily over packed positions "
                   "(the compiled expansion; a fifth to a tenth of the default solve's memory a position, two to ten "
                   "times its speed on the starts measured; up to 16 seats, where the partitioned solver takes 8; "
                   f"--max-positions defaults to {PACKED_MAX_POSITIONS:,}, under 1 GB; docs/solver.md).")
@click.option("--threads", type=Whole(1, MAX_THREADS), default=None, metavar="N",
              help="With --packed, or --checkpoint and --workers 0 (the tasks in this process): threads of the "
                   "compiled expansion (default: every core this process may use; the answer and the "
                   "checkpoint's files are the same for any number).")
@click.option("--upgrade", "upgrade_layout", is_flag=True,
              help="With --checkpoint: a folder an older version wrote (plain part files) is rewritten in place "
                   "in this version's layout (about a third of its size) before going on.")
@progress_option
@common_options
@guarded
def solve(file: str | None, start: tuple[int, int, int] | None, goal: str, player: str | None,
          max_questions: int | None, depth: int, max_positions: int | None, max_seconds: float | None,
          checkpoint: str | None, save_every: float | None, parts: int | None, workers: int | None,
          cluster: str | None, drop_graph: bool,
          attractor: str, lazy_packed: bool, threads: int | None, upgrade_layout: bool, show_progress: bool | None,
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
    was stopped; a second Ctrl-C does not cut it short; with --checkpoint the
    message names the folder the next run goes on from), with --checkpoint
    also 143 after SIGTERM (a batch system's end of a job: the build stops as
    after Ctrl-C; the lazy solve's state is saved first).
    """
    if (file is None) == (start is None):
        raise InputError("give either FILE or --start P N S")
    partitioned_only = {"--parts": parts is not None, "--workers": workers is not None,
                        "--cluster": cluster is not None, "--drop-graph": drop_graph,
                        "--attractor": attractor != "whole", "--upgrade": upgrade_layout,
                        "--progress/--no-progress": show_progress is not None}
    if engine is not None and (lazy_packed or checkpoint is not None):
        raise InputError(f"--engine goes with the in-memory solver, not {'--packed' if lazy_packed else '--checkpoint'} "
                         "(whose compiled analysis is its own)")
    if threads is not None and not lazy_packed and (checkpoint is None or workers != 0 or cluster is not None):
        raise InputError("--threads goes with --packed, or with --checkpoint and --workers 0 (the partitioned "
                         "solver's tasks in this process; with Dask workers its parallelism is --workers)")
    if save_every is not None and not (lazy_packed and checkpoint is not None):
        raise InputError("--save-every goes with --packed and --checkpoint (the lazy solve's state kept)")
    if lazy_packed:
        if start is None:
            raise InputError("--packed solves the start of a game: give --start P N S, not FILE")
        if goal != "win":
            raise InputError(f"--packed decides the goal win, not {goal}")
        if max_questions is not None:
            raise InputError("--max-questions goes with the quartet goal, which --packed does not solve")
        given = [name for name, on in partitioned_only.items()
                 if on and name not in ("--progress/--no-progress", "--drop-graph")]
        if drop_graph and checkpoint is None:
            raise InputError("--drop-graph goes with --checkpoint (the folder whose state is dropped once the "
                             "answer is known)")
        if given:
            raise InputError(f"{', '.join(given)} go{'es' if len(given) == 1 else ''} with the partitioned solver "
                             "(--checkpoint without --packed)")
        positions_given = click.get_current_context().get_parameter_source("max_positions") \
            not in (ParameterSource.DEFAULT, None)
        _lazy_packed(start, player, depth,
                     max_positions if positions_given and max_positions is not None else PACKED_MAX_POSITIONS,
                     max_seconds, as_json, rules, show_progress, available_cores() if threads is None else threads,
                     checkpoint, save_every, drop_graph)
    if checkpoint is None:
        given = [name for name, on in partitioned_only.items() if on]
        if given:
            raise InputError(f"{', '.join(given)} go{'es' if len(given) == 1 else ''} with --checkpoint "
                             "(the partitioned solver)")
    else:
        if start is None:
            raise InputError("--checkpoint solves the start of a game: give --start P N S, not FILE")
        if max_questions is not None:
            raise InputError("--max-questions goes with the quartet goal, which --checkpoint does not solve")
        positions_given = click.get_current_context().get_parameter_source("max_positions") \
            not in (ParameterSource.DEFAULT, None)
        _checkpointed(start, goal, player, depth, max_positions if positions_given else None, max_seconds,
                      checkpoint, parts, workers, cluster, drop_graph, attractor, as_json, rules, upgrade_layout,
                      show_progress, threads if threads is not None
                      else available_cores() if workers == 0 and cluster is None else 1)
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
    seat = check_goal(position, goal, _seat(game, player), max_questions=max_questions)  # a goal that does not apply: exit 2
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


def _checkpointed(start: tuple[int, int, int], goal: str, player: str | None, depth: int,
                  max_positions: int | None, max_seconds: float | None, checkpoint: str, parts: int | None,
                  workers: int | None, cluster: str | None, drop_graph: bool, attractor: str, as_json: bool,
                  rules: str | None, upgrade_layout: bool = False, show_progress: bool | None = None,
                  threads: int = 1) -> None:
    """``solve --start P N S --checkpoint FOLDER``: every option checked before any work, then the partitioned
    solver (:func:`quaternity_cp.quartets.bigsolve.solve_start`)."""
    from ... import partitioned as pt
    from ...command.workers import check_workers
    from ...lazystate import MANIFEST as LAZY_MANIFEST, is_lazy_folder
    from ...retrograde import RetroError
    from ..bigsolve import BigSolveError, check_goal as check_big_goal, check_parts, packed_of, solve_start
    from ..packed import PackedError

    if not checkpoint.strip():
        raise InputError("--checkpoint: give a folder (an empty name would build in the current folder)")
    if workers is not None and cluster is not None:
        raise InputError("give --workers (local processes) or --cluster (a scheduler), not both")
    rule_set = _parse_rules(rules)
    P, N, S = start
    try:
        packed_of(P, N, S, rule_set, goal)
        game = Game(P, N, S)
        seat = check_big_goal(goal, _seat(game, player), P)
        if parts is not None:
            check_parts(parts, P, N, S)
    except (PackedError, BigSolveError) as err:
        raise InputError(str(err)) from None
    if os.path.exists(checkpoint) and not os.path.isdir(checkpoint):
        raise InputError(f"--checkpoint {checkpoint}: not a folder")
    folder = os.path.abspath(checkpoint)
    if is_lazy_folder(folder):
        raise InputError(f"--checkpoint {checkpoint}: holds a lazy solve's state ({LAZY_MANIFEST}), not the "
                         "partitioned solver's checkpoint: give --packed to go on with it, or use another folder")
    workers = check_workers(workers, cluster, worker_bytes=WORKER_BYTES, max_workers=MAX_WORKERS)
    limits = Limits(max_positions, max_seconds)

    shows = graph_progress(not as_json, show_progress)
    # The header (and the notice of a first compile) once the checkpoint is taken: a checkpoint refused (of
    # another start or game, damaged) leaves standard output empty and standard error one line. A new folder
    # cannot be refused, so its notice comes first, before the compiling it tells of.
    fresh = not os.path.isdir(folder) or not os.listdir(folder)
    if not as_json and fresh:
        _kernel_notice(P, N, S, rule_set)
    begun: list[bool] = []

    def begin() -> None:
        if not begun:
            begun.append(True)
            if not as_json:
                print_header("start of the game", game, rule_set)
                if not fresh:
                    _kernel_notice(P, N, S, rule_set)

    def progress(step: dict[str, Any]) -> None:
        begin()
        shows(step)

    def unproven(reason: str, stop: pt.BuildStopped | None) -> None:
        """The verdict known when the solve stopped: unproven, with what was done and the folder."""
        begin()
        res = SolveResult(goal, seat, None, Status(reason), game, rule_set, engine="partitioned")
        res.seconds = round(time.monotonic() - began, 2)
        if stop is not None:
            res.positions, res.expanded = stop.positions, stop.expanded
        where = f"{stop} ({folder})" if stop is not None else f"interrupted ({folder})"
        if as_json:
            emit_json({"position": "start of the game", "players": P, "sets": N, "set_size": S,
                       "player_names": list(game.player_names), **res.to_json(), "checkpoint": folder,
                       "layers": stop.layers if stop is not None else None, "stopped": where})
        else:
            click.echo(f"Result: {res.summary()}: {where}")

    stops = Stops()
    began = time.monotonic()
    try:
        with stops:
            out = solve_start(P, N, S, rule_set, folder, goal=goal, player=seat, parts=parts,
                              workers=workers, cluster=cluster, limits=limits, attractor=attractor, depth=depth,
                              keep_graph=not drop_graph, progress=progress, upgrade_layout=upgrade_layout,
                              threads=threads)
    except pt.BuildStopped as stop:  # (and AttractorStopped)
        if stop.reason == "interrupted":  # (the verdict known first, as the other solvers print it)
            unproven(INTERRUPTED, stop)
            fail(f"interrupted: {stop}; the checkpoint is {folder}", stops.code)
        if stop.reason == "failed":
            fail(f"{stop} ({folder})", EXIT_INPUT)
        unproven(stop.reason, stop)
        sys.exit(EXIT_OK)
    except KeyboardInterrupt:
        unproven(INTERRUPTED, None)
        fail(f"interrupted; the checkpoint is {folder}: run the same command again to go on", stops.code)
    except (pt.PartitionedError, RetroError, PackedError, BigSolveError) as err:
        raise InputError(str(err)) from None
    except OSError as err:
        raise InputError(f"--checkpoint {checkpoint}: {err.strerror or err}") from None
    begin()
    if as_json:
        emit_json({"position": "start of the game", "players": P, "sets": N, "set_size": S,
                   "player_names": list(game.player_names), **out.to_json()})
    else:
        print_result(game, out.result)
        every = ", ".join(f"{game.seat_name(int(p))} " + (f"forces a win in {e['plies']} plies" if e["wins"] else "cannot")
                          for p, e in out.seats.items())
        click.echo(f"Every seat (being a winner{', alone' if out.result.goal == 'value' else ''}): {every}.")
        g = out.graph
        click.echo(f"Graph: {out.result.positions:,} positions, {g['edges']:,} moves, {g['layers']} layers in "
                   f"{g['parts']} parts ({g['bytes_per_position']} bytes a position on disk); build "
                   f"{g['build_seconds']} s, attractor {g['attractor_seconds']} s; checkpoint {g['checkpoint']}")
    sys.exit(EXIT_OK)


def _lazy_packed(start: tuple[int, int, int], player: str | None, depth: int, max_positions: int,
                 max_seconds: float | None, as_json: bool, rules: str | None, show_progress: bool | None,
                 threads: int, checkpoint: str | None = None, save_every: float | None = None,
                 drop_graph: bool = False) -> None:
    """``solve --start P N S --packed [--checkpoint FOLDER]``: the lazy win solve over packed positions
    (:func:`quaternity_cp.quartets.bigsolve.solve_lazy`), its state kept in FOLDER when given."""
    from ...lazystate import LazyStateError
    from ..bigsolve import SAVE_EVERY, BigSolveError, check_goal as check_big_goal, packed_of, solve_lazy
    from ..packed import PackedError

    rule_set = _parse_rules(rules)
    P, N, S = start
    try:
        packed_of(P, N, S, rule_set, "win", lazy=True)
        game = Game(P, N, S)
        seat = check_big_goal("win", _seat(game, player), P)
    except (PackedError, BigSolveError) as err:
        raise InputError(str(err)) from None
    folder = None
    if checkpoint is not None:
        if not checkpoint.strip():
            raise InputError("--checkpoint: give a folder (an empty name would keep the state in the current "
                             "folder)")
        folder = os.path.abspath(checkpoint)
        if os.path.lexists(folder) and not os.path.isdir(folder):
            raise InputError(f"--checkpoint {checkpoint}: not a folder")
    shown = (not as_json) if show_progress is None else show_progress
    last = [0.0]
    started: list[bool] = []

    def progress(step: dict[str, Any]) -> None:
        if not started:  # (the tests' event: the search runs, inside the Ctrl-C guard)
            started.append(True)
            signal_started()
        if step["seconds"] - last[0] >= 10 or step.get("phase") == "ranking":  # (a round's end: always said)
            last[0] = step["seconds"]
            if shown:
                say(lazy_line(step))

    def on_save(nbytes: int, seconds: float) -> None:
        if shown:
            say(f"  state saved in {folder}: {_size(nbytes)} written in {seconds:.1f} s")

    def on_error(why: str) -> None:  # (always shown: the run goes on, but the state on disk is older)
        say(f"quaternity: {why}; the solve goes on and tries again in "
            f"{SAVE_EVERY if save_every is None else save_every:g} s")

    header = [False]

    def begin() -> None:
        if not as_json and not header[0]:
            header[0] = True
            print_header("start of the game", game, rule_set)
            _kernel_notice(P, N, S, rule_set)

    if folder is None:
        begin()
        with Interrupts() as ctrl_c:
            out = ctrl_c.run(solve_lazy, P, N, S, rule_set, player=seat, limits=Limits(max_positions, max_seconds),
                             depth=depth, progress=progress, threads=threads)
            _lazy_answer(game, out, as_json)
        interrupted = ctrl_c.interrupted or INTERRUPTED in (out.result.status, out.result.tree_stopped)
        sys.exit(EXIT_INTERRUPTED if interrupted else EXIT_OK)
    def reporting(step: dict[str, Any]) -> None:
        begin()
        progress(step)

    # (a folder with a state: the header once it is read, so that a refused one leaves standard output empty)
    if not os.path.isdir(folder) or not os.listdir(folder):
        begin()
    stops = Stops()
    try:
        with stops:
            out = solve_lazy(P, N, S, rule_set, player=seat, limits=Limits(max_positions, max_seconds), depth=depth,
                             progress=reporting, threads=threads, checkpoint=folder,
                             save_every=SAVE_EVERY if save_every is None else save_every, on_save=on_save,
                             on_error=on_error, drop_graph=drop_graph)
            begin()
            _lazy_answer(game, out, as_json)
    except LazyStateError as err:
        raise InputError(str(err)) from None
    except KeyboardInterrupt:  # (before the solve began, or once its answer was printed: nothing to save)
        fail(f"interrupted; the state kept is in {folder}: run the same command again to go on", stops.code)
    res = out.result
    if out.graph.get("save_error"):  # (the answer is printed; the state on disk is an older one, or none)
        fail(str(out.graph["save_error"]), EXIT_INPUT)
    if INTERRUPTED in (res.status, res.tree_stopped):
        fail(f"interrupted: the state is saved in {folder}: run the same command again to go on", stops.code)
    sys.exit(EXIT_OK)


def _lazy_answer(game: Game, out: Any, as_json: bool) -> None:
    res = out.result
    if as_json:
        emit_json({"position": "start of the game", "players": game.players, "sets": game.sets,
                   "set_size": game.set_size, "player_names": list(game.player_names), **out.to_json()})
        return
    print_result(game, res)
    g = out.graph
    click.echo(f"Lazy graph: {res.positions:,} positions, {g['edges']:,} moves, {g['rounds']} "
               f"round{'' if g['rounds'] == 1 else 's'}, "
               f"{g['solve_seconds']} s, {g['array_bytes'] / 2**20:,.1f} MB of arrays")
    if g.get("checkpoint") and g.get("graph_dropped"):
        click.echo(f"State: {g['checkpoint']} keeps the answer only (the graph dropped: the same command "
                   f"answers from it, without a strategy; {g['total_seconds']} s in all)")
    elif g.get("checkpoint"):
        click.echo(f"State: {g['checkpoint']} (run {g['runs']}, {g['total_seconds']} s in all; "
                   f"{_size(g['saved_bytes'])} written in {g['save_seconds']} s this run)")


def _size(nbytes: int) -> str:
    """Bytes in MB, or GB from 1 GB on.

    >>> _size(103262), _size(12 * 2**30)
    ('0.1 MB', '12.00 GB')
    """
    return f"{nbytes / 2**30:,.2f} GB" if nbytes >= 2**30 else f"{nbytes / 2**20:,.1f} MB"


def _seat(game: Game, player: str | None) -> int | None:
    """--player as a seat (a seat number or a player's name), None when not given; an unknown one: exit 2."""
    if player is None:
        return None
    try:
        return game.player(player)
    except QuaternityError as err:
        raise InputError(f"--player: {err}") from None


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
        say(f"quaternity: {message}")
    sys.exit(EXIT_ILLEGAL)


def _kernel_notice(P: int, N: int, S: int, rules: Rules) -> None:
    """Says so when the compiled expansion must be compiled first (once on a machine: numba's cache keeps it)."""
    from ..packed import QuaternityPacked

    if QuaternityPacked(P, N, S, rules).compiled:
        from .. import packed_nb

        if not packed_nb.cached():
            say("  compiling the packed positions' kernel (numba; once on this machine, about a minute)")


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
    status = console(stderr=True).status("solving...")
    status.start()

    def update(info: dict[str, Any]) -> None:
        extra = f", depth {info['depth']}" if "depth" in info else ""
        status.update(f"solving: {info['positions']:,} positions, {info['expanded']:,} expanded"
                      f"{extra}, {info['seconds']:.0f} s (Ctrl-C stops)")

    return update, status.stop


# -- human output -------------------------------------------------------------------
def print_header(label: str, game: Game, rules: Rules) -> None:
    """The first line of the output: the position solved."""
    console().print(
        f"[bold]{label}[/bold]: {game.players} players, {game.sets} sets of {game.set_size} cards,"
        f" rules [bold]{rules.name}[/bold]")


def print_result(game: Game, res: SolveResult) -> None:
    """The rest: the goal, the verdict, the trees, what the search took."""
    out = console()
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
