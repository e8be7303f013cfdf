"""The old name of the limits' options of every command: :mod:`quaternity_cp.command.limits`."""

from __future__ import annotations

from quaternity_cp.command.limits import MAX_SECONDS, MAX_STATES, seconds_option, states_option

__all__ = ["MAX_SECONDS", "MAX_STATES", "seconds_option", "states_option"]
