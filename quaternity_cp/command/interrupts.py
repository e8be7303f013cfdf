"""Ctrl-C during a search: the first stops the search, the later ones wait for the verdict to be printed.

By default every Ctrl-C raises KeyboardInterrupt wherever the program is: a
second one, pressed while a solver unwinds its search (freeing millions of
positions takes seconds) or while the command prints what it found, would throw
the verdict away. Inside ``with Interrupts() as ctrl_c`` (in the main thread), a
Ctrl-C raises KeyboardInterrupt only until :meth:`Interrupts.run` has run the
search, and only the first time; every Ctrl-C is counted, so that the command
can print its result, then leave with exit code 130 when ``ctrl_c.interrupted``.
Leaving the block after a Ctrl-C, later ones are ignored: the command is on its
way out, and one that came while Python shuts down would kill it without its
exit code.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, Callable, TypeVar, cast

T = TypeVar("T")
_MISSING: Any = object()
#: for the tests: when this environment variable is set, :func:`signal_started` prints one line on standard
#: error (the event a test waits for before it sends SIGINT, instead of a guessed sleep)
STARTED_VARIABLE = "QUATERNITY_TEST_SIGNAL_STARTED"


def signal_started(what: str = "search") -> None:
    """Print ``quaternity: <what> started`` on standard error when :data:`STARTED_VARIABLE` is set."""
    if os.environ.get(STARTED_VARIABLE):
        print(f"quaternity: {what} started", file=sys.stderr, flush=True)


class Interrupts:
    """Counts Ctrl-C (SIGINT) while it is entered; raises KeyboardInterrupt for the first, until :meth:`run`
    returns."""

    def __init__(self) -> None:
        self.count = 0
        self.armed = True
        self._previous: Any = _MISSING

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not _MISSING:
            if self.count:
                handler: Any = signal.SIG_IGN  # on the way out (see above)
            else:  # a handler installed outside Python reads as None: the default one takes its place
                handler = self._previous if self._previous is not None else signal.default_int_handler
            signal.signal(signal.SIGINT, handler)
            self._previous = _MISSING

    def _handle(self, signum: int, frame: object) -> None:
        self.count += 1
        if self.armed:
            self.armed = False
            raise KeyboardInterrupt

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C came (once or more)."""
        return self.count > 0

    def run(self, search: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``search(*args, **kwargs)``, which stops on KeyboardInterrupt and returns what it knows: the first
        Ctrl-C raises it there; one that comes once the search has returned is only counted. A
        KeyboardInterrupt that leaves the search (nothing is known) goes on."""
        result = _MISSING
        try:
            result = search(*args, **kwargs)
        except KeyboardInterrupt:
            if result is _MISSING:
                raise
        finally:
            self.armed = False
        return cast(T, result)


__all__ = ["STARTED_VARIABLE", "signal_started", "Interrupts"]
