"""Quantum Go Fish's web view: what one seat at the web table sees, the moves in plain words, and a verdict.

Go Fish has no hidden information: every seat sees the same table of bounds
(:func:`~quaternity_cp.gofish.svg.bounds_svg`), the hand sizes, the open
question and every move told in words from its own side ("Seat 2 asked you for
a B: you said no, you hold none."). The game's registered ``web`` part:
:func:`view`, :func:`explain` (why a cell has its range: a minimum cut, in
words) and :func:`verdict` (the exact attractor for the seat that decides now,
within :data:`SOLVE_POSITIONS` positions); the table is a
:class:`quaternity_cp.web.session.WebGame` whose state is a
:class:`~quaternity_cp.gofish.state.GoFishState`.
"""

from __future__ import annotations

from typing import Any

from .game import GoFish
from .svg import bounds_svg

#: The page's parts of Go Fish (files in this package's ``static/``, served at ``/games/gofish/<file>``): its
#: rules page, and the table's script (asking: a player then a suit, or a cell; answering: Yes / No; a click on
#: any other cell: why it has its range) with its style.
PAGE = {"rules": "rules.html", "script": "table.js", "style": "table.css"}

#: The verdict says "not known yet" past this many positions of the game graph.
SOLVE_POSITIONS = 20_000
SOLVE_SECONDS = 2.0

#: Bounds on combinations of options, for the form (the game checks them too: cards must deal evenly).
LIMITS = {"text": "suits x cards per suit must be a multiple of the players (suits 0: as many as players)"}


#: The game's name in the web page's list of games.
TITLE = "Quantum Go Fish"

#: The rule options a rule set (option ``rules``) fixes, as the form shows them.
RULE_FIELDS = ("ask_void", "after_yes", "four", "win_after_ask", "priority", "no_initial_four", "repetition")


def catalogue_entry(spec: Any) -> dict[str, Any]:
    """What Go Fish adds to its entry of the web's list of games: ``rule_sets``, the option naming the rule set
    and, per rule set, the rule options it fixes (the form shows them, and locks them)."""
    from .rules import PRESETS

    return {"rule_sets": {"option": "rules", "values": {name: dict(values) for name, values in PRESETS.items()}}}


def options_in_force(table: Any) -> dict[str, Any]:
    """The table's options as played: the rule options as the rule set and the options made them, and
    ``rules`` the rule set they are exactly (or stacky, the defaults, which the rule options then change)."""
    from .rules import PRESETS, Rules

    rules = current_game(table).rules
    played = {name: getattr(rules, name) for name in RULE_FIELDS}
    named = next((name for name, values in PRESETS.items()
                  if all(played[o] == values.get(o, getattr(Rules(), o)) for o in RULE_FIELDS)), "stacky")
    return {**table.options, **played, "rules": named}


def current_game(table: Any) -> GoFish:
    """A copy of the table's game (once per change of the game)."""
    game: GoFish = table.memo("gofish-game", lambda: table.state.game.copy())
    return game


def refuse_size(options: dict[str, Any]) -> str | None:
    """Why a table with ``options`` cannot be dealt, or None."""
    players, suits, size = options.get("players", 3), options.get("suits", 0), options.get("suit_size", 4)
    if not all(isinstance(x, int) for x in (players, suits, size)):
        return None  # the option checks say what is wrong
    suits = suits or players
    if suits * size % players:
        return f"{suits} suits x {size} cards cannot be dealt evenly to {players} players"
    first = options.get("first", 0)
    if isinstance(first, int) and not isinstance(first, bool) and first >= players:
        return f"option first: seat {first} is not one of the {players} seats"
    return None


def _article(word: str) -> str:
    """"an A", "a B" for a lettered suit; a named suit as it is ("Narwhals") (:func:`.words.article`)."""
    from .words import article

    return article(word)


def describe(table: Any, viewer: int, game: GoFish, text: str) -> tuple[int, str]:
    """(the asker, the move ``text`` in words from ``viewer``'s side)."""
    move = game.parse_move(text)
    suit = game.setup.suits[move.suit]
    asker = table.seat_name(move.asker, viewer)
    asked = table.seat_name(move.asked, viewer, start=False)
    if move.answer is None:
        words = f"{asker} {'ask' if move.asker == viewer else 'asks'} {asked} for {_article(suit)}."
        return move.asker, words
    them = asked
    if move.answer:
        holder = "you" if move.asker == viewer else table.seat_name(move.asker, viewer, start=False)
        words = f"{asker} asked {asked} for {_article(suit)}: {them} said yes, one {suit} passed to {holder}."
    else:
        holds = "you hold" if move.asked == viewer else "it holds"
        words = f"{asker} asked {asked} for {_article(suit)}: {them} said no, {holds} none."
    return move.asker, words


