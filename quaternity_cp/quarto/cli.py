"""``quaternity quarto``: the Quarto commands (``check``; ``solve``; ``graph``; ``openings``).

The library (quaternity_cp.quarto) is imported inside each command, so that
other commands do not pay for it.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import click

from ..command import (EXIT_ILLEGAL, EXIT_INPUT, EXIT_OK, InputError, Whole, check_output,
                       emit_json, fail, force_option, guarded, read_text, say, write_text)
from ..command.runs import Stops, graph_progress, progress_option


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def quarto() -> None:
    """Quarto: check records and positions, solve positions.

    FILE is a Quarto record or position (JSON); '-' reads standard input.
    Exit codes: 0 valid, 1 illegal move or unreachable position, 2 bad input,
    3 internal error.
    """


# -- helpers (also for `quarto solve`) ------------------------------------------------
def load_quarto(path: str, rules: str | None = None):
    """The record or position in ``path`` ('-': standard input), under ``rules`` (``--rules``: instead of the
    file's own; None: the file's); bad input raises InputError (exit 2)."""
    import dataclasses

    from quaternity_cp.quarto.formats import FormatError, parse, rules_from_text

    try:
        squares = None if rules is None else rules_from_text(rules)
    except FormatError as err:
        raise InputError(f"--rules: {err}") from None
    text = read_text(path)
    name = "<stdin>" if path == "-" else path
    try:
        item = parse(text)
    except FormatError as err:
        raise InputError(f"{name}: {err}") from None
    return item if squares is None else dataclasses.replace(item, squares=squares)


def _one_rules(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> str | None:
    """--rules at most once (a second one would silently replace the first), as every game's."""
    if len(value) > 1:
        fail("--rules: given more than once; Quarto's one option goes in one value, e.g. --rules squares=true")
    return value[0] if value else None


#: why ``--engine`` is refused: the option of the other games' exact engines
NO_ENGINE = "--engine: Quarto has no exact engines (its solve picks its search with --kernel); drop --engine"


def rules_options(func: Any) -> Any:
    """``--rules squares=true|false`` (instead of the file's rules), and ``--engine``, hidden, refused with the
    reason (``quaternity check --engine`` of a Quarto record reaches it)."""
    func = click.option("--engine", "engine", default=None, hidden=True)(func)
    return click.option(
        "--rules", "rules", metavar="squares=BOOL", default=None, multiple=True, callback=_one_rules,
        help="Rules to use instead of the file's: Quarto's one option, squares=true (the 2x2 squares win too) or "
             "squares=false.")(func)


def board_lines(board, indent: str = "  ") -> list[str]:
    """The board as text: rows from the top, labelled as in the notation."""
    out = [indent + "     A    B    C    D"]
    for r in range(4):
        cells = [str(p) if p is not None else "...." for p in board.rows()[r]]
        out.append(f"{indent}{4 - r}  " + " ".join(cells))
    return out


def status_line(pos) -> str:
    """Who won, or whose decision it is now."""
    if pos.over:
        if pos.winner is None:
            return "Draw: the board is full and no line shares a trait."
        lines = "; ".join(" ".join(str(c) for c in line) for line in pos.winning_lines)
        return f"Player {pos.winner} won (line {lines})."
    if pos.piece is None:
        return f"Player {pos.to_move} to choose the first piece."
    left = len(pos.available_pieces())
    return f"Player {pos.to_move} to move, holding {pos.piece}; {left} piece{'s' if left != 1 else ''} left to give."


# -- check --------------------------------------------------------------------------------
@quarto.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@rules_options
@guarded
def check(file: str, as_json: bool, rules: str | None = None, engine: str | None = None) -> None:
    """Replay a Quarto record, or check that a position is reachable.

    Exit 0: every move legal (the position reachable); 1: an illegal move or an
    unreachable position, with the reason; 2: bad input. --rules squares=true
    (or false) checks under other rules than the file's.
    """
    from quaternity_cp.quarto.formats import QuartoRecord, check as check_item

    if engine is not None:
        raise InputError(NO_ENGINE)
    item = load_quarto(file, rules)
    result = check_item(item)
    if as_json:
        emit_json(result.to_json())
    else:
        _print_check(item, result, isinstance(item, QuartoRecord))
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


