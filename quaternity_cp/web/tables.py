"""The tables a web server keeps: computation in a bounded worker pool, one job per table at a time, agents
played one move at a time, every change announced, idle tables closed.

* :class:`Workers`: a fixed number of daemon threads. Every computation
  (making a game, views, moves, agents, explanations, the solver) runs there,
  never on the event loop, so a long one delays only its own table.
* :class:`Table`: one game (:class:`~quaternity_cp.web.session.WebGame`) with
  its lock (an :class:`asyncio.Lock` taken on the event loop before a job is
  queued and released when the job ends: it is never held while a request is
  read or an answer written), its ``version`` (+1 per move or undo), the agent
  to move, and the views of its human seats computed after every change (so a
  page that asks for the view after an event gets it at once, even while the
  next agent thinks).
* :class:`Tables`: the tables by id (unguessable, ``secrets``), each kept in
  the table database (:mod:`.store`) as it is made and after every move or
  undo, in the worker that made the change and before the request is answered
  (a write that fails refuses the change: :class:`~.store.StoreUnavailable`,
  and the table is loaded again as stored). In memory: at most ``max_tables``
  (a new or newly loaded table puts the longest-idle one away), each put away
  after ``idle_seconds`` without a request, and every table when the server
  stops; a table put away stays in the database and its next request loads it
  again (its pages' event streams end, and the browsers reconnect by
  themselves). Every request waits at most ``request_seconds``
  (:class:`TableBusy`). Putting a table away cancels its pending work: a job
  not started never runs, an agent's move being computed stops at once
  (:meth:`WebGame.cancel`) and is not played, so it frees its worker.

Nothing here knows a game: the table's game is the session's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, Callable

from .session import WATCH, WebError, WebGame
from .store import Store, Stored, StoreUnavailable

log = logging.getLogger("quaternity_cp.web")

#: What a player is told when an agent's move fails for a reason that is not theirs (the details go to the log).
SERVER_FAULT = "something went wrong on the server"


class TableBusy(Exception):
    """A request that did not get its answer within the server's time budget (HTTP 503)."""


class NoTable(LookupError):
    """An id that names no open table: never known (404) or closed, saying why (410)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class Workers:
    """A fixed number of daemon threads running jobs in turn.

    A job cancelled before it starts never runs; a job still running never
    delays the process's exit (the library's own budgets end it).
    """

    def __init__(self, count: int):
        self.count = max(1, count)
        self.jobs: "queue.SimpleQueue[tuple[concurrent.futures.Future[Any], Callable[[], Any]] | None]" = \
            queue.SimpleQueue()
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        """Queue ``fn``; its future."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self.lock:
            if len(self.threads) < self.count:
                thread = threading.Thread(target=self._work, name=f"quaternity-web-{len(self.threads)}", daemon=True)
                self.threads.append(thread)
                thread.start()
        self.jobs.put((future, fn))
        return future

    def _work(self) -> None:
        while True:
            item = self.jobs.get()
            if item is None:
                return
            future, fn = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn()
            except BaseException as err:  # handed to the waiting request, which answers it
                future.set_exception(err)
            else:
                future.set_result(result)

    def stop(self) -> None:
        """Let every thread end after its current job."""
        with self.lock:
            for _ in self.threads:
                self.jobs.put(None)
            self.threads = []


def snapshot(game: WebGame) -> tuple[int, int | None, bool]:
    """(version, the agent to move or None, whether the game is over): read under the table's lock."""
    return game.version, game.agent_to_move(), game.state.is_terminal()