def narration(table: Any, viewer: int, game: GoFish) -> list[dict[str, Any]]:
    """Every move told in words from ``viewer``'s side (``seat``: the asker; a question and its answer are one
    entry); the last may be an open question, told again with its answer once it is given."""
    out = []
    moves = game.moves
    for i, text in enumerate(moves):
        seat, words = describe(table, viewer, game, text)  # (the end: the result says who won, once)
        out.append({"seat": seat, "move": text, "text": words, "you": seat == viewer})
    return out


def result(table: Any, seat: int, game: GoFish) -> dict[str, Any]:
    """Who won and why, in words from ``seat``'s side (a draw, the cap: nobody)."""
    state = table.state
    out = state.outcome()
    if out is None:
        return {"winners": [], "text": ""}
    if out.winner is not None:
        from .words import priority_note

        who = table.seat_name(out.winner, seat)
        why = ("every hand is determined, on the winner's question" if out.reason == "determined"
               else "provably holding all of a suit")
        # several could win at once: which rule of the option priority chose (None when one could)
        note = priority_note(game, lambda p: table.seat_name(p, seat, start=False))
        return {"winners": [out.winner], "text": f"{who} won: {why}." + (f" {note}" if note else "")}
    answered = f"{state.max_moves} question{'' if state.max_moves == 1 else 's'} answered"
    texts = {"draw": "A draw: a position repeated.", "cap": f"A draw: {answered} "
             "and nobody won (the table's move cap).", "stuck": "Nobody won: no player has a legal question."}
    if out.reason == "invalid" and out.loser is not None:
        return {"winners": [], "text": f"{table.seat_name(out.loser, seat)} broke a rule and lost; nobody won."}
    return {"winners": [], "text": texts.get(out.reason, "Game over.")}


def status(table: Any, seat: int, game: GoFish) -> str:
    """One plain sentence for ``seat``: what to do, or whose decision it is."""
    if table.state.is_terminal():
        return "Game over."  # who won and why: the result, said once (the page's end panel)
    q = game.pending
    if q is not None:
        suit = game.setup.suits[q.suit]
        if q.asked == seat:
            answers = game.legal_answers()
            forced = "" if len(answers) == 2 else (" (only yes is possible)" if answers == [True]
                                                   else " (only no is possible)")
            return f"{table.seat_name(q.asker, seat)} asks you for {_article(suit)}: answer yes or no{forced}."
        return (f"{table.seat_name(q.asked, seat)} is to answer "
                f"{table.seat_name(q.asker, seat, start=False)}: {_article(suit)}?")
    turn = game.turn if game.turn is not None else 0
    if turn == seat:
        if naming(table, game) is not None:
            return "Your turn: ask another player for a suit you may hold, or for a new suit you name."
        return "Your turn: ask another player for a suit you may hold."
    return f"{table.seat_name(turn, seat)} is to ask."


def naming(table: Any, game: GoFish) -> dict[str, Any] | None:
    """Under the option ``name_suits``, while a suit nobody has named or asked about remains (the first asker
    names it): ``{"fresh": [its suit numbers], "suit": the letter a question for a new suit stands for}``
    (a question with that letter, its suit replaced by a new name, asks for it and names it); else None."""
    if not getattr(table.state, "name_suits", False):
        return None
    fresh = game.fresh_suits()
    if not fresh:
        return None
    return {"fresh": fresh, "suit": game.setup.suits[fresh[0]]}


def legend() -> list[dict[str, str]]:
    """The picture's marks."""
    return [
        {"mark": "2", "meaning": "the player holds exactly 2 of the suit (in every consistent table)"},
        {"mark": "0–3", "meaning": "the player holds between 0 and 3 of the suit: the exact range"},
        {"mark": "tint", "colour": "#c8e6c9", "meaning": "green: the count is fixed; paler: less is known"},
        {"mark": "outline", "colour": "#2e7d32", "meaning": "a four: the player provably holds the whole suit"},
        {"mark": "outline", "colour": "#d84315", "meaning": "the open question: the asked player and the suit"},
        {"mark": "(4)", "meaning": "after a player's name: the cards it holds now"},
    ]


