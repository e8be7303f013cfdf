"""What the commands of Quaternity and classic Quartets print: JSON documents and human-readable tables (rich)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...command import console
from ..constraints import bits
# the explainer is imported where it is used: `check` of a legal record never needs it
if TYPE_CHECKING:  # pragma: no cover
    from fractions import Fraction

    from ..engines import Analysis
    from ..explain import Explanation
    from ..position import Position
from ..formats import Record
from ..replay import Replay


# -- JSON --------------------------------------------------------------------------
def _turn(result: Replay) -> Any:
    turn = result.position.turn
    if not turn:
        return None
    return turn[0] if len(turn) == 1 else list(turn)


def check_json(record: Record, result: Replay) -> dict[str, Any]:
    pos = result.position
    g = record.game
    error: dict[str, Any] | None = None
    if result.error is not None:
        i = result.error_index
        assert i is not None  # set with the error
        error = {
            "move": i,
            "kind": result.error.kind,
            "message": f"move {i} ({record.texts[i - 1]}): {result.error}",
            "reason": result.error.reason.name.lower(),
            "player": pos.loser if pos.loser is not None else result.error.player,
        }
        if result.error.card is not None:
            error["card"] = g.card_name(result.error.card)
        why = illegal_explanation(record, result)
        error["explanation"] = None if why is None else why.to_json(g)
    return {
        "valid": result.valid,
        "moves_applied": result.moves_applied,
        "error": error,
        "turn": _turn(result),
        "scores": list(pos.scores),
        "claimed": {g.set_name(s): p for s, p in sorted(pos.claimed.items())},
        "over": pos.over,
        "winners": pos.winners(),
        "loser": pos.loser,
        "answers": pos.answers() if pos.pending is not None and result.error is None else None,
        **_classic_json(record, pos),
        "players": list(g.player_names),
        "rules": record.rules.to_dict() | {"name": record.rules.name},
        "moves": [
            {
                "move": g.move_str(r.move),
                "claims": {g.set_name(s): p for s, p in r.claims},
                "forced": r.forced,
            }
            for r in result.reports
        ],
    }


def _classic_json(record: Record, pos: Position) -> dict[str, Any]:
    """Classic quartets: the recorded first player, and the tie for first under ``tie = random``
    (``tied``: the seats tied for the most sets; ``tie_break``: the recorded draw, or null)."""
    out: dict[str, Any] = {}
    if record.first is not None:
        out["first"] = record.first
    if record.rules.tie == "random":
        out["tied"] = pos.tied() if len(pos.tied()) > 1 else []
        out["tie_break"] = record.tie_break
    if record.rules.dealt:
        window = cast("tuple[int, int, int]", pos.state.window)  # set while put-downs are open after the deal
        out["putdowns"] = None if not pos.putdowns_open or pos.over else (
            "deal" if pos.state.opening else {"player": window[0], "set": record.game.set_name(window[2])})
    return out


def analyze_json(record: Record, result: Replay, explain: bool = False,
                 explanations: list[Explanation] | None = None) -> dict[str, Any]:
    data = check_json(record, result)
    pos = result.position
    g = record.game
    c = pos.constraints
    analysis = pos.analysis()
    data["cards"] = {
        g.card_name(card): {"owners": analysis.possible_owners(card), "forced": analysis.forced_owner(card)}
        for card in c.cards_in_play
    }
    data["quartets"] = {
        "possible": {g.set_name(s): analysis.possible_quartets(s) for s in c.sets_in_play},
        "forced": {g.set_name(s): p for s, p in sorted(analysis.forced_quartets(c).items())},
    }
    data["hands"] = list(c.hands)
    if explain:
        from ..explain import Explainer

        why = explanations if explanations is not None else Explainer(record, result).position()
        data["explanations"] = [e.to_json(g) for e in why]
    return data


# -- explanations -------------------------------------------------------------------
#: The time the explanation of an illegal move may take (beyond it the move's reason is shown without it).
ILLEGAL_SECONDS = 10.0


def illegal_explanation(record: Record, result: Replay) -> Explanation | None:
    """Why the record's illegal move is illegal, when the constraints decide it within ILLEGAL_SECONDS."""
    if result.error is None:
        return None
    from ..explain import Explainer, ExplanationError, ExplanationLimitError

    try:
        return Explainer(record, result, max_seconds=ILLEGAL_SECONDS).illegal()
    except (ExplanationError, ExplanationLimitError):
        return None


