"""``quaternity quartets explain`` (``quaternity explain`` of the game's records): why a card's owners, or a set's
quartet, are what they are."""

from __future__ import annotations

import sys

import click

from ...errors import QuaternityError
from ..explain import Explainer, ExplanationLimitError
from ..replay import replay

from ...command import EXIT_ILLEGAL, EXIT_OK, InputError, emit_json, file_name, guarded, say
from ...command.limits import seconds_option
from . import render
from .common import common_options, default_engine, explain_refused, load


@click.command()
@click.argument("file")
@click.argument("card", required=False)
@click.option("--set", "set_name", metavar="SET", default=None,
              help="Explain set SET instead of a card: why it is claimed, forced, or impossible as a quartet.")
@click.option("--player", "player", metavar="PLAYER", default=None,
              help="Only what concerns this player (a name or a seat number).")
@common_options
@seconds_option("the explanations")
@guarded
def explain(file: str, card: str | None, set_name: str | None, player: str | None, as_json: bool,
            rules: str | None, engine: str | None, max_seconds: float | None = None) -> None:
    """Why CARD must be with, or cannot be with, a player; or, with --set, why a
    quartet is claimed, forced or impossible.

    Each fact comes with the moves responsible (a set of the record's moves
    whose information alone implies it; none of them can be dropped) and a
    counting argument (who would need more cards than can go to them if the
    fact were false). The facts are about the position after the record, or
    before its first illegal move. An explanation that would take longer than
    --max-seconds is refused (exit 2).
    """
    record = load(file, rules)  # first: an unreadable record is said before a missing CARD
    if (card is None) == (set_name is None):
        raise click.UsageError("give either a CARD or --set SET")
    g = record.game
    try:
        seat = None if player is None else g.player(player)
    except QuaternityError as err:
        raise InputError(f"--player: {err}") from None
    try:
        card_id = None if card is None else g.card(card)
    except QuaternityError as err:
        raise InputError(f"CARD argument: {err} in {file}") from None
    try:
        set_id = None if set_name is None else g.set(set_name)
    except QuaternityError as err:
        raise InputError(f"--set: {err} in {file}") from None
    result = replay(record, engine=default_engine(engine), mark_forced=False, history=False)
    pos = result.position
    if not pos.is_valid():
        message = "the position is invalid: no deal is consistent with it, so nothing can be explained"
        if as_json:
            emit_json({"valid": False, "moves_applied": result.moves_applied, "error": message, "explanations": []})
        else:
            say(f"quaternity: {message}")
        sys.exit(EXIT_ILLEGAL)
    explainer = Explainer(record, result, max_seconds=max_seconds)
    analysis = pos.analysis()
    live_sets = pos.constraints.in_play
    try:
        if card_id is not None:
            explanations = explainer.card(card_id, seat)
        else:
            assert set_id is not None  # exactly one of CARD and --set (checked above)
            explanations = explainer.quartet(set_id, seat)
    except ExplanationLimitError as err:
        instead = "ask about one player (--player)" if seat is None else "explain an earlier position of the record"
        raise explain_refused(file_name(file), err, instead) from None
    if card_id is not None:
        subject = g.card_name(card_id)
        holders = analysis.possible_owners(card_id) if live_sets[g.set_of(card_id)] else None
        about = {"card": subject, "owners": holders}
    else:
        assert set_id is not None
        subject = f"set {g.set_name(set_id)}"
        holders = analysis.possible_quartets(set_id) if live_sets[set_id] else None
        about = {"set": g.set_name(set_id), "quartets": holders}
    if as_json:
        error = None
        if result.error is not None:
            i = result.error_index
            assert i is not None  # set with the error
            error = f"move {i} ({record.texts[i - 1]}): {result.error}"
        emit_json({"valid": result.valid, "moves_applied": result.moves_applied, "error": error, **about,
                   "player": seat, "explanations": [e.to_json(g) for e in explanations]})
    else:
        render.print_explain(record, result, explanations, subject=subject, holders=holders,
                             is_card=card_id is not None, seat=seat)
    sys.exit(EXIT_OK if result.valid else EXIT_ILLEGAL)