class Table:
    """One open table: the game, its lock, what the event streams report, the latest views of its seats."""

    def __init__(self, key: str, game: WebGame, state: tuple[int, int | None, bool],
                 views: dict[tuple[int, bool], tuple[int, dict[str, Any]]]):
        self.key = key
        self.game = game
        self.lock = asyncio.Lock()
        self.touched = time.monotonic()
        self.closed: str | None = None  # why, once closed (or put away: see ``evicted``)
        self.evicted = False  # put away from memory, kept in the database: the next request loads it again
        self.saved = game.moves()  # the moves as stored
        self.unsaved: str | None = None  # why the last change could not be stored (the table is then put away)
        self.version, self.to_play, self.over = state
        self.error: str | None = None  # why the agents stopped, until the next human move
        self.runner: asyncio.Task[None] | None = None  # plays the agents, one move per job
        self.changed = asyncio.Event()  # set (and replaced) on every change
        # (seat, probabilities) -> (version, view)
        self.views: dict[tuple[int, bool], tuple[int, dict[str, Any]]] = views
        self.probabilities: dict[int, bool] = {}  # what each seat asked for last
        self.pending: tuple[int, int | None, bool] | None = None  # the last job's snapshot, until applied
        self.streams = 0
        self.watching = 0  # event streams opened through the watch link

    @property
    def thinking(self) -> int | None:
        """The agent seat being played now, or None."""
        return self.to_play if self.runner is not None else None

    def status(self) -> dict[str, Any]:
        """What an event stream sends: ``version``, ``thinking``, ``over`` and, when the agents stopped on a
        failure, ``agent_error`` (why)."""
        out: dict[str, Any] = {"version": self.version, "thinking": self.thinking, "over": self.over}
        if self.game.next is not None:
            out["next"] = self.game.next  # "play again" opened this table: every page offers to follow
        if self.error is not None:
            out["agent_error"] = self.error
        return out

    def notify(self) -> None:
        """Wake every event stream and waiter."""
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    # -- in a worker, under the lock ---------------------------------------------------
    def render(self, seat: int, probabilities: bool) -> dict[str, Any]:
        """The view of ``seat`` (the game's, plus the table's id and, for the first human seat, the join links)."""
        return render(self.game, self.key, seat, probabilities)

    def refresh(self) -> None:
        """Compute the view of every human seat (as each asked for it last) for the game's current version."""
        for seat in self.game.humans:
            probabilities = self.probabilities.get(seat, False)
            self.views[seat, probabilities] = (self.game.version, self.render(seat, probabilities))

    def current(self, seat: int, probabilities: bool) -> dict[str, Any]:
        """The view of ``seat`` at the game's current version: the one :meth:`refresh` made, else made now (and
        kept). Never an older version's: :meth:`refresh` makes each seat's view as that seat asked for it last,
        and another request of the same seat may have changed that since this one began."""
        entry = self.views.get((seat, probabilities))
        if entry is None or entry[0] != self.game.version:
            entry = self.views[seat, probabilities] = (self.game.version, self.render(seat, probabilities))
        return entry[1]

    def cached(self, seat: int, probabilities: bool) -> dict[str, Any] | None:
        """The view of ``seat`` at the current version if already computed, else None."""
        entry = self.views.get((seat, probabilities))
        return entry[1] if entry is not None and entry[0] == self.version else None


def render(game: WebGame, key: str, seat: int, probabilities: bool) -> dict[str, Any]:
    """The view of ``seat`` at the table ``key`` (the join links in the view of the first human seat)."""
    data = game.view(seat, probabilities=probabilities)
    data["id"] = key
    if game.next is not None and seat in game.next_tokens:
        data["next"] = {"id": game.next, "link": f"/t/{game.next}/{game.next_tokens[seat]}"}
    if seat == game.humans[0]:
        data["links"] = {str(s): f"/t/{key}/{token}" for s, token in sorted(game.tokens.items()) if s != WATCH}
        if WATCH in game.tokens:  # a read-only page for spectators: what the whole table knows, no hand
            data["links"]["watch"] = f"/t/{key}/{game.tokens[WATCH]}"
    return data


