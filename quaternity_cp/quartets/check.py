"""The record checker of the game ``"quartets"``: what ``quaternity check`` accepts, as one call.

>>> check_record({"players": 2, "sets": 2, "set_size": 2, "moves": ["0>1:A0+"]})
>>> check_record({"players": 2, "sets": 2, "set_size": 2, "moves": ["0>1:A0-"]})
Traceback (most recent call last):
...
quaternity_cp.errors.QuaternityError: move 1 (0>1:A0-): ...
"""

from __future__ import annotations

from typing import Any

from ..errors import QuaternityError


def check_record(record: dict[str, Any]) -> None:
    """Raise a :class:`~quaternity_cp.errors.QuaternityError` (one line) unless ``record`` (JSON data) is a
    legal quartets record: readable, every move legal (and honest, with a deal), a consistent deal left,
    and a recorded tie-break only at the end of a game tied for first, naming one of the tied."""
    from .classic import tie_break_problem
    from .formats import record_from_json
    from .replay import replay

    parsed = record_from_json(record)
    result = replay(parsed, mark_forced=False, history=False)
    if result.error is not None and result.error_index is not None:
        i = result.error_index
        raise QuaternityError(f"move {i} ({parsed.texts[i - 1]}): {result.error}")
    if not result.valid:
        raise QuaternityError("no deal is consistent with the record")
    problem = tie_break_problem(result.position, parsed.tie_break)
    if problem:
        raise QuaternityError(problem)


__all__ = ["check_record"]
