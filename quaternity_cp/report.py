"""Reports: the self-contained HTML page that steps through a record, and the count-history plot.

Each game prepares its steps (its registered ``report`` part, e.g.
:mod:`quaternity_cp.quartets.report`, :mod:`quaternity_cp.quarto.report`);
:func:`page` wraps them into one HTML document with its CSS and JavaScript
inline and no reference to the network, so it can be mailed or opened from
disk; the JavaScript only shows one step at a time (buttons, the move list,
the arrow keys). The document: ``kind`` (the game's own), ``title``,
``setup`` (one line), ``steps`` (per step: ``index``, ``move``, ``svg``,
``claims``, ``explanations``, optional ``text`` lines and deal counts),
``illegal`` (or None), ``moves`` and ``history`` (an SVG chart, or "").

>>> html = page({"kind": "demo", "title": "A <demo>", "setup": "nothing", "steps": [], "illegal": None,
...              "moves": []})
>>> html.startswith("<!DOCTYPE html>") and "<title>A &lt;demo&gt;</title>" in html
True
"""

from __future__ import annotations

import json
import math
from html import escape
from typing import Any, Sequence

from .errors import QuaternityError
from .files import atomic_path


def _json_script(data: Any) -> str:
    # no "<" at all inside the script element: "</script>" or "<!--" would change how HTML parses it
    return json.dumps(data).replace("<", "\\u003c")


class StepJSON(str):
    """One step of a report already written as JSON (:func:`step_json`): a report keeps each step as its text
    (a few kilobytes) as soon as it is made, instead of the step's objects, and :func:`page` copies it in."""


def step_json(step: dict[str, Any]) -> StepJSON:
    """A step of a report as the JSON text :func:`page` puts in the page (ASCII, no ``<``)."""
    return StepJSON(_json_script(step))


def _ascii(text: str) -> str:
    """HTML text in ASCII (other characters as character references): the page is then one byte a character in
    memory as on disk, whatever a title holds."""
    return text.encode("ascii", "xmlcharrefreplace").decode("ascii")


#: The moves a report shows by default (every game's ``max_moves``): a longer record is refused before anything is
#: replayed (every move is a step of the page: about 8 KB of page and 20 KB of memory to make it on the smallest
#: tables, more on larger ones, whose grid is larger; 100,000 moves made a page of gigabytes).
MAX_REPORT_MOVES = 2_000
#: The most ``quaternity report --max-moves`` takes: a page of 20,000 moves is about 160 MB on the smallest
#: table, more than a browser opens comfortably, and takes about 0.5 GB of memory to make.
REPORT_MOVES_LIMIT = 20_000


def check_report_moves(moves: int, max_moves: int | None, name: str = "the record") -> None:
    """Refuse (:class:`~quaternity_cp.registry.OptionError` of ``max_moves``) a record of ``moves`` moves, longer
    than a report of at most ``max_moves`` moves shows (None: no limit)."""
    from .registry import OptionError

    if max_moves is None:
        return
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 0:
        raise OptionError("max_moves", f"must be a whole number >= 0, not {max_moves!r}")
    if moves > max_moves:
        raise OptionError("max_moves", f"{name} has {moves:,} moves, more than a report shows (at most "
                                       f"{max_moves:,}: each move is a step of the page); raise --max-moves, or "
                                       "report a part of the record")


#: What the "Why" panel invites to click, unless the document says otherwise (``why_hint``).
WHY_HINT = "Click a green square or a claimed set in the grid to see only its explanation."


def page(doc: dict[str, Any]) -> str:
    """The report page of a document a game's report part prepared (see the module's docstring).

    Its steps may be dictionaries or :class:`StepJSON` texts. Optional keys: ``hint`` (a line under the move
    list: what there is to click), ``why_hint`` (what the "Why" panel invites to click; shown only when the
    steps carry explanations). The page's own text is ASCII (character references for the rest; its style
    and script are ASCII files), so it takes one byte a character in memory as on disk.
    """
    from importlib.resources import files

    assets = files("quaternity_cp") / "web" / "static"
    css = (assets / "report.css").read_text(encoding="utf-8")
    js = (assets / "report.js").read_text(encoding="utf-8")
    title = _ascii(escape(doc["title"]))
    hint = doc.get("hint")
    hint_html = f'\n  <p class="hint" id="hint">{_ascii(escape(hint))}</p>' if hint else ""
    steps = doc["steps"]
    head = {key: value for key, value in doc.items() if key != "steps"}
    head_json = _json_script(head)
    # the steps spliced into the document's JSON, each written once: {"steps": [...], ...the other keys}
    parts = [f"""<!DOCTYPE html>
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
  <p class="setup">{_ascii(escape(doc["setup"]))}</p>
</header>
<nav class="controls">
  <button id="first" title="Start (Home)">&laquo;</button>
  <button id="prev" title="Previous move (&larr;)">&#9664;</button>
  <span id="where" aria-live="polite"></span>
  <button id="next" title="Next move (&rarr;)">&#9654;</button>
  <button id="last" title="Last move (End)">&raquo;</button>
  <input id="slider" type="range" min="0" value="0" aria-label="move">
</nav>
<main>
  <section class="moves"><h2>Moves</h2><ol id="moves" start="0"></ol>{hint_html}</section>
  <section class="board"><div id="grid"></div></section>
  <section class="info">
    <div id="step-info"></div>
    <div id="history">{_ascii(doc.get("history", ""))}</div>
    <div id="illegal"></div>
    <h2 class="why-section">Why</h2>
    <p class="hint why-section">{_ascii(escape(doc.get("why_hint") or WHY_HINT))}</p>
    <div id="explanations" class="why-section"></div>
  </section>
</main>
<script type="application/json" id="report-data">{{"steps": ["""]
    for i, step in enumerate(steps):
        if i:
            parts.append(",")
        parts.append(step if isinstance(step, StepJSON) else _json_script(step))
    parts.append("]" + ("" if head_json == "{}" else ", " + head_json[1:-1]) + "}")
    parts.append(f"""</script>
<script>
{js}
</script>
</body>
</html>
""")
    return "".join(parts)


# -- count history plot (matplotlib) -----------------------------------------------------------
def plot_history(counts: Sequence[int], labels: Sequence[str], path: str, *, title: str | None = None) -> None:
    """Draw log10 of the consistent deals after every move into ``path`` (.png or .svg).

    Needs matplotlib (``pip install "quaternity-cp[plot]"``); raises
    :class:`QuaternityError` without it, for another file type or when ``path`` cannot be
    written. Written atomically (:func:`quaternity_cp.files.atomic_path`).
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
            with atomic_path(path) as tmp:
                fig.savefig(tmp, format=lower[-3:])
        except OSError as err:
            raise QuaternityError(f"{path}: cannot write ({err.strerror or err})") from None
    finally:
        plt.close(fig)


__all__ = ["page", "step_json", "StepJSON", "WHY_HINT", "MAX_REPORT_MOVES", "REPORT_MOVES_LIMIT", "check_report_moves",
           "plot_history"]
