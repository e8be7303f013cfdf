"""``quaternity gofish``: the Quantum Go Fish commands (``check``, ``analyze``, ``explain``, ``count``, ``solve``).

``quaternity check FILE`` (and ``analyze``, ``explain``, ``count``, ``solve``)
on a record with ``"game": "gofish"`` runs the command of the same name here
with the same arguments (the door of ``quaternity_cli.dispatch``): the option
names below are those of the shared commands where they mean the same thing
(``--json``, ``--max-seconds``, ``--max-states``, ``--player``,
``--max-positions``, ``--depth``, ``--goal``, ``--rules``, ``--engine``,
``--as``, ``--svg``, ``--force``). ``--rules`` replays the record under other
rules (a Go Fish preset, ``option=value`` items, or both, separated by
commas: :func:`quaternity_cp.gofish.rules.rules_from_text`); ``--engine`` picks
the exact engine (flow, cpsat: :data:`quaternity_cp.gofish.bounds.ENGINES`);
``--as SEAT`` is accepted and said to be everyone's view (the game is public);
what does not apply (``count --engine``) is refused with the reason.

Exit codes: 0 valid, 1 an illegal move (the output describes the position
before it; under ``invalid = lose``, after it, with its loser), 2 bad input (one
line: the file, the move and the reason), 3 internal error, 130 interrupted.
The library (quaternity_cp.gofish) is imported inside each command.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click

from ..command import common as _common
from ..command import EXIT_ILLEGAL, EXIT_OK, InputError, Whole, emit_json, exact_integers, guarded, read_text, say
from ..command.limits import MAX_SECONDS, MAX_STATES, seconds_option, states_option
from ..command.runs import Stops, graph_progress, progress_option

if TYPE_CHECKING:
    from quaternity_cp.budget import Budget
    from quaternity_cp.gofish.check import Replay
    from quaternity_cp.gofish.game import GoFish
    from quaternity_cp.gofish.solver import ForceResult

F = TypeVar("F", bound=Callable[..., Any])



#: --max-positions of ``solve`` when not given (the shared solver's default)
DEFAULT_MAX_POSITIONS = 500_000
#: --max-seconds of ``solve`` when not given (also when ``quaternity solve`` hands a Go Fish record over without
#: it): the budget of one solve, as the Quaternity solver's table is measured (docs/solver.md)
DEFAULT_MAX_SECONDS = 600.0
#: --max-seconds of ``starts`` without --checkpoint when not given: the budget of each start
DEFAULT_STARTS_SECONDS = 600.0
#: the most parts of ``starts --checkpoint`` (:data:`quaternity_cp.gofish.bigsolve.MAX_PARTS`, not imported here:
#: the library is imported inside each command)
MAX_PARTS = 256
#: the most local Dask workers of ``starts --checkpoint``
MAX_WORKERS = 64
#: the memory a local Dask worker takes before any graph (the worker and its nanny, with numpy, numba and the
#: compiled kernel: 200-370 MB measured on a 3-player build, plus about 60 MB for the nanny); at 4 players each
#: peaked at about 1 GB
WORKER_BYTES = 400 * 2**20


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def gofish() -> None:
    """Quantum Go Fish: check, analyse, explain, count and solve records.

    FILE is a Go Fish record (JSON, docs/gofish.md); '-' reads standard input.
    Exit codes: 0 valid, 1 illegal move, 2 bad input, 3 internal error.
    """


# -- reading ----------------------------------------------------------------------------------------------
def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def load(path: str, rules: str | None = None, engine: str | None = None) -> Replay:
    """The record in ``path`` replayed (:class:`quaternity_cp.gofish.check.Replay`) under ``rules`` (``--rules``:
    instead of the record's own; None: the record's) with the exact engine ``engine`` (``--engine``; None: flow);
    bad input raises InputError."""
    from quaternity_cp.gofish.bounds import engine_named
    from quaternity_cp.gofish.check import replay
    from quaternity_cp.gofish.rules import GoFishError, GoFishRulesError, rules_from_text
    from quaternity_cp.jsonio import InputRefused, load_json

    try:
        override = None if rules is None else rules_from_text(rules)
    except GoFishError as err:
        raise InputError(f"--rules: {err}") from None
    try:
        exact = engine_named(engine)
    except GoFishError as err:
        raise InputError(f"--engine: {err}") from None
    text = read_text(path)
    name = _name(path)
    try:
        data = load_json(text.lstrip("\ufeff"))
    except InputRefused as err:
        raise InputError(f"{name}: not a Go Fish record: {err}") from None
    if not isinstance(data, dict):
        raise InputError(f"{name}: a Go Fish record is a JSON object, not {type(data).__name__}")
    if override is not None:
        data = {**data, "rules": override}
    try:
        return replay(data, exact)
    except GoFishRulesError as err:
        option = str(err).removeprefix("option ").partition(":")[0]
        # the seat asking first is checked against the record's players only now: a --rules value, said as one
        raise InputError(f"{'--rules' if override is not None and option in override else name}: {err}") from None
    except GoFishError as err:
        raise InputError(f"{name}: {err}") from None


def _one_rules(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> str | None:
    """--rules at most once (a second one would silently replace the first), as Quaternity's."""
    if len(value) > 1:
        _common.fail("--rules: given more than once; put every option in one value, e.g. --rules "
                     "'geraschenko,first=1'")
    return value[0] if value else None


def rules_option(func: F) -> F:
    """``--rules RULES``: the rules to replay the record under, instead of its own (see docs/gofish.md)."""
    return click.option(
        "--rules", "rules", metavar="RULES", default=None, multiple=True, callback=_one_rules,
        help="Rules to use instead of the record's: a preset (stacky, geraschenko, quantum-fingers, thorntondr, "
             "marcusrainbow), option=value items, or both, separated by commas, the preset first: "
             "'geraschenko', 'four=some', 'geraschenko,first=1'. Options not given take the preset's values "
             "or the defaults.")(func)


