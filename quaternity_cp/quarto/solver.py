"""An exact Quarto solver: win, draw or loss for the player to move, with a best move.

The solver works on plain integers, with no dependency on the rest of the
package but the limits and result shape every solver shares
(:mod:`quaternity_cp.budget`): ``board`` is a 16-sequence indexed by cell number
(``cell = row_from_top * 4 + column``: ``A4 = 0``, ``D4 = 3``, ``A1 = 12``,
``D1 = 15``) of piece numbers 0..15 (4 bits, colour the most significant,
top the least) or ``None``; ``piece`` is the piece in hand of the player to
move, ``None`` only before the first placement (the move is then the choice of
the piece to give).

A move is ``(cell, piece_given)``: place the piece in hand on an empty cell,
then give one of the remaining pieces (``None`` when the placement ends the
game). On the empty board with nothing in hand a move is ``(None, piece)``.

How it searches:

* negamax with alpha-beta over the three values -1, 0, 1;
* bitboards: the board is ``occ`` (16 bits) and four trait masks packed in one
  integer; a 65,536-entry table gives, for a mask, the lines holding exactly
  three of its cells, so "which trait values complete a line now" (the
  *threat*, 8 bits) is eight table lookups, and the pieces that win now are
  one more lookup;
* safe-piece pruning: a piece is *unsafe* when it wins at once for whoever
  places it. A player never gives an unsafe piece while a safe one exists; a
  placement after which every remaining piece is unsafe loses, so it is not
  searched; a piece in hand that wins at once ends the search of the node;
* a transposition table keyed by the canonical form of
  :mod:`quaternity_cp.quarto.symmetry` (the 12,288 symmetries; 3,072 with
  squares), storing lower and upper bounds;
* the ``squares`` variant only changes the lines and the symmetry group.

>>> board = [None] * 16
>>> for cell, piece in zip((0, 1, 2), (0, 1, 2)):    # A4 B4 C4: LRTS LRTH LRSS
...     board[cell] = piece
>>> result = solve(board, 4)                        # LSTS in hand completes the top row
>>> result.value, result.best, result.status
('win', (3, None), 'solved')
>>> solve(board, 15, limits=Limits(max_positions=10)).status   # 13 empty cells: far too many for 10 nodes
'limit'

A position with six empty cells, a draw with best play (a full board at the end):

>>> board = [None, 10, 5, None, None, 3, 1, 8, None, None, 14, 11, 7, 12, 0, None]
>>> result = solve(board, 6)
>>> result.value, result.best, len(result.pv)
('draw', (3, 13), 6)
>>> solve([2, None, 13, None, None, None, None, 7, 14, 5, 9, 6, None, 1, 10, 8], 4).value
'loss'
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Optional, Protocol, Sequence

from ..budget import INTERRUPTED, SOLVED, Budget, LimitError, Limits, SearchResult, Status, Stopped
from . import symmetry
from .bits import ATTRS, UNSAFE, threat, three_table
from .core import QuartoError

Move = tuple  # (cell or None, piece given or None)

VALUES = {1: "win", 0: "draw", -1: "loss"}

SPREAD = symmetry.SPREAD


class SolverError(QuartoError, ValueError):
    """A board or piece the solver cannot take (wrong size, duplicate piece, game over with a piece in hand...)."""


#: With ``kernel="auto"`` the pure-Python search runs first (numba is not even imported: small positions are
#: solved at once); when it has searched :func:`switch_nodes` nodes the compiled kernel is loaded and takes
#: over. Loading numba and the kernel from its cache costs 0.4-1 s (about 200,000 nodes of the Python
#: search), so it is loaded only when the search is likely to go on much longer: after SWITCH_NODES nodes
#: (about two seconds; a search slower than the Python one alone by at most about a third) from positions
#: with fewer than OPEN_EMPTY empty cells (with 11, three searches in four end before 300,000 nodes, with 10
#: nearly all before 100,000), after SWITCH_NODES_OPEN (a tenth of a second) from the others (with 12, their
#: searches take millions of nodes). Measured with benchmarks/quarto_lazy.py (docs/quarto.md).
SWITCH_NODES = 600_000
SWITCH_NODES_OPEN = 30_000
OPEN_EMPTY = 12


def switch_nodes(empty: int) -> int:
    """After how many nodes of the Python search the compiled kernel starts loading, from a position with
    ``empty`` empty cells (``kernel="auto"``)."""
    return SWITCH_NODES_OPEN if empty >= OPEN_EMPTY else SWITCH_NODES


#: ``on_event(name, info)`` of :func:`solve`: ``"progress"`` (``info``: ``nodes``, ``kernel``; at every check
#: of the limits: every 1,024 nodes of the Python search, every run of the compiled one, about 0.05 s),
#: ``"loading"`` (the compiled kernel is being loaded: numba imported, the kernel loaded from its cache),
#: ``"compiling"`` (``info``: ``seconds``, an estimate: numba has no cache of the kernel and compiles it, once).
EventHandler = Callable[[str, dict], None]


class _Switch(Exception):
    """The compiled kernel is loaded: it takes over from the Python search."""


@dataclass(frozen=True)
class SolveResult(SearchResult):
    """What :func:`solve` found (a :class:`~quaternity_cp.budget.SearchResult`).

    ``value`` is ``"win"``, ``"draw"`` or ``"loss"`` for the player to move, or
    ``None`` when the search stopped first (``status`` ``"time"``, ``"limit"``
    or ``"interrupted"``); ``best`` is a move reaching the value (``None`` when
    unproven or when the game is over); ``pv`` the principal variation from here
    (each move the best for the player making it); ``nodes`` the positions
    searched (also ``positions``); ``seconds`` the time spent. ``pv_stopped``:
    None, or what cut the principal variation short once the value was proven
    (``"time"``, ``"limit"``, ``"interrupted"``: the value and best move stand).
    ``kernel``: the search that ran, ``"fast"`` (compiled, :mod:`.fast`) or ``"python"``.
    """

    value: Optional[str]
    best: Optional[Move]
    pv: list = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    status: Status = SOLVED
    pv_stopped: Optional[str] = None
    kernel: str = "python"

    @property
    def positions(self) -> int:  # type: ignore[override]
        """The positions searched: ``nodes``."""
        return self.nodes

    def outcome(self) -> str:
        """The proven value: win, draw or loss."""
        return str(self.value)


def _bits(mask: int) -> list:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def winning_lines(board: Sequence[Optional[int]], squares: bool = False) -> list:
    """The lines (tuples of cells) of ``board`` holding four pieces that share a trait value.

    >>> winning_lines([0, 1, 2, 4] + [None] * 12)
    [(0, 1, 2, 3)]
    """
    out = []
    for line in symmetry.lines(squares):
        common = 255
        for c in line:
            p = board[c]
            if p is None:
                break
            common &= ATTRS[p]
        else:
            if common:
                out.append(line)
    return out


def check_position(board: Sequence[Optional[int]], piece: Optional[int]) -> None:
    """Raise :class:`SolverError` unless ``board`` is 16 cells of distinct pieces 0..15 and ``piece`` another."""
    if len(board) != 16:
        raise SolverError(f"a board has 16 cells, got {len(board)}")
    seen = set()
    for cell, p in enumerate(board):
        if p is None:
            continue
        if not isinstance(p, int) or not 0 <= p < 16:
            raise SolverError(f"cell {cell}: a piece is a number 0..15, got {p!r}")
        if p in seen:
            raise SolverError(f"piece {p} is on the board twice")
        seen.add(p)
    if piece is not None:
        if not isinstance(piece, int) or not 0 <= piece < 16:
            raise SolverError(f"the piece in hand is a number 0..15, got {piece!r}")
        if piece in seen:
            raise SolverError(f"the piece in hand ({piece}) is already on the board")


class Search(Protocol):
    """What the solver's root, principal variation and first gift need of a search (Python or compiled)."""

    squares: bool
    three: list
    budget: Budget
    nodes: int
    on_progress: Optional[Callable[[int], None]]

    @property
    def kernel(self) -> str:
        """The search's kernel: ``"python"`` or ``"fast"``."""

    def value(self, occ: int, masks: int, hand: int, rem: int, alpha: int, beta: int) -> int:
        """The fail-soft negamax value of the player holding ``hand``."""


