"""The report of the game ``"quartets"``: the steps of a record, for the page of :mod:`quaternity_cp.report`.

:func:`record_report` replays a record once and, for the start and after
every move, keeps the knowledge grid (:mod:`quaternity_cp.quartets.svg`), the number of
consistent deals (:mod:`quaternity_cp.quartets.count`), the claims, the explanation of every
forced card and quartet (:mod:`quaternity_cp.quartets.explain`) and the illegal move with its
explanation. :func:`text_report` is the game's registered ``report`` part (a record's
text in, the page out).

The page is bounded: at most ``max_moves`` moves (:data:`MAX_REPORT_MOVES`; a
longer record is refused with :class:`~quaternity_cp.registry.OptionError` before
anything is replayed: every move is a step of the page, with its grid, and the
page and the memory to make it grow with them), a step's count within ``max_states`` and
:data:`STEP_SECONDS` ("too many to count here" or "too long to count here"
beyond them), its explanations within :data:`STEP_SECONDS` (and at most
:data:`MAX_EXPLANATIONS`), and with ``max_seconds`` every count and explanation
of the page together within that time: once it is spent, the remaining steps
show their grid and claims with the count and explanations "not computed".
Nothing shown is ever a guess.

>>> from quaternity_cp.quartets.formats import parse_record
>>> html = record_report(parse_record("players: 2\\nsets: 2\\nset_size: 2\\n0>1:A0+"))
>>> html.startswith("<!DOCTYPE html>") and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from ..budget import Budget, Limits
from .count import STATES, TIME, CountLimitError, CountLimits, DealCounter
from ..errors import FormatError, QuaternityError
from .explain import AFTER, Explainer, Explanation, ExplanationError, ExplanationLimitError, move_information
from .formats import Record, parse_record, rules_text
from ..registry import OptionError
from .position import Position
from .replay import Replay, replay
from ..report import MAX_REPORT_MOVES as _MAX_REPORT_MOVES
from ..report import StepJSON, check_report_moves, page, step_json
from .rules import Rules
from .svg import grid_svg

if TYPE_CHECKING:
    from .constraints import Constraints
    from .engines import Engine

MAX_COUNT_STATES = 200_000  # larger counting tables: the step says "too many to count"
#: The moves a report shows by default (:data:`quaternity_cp.report.MAX_REPORT_MOVES`, every game's): a longer record
#: is refused before the replay
MAX_REPORT_MOVES = _MAX_REPORT_MOVES
MAX_EXPLANATIONS = 64  # forced facts explained per step (a huge table would take long)
STEP_SECONDS = 2.0  # the longest one step's count, and its explanations, may take
#: What a step says instead of its count: past the states, past the time, the page's time spent.
NOT_COUNTED = {STATES: "too many to count here", TIME: "too long to count here",
               None: "not counted (the page's time limit was spent)"}
NOT_EXPLAINED = {TIME: "Not explained here: the explanations take too long (the step's time limit).",
                 None: "Not explained here: the page's time limit was spent."}


# -- numbers ------------------------------------------------------------------------
def deals_text(n: int) -> str:
    """A deal count for people: exact up to 15 digits, else as a power of ten."""
    if n < 10**15:
        return f"{n:,}"
    lg = math.log10(n)
    mant = 10 ** (lg - math.floor(lg))
    return f"about {mant:.2f} × 10^{math.floor(lg)}"


def count_or_none(constraints: Constraints, max_states: int = MAX_COUNT_STATES,
                  max_seconds: float | None = STEP_SECONDS) -> int | None:
    """The number of consistent deals, or None when counting would pass ``max_states`` or ``max_seconds``."""
    found = _count(constraints, max_states, max_seconds)
    return None if isinstance(found, CountLimitError) else found


def _count(constraints: Constraints, max_states: int, max_seconds: float | None) -> int | CountLimitError:
    try:
        return DealCounter(constraints, limits=CountLimits(max_states=max_states, max_seconds=max_seconds)).count()
    except CountLimitError as err:
        return err


# -- one step of a record --------------------------------------------------------------
@dataclass
class Step:
    """The position after ``index`` moves of a record (0: the start)."""

    index: int
    move: str | None
    position: Position
    claims: tuple[tuple[int, int], ...]
    forced_answer: bool


def iter_steps(record: Record, result: Replay) -> Iterator[Step]:
    """The start and the position after every applied move, one at a time: each step's position is the one
    replay's own, valid until the next step is asked for (so a report holds one position, not one a move)."""
    position = record.position(result.position.engine)
    yield Step(0, None, position, (), False)
    for report in result.reports:
        position.push(record.moves[report.index - 1])
        yield Step(report.index, record.texts[report.index - 1], position, report.claims, report.forced)


