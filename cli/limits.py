"""The limits of the exact work of ``count``, ``analyze``, ``explain`` and ``report``: their options and refusals.

Every count runs within ``--max-seconds`` (the clock of the whole command) and
``--max-states`` (the states one count's tables may hold at once, each up to about
:data:`quaternity_cp.quartets.count.STATE_BYTES` bytes: the default keeps a count under
1 GB); explanations within ``--max-seconds``. A refusal is exit code 2 and one
line: what is too large, and what to do instead.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click

from quaternity_cp.quartets.count import STATE_BYTES, CountLimitError

from .common import InputError, Seconds, Whole

if TYPE_CHECKING:  # the explainer is imported where it is used
    from quaternity_cp.quartets.explain import ExplanationLimitError

F = TypeVar("F", bound=Callable[..., Any])  # a click command function

MAX_SECONDS = 10.0  # the default of --max-seconds
MAX_STATES = 3_000_000  # the default of --max-states: at most about 0.9 GB of tables


def _seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"{value} is not a finite number of seconds > 0")
    return value


def seconds_option(what: str, default: float = MAX_SECONDS,
                   past: str = "are refused (exit 2)") -> Callable[[F], F]:
    """``--max-seconds``: the time ``what`` may take; past it they ``past``."""
    def decorate(func: F) -> F:
        return click.option("--max-seconds", "max_seconds", type=Seconds(), default=default, show_default=True,
                            callback=_seconds, metavar="SECONDS",
                            help=f"The seconds {what} may take; beyond them they {past}.")(func)
    return decorate


def states_option(what: str = "Refuse (exit 2) a count", default: int = MAX_STATES) -> Callable[[F], F]:
    """``--max-states``: the states one count's tables may hold (``what`` happens past it)."""
    def decorate(func: F) -> F:
        return click.option("--max-states", "max_states", type=Whole(min=1), default=default,
                            show_default=True, metavar="N",
                            help=f"{what} whose tables would hold more states than this "
                                 f"(each takes up to about {STATE_BYTES} bytes).")(func)
    return decorate


#: What to count instead of a position too large for the limits.
SMALLER = "count a later position of the game or one player's view (--as SEAT)"


def count_refused(name: str, err: CountLimitError, where: str = "", instead: str = SMALLER) -> InputError:
    """The one-line refusal of a count past its limits (``where``: e.g. " after move 8 (0>1:A0-)")."""
    option = "--max-seconds" if err.reason == "time" else "--max-states"
    return InputError(f"{name}: too large to count exactly{where}: {err} ({option}); {instead}, or raise {option}")


def explain_refused(name: str, err: ExplanationLimitError, instead: str) -> InputError:
    """The one-line refusal of explanations past ``--max-seconds``; ``instead``: what to ask for instead."""
    return InputError(f"{name}: too long to explain: {err} (--max-seconds); {instead}, or raise --max-seconds")


__all__ = ["MAX_SECONDS", "MAX_STATES", "seconds_option", "states_option", "count_refused", "explain_refused"]
