"""The ``quaternity`` command's entry point.

Its imports (click, rich, the library) take a tenth of a second or more; a Ctrl-C
then would print a traceback from deep inside an import and leave Python to kill
itself by the signal (exit -2). Here a Ctrl-C during the imports ends the command
at once, in one line, with exit code 130; once they are done the usual handling
(KeyboardInterrupt, caught by each command) takes over.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any


def _leave(signum: int, frame: Any) -> None:
    os.write(2, b"quaternity: interrupted\n")
    os._exit(130)  # nothing is open or half-written yet: only imports ran


def main() -> None:
    """Run the command, Ctrl-C during start-up leaving with 130."""
    # not when Ctrl-C is ignored (a job started in the background by a shell): it stays ignored
    watching = (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if watching:
        previous = signal.signal(signal.SIGINT, _leave)
    # numpy starts its BLAS threads as it is imported: with Ctrl-C blocked meanwhile, they block it for good, so
    # that a Ctrl-C this process holds (while Dask's local workers start, see quaternity_cp.cluster) is never
    # taken and dropped by one of them; a Ctrl-C during the import arrives right after it
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    try:
        import numpy  # noqa: F401
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    from .main import main as run

    if watching:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    run()
