"""The web view of the game ``"quartets"``: what one seat at the web table sees, from the game's record.

The record is replayed (:func:`quaternity_cp.quartets.replay.replay`) once per change of
the game, for every seat; the grid is the public constraint state, or in
classic the seat's private one (:func:`quaternity_cp.quartets.knowledge.seat_view`: the
public state plus its own hand, as ``analyze --as SEAT`` shows it). A seat's
view holds its own hand and never another's; at the end of a classic game the
hands as dealt are shown to everybody. Moves are told in plain words from the
viewer's side ("Seat 2 asked you for C2: you said no."); explanations come
from :mod:`quaternity_cp.quartets.explain`, probabilities from :mod:`quaternity_cp.quartets.count`
within a time and size budget. The game's registered ``web`` part:
:func:`view`, :func:`explain`, :func:`refuse_size`, :func:`undo_refusal` (in
classic a question cannot be taken back) and :data:`LIMITS`; the table is a
:class:`quaternity_cp.web.session.WebGame`.

Table sizes (:data:`MOST_CARDS_PER_HAND`): the exact agents and the
probabilities count the deals a seat thinks possible, which costs about
``(H+1)^(P-1)`` table states for P seats holding H cards each (see
:mod:`quaternity_cp.quartets.count`). Measured on the 2-core test machine under load
(classic, a seat's view at the deal, where the count is largest; whole games of
``knowledge`` agents at the largest sizes offered): 4 x 16 x 10 (40 cards each)
0.5 s, 4 x 20 x 10 (50 each) 1.4 s; 5 x 5 x 10 (10 each) 0.25 s, 5 x 8 x 10
(16 each) 1.6 s; 6 x 6 x 6 (6 each) 0.2 s, 6 x 8 x 6 and 6 x 6 x 8 (8 each)
1.3-3.3 s; 7 x 4 x 7 (4 each) 1.0 s, 7 x 5 x 7 (5 each) 3.0 s; 8 x 3 x 8 (3
each) 1.3 s (the slowest agent move of a whole game 2.0 s), 8 x 4 x 8 (4 each)
9 s. The web offers the sizes of about a second or two: with 2 or 3 players
any size the options allow (the count stays small), with more the most cards
per hand below.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

from . import outcome
from .count import CountLimitError, CountLimits, DealCounter
from ..errors import QuaternityError
from .game import Declaration
from ..names import seat_names
from .report import explanation_lines
from .svg import CLAIM_FILL, FORCED_FILL, IMPOSSIBLE_FILL, LEGAL_FILL, POSSIBLE_FILL, QUESTION_STROKE, TURN_FILL
from .svg import grid_svg

#: The page's parts of quartets (files in this package's ``static/``, served at ``/games/quartets/<file>``):
#: its rules page, the script that draws its table (questions, answers, declarations; it registers itself
#: with ``Quaternity.registerGame``) and that script's style.
PAGE = {"rules": "rules.html", "script": "table.js", "style": "table.css"}

#: The game's name in the web page's list of games.
TITLE = "Quaternity and classic Quartets"


def catalogue_entry(spec: Any) -> dict[str, Any]:
    """What quartets adds to its entry of the web's list of games: ``presets``, the rules presets offered."""
    option = spec.option("preset")
    return {"presets": list(option.choices)} if option is not None else {}


MAX_COUNT_STATES = 500_000  # probabilities beyond this table size are refused with a note
COUNT_SECONDS = 2.0  # ... and beyond this time (an explanation too)
PROBABILITIES = True  # the view shows each card's exact probabilities on demand

#: players -> the most cards in one hand the web table offers (fewer players: any size the options allow).
MOST_CARDS_PER_HAND = {4: 40, 5: 10, 6: 6, 7: 4, 8: 3}

#: The bounds on combinations of options (the session's ``WEB_LIMITS`` shows them with each option's range).
LIMITS: dict[str, Any] = {
    "cards_per_hand": {str(p): h for p, h in MOST_CARDS_PER_HAND.items()},
    "text": "Every hand gets sets x cards per set / players cards. With 2 or 3 players any size; with "
            + ", ".join(f"{p} players at most {h} cards each" for p, h in MOST_CARDS_PER_HAND.items())
            + " (larger tables take the agents and the counts too long for the web table).",
}


def refuse_size(options: Mapping[str, Any]) -> str | None:
    """Why a table made with ``options`` is too large for the web table (:data:`MOST_CARDS_PER_HAND`), or None."""
    players, sets, size = options.get("players"), options.get("sets"), options.get("set_size")
    if not isinstance(players, int) or not isinstance(sets, int) or not isinstance(size, int) or players < 1:
        return None  # the game's own checks say what is wrong
    most = MOST_CARDS_PER_HAND.get(players)
    hand = sets * size // players
    if most is not None and hand > most:
        return (f"{players} players with {hand} cards each is too large to play at a table: with {players} "
                f"players at most {most} cards each (choose fewer sets, smaller sets or fewer players)")
    return None