@lru_cache(maxsize=None)
def _trait_only() -> symmetry.Canonicaliser:
    """Keys under the trait maps only (no board map): a subgroup, for measurements."""
    return symmetry.Canonicaliser((tuple(range(16)),))


class _Search:
    """One search: tables, the transposition table and the node counter, shared by the recursive calls.

    The keyword knobs were measured (benchmarks/quarto_solve.py and A/B runs on
    random positions with 10 and 11 empty cells, CPU time):

    * ``order=1``: placements leaving the fewest safe pieces first (3-4x fewer
      nodes than cell order; most safe pieces first is 5x worse);
    * ``mobility_min_empty=7``: from 7 empty cells, each (placement, gift) is
      ordered by the opponent's mobility (placements after which they still
      have a safe piece): 10-30% fewer nodes; lower thresholds cost more than
      they save;
    * ``table_min_empty=7``: the transposition table (canonical keys) only
      where at least 7 cells are empty. Keying every node from 4 empty cells
      saves under 1% more nodes than from 7 and costs 15-25% more time;
      ``raw_min_empty`` (off: ``None``) adds exact keys, no symmetry, below
      that: 2-3% fewer nodes, slower end to end;
    * ``full_group``: the 12,288 symmetries, or only the 384 trait maps. On
      random positions with 5+ pieces placed, board maps almost never add a
      hit (identical node counts) and cost about 5% of the time; kept, as
      they matter from emptier boards;
    * ``inline_pairs``: positions with three empty cells decide their
      children without recursive calls (about neutral).
    """

    kernel = "python"

    def __init__(self, squares: bool, budget: Budget, *, use_table: bool = True, full_group: bool = True, order: int = 1,
                 mobility_min_empty: int = 7, table_min_empty: int = 7, raw_min_empty: Optional[int] = None,
                 inline_pairs: bool = True, table_size: int = 3_000_000):
        self.squares = squares
        self.three = three_table(squares)
        self.canon = symmetry.canonicaliser(squares) if full_group else _trait_only()
        self.budget = budget
        self.nodes = 0
        #: called with the node count at every check of the limits
        self.on_progress: Optional[Callable[[int], None]] = None
        #: called with the node count at every check of the limits: True raises _Switch (the search stops there)
        self.switch: Optional[Callable[[int], bool]] = None
        self.next_check = 1024 if budget.max_positions is None else min(1024, budget.max_positions)
        self.use_table = use_table
        self.inline_pairs = inline_pairs
        self.raw_min_empty = raw_min_empty
        self.order = order
        self.mobility_min_empty = mobility_min_empty
        self.table_min_empty = table_min_empty
        self.table_size = table_size
        self.tt: dict = {}

    # -- limits ------------------------------------------------------------------------------
    def _check(self) -> None:
        """The limits, checked every 1024 nodes (and exactly at the node limit)."""
        budget = self.budget
        budget.check_positions(self.nodes)
        budget.check_time()
        if self.on_progress is not None:
            self.on_progress(self.nodes)
        if self.switch is not None and self.switch(self.nodes):
            raise _Switch
        step = self.nodes + 1024
        if budget.max_positions is not None:
            step = min(step, budget.max_positions)
        self.next_check = step

    def _by_mobility(self, children: list, rem: int) -> list:
        """Each (placement, gift) as its own child, ordered by the opponent's mobility with that gift.

        The mobility of a gift is the number of placements after which the
        opponent still has a safe piece to give back: 0 means the gift wins.
        """
        three = self.three
        scored = []
        for occ2, masks2, safe in children:
            free2 = ~occ2 & 0xFFFF
            for q in _bits(safe):
                rest = rem & ~(1 << q)
                spread_q = SPREAD[q]
                mobility = 0
                f = free2
                while f:
                    cell_bit = f & -f
                    f ^= cell_bit
                    if rest & ~UNSAFE[threat(occ2 | cell_bit, masks2 | (spread_q << (cell_bit.bit_length() - 1)), three)]:
                        mobility += 1
                scored.append((mobility, safe.bit_count(), occ2, masks2, 1 << q))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [(occ2, masks2, gift) for _, _, occ2, masks2, gift in scored]

    # -- the search --------------------------------------------------------------------------
    def value(self, occ: int, masks: int, hand: int, rem: int, alpha: int, beta: int) -> int:
        """Negamax value of the player to move holding ``hand``, which does not win at once, with pieces ``rem`` left.

        Precondition: ``rem`` is not empty (so at least two cells are empty).
        Fail-soft: a result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound.
        """
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check()
        three = self.three
        spread = SPREAD[hand]
        free = ~occ & 0xFFFF
        use_tt = False
        if self.use_table:
            empty = free.bit_count()
            if empty >= self.table_min_empty:
                use_tt = True
                key = self.canon._key(occ, masks ^ (spread * occ)) << 1 | 1
            elif self.raw_min_empty is not None and empty >= self.raw_min_empty:
                use_tt = True
                key = ((masks << 16 | occ) << 4 | hand) << 1
        if use_tt:
            entry = self.tt.get(key)
            if entry is not None:
                lo, hi = entry
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
            alpha0 = alpha
        last = not (rem & (rem - 1))  # one piece left to give: the child is a draw when that piece is safe
        best = -1
        children = []
        m = free
        while m:
            low = m & -m
            m ^= low
            cell = low.bit_length() - 1
            occ2 = occ | low
            masks2 = masks | (spread << cell)
            safe = rem & ~UNSAFE[threat(occ2, masks2, three)]
            if not safe:
                continue  # every piece left wins for the opponent: this placement loses
            if last:
                best = 0
                break
            children.append((occ2, masks2, safe))
        if children and best < beta and self.inline_pairs and not ((rem & (rem - 1)) & (rem & (rem - 1)) - 1):
            # two pieces left (three empty cells): each child holds a safe piece, places it on one
            # of two cells and must give the last piece; it draws if that piece is then safe somewhere
            self.nodes += len(children)
            for occ2, masks2, safe in children:
                free2 = ~occ2 & 0xFFFF
                while safe:
                    low = safe & -safe
                    safe ^= low
                    last_piece = rem ^ low
                    spread2 = SPREAD[low.bit_length() - 1]
                    v = 1
                    f = free2
                    while f:
                        cell_bit = f & -f
                        f ^= cell_bit
                        if not (last_piece & UNSAFE[threat(occ2 | cell_bit, masks2 | (spread2 << (cell_bit.bit_length() - 1)), three)]):
                            v = 0
                            break
                    if v > best:
                        best = v
                        if best >= beta:
                            break
                if best >= beta:
                    break
        elif children and best < beta:
            value = self.value
            if self.order == 1:
                children.sort(key=lambda ch: ch[2].bit_count())
            if self.order == 1 and free.bit_count() >= self.mobility_min_empty:
                children = self._by_mobility(children, rem)
            for occ2, masks2, safe in children:
                a = alpha if alpha > best else best
                while safe:
                    low = safe & -safe
                    safe ^= low
                    v = -value(occ2, masks2, low.bit_length() - 1, rem ^ low, -beta, -a)
                    if v > best:
                        best = v
                        if best >= beta:
                            break
                        if best > a:
                            a = best
                if best >= beta:
                    break
        if use_tt:
            old = self.tt.get(key)
            lo, hi = old if old is not None else (-1, 1)
            if best <= alpha0:
                if best < hi:
                    hi = best
            elif best >= beta:
                if best > lo:
                    lo = best
            else:
                lo = hi = best
            if len(self.tt) >= self.table_size:
                self.tt.clear()
            self.tt[key] = _BOUNDS[lo + 1][hi + 1]
        return best


