"""What the command prints: JSON documents and human-readable tables (rich)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from quaternity_cp.constraints import bits
from quaternity_cp.formats import Record
from quaternity_cp.replay import Replay


def console() -> Console:
    return Console(highlight=False, soft_wrap=True)


# -- JSON --------------------------------------------------------------------------
def _turn(result: Replay) -> Any:
    turn = result.position.turn
    if not turn:
        return None
    return turn[0] if len(turn) == 1 else list(turn)


def check_json(record: Record, result: Replay) -> dict[str, Any]:
    pos = result.position
    g = record.game
    error = None
    if result.error is not None:
        error = {
            "move": result.error_index,
            "kind": result.error.kind,
            "message": f"move {result.error_index} ({record.texts[result.error_index - 1]}): {result.error}",
            "reason": result.error.reason.name.lower(),
            "player": pos.loser,
        }
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


def analyze_json(record: Record, result: Replay) -> dict[str, Any]:
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
    return data


# -- human output ---------------------------------------------------------------------
def _name(g, p: int) -> str:
    return g.player_name(p) if g.named_players else f"seat {p}"


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
        if not error_shown:
            out.print(
                f"[bold red]Illegal move {i}[/bold red] ({record.texts[i - 1]}): "
                f"{result.error.kind}: {result.error}"
            )
        if pos.loser is not None:
            out.print(f"Under these rules an illegal move loses: {_name(g, pos.loser)} loses and the game ends.")
        else:
            out.print(f"The record stops there; {result.moves_applied} moves were applied.")
    elif not pos.is_valid():
        out.print("[bold red]The position is invalid:[/bold red] no deal is consistent with it.")
    scores = ", ".join(f"{_name(g, p)}: {s}" for p, s in enumerate(pos.scores))
    out.print(f"Scores: {scores}")
    claimed = pos.claimed
    if claimed:
        out.print("Claimed: " + ", ".join(f"{g.set_name(s)} by {_name(g, p)}" for s, p in sorted(claimed.items())))
    if pos.over:
        winners = pos.winners()
        won = ", ".join(_name(g, p) for p in winners) if winners else "nobody"
        out.print(f"[bold]Game over.[/bold] Winner{'s' if len(winners) > 1 else ''}: {won}")
    else:
        turn = pos.turn
        if len(turn) == 1:
            out.print(f"Turn: {_name(g, turn[0])}")
        else:
            out.print("Turn: free choice among " + ", ".join(_name(g, p) for p in turn))
        if pos.pending is not None and result.error is None:
            ans = pos.answers()
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
            line.append("  claims " + ", ".join(f"{g.set_name(s)} for {_name(g, p)}" for s, p in r.claims), style="bold")
        out.print(line)
    if result.error is not None:
        i = result.error_index
        line = Text(f"{i:>4}  {record.texts[i - 1]:<{width}}")
        line.append(f"ILLEGAL ({result.error.kind}): {result.error}", style="bold red")
        out.print(line)
    _status(out, record, result, error_shown=True)


def print_analyze(record: Record, result: Replay) -> None:
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
        forced = analysis.forced_owner(card)
        cells = []
        for p in range(g.players):
            if forced == p:
                cells.append(Text("■", style="bold green"))
            elif analysis.owners[card] >> p & 1:
                cells.append(Text("●"))
            else:
                cells.append(Text("·", style="dim"))
        table.add_row(g.card_name(card), *cells)
    out.print(table)
    forced_q = analysis.forced_quartets(c)
    rows = []
    for s in c.sets_in_play:
        holders = [_name(g, p) for p in bits(analysis.quartets[s])]
        tag = f"  [bold green]forced: {_name(g, forced_q[s])}[/bold green]" if s in forced_q else ""
        rows.append(f"  {g.set_name(s)}: " + (", ".join(holders) if holders else "nobody") + tag)
    out.print("Possible quartets (who may hold the whole set):")
    for row in rows:
        out.print(row)
