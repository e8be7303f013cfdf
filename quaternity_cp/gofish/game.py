"""A game of Quantum Go Fish: moves, their legality, turns, wins, undo and records (GOFISH.md).

What is known is kept about the *initial* table of counts T0 (player x suit):
a lower and an upper bound per cell, and the known shift of every cell since
the deal (a yes moves one card of its suit from the asked player to the
asker), so the table now is T0 + shift. A question at a moment proves
``T[asker][suit] >= 1`` then, a yes ``T[asked][suit] >= 1`` (before its card
moves), a no ``T[asked][suit] == 0``: each is a bound on one cell of T0. The
exact engine (:mod:`.bounds`) answers everything else about the current table.

Rule choices the text of GOFISH.md leaves to the program, made here:

- ``ask_void = forbid`` refuses a question whose asked player holds none of the
  suit in every table consistent with the question itself (exactly the questions
  that ``allow`` lets through with only "no" as an answer).
- The turn passes to the next seat counting up from the asker and around, the
  asker itself last; ``after_yes = again`` keeps it with the asker after a yes
  when the asker has a legal question. When no seat has a legal question the
  game ends with no winner (``stuck``).
- With ``win_after_ask`` the whole win check (determined and fours) runs after
  the question; a game it ends takes no answer (one written in the record is
  kept as text and not applied).
- ``invalid = lose``: a rule broken by the asker (out of turn, itself, an empty
  player, a suit it provably lacks, a forbidden void) or by the answer (an
  impossible yes or no) ends the game with that player the loser and no winner;
  unreadable moves and moves after the end are errors under every rule.
- ``repetition = draw``: a position is what is known of the current table (its
  exact cell ranges and hand sizes: equal ranges mean equal sets of tables) and
  who is to ask; the game is drawn when one repeats after an answer.

>>> g = GoFish(3)
>>> for m in ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]:
...     _ = g.push(m)
>>> g.outcome
Outcome(winner=0, reason='determined', loser=None)
>>> g.bounds().low
((2, 0, 3), (2, 1, 1), (0, 3, 0))
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Iterator, Mapping, Sequence, overload

from ..budget import Limits
from ..jsonio import InputRefused, check_move_count, show
from ..names import seat_name
from .bounds import Bounds, BoundsEngine, FlowEngine, Grid, Tables, count_tables, holds_a_whole_suit
from .rules import GoFishError, GoFishRulesError, Rules, Setup

GAME_NAME = "gofish"
RECORD_KEYS = ("game", "players", "suits", "suit_size", "rules", "moves")


class Illegal(Enum):
    """Why a move is not allowed: one member per rule it can break."""

    GAME_OVER = "the game is over"
    QUESTION_OPEN = "a question is open and must be answered first"
    WRONG_ANSWER = "the answer does not match the open question"
    NOT_ON_TURN = "not on turn"
    SELF_QUESTION = "a player cannot ask itself"
    TARGET_EMPTY = "the asked player holds no cards"
    ASKER_LACKS_SUIT = "the asker provably holds none of the suit"
    ASKED_VOID = "the asked player provably holds none of the suit, and these rules forbid asking it"
    IMPOSSIBLE_YES = "the asked player holds none of the suit in every consistent table"
    IMPOSSIBLE_NO = "the asked player holds some of the suit in every consistent table"


#: reasons that are the asker's fault, and the asked player's (``invalid = lose``)
ASKER_FAULTS = frozenset({Illegal.NOT_ON_TURN, Illegal.SELF_QUESTION, Illegal.TARGET_EMPTY,
                          Illegal.ASKER_LACKS_SUIT, Illegal.ASKED_VOID})
ANSWER_FAULTS = frozenset({Illegal.IMPOSSIBLE_YES, Illegal.IMPOSSIBLE_NO})


class MoveError(GoFishError):
    """A move that cannot be read or played: ``index`` is its number in the record (1 first; None outside a
    record), ``text`` its notation, ``reason`` an :class:`Illegal` (None: the text cannot be read)."""

    def __init__(self, detail: str, index: int | None = None, text: str | None = None,
                 reason: Illegal | None = None):
        self.detail = detail
        self.index = index
        self.text = text
        self.reason = reason
        where = "" if index is None else f"move {index}" + (f" ({text})" if text is not None else "") + ": "
        super().__init__(where + detail)


class NotationError(MoveError):
    """Move text that cannot be read: bad notation, an unknown player or suit."""


class IllegalMove(MoveError):
    """A readable move that the rules do not allow here; ``reason`` says which rule."""


@dataclass(frozen=True)
class Move:
    """``asker`` asks ``asked`` for ``suit`` (seat and suit numbers); ``answer`` True (yes), False (no), or
    None (asked, not answered yet)."""

    asker: int
    asked: int
    suit: int
    answer: bool | None = None

    def question(self) -> Move:
        return Move(self.asker, self.asked, self.suit)


@dataclass(frozen=True, eq=False)
class NamedQuestion(Move):
    """A question for a suit nobody has named or asked about yet that gives it the name ``name`` (GOFISH.md:
    the first to ask names a suit). It is the same action as the plain :class:`Move` (equal to it, same
    hash): only the suit's name comes with it (:meth:`GoFish.push_named`)."""

    name: str = ""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return (self.asker, self.asked, self.suit, self.answer) == (other.asker, other.asked, other.suit,
                                                                        other.answer)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.asker, self.asked, self.suit, self.answer))


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``reason`` is ``determined`` or ``four`` (``winner`` won), ``invalid`` (``loser``
    broke a rule; no winner), ``draw`` (a position repeated) or ``stuck`` (nobody has a legal question)."""

    winner: int | None
    reason: str
    loser: int | None = None


class History(Sequence[str]):
    """The moves that led to a state, as written: a persistent list that shares its past with the states
    before it, so a game of n moves keeps n texts, not n²/2 (each state holds one new text and a link).

    >>> h = History().appended("0>1:A?").replaced_last("0>1:A+").appended("1>0:B-")
    >>> len(h), h[-1], list(h), h.parent[-1]
    (2, '1>0:B-', ['0>1:A+', '1>0:B-'], '0>1:A+')
    """

    __slots__ = ("parent", "last", "_length")

    def __init__(self, parent: History | None = None, last: str = "") -> None:
        self.parent = parent
        self.last = last
        self._length: int = 0 if parent is None else len(parent) + 1

    def appended(self, text: str) -> History:
        """This history with ``text`` after it."""
        return History(self, text)

    def replaced_last(self, text: str) -> History:
        """This history with its last text replaced (an open question by its answered form); an empty one
        (a state whose past was dropped, as the solver's are) gets ``text`` alone."""
        return History(self.parent if self.parent is not None else self, text)

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts())

    def _texts(self) -> list[str]:
        out: list[str] = []
        node: History | None = self
        while node is not None and node.parent is not None:
            out.append(node.last)
            node = node.parent
        out.reverse()
        return out

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, int) and self._length and index in (-1, self._length - 1):
            return self.last
        return self._texts()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            return self is other or (self._length == other._length and self._texts() == other._texts())
        if isinstance(other, (tuple, list)):
            return self._texts() == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._texts()))

    def __repr__(self) -> str:
        return f"History({self._texts()!r})"