def engine_option(func: F) -> F:
    """``--engine NAME``: the exact engine of the bounds (flow or cpsat)."""
    return click.option(
        "--engine", "engine", metavar="NAME", default=None,
        help="The exact engine of the bounds: flow (the default) or cpsat (OR-Tools CP-SAT: the same answers, "
             "far slower; a cross-check).")(func)


def _players(game: GoFish) -> list[str]:
    """The players' keys in JSON: their names, or the seat numbers as text."""
    return list(game.setup.players)


def _seat_text(game: GoFish, seat: int | None) -> str:
    from quaternity_cp.gofish.words import seat_text

    return seat_text(game, seat)


def _cap(text: str) -> str:
    from quaternity_cp.gofish.words import capitalised

    return capitalised(text)


def status_json(result: Replay) -> dict[str, Any]:
    """The keys ``check`` prints (see docs/gofish.md)."""
    game = result.game
    out = game.outcome
    error = None
    if result.error_index is not None:
        error = {"move": result.error_index, "reason": result.reason}
    pending = game.pending if out is None else None
    turn = None if out is not None else (pending.asked if pending is not None else game.turn)
    # null without an open question, as in every game's --json; the legal answers' signs with one
    answers = ["+" if yes else "-" for yes in game.legal_answers()] if pending is not None else None
    return {
        "valid": result.valid,
        "moves_applied": result.moves_applied,
        "error": error,
        "turn": turn,
        "over": out is not None,
        "winners": [] if out is None or out.winner is None else [out.winner],
        "loser": None if out is None else out.loser,
        "answers": answers,
        "determined": game.bounds().determined,
        "reason": None if out is None else out.reason,
        "players": _players(game),
        "suits": list(game.setup.suits),
        "suit_size": game.suit_size,
        "rules": game.rules.to_dict(),
    }


def illegal_sentence(result: Replay) -> str:
    """The record's first illegal move as one sentence: ``move 2 (1>0:A+) is illegal: the asker provably holds
    none of the suit`` (under ``invalid = lose``: and the game ended there, with its loser)."""
    assert result.error_index is not None  # only asked of an invalid record
    i = result.error_index
    said = f"move {i + 1} ({result.moves[i]}) is illegal: {result.reason}"
    out = result.game.outcome
    if out is not None and out.reason == "invalid":
        said += f"; the game ended there, {_seat_text(result.game, out.loser)} the loser (invalid = lose)"
    return said


def _exit(result: Replay) -> None:
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)


# -- human text -------------------------------------------------------------------------------------------
def _header(result: Replay) -> str:
    game = result.game
    s = game.setup
    rules = game.rules.to_dict()
    said = ", ".join(f"{k}={v}" for k, v in rules.items()) if rules else "default"
    n = len(result.moves)
    return (f"Quantum Go Fish record: {s.player_count} players, {s.suit_count} suits of {s.suit_size} cards, "
            f"{n} move{'s' if n != 1 else ''} (rules: {said})")


def status_line(result: Replay) -> str:
    """Who won, or who is to ask or to answer (:func:`quaternity_cp.gofish.words.status_line`)."""
    from quaternity_cp.gofish.words import status_line as line

    return line(result.game)


def _print_moves(result: Replay) -> None:
    echo = click.echo
    width = max([len(t) for t in result.moves] + [8]) + 2
    for i, text in enumerate(result.moves[: result.moves_applied], 1):
        echo(f"{i:>4}  {text:<{width}}ok")
    if result.error_index is not None:
        i = result.error_index
        echo(f"{i + 1:>4}  {result.moves[i]:<{width}}ILLEGAL: {result.reason}")
        lose = result.game.outcome is not None and result.game.outcome.reason == "invalid"
        if lose:
            echo("The game ends there (invalid = lose).")
        else:
            n = result.moves_applied
            echo(f"The record stops there; {n} move{'s were' if n != 1 else ' was'} applied.")


def _grid_lines(game: GoFish) -> list[str]:
    b = game.bounds()
    s = game.setup
    names = [_seat_text(game, p) for p in range(game.players)]
    cells = [[str(b.low[p][x]) if b.low[p][x] == b.high[p][x] else f"{b.low[p][x]}-{b.high[p][x]}"
              for x in range(game.suits)] for p in range(game.players)]
    hands = game.hands()
    first = max(len(n) for n in names + ["player"])
    widths = [max([len(s.suits[x])] + [len(cells[p][x]) for p in range(game.players)]) for x in range(game.suits)]
    out = ["  " + "player".ljust(first) + "  " + "  ".join(s.suits[x].rjust(widths[x]) for x in range(game.suits))
           + "  cards"]
    for p in range(game.players):
        out.append("  " + names[p].ljust(first) + "  " + "  ".join(cells[p][x].rjust(widths[x])
                                                                     for x in range(game.suits)) + f"  {hands[p]:>5}")
    return out


# -- check ------------------------------------------------------------------------------------------------
@gofish.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@rules_option
@engine_option
@guarded
def check(file: str, as_json: bool, rules: str | None = None, engine: str | None = None) -> None:
    """Replay a Go Fish record: is every move legal, whose turn it is, who has won.

    Exit 0: every move legal; 1: an illegal move (the output describes the
    position before it, or under invalid = lose the game it ended); 2: bad input
    (unknown fields, options, players or suits; sizes that cannot be dealt; an
    open question that is not the last move). With an open question (?) last,
    'turn' is the player to answer it and 'answers' the answers it may give.
    --rules replays the record under other rules (a record legal under one rule
    set may be illegal under another); 'rules' says the rules replayed.
    """
    result = load(file, rules, engine)
    if as_json:
        emit_json(status_json(result))
    else:
        click.echo(_header(result))
        _print_moves(result)
        click.echo(status_line(result))
        if result.game.outcome is None and result.game.determined:
            click.echo("Every hand is determined.")
    _exit(result)


