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
    from .main import main as run

    if watching:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    run()