@dataclass
class QuartetsView:
    """What one seat knows of a quartets game: the record, its replay, the grid's constraints, its hand."""

    record: Any
    result: Any
    constraints: Any  # the seat's private constraints in classic, the public ones otherwise
    hand: list[int]
    classic: bool


def quartets_knowledge(table: Any, seat: int | None = None) -> QuartetsView:
    """What ``seat`` (default: the table's first person) knows of the table's game: its record replayed
    (once per change of the game) and, in classic, its private constraints."""
    seat = table.human if seat is None else seat
    record, result = table.memo("quartets-replay", lambda: _replayed(table))
    if record.deal is None:
        return QuartetsView(record, result, result.position.constraints, [], False)
    from .knowledge import record_hands, seat_view

    if seat < 0:  # a watcher (the watch link): what the whole table knows, no hand
        public = table.memo("quartets-public", lambda: record_hands(record, result)[0])
        return QuartetsView(record, result, public, [], True)
    hand, constraints = table.memo(("quartets-seat", seat), lambda: seat_view(record, result, seat))
    return QuartetsView(record, result, constraints, hand, True)


def _replayed(table: Any) -> tuple[Any, Any]:
    from .formats import record_from_json
    from .replay import replay

    record = record_from_json(table.full_record())
    return record, replay(record, mark_forced=False, history=False)


# -- the view -----------------------------------------------------------------------------------
def view(table: Any, seat: int, *, probabilities: bool = False) -> dict[str, Any]:
    """What ``seat`` sees of a quartets game (its grid, its legal moves, the moves told in words, the table,
    its hand, the legend, the result at the end), as JSON data."""
    k = quartets_knowledge(table, seat)
    record, pos = k.record, k.result.position
    g = record.game
    questions: dict[tuple[int, int], str] = {}
    answers: list[dict[str, str]] = []
    declarations: list[dict[str, str]] = []
    for text in table.legal_texts(seat):
        move = g.parse_move(text)
        if isinstance(move, Declaration):
            declarations.append({"text": text, "set": g.set_name(move.set)})
        elif move.answer is None:
            questions[move.card, move.target] = text
        else:
            answers.append({"text": text, "answer": "yes" if move.answer else "no"})
    probs, note = None, None
    if probabilities:
        try:
            counter = DealCounter(k.constraints, limits=CountLimits(max_states=MAX_COUNT_STATES, max_seconds=COUNT_SECONDS))
            probs = counter.card_probabilities() if counter.count() else None
        except CountLimitError:
            note = ("Too many deals to count exactly on the web table; the grid shows who may hold each card "
                    "(download the record and try quaternity count).")
    svg = grid_svg(pos, constraints=k.constraints if k.classic else None, probabilities=probs, legal=questions,
                   mine=k.hand, viewer=seat)
    names = seat_names(g)
    shown = table.names(seat)
    claimed_by: dict[int, list[str]] = {p: [] for p in range(g.players)}
    for s, p in sorted(pos.claimed.items()):
        claimed_by[p].append(g.set_name(s))
    data: dict[str, Any] = {
        "kind": "quartets",
        "title": "Quartets" if k.classic else "Quaternity",  # the game played, as the page's header names it
        "svg": svg,
        "setup": f"{g.players} players, {g.sets} sets of {g.set_size} cards, rules {record.rules.name}",
        "players": names,
        "classic": k.classic,
        "hand": [g.card_name(c) for c in k.hand],
        "claimed": {g.set_name(s): p for s, p in sorted(pos.claimed.items())},
        "winners": pos.winners() if pos.over else None,
        "questions": len(questions),
        "answers": answers,
        "declarations": declarations,
        "pending": None if pos.pending is None else g.move_str(pos.pending),
        "probabilities": probs is not None,
        "note": note,
        "log": narration(table, seat, record, k.result),
        "table": [{"seat": p, "name": shown[p], "cards": pos.hands[p], "claimed": claimed_by[p],
                   "score": pos.scores[p]} for p in range(g.players)],
        "status": status(table, seat, k, bool(answers), bool(declarations)),
        "legend": legend(k.classic),
    }
    if table.state.is_terminal():
        data["result"] = result(table, seat, k)
    return data


def _sets(n: int) -> str:
    return f"{n} set" + ("" if n == 1 else "s")