# -- analyze ----------------------------------------------------------------------------------------------
def analyze_json(result: Replay) -> dict[str, Any]:
    game = result.game
    b = game.bounds()
    players, suits = _players(game), list(game.setup.suits)
    counts = {suits[x]: {players[p]: [b.low[p][x], b.high[p][x]] for p in range(game.players)}
              for x in range(game.suits)}
    fours: dict[str, list[str]] = {}
    for p in range(game.players):
        whole = [suits[x] for x in range(game.suits) if b.low[p][x] >= game.suit_size]
        if whole:
            fours[players[p]] = whole
    return {**status_json(result), "counts": counts, "determined": b.determined, "fours": fours,
            "hands": {players[p]: h for p, h in enumerate(game.hands())}}


def _seat(game: GoFish, value: str, option: str) -> int:
    """A seat given on the command line: its number in the digits 0-9 or its player's name."""
    s = game.setup
    if value in s.players:
        return s.players.index(value)
    if value.isascii() and value.isdigit() and int(value) < s.player_count:
        return int(value)
    raise InputError(f"{option}: unknown player {value!r} (players: {', '.join(s.players)})")


#: what ``--as`` says: a seat's view of a Go Fish game is everyone's
PUBLIC_VIEW = "the same as everyone's: in Go Fish every question and answer is public, and no hand is dealt"


@gofish.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@rules_option
@engine_option
@click.option("--svg", "svg_out", metavar="OUT.svg", default=None,
              help="Also draw the table of bounds as an SVG picture.")
@click.option("--as", "seat", metavar="SEAT", default=None,
              help="The position as this player knows it: in Go Fish the same as everyone's (every question and "
                   "answer is public); said so, and the seat checked.")
@_common.force_option
@guarded
def analyze(file: str, as_json: bool, rules: str | None = None, engine: str | None = None,
            svg_out: str | None = None, seat: str | None = None, force: bool = False) -> None:
    """How many cards of each suit each player may hold: every cell's exact minimum and maximum.

    The bounds are exact (a flow network, never cell-by-cell reasoning). With an
    open question last they describe the position after the question (asking
    proves the asker holds one of the suit). 'fours' lists, per player, the
    suits it provably holds all of. --as SEAT: a seat knows what everyone
    knows (no hand is dealt, every move is public), so its view is this one;
    --json then adds 'view'. --svg OUT.svg also draws the table of bounds.
    """
    if svg_out is not None:
        _common.check_output(svg_out, "--svg", inputs=(file,), force=force)
    result = load(file, rules, engine)
    data = analyze_json(result)
    viewer = None if seat is None else _seat(result.game, seat, "--as")
    if viewer is not None:
        data["view"] = {"seat": viewer, "player": result.game.setup.players[viewer], "public": True}
    if svg_out is not None:
        from quaternity_cp.gofish.svg import bounds_svg

        note = None if viewer is None else f"As {_seat_text(result.game, viewer)} knows it: as everyone does"
        _common.write_text(svg_out, bounds_svg(result.game, note=note))
    if as_json:
        emit_json(data)
    else:
        click.echo(_header(result))
        if viewer is not None:
            click.echo(f"The position as {_seat_text(result.game, viewer)} knows it: {PUBLIC_VIEW}.")
        if result.error_index is not None:
            click.echo(f"Illegal {result.message}; the position before it:")
        click.echo("Cards of each suit each player may hold (a range: at least-at most):")
        for line in _grid_lines(result.game):
            click.echo(line)
        click.echo(f"Determined: {'yes, one table of counts is consistent' if data['determined'] else 'no'}.")
        game = result.game
        for p, whole in data["fours"].items():
            holder = game.setup.players.index(p)
            click.echo(f"{_cap(_seat_text(game, holder))} provably holds all of {', '.join(whole)}.")
        click.echo(status_line(result))
    _exit(result)


# -- explain ----------------------------------------------------------------------------------------------
def _cell(game: GoFish, text: str, name: str) -> tuple[int, int]:
    seat_text, sep, suit_text = text.rpartition(":")
    if not sep or not seat_text or not suit_text:
        raise InputError(f"{text!r}: expected SEAT:SUIT, like 0:A (a seat or player name, a suit name or number)")
    s = game.setup
    if seat_text in s.players:
        seat = s.players.index(seat_text)
    elif seat_text.isascii() and seat_text.isdigit() and int(seat_text) < s.player_count:
        seat = int(seat_text)
    else:
        raise InputError(f"{text}: unknown player {seat_text!r} in {name} (players: {', '.join(s.players)})")
    if suit_text in s.suits:
        suit = s.suits.index(suit_text)
    elif suit_text.isascii() and suit_text.isdigit() and int(suit_text) < s.suit_count:
        suit = int(suit_text)
    else:
        raise InputError(f"{text}: unknown suit {suit_text!r} in {name} (suits: {', '.join(s.suits)})")
    return seat, suit


