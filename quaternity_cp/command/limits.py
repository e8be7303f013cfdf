"""The limits of a command's exact work: ``--max-seconds`` and ``--max-states``, the same options in every game.

A count or a search runs within ``--max-seconds`` (the clock of the whole command) and ``--max-states`` (the
states one count's tables may hold at once); past them a command refuses (exit code 2, one line: what is too
large and what to do instead) or shows what it did not compute, as it says in its help.
"""

from __future__ import annotations

import math
from typing import Any, Callable, TypeVar

import click

from .common import Seconds, Whole

F = TypeVar("F", bound=Callable[..., Any])  # a click command function

MAX_SECONDS = 10.0  # the default of --max-seconds
MAX_STATES = 3_000_000  # the default of --max-states (Quaternity's tables: at most about 0.9 GB)


def _seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"{value} is not a finite number of seconds > 0")
    return value


def seconds_option(what: str, default: float = MAX_SECONDS,
                   past: str = "are refused (exit 2)") -> Callable[[F], F]:
    """``--max-seconds``: the time ``what`` may take; past it they ``past``."""
    def decorate(func: F) -> F:
        return click.option("--max-seconds", "max_seconds", type=Seconds(min=0, min_open=True), default=default, show_default=True,
                            callback=_seconds, metavar="SECONDS",
                            help=f"The seconds {what} may take; beyond them they {past}.")(func)
    return decorate


def states_option(what: str = "Refuse (exit 2) a count", default: int = MAX_STATES,
                  state_bytes: int | None = None) -> Callable[[F], F]:
    """``--max-states``: the states one count's tables may hold (``what`` happens past it); ``state_bytes``,
    when given, is what one state takes at most (said in the help)."""
    size = f" (each takes up to about {state_bytes} bytes)" if state_bytes is not None else ""

    def decorate(func: F) -> F:
        return click.option("--max-states", "max_states", type=Whole(min=1), default=default,
                            show_default=True, metavar="N",
                            help=f"{what} whose tables would hold more states than this{size}.")(func)
    return decorate


__all__ = ["MAX_SECONDS", "MAX_STATES", "seconds_option", "states_option"]