def duration(seconds: float) -> str:
    """Seconds in words: ``"2 hours"``, ``"90 minutes"``, ``"0.3 seconds"``.

    >>> duration(7200), duration(5400), duration(60), duration(0.3)
    ('2 hours', '90 minutes', '1 minute', '0.3 seconds')
    """
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = int(seconds // size)
            return f"{n} {unit}" + ("s" if n != 1 else "")
    return f"{seconds:g} second" + ("s" if seconds != 1 else "")


class Tables:
    """The open tables of one server, their worker pool and their limits (see the module's docstring)."""

    def __init__(self, *, workers: int = 4, max_tables: int = 64, idle_seconds: float = 7200.0,
                 request_seconds: float = 60.0, store: Store | None = None, agent_seconds: float | None = None):
        self.pool = Workers(workers)
        self.store = store if store is not None else Store(":memory:")
        self.agent_seconds = agent_seconds  # of the tables loaded from the store
        self.load_lock = asyncio.Lock()  # one table loaded at a time (after a restart, as their pages come back)
        self.max_tables = max_tables
        self.idle_seconds = idle_seconds
        self.request_seconds = request_seconds
        self.open: dict[str, Table] = {}
        self.gone: "OrderedDict[str, str]" = OrderedDict()  # ids of closed tables -> why (the latest few)
        self.remember = max(1000, 4 * max_tables)
        self.background: set[asyncio.Task[None]] = set()  # tasks that free closed tables

    # -- finding, adding, closing --------------------------------------------------------
    async def get(self, key: str) -> Table:
        """The table ``key``, loaded from the database when it is not in memory, marked as touched now;
        :class:`NoTable` if there is none."""
        self.sweep()
        table = self.open.get(key)
        if table is None:
            if key in self.gone:
                raise NoTable(self.gone[key], 410)
            table = await self.load(key)
        table.touched = time.monotonic()
        return table

    async def load(self, key: str) -> Table:
        """The stored table ``key`` made again in a worker (its moves replayed) and put in memory."""
        async with self.load_lock:
            table = self.open.get(key)
            if table is not None:
                return table
            made = await self.compute(lambda: self._make(key), "opening the table took too long: try again")
            if made is None:
                raise NoTable("no such table (a mistyped link?): start a new game", 404)
            game, state, views = made
            return self.add(game, key, state, views)

    def _make(self, key: str) -> tuple[WebGame, tuple[int, int | None, bool], dict[Any, Any]] | None:
        """(in a worker) The stored table ``key``: its game replayed to where it was, or None."""
        stored = self.store.load(key)
        if stored is None:
            return None
        try:
            game = replayed(stored, self.agent_seconds)
        except WebError as err:
            log.error("table %s cannot be loaded: %s", key, err)
            raise NoTable(f"this table cannot be opened by this version of the server ({err})", 410) from None
        game.set_tokens({seat: self.store.token(key, seat) for seat in (*stored.humans, WATCH)}, stored.token_hashes)
        if stored.next_id is not None:
            game.next = stored.next_id
            game.next_tokens = {seat: self.store.token(stored.next_id, seat) for seat in (*stored.humans, WATCH)}
        views = {(seat, False): (game.version, render(game, key, seat, False)) for seat in game.humans}
        return game, snapshot(game), views

    def keep(self, game: WebGame, key: str) -> None:
        """(in a worker) A new table's seat tokens (derived from the server's key) and its row in the database."""
        game.set_tokens({seat: self.store.token(key, seat) for seat in (*game.humans, WATCH)})
        now = time.time()
        self.store.create(Stored(key, game.game, game.options, game.humans, dict(game.agent_names), game.seed,
                                 game.token_hashes, now, now, game.state.is_terminal(), version=game.version,
                                 moves=game.moves(), agent_to_move=game.agent_to_move() is not None))

    async def again(self, table: Table) -> Table:
        """"Play again" at the finished ``table``: a new table of the same game and options, the same people in
        the same seats and the same agents (a new deal), announced to every page of the old one (its status
        and views name it; each seat's view carries its own link). Asked again, the same new table."""

        def job() -> tuple[WebGame, tuple[int, int | None, bool], dict[Any, Any]] | None:
            old = table.game
            if not old.state.is_terminal():
                raise WebError("the game is not over yet: finish it (or start a new table)")
            if old.next is not None:
                return None
            agents = {str(seat): name for seat, name in old.agent_names.items()}
            game = WebGame.new(old.game, old.options, humans=list(old.humans), agents=agents, advance=False,
                               agent_seconds=self.agent_seconds)
            key = new_key()
            self.keep(game, key)
            self.store.set_next(table.key, key)
            old.next, old.next_tokens = key, dict(game.tokens)
            table.refresh()
            views = {(seat, False): (game.version, render(game, key, seat, False)) for seat in game.humans}
            return game, snapshot(game), views

        made = await self.run(table, job)
        table.notify()
        if made is None:
            return await self.get(str(table.game.next))
        game, state, views = made
        return self.add(game, str(table.game.next), state, views)

    def persist(self, table: Table) -> None:
        """(in a worker, under the table's lock) Store the table's change: its moves from the first one that
        differs from the stored ones (an undo removes, a move adds), in one transaction."""
        moves = table.game.moves()
        saved = table.saved
        keep = 0
        while keep < min(len(saved), len(moves)) and saved[keep] == moves[keep]:
            keep += 1
        self.store.save(table.key, keep, moves[keep:], table.game.state.is_terminal(), table.game.version,
                        table.game.agent_to_move() is not None)
        table.saved = moves

    def add(self, game: WebGame, key: str, state: tuple[int, int | None, bool],
            views: dict[tuple[int, bool], tuple[int, dict[str, Any]]]) -> Table:
        """Open a table for ``game``; at the limit, the longest-idle table is closed first (its players are told)."""
        self.sweep()
        while len(self.open) >= self.max_tables:
            self.evict(min(self.open.values(), key=lambda t: t.touched))
        table = Table(key, game, state, views)
        self.open[key] = table
        self.start_agents(table)
        return table

    def sweep(self) -> None:
        """Put away every table untouched for ``idle_seconds`` (it stays in the database)."""
        now = time.monotonic()
        for table in [t for t in self.open.values() if now - t.touched > self.idle_seconds]:
            self.evict(table)

    def evict(self, table: Table) -> None:
        """Put ``table`` away from memory: it stays in the database as last stored, and its next request
        loads it again; its event streams end (the browsers reconnect by themselves)."""
        if table.closed is not None:
            return
        table.evicted = True
        self.close(table, "this table was put away for a moment: try again", remember=False)

    def close(self, table: Table, reason: str, *, remember: bool = True) -> None:
        """Close ``table``: its agents stop, its event streams say why, later requests get ``reason`` (410)
        (``remember=False``: for the requests already waiting for it only)."""
        if table.closed is not None:
            return
        table.closed = reason
        if self.open.get(table.key) is table:
            del self.open[table.key]
        if remember:
            self.gone[table.key] = reason
            while len(self.gone) > self.remember:
                self.gone.popitem(last=False)
        if table.runner is not None:
            table.runner.cancel()
        table.game.cancel()  # an agent's move being computed stops now, not when it is done (it is not played)
        table.notify()
        task = asyncio.get_running_loop().create_task(self._dispose(table))
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _dispose(self, table: Table) -> None:
        async with table.lock:  # after the job running now, if any
            table.game.close()

    def close_all(self, reason: str) -> None:
        """Close every table (the server stops)."""
        for table in list(self.open.values()):
            self.close(table, reason)

    async def resume(self) -> None:
        """(the server starts) Load the stored tables whose game waits for an agent's move, so the agents move
        again at once (the others load with their next request); at most ``max_tables``, the latest first."""
        keys = await self.compute(lambda: self.store.waiting_for_agents(self.max_tables),
                                  "reading the table database took too long")
        for key in keys:
            try:
                await self.get(key)
            except (NoTable, TableBusy) as err:
                log.error("table %s is not resumed: %s", key, err)

    async def sweeper(self) -> None:
        """Close idle tables as they expire (runs while the server runs)."""
        while True:
            await asyncio.sleep(min(60.0, max(0.05, self.idle_seconds / 4)))
            self.sweep()

    # -- running jobs ------------------------------------------------------------------
    async def compute(self, fn: Callable[[], Any], slow: str) -> Any:
        """``fn()`` in a worker, for no table; :class:`TableBusy` (``slow``) past the request budget."""
        future = self.pool.submit(fn)
        waiter = asyncio.wrap_future(future)
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), self.request_seconds)
        except TimeoutError:
            future.cancel()  # not started yet: it never runs
            waiter.add_done_callback(_consume)
            raise TableBusy(slow) from None
        except asyncio.CancelledError:
            future.cancel()
            raise

    async def run(self, table: Table, fn: Callable[[], Any], *, budget: bool = True) -> Any:
        """``fn()`` in a worker under the table's lock, then the table's new state announced.

        With ``budget`` (requests), the wait for the lock and the job together
        are bounded by ``request_seconds`` (:class:`TableBusy`); a job not
        started by then never runs, one running still ends and its changes are
        announced. Without (the agents' runner),
        it waits as long as the job takes (the library bounds every agent move).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.request_seconds
        try:
            if budget:
                await asyncio.wait_for(table.lock.acquire(), self.request_seconds)
            else:
                await table.lock.acquire()
        except TimeoutError:
            raise TableBusy("the table is still busy with an earlier request: try again in a moment") from None
        if table.closed is not None:
            table.lock.release()
            raise NoTable(table.closed, 503 if table.evicted else 410)

        def job() -> Any:
            before = table.game.version
            try:
                return fn()
            finally:
                try:
                    if table.game.version != before:
                        self.persist(table)
                except StoreUnavailable as err:
                    table.unsaved = str(err)  # the change is not kept: the table is loaded again as stored
                    raise
                finally:
                    table.pending = snapshot(table.game)

        try:
            future = self.pool.submit(job)
        except BaseException:
            table.lock.release()
            raise
        waiter = asyncio.wrap_future(future)
        waiter.add_done_callback(lambda _: self._finished(table))
        try:
            if not budget:
                return await asyncio.shield(waiter)
            return await asyncio.wait_for(asyncio.shield(waiter), max(0.0, deadline - loop.time()))
        except TimeoutError:
            future.cancel()  # not started yet: it never runs; one running ends and its changes are announced
            waiter.add_done_callback(_consume)
            raise TableBusy(f"this took longer than {duration(self.request_seconds)}, the most the web table "
                            "waits: try a smaller table") from None
        except asyncio.CancelledError:
            future.cancel()  # a job not started yet never runs; one running ends under the lock
            raise

    def _finished(self, table: Table) -> None:
        """A job ended (on the event loop): apply its snapshot, release the lock, announce, go on with the agents."""
        state, table.pending = table.pending, None
        if table.unsaved is not None:  # what is in memory is not what is stored: load the table again
            table.lock.release()
            log.error("table %s: %s", table.key, table.unsaved)
            self.evict(table)
            return
        if state is not None and state != (table.version, table.to_play, table.over):
            table.version, table.to_play, table.over = state
            table.notify()
        table.lock.release()
        self.start_agents(table)

    # -- the agents ------------------------------------------------------------------------
    def start_agents(self, table: Table) -> None:
        """Let the agents play, one move per job, while one of them is to move."""
        if table.closed is None and table.runner is None and table.to_play is not None and table.error is None:
            table.runner = asyncio.get_running_loop().create_task(self._play(table))
            table.notify()

    async def _play(self, table: Table) -> None:
        def step() -> None:
            table.game.agent_step()
            table.refresh()

        try:
            while table.closed is None and table.to_play is not None:
                await self.run(table, step, budget=False)
        except asyncio.CancelledError:
            raise
        except NoTable:
            pass
        except Exception as err:
            table.error = agent_failure(table, err)
        finally:
            table.runner = None
            table.notify()

    async def settle(self, table: Table, seconds: float) -> None:
        """Wait until the agents stop (a human's turn or the end), at most ``seconds``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while table.runner is not None and table.closed is None:
            changed = table.changed
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            try:
                await asyncio.wait_for(changed.wait(), remaining)
            except TimeoutError:
                return

    def stop(self) -> None:
        """Put every table away (each stays in the database) and stop the workers (the server stops)."""
        for table in list(self.open.values()):
            self.evict(table)
        self.pool.stop()


def agent_failure(table: Table, err: Exception) -> str:
    """What the players are told when an agent's move fails; a fault that is not the game's is logged."""
    from ..errors import QuaternityError

    who = f"{table.game.spec.seat_label} {table.to_play}"
    if isinstance(err, QuaternityError):
        return f"{who} could not move: {err}"
    log.error("table %s: the agent of %s failed", table.key, who, exc_info=err)
    return f"{who} could not move: {SERVER_FAULT}"


def new_key() -> str:
    """An unguessable table id (128 random bits)."""
    return secrets.token_urlsafe(16)


def _consume(future: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a job nobody waits for any more (its failure is logged, not lost)."""
    if not future.cancelled() and future.exception() is not None:
        log.error("a job that outlived its request failed", exc_info=future.exception())



def replayed(stored: Stored, agent_seconds: float | None = None) -> WebGame:
    """The stored table made again, its moves replayed (:class:`WebError` when they do not apply)."""
    game = WebGame.new(stored.game, stored.options, humans=list(stored.humans),
                       agents={str(s): n for s, n in stored.agents.items()}, seed=stored.seed, advance=False,
                       agent_seconds=agent_seconds)
    game.replay(stored.moves)
    game.version = stored.version
    return game


def export_records(store: Store, folder: str) -> list[str]:
    """Write the record of every stored table into ``folder`` (made if missing), one file ``ID.json`` each,
    written atomically; the files written. A record is what its seats may download: the secret part (a
    classic deal) only once the game is over. A table that no longer replays is skipped (logged)."""
    import json
    import os

    from ..files import write_atomic

    os.makedirs(folder, exist_ok=True)
    written = []
    for stored in store:
        try:
            game = replayed(stored)
        except WebError as err:
            log.error("table %s is not exported: %s", stored.key, err)
            continue
        path = os.path.join(folder, f"{stored.key}.json")
        write_atomic(path, json.dumps(game.record(), indent=2) + "\n")
        written.append(path)
    return written


__all__ = ["Workers", "Table", "Tables", "TableBusy", "NoTable", "render", "snapshot", "duration", "new_key",
           "agent_failure", "SERVER_FAULT", "replayed", "export_records"]