def _print_check(item, result, is_record: bool) -> None:
    pos = result.position
    rules = "squares" if item.squares else "standard"
    echo = click.echo
    if is_record:
        n = len(item.moves)
        echo(f"Quarto record, {n} move{'s' if n != 1 else ''} (rules: {rules})")
        width = max([len(t) for t in item.texts] + [8]) + 2
        replayed = result.position.moves
        for i, move in enumerate(replayed, 1):
            echo(f"{i:>4}  {item.texts[i - 1]:<{width}}ok")
        if result.error is not None:
            i = result.moves_applied + 1
            echo(f"{i:>4}  {result.error_move:<{width}}ILLEGAL: {result.error}")
            echo(f"The record stops there; {result.moves_applied} move{'s were' if result.moves_applied != 1 else ' was'} applied.")
    else:
        placed = pos.board.count()
        echo(f"Quarto position, {placed} piece{'s' if placed != 1 else ''} placed (rules: {rules})")
    for line in board_lines(pos.board):
        echo(line)
    if result.unreachable is not None:
        echo(f"UNREACHABLE: {result.unreachable}")
        return
    echo(status_line(pos))


# -- solve (H4) -----------------------------------------------------------------------------
def _move_text(move) -> str:
    """A solver move ``(cell, piece)`` in the record notation (``"A1 DSSH"``, ``"A1"``, ``"DSSH"``)."""
    from quaternity_cp.quarto.position import Move

    cell, piece = move
    return str(Move(cell, piece))


@quarto.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--max-seconds", type=float, default=None, metavar="T",
              help="Stop after about T seconds; the value is then 'unproven'.")
@click.option("--kernel", type=click.Choice(["auto", "fast", "python"]), default="auto", show_default=True,
              help="The search: compiled (fast, the [fast] extra: numba), pure Python, or auto: Python, then the "
                   "compiled one (loaded only then) once the search grows, when numba is there.")
@click.option("--split", type=Whole(1, 16), default=None, metavar="PLIES",
              help="Prove the value from independent work units PLIES plies down, on Dask workers (fast kernel).")