def view(table: Any, seat: int, *, probabilities: bool = False) -> dict[str, Any]:
    """What ``seat`` sees (the same for every seat but the words: Go Fish is public); ``probabilities`` is
    ignored (the picture shows exact ranges)."""
    game = current_game(table)
    setup = game.setup
    state = table.state
    data: dict[str, Any] = {
        "kind": "gofish",
        "title": "Quantum Go Fish",
        "svg": bounds_svg(game, status=False, names=[table.seat_name(p, seat) for p in range(setup.player_count)]),
        "setup": (f"Quantum Go Fish, {setup.player_count} players, {setup.suit_count} suits of {setup.suit_size}"
                  + (f", rules {', '.join(f'{k} {v}' for k, v in game.rules.to_dict().items())}"
                     if game.rules.to_dict() else "")),
        "players": [table.seat_name(p, seat) for p in range(setup.player_count)],  # as the plates name them
        "suits": list(setup.suits),
        "winner": None if state.outcome() is None else state.outcome().winner,
        "pending": None if game.pending is None else game.move_text(game.pending),
        "determined": game.bounds().determined if game.bounds().feasible else False,
        "bounds": {"low": [list(r) for r in game.bounds().low], "high": [list(r) for r in game.bounds().high]},
        "moves": table.legal_texts(seat),
        "log": narration(table, seat, game),
        # Go Fish keeps no points (the winner wins the game): no score on the seats' plates
        "table": [{"seat": p, "name": name, "cards": cards, "claimed": [], "score": None}
                  for p, (name, cards) in enumerate(zip(table.names(seat), game.hands()))],
        "status": status(table, seat, game),
        "legend": legend(),
    }
    if state.is_terminal():
        data["result"] = result(table, seat, game)
    named = naming(table, game)
    if named is not None:
        data["naming"] = named
    return data


def explain(table: Any, viewer: int, *, card: str | None = None, set_name: str | None = None,
            seat: int | None = None) -> list[str]:
    """Why a cell of the table has its range (:func:`~quaternity_cp.gofish.explain.explain_cell`): ``set_name``
    (or ``card``) names the suit, ``seat`` the player (default: every player, one after the other)."""
    from .explain import explain_cell
    from .rules import GoFishError

    game = current_game(table)  # the table's own game: moves are cited by the record's numbers, however pushed
    suit = set_name if set_name is not None else card
    if suit not in game.setup.suits:
        raise GoFishError(f"unknown suit {suit!r} (the suits: {', '.join(game.setup.suits)})")
    s = game.setup.suits.index(suit)
    seats = range(game.players) if seat is None else [seat]
    lines: list[str] = []
    for p in seats:
        lines += explain_cell(game, p, s).lines
    return lines


def verdict(table: Any, viewer: int | None = None) -> dict[str, Any]:
    """Whether the seat that decides now can force a win (every other seat against it), in plain words, with
    the strategy's move; "not known yet" past :data:`SOLVE_POSITIONS` positions."""
    from ..budget import Limits
    from .solver import SolverLimitError, can_force

    state = table.state
    game = current_game(table).copy()
    if state.is_terminal():
        return {"text": "Game over. " + result(table, -1 if viewer is None else viewer, game)["text"], "value": None}
    seat = state.current_player()
    who = "you" if seat == viewer else table.seat_name(seat, viewer, start=False)
    try:
        res = can_force(game, seat, Limits(max_positions=SOLVE_POSITIONS, max_seconds=SOLVE_SECONDS))
    except SolverLimitError as err:
        if err.reason == "time":
            why = (f"the web table's {SOLVE_SECONDS:g}-second budget ran out after {err.nodes:,} positions of the "
                   "game graph")
        else:
            why = f"the game graph has more than {SOLVE_POSITIONS:,} positions, the web table's limit"
        return {"text": f"Not known yet: {why}; ask again later in the game, or solve the record with "
                        "'quaternity solve'.", "value": None, "nodes": err.nodes, "stopped": err.reason}
    if not res.wins:
        return {"text": f"The other players together can stop {who} from winning ({res.graph_size:,} positions).",
                "value": "no", "nodes": res.graph_size}
    move = res.move(game)
    best = None if move is None else game.move_text(move)
    plies = f"{res.plies} ply" if res.plies == 1 else f"{res.plies} plies"
    text = f"{who[:1].upper() + who[1:]} can force a win in {plies}, whatever the others do."
    if best is not None:
        text += f" A winning move: {best}."
    return {"text": text + f" ({res.graph_size:,} positions.)", "value": "yes", "best": best, "plies": res.plies,
            "nodes": res.graph_size}


__all__ = ["view", "verdict", "explain", "narration", "status", "legend", "result", "refuse_size", "current_game",
           "naming", "LIMITS", "PAGE", "TITLE", "catalogue_entry", "options_in_force"]