def explanation_lines(record: Record, e: Explanation) -> list[str]:
    """The explanation, its counting argument, and what each move responsible tells."""
    from ..explain import AFTER, move_information

    lines = [e.text]
    if e.argument is not None and e.argument.text != e.text:
        lines.append("  " + e.argument.text)
    width = max(len(record.texts[m - 1]) for m in e.moves) if e.moves else 0
    for m in e.moves:
        stage = e.stage if m == e.index else AFTER
        lines.append(f"  {m:>4}  {record.texts[m - 1]:<{width}}  {move_information(record, m, stage)}")
    return lines


def print_explanations(out: Console, record: Record, explanations: list[Explanation], indent: str = "") -> None:
    for e in explanations:
        for line in explanation_lines(record, e):
            out.print(Text(indent + line))


def print_explain(record: Record, result: Replay, explanations: list[Explanation], *, subject: str,
                  holders: list[int] | None, is_card: bool, seat: int | None) -> None:
    """``quaternity explain``: the possible holders (None: claimed), then each explanation."""
    out = console()
    g = record.game
    _header(out, record)
    if result.error is not None:
        i = result.error_index
        assert i is not None  # set with the error
        out.print(f"[bold red]Illegal move {i}[/bold red] ({record.texts[i - 1]}): {result.error};"
                  " explaining the position before it.")
    if holders is not None:
        who = ", ".join(g.seat_name(p) for p in holders) or "nobody"
        out.print(f"{subject} may be {'with' if is_card else 'a quartet of'}: {who}")
    if not explanations:
        if seat is None:
            what = "nobody must hold it and nobody is ruled out" if is_card else "nobody is ruled out"
        elif is_card:
            what = f"{g.seat_name(seat)} may hold {subject} in some consistent deal and not in another"
        else:
            what = f"{g.seat_name(seat)} may still hold all of {subject}"
        out.print(f"Nothing to explain: {what}.")
    print_explanations(out, record, explanations)


# -- human output ---------------------------------------------------------------------
def _header(out: Console, record: Record) -> None:
    g = record.game
    out.print(
        f"[bold]{g.players} players, {g.sets} sets of {g.set_size} cards[/bold]"
        f" (hands of {g.hand_size}), rules [bold]{record.rules.name}[/bold]"
    )


def _status(out: Console, record: Record, result: Replay, *, error_shown: bool = False) -> None:
    g = record.game
    pos = result.position
    if result.error is not None:
        i = result.error_index
        assert i is not None  # set with the error
        if not error_shown:
            out.print(
                f"[bold red]Illegal move {i}[/bold red] ({record.texts[i - 1]}): "
                f"{result.error.kind}: {result.error}"
            )
        if pos.loser is not None:
            out.print(f"Under these rules an illegal move loses: {g.seat_name(pos.loser)} loses and the game ends.")
        else:
            out.print(f"The record stops there; {result.moves_applied} moves were applied.")
    elif not pos.is_valid():
        out.print("[bold red]The position is invalid:[/bold red] no deal is consistent with it.")
    scores = ", ".join(f"{g.seat_name(p)}: {s}" for p, s in enumerate(pos.scores))
    out.print(f"Scores: {scores}")
    claimed = pos.claimed
    if claimed:
        out.print("Claimed: " + ", ".join(f"{g.set_name(s)} by {g.seat_name(p)}" for s, p in sorted(claimed.items())))
    if pos.over:
        winners = pos.winners()
        won = ", ".join(g.seat_name(p) for p in winners) if winners else "nobody"
        if record.rules.tie == "random" and len(winners) > 1:
            out.print(f"[bold]Game over.[/bold] Tied for first: {won}; the winner is drawn among them"
                      " (a record gives the draw as \"tie_break\": seat)")
        else:
            out.print(f"[bold]Game over.[/bold] Winner{'s' if len(winners) > 1 else ''}: {won}"
                      + (" (drawn among the tied)" if record.tie_break is not None and len(pos.tied()) > 1 else ""))
    else:
        turn = pos.turn
        if len(turn) == 1:
            out.print(f"Turn: {g.seat_name(turn[0])}")
        else:
            out.print("Turn: free choice among " + ", ".join(g.seat_name(p) for p in turn))
        if record.rules.dealt and pos.putdowns_open and pos.pending is None and result.error is None:
            if pos.state.opening:
                out.print("Put-downs at the deal are open: any seat may put down a set it was dealt"
                          " (the first question closes them).")
            elif (window := pos.state.window) is not None:  # open and not at the deal: right after a yes
                out.print(f"Right after the yes, {g.seat_name(window[0])} may put down {g.set_name(window[2])}"
                          " (the next question says it did not complete it).")
        if pos.pending is not None and result.error is None:
            ans = pos.answers()
            assert ans is not None  # a question is open
            legal = [k for k in ("yes", "no") if ans[k]]
            out.print(
                f"Open question {g.move_str(pos.pending)}: legal answer{'s' if len(legal) != 1 else ''}: "
                + (" and ".join(legal) if legal else "none")
            )