def narration(table: Any, viewer: int, record: Any, replayed: Any) -> list[dict[str, Any]]:
    """Every move of the record told in plain words from ``viewer``'s side, with its notation and mover."""
    g = record.game
    dealt = record.deal is not None

    def who(p: int, start: bool = True) -> str:
        name: str = table.seat_name(p, viewer, start=start)
        return name

    actions = [t for _, t in table.log]  # the decisions, in order: a question and its answer are two when
    j = 0  # the asked player chose the answer, one when the answer was the only possible one (or dealt)
    out: list[dict[str, Any]] = []
    for i, (move, text) in enumerate(zip(record.moves, record.texts)):
        claims: tuple[tuple[int, int], ...] = replayed.reports[i].claims if i < len(replayed.reports) else ()
        if isinstance(move, Declaration):
            mover = move.player
            words = (f"{who(mover)} put down set {g.set_name(move.set)}." if dealt else
                     f"{who(mover)} declared set {g.set_name(move.set)} and claimed it.")
            claims = tuple(c for c in claims if c != (move.set, move.player))
            j += not dealt and j < len(actions) and actions[j] == text
        else:
            mover = move.asker
            asked = g.move_str(move.unanswered())
            j += j < len(actions) and actions[j] == asked
            chosen = j < len(actions) and actions[j] == text and move.answer is not None
            j += chosen
            only = "" if dealt or chosen else " (the only possible answer)"
            ask = f"{who(move.asker)} asked {who(move.target, False)} for {g.card_name(move.card)}"
            if move.answer is None:
                verb = "ask" if move.asker == viewer else "asks"
                words = f"{who(move.asker)} {verb} {who(move.target, False)} for {g.card_name(move.card)}."
            elif move.answer:
                words = f"{ask}: {who(move.target, False)} said yes{only} and handed it over."
            else:
                words = f"{ask}: {who(move.target, False)} said no{only}."
        if len(claims) == 1:
            s, p = claims[0]
            words += f" Set {g.set_name(s)} is claimed by {who(p, False)}: all its cards are known to be there."
        elif claims:
            words += (" Sets " + ", ".join(g.set_name(s) for s, _ in claims[:-1]) + f" and {g.set_name(claims[-1][0])}"
                      + " are claimed, all their cards known: " + ", ".join(f"{g.set_name(s)} by {who(p, False)}"
                                                                             for s, p in claims) + ".")
        out.append({"seat": mover, "move": text, "text": words, "you": mover == viewer})
    return out


def status(table: Any, seat: int, k: QuartetsView, answering: bool, declaring: bool) -> str:
    """One plain sentence for ``seat``: whose turn it is and what to do."""
    pos = k.result.position
    g = k.record.game
    if table.state.is_terminal():
        text: str = result(table, seat, k)["text"]
        return text
    q = pos.pending
    if q is not None:
        card = g.card_name(q.card)
        if answering:
            return f"{table.seat_name(q.asker, seat)} asks you for {card}: answer yes or no (both are possible)."
        if q.asker == seat:
            return f"You asked {table.seat_name(q.target, seat)} for {card}: waiting for the answer."
        return (f"{table.seat_name(q.asker, seat)} asked {table.seat_name(q.target, seat)} for {card}: "
                "waiting for the answer.")
    mover = table.state.current_player()
    if mover == seat:
        return "Your turn: ask a player for a card" + (", or declare a set." if declaring else ".")
    return f"{table.seat_name(mover, seat)} is to ask for a card."


def legend(classic: bool) -> list[dict[str, str]]:
    """What the grid's marks mean (each with the colour it is drawn in)."""
    items = [
        {"mark": "■", "colour": FORCED_FILL, "meaning": "green square: the seat holds this card in every deal "
                                                        "consistent with what you know"},
        {"mark": "●", "colour": POSSIBLE_FILL, "meaning": "dot: the seat may hold this card"},
        {"mark": "·", "colour": IMPOSSIBLE_FILL, "meaning": "faint point: the seat cannot hold this card"},
    ]
    if classic:
        items.append({"mark": "★", "colour": "#222222", "meaning": "a card in your hand"})
    items += [
        {"mark": "tint", "colour": LEGAL_FILL, "meaning": "you may ask that seat for that card now (click it)"},
        {"mark": "outline", "colour": QUESTION_STROKE, "meaning": "the open question"},
        {"mark": "▼ turn", "colour": TURN_FILL, "meaning": "the seat whose turn it is"},
        {"mark": "chip", "colour": CLAIM_FILL, "meaning": "a claimed set and who claimed it"},
        {"mark": "whole set may be with", "colour": "#555555",
         "meaning": "the seats that may hold every card of the set"},
        {"mark": "0.25", "colour": "#1565c0", "meaning": "with probabilities on: the exact chance that the seat "
                                                        "holds the card, every consistent deal equally likely"},
    ]
    return items