_BOUNDS = tuple(tuple((lo, hi) for hi in (-1, 0, 1)) for lo in (-1, 0, 1))


def _pack(board: Sequence[Optional[int]]) -> tuple[int, int, int]:
    occ, masks = symmetry.pack(board)
    rem = 0xFFFF
    for p in board:
        if p is not None:
            rem &= ~(1 << p)
    return occ, masks, rem


def _moves_value(search: Search, occ: int, masks: int, hand: int, rem: int, alpha: int, beta: int):
    """Every move of the player holding ``hand`` with its value (searched with the window), best first.

    Returns ``(best_value, best_move)``; a move is ``(cell, piece or None)``.
    """
    three = search.three
    free = ~occ & 0xFFFF
    spread = SPREAD[hand]
    if ATTRS[hand] & threat(occ, masks, three):
        for cell in _bits(free):
            if _threat_win(occ, masks, hand, cell, search):
                return 1, (cell, None)
        raise AssertionError("a winning piece with no winning cell")  # pragma: no cover
    if not rem:
        return 0, (_bits(free)[0], None)
    best, best_move = -2, None
    placements = []
    for cell in _bits(free):
        occ2 = occ | (1 << cell)
        masks2 = masks | (spread << cell)
        safe = rem & ~UNSAFE[threat(occ2, masks2, three)]
        placements.append((safe.bit_count() if safe else 99, cell, occ2, masks2, safe))
    placements.sort(key=lambda item: item[:2])
    for _, cell, occ2, masks2, safe in placements:
        gifts = _bits(safe) if safe else _bits(rem)
        for q in gifts:
            if not safe:
                v = -1
            elif not (rem ^ (1 << q)):
                v = 0
            else:
                a = max(alpha, best)
                v = -search.value(occ2, masks2, q, rem ^ (1 << q), -beta, -a)
            if v > best:
                best, best_move = v, (cell, q)
                if best >= beta:
                    return best, best_move
    return best, best_move