def print_check(record: Record, result: Replay) -> None:
    out = console()
    g = record.game
    _header(out, record)
    width = max([len(t) for t in record.texts] + [10]) + 2
    for r in result.reports:
        line = Text(f"{r.index:>4}  {g.move_str(r.move):<{width}}")
        line.append("ok", style="green")
        if r.forced:
            line.append("  (forced answer)", style="yellow")
        if r.claims:
            line.append("  claims " + ", ".join(f"{g.set_name(s)} for {g.seat_name(p)}" for s, p in r.claims), style="bold")
        out.print(line)
    if result.error is not None:
        i = result.error_index
        assert i is not None  # set with the error
        line = Text(f"{i:>4}  {record.texts[i - 1]:<{width}}")
        line.append(f"ILLEGAL ({result.error.kind}): {result.error}", style="bold red")
        out.print(line)
        why = illegal_explanation(record, result)
        if why is not None:
            print_explanations(out, record, [why], indent=" " * 6)
    _status(out, record, result, error_shown=True)


def owner_cells(analysis: Analysis, card: int, players: int,
                probs: dict[int, dict[int, Fraction]] | None = None) -> list[Text]:
    """One grid row: per seat ■ forced, ● possible, · impossible, or the exact probability when ``probs`` is given."""
    forced = analysis.forced_owner(card)
    cells = []
    for p in range(players):
        possible = analysis.owners[card] >> p & 1
        if probs is not None and possible:
            v = probs.get(card, {}).get(p, 0)
            cells.append(Text("1" if v == 1 else f"{float(v):.2f}", style="bold green" if v == 1 else ""))
        elif forced == p:
            cells.append(Text("■", style="bold green"))
        elif possible:
            cells.append(Text("●"))
        else:
            cells.append(Text("·", style="dim"))
    return cells


def print_analyze(record: Record, result: Replay, explain: bool = False,
                  explanations: list[Explanation] | None = None) -> None:
    out = console()
    g = record.game
    pos = result.position
    c = pos.constraints
    analysis = pos.analysis()
    _header(out, record)
    _status(out, record, result)
    if not c.sets_in_play:
        return
    table = Table(title="Who may hold each card (■ forced, ● possible, · impossible)", title_justify="left")
    table.add_column("card")
    for p in range(g.players):
        table.add_column(f"{g.player_name(p)}\n({c.hands[p]})", justify="center")
    for card in c.cards_in_play:
        table.add_row(g.card_name(card), *owner_cells(analysis, card, g.players))
    out.print(table)
    forced_q = analysis.forced_quartets(c)
    rows = []
    for s in c.sets_in_play:
        holders = [g.seat_name(p) for p in bits(analysis.quartets[s])]
        tag = f"  [bold green]forced: {g.seat_name(forced_q[s])}[/bold green]" if s in forced_q else ""
        rows.append(f"  {g.set_name(s)}: " + (", ".join(holders) if holders else "nobody") + tag)
    out.print("Possible quartets (who may hold the whole set):")
    for row in rows:
        out.print(row)
    if explain and analysis.feasible:
        from ..explain import Explainer

        why = explanations if explanations is not None else Explainer(record, result).position()
        out.print("Why (forced cards and quartets, the moves responsible, a counting argument):")
        if not why:
            out.print("  Nothing is forced.")
        for kind, title in (("moved", "Known from the cards' movements"), ("start", "Fixed by the starting position")):
            # a card's movement or the start explains a card and its player: both are set
            known = [f"{g.card_name(e.card)} ({g.seat_name(e.player)})" for e in why
                     if e.argument is not None and e.argument.kind == kind
                     and e.card is not None and e.player is not None]
            if known:
                out.print(f"  {title}: " + ", ".join(known))
        why = [e for e in why if e.argument is None or e.argument.kind not in ("moved", "start")]
        print_explanations(out, record, why, indent="  ")