def result(table: Any, seat: int, k: QuartetsView) -> dict[str, Any]:
    """Who won and why, in plain words from ``seat``'s side (the tie rule when it decides); in classic
    every hand as it was dealt."""
    pos = k.result.position
    record = k.record
    g = record.game
    scores = list(pos.scores)
    P = g.players

    def who(p: int, start: bool = True) -> str:
        name: str = table.seat_name(p, seat, start=start)
        return name

    def listed(seats: list[int]) -> str:
        parts = [who(p, False) for p in seats]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

    tally = "Sets: " + ", ".join(f"{who(p, False)} {scores[p]}" for p in range(P)) + "."
    out: dict[str, Any] = {}
    if record.deal is not None:
        out["hands"] = {str(p): [g.card_name(c) for c in sorted(record.deal[p])] for p in range(P)}
    if not pos.over:  # the table's limit stopped a classic game
        out["winners"] = []
        out["text"] = (f"The game stopped unfinished after {len(record.moves):,} moves (the table's limit): "
                       f"nobody wins. {tally}")
        return out
    winners = list(pos.winners())
    out["winners"] = winners
    lead = f"{who(pos.loser)} lost by an illegal move. " if pos.loser is not None else ""
    tied = outcome.tied(scores, out=pos.loser)  # the winner rule's one home: who has the most sets
    top = scores[tied[0]] if tied else 0
    if len(tied) == 1:
        w = tied[0]
        text = ("You won" if w == seat else f"{who(w)} won") + f" with {_sets(top)}. {tally}"
        out["text"] = lead + text
        return out
    rule = record.rules.tie
    text = f"Tie for first: {listed(tied)} have {_sets(top)} each; under the rule tie={rule} "
    if rule == "all-lose":
        text += "a tie for first means nobody wins."
    elif rule == "shared":
        text += "the tied players share the win" + (": you share it." if seat in tied else ".")
    elif rule == "first":
        text += (f"the one who reached {_sets(top)} first wins: " + (
            "you." if winners == [seat] else f"{listed(winners)}."))
    else:  # random
        text += ("one of them was drawn at random to win: " + ("you." if winners == [seat] else f"{listed(winners)}."))
    out["text"] = lead + text + " " + tally
    return out


# -- undo ----------------------------------------------------------------------------------------
def undo_refusal(table: Any, applied: int) -> str | None:
    """Why the person's action made after ``applied`` actions cannot be taken back, or None.

    In classic every question is answered at once, truthfully: a question asked, its answer seen and the
    question taken back would leave no trace in the record, so a seat could probe the deal card by card.
    Such an undo is refused (the answer stays in the record, known to the whole table). The Quaternity
    presets deal nothing: an undo there hides nothing, and is allowed.
    """
    from .state import ClassicState

    if isinstance(table.state, ClassicState) and applied < table.applied:
        return "in classic Quartets a question cannot be taken back: its answer is known to the whole table"
    return None


# -- explanations -------------------------------------------------------------------------------
def explain(table: Any, viewer: int, *, card: str | None = None, set_name: str | None = None,
            seat: int | None = None) -> list[str]:
    """Why a card is where ``viewer``'s grid says (with ``seat``: why it is or is not with that seat), or why a
    set was claimed, as lines of text."""
    from .explain import Explainer, ExplanationError, ExplanationLimitError

    k = quartets_knowledge(table, viewer)
    record = k.record
    g = record.game
    try:
        if card is not None:
            c = g.card(card)
            if c in k.hand:
                return [f"{g.card_name(c)} is in your hand."]
            facts = Explainer(record, k.result, max_seconds=COUNT_SECONDS).card(c, seat)
        elif set_name is not None:
            facts = Explainer(record, k.result, max_seconds=COUNT_SECONDS).quartet(g.set(set_name))
        else:
            raise QuaternityError("say which card or set to explain")
    except ExplanationLimitError:
        return ["Too long to explain here (download the record and try quaternity explain)."]
    except ExplanationError:
        facts = []
    lines = [line for e in facts for line in explanation_lines(record, e)]
    if not lines and k.classic:
        mine = " ".join(g.card_name(c) for c in k.hand) or "no cards"
        return [f"Not known in public: what your grid shows here follows from the public record together with "
                f"your own hand ({mine})."]
    return lines or ["Nothing to explain here."]


__all__ = ["view", "explain", "refuse_size", "undo_refusal", "narration", "status", "legend", "result", "quartets_knowledge",
           "QuartetsView", "LIMITS", "MOST_CARDS_PER_HAND", "PROBABILITIES"]