@click.option("--workers", type=Whole(0, 1024), default=None, metavar="N",
              help="With --split: local worker processes (default: one per core; 0: this process).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="With --split: a Dask scheduler (tcp://host:8786) instead of local workers.")
@click.option("--checkpoint", default=None, metavar="FILE",
              help="With --split: every answer goes to FILE; run again with the same FILE to go on after a stop.")
@rules_options
@guarded
def solve(file: str, as_json: bool, max_seconds, kernel, split, workers, cluster, checkpoint, rules=None,
          engine=None) -> None:
    """Solve a Quarto record's final position, or a position, exactly.

    Prints the value for the player to move (win, draw or loss with best play
    on both sides), a best move ("A1 DSSH": place the piece in hand on A1, give
    DSSH), the principal variation, the nodes searched and the time; 'unproven'
    when --max-seconds or Ctrl-C stopped the search. Exit 0 solved or stopped,
    1 an illegal record or unreachable position, 2 bad input, 130 interrupted
    (Ctrl-C: what is known is printed first; a second Ctrl-C does not cut it short).

    With --split the value is proven from work units (see docs/quarto.md): the
    empty board takes `quaternity quarto solve examples/quarto/empty.json
    --split 3 --checkpoint proof.json`; the output adds the proof's shape.
    """
    import math

    from quaternity_cp.budget import INTERRUPTED, Limits
    from quaternity_cp.quarto.solver import SolveResult, solve as solve_position

    from ..command.interrupts import Interrupts

    if engine is not None:
        raise InputError(NO_ENGINE)
    if max_seconds is not None and not (math.isfinite(max_seconds) and max_seconds > 0):
        raise InputError(f"--max-seconds: expected a finite number of seconds > 0, got {max_seconds!r}")
    if split is None and (workers is not None or cluster is not None or checkpoint is not None):
        raise InputError("--workers, --cluster and --checkpoint go with --split")
    if split is not None:
        _check_split(kernel, checkpoint, file)
    pos = _legal_position(file, rules)
    board = [None if p is None else int(p) for p in pos.board.as_tuple()]
    piece = None if pos.piece is None else int(pos.piece)
    if split is not None and checkpoint is not None and not pos.over:  # a wrong checkpoint before any output
        from quaternity_cp.quarto.proof import ProofError, check_checkpoint

        try:
            check_checkpoint(checkpoint, board, piece, squares=pos.squares, split=split)
        except ProofError as err:
            raise InputError(str(err)) from None
    if not as_json:  # the position first, while the solver works
        _print_position(pos)
    if split is not None and not pos.over:
        _prove(pos, board, piece, as_json, max_seconds, split, workers, cluster, checkpoint)
        return
    with Interrupts() as ctrl_c:  # Ctrl-C stops the search; once more, it still waits for what is known
        try:
            result = ctrl_c.run(solve_position, board, piece, squares=pos.squares,
                                limits=Limits(max_seconds=max_seconds), kernel=kernel, on_event=_solve_events(ctrl_c))
        except KeyboardInterrupt:  # before the search began: nothing searched, still a value to print
            result = SolveResult(None, None, [], 0, 0.0, INTERRUPTED)
        data: dict[str, Any] = {
            "value": result.verdict,
            "best": None if result.best is None else _move_text(result.best),
            "pv": [_move_text(m) for m in result.pv],
            "nodes": result.nodes,
            "seconds": round(result.seconds, 6),
            "status": result.status,
            "pv_stopped": result.pv_stopped,
        }
        if as_json:
            emit_json(data)
        else:
            _print_solve(pos, result, data)
    interrupted = ctrl_c.interrupted or INTERRUPTED in (result.status, result.pv_stopped)
    sys.exit(130 if interrupted else EXIT_OK)


def _solve_events(ctrl_c: Any) -> Callable[[str, dict], None]:
    """What the command does with the solver's events (quaternity_cp.quarto.solver.EventHandler): say so when
    the compiled kernel is compiled (once, seconds); for the tests (QUATERNITY_TEST_SIGNAL_STARTED), say when
    the kernel starts loading and when the search reports its first progress. A Ctrl-C counted but not seen
    by the search (a library in the kernel's loading may swallow the KeyboardInterrupt) stops it there."""
    from ..command.interrupts import signal_started

    started: list[bool] = []

    def on_event(name: str, info: dict) -> None:
        if name == "compiling":
            say(f"quaternity: compiling the Quarto kernel, once, about {info['seconds']} s")
        elif name == "loading":
            signal_started("kernel load")
        elif name == "progress":
            if not started:
                started.append(True)
                signal_started("search")
            if ctrl_c.interrupted:
                raise KeyboardInterrupt

    return on_event


def _print_position(pos) -> None:
    echo = click.echo
    rules = "squares" if pos.squares else "standard"
    placed = pos.board.count()
    echo(f"Quarto position, {placed} piece{'s' if placed != 1 else ''} placed (rules: {rules})")
    for line in board_lines(pos.board):
        echo(line)
    echo(status_line(pos))


def _print_solve(pos, result, data: dict[str, Any]) -> None:
    echo = click.echo
    if not result.proven:
        why = {"time": "stopped by the time limit", "limit": "stopped by the node limit"}.get(result.status,
                                                                                              result.status)
        echo(f"Value: unproven ({why})")
    elif pos.over:
        echo(f"Value: {result.value} for the player who would move next; the game is over, there is no move")
    else:
        echo(f"Value: {result.value} for player {pos.to_move}, the player to move")
    if data["best"] is not None:
        echo(f"Best move: {data['best']}")
    if data["pv"]:
        cut = f" (cut short: {result.pv_stopped})" if result.pv_stopped is not None else ""
        echo(f"Principal variation: {' '.join('[' + m + ']' for m in data['pv'])}{cut}")
    echo(f"Nodes: {result.nodes:,}  time: {result.seconds:.3f} s")


# -- the graph of a position, by the shared partitioned solver ----------------------------------------------------
#: the parts of a graph when none are asked for
GRAPH_PARTS = 4
#: the memory a local worker of the graph's build takes at most (a chunk of a layer and its children)
GRAPH_WORKER_BYTES = 1 << 30
#: the most local workers
GRAPH_MAX_WORKERS = 64


@quarto.command()
@click.argument("file")
@click.option("--checkpoint", required=True, metavar="FOLDER",
              help="Build the graph in FOLDER: a run stopped by Ctrl-C, a limit or a crash goes on from there.")
@click.option("--parts", type=Whole(1, 256), default=None, metavar="K",
              help=f"The graph's partitions, 1..256 (each layer writes K x K files); default: a checkpoint's own, "
                   f"else {GRAPH_PARTS}.")
@click.option("--workers", type=Whole(0, GRAPH_MAX_WORKERS), default=None, metavar="N",
              help="Local Dask worker processes (default 0: in this process).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="A Dask scheduler (tcp://host:8786) instead of local workers; FOLDER must then be on storage "
                   "every worker sees.")
@click.option("--attractor", type=click.Choice(("whole", "partitioned")), default="whole", show_default=True,
              help="The attractor over the whole graph in this process, or partitioned: in rounds, part by part, "
                   "checkpointed by rounds.")
@click.option("--max-positions", type=Whole(1), default=None, metavar="N",
              help="Stop once the graph holds N positions (the value is then 'unproven').")
@click.option("--max-seconds", type=float, default=None, metavar="T",
              help="Stop after about T seconds (the value is then 'unproven').")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@progress_option
@rules_options
@guarded
def graph(file: str, checkpoint: str, parts: int | None, workers: int | None, cluster: str | None, attractor: str,
          max_positions: int | None, max_seconds: float | None, as_json: bool, show_progress: bool | None = None,
          rules: str | None = None, engine: str | None = None) -> None:
    """Build the whole game graph reachable from a position and solve it by its attractor.

    FILE is a position or a record (its last position), as for `quarto solve`,
    with at most 11 empty cells (each position's plies must fit the shared
    solver's 127). The graph (positions up to symmetry) is built by layers in
    FOLDER, then ranked: prints the value for the player to move (win, draw or
    loss), how many plies the winner needs, a best move and the graph's sizes.
    Exit 0 solved, or stopped by --max-positions or --max-seconds (value
    'unproven'; run again with the same FOLDER to go on), 1 an illegal record
    or unreachable position, 2 bad input (a finished game, too many empty
    cells, a FOLDER of another position), 130 interrupted by Ctrl-C and 143 by
    SIGTERM (a batch system's end of a job; the message names the FOLDER to go
    on from).
    """
    import math

    from quaternity_cp import partitioned as pt
    from quaternity_cp.budget import Limits
    from quaternity_cp.quarto.packed import QuartoGraphError, packed_for, value_at
    from quaternity_cp.retrograde import RetroError

    from ..command.workers import check_workers

    if engine is not None:
        raise InputError(NO_ENGINE)
    if max_seconds is not None and not (math.isfinite(max_seconds) and max_seconds > 0):
        raise InputError(f"--max-seconds: expected a finite number of seconds > 0, got {max_seconds!r}")
    if not checkpoint.strip():
        raise InputError("--checkpoint: give a folder (an empty name would build in the current folder)")
    if workers is not None and cluster is not None:
        raise InputError("give --workers (local processes) or --cluster (a scheduler), not both")
    if os.path.exists(checkpoint) and not os.path.isdir(checkpoint):
        raise InputError(f"--checkpoint {checkpoint}: not a folder")
    pos = _legal_position(file, rules)
    name = "<stdin>" if file == "-" else file
    if pos.over:
        result = "a draw" if pos.winner is None else f"player {pos.winner} won"
        raise InputError(f"{name}: the game is over ({result}): no move is left to build a graph from")
    board = [None if p is None else int(p) for p in pos.board.as_tuple()]
    piece = None if pos.piece is None else int(pos.piece)
    try:
        packed = packed_for({"board": board, "piece": piece, "squares": pos.squares})
    except QuartoGraphError as err:
        raise InputError(f"{name}: {err}") from None
    assert piece is not None  # (packed_for refuses a position that is not over with nothing in hand)
    workers = check_workers(0 if workers is None and cluster is None else workers, cluster,
                            worker_bytes=GRAPH_WORKER_BYTES, max_workers=GRAPH_MAX_WORKERS)
    folder = os.path.abspath(checkpoint)
    try:
        if parts is None:  # (a checkpoint goes on in its own parts)
            parts = pt.stored_parts(folder, packed) or GRAPH_PARTS
        pt.read_manifest(folder, packed, parts)  # (a checkpoint of another position or parts: before any output)
    except pt.PartitionedError as err:
        raise InputError(str(err)) from None

    progress = graph_progress(not as_json, show_progress)

    if not as_json:
        _print_position(pos)
    stops = Stops()
    try:
        with stops:
            built, att = pt.solve_graph(packed, folder, parts=parts, workers=workers, cluster=cluster,
                                        limits=Limits(max_positions=max_positions, max_seconds=max_seconds),
                                        progress=progress, attractor=attractor)
            got = value_at(built, att.ranks, board, piece)
    except pt.BuildStopped as stop:  # (and AttractorStopped)
        if stop.reason == "interrupted":
            fail(f"interrupted: {stop}; the checkpoint is {folder}", stops.code)
        if stop.reason == "failed":
            fail(f"{stop} ({folder})", EXIT_INPUT)
        _print_graph(pos, _graph_json(None, None, folder, attractor, parts, stop), as_json, str(stop))
        sys.exit(EXIT_OK)
    except KeyboardInterrupt:
        fail(f"interrupted; the checkpoint is {folder}: run the same command again to go on", stops.code)
    except (pt.PartitionedError, RetroError, QuartoGraphError) as err:
        raise InputError(str(err)) from None
    except OSError as err:
        raise InputError(f"--checkpoint {checkpoint}: {err.strerror or err}") from None
    _print_graph(pos, _graph_json(built, att, folder, attractor, parts, got), as_json, None)
    sys.exit(EXIT_OK)


def _graph_json(built: Any, att: Any, folder: str, attractor: str, parts: int, got: Any) -> dict[str, Any]:
    """The JSON of `quarto graph`: the value (``got``: a GraphValue; a BuildStopped when a limit stopped it) and
    the graph's sizes."""
    from quaternity_cp.quarto.position import Move

    if built is None:  # stopped by a limit: what the checkpoint holds so far
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs)
        return {"value": "unproven", "best": None, "plies": None, "positions": got.positions, "edges": None,
                "layers": got.layers, "parts": parts, "build_seconds": None, "attractor_seconds": None,
                "checkpoint_bytes": size, "bytes_per_position": round(size / max(1, got.positions), 1),
                "status": got.reason, "attractor": attractor, "checkpoint": folder}
    disk = sum(int(e[0]) for e in built.files.values())
    best = None if got.best is None else str(Move(got.best[0], got.best[1]))
    return {"value": got.value, "best": best, "plies": got.plies, "positions": built.positions,
            "edges": built.edges, "layers": built.layers, "parts": built.parts,
            "build_seconds": round(built.seconds, 2), "attractor_seconds": round(att.seconds, 2),
            "checkpoint_bytes": disk, "bytes_per_position": round(disk / max(1, built.positions), 1),
            "status": "solved", "attractor": attractor, "checkpoint": folder}


def _print_graph(pos: Any, data: dict[str, Any], as_json: bool, stopped: str | None) -> None:
    if as_json:
        emit_json(data)
        return
    echo = click.echo
    if stopped is not None:
        echo(f"Value: unproven ({stopped}; the checkpoint is {data['checkpoint']})")
        return
    me, other = pos.to_move, 1 - pos.to_move
    value = data["value"]
    if value == "win":
        echo(f"Value: win for player {me}, the player to move: a forced win in {data['plies']} plies")
    elif value == "loss":
        echo(f"Value: loss for player {me}, the player to move: player {other} forces a win in {data['plies']} plies")
    else:
        echo(f"Value: draw for player {me}, the player to move: neither player can force a win")
    echo(f"Best move: {data['best']}")
    echo(f"Graph: {data['positions']:,} positions, {data['edges']:,} moves, {data['layers']} layers in "
         f"{data['parts']} parts ({data['bytes_per_position']} bytes a position on disk); build "
         f"{data['build_seconds']} s, attractor {data['attractor_seconds']} s; checkpoint {data['checkpoint']}")


# -- proofs from work units, and the opening table ----------------------------------------------------
def _legal_position(file: str, rules):
    """FILE's position (a record's, after its moves) under ``rules``; an illegal record or an impossible position
    is said in one line, exit 1."""
    from quaternity_cp.quarto.formats import check as check_item

    checked = check_item(load_quarto(file, rules))
    if not checked.valid:
        where = f"move {checked.moves_applied + 1} ({checked.error_move})" if checked.error is not None else "position"
        say(f"quaternity: {where}: {checked.message}")
        sys.exit(EXIT_ILLEGAL)
    return checked.position


def _check_split(kernel: str, checkpoint, file: str) -> None:
    """Before any work: the fast kernel is there, and the checkpoint file can be written (it may exist)."""
    from quaternity_cp.quarto.solver import fast_available

    if kernel == "python":
        raise InputError("--split runs the fast kernel: leave out --kernel python")
    if not fast_available():
        raise InputError("--split needs the fast kernel: pip install 'quaternity-cp[fast]'")
    if checkpoint is not None:
        check_output(checkpoint, "--checkpoint", inputs=(file,), force=True)


def _run_proof(board, piece, squares: bool, max_seconds, split: int, workers, cluster, checkpoint,
               complete: bool = False):
    """The proof under Ctrl-C (what is known is kept) and the limits; bad options exit 2."""
    from quaternity_cp.budget import Limits
    from quaternity_cp.cluster import ClusterError
    from quaternity_cp.quarto.proof import ProofError, prove

    from ..command.interrupts import Interrupts

    if max_seconds is not None and not (max_seconds > 0 and max_seconds < float("inf")):
        raise InputError(f"--max-seconds: expected a finite number of seconds > 0, got {max_seconds!r}")
    with Interrupts() as ctrl_c:
        try:
            result = ctrl_c.run(prove, board, piece, squares=squares, split=split, workers=workers, cluster=cluster,
                                checkpoint=checkpoint, limits=Limits(max_seconds=max_seconds), complete=complete)
        except (ProofError, ClusterError) as err:
            raise InputError(str(err)) from None
    return result, ctrl_c.interrupted


def _prove(pos, board, piece, as_json: bool, max_seconds, split: int, workers, cluster, checkpoint) -> None:
    from quaternity_cp.budget import INTERRUPTED

    result, interrupted = _run_proof(board, piece, pos.squares, max_seconds, split, workers, cluster, checkpoint)
    best = None if result.best is None else _move_text(result.best)
    data: dict[str, Any] = {
        "value": result.value if result.value is not None else "unproven",
        "best": best,
        "pv": [] if best is None else [best],
        "nodes": result.nodes,
        "seconds": round(result.seconds, 6),
        "status": result.status,
        "pv_stopped": None,
        "proof": result.shape(),
    }
    if as_json:
        emit_json(data)
    else:
        echo = click.echo
        if result.value is None:
            echo(f"Value: unproven ({result.status}; the checkpoint keeps the answers so far)")
        else:
            echo(f"Value: {result.value} for player {pos.to_move}, the player to move")
        if best is not None:
            echo(f"Best move: {best}")
        shape = result.shape()
        echo(f"Proof: split {split} plies; top tree {shape['top_nodes']} positions per ply; {shape['units']:,} units "
             f"answered ({shape['units_this_run']:,} in this run) on {shape['workers']}")
        echo(f"Nodes: {result.nodes:,}  units' CPU time: {result.cpu_seconds:.1f} s  time: {result.seconds:.1f} s")
    sys.exit(130 if interrupted or result.status == INTERRUPTED else EXIT_OK)


@quarto.command()
@click.option("--out", "out", required=True, metavar="FILE", help="Write the opening table (JSON) to FILE.")
@click.option("--plies", type=Whole(1, 6), default=3, show_default=True,
              help="Positions of the first PLIES plies get their values (the work units are PLIES plies down).")
@click.option("--squares", is_flag=True, help="The squares variant.")
@click.option("--max-seconds", type=float, default=None, metavar="T", help="Stop after about T seconds.")
@click.option("--workers", type=Whole(0, 1024), default=None, metavar="N",
              help="Local worker processes (default: one per core; 0: this process).")
@click.option("--cluster", default=None, metavar="ADDRESS", help="A Dask scheduler instead of local workers.")
@click.option("--checkpoint", default=None, metavar="FILE",
              help="Every answer goes to FILE; run again with the same FILE to go on after a stop.")
@force_option
@guarded
def openings(out, plies, squares, max_seconds, workers, cluster, checkpoint, force) -> None:
    """Prove the empty board (from the very start) and write the opening table of its first plies.

    Every position of the first PLIES plies gets both bounds of its value and a
    best move (as a canonical position), so the `solver` agent and the web
    verdict answer from it at once. The package's table is
    quaternity_cp/quarto/openings.json (regenerate it with --out that path).
    Exit 0 done, 130 stopped by Ctrl-C (the table holds what was proven).
    """
    import json

    from quaternity_cp.budget import INTERRUPTED
    from quaternity_cp.quarto.openings import table_json

    check_output(out, "--out", force=force)
    _check_split("auto", checkpoint, out)
    if checkpoint is not None and os.path.abspath(checkpoint) == os.path.abspath(out):
        raise InputError("--checkpoint: give a file other than --out")
    result, interrupted = _run_proof([None] * 16, None, squares, max_seconds, plies, workers, cluster, checkpoint,
                                     complete=True)
    data = table_json(result, squares)
    entries = data.pop("entries")
    head = json.dumps(data)[:-1]
    write_text(out, head + ', "entries": [\n' + ",\n".join(json.dumps(e) for e in entries) + "\n]}\n")
    known = sum(1 for e in entries if e[1] is not None and e[2] is not None)
    click.echo(f"{out}: {len(entries)} positions ({known} with both bounds); the empty board: "
               f"{result.value or 'unproven'}; {result.nodes:,} nodes; {result.status}")
    sys.exit(130 if interrupted or result.status == INTERRUPTED else EXIT_OK)
