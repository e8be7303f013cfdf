"""What every solver shares: its limits, their checks while it runs, and the shape of its result.

A search runs under :class:`Limits`: at most ``max_positions`` positions (what a
position counts is the solver's: the positions a Quaternity solve stores, the
nodes a Quarto search visits) and at most ``max_seconds`` seconds. A
:class:`Budget` is those limits on a running search: its clock starts when it
is made, and its checks raise :class:`Stopped` once a limit is reached. The
result is then unproven, and its ``status`` says why.

Every solver's result is a :class:`SearchResult`: ``status`` (:data:`STATUSES`),
``proven``, ``verdict`` (one word, ``unproven`` when a limit stopped the
search), ``positions``, ``seconds`` and ``stop_reason``.

This module imports nothing of the package: the Quarto solver uses it too.

>>> Limits(max_positions=0)
Traceback (most recent call last):
...
quaternity_cp.budget.LimitError: max_positions must be a whole number >= 1, not 0
>>> budget = Limits(max_positions=2).start()
>>> budget.check_positions(1)
>>> budget.check_positions(2)
Traceback (most recent call last):
...
quaternity_cp.budget.Stopped: limit
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from enum import StrEnum

from .errors import QuaternityError

class Status(StrEnum):
    """A result's ``status``: solved, or what stopped the search (``max_positions``, ``max_seconds``, Ctrl-C).
    Each is its word too (``Status.SOLVED == "solved"``, in JSON and in text)."""

    SOLVED = "solved"
    LIMIT = "limit"
    TIME = "time"
    INTERRUPTED = "interrupted"

    def __repr__(self) -> str:
        return repr(self.value)  # shown as the word it is, in reprs and messages as before


SOLVED, LIMIT, TIME, INTERRUPTED = Status.SOLVED, Status.LIMIT, Status.TIME, Status.INTERRUPTED
#: Every status, in the order above.
STATUSES = tuple(Status)


class LimitError(QuaternityError, ValueError):
    """A limit that is not one a solver takes (each solver raises it as its own error)."""


@dataclass(frozen=True)
class Limits:
    """The limits of one exact computation, the one limits object of the package; None: no limit.

    - ``max_positions``: the positions a search may store or visit (what a position counts is the
      solver's: the positions a Quaternity solve stores, the nodes a Quarto search visits);
    - ``max_seconds``: seconds from :meth:`start` (the clock: what a person waits for);
    - ``max_states``: the states a count's tables may hold at once (memory; the counters of
      :mod:`quaternity_cp.quartets.count`, the higher-order views, the Go Fish table counts);
    - ``max_work``: a count's big-integer multiply-adds (no clock: the same answer on every machine,
      what the agents use).

    Each computation reads the limits that apply to it and ignores the others. The counts name them
    :data:`quaternity_cp.quartets.count.CountLimits` (the same class). ``max_positions``, ``max_states`` and
    ``max_work`` are whole numbers >= 1, ``max_seconds`` a finite number > 0 (anything else raises
    :class:`LimitError`).
    """

    max_positions: int | None = None
    max_seconds: float | None = None
    max_states: int | None = None
    max_work: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_positions", "max_states", "max_work"):
            m = getattr(self, name)
            if m is not None and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
                raise LimitError(f"{name} must be a whole number >= 1, not {m!r}")
        s = self.max_seconds
        if s is not None and (isinstance(s, bool) or not isinstance(s, (int, float))
                              or not math.isfinite(s) or s <= 0):
            raise LimitError(f"max_seconds must be a finite number of seconds > 0, not {s!r}")

    @classmethod
    def given(cls, limits: Limits | None = None, max_positions: int | None = None,
              max_seconds: float | None = None) -> Limits:
        """``limits``, or the limits given as the keywords of a solver's ``solve`` (its older way); not both."""
        if limits is None:
            return cls(max_positions, max_seconds)
        if max_positions is not None or max_seconds is not None:
            raise LimitError("give the limits either as limits or as separate keywords, not both")
        if not isinstance(limits, Limits):
            raise LimitError(f"limits must be a Limits value, not {limits!r}")
        return limits

    def start(self) -> Budget:
        """These limits on a search starting now."""
        return Budget(self)


class Stopped(Exception):
    """A limit stopped the search: ``reason`` is ``"limit"`` (positions) or ``"time"``; the result is unproven."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = Status(reason)


class Budget:
    """:class:`Limits` on a running search: the clock started at ``start``; ``deadline`` (the same clock,
    :func:`time.perf_counter`) is None without a time limit."""

    __slots__ = ("limits", "max_positions", "start", "deadline")

    def __init__(self, limits: Limits | None = None):
        self.limits = limits if limits is not None else Limits()
        self.max_positions = self.limits.max_positions
        self.start = time.perf_counter()
        seconds = self.limits.max_seconds
        self.deadline = None if seconds is None else self.start + seconds

    def elapsed(self) -> float:
        """Seconds since the search started."""
        return time.perf_counter() - self.start

    def expired(self) -> bool:
        """Whether the time limit has passed."""
        return self.deadline is not None and time.perf_counter() > self.deadline

    def check_time(self) -> None:
        """Raise :class:`Stopped` (``time``) once the time limit has passed."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise Stopped(TIME)

    def wall_deadline(self) -> float | None:
        """The deadline as :func:`time.time` counts (seconds since the epoch), for work in other processes, whose
        :func:`time.perf_counter` is another clock: pass it to :func:`check_deadline`. None without a time
        limit."""
        return None if self.deadline is None else time.time() + (self.deadline - time.perf_counter())

    def check_positions(self, count: int) -> None:
        """Raise :class:`Stopped` (``limit``) when ``count`` positions already reach the limit (before
        one more is added: a search never holds more than ``max_positions``)."""
        if self.max_positions is not None and count >= self.max_positions:
            raise Stopped(LIMIT)


def check_deadline(deadline: float | None) -> None:
    """Raise :class:`Stopped` (``time``) once :func:`time.time` has passed ``deadline`` (a
    :meth:`Budget.wall_deadline`; None: no limit)."""
    if deadline is not None and time.time() > deadline:
        raise Stopped(TIME)


class SearchResult:
    """The part of a solver's result every solver has (each result class adds its own fields).

    A subclass has the attributes ``status`` (:data:`STATUSES`), ``positions`` and ``seconds``, and
    says in :meth:`outcome` what it proved.
    """

    status: Status
    positions: int
    seconds: float

    @property
    def proven(self) -> bool:
        """Whether the search finished (no limit stopped it)."""
        return self.status == SOLVED

    @property
    def stop_reason(self) -> str | None:
        """What stopped the search (``limit``, ``time``, ``interrupted``); None when it was proven."""
        return None if self.proven else self.status

    @property
    def verdict(self) -> str:
        """The result in one word: :meth:`outcome` when proven, else ``unproven``."""
        return self.outcome() if self.proven else "unproven"

    def outcome(self) -> str:
        """What the finished search proved, in one word."""
        raise NotImplementedError


__all__ = ["Status", "SOLVED", "LIMIT", "TIME", "INTERRUPTED", "STATUSES", "LimitError", "Limits", "Stopped", "Budget",
           "check_deadline", "SearchResult"]
