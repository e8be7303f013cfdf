"""The web table's SQLite store: what keeping every table in a database file costs against ``--db :memory:``.

Not a test. Run from the project root::

    python benchmarks/web_store.py                     # about a minute and a half
    python benchmarks/web_store.py --moves 300 --rounds 3 --stored 200
    python benchmarks/web_store.py --tables 50 --stored 1000 --loads 20

Everything goes through the app itself (``create_app(Settings(...), Store(path))``
driven by Starlette's ``TestClient``, one request at a time) on a small
Quaternity table (3 players, 3 sets of 2, every seat a person, so no agent's
thinking is timed); each move is the ``POST /api/act`` of a random legal move
of the seat to move (the library's ``legal_texts``). It prints:

1. **Moves per second** at one table (one table in play at a time, a new one
   when a game ends) and at ``--tables`` tables (a move at each in turn, a
   finished one replaced), with a database file and with ``Store(":memory:")``
   in the same run: the two alternate for ``--rounds`` rounds (after an
   untimed warm-up) and play the same games (the same seeds, the same
   choices), and the medians of the rounds are compared. Only the moves are
   timed (not the making of tables): wall-clock and the process's CPU time
   (the server's threads included), per move, the part of it spent in
   ``Store.save`` (the move's one transaction), and the ratio file / memory.
   The goal of issue 39: a move with the file costs at most 1.3x a move in
   memory.
2. **Start-up with ``--stored`` tables**: a file holding that many tables
   (each a few moves into its game), then the time from opening it
   (``Store(path)``: SQLite's ``quick_check`` of the whole file) through
   ``create_app`` and the app's start to the first view served of one of
   them, against the same with a file of one table (the median of
   ``--rounds`` starts each, the file in the operating system's cache); and the
   time to load one table that is not in memory (its row read, its moves
   replayed, its view made: the median over ``--loads`` tables) against a view
   of a table already in memory.
3. **The database's size per move**: the bytes of the file and its ``-wal``
   after the file's last round at one table, divided by its moves; and of the
   file alone once the store is closed (the journal checkpointed into it),
   which is what stays on disk.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

warnings.filterwarnings("ignore", message=".*httpx.*")  # starlette's TestClient on httpx: a deprecation note

from starlette.testclient import TestClient  # noqa: E402

from quaternity_cp.web.app import Settings, create_app  # noqa: E402
from quaternity_cp.web.session import WebGame  # noqa: E402
from quaternity_cp.web.store import Store  # noqa: E402
from quaternity_cp.web.tables import Tables, new_key  # noqa: E402

GAME = "quartets"
SMALL = {"preset": "quaternity", "players": 3, "sets": 3, "set_size": 2}
SEATS = [0, 1, 2]
#: no answer ever cut short by a budget; room for every table made in memory (at the default cap of 64 the
#: finished tables would put away tables still in play, and their next move would time a reload)
SETTINGS = Settings(act_seconds=600.0, request_seconds=600.0, max_tables=100_000)


class TimedStore(Store):
    """A :class:`Store` adding up the time its writes of moves (:meth:`Store.save`) take: wall-clock, and the
    CPU time of the thread writing (which leaves out its waits for the interpreter's lock)."""

    def __init__(self, path: str):
        super().__init__(path)
        self.save_seconds = 0.0
        self.save_cpu = 0.0
        self.saves = 0

    def save(self, *args, **kwargs) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            super().save(*args, **kwargs)
        finally:
            self.save_seconds += time.perf_counter() - wall
            self.save_cpu += time.thread_time() - cpu
            self.saves += 1


class Player:
    """Tables of one app and a move at any of them."""

    def __init__(self, client: TestClient, rng: random.Random, tables: Any):
        self.client = client
        self.tables = tables  # the app's open tables (quaternity_cp.web.tables.Tables)
        self.rng = rng
        self.seed = 0
        self.tokens: dict[str, dict[int, str]] = {}
        self.to_move: dict[str, int] = {}

    def new(self) -> str:
        self.seed += 1
        got = self.client.post("/api/new", json={"seed": self.seed, "options": SMALL, "humans": SEATS})
        assert got.status_code == 200, got.text
        made = got.json()
        gid = made["id"]
        self.tokens[gid] = {int(seat): link.rsplit("/", 1)[1] for seat, link in made["links"].items() if seat.isdigit()}
        self.to_move[gid] = made["to_move"]
        return gid

    def move(self, gid: str) -> tuple[float, float, bool]:
        """(wall seconds, CPU seconds, whether the game is over) of one move at ``gid``."""
        seat = self.to_move[gid]
        legal = self.tables.open[gid].game.legal_texts(seat)
        body = {"action": self.rng.choice(legal)}
        headers = {"X-Seat-Token": self.tokens[gid][seat]}
        wall, cpu = time.perf_counter(), time.process_time()
        got = self.client.post(f"/api/act/{gid}", json=body, headers=headers)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert got.status_code == 200, got.text
        view = got.json()
        self.to_move[gid] = view["to_move"]
        return wall, cpu, view["over"]


def play(path: str, moves: int, tables: int, seed: int) -> dict:
    """``moves`` moves at ``tables`` tables in turn with a store at ``path``: the times per move, the store's
    share, the file's size."""
    store = TimedStore(path)
    wall = cpu = 0.0
    done = 0
    made = 0
    app = create_app(SETTINGS, store)
    with TestClient(app) as client:
        player = Player(client, random.Random(seed), app.app.state.tables)
        turn = [player.new() for _ in range(tables)]
        made += tables
        while done < moves:
            for i, gid in enumerate(turn):
                w, c, over = player.move(gid)
                wall, cpu, done = wall + w, cpu + c, done + 1
                if over:
                    turn[i] = player.new()
                    made += 1
                if done == moves:
                    break
        live = (_size(path), _size(path + "-wal"))
    store.close()
    saves = max(store.saves, 1)
    return {"wall": wall / moves, "cpu": cpu / moves, "save": store.save_seconds / saves,
            "save_cpu": store.save_cpu / saves, "tables": made, "live_bytes": live, "closed_bytes": _size(path)}


def _size(path: str) -> int:
    return os.path.getsize(path) if path != ":memory:" and os.path.exists(path) else 0


def fill(path: str, count: int, seed: int) -> tuple[dict[str, dict[int, str]], int]:
    """A file of ``count`` tables, each 1 to 3 moves into its game (none over): their seats' tokens, and the
    moves stored."""
    store = Store(path)
    tables = Tables(store=store, workers=1)
    rng = random.Random(seed)
    tokens: dict[str, dict[int, str]] = {}
    moves = 0
    n = 0
    try:
        while len(tokens) < count:
            n += 1
            game = WebGame.new(GAME, SMALL, humans=SEATS, seed=n, advance=False)
            for _ in range(rng.randint(1, 3)):
                seat = game.state.current_player()
                game.act(rng.choice(game.legal_texts(seat)), seat)
            if game.state.is_terminal():
                continue  # an open table, not a finished one
            key = new_key()
            tables.keep(game, key)
            tokens[key] = dict(game.tokens)
            moves += len(game.moves())
    finally:
        tables.stop()
        store.close()
    return tokens, moves


def start(path: str, tokens: dict[str, dict[int, str]], loads: int) -> dict:
    """The times of a start on ``path``: the store opened, the app up, the first view; then ``loads`` more
    tables loaded, and a view of one already loaded."""
    keys = list(tokens)
    t0 = time.perf_counter()
    store = Store(path)
    t1 = time.perf_counter()
    with TestClient(create_app(SETTINGS, store)) as client:
        t2 = time.perf_counter()

        def view(key: str) -> float:
            begin = time.perf_counter()
            got = client.get(f"/api/view/{key}", headers={"X-Seat-Token": tokens[key][0]})
            assert got.status_code == 200, got.text
            return time.perf_counter() - begin

        view(keys[0])
        t3 = time.perf_counter()
        loaded = [view(key) for key in keys[1:1 + loads]]
        again = [view(keys[0]) for _ in range(max(loads, 1))]
    store.close()
    return {"open": t1 - t0, "app": t2 - t1, "first": t3 - t2, "total": t3 - t0,
            "load": statistics.median(loaded) if loaded else float("nan"), "again": statistics.median(again)}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=400, help="moves timed per round and case (default 400)")
    ap.add_argument("--tables", type=int, default=50, help="the tables played in turn (default 50)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of each case, file and memory alternating")
    ap.add_argument("--stored", type=int, default=1000, help="tables in the file of the start-up (default 1000)")
    ap.add_argument("--loads", type=int, default=20, help="tables loaded one by one after the start (default 20)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the database files (deleted at the end otherwise)")
    args = ap.parse_args()
    if args.moves < 1 or args.tables < 1 or args.rounds < 1 or args.stored < 2 or args.loads < 0:
        ap.error("--moves, --tables and --rounds must be at least 1, --stored at least 2, --loads at least 0")
    folder = tempfile.mkdtemp(prefix="quaternity-web-store-")
    try:
        run(args, folder)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace, folder: str) -> None:
    print(f"{GAME} {SMALL}, every seat a person; {args.moves} moves per round, {args.rounds} rounds; "
          f"files in {folder}")

    # 1. moves per second
    play(":memory:", 50, 1, args.seed)  # warm-up: imports, caches, the first tables
    play(os.path.join(folder, "warm.sqlite3"), 50, 1, args.seed)
    last_file: dict = {}
    print(f"\n{'moves':<24} {'wall/move':>11} {'CPU/move':>11} {'save wall':>11} {'save CPU':>11} {'moves/s':>8}"
          "  x memory (wall, CPU)")
    for tables in (1, args.tables):
        runs: dict[str, list[dict]] = {"memory": [], "file": []}
        for r in range(args.rounds):
            for kind in (("memory", "file") if r % 2 == 0 else ("file", "memory")):
                path = ":memory:" if kind == "memory" else os.path.join(folder, f"moves-{tables}-{r}.sqlite3")
                runs[kind].append(play(path, args.moves, tables, args.seed + r))
        fields = ("wall", "cpu", "save", "save_cpu")
        base = {k: statistics.median(run[k] for run in runs["memory"]) for k in fields}
        for kind in ("memory", "file"):
            med = {k: statistics.median(run[k] for run in runs[kind]) for k in fields}
            name = f"{tables} table{'s' if tables > 1 else ''}, {':memory:' if kind == 'memory' else 'file'}"
            ratio = f"x{med['wall'] / base['wall']:.2f}, x{med['cpu'] / base['cpu']:.2f}"
            print(f"{name:<24} {ms(med['wall'])} {ms(med['cpu'])} {ms(med['save'])} {ms(med['save_cpu'])} "
                  f"{1 / med['wall']:8.0f}  {ratio}")
        if tables == 1:
            last_file = runs["file"][-1]
    print("goal (issue 39): a move with the file at most x1.30 the cost of one in memory")

    # 2. start-up with many stored tables
    many = os.path.join(folder, f"stored-{args.stored}.sqlite3")
    one = os.path.join(folder, "stored-1.sqlite3")
    begin = time.perf_counter()
    many_tokens, stored_moves = fill(many, args.stored, args.seed)
    made = time.perf_counter() - begin
    one_tokens, _ = fill(one, 1, args.seed)
    print(f"\nstart-up ({args.stored} tables with {stored_moves} moves stored in {made:.1f} s: {_size(many):,} "
          f"bytes, {_size(many) / args.stored:,.0f} per table; median of {args.rounds} starts)")
    print(f"{'stored tables':<16} {'open store':>11} {'app up':>11} {'first view':>11} {'total':>11} {'x 1 table':>10}")
    starts: dict[str, list[dict]] = {"1": [], str(args.stored): []}
    start(one, one_tokens, 0)  # warm-up: the first view's caches
    for r in range(args.rounds):
        for name in (("1", str(args.stored)) if r % 2 == 0 else (str(args.stored), "1")):
            starts[name].append(start(one, one_tokens, 0) if name == "1" else start(many, many_tokens, args.loads))
    base_total = statistics.median(s["total"] for s in starts["1"])
    for name, runs_ in starts.items():
        med = {k: statistics.median(s[k] for s in runs_) for k in ("open", "app", "first", "total")}
        print(f"{name:<16} {ms(med['open'])} {ms(med['app'])} {ms(med['first'])} {ms(med['total'])} "
              f"{'x' + format(med['total'] / base_total, '.2f'):>10}")
    load = statistics.median(s["load"] for s in starts[str(args.stored)])
    again = statistics.median(s["again"] for s in starts[str(args.stored)])
    print(f"loading one table not in memory (median of {args.loads}): {ms(load).strip()}; "
          f"a view of a table in memory: {ms(again).strip()} (x{load / again:.2f})")

    # 3. size per move
    moves, tables_made = args.moves, last_file["tables"]
    print(f"\ndatabase size after {moves} moves at {tables_made} tables (one at a time):")
    main_bytes, wal_bytes = last_file["live_bytes"]
    print(f"  file + WAL while serving: {main_bytes + wal_bytes:>10,} bytes ({main_bytes:,} + {wal_bytes:,}) = "
          f"{(main_bytes + wal_bytes) / moves:,.0f} bytes per move (the WAL: whole pages per move, reused after "
          "each checkpoint, at 1,000 pages)")
    print(f"  file once closed:         {last_file['closed_bytes']:>10,} bytes = "
          f"{last_file['closed_bytes'] / moves:,.0f} bytes per move ({last_file['closed_bytes'] / tables_made:,.0f} "
          "per table, its moves included)")


if __name__ == "__main__":
    main()