def search_root(search: Search, board: Sequence[Optional[int]], piece: int, alpha: int = -1,
                beta: int = 1) -> tuple[int, Move]:
    """The value for the player holding ``piece`` (fail-soft in the window ``alpha``, ``beta``: a value
    ``<= alpha`` is an upper bound, ``>= beta`` a lower bound) and a move reaching it, found by ``search``."""
    occ, masks, rem = _pack(board)
    return _moves_value(search, occ, masks, piece, rem & ~(1 << piece), alpha, beta)


def _threat_win(occ: int, masks: int, hand: int, cell: int, search: Search) -> bool:
    """Whether placing ``hand`` on ``cell`` completes a line sharing a trait."""
    occ2 = occ | (1 << cell)
    masks2 = masks | (SPREAD[hand] << cell)
    board = _unpack(occ2, masks2)
    for line in symmetry.lines(search.squares):
        if cell in line and all(board[c] is not None for c in line):
            common = 255
            for c in line:
                common &= ATTRS[board[c]]
            if common:
                return True
    return False


def _unpack(occ: int, masks: int) -> list:
    board: list = [None] * 16
    for cell in range(16):
        if occ >> cell & 1:
            p = 0
            for t in range(4):
                if masks >> (16 * t + cell) & 1:
                    p |= 1 << t
            board[cell] = p
    return board


