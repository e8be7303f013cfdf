"""The report of the game ``"quartets"``: the steps of a record, for the page of :mod:`quaternity_cp.report`.

:func:`record_report` replays a record once and, for the start and after
every move, keeps the knowledge grid (:mod:`quaternity_cp.quartets.svg`), the number of
consistent deals (:mod:`quaternity_cp.count`, or "too many to count" beyond a
table size), the claims, the explanation of every forced card and quartet
(:mod:`quaternity_cp.explain`) and the illegal move with its explanation.
:func:`text_report` is the game's registered ``report`` part (a record's text in, the page out).

>>> from quaternity_cp.formats import parse_record
>>> html = record_report(parse_record("players: 2\\nsets: 2\\nset_size: 2\\n0>1:A0+"))
>>> html.startswith("<!DOCTYPE html>") and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from ..count import CountLimitError, DealCounter
from ..errors import FormatError, QuaternityError
from ..explain import AFTER, Explainer, Explanation, ExplanationError, move_information
from ..formats import Record, parse_record, rules_text
from ..games import OptionError
from ..position import Position
from ..replay import Replay, replay
from ..report import page
from ..rules import Rules
from .svg import grid_svg

MAX_COUNT_STATES = 200_000  # larger counting tables: the step says "too many to count"
MAX_EXPLANATIONS = 64  # forced facts explained per step (a huge table would take long)


# -- numbers ------------------------------------------------------------------------
def deals_text(n: int) -> str:
    """A deal count for people: exact up to 15 digits, else as a power of ten."""
    if n < 10**15:
        return f"{n:,}"
    lg = math.log10(n)
    mant = 10 ** (lg - math.floor(lg))
    return f"about {mant:.2f} × 10^{math.floor(lg)}"


def count_or_none(constraints, max_states: int = MAX_COUNT_STATES) -> int | None:
    """The number of consistent deals, or None when the counting table would exceed ``max_states``."""
    try:
        return DealCounter(constraints, max_states).count()
    except CountLimitError:
        return None


# -- one step of a record --------------------------------------------------------------
@dataclass
class Step:
    """The position after ``index`` moves of a record (0: the start)."""

    index: int
    move: str | None
    position: Position
    claims: tuple[tuple[int, int], ...]
    forced_answer: bool


def record_steps(record: Record, result: Replay) -> list[Step]:
    """The start and the position after every applied move (snapshots of one replay)."""
    position = record.position(result.position.engine)
    steps = [Step(0, None, position.copy(), (), False)]
    for report in result.reports:
        position.push(record.moves[report.index - 1])
        steps.append(Step(report.index, record.texts[report.index - 1], position.copy(), report.claims,
                          report.forced))
    return steps


def _prefix(record: Record, k: int) -> Record:
    return Record(record.game, record.rules, record.moves[:k], record.start, record.texts[:k])


def explanation_lines(record: Record, e: Explanation) -> list[str]:
    """An explanation as lines of text: the fact, its counting argument, each responsible move with what it told."""
    lines = [e.text]
    if e.argument is not None and e.argument.text != e.text:
        lines.append(e.argument.text)
    for m in e.moves:
        stage = e.stage if m == e.index else AFTER
        lines.append(f"{m}. {record.texts[m - 1]}: {move_information(record, m, stage)}")
    return lines


def _explanation_json(record: Record, e: Explanation) -> dict[str, Any]:
    g = record.game
    return {
        "card": None if e.card is None else g.card_name(e.card),
        "set": None if e.set is None else g.set_name(e.set),
        "player": e.player,
        "fact": e.fact,
        "moves": list(e.moves),
        "lines": explanation_lines(record, e),
    }


def step_data(record: Record, result: Replay, step: Step, *, explain: bool = True,
              max_states: int = MAX_COUNT_STATES) -> dict[str, Any]:
    """What the report shows for one step, as JSON-ready data."""
    g = record.game
    pos = step.position
    deals = count_or_none(pos.constraints, max_states) if pos.is_valid() else 0
    explanations: list[dict[str, Any]] = []
    if explain and pos.is_valid():
        prefix = _prefix(record, step.index)
        partial = Replay(pos, list(result.reports[: step.index]))
        try:
            facts = Explainer(prefix, partial).position()[:MAX_EXPLANATIONS]
            claimed = [Explainer(prefix, partial).claim(s) for s, _ in step.claims]
        except (ExplanationError, QuaternityError):
            facts, claimed = [], []
        explanations = [_explanation_json(prefix, e) for e in claimed + facts]
    return {
        "index": step.index,
        "move": step.move,
        "forced_answer": step.forced_answer,
        "claims": [f"{g.set_name(s)} for {_name(g, p)}" for s, p in step.claims],
        "deals": None if deals is None or deals.bit_length() > 14_000 else str(deals),  # exact (str() limit)
        "deals_text": "too many to count here" if deals is None else deals_text(deals),
        "log10": None if not deals else round(math.log10(deals), 4),
        "svg": grid_svg(pos),
        "explanations": explanations,
        "scores": list(pos.scores),
        "turn": list(pos.turn),
        "over": pos.over,
    }


def _name(g, p: int) -> str:
    return g.player_name(p) if g.named_players else f"seat {p}"


def illegal_data(record: Record, result: Replay) -> dict[str, Any] | None:
    """The first illegal move, its reason and (when the constraints decide it) why."""
    if result.error is None or result.error_index is None:
        return None
    i = result.error_index
    lines: list[str] = []
    try:
        why = Explainer(record, result).illegal()
    except (ExplanationError, QuaternityError):
        why = None
    if why is not None:
        lines = explanation_lines(record, why)
    return {
        "index": i,
        "move": record.texts[i - 1],
        "kind": result.error.kind,
        "message": str(result.error),
        "lines": lines,
        "loser": result.position.loser,
    }


# -- the page ------------------------------------------------------------------------------
def record_report(record: Record, *, engine=None, title: str | None = None, explain: bool = True,
                  max_states: int = MAX_COUNT_STATES) -> str:
    """The whole report of ``record`` as one HTML document (a string)."""
    return _report(record, engine=engine, title=title, explain=explain, max_states=max_states)[0]


def _report(record: Record, *, engine=None, title: str | None = None, explain: bool = True,
            max_states: int = MAX_COUNT_STATES) -> tuple[str, Replay]:
    result = replay(record, engine=engine)
    steps = record_steps(record, result)
    data = [step_data(record, result, s, explain=explain, max_states=max_states) for s in steps]
    g = record.game
    setup = (f"{g.players} players, {g.sets} sets of {g.set_size} cards (hands of {g.hand_size}), "
             f"rules {record.rules.name}")
    doc = {
        "kind": "quaternity",
        "title": title or "Quaternity record",
        "setup": setup,
        "steps": data,
        "illegal": illegal_data(record, result),
        "moves": list(record.texts),
        "history": _history_svg([d["log10"] for d in data]),
    }
    return page(doc), result


def text_report(text: str, *, name: str = "<record>", title: str | None = None, rules: str | None = None,
                engine: str | None = None, explain: bool = True) -> tuple[str, bool]:
    """The game's report part: the page of the record or position ``text`` (plain text or JSON), and whether it
    is legal.

    ``rules`` replaces the record's rules (a preset, optionally with option=value pairs): a bad value raises
    :class:`~quaternity_cp.games.OptionError`; a file that cannot be read a
    :class:`~quaternity_cp.errors.FormatError` whose message starts with ``name``. ``title`` defaults to ``name``.
    """
    override = None
    if rules is not None:
        try:
            override = Rules.from_spec(rules_text(rules))
        except QuaternityError as err:
            raise OptionError("rules", str(err)) from None
    try:
        record = parse_record(text, rules=override)
    except FormatError as err:
        raise FormatError(f"{name}: {err}") from None
    html, result = _report(record, engine=engine, title=title or name, explain=explain)
    return html, result.valid


def _history_svg(values: Sequence[float | None]) -> str:
    """A small line chart of log10(consistent deals) per step; the page moves a marker along it."""
    w, h, pad = 320, 90, 22
    known = [v for v in values if v is not None]
    if len(values) < 2 or not known:
        return ""
    top = max(known + [1.0])
    n = len(values) - 1

    def xy(i: int, v: float) -> tuple[float, float]:
        return pad + (w - 2 * pad) * i / n, h - pad - (h - 2 * pad) * v / top

    points = " ".join(f"{x:.1f},{y:.1f}" for i, v in enumerate(values) if v is not None for x, y in [xy(i, v)])
    x_end = pad + (w - 2 * pad)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        f'class="history" data-steps="{n}">'
        f'<line x1="{pad}" y1="{h - pad}" x2="{x_end}" y2="{h - pad}" stroke="#999"/>'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#999"/>'
        f'<text x="{pad - 4}" y="{pad + 4}" font-size="10" text-anchor="end">{top:.0f}</text>'
        f'<text x="{pad - 4}" y="{h - pad + 4}" font-size="10" text-anchor="end">0</text>'
        f'<text x="{w / 2}" y="{h - 4}" font-size="10" text-anchor="middle">move</text>'
        f'<text x="4" y="12" font-size="10">log10 deals</text>'
        f'<polyline points="{points}" fill="none" stroke="#1565c0" stroke-width="2"/>'
        f'<line id="history-marker" x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#d84315" '
        f'stroke-width="2" data-left="{pad}" data-right="{x_end}"/>'
        "</svg>"
    )


__all__ = ["record_report", "text_report", "record_steps", "step_data", "illegal_data", "explanation_lines",
           "deals_text", "count_or_none", "Step"]
