"""A runner of a checkpointed computation's tasks that stops it part way: shared by the tests of the partitioned
build's layers and of the partitioned attractor's rounds (a step stopped part way goes on from its unfinished
tasks)."""

from __future__ import annotations

from typing import Any, Callable


def stopping_runner(kind: str, step: int, after: int, log: list[tuple[str, int, int]],
                    where: Callable[[str, tuple[Any, ...]], tuple[int, int] | None],
                    exc: BaseException | None = None):
    """A runner that logs each task it runs as (kind, part, step), ``where`` giving a task's (part, step) from its
    kind and arguments (None: a task not logged), and raises ``exc`` (KeyboardInterrupt by default) before the
    ``kind`` task of ``step`` that would come after ``after`` such tasks have finished."""
    def run(tasks, done=None):
        out = []
        for i, (fn, args) in enumerate(tasks):
            name = fn.__name__.removesuffix("_task")
            at = where(name, args)
            if at is not None and (name, at[1]) == (kind, step) and \
                    sum(1 for x in log if (x[0], x[2]) == (kind, step)) == after:
                raise exc if exc is not None else KeyboardInterrupt
            out.append(fn(*args))
            if at is not None:
                log.append((name, at[0], at[1]))
            if done is not None:
                done(i, out[-1])
        return out
    return run