@lru_cache(maxsize=None)
def fast_available() -> bool:
    """Whether the compiled kernel (:mod:`.fast`, the extra ``[fast]``: numba) can run here (loads it, as
    :func:`load_fast` does: Ctrl-C stops the wait)."""
    try:
        load_fast()
    except ImportError:
        return False
    return True


def _numba_installed() -> bool:
    """Whether numba is installed (without importing it: that alone takes a quarter of a second)."""
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False


KERNELS = ("auto", "fast", "python")


class _Loader:
    """The loading of the compiled kernel, in a thread of its own while the calling thread waits: a Ctrl-C then
    reaches the wait (which stops at once), never the imports and numba's compilation (where third-party code
    may swallow the KeyboardInterrupt, or leave the interpreter set to kill itself by SIGINT as it exits)."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.compiling = threading.Event()
        self.error: Optional[BaseException] = None
        self.thread = threading.Thread(target=self._load, name="quarto-kernel-load", daemon=True)
        self.thread.start()

    def _load(self) -> None:
        try:
            from . import fast

            if not fast.cached():
                self.compiling.set()
            fast.load()
        except BaseException as err:  # noqa: BLE001 - handed to the thread that waits
            self.error = err
        finally:
            self.done.set()

    def ready(self) -> bool:
        """Whether the kernel is loaded (False while it loads); its error (ImportError: no numba) once it failed."""
        if not self.done.is_set():
            return False
        if self.error is not None:
            raise self.error
        return True

    def wait(self, on_event: Optional[EventHandler] = None) -> None:
        """Wait until the kernel is loaded (Ctrl-C stops the wait at once), telling ``on_event`` when it
        compiles; its error once it failed."""
        told = False
        while not self.done.wait(0.05):
            if on_event is not None and not told and self.compiling.is_set():
                told = True
                _tell_compiling(on_event)
        self.ready()


_LOADER: Optional[_Loader] = None
_LOADER_LOCK = threading.Lock()


def _loader() -> _Loader:
    """The process's loading of the kernel, started now unless it ran or runs (a failure other than a missing
    numba is tried again)."""
    global _LOADER
    with _LOADER_LOCK:
        if _LOADER is None or (_LOADER.done.is_set() and _LOADER.error is not None
                               and not isinstance(_LOADER.error, ImportError)):
            _LOADER = _Loader()
        return _LOADER


def preload_fast() -> None:
    """Start loading the compiled kernel in the background (once per process) and return at once: a long-lived
    process that will ask for many verdicts (the web table) then finds it ready, and ``kernel="auto"`` runs
    compiled from the start. Does nothing when numba is not installed."""
    if fast_available():
        _loader()


def _tell_compiling(on_event: EventHandler) -> None:
    from .fast import COMPILE_SECONDS

    on_event("compiling", {"seconds": COMPILE_SECONDS})


def load_fast(on_event: Optional[EventHandler] = None) -> None:
    """Load the compiled kernel (numba, then the kernel from numba's cache beside :mod:`.fast`), compiling
    it when there is no cache yet; once per process. ``on_event("loading", {})`` first, then
    ``on_event("compiling", {"seconds": estimate})`` when it compiles. The work runs in a thread; this one
    waits, so that Ctrl-C (KeyboardInterrupt) stops the wait at once. ImportError when numba is missing."""
    loader = _loader()
    if loader.done.is_set():
        loader.ready()
        return
    if on_event is not None:
        on_event("loading", {})
    loader.wait(on_event)


class _Lazy:
    """The search of ``kernel="auto"``: the Python search; past ``start_at`` nodes the compiled kernel is loaded
    and takes over: the call to :meth:`value` under way is searched again by it, as are all later ones (the
    root's moves already searched keep their values). Loading it in a thread while the Python search went on
    was measured slower: both need the interpreter, and the Python search's work is mostly thrown away."""

    def __init__(self, squares: bool, budget: Budget, start_at: int, on_event: Optional[EventHandler] = None):
        self.squares = squares
        self.budget = budget
        self.on_event = on_event
        self.start_at = start_at
        self.python = _Search(squares, budget)
        self.python.switch = self._switch
        self.three = self.python.three
        self.fast: Any = None
        self.on_progress: Optional[Callable[[int], None]] = None

    @property
    def kernel(self) -> str:
        return "python" if self.fast is None else "fast"

    @property
    def nodes(self) -> int:
        return self.python.nodes if self.fast is None else self.fast.nodes

    @nodes.setter
    def nodes(self, count: int) -> None:
        if self.fast is None:
            self.python.nodes = count
        else:
            self.fast.nodes = count

    def _switch(self, nodes: int) -> bool:
        """At every check of the Python search's limits: whether the compiled kernel takes over now (it is then
        loaded: the search waits for it; Ctrl-C stops the wait)."""
        if nodes < self.start_at:
            return False
        try:
            load_fast(self.on_event)
        except ImportError:  # no numba after all: the Python search goes on, to the end
            self.python.switch = None
            return False
        return True

    def value(self, occ: int, masks: int, hand: int, rem: int, alpha: int, beta: int) -> int:
        if self.fast is None:
            self.python.on_progress = self.on_progress
            try:
                return self.python.value(occ, masks, hand, rem, alpha, beta)
            except _Switch:
                from .fast import FastSearch

                self.fast = FastSearch(self.squares, self.budget)
                self.fast.nodes = self.python.nodes
                self.fast.on_progress = self.on_progress
        return self.fast.value(occ, masks, hand, rem, alpha, beta)


def make_search(squares: bool, budget: Budget, kernel: str = "auto", options: Optional[dict] = None,
                table: bool = True, on_event: Optional[EventHandler] = None, empty: int = 16) -> Search:
    """A search object for ``kernel``: ``"fast"`` (compiled; SolverError when numba is missing),
    ``"python"``, or ``"auto"`` (when numba is installed: the compiled search if an earlier search of this
    process loaded it, else the Python search, then the compiled one past :func:`switch_nodes` nodes;
    ``empty``: the empty cells of the position searched). ``options`` are the search's knobs (with them,
    ``"auto"`` is ``"python"``)."""
    if kernel not in KERNELS:
        raise SolverError(f"no kernel {kernel!r} (known: {', '.join(KERNELS)})")
    if kernel == "auto":
        if not table or options or not _numba_installed():
            kernel = "python"
        elif _LOADER is not None and _LOADER.done.is_set() and _LOADER.error is None:
            kernel = "fast"  # loaded by an earlier search of this process: nothing more to pay for it
        else:
            return _Lazy(squares, budget, switch_nodes(empty), on_event)
    if kernel == "python":
        return _Search(squares, budget, use_table=table, **(options or {}))
    try:
        load_fast(on_event)
    except ImportError:
        raise SolverError("the fast kernel needs numba: pip install 'quaternity-cp[fast]'") from None
    from .fast import FastSearch

    return FastSearch(squares, budget, **(options or {}))


def solve(board: Sequence[Optional[int]], piece: Optional[int], *, squares: bool = False,
          limits: Optional[Limits] = None, max_seconds: Optional[float] = None, max_nodes: Optional[int] = None,
          kernel: str = "auto", on_event: Optional[EventHandler] = None, _table: bool = True,
          _options: Optional[dict] = None) -> SolveResult:
    """The exact value of a Quarto position for the player to move, a best move and the principal variation.

    ``limits`` (a :class:`~quaternity_cp.budget.Limits`: ``max_positions``
    nodes searched, ``max_seconds``; or the keywords ``max_nodes`` and
    ``max_seconds``) and Ctrl-C (at any moment: while the compiled kernel loads
    too) stop the search; the result then has
    ``value=None`` and ``status`` ``"time"``, ``"limit"`` or ``"interrupted"``
    (once the value is proven, they only cut the principal variation short:
    ``pv_stopped``). A finished game (a line completed,
    or a full board) with nothing in hand gives ``"loss"`` or ``"draw"`` with
    no move. Bad input (limits included) raises :class:`SolverError`. ``kernel``: ``"auto"`` (the Python
    search, and past :func:`switch_nodes` nodes the compiled one of :mod:`.fast` when numba is installed;
    at once when an earlier search of the process loaded it),
    ``"fast"`` or ``"python"``; the result's ``kernel`` says which one ran last. ``on_event(name, info)``
    hears of the search's progress and of the kernel's loading and first compilation (:data:`EventHandler`);
    what it raises goes on (a KeyboardInterrupt stops the search, as Ctrl-C does).

    >>> board = [None, None, None, 9, 13, 6, 10, 12, 3, 14, None, 5, None, None, 2, 7]
    >>> result = solve(board, 0)       # place LRTS on B4 and give LRTH: a win in two moves
    >>> result.value, result.best, result.pv
    ('win', (1, 1), [(1, 1), (0, 4), (2, None)])
    """
    check_position(board, piece)
    if kernel not in KERNELS:
        raise SolverError(f"no kernel {kernel!r} (known: {', '.join(KERNELS)})")
    try:
        budget = Limits.given(limits, max_nodes, max_seconds).start()
    except LimitError as err:
        raise SolverError(str(err)) from None
    occ, masks, rem = _pack(board)
    finished = bool(winning_lines(board, squares)) or occ == 0xFFFF
    if finished:
        if piece is not None:
            raise SolverError("the game is over: there is no move to make with a piece in hand")
        value = "loss" if winning_lines(board, squares) else "draw"
        return SolveResult(value, None, [], 0, 0.0, SOLVED, kernel="python" if kernel == "auto" else kernel)
    if piece is None and occ:
        raise SolverError("only before the first placement can the player to move hold no piece")
    try:
        search = make_search(squares, budget, kernel, _options, _table, on_event, 16 - occ.bit_count())
    except KeyboardInterrupt:  # while the compiled kernel loaded: nothing searched yet
        return SolveResult(None, None, [], 0, budget.elapsed(), INTERRUPTED, kernel=kernel)
    if on_event is not None:
        search.on_progress = lambda nodes: on_event("progress", {"nodes": nodes, "kernel": search.kernel})
    if piece is None:
        return replace(_solve_first_gift(search, rem), kernel=search.kernel)
    rem &= ~(1 << piece)
    try:
        value, best = _moves_value(search, occ, masks, piece, rem, -1, 1)
    except (Stopped, KeyboardInterrupt) as stop:
        return replace(_unproven(search, stop), kernel=search.kernel)
    pv, cut = _principal_variation(search, occ, masks, piece, rem, value, best)
    return SolveResult(VALUES[value], best, pv, search.nodes, budget.elapsed(), SOLVED, cut, search.kernel)


def _unproven(search: Search, stop: BaseException) -> SolveResult:
    """The result of a search that a limit or Ctrl-C stopped before its value was known."""
    reason = stop.reason if isinstance(stop, Stopped) else INTERRUPTED
    return SolveResult(None, None, [], search.nodes, search.budget.elapsed(), reason)


def _solve_first_gift(search: Search, rem: int) -> SolveResult:
    # every piece is the image of LRTS under a trait flip, so one gift decides the value
    try:
        search.nodes += 1
        v, reply = _moves_value(search, 0, 0, 0, rem & ~1, -1, 1)
    except (Stopped, KeyboardInterrupt) as stop:
        return _unproven(search, stop)
    pv, cut = _principal_variation(search, 0, 0, 0, rem & ~1, v, reply)
    return SolveResult(VALUES[-v], (None, 0), [(None, 0)] + pv, search.nodes, search.budget.elapsed(), SOLVED, cut)


def _principal_variation(search: Search, occ: int, masks: int, hand: int, rem: int, value: int,
                         best) -> tuple[list, Optional[str]]:
    """The principal variation from ``best`` (the value is proven), and None; or, when a limit or Ctrl-C
    stops the search of a later move, the moves found so far and the reason."""
    pv = [best]
    try:
        while True:
            cell, given = pv[-1]
            occ |= 1 << cell
            masks |= SPREAD[hand] << cell
            if given is None:
                return pv, None
            hand, rem, value = given, rem & ~(1 << given), -value
            v, move = _moves_value(search, occ, masks, hand, rem, -1, 1)
            assert v == value, (v, value)
            pv.append(move)
    except Stopped as stop:
        return pv, stop.reason
    except KeyboardInterrupt:
        return pv, INTERRUPTED
