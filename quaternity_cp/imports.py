"""Slow imports of compiled libraries, safe from Ctrl-C.

A KeyboardInterrupt raised while a compiled extension initialises (OR-Tools' pybind11
modules, for one) can leave it unusable for the rest of the process: the next import
fails with ``ImportError: initialization failed``, or the interpreter hangs in a half-built
module. :func:`import_holding_ctrl_c` imports a module with Ctrl-C held back until the
import is over, then hands the Ctrl-C to the handler that was in place (by default a
KeyboardInterrupt, raised where the import was asked for).
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
import threading
from types import ModuleType
from typing import Any, Iterator


@contextlib.contextmanager
def holding_ctrl_c() -> Iterator[None]:
    """SIGINT held back for the time of the block (main thread only: elsewhere a signal never arrives); a Ctrl-C
    that came meanwhile is passed on to the previous handler afterwards (by default a KeyboardInterrupt raised
    where the block ends). For a compiled library's import, and for a file that must not be left half-built
    (a part file's zip writer interrupted in its constructor complains at garbage collection)."""
    with holding_signals(signal.SIGINT):
        yield


#: the signals a stop of a resumable solve comes by (Ctrl-C, and a batch system's end of a job)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def holding_signals(*signals: signal.Signals) -> Iterator[None]:
    """:func:`holding_ctrl_c` for each of ``signals``: held back for the time of the block, then each one that
    came passed on, in the order they came, to the handler that was in place (a handler that is not a Python
    function -- the system's default -- gets it raised again once it is back; one that ignores it, nothing).
    For a step that changes several arrays together (a stop between two of them would leave a state that is
    no solve's)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, Any]] = []

    def hold(signum: int, frame: Any) -> None:
        held.append((signum, frame))

    previous = {sig: signal.signal(sig, hold) for sig in signals}
    try:
        yield
    finally:
        # a handler installed outside Python reads as None: the default one takes its place
        for sig, old in previous.items():
            signal.signal(sig, old if old is not None else (signal.default_int_handler if sig == signal.SIGINT
                                                            else signal.SIG_DFL))
    for signum, frame in held:
        old = previous[signal.Signals(signum)]
        if old is None and signum == signal.SIGINT:
            old = signal.default_int_handler
        if callable(old):
            old(signum, frame)
        elif old == signal.SIG_DFL:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            signal.raise_signal(signum)


def import_holding_ctrl_c(name: str) -> ModuleType:
    """The module ``name``, imported with SIGINT held back while it loads (:func:`holding_ctrl_c`)."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    with holding_ctrl_c():
        module = importlib.import_module(name)
    return module


def cp_model() -> Any:
    """OR-Tools' ``ortools.sat.python.cp_model`` (about half a second to import the first time), Ctrl-C held
    back while it loads."""
    return import_holding_ctrl_c("ortools.sat.python.cp_model")
