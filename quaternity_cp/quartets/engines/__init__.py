"""Engines: interchangeable exact deciders behind one interface (see :mod:`.base`)."""

from __future__ import annotations

from collections.abc import Callable

from .base import Analysis, Engine
from .brute import BruteForceEngine
from .cpsat import CpSatEngine
from .flow import FlowEngine
from .matching import matching_feasible
from .sets import SetsEngine

ENGINES: dict[str, Callable[[], Engine]] = {
    "cpsat": CpSatEngine, "flow": FlowEngine, "sets": SetsEngine, "brute": BruteForceEngine}
DEFAULT_ENGINE = "flow"


def get_engine(name: "str | Engine | None" = None) -> Engine:
    """An engine by name (``cpsat``, ``flow``, ``sets``, ``brute``), or the engine passed in.

    The default is ``flow``: exact, cross-checked against CP-SAT and brute force in
    the tests, and two orders of magnitude faster.
    """
    if name is None:
        name = DEFAULT_ENGINE
    if not isinstance(name, str):
        return name
    try:
        return ENGINES[name]()
    except KeyError:
        from ...errors import QuaternityError

        raise QuaternityError(f"unknown engine {name!r} (known: {', '.join(ENGINES)})") from None


__all__ = [
    "Analysis", "Engine", "BruteForceEngine", "CpSatEngine", "FlowEngine", "SetsEngine", "matching_feasible", "get_engine",
    "ENGINES",
]