@gofish.command()
@click.argument("file")
@click.argument("card", metavar="[SEAT:SUIT]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@rules_option
@engine_option
@guarded
def explain(file: str, card: str | None, as_json: bool, rules: str | None = None, engine: str | None = None) -> None:
    """Why a player holds the number of cards of a suit it does: SEAT:SUIT (e.g. 0:A, Yael:Narwhals).

    The direct bounds come from the moves (asking proves the asker holds one, a
    yes that the asked player held one, a no that it held none); a narrower
    exact bound is shown by a counting argument (a minimum cut: some suits would
    need more cards than they have, or some players more than they hold). A
    bound reached is shown by a consistent table. With an open question last,
    SEAT:SUIT may be left out: then the asked player's cell of that suit, and why
    its answer is forced (or not). The position is the one after the record (or
    before its first illegal move).
    """
    from quaternity_cp.gofish.explain import explain_cell
    from quaternity_cp.gofish.game import Illegal, Move

    result = load(file, rules, engine)
    game = result.game
    heading = None
    if result.illegal in (Illegal.IMPOSSIBLE_YES, Illegal.IMPOSSIBLE_NO) and game.outcome is None:
        # the record's illegal answer: explained in the position right after its question
        assert result.error_index is not None  # set with the error
        m = game.parse_move(result.moves[result.error_index])
        asked = game.copy()
        asked.push(Move(m.asker, m.asked, m.suit))
        if card is None or _cell(game, card, _name(file)) == (m.asked, m.suit):
            game = asked
            heading = f"Illegal {result.message}; the position after its question:"
    if heading is None and result.error_index is not None:
        heading = f"Illegal {result.message}; the position before it:"
    if card is None:
        q = game.pending
        if q is None:
            raise InputError(f"{_name(file)}: give SEAT:SUIT (no question is open to explain)")
        seat, suit = q.asked, q.suit
    else:
        seat, suit = _cell(game, card, _name(file))
    e = explain_cell(game, seat, suit)
    if as_json:
        emit_json({"valid": result.valid, "error": None if result.error_index is None else
                   {"move": result.error_index, "reason": result.reason},
                   "seat": game.setup.players[seat], "suit": game.setup.suits[suit], "min": e.low, "max": e.high,
                   "answers": e.answers, "cuts": e.cuts, "explanation": e.lines})
    else:
        if heading is not None:
            click.echo(heading)
        for line in e.lines:
            click.echo(line)
    _exit(result)


# -- count ------------------------------------------------------------------------------------------------
@gofish.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--history", is_flag=True, help="The number of tables at the start and after every move of the record.")
@seconds_option("the counts (everything the command counts)")
@states_option()
@rules_option
@click.option("--as", "seat", metavar="SEAT", default=None,
              help="Count as this player knows the game: in Go Fish the same tables as everyone's (every question "
                   "and answer is public); said so, and the seat checked.")
@click.option("--engine", "engine", default=None, hidden=True)  # refused with the reason: count uses no engine
@guarded
def count(file: str, as_json: bool, history: bool = False, max_seconds: float | None = MAX_SECONDS,
          max_states: int | None = MAX_STATES, rules: str | None = None, seat: str | None = None,
          engine: str | None = None) -> None:
    """The exact number of consistent tables of counts, and how each cell is spread over them.

    --json adds 'cells': {suit: {player: {"n": tables in which the player holds
    n cards of the suit}}}, from the cell's minimum to its maximum, and with
    --history 'history_start' and 'history' (the tables after each move). Nothing
    is enumerated (dynamic programmes over the players); a count past
    --max-seconds or --max-states is refused (exit 2), never rounded. With an
    open question last: the tables after the question.
    """
    from quaternity_cp.budget import Limits
    from quaternity_cp.gofish.bounds import CountLimitError, count_tables
    from quaternity_cp.gofish.tally import distributions


    exact_integers()
    if engine is not None:
        raise InputError("--engine: Go Fish's count uses no engine (the tables are counted exactly by dynamic "
                         "programmes over the players); drop --engine")
    result = load(file, rules)
    game = result.game
    viewer = None if seat is None else _seat(game, seat, "--as")
    limits = Limits(max_seconds=max_seconds, max_states=max_states)
    try:
        tables, cells = distributions(game.tables(), limits)
        counts = None
        if history:
            each = Limits(max_positions=max_states, max_seconds=max_seconds, max_states=max_states)
            counts = [count_tables(game.tables(st), each) for st in game.states()[: result.moves_applied + 1]]
    except CountLimitError as err:
        option = "--max-seconds" if err.reason == "time" else "--max-states"
        raise InputError(f"{_name(file)}: too large to count exactly: {err} ({option}); count a later position "
                         f"of the game, or raise {option}") from None
    players, suits = _players(game), list(game.setup.suits)
    spread = {suits[x]: {players[p]: {str(v): n for v, n in sorted(cells[p][x].items())}
                         for p in range(game.players)} for x in range(game.suits)}
    if as_json:
        data = {**status_json(result), "tables": tables, "cells": spread}
        if counts is not None:
            data["history_start"], data["history"] = counts[0], counts[1:]
        if viewer is not None:
            data["view"] = {"seat": viewer, "player": game.setup.players[viewer], "public": True}
        emit_json(data)
    else:
        click.echo(_header(result))
        if viewer is not None:
            click.echo(f"Counting as {_seat_text(game, viewer)} knows the game: {PUBLIC_VIEW}.")
        if result.error_index is not None:
            click.echo(f"Illegal {result.message}; counting the position before it.")
        click.echo(f"{tables:,} consistent table{'s' if tables != 1 else ''} of counts")
        if tables:
            click.echo("Tables in which each player holds each number of cards of each suit:")
            for x, suit in enumerate(suits):
                for p in range(game.players):
                    parts = ", ".join(f"{v}: {n:,}" for v, n in spread[suit][players[p]].items())
                    click.echo(f"  {suit} {_seat_text(game, p)}: {parts}")
        if counts is not None:
            click.echo("Consistent tables after every move:")
            width = max([len(t) for t in result.moves] + [7])
            for i, n in enumerate(counts):
                click.echo(f"  {i:>3}  {result.moves[i - 1] if i else '(start)':<{width}}  {n:>12,}")
    _exit(result)


# -- solve ------------------------------------------------------------------------------------------------
def _tree(game: GoFish, force: ForceResult, seat: int, depth: int, budget: Budget, cap: int = 400) -> tuple[dict[str, Any], str | None]:
    """The strategy tree of a proven yes (``seat``'s move at its nodes, every legal move at the others'), or the
    defence of a no (one move keeping ``seat`` out of its winning positions at the others' nodes, every move at
    ``seat``'s), to ``depth`` plies and at most ``cap`` nodes. Returns the tree and what cut it short."""
    from quaternity_cp.budget import Stopped

    yes = force.wins
    size = [0]
    cut: list[str | None] = [None]

    def end(g: GoFish) -> dict[str, Any] | None:
        out = g.outcome
        if out is None:
            return None
        return {"end": "over", "winners": [] if out.winner is None else [out.winner], "loser": out.loser,
                "reason": out.reason}

    def node(g: GoFish, left: int) -> dict[str, Any]:
        over = end(g)
        if over is not None:
            return over
        if left <= 0 or size[0] >= cap:
            return {"truncated": True}
        try:
            budget.check_time()
        except Stopped as stop:
            cut[0] = stop.reason
            return {"truncated": True, "stopped": stop.reason}
        q = g.pending
        owner = g.turn if q is None else q.asked
        if q is None:
            options = g.legal_questions()
        else:
            from quaternity_cp.gofish.game import Move

            options = [Move(q.asker, q.asked, q.suit, a) for a in g.legal_answers()]
        if owner == seat and yes:
            m = force.move(g)
            chosen = [m] if m is not None else []
        elif owner != seat and not yes:
            chosen = []
            for m in options:
                g.push(m)
                outside = force.rank(g) is None
                g.pop()
                if outside:
                    chosen = [m]
                    break
        else:
            chosen = options
        moves = []
        for m in chosen:
            size[0] += 1
            g.push(m)
            moves.append({"move": g.move_text(m), "player": owner, "next": node(g, left - 1)})
            g.pop()
        return {"player": owner, "moves": moves}

    return node(game, depth), cut[0]


def _print_tree(node: dict[str, Any], game: GoFish, indent: str = "  ") -> None:
    echo = click.echo
    for entry in node.get("moves", []):
        nxt = entry["next"]
        if nxt.get("end"):
            won = ", ".join(_seat_text(game, w) for w in nxt["winners"]) or "nobody"
            echo(f"{indent}{entry['move']}  -> game over ({nxt['reason']}), winner: {won}")
        elif nxt.get("truncated"):
            echo(f"{indent}{entry['move']}  ...")
        else:
            echo(f"{indent}{entry['move']}")
            _print_tree(nxt, game, indent + "  ")


def default_player(game: GoFish) -> int:
    """The seat ``solve`` solves for without --player: the player who decides now, as ``check``'s ``turn``
    says (the seat to ask, or with a question open the asked seat, who answers it; once the game is over, the
    seat that asked first)."""
    q = game.pending
    if game.outcome is None and q is not None:
        return q.asked
    return game.turn if game.turn is not None else game.rules.first


@gofish.command()
@click.argument("file")
@click.option("--player", "player", default=None, metavar="P",
              help="The player who is to force a win (seat or name; default: the player who decides now, the "
                   "'turn' of check: the seat to ask, or, with a question open, the asked seat, who answers it).")
@click.option("--goal", "goal", default="win", show_default=True, metavar="win",
              help="The goal: win (can the player force being the winner against all others together).")
@click.option("--depth", type=Whole(min=0), default=6, show_default=True, metavar="D",
              help="Show the strategy tree to D plies along each branch (a question and its answer are two).")
@click.option("--max-positions", "max_positions", type=Whole(min=1), default=DEFAULT_MAX_POSITIONS,
              show_default=True, metavar="N", help="Stop once the game graph holds N positions (then unproven).")
@click.option("--max-seconds", "max_seconds", type=click.FloatRange(min=0, min_open=True),
              default=DEFAULT_MAX_SECONDS, show_default=True, metavar="T",
              help="Stop after T seconds (then unproven: not proven within the budget; checked while the graph is "
                   "built and the tree is shown).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@rules_option
@engine_option
@guarded
def solve(file: str, player: str | None, goal: str, depth: int, max_positions: int | None,
          max_seconds: float | None, as_json: bool, rules: str | None = None, engine: str | None = None) -> None:
    """Can a player force a win from the record's position? Exactly, cycles included.

    The positions reachable from the record's end form a graph (players and
    suits relabelled); the player's winning positions are its attractor: the
    positions from which it can force a win whatever the others do together
    (a game that goes round forever is not a win). Prints the verdict (yes, no,
    or unproven when --max-positions or --max-seconds stopped it: not proven
    within the budget), the plies to the win under best play on both sides, and
    the strategy as a tree (for a no: the others' defence). Without --player it
    solves for the player who decides now, as check says: the seat to ask, or,
    with a question open, the asked seat (its answer is the next move). Exit 0
    solved or unproven, 1 an illegal record, 2 bad input, 130 interrupted.
    """
    import math

    from quaternity_cp.budget import INTERRUPTED, SOLVED, Limits
    from quaternity_cp.gofish.solver import SolverLimitError, can_force

    if goal != "win":
        raise InputError(f"--goal: Go Fish solves the goal 'win' only, not {goal!r}")
    if max_seconds is None:  # (quaternity solve hands a Go Fish record over with its own default: no limit)
        max_seconds = DEFAULT_MAX_SECONDS
    if not math.isfinite(max_seconds):
        raise InputError(f"--max-seconds: {max_seconds!r} is not a finite number of seconds")
    result = load(file, rules, engine)
    name = _name(file)
    if not result.valid:
        message = illegal_sentence(result)
        if as_json:
            emit_json({"valid": False, "error": message, "rules": result.game.rules.to_dict()})
        else:
            say(f"quaternity: {name}: {message}")
        sys.exit(EXIT_ILLEGAL)
    game = result.game
    s = game.setup
    if player is None:  # the player who decides now: check's 'turn' (the asked seat while a question is open)
        seat = default_player(game)
    elif player in s.players:
        seat = s.players.index(player)
    elif player.isascii() and player.isdigit() and int(player) < s.player_count:
        seat = int(player)
    else:
        raise InputError(f"--player: unknown player {player!r} (players: {', '.join(s.players)})")
    limits = Limits(max_positions=max_positions, max_seconds=max_seconds)
    if not as_json:
        click.echo(_header(result))
    status, force, interrupted = SOLVED, None, False
    budget = limits.start()
    try:
        force = can_force(game, seat, limits)
    except SolverLimitError as err:
        status = err.reason
    except KeyboardInterrupt:
        status, interrupted = INTERRUPTED, True
    who = _seat_text(game, seat)
    strategy = defense = None
    tree_stopped = None
    if force is not None:
        tree, tree_stopped = _tree(game, force, seat, depth, budget)
        if force.wins:
            strategy = tree
        else:
            defense = tree
    proven = force is not None
    plies = force.plies if force is not None else None
    budget_words = None
    if force is None:
        verdict = "unproven"
        why = {"interrupted": "interrupted", "limit": "position limit reached",
               "time": "time limit reached"}.get(status, status)
        summary = f"unproven ({why})"
        if status in ("limit", "time"):
            budget_words = (f"Not proven within the budget (--max-positions {max_positions:,}, --max-seconds "
                            f"{max_seconds:g}); raise them to go further.")
    elif game.over:
        verdict = "yes" if force.wins else "no"
        summary = f"{verdict}: the game is over and {who} {'won' if force.wins else 'did not win'}"
    elif force.wins:
        verdict = "yes"
        plies_said = f"{force.plies} ply" if force.plies == 1 else f"{force.plies} plies"
        summary = f"yes: {who} can force being the winner (in at most {plies_said})"
    else:
        verdict = "no"
        summary = f"no: the other players together can stop {who} from winning"
    data = {
        "position": name,
        "players": s.player_count,
        "suits": s.suit_count,
        "suit_size": s.suit_size,
        "player_names": list(s.players),
        "goal": "win",
        "player": seat,
        "result": force.wins if force is not None else None,
        "verdict": verdict,
        "proven": proven,
        "status": status,
        "summary": summary,
        "plies": plies,
        "strategy": strategy,
        "defense": defense,
        "tree_stopped": tree_stopped,
        "positions": force.graph_size if force is not None else None,
        "edges": force.graph_edges if force is not None else None,
        "seconds": round(budget.elapsed(), 3),
        "engine": game.engine.name,
        "rules": game.rules.to_dict(),
        "free_choice": "adversary",
    }
    if as_json:
        emit_json(data)
    else:
        click.echo(f"Goal: force being the winner, for {who}")
        click.echo(f"Result: {summary}")
        if budget_words is not None:
            click.echo(budget_words)
        if strategy is not None and strategy.get("moves"):
            click.echo("Winning strategy (its moves; every legal reply of the others):")
            _print_tree(strategy, game)
        if defense is not None and defense.get("moves"):
            click.echo(f"Defence (one reply of the others keeping {who} from a forced win; each of its moves):")
            _print_tree(defense, game)
        if force is not None:
            n, e = force.graph_size, force.graph_edges
            click.echo(f"Game graph: {n:,} position{'s' if n != 1 else ''}, {e:,} move{'s' if e != 1 else ''}, "
                       f"{budget.elapsed():.2f} s.")
    sys.exit(130 if interrupted else EXIT_OK)


@gofish.command()
@click.option("--players", "players", type=Whole(min=2), default=3, show_default=True, metavar="P",
              help="The number of players (and of suits).")
@click.option("--suit-size", "suit_size", type=Whole(min=2), default=4, show_default=True, metavar="N",
              help="The cards of each suit.")
@click.option("--rule", "rules", multiple=True, metavar="OPTION=VALUE",
              help="Solve under these rules only (repeatable; e.g. --rule after_yes=again); default: the "
                   "default rules and each option that can change the answer, one at a time.")
@click.option("--max-positions", "max_positions", type=Whole(min=1), default=3_000_000, show_default=True,
              metavar="N", help="Refuse a start whose game graph would hold more than N positions (with "
                                "--checkpoint: stop after the layer that passes N; default then 2,000,000,000).")
@click.option("--max-seconds", "max_seconds", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="T", help="Refuse a start whose graph takes more than T seconds to build (not proven within "
                                "the budget; default 600 per start; with --checkpoint no default: the build stops "
                                "after the layer that passes T and goes on when run again).")
@click.option("--checkpoint", "checkpoint", default=None, metavar="FOLDER",
              help="Solve with the partitioned graph (players rotated as well as suits relabelled, the build on Dask "
                   "workers), keeping it in FOLDER (a subfolder per rule set): a run stopped by Ctrl-C, a limit or a "
                   "crash goes on from its last finished layer, and a finished one is read back. Needed for 4 "
                   "players.")
@click.option("--parts", "parts", type=Whole(1, MAX_PARTS), default=None, metavar="N",
              help=f"With --checkpoint: the graph's partitions, 1..{MAX_PARTS} and no more than the start's size "
                   "calls for (4 for 2 players; 16 for 3 players with suits of at most 4 and for 4 players with "
                   "suits of 2); default: a checkpoint's own, else 2 for small starts (2 players, 3 with suits "
                   "of at most 5, 4 with suits of at most 3), 8 for the others.")
@click.option("--workers", "workers", type=Whole(0, MAX_WORKERS), default=None, metavar="N",
              help=f"With --checkpoint: local Dask worker processes, 0..{MAX_WORKERS} and no more than the memory "
                   "available holds at about 400 MB each (default: one per core within those bounds; 0: in this "
                   "process).")
@click.option("--cluster", "cluster", default=None, metavar="ADDRESS",
              help="With --checkpoint: a Dask scheduler (tcp://host:8786) instead of local workers; the "
                   "checkpoint folder must then be on storage every worker sees.")
@click.option("--drop-graph", "drop_graph", is_flag=True,
              help="With --checkpoint: remove each start's graph files once its answer is written (several GB for "
                   "4 players); the answer stays and is read back.")
@click.option("--attractor", "attractor", type=click.Choice(["whole", "partitioned"]), default="whole",
              show_default=True,
              help="With --checkpoint: the attractor over the whole graph in this process (about 23 bytes a "
                   "position), or partitioned: in rounds, part by part on the workers, checkpointed by rounds (no "
                   "process holds the whole graph; the same answer).")
@click.option("--upgrade", "upgrade_layout", is_flag=True,
              help="With --checkpoint: a folder an older version wrote (plain part files) is rewritten in place "
                   "in this version's layout (about a third of its size) before going on.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: a row per rule set.")
@progress_option
@guarded
def starts(players: int, suit_size: int, rules: tuple[str, ...], max_positions: int, max_seconds: float | None,
           checkpoint: str | None, parts: int | None, workers: int | None, cluster: str | None, drop_graph: bool,
           as_json: bool, attractor: str = "whole", upgrade_layout: bool = False,
           show_progress: bool | None = None) -> None:
    """Which seat can force a win from the start of a new game, for every seat and rule set.

    Builds each start's game graph once (suits relabelled, cycles resolved
    exactly) and asks, for every seat, whether it can force a win against all
    the others together, in how many plies, and with which first question.
    The table of docs/gofish.md is this command's output. A start whose graph
    passes --max-positions or --max-seconds (default 600 s a start) is not
    proven within the budget: refused (exit 2).

    With --checkpoint the graph is built in partitions (on Dask workers) and
    kept on disk, with players rotated too, so positions are counted once per
    rotation; --max-positions then defaults to 2,000,000,000 and there is no
    default time limit (a stopped build goes on from its last layer). Every
    file of the folder is checked before it is believed (docs/gofish.md): a
    damaged, edited or foreign one is refused (exit 2), naming it. Ctrl-C
    (exit 130) or SIGTERM (exit 143, a batch system's end of a job) stops the
    build with one line naming the folder; the next run goes on from it.
    """
    from quaternity_cp.budget import Limits
    from quaternity_cp.gofish.solver import SolverLimitError
    from quaternity_cp.gofish.rules import GoFishError, Rules, option_value
    from quaternity_cp.gofish.starts import VARIANTS, solve_start_rules

    variants: list[dict[str, Any]] = [dict(v) for v in VARIANTS]
    if rules:
        chosen: dict[str, Any] = {}
        for item in rules:
            key, eq, value = item.partition("=")
            key = key.strip().replace("-", "_")  # after-yes is after_yes, as in --rules
            if not eq or not key:
                raise InputError(f"--rule: {item!r} is not OPTION=VALUE")
            if key in chosen:
                raise InputError(f"--rule: option {key} given twice")
            try:
                chosen[key] = option_value(key, value)
            except GoFishError as err:
                raise InputError(f"--rule: {err}") from None
        try:
            Rules.from_dict(chosen)  # every name and value checked before any work (the seat first: by the game)
        except GoFishError as err:
            raise InputError(f"--rule: {err}") from None
        variants = [chosen]
    if checkpoint is None and (workers is not None or cluster is not None or drop_graph):
        raise InputError("--workers, --cluster and --drop-graph go with --checkpoint (the partitioned solver)")
    if checkpoint is None and attractor != "whole":
        raise InputError("--attractor goes with --checkpoint (the partitioned solver)")
    if checkpoint is None and upgrade_layout:
        raise InputError("--upgrade goes with --checkpoint (the partitioned solver)")
    if checkpoint is None and parts is not None:
        raise InputError("--parts goes with --checkpoint (the partitioned solver)")
    if checkpoint is None and show_progress is not None:
        raise InputError("--progress/--no-progress goes with --checkpoint (the partitioned solver's layers)")
    part_count: int | None = None
    if checkpoint is not None:
        part_count, workers = _checkpoint_options(players, suit_size, variants, checkpoint, parts, workers, cluster)
    if checkpoint is not None and max_positions == _DEFAULT_MAX_POSITIONS:
        max_positions = 2_000_000_000
    if checkpoint is None and max_seconds is None:
        max_seconds = DEFAULT_STARTS_SECONDS
    limits = Limits(max_positions=max_positions, max_seconds=max_seconds)
    rows: list[dict[str, Any]] = []
    for variant in variants:
        try:
            if checkpoint is not None:
                data = _partitioned_row(players, suit_size, variant, checkpoint, part_count, workers, cluster,
                                        limits, as_json, drop_graph, attractor, upgrade_layout, show_progress)
            else:
                row, game = solve_start_rules(players, variant, suit_size=suit_size, limits=limits)
                data = row.to_json(game)
        except SolverLimitError as err:
            option = "--max-seconds" if err.reason == "time" else "--max-positions"
            limit = f"{max_seconds:g} s" if err.reason == "time" else f"{max_positions:,} positions"
            raise InputError(f"{players} players, rules {variant or 'default'}: not proven within the budget: the game "
                             f"graph passed {option} ({limit}) after {err.nodes:,} positions; raise {option}, or "
                             "use --checkpoint FOLDER (the partitioned solver, for 4 players)") from None
        except GoFishError as err:
            raise InputError(f"{players} players, suits of {suit_size}: {err}") from None
        rows.append(data)
        if not as_json:
            named = ", ".join(f"{k}={v}" for k, v in variant.items()) or "default rules"
            if data["winners"]:
                seat = data["winners"][0]
                entry = data["seats"][str(seat)]
                verdict = (f"seat {seat} forces a win in {entry['plies']} plies, "
                           f"first {entry['first_move']}")
            else:
                verdict = "no seat can force a win"
            click.echo(f"{named}: {verdict} ({data['positions']:,} positions, {data['edges']:,} moves, "
                       f"{data['seconds']:.1f} s)")
    if as_json:
        emit_json({"players": players, "suits": players, "suit_size": suit_size, "starts": rows})
    sys.exit(EXIT_OK)


_DEFAULT_MAX_POSITIONS = 3_000_000


def _checkpoint_options(players: int, suit_size: int, variants: list[dict[str, Any]], checkpoint: str,
                        parts: int | None, workers: int | None, cluster: str | None) -> tuple[int | None, int | None]:
    """``--checkpoint``, ``--parts`` and ``--workers`` checked before any work (an empty folder name, more parts
    than the start calls for, more local workers than the memory holds are refused with the reason); returns the
    parts (None when none are named) and the local workers to use (None with --cluster)."""
    from quaternity_cp.command.workers import check_workers
    from quaternity_cp.gofish.bigsolve import GraphError, check_parts
    from quaternity_cp.gofish.fastgraph import Shape
    from quaternity_cp.gofish.rules import GoFishError

    if not checkpoint.strip():
        raise InputError("--checkpoint: give a folder (an empty name would build in the current folder)")
    try:
        shapes = [Shape.of(players, players, suit_size, variant or None) for variant in variants]
        if parts is not None:  # (none named: each rule set's checkpoint goes on in its own, a new one in the default)
            parts = check_parts(shapes[0], parts)
    except GraphError as err:
        raise InputError(f"--parts: {err}") from None
    except GoFishError as err:
        raise InputError(f"{players} players, suits of {suit_size}: {err}") from None
    return parts, check_workers(workers, cluster, worker_bytes=WORKER_BYTES, max_workers=MAX_WORKERS)


def _partitioned_row(players: int, suit_size: int, variant: dict[str, Any], checkpoint: str, parts: int | None,
                     workers: int | None, cluster: str | None, limits: Any, quiet: bool,
                     drop_graph: bool = False, attractor: str = "whole", upgrade_layout: bool = False,
                     show_progress: bool | None = None) -> dict[str, Any]:
    """One start solved by the partitioned solver (:mod:`quaternity_cp.gofish.bigsolve`) in a subfolder of
    ``checkpoint`` named after its rules, as a row of the table (first moves in notation)."""
    import os
    import time

    from quaternity_cp.gofish.bigsolve import GraphStopped, solve as solve_partitioned
    from quaternity_cp.gofish.game import GoFish, Move

    name = "-".join(f"{k}={v}" for k, v in sorted(variant.items())) or "default"
    folder = os.path.join(checkpoint, f"p{players}-s{suit_size}-{name}")
    began = time.perf_counter()

    progress = graph_progress(not quiet, show_progress)

    stops = Stops()
    try:
        with stops:
            out = solve_partitioned(players, variant, folder, suit_size=suit_size, parts=parts, workers=workers,
                                    cluster=cluster, limits=limits, progress=progress, keep_graph=not drop_graph,
                                    attractor=attractor, upgrade_layout=upgrade_layout)
    except GraphStopped as err:
        within = "not proven within the budget: " if err.reason in ("time", "limit") else ""
        message = f"{players} players, rules {variant or 'default'}: {within}{err} ({folder})"
        if err.reason == "interrupted":
            _common.fail(message, stops.code)
        raise InputError(message) from None
    except KeyboardInterrupt:  # past the build (the answer's lines): the folder keeps what is done
        _common.fail(f"{players} players, rules {variant or 'default'}: interrupted; the checkpoint is {folder}: "
                     "run the same command again to go on", stops.code)
    except OSError as err:
        raise InputError(f"--checkpoint {checkpoint}: {err.strerror or err}") from None
    game = GoFish(players, players, suit_size, variant or None)
    seats: dict[str, Any] = {}
    for seat, entry in out["seats"].items():
        row = {"wins": entry["wins"], "plies": entry["plies"]}
        if entry.get("first_move") is not None:
            asked, suit = entry["first_move"]
            row["first_move"] = game.move_text(Move(int(seat), asked, suit))
        seats[seat] = row
    return {"players": players, "suits": players, "suit_size": suit_size, "rules": out["rules"],
            "positions": out["positions"], "edges": out["edges"], "seconds": round(time.perf_counter() - began, 2),
            "winners": out["winners"], "seats": seats, "layers": out["layers"],
            "build_seconds": out["build_seconds"], "attractor_seconds": out["attractor_seconds"],
            "players_rotated": True, "checkpoint": folder, **_packed_sizes(out)}


def _packed_sizes(out: dict[str, Any]) -> dict[str, Any]:
    """The keys that say what a partitioned row's sizes count (fastgraph.SIZES_DEFINITION): the split of its
    positions when the result has it (null otherwise), games over not being positions, and the farthest position's
    plies from the start."""
    from quaternity_cp.gofish.fastgraph import SIZES_DEFINITION

    return {"asking_positions": out.get("asking_positions"), "open_positions": out.get("open_positions"),
            "over_positions": 0, "suits_relabelled": True, "farthest_position_plies": out["layers"] - 2,
            "sizes_definition": SIZES_DEFINITION}


__all__ = ["gofish", "check", "analyze", "explain", "count", "solve", "starts", "load", "status_json", "analyze_json"]
