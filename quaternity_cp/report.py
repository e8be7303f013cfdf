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


def page(doc: dict[str, Any]) -> str:
    """The report page of a document a game's report part prepared (see the module's docstring)."""
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


__all__ = ["page", "plot_history"]
