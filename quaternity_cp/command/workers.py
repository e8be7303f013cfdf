"""The local Dask workers a partitioned solve may start (``--workers`` of every game's checkpointed solver): as many
as the cores and the memory hold, checked before any work."""

from __future__ import annotations

import os

from ..threads import memory_available
from .common import InputError, say


def check_workers(workers: int | None, cluster: str | None, *, worker_bytes: int, max_workers: int) -> int | None:
    """The local workers to start: ``workers`` (None: as many as the cores, :data:`max_workers` and the memory
    hold), checked against the memory available (each takes about ``worker_bytes``); with a ``cluster`` or
    ``workers == 0`` (in this process) given as is. More than the memory holds is refused (:class:`InputError`
    with the reason); more than the cores is noted on standard error."""
    if cluster is not None or workers == 0:
        return workers
    cores = os.cpu_count() or 1
    available = memory_available()
    fit = max_workers if available is None else int(available // worker_bytes)
    if workers is None:
        workers = min(cores, max_workers, fit)
        if workers < 1:
            assert available is not None  # (else fit is max_workers)
            raise InputError(f"--workers: the memory available ({available / 2**30:.1f} GB) does not hold one local "
                             f"worker (about {worker_bytes // 2**20} MB); use --workers 0 (in this process)")
        return workers
    if workers > fit:
        assert available is not None  # (else fit is max_workers, the option's own bound)
        raise InputError(f"--workers {workers}: {workers} local workers need about "
                         f"{workers * worker_bytes / 2**30:.1f} GB (about {worker_bytes // 2**20} MB each) and "
                         f"{available / 2**30:.1f} GB is available; give at most {fit}, or --workers 0")
    if workers > cores:
        say(f"quaternity: note: {workers} local workers on {cores} cores: no faster than {cores}, and each "
            "takes its own memory")
    return workers


__all__ = ["memory_available", "check_workers"]
