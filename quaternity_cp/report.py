"""Reports: one self-contained HTML page stepping through a record, and the count-history plot.

:func:`record_report` replays a record once and, for the start and after
every move, keeps the knowledge grid (:mod:`quaternity_cp.svg`), the number of
consistent deals (:mod:`quaternity_cp.count`, or "too many to count" beyond a
table size), the claims, the explanation of every forced card and quartet
(:mod:`quaternity_cp.explain`) and the illegal move with its explanation. The
page holds all of it, with its CSS and JavaScript inline and no reference to
the network, so it can be mailed or opened from disk; the JavaScript only
shows one step at a time (buttons, the move list, the arrow keys).

>>> from quaternity_cp.formats import parse_record
>>> html = record_report(parse_record("players: 2\\nsets: 2\\nset_size: 2\\n0>1:A0+"))
>>> html.startswith("<!DOCTYPE html>") and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
True
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from html import escape
from typing import Any, Sequence

from .count import CountLimitError, DealCounter
from .errors import QuaternityError
from .explain import AFTER, Explainer, Explanation, ExplanationError, move_information
from .formats import Record
from .position import Position
from .replay import Replay, replay
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


def _lines(record: Record, e: Explanation) -> list[str]:
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
        "lines": _lines(record, e),
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
    if result.error is None:
        return None
    i = result.error_index
    lines: list[str] = []
    try:
        why = Explainer(record, result).illegal()
    except (ExplanationError, QuaternityError):
        why = None
    if why is not None:
        lines = _lines(record, why)
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
    return page(doc)


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


def _json_script(data: Any) -> str:
    # no "<" at all inside the script element: "</script>" or "<!--" would change how HTML parses it
    return json.dumps(data).replace("<", "\\u003c")


def page(doc: dict[str, Any]) -> str:
    """The report page for a prepared document (Quaternity or Quarto steps)."""
    from importlib.resources import files

    assets = files("quaternity_cp") / "web" / "static"
    css = (assets / "report.css").read_text(encoding="utf-8")
    js = (assets / "report.js").read_text(encoding="utf-8")
    title = escape(doc["title"])
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
<header>
  <h1>{title}</h1>
  <p class="setup">{escape(doc["setup"])}</p>
</header>
<nav class="controls">
  <button id="first" title="Start (Home)">«</button>
  <button id="prev" title="Previous move (←)">◀</button>
  <span id="where" aria-live="polite"></span>
  <button id="next" title="Next move (→)">▶</button>
  <button id="last" title="Last move (End)">»</button>
  <input id="slider" type="range" min="0" value="0" aria-label="move">
</nav>
<main>
  <section class="moves"><h2>Moves</h2><ol id="moves" start="0"></ol></section>
  <section class="board"><div id="grid"></div></section>
  <section class="info">
    <div id="step-info"></div>
    <div id="history">{doc.get("history", "")}</div>
    <div id="illegal"></div>
    <h2 class="why-section">Why</h2>
    <p class="hint why-section">Click a green square or a claimed set in the grid to see only its explanation.</p>
    <div id="explanations" class="why-section"></div>
  </section>
</main>
<script type="application/json" id="report-data">{_json_script(doc)}</script>
<script>
{js}
</script>
</body>
</html>
"""


# -- Quarto ---------------------------------------------------------------------------------------
def quarto_report(text: str, *, title: str | None = None) -> tuple[str, bool]:
    """The report of a Quarto record or position file (the board after each move) and whether it is valid."""
    from .quarto import formats as qf
    from .svg import quarto_status, quarto_svg

    item = qf.parse(text)
    result = qf.check(item)
    steps: list[dict[str, Any]] = []
    if isinstance(item, qf.QuartoRecord):
        pos = item.start()
        texts = item.texts or [str(m) for m in item.moves]
        steps.append(_quarto_step(0, None, pos, quarto_svg, quarto_status))
        for i, move in enumerate(item.moves[: result.moves_applied], 1):
            pos.push(move)
            steps.append(_quarto_step(i, texts[i - 1], pos, quarto_svg, quarto_status))
        moves = list(texts)
        rules = "squares also win" if item.squares else "lines win"
    else:
        steps.append(_quarto_step(0, None, result.position, quarto_svg, quarto_status))
        moves = []
        rules = "squares also win" if item.squares else "lines win"
    illegal = None
    if not result.valid:
        index = result.moves_applied + 1 if result.error is not None else 0
        illegal = {"index": index, "move": result.error_move or "(position)",
                   "kind": "illegal move" if result.error is not None else "unreachable position",
                   "message": result.message, "lines": [], "loser": None}
    doc = {
        "kind": "quarto",
        "title": title or "Quarto record",
        "setup": f"Quarto, {rules}; player 0 gives the first piece",
        "steps": steps,
        "illegal": illegal,
        "moves": moves,
        "history": "",
    }
    return page(doc), result.valid


def _quarto_step(index: int, move: str | None, pos, draw, status) -> dict[str, Any]:
    lines = [status(pos)]
    if pos.winning_lines:
        lines.append("Winning line" + ("s" if len(pos.winning_lines) > 1 else "") + ": "
                     + "; ".join(" ".join(str(c) for c in line) for line in pos.winning_lines))
    lines.append(f"{len(pos.available_pieces())} pieces left, {len(pos.empty_cells())} empty cells")
    return {"index": index, "move": move, "forced_answer": False, "claims": [], "svg": draw(pos),
            "explanations": [], "text": lines, "over": pos.over}


def is_quarto_text(text: str) -> bool:
    """Whether file contents are a Quarto file (JSON with ``"game": "quarto"``)."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith("{"):
        return False
    try:
        data = json.loads(stripped)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("game") == "quarto"


# -- count history plot (matplotlib) -----------------------------------------------------------
def plot_history(counts: Sequence[int], labels: Sequence[str], path: str, *, title: str | None = None) -> None:
    """Draw log10 of the consistent deals after every move into ``path`` (.png or .svg).

    Needs matplotlib (``pip install "quaternity-cp[plot]"``); raises
    :class:`QuaternityError` without it or for another file type.
    """
    lower = path.lower()
    if not (lower.endswith(".png") or lower.endswith(".svg")):
        raise QuaternityError(f"{path}: the plot is written as .png or .svg")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise QuaternityError("--plot needs matplotlib: pip install \"quaternity-cp[plot]\"") from None
    xs = list(range(len(counts)))
    ys = [math.log10(n) if n else float("nan") for n in counts]
    fig, ax = plt.subplots(figsize=(max(5.0, min(14.0, 0.25 * len(counts) + 3)), 3.6), dpi=100)
    try:
        ax.plot(xs, ys, marker="o", markersize=3, color="#1565c0")
        ax.set_xlabel("moves played")
        ax.set_ylabel("log10(consistent deals)")
        ax.set_title(title or "Consistent deals after every move")
        ax.grid(alpha=0.3)
        if len(labels) <= 40:
            ax.set_xticks(xs)
            ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylim(bottom=0)
        fig.tight_layout()
        try:
            fig.savefig(path)
        except OSError as err:
            raise QuaternityError(f"{path}: cannot write ({err.strerror})") from None
    finally:
        plt.close(fig)


__all__ = ["record_report", "quarto_report", "is_quarto_text", "record_steps", "step_data", "illegal_data", "page", "plot_history", "deals_text",
           "count_or_none"]
