"""The old name of Ctrl-C during a search: :mod:`quaternity_cp.command.interrupts`."""

from __future__ import annotations

from quaternity_cp.command.interrupts import STARTED_VARIABLE, Interrupts, signal_started

__all__ = ["STARTED_VARIABLE", "Interrupts", "signal_started"]