def record_steps(record: Record, result: Replay) -> list[Step]:
    """The start and the position after every applied move (snapshots of one replay: a copy of the position
    a step, all kept; :func:`iter_steps` keeps one)."""
    return [Step(s.index, s.move, s.position.copy(), s.claims, s.forced_answer) for s in iter_steps(record, result)]


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
              max_states: int = MAX_COUNT_STATES, max_seconds: float | None = STEP_SECONDS,
              page: Budget | None = None) -> dict[str, Any]:
    """What the report shows for one step, as JSON-ready data.

    Its count within ``max_states`` and ``max_seconds``, its explanations within ``max_seconds``
    (None: no limit); ``page`` (the page's running :class:`~quaternity_cp.budget.Budget`) caps both:
    once it is spent, neither is computed.
    """
    g = record.game
    pos = step.position
    notes: list[str] = []
    deals: int | None = 0
    unknown = None  # why the count is not shown
    if pos.is_valid():
        limit = _seconds(max_seconds, page)
        found = _count(pos.constraints, max_states, limit) if limit != 0 else None
        if isinstance(found, int):
            deals = found
        else:
            deals = None
            # a time limit that was the page's, not the step's own: the page's time is spent
            if found is not None and not (found.reason == TIME and limit != max_seconds):
                unknown = found.reason
    explanations: list[dict[str, Any]] = []
    if explain and pos.is_valid():
        limit = _seconds(max_seconds, page)
        facts: list[Explanation] = []
        claimed: list[Explanation] = []
        if limit == 0:
            notes.append(NOT_EXPLAINED[None])
        else:
            prefix = _prefix(record, step.index)  # (copies of the record up to the step: only when explaining)
            partial = Replay(pos, list(result.reports[: step.index]))
            explainer = Explainer(prefix, partial, max_seconds=limit)
            try:
                facts = explainer.position()[:MAX_EXPLANATIONS]
                claimed = [explainer.claim(s) for s, _ in step.claims]
            except ExplanationLimitError:
                notes.append(NOT_EXPLAINED[TIME if limit == max_seconds else None])
            except (ExplanationError, QuaternityError):
                pass
            explanations = [_explanation_json(prefix, e) for e in claimed + facts]
    data = {
        "index": step.index,
        "move": step.move,
        "forced_answer": step.forced_answer,
        "claims": [f"{g.set_name(s)} for {g.seat_name(p)}" for s, p in step.claims],
        "deals": None if deals is None or deals.bit_length() > 14_000 else str(deals),  # exact (str() limit)
        "deals_text": NOT_COUNTED[unknown] if deals is None else deals_text(deals),
        "log10": None if not deals else round(math.log10(deals), 4),
        "svg": grid_svg(pos),
        "explanations": explanations,
        "scores": list(pos.scores),
        "turn": list(pos.turn),
        "over": pos.over,
    }
    if notes:
        data["text"] = notes
        data["explanations_note"] = notes[0]
    return data


def _seconds(seconds: float | None, page: Budget | None) -> float | None:
    """The time one more computation may take: ``seconds``, at most what is left of the ``page``'s time
    (0: nothing left; None: no limit)."""
    if page is None or page.limits.max_seconds is None:
        return seconds
    left = max(0.0, page.limits.max_seconds - page.elapsed())
    return left if seconds is None else min(seconds, left)