@dataclass(frozen=True)
class State:
    """Everything a position is: bounds on the initial table, the shift since, who asks, the open question,
    the outcome and the moves that led here (their texts as written)."""

    low0: Grid
    high0: Grid
    shift: Grid
    turn: int | None
    pending: Move | None
    outcome: Outcome | None
    moves: History
    key: tuple[object, ...] | None = None  # the position, counted for repetitions
    cache: dict[object, object] = field(default_factory=dict, compare=False, repr=False)


def _set(grid: Grid, p: int, s: int, value: int) -> Grid:
    row = list(grid[p])
    row[s] = value
    return grid[:p] + (tuple(row),) + grid[p + 1:]


class GoFish:
    """A game of Quantum Go Fish in progress, changed by :meth:`push` and restored by :meth:`pop`.

    ``players``: a number or the players' names; ``suits``: a number (default: as many as players) or the
    suits' names; ``rules``: a :class:`Rules`, an object of options or a preset name; ``engine``: the exact
    engine (default :class:`~quaternity_cp.gofish.bounds.FlowEngine`).
    """

    def __init__(self, players: "int | Sequence[str]", suits: "int | Sequence[str] | None" = None,
                 suit_size: int = 4, rules: "Rules | Mapping[str, object] | str | None" = None,
                 engine: BoundsEngine | None = None):
        self.setup = Setup.of(players, suits, suit_size)
        self.rules = rules if isinstance(rules, Rules) else Rules.from_dict(rules)
        if self.rules.first >= self.setup.player_count:
            raise GoFishRulesError(f"option first: seat {self.rules.first} is not one of the "
                                   f"{self.setup.player_count} seats")
        self.engine: BoundsEngine = engine if engine is not None else FlowEngine()
        P, K, S = self.setup.player_count, self.setup.suit_count, self.setup.suit_size
        top = S - 1 if self.rules.no_initial_four else S
        start = State(((0,) * K,) * P, ((top,) * K,) * P, ((0,) * K,) * P, None, None, None, History())
        start = replace(start, turn=self._next_turn(start, self.rules.first, include_start=True))
        if start.turn is None:
            start = replace(start, outcome=Outcome(None, "stuck"))
        start = replace(start, key=self._key(start))
        self._stack: list[State] = [start]
        self._seen: dict[tuple[object, ...], int] = {}
        # suits named in play (:meth:`name_suit`): (the stack's depth when named, the setup before, the suit)
        self._namings: list[tuple[int, Setup, int]] = []
        self._count(start, 1)

    # -- what is known -------------------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self._stack[-1]

    def states(self) -> list[State]:
        """Every state of the game so far: the start first, then the one after each :meth:`push`."""
        return list(self._stack)

    @property
    def players(self) -> int:
        return self.setup.player_count

    @property
    def suits(self) -> int:
        return self.setup.suit_count

    @property
    def suit_size(self) -> int:
        return self.setup.suit_size

    @property
    def turn(self) -> int | None:
        """The seat to ask (or, with a question open, the asker waiting for its answer); None when over."""
        st = self.state
        return None if st.outcome is not None else st.turn

    @property
    def pending(self) -> Move | None:
        """The open question, if any."""
        return self.state.pending

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome

    @property
    def over(self) -> bool:
        return self.state.outcome is not None

    @property
    def winner(self) -> int | None:
        out = self.state.outcome
        return None if out is None else out.winner

    @property
    def moves(self) -> list[str]:
        """The moves played, in notation (the last may be an open question)."""
        return list(self.state.moves)

    def hands(self, st: State | None = None) -> tuple[int, ...]:
        """How many cards each player holds now."""
        st = st if st is not None else self.state
        H = self.setup.hand_size
        return tuple(H + sum(row) for row in st.shift)

    def tables(self, st: State | None = None) -> Tables:
        """What is known of the current table of counts."""
        st = st if st is not None else self.state
        S = self.setup.suit_size
        P, K = self.players, self.suits
        low = tuple(tuple(max(0, st.low0[p][s] + st.shift[p][s]) for s in range(K)) for p in range(P))
        high = tuple(tuple(min(S, st.high0[p][s] + st.shift[p][s]) for s in range(K)) for p in range(P))
        return Tables(self.hands(st), (S,) * K, low, high)

    def bounds(self, st: State | None = None) -> Bounds:
        """The exact facts of the current table: each cell's range over the consistent tables."""
        st = st if st is not None else self.state
        got = st.cache.get("bounds")
        if not isinstance(got, Bounds):
            got = self.engine.bounds(self.tables(st))
            st.cache["bounds"] = got
        return got

    @property
    def determined(self) -> bool:
        """Exactly one table of counts is consistent."""
        return self.bounds().determined

    def count(self, limits: Limits | None = None) -> int:
        """The number of consistent tables (of the deal, equivalently of now), exactly."""
        return count_tables(self.tables(), limits)

    def fours(self, st: State | None = None) -> list[int]:
        """The seats that hold a four under the rules' ``four`` (in seat order)."""
        st = st if st is not None else self.state
        if self.rules.four == "off":
            return []
        b = self.bounds(st)
        if not b.feasible:
            return []
        S = self.setup.suit_size
        named = [p for p in range(self.players) if S in b.low[p]]
        if self.rules.four == "named":
            return named
        out = []
        for p in range(self.players):
            if p in named:
                out.append(p)
            elif S in b.example[p] and holds_a_whole_suit(self.engine, self.tables(st), p):
                out.append(p)  # (a consistent table without a whole suit at p rules it out at once)
        return out

    # -- legality ------------------------------------------------------------------------------------------
    def _asked(self, st: State, asker: int, suit: int) -> State:
        """The state after ``asker`` asks for ``suit`` (its proof that it holds one), whoever is asked."""
        need = 1 - st.shift[asker][suit]
        return replace(st, low0=_set(st.low0, asker, suit, max(st.low0[asker][suit], need)), cache={})

    def _after_question(self, st: State, asker: int, suit: int) -> State:
        """The state right after ``asker`` asks for ``suit`` (kept in ``st``'s cache, with what is known of it)."""
        key = ("asked", asker, suit)
        got = st.cache.get(key)
        if not isinstance(got, State):
            got = self._asked(st, asker, suit)
            st.cache[key] = got
        return got

    def _cell(self, st: State, p: int, s: int) -> tuple[int, int] | None:
        """Cell (p, s)'s exact range in ``st`` (None: no table is consistent): from the state's bounds when
        they are known, else from the engine's one-cell answer when it has one (legality asks about one cell
        of the state after a question; every cell's range waits until someone asks for it)."""
        got = st.cache.get("bounds")
        if not isinstance(got, Bounds):
            one = getattr(self.engine, "cell", None)
            if one is not None:
                key = ("cell", p, s)
                known = st.cache.get(key)
                if known is None:
                    known = st.cache[key] = (one(self.tables(st), p, s),)
                return known[0]  # type: ignore[no-any-return, index]
            got = self.bounds(st)
        return (got.low[p][s], got.high[p][s]) if got.feasible else None

    def _question_fault(self, st: State, move: Move) -> Illegal | None:
        a, b, s = move.asker, move.asked, move.suit
        if st.turn != a:
            return Illegal.NOT_ON_TURN
        if a == b:
            return Illegal.SELF_QUESTION
        if self.hands(st)[b] == 0:
            return Illegal.TARGET_EMPTY
        if self.bounds(st).high[a][s] < 1:
            return Illegal.ASKER_LACKS_SUIT
        if self.rules.ask_void == "forbid" and self._void(self._after_question(st, a, s), b, s):
            return Illegal.ASKED_VOID
        return None

    def _answer_fault(self, st: State, move: Move) -> Illegal | None:
        """Why ``move``'s answer is not allowed, its question not asked yet in ``st``."""
        return self._judge(self._cell(self._after_question(st, move.asker, move.suit), move.asked, move.suit), move)

    def _answer_fault_asked(self, st: State, move: Move) -> Illegal | None:
        """Why ``move``'s answer is not allowed, its question open in ``st``."""
        return self._judge(self._cell(st, move.asked, move.suit), move)

    def _void(self, st: State, p: int, s: int) -> bool:
        """Whether ``p`` provably holds none of suit ``s`` in ``st`` (or no table is consistent)."""
        cell = self._cell(st, p, s)
        return cell is None or cell[1] < 1

    @staticmethod
    def _judge(cell: tuple[int, int] | None, move: Move) -> Illegal | None:
        """Why ``move``'s answer is impossible, given the asked player's range of the suit after the question."""
        if move.answer:
            return None if cell is not None and cell[1] >= 1 else Illegal.IMPOSSIBLE_YES
        return None if cell is not None and cell[0] == 0 else Illegal.IMPOSSIBLE_NO

    def _questions(self, st: State, asker: int) -> Iterator[Move]:
        hands = self.hands(st)
        if hands[asker] == 0:
            return
        high = self.bounds(st).high
        for s in range(self.suits):
            if high[asker][s] < 1:
                continue
            for b in range(self.players):
                if b == asker or hands[b] == 0:
                    continue
                if self.rules.ask_void == "forbid" and self._void(self._after_question(st, asker, s), b, s):
                    continue
                yield Move(asker, b, s)

    def legal_questions(self) -> list[Move]:
        """The questions the player on turn may ask (by suit, then by asked seat); none when a question is
        open or the game is over."""
        st = self.state
        if st.outcome is not None or st.pending is not None or st.turn is None:
            return []
        return list(self._questions(st, st.turn))

    def legal_answers(self) -> list[bool]:
        """The answers the open question may get (True: yes, False: no); none without an open question."""
        st = self.state
        if st.outcome is not None or st.pending is None:
            return []
        q = st.pending
        return [yes for yes in (True, False) if self._answer_fault_asked(st, Move(q.asker, q.asked, q.suit, yes)) is None]

    def legal_moves(self) -> list[Move]:
        """Every legal question with every legal answer to it (or the legal answers to the open question)."""
        st = self.state
        if st.outcome is not None:
            return []
        if st.pending is not None:
            q = st.pending
            return [Move(q.asker, q.asked, q.suit, yes) for yes in self.legal_answers()]
        out = []
        for q in self.legal_questions():
            for yes in (True, False):
                if self._answer_fault(st, Move(q.asker, q.asked, q.suit, yes)) is None:
                    out.append(Move(q.asker, q.asked, q.suit, yes))
        return out

    def check(self, move: "Move | str") -> Illegal | None:
        """Why ``move`` is not allowed now, or None when it is (an unanswered question: the question alone)."""
        st = self.state
        if isinstance(move, str):
            move = self.parse_move(move)
        if st.outcome is not None:
            return Illegal.GAME_OVER
        if st.pending is not None:
            if move.answer is None or move.question() != st.pending:
                return Illegal.QUESTION_OPEN if move.answer is None else Illegal.WRONG_ANSWER
            return self._answer_fault_asked(st, move)
        fault = self._question_fault(st, move)
        if fault is not None or move.answer is None:
            return fault
        return self._answer_fault(st, move)

    def is_legal(self, move: "Move | str") -> bool:
        return self.check(move) is None

    # -- turns and wins ------------------------------------------------------------------------------------
    def _has_question(self, st: State, p: int) -> bool:
        return next(self._questions(st, p), None) is not None

    def _next_turn(self, st: State, start: int, include_start: bool) -> int | None:
        """The first seat from ``start`` (itself first when ``include_start``, else last) that holds cards and
        has a legal question."""
        P = self.players
        order = [(start + i) % P for i in range(P)] if include_start else [(start + i) % P for i in range(1, P + 1)]
        for p in order:
            if self._has_question(st, p):
                return p
        return None

    def _win(self, st: State, mover: int) -> Outcome | None:
        """Who wins now, the ``mover`` having asked (GOFISH.md, winning and ``priority``)."""
        if not self.bounds(st).feasible:
            return None
        determined = self.bounds(st).determined
        fours = set(self.fours(st))
        order = [(mover + i) % self.players for i in range(self.players)]
        if self.rules.priority == "mover":
            if determined:
                return Outcome(mover, "determined")
            if mover in fours:
                return Outcome(mover, "four")
            for p in order[1:]:
                if p in fours:
                    return Outcome(p, "four")
            return None
        for p in order:
            if p in fours:
                return Outcome(p, "four")
        return Outcome(mover, "determined") if determined else None

    def _key(self, st: State) -> tuple[object, ...]:
        b = self.bounds(st)
        return (st.turn, self.hands(st), b.low, b.high)

    def _count(self, st: State, step: int) -> None:
        if st.key is not None:
            self._seen[st.key] = self._seen.get(st.key, 0) + step
            if not self._seen[st.key]:
                del self._seen[st.key]

    # -- the game graph (for the solver) ------------------------------------------------------------------
    def successors(self, st: State) -> list[tuple[Move, State]]:
        """Every legal ply from ``st`` (a state of this game, its moves' texts left out of the new ones) with
        the state it leads to: each legal question (answer None) when no question is open, else each legal
        answer to it; none when the game is over. Under ``repetition = draw`` a repeat is judged against this
        game's own history."""
        if st.outcome is not None:
            return []
        if st.pending is None:
            if st.turn is None:
                return []
            return [(q, self._question(st, q, "")) for q in self._questions(st, st.turn)]
        q = st.pending
        cell = self._cell(st, q.asked, q.suit)
        out = []
        for yes in (True, False):
            move = Move(q.asker, q.asked, q.suit, yes)
            if self._judge(cell, move) is None:
                out.append((move, self._answer(st, move, "")))
        return out

    def seen_positions(self) -> list[tuple[object, ...]]:
        """The positions (turn, hands, exact low and high of the table) this game has counted for repetitions,
        its current one included."""
        return list(self._seen)

    # -- playing -------------------------------------------------------------------------------------------
    def _question(self, st: State, move: Move, text: str) -> State:
        asked = self._asked(st, move.asker, move.suit)
        asked = replace(asked, pending=move.question(), moves=st.moves.appended(text), key=None)
        # the same tables as the state after the question (kept in ``st``'s cache): what is known of them too
        asked = replace(asked, cache=self._after_question(st, move.asker, move.suit).cache)
        if self.rules.win_after_ask:
            won = self._win(asked, move.asker)
            if won is not None:
                return replace(asked, outcome=won, pending=None)
        return asked

    def _answer(self, st: State, move: Move, text: str) -> State:
        assert st.pending is not None
        a, b, s = move.asker, move.asked, move.suit
        if move.answer:
            low0 = _set(st.low0, b, s, max(st.low0[b][s], 1 - st.shift[b][s]))
            shift = _set(st.shift, b, s, st.shift[b][s] - 1)
            shift = _set(shift, a, s, shift[a][s] + 1)
            new = replace(st, low0=low0, shift=shift, cache={})
        else:
            new = replace(st, high0=_set(st.high0, b, s, min(st.high0[b][s], -st.shift[b][s])), cache={})
        new = replace(new, pending=None, moves=st.moves.replaced_last(text))
        won = self._win(new, a)
        if won is not None:
            return replace(new, outcome=won)
        turn: int | None = None
        if move.answer and self.rules.after_yes == "again" and self._has_question(new, a):
            turn = a
        else:
            turn = self._next_turn(new, a, include_start=False)
        new = replace(new, turn=turn)
        if turn is None:
            return replace(new, outcome=Outcome(None, "stuck"))
        new = replace(new, key=self._key(new))
        if self.rules.repetition == "draw" and new.key in self._seen:
            return replace(new, outcome=Outcome(None, "draw"))
        return new

    def push(self, move: "Move | str") -> Move:
        """Play ``move`` (a :class:`Move` or its notation): a question with its answer, a question alone
        (``?``), or the answer to the open question. Raises :class:`IllegalMove` naming the rule broken (or,
        with ``invalid = lose``, ends the game with the player at fault the loser)."""
        st = self.state
        index = len(st.moves) + (0 if st.pending is not None else 1)
        if isinstance(move, str):
            move = self.parse_move(move, index)
        self._check_values(move, index)
        text = self.move_text(move)
        if st.outcome is not None:
            raise IllegalMove(Illegal.GAME_OVER.value, index, text, Illegal.GAME_OVER)
        if st.pending is not None:
            if move.answer is None:
                raise IllegalMove(Illegal.QUESTION_OPEN.value, index, text, Illegal.QUESTION_OPEN)
            if move.question() != st.pending:
                raise IllegalMove(f"{Illegal.WRONG_ANSWER.value} ({self.move_text(st.pending)})", index, text,
                                  Illegal.WRONG_ANSWER)
            new = self._play_answer(st, move, text, index)
        else:
            fault = self._question_fault(st, move)
            if fault is not None:
                new = self._fault(st, fault, move, text, index, move.asker, replace(st, moves=st.moves.appended(text)))
            else:
                new = self._question(st, move, text)
                if move.answer is not None and new.outcome is None:
                    new = self._play_answer(new, move, text, index)
        self._stack.append(new)
        self._count(new, 1)
        return move

    def _play_answer(self, st: State, move: Move, text: str, index: int) -> State:
        """Answer the open question of ``st`` (the state right after it was asked)."""
        fault = self._answer_fault_asked(st, move)
        if fault is not None:
            return self._fault(st, fault, move, text, index, move.asked,
                               replace(st, pending=None, moves=st.moves.replaced_last(text)))
        return self._answer(st, move, text)

    def _fault(self, st: State, fault: Illegal, move: Move, text: str, index: int, player: int,
               ended: State) -> State:
        lose = fault in ASKER_FAULTS or fault in ANSWER_FAULTS
        if self.rules.invalid == "lose" and lose:
            return replace(ended, outcome=Outcome(None, "invalid", loser=player), key=None)
        detail = fault.value
        if fault is Illegal.NOT_ON_TURN and st.turn is not None:
            detail += f" ({seat_name(self.setup.players if self.setup.named_players else None, st.turn)} is)"
        raise IllegalMove(detail, index, text, fault)

    def pop(self) -> Move:
        """Undo the last :meth:`push`; returns the move it took back (what :meth:`push` returned: a question
        with its answer, a question alone, or the answer to the open question), as Quaternity's
        :meth:`~quaternity_cp.quartets.position.Position.pop` does. Its notation: :meth:`move_text`."""
        if len(self._stack) == 1:
            raise GoFishError("no move to undo")
        st = self._stack.pop()
        before = self._stack[-1]
        self._count(st, -1)
        if before.pending is not None:  # the answer to the question open before it
            text = st.moves[-1]
            taken: Move = Move(before.pending.asker, before.pending.asked, before.pending.suit,
                               text.endswith("+"))
        else:
            taken = self.parse_move(st.moves[-1], len(before.moves) + 1)
        while self._namings and self._namings[-1][0] >= len(self._stack):
            self.setup = self._namings.pop()[1]  # a suit named with the move taken back is unnamed again
        return taken

    def ask(self, asker: int, asked: int, suit: int) -> Move:
        """Ask, without an answer yet."""
        return self.push(Move(asker, asked, suit))

    def answer(self, yes: bool) -> Move:
        """Answer the open question."""
        q = self.pending
        if q is None:
            raise IllegalMove(Illegal.WRONG_ANSWER.value + " (no question is open)", len(self.state.moves), None,
                              Illegal.WRONG_ANSWER)
        return self.push(Move(q.asker, q.asked, q.suit, yes))

    def copy(self) -> GoFish:
        other = GoFish.__new__(GoFish)
        other.setup, other.rules, other.engine = self.setup, self.rules, self.engine
        other._stack = list(self._stack)
        other._seen = dict(self._seen)
        other._namings = list(self._namings)
        return other

    # -- naming suits in play (GOFISH.md: the first to ask names a suit) -----------------------------------
    def named_suits(self) -> frozenset[int]:
        """The suits that carry a name given to them (at the start, or in play by :meth:`name_suit`)."""
        first = self._namings[0][1] if self._namings else self.setup
        if first.named_suits:
            return frozenset(range(self.suits))
        return frozenset(suit for _, _, suit in self._namings)

    def fresh_suits(self) -> list[int]:
        """The suits nobody has named and nobody has asked about (in order): they are interchangeable (every
        cell of theirs has the bounds of the start), so asking for "a new suit" asks for the first of them."""
        if self.over:
            return []
        start, st = self._stack[0], self.state
        named = self.named_suits()
        out = []
        for s in range(self.suits):
            if s in named or (st.pending is not None and st.pending.suit == s):
                continue
            if all(st.low0[p][s] == start.low0[p][s] and st.high0[p][s] == start.high0[p][s] and st.shift[p][s] == 0
                   for p in range(self.players)):
                out.append(s)
        return out

    def check_suit_name(self, suit: int, name: object) -> tuple[str, ...]:
        """The suits' names once ``suit`` is named ``name``; raises :class:`GoFishRulesError` (one line) when it
        cannot be: ``suit`` is not a fresh suit (:meth:`fresh_suits`), or the name is not one a record's
        ``"suits"`` takes (non-empty, no spaces at its ends, none of ``> : + - ?``, not a number) or is another
        suit's name or letter already."""
        if isinstance(suit, bool) or not isinstance(suit, int) or not 0 <= suit < self.suits:
            raise GoFishRulesError(f"unknown suit {suit!r}")
        if suit not in self.fresh_suits():
            raise GoFishRulesError(f"suit {self.setup.suits[suit]} cannot be named now: only a suit nobody has "
                                   "named or asked about can be")
        if not isinstance(name, str):
            raise GoFishRulesError(f"suit name {name!r}: a name is text")
        if name in self.setup.suits:
            raise GoFishRulesError(f"suit name {name!r}: already the name of a suit")
        names = list(self.setup.suits)
        names[suit] = name
        try:
            return Setup.of(self.setup.player_count, names, self.setup.suit_size).suits  # as a record's are checked
        except GoFishRulesError as err:
            reason = str(err).partition(": ")[2] or str(err)
            raise GoFishRulesError(f"suit name: {reason}") from err

    def name_suit(self, suit: int, name: str) -> None:
        """Give the fresh suit ``suit`` the name ``name`` (see :meth:`check_suit_name`); the record then writes
        the suits' names (those still unnamed keep their letters). Taking back the next move (:meth:`pop`)
        unnames it again."""
        names = self.check_suit_name(suit, name)
        self._namings.append((len(self._stack), self.setup, suit))
        self.setup = replace(self.setup, suits=names, named_suits=True)

    def push_named(self, move: Move, name: str) -> Move:
        """Ask ``move`` (its suit a fresh one) naming its suit ``name``: :meth:`name_suit` then :meth:`push`,
        both or neither (a refused move leaves the suit unnamed); :meth:`pop` undoes both."""
        index = len(self.state.moves) + (0 if self.state.pending is not None else 1)
        try:
            self.name_suit(move.suit, name)
        except GoFishRulesError as err:
            raise NotationError(str(err), index) from None
        try:
            return self.push(Move(move.asker, move.asked, move.suit, move.answer))
        except BaseException:
            self.setup = self._namings.pop()[1]
            raise

    # -- notation ------------------------------------------------------------------------------------------
    def _check_values(self, move: Move, index: int) -> None:
        for what, value, n in (("asker", move.asker, self.players), ("asked player", move.asked, self.players),
                               ("suit", move.suit, self.suits)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
                raise NotationError(f"unknown {what} {value!r}", index)
        if move.answer is not None and not isinstance(move.answer, bool):
            raise NotationError(f"the answer must be True, False or None, not {move.answer!r}", index)

    def _seat(self, name: str, index: int | None, text: str) -> int:
        names = self.setup.players
        if name in names:
            return names.index(name)
        if name.isdigit() and len(name) < 4 and int(name) < self.players and name == str(int(name)):
            return int(name)
        raise NotationError(f"unknown player {name!r}", index, text)

    def parse_move(self, text: str, index: int | None = None) -> Move:
        """The move written ``ASKER>ASKED:SUIT`` and ``+``, ``-`` or ``?`` (names or seat numbers; suit names,
        or letters when the suits are not named)."""
        if not isinstance(text, str):
            raise NotationError(f"expected a move like \"0>1:A+\", got {text!r}", index)
        mark = text[-1:]
        answers = {"+": True, "-": False, "?": None}
        if mark not in answers or ">" not in text or ":" not in text:
            raise NotationError("expected ASKER>ASKED:SUIT then +, - or ?", index, text)
        people, _, suit = text[:-1].partition(":")
        asker, _, asked = people.partition(">")
        if suit not in self.setup.suits:
            raise NotationError(f"unknown suit {suit!r}", index, text)
        return Move(self._seat(asker, index, text), self._seat(asked, index, text), self.setup.suits.index(suit),
                    answers[mark])

    def move_text(self, move: Move) -> str:
        """The notation of ``move`` (names when the players are named)."""
        names = self.setup.players
        mark = "?" if move.answer is None else "+" if move.answer else "-"
        return f"{names[move.asker]}>{names[move.asked]}:{self.setup.suits[move.suit]}{mark}"

    # -- records -------------------------------------------------------------------------------------------
    def record(self) -> dict[str, object]:
        """The game as a JSON record (GOFISH.md's notation)."""
        s = self.setup
        return {"game": GAME_NAME, "players": list(s.players) if s.named_players else s.player_count,
                "suits": list(s.suits) if s.named_suits else s.suit_count, "suit_size": s.suit_size,
                "rules": self.rules.to_dict(), "moves": list(self.state.moves)}

    @classmethod
    def from_record(cls, data: Mapping[str, object], engine: BoundsEngine | None = None) -> GoFish:
        """The game a record describes, every move replayed (errors name the move)."""
        if not isinstance(data, Mapping):
            raise GoFishError(f"a record is an object, not {type(data).__name__}")
        check_game_field(data, missing_ok=False)
        for key in data:
            if key not in RECORD_KEYS:
                raise GoFishError(f"unknown field {key!r} in a record (known: {', '.join(RECORD_KEYS)})")
        if "players" not in data or "moves" not in data:
            raise GoFishError("a record needs the fields 'players' and 'moves'")
        players, suits, size, rules, moves = (data["players"], data.get("suits"), data.get("suit_size", 4),
                                              data.get("rules"), data["moves"])
        texts = record_moves(moves)
        if rules is not None and not isinstance(rules, (str, Mapping)):
            raise GoFishRulesError(f"option rules: expected an object or a preset name, got {rules!r}")
        game = cls(players, suits, size, rules, engine)  # type: ignore[arg-type]
        for text in texts:
            game.push(text)
        return game


def check_game_field(data: Mapping[str, object], *, missing_ok: bool = True) -> None:
    """A record's ``"game"`` is Go Fish's (or absent, where ``missing_ok``): a file of another game is named as
    such, before any field Go Fish would miss in it."""
    if "game" not in data:
        if missing_ok:
            return
        raise GoFishError(f"missing field 'game' (expected \"{GAME_NAME}\")")
    if data["game"] != GAME_NAME:
        raise GoFishError(f"field 'game': expected \"{GAME_NAME}\", got {show(data['game'])}")


def record_moves(moves: object) -> list[str]:
    """A record's ``"moves"`` read (not played): a list of at most the move cap of every game's records
    (:data:`~quaternity_cp.jsonio.MAX_MOVES`) of texts, an open question (``?``) only last; raises
    :class:`GoFishError` (one line naming the field or the move) otherwise."""
    if not isinstance(moves, list):
        raise GoFishError(f"field 'moves': expected a list of moves, got {show(moves)}")
    try:
        check_move_count(len(moves))
    except InputRefused as err:
        raise GoFishError(str(err)) from None
    for i, text in enumerate(moves, 1):
        if not isinstance(text, str):
            raise NotationError(f"expected a move like \"0>1:A+\", got {show(text)}", i)
        if text.endswith("?") and i != len(moves):
            raise NotationError("an open question (?) can only be the last move", i, text)
    return list(moves)


__all__ = ["GAME_NAME", "Illegal", "MoveError", "NotationError", "IllegalMove", "Move", "NamedQuestion", "Outcome",
           "History", "State", "record_moves",
           "GoFish", "ASKER_FAULTS", "ANSWER_FAULTS"]