def illegal_data(record: Record, result: Replay, max_seconds: float | None = STEP_SECONDS) -> dict[str, Any] | None:
    """The first illegal move, its reason and (when the constraints decide it within ``max_seconds``;
    0: no time left) why."""
    if result.error is None or result.error_index is None:
        return None
    i = result.error_index
    lines: list[str] = []
    why = None
    if max_seconds != 0:
        try:
            why = Explainer(record, result, max_seconds=max_seconds).illegal()
        except ExplanationLimitError:
            lines = ["Not explained here: the explanation takes too long."]
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
def record_report(record: Record, *, engine: "str | Engine | None" = None, title: str | None = None,
                  explain: bool = True, max_states: int = MAX_COUNT_STATES, max_seconds: float | None = None,
                  max_moves: int | None = MAX_REPORT_MOVES) -> str:
    """The whole report of ``record`` as one HTML document (a string).

    Each step's count within ``max_states`` and :data:`STEP_SECONDS`, its explanations within
    :data:`STEP_SECONDS`; with ``max_seconds`` all of them together within that time (see the module's
    docstring). A record of more than ``max_moves`` moves (None: no limit) raises
    :class:`~quaternity_cp.registry.OptionError` (``max_moves``).
    """
    return _report(record, engine=engine, title=title, explain=explain, max_states=max_states,
                   max_seconds=max_seconds, max_moves=max_moves)[0]


def check_moves(record: Record, max_moves: int | None, name: str = "the record") -> None:
    """Refuse (:class:`~quaternity_cp.registry.OptionError` of ``max_moves``) a record longer than a report shows."""
    check_report_moves(len(record.moves), max_moves, name)


def _report(record: Record, *, engine: "str | Engine | None" = None, title: str | None = None, explain: bool = True,
            max_states: int = MAX_COUNT_STATES, max_seconds: float | None = None,
            max_moves: int | None = MAX_REPORT_MOVES, name: str = "the record") -> tuple[str, Replay]:
    check_moves(record, max_moves, name)  # before the replay: every step is kept
    page_time = Limits(max_seconds=max_seconds).start()
    result = replay(record, engine=engine)
    # each step written as JSON text as soon as it is made: one position alive at a time, and of each step only
    # its text in the page (a few kilobytes), never its objects
    data: list[StepJSON] = []
    logs: list[float | None] = []
    for s in iter_steps(record, result):
        step = step_data(record, result, s, explain=explain, max_states=max_states, page=page_time)
        logs.append(step["log10"])
        data.append(step_json(step))
    g = record.game
    setup = (f"{g.players} players, {g.sets} sets of {g.set_size} cards (hands of {g.hand_size}), "
             f"rules {record.rules.name}")
    doc = {
        "kind": "quaternity",
        "title": title or "Quaternity record",
        "setup": setup,
        "steps": data,
        "illegal": illegal_data(record, result, _seconds(STEP_SECONDS, page_time)),
        "moves": list(record.texts),
        "history": _history_svg(logs),
    }
    return page(doc), result


def text_report(text: str, *, name: str = "<record>", title: str | None = None, rules: str | None = None,
                engine: str | None = None, explain: bool = True, max_states: int = MAX_COUNT_STATES,
                max_seconds: float | None = None, max_moves: int | None = MAX_REPORT_MOVES) -> tuple[str, bool]:
    """The game's report part: the page of the record or position ``text`` (plain text or JSON), and whether it
    is legal.

    ``rules`` replaces the record's rules (a preset, optionally with option=value pairs): a bad value raises
    :class:`~quaternity_cp.registry.OptionError`; a file that cannot be read a
    :class:`~quaternity_cp.errors.FormatError` whose message starts with ``name``. ``title`` defaults to ``name``.
    ``max_states``, ``max_seconds``, ``max_moves``: as for :func:`record_report`.
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
    html, result = _report(record, engine=engine, title=title or name, explain=explain, max_states=max_states,
                           max_seconds=max_seconds, max_moves=max_moves, name=name)
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


__all__ = ["MAX_REPORT_MOVES", "check_moves", "record_report", "text_report", "record_steps", "iter_steps", "step_data",
           "illegal_data", "explanation_lines", "deals_text", "count_or_none", "Step"]
