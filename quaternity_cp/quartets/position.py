"""A Quaternity position: the constraint state plus claims, scores and whose turn.

:class:`Position` is changed by :meth:`Position.push` and restored by
:meth:`Position.pop`. Every rule of docs/rules.md lives here; the engines
only answer questions about a :class:`~quaternity_cp.quartets.constraints.Constraints`.

>>> from quaternity_cp import Game, Position
>>> pos = Position(Game(3, 3, 2))
>>> _ = pos.push_str("0>2:A0+")
>>> pos.claimed, pos.scores
({0: 0}, (1, 0, 0))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from . import effects, outcome
from .constraints import Constraints
from .constraints import fast_replace as replace  # dataclasses.replace, cheaper (hot in the solver)
from .engines import Analysis, Engine, get_engine
from ..errors import Illegal, IllegalMoveError, InvalidMoveError
from .game import Declaration, Game, Move, Question
from .rules import Rules


@dataclass(frozen=True)
class State:
    """Everything a position is, as one immutable value (one per ply on the stack)."""

    constraints: Constraints
    claimed: tuple[int, ...]  # per set: the claiming seat, or -1
    scores: tuple[int, ...]
    reached: tuple[int, ...]  # per seat: the ply at which its score last rose (for tie = first)
    turn: tuple[int, ...]  # seats that may move now (several: a free choice); () when over
    pending: Question | None = None  # an open question
    loser: int | None = None  # the seat that lost by an illegal move (invalid = lose)
    ply: int = 0
    last_claims: tuple[tuple[int, int], ...] = ()  # (set, seat) claimed by the last move
    # rule option dealt (classic quartets) only:
    opening: bool = False  # no question asked yet: any seat may put down a set it was dealt
    window: tuple[int, int, int] | None = None  # (asker, giver, set) right after a yes: the asker may put the set down
    first: tuple[int, ...] = (0,)  # the seats that may move first (several: not recorded, any may)

    @property
    def over(self) -> bool:
        return self.loser is not None or -1 not in self.claimed  # -1: a set not claimed yet


class Position:
    """A position of a game under some rules, with push/pop of moves.

    ``engine`` is an engine name (``"cpsat"``, ``"flow"``) or instance; every
    legality decision and analysis goes through it.
    """

    def __init__(
        self,
        game: Game,
        rules: "Rules | str | dict[str, Any] | None" = None,
        *,
        engine: "str | Engine | None" = None,
        state: State | None = None,
        first: int | None = None,
        tie_break: int | None = None,
        history: bool = True,
    ):
        """``first``: the seat that moves first (default seat 0; under ``dealt`` any seat
        may, until the first question says who did). ``tie_break``: under ``tie = random``,
        the seat drawn among those tied for first (see :meth:`winners`)."""
        self.game = game
        # history = False: only the last move stays on the undo stack (one pop), so that
        # replaying a long record nobody will undo takes memory independent of its length
        self.history = history
        self.rules = Rules.from_spec(rules)
        self.engine = get_engine(engine)
        self.tie_break = tie_break
        self._analysis_cache: dict[Constraints, Analysis] = {}
        self._feasible_cache: dict[Constraints, bool] = {}
        if first is not None and not (isinstance(first, int) and 0 <= first < game.players):
            raise InvalidMoveError(f"unknown player {first!r}")
        if state is None:
            P = game.players
            if first is not None:
                starters: tuple[int, ...] = (first,)
            elif self.rules.dealt:
                starters = tuple(range(P))
            else:
                starters = (0,)
            state = State(
                constraints=Constraints.initial(P, game.sets, game.set_size, self.rules.initial_quartets),
                claimed=(-1,) * game.sets,
                scores=(0,) * P,
                reached=(0,) * P,
                turn=starters,
            )
            if self.rules.dealt:
                state = replace(state, opening=True, first=starters)
                state = replace(state, turn=self._opening_turn(state))
        self._state = state
        self._stack: list[tuple[Move, State, IllegalMoveError | None]] = []

    # -- read access ------------------------------------------------------------
    @property
    def state(self) -> State:
        return self._state

    @property
    def constraints(self) -> Constraints:
        return self._state.constraints

    @property
    def turn(self) -> tuple[int, ...]:
        """The seats that may move now: one, several when the hand-over leaves a free choice, none when over."""
        return self._state.turn

    @property
    def pending(self) -> Question | None:
        return self._state.pending

    @property
    def over(self) -> bool:
        return self._state.over

    @property
    def loser(self) -> int | None:
        return self._state.loser

    @property
    def scores(self) -> tuple[int, ...]:
        return self._state.scores

    @property
    def hands(self) -> tuple[int, ...]:
        return self._state.constraints.hands

    @property
    def claimed(self) -> dict[int, int]:
        """Claimed sets: set -> seat."""
        return {s: p for s, p in enumerate(self._state.claimed) if p >= 0}

    @property
    def moves(self) -> list[Move]:
        return [m for m, _, _ in self._stack]

    @property
    def illegal(self) -> IllegalMoveError | None:
        """The illegal move that ended the game (``invalid = lose``), if any."""
        return self._stack[-1][2] if self._stack else None

    def winners(self) -> list[int]:
        """The winning seats once the game is over (under the tie option, :func:`quaternity_cp.quartets.outcome.winners`;
        ``tie = random``: the recorded draw, else, not drawn yet, all the tied seats); [] before."""
        st = self._state
        if not st.over:
            return []
        return outcome.winners(st.scores, tie=self.rules.tie, reached=st.reached, out=st.loser,
                               tie_break=self.tie_break)

    def tied(self) -> list[int]:
        """The seats tied for the most sets once the game is over (one seat: no tie); [] before."""
        st = self._state
        return outcome.tied(st.scores, out=st.loser) if st.over else []

    def copy(self) -> "Position":
        other = Position(self.game, self.rules, engine=self.engine, state=self._state, tie_break=self.tie_break,
                         history=self.history)
        other._stack = list(self._stack)
        other._analysis_cache = self._analysis_cache
        other._feasible_cache = self._feasible_cache
        return other

    # -- engine access (cached) ---------------------------------------------------
    def _feasible(self, c: Constraints) -> bool:
        hit = self._feasible_cache.get(c)
        if hit is None:
            a = self._analysis_cache.get(c)
            hit = a.feasible if a is not None else self.engine.feasible(c)
            if len(self._feasible_cache) > 50_000:
                self._feasible_cache.clear()
            self._feasible_cache[c] = hit
        return hit

    def _analyze(self, c: Constraints) -> Analysis:
        hit = self._analysis_cache.get(c)
        if hit is None:
            hit = self.engine.analyze(c)
            if len(self._analysis_cache) > 20_000:
                self._analysis_cache.clear()
            self._analysis_cache[c] = hit
        return hit

    def analysis(self) -> Analysis:
        """Exact facts of the current position: validity, possible owners, possible quartets."""
        return self._analyze(self._state.constraints)

    def is_valid(self) -> bool:
        """Whether at least one consistent deal remains."""
        return self._feasible(self._state.constraints)

    def answers(self) -> dict[str, bool] | None:
        """For an open question, which answers are legal: ``{"yes": bool, "no": bool}``."""
        q = self._state.pending
        if q is None:
            return None
        c = self._state.constraints
        return {  # the rule: effects.legal_answers, decided here by restricting the card's domain
            "yes": self._feasible(c.restrict(q.card, effects.answer_domain(q.target, True))),
            "no": self._feasible(c.restrict(q.card, effects.answer_domain(q.target, False))),
        }

    # -- constraints added by moves --------------------------------------------
    def question_constraints(self, asker: int, card: int, c: Constraints | None = None) -> Constraints:
        """What asking for ``card`` tells (:func:`quaternity_cp.quartets.effects.question`)."""
        c = c or self._state.constraints
        return effects.question(c, asker, card, silence=self.rules.silence)

    # -- classic quartets: put-downs ---------------------------------------------------
    @property
    def putdowns_open(self) -> bool:
        """Under ``dealt``: whether a put-down may still be due (at the deal, or right after a yes)."""
        st = self._state
        return st.opening or st.window is not None

    def settled_constraints(self, c: Constraints | None = None) -> Constraints:
        """Under ``dealt``: the constraints once every put-down due has been made, so that
        nobody holds a complete unclaimed set (:func:`quaternity_cp.quartets.effects.settle`). Other rules: unchanged."""
        c = self._state.constraints if c is None else c
        return effects.settle(c) if self.rules.dealt else c

    def _settle(self, st: State, move: Move) -> Constraints:
        """The settled constraints before ``move`` (not a put-down); raises when a put-down was due."""
        c = st.constraints
        if not self.rules.dealt or not (st.opening or st.window is not None):
            return c
        settled = self.settled_constraints(c)
        if settled is not c and not self._feasible(settled):
            g = self.game
            if st.window is not None:
                x, _, s = st.window
                detail = f"{g.player_name(x)} must hold all of {g.set_name(s)} and did not put it down"
            else:
                detail = "some player must have been dealt a whole set and did not put it down"
            raise IllegalMoveError(Illegal.PUT_DOWN_MISSING, move, detail, kind="claim")
        return settled

    def _put_down(self, st: State, move: Declaration) -> State:
        g = self.game
        p, s = move.player, move.set
        c = st.constraints
        if not c.in_play[s]:
            raise IllegalMoveError(
                Illegal.SET_CLAIMED, move, f"set {g.set_name(s)} belongs to {g.player_name(st.claimed[s])}", kind="claim"
            )
        if not (st.opening or (st.window is not None and (st.window[0], st.window[2]) == (p, s))):
            if st.window is not None:
                detail = f"only {g.player_name(st.window[0])} may put down {g.set_name(st.window[2])} now"
            else:
                detail = "no yes has just given this player a card of the set"
            raise IllegalMoveError(Illegal.PUT_DOWN_NOT_DUE, move, detail, kind="claim")
        whole = c.with_whole_set(p, s)
        if not self._feasible(whole):
            raise IllegalMoveError(Illegal.IMPOSSIBLE_PUT_DOWN, move, kind="claim")
        window = st.window
        st = replace(st, constraints=whole, ply=st.ply + 1, last_claims=(), window=None)
        st = self._claim(st, [(s, p)])
        if st.opening:
            if st.over:
                return replace(st, turn=())
            return replace(st, turn=self._opening_turn(st))
        assert window is not None  # not at the deal: a yes opened the window (checked above)
        return self._hand_over(st, (window[0], window[1]))

    def _opening_turn(self, st: State) -> tuple[int, ...]:
        """Under ``dealt``, before the first question: the first player(s), else the fallback."""
        c = st.constraints
        if self.rules.empty_hand == "ask":
            chosen = st.first
        else:
            chosen = tuple(p for p in st.first if c.hands[p] > 0) or self._fallback(st, st.first[0])
        if not self.rules.forced_no_question:
            chosen = tuple(sorted({self._skip(st, p) for p in chosen}))
        return chosen

    # -- legality -------------------------------------------------------------------
    def check(self, move: Move) -> IllegalMoveError | None:
        """Why ``move`` is illegal here, or None when it is legal. Never changes the position."""
        try:
            self._apply(move)
        except IllegalMoveError as err:
            return err
        return None

    def is_legal(self, move: Move) -> bool:
        return self.check(move) is None

    def _validate_ids(self, move: Move) -> None:
        g = self.game
        if isinstance(move, Question):
            for seat in (move.asker, move.target):
                if not (isinstance(seat, int) and 0 <= seat < g.players):
                    raise InvalidMoveError(f"unknown player {seat!r}")
            if not (isinstance(move.card, int) and 0 <= move.card < g.cards):
                raise InvalidMoveError(f"unknown card {move.card!r}")
        elif isinstance(move, Declaration):
            if not (isinstance(move.player, int) and 0 <= move.player < g.players):
                raise InvalidMoveError(f"unknown player {move.player!r}")
            if not (isinstance(move.set, int) and 0 <= move.set < g.sets):
                raise InvalidMoveError(f"unknown set {move.set!r}")
        else:
            raise InvalidMoveError(f"not a move: {move!r}")

    def _apply(self, move: Move) -> State:
        """The state after ``move``; raises IllegalMoveError (the position is never changed here)."""
        self._validate_ids(move)
        st = self._state
        if st.over:
            raise IllegalMoveError(Illegal.GAME_OVER, move)
        g = self.game
        if st.pending is not None:
            q = st.pending
            if isinstance(move, Question) and move.answer is not None and move.unanswered() == q:
                return self._answer(st, q, move.answer, move)
            if isinstance(move, Question) and move.answer is not None:
                raise IllegalMoveError(
                    Illegal.WRONG_ANSWERER, move, f"the open question is {g.move_str(q)}"
                )
            raise IllegalMoveError(Illegal.QUESTION_OPEN, move, f"{g.move_str(q)} awaits an answer")
        if isinstance(move, Declaration):
            if self.rules.dealt:
                return self._put_down(st, move)
            return self._declare(st, move)
        return self._question(st, move)

    def _question(self, st: State, move: Question) -> State:
        g = self.game
        x, y, card = move.asker, move.target, move.card
        s = card // g.set_size
        if x not in st.turn:
            raise IllegalMoveError(Illegal.NOT_ON_TURN, move, self._turn_text(st))
        if x == y:
            raise IllegalMoveError(Illegal.SELF_QUESTION, move)
        c = st.constraints
        if not c.in_play[s]:
            raise IllegalMoveError(
                Illegal.SET_CLAIMED, move, f"set {g.set_name(s)} belongs to {g.player_name(st.claimed[s])}"
            )
        if c.hands[x] == 0 and self.rules.empty_hand != "ask":
            raise IllegalMoveError(Illegal.ASKER_EMPTY, move)
        if c.hands[y] == 0:
            raise IllegalMoveError(Illegal.TARGET_EMPTY, move, f"{g.player_name(y)} holds no cards")
        c = self._settle(st, move)
        asked = self.question_constraints(x, card, c)
        if not self._feasible(asked):
            raise IllegalMoveError(Illegal.NO_CONSISTENT_DEAL, move)
        if not self.rules.forced_no_question and not self._feasible(
                asked.restrict(card, effects.answer_domain(y, True))):  # only no would be a legal answer
            raise IllegalMoveError(Illegal.ONLY_NO, move)
        pending = move.unanswered()
        opened = replace(st, constraints=asked, pending=pending, turn=(x,), ply=st.ply + 1, last_claims=())
        if self.rules.dealt:
            opened = replace(opened, opening=False, window=None)
        if move.answer is None:
            return opened
        return self._answer(opened, pending, move.answer, move, ply=st.ply + 1)

    def _answer(self, st: State, q: Question, answer: bool, move: Move, ply: int | None = None) -> State:
        c = st.constraints
        x, y, card = q.asker, q.target, q.card
        if not self._feasible(c.restrict(card, effects.answer_domain(y, answer))):  # effects.legal_answers
            raise IllegalMoveError(Illegal.IMPOSSIBLE_YES if answer else Illegal.IMPOSSIBLE_NO, move)
        c = effects.answer(c, x, y, card, answer)
        ply = st.ply + 1 if ply is None else ply
        st = replace(st, constraints=c, pending=None, ply=ply)
        if answer and self.rules.dealt:
            st = replace(st, window=(x, y, card // self.game.set_size))
        return self.finish_move(st, effects.next_order(answer, x, y, self.game.players, self.rules.after_no))

    def _declare(self, st: State, move: Declaration) -> State:
        g = self.game
        p, s = move.player, move.set
        if not self.rules.declare:
            raise IllegalMoveError(Illegal.NO_DECLARATIONS, move)
        if p not in st.turn:
            raise IllegalMoveError(Illegal.NOT_ON_TURN, move, self._turn_text(st))
        c = st.constraints
        if not c.in_play[s]:
            raise IllegalMoveError(
                Illegal.SET_CLAIMED, move, f"set {g.set_name(s)} belongs to {g.player_name(st.claimed[s])}"
            )
        whole = c.with_whole_set(p, s)
        if not self._feasible(whole):
            raise IllegalMoveError(Illegal.IMPOSSIBLE_DECLARATION, move)
        st = replace(st, constraints=whole, ply=st.ply + 1, last_claims=())
        st = self._claim(st, [(s, p)])
        return self.finish_move(st, (p,))

    def _claim(self, st: State, claims: Sequence[tuple[int, int]]) -> State:
        if not claims:
            return st
        c = st.constraints
        claimed = list(st.claimed)
        scores = list(st.scores)
        reached = list(st.reached)
        for s, p in claims:
            c = effects.claim(c, p, s)
            claimed[s] = p
            scores[p] += 1
            reached[p] = st.ply
        return replace(
            st,
            constraints=c,
            claimed=tuple(claimed),
            scores=tuple(scores),
            reached=tuple(reached),
            last_claims=st.last_claims + tuple(claims),
        )

    def finish_move(self, st: State, order: tuple[int, ...]) -> State:
        """The end of a completed answer or declaration in state ``st``: the automatic claims
        (``auto_claim``), then the hand-over to the first of ``order`` (see :mod:`quaternity_cp.quartets.effects`)."""
        return self._hand_over(self._auto_claim(st), order)

    def _auto_claim(self, st: State) -> State:
        if not self.rules.auto_claim:
            return st
        forced = self._analyze(st.constraints).forced_quartets(st.constraints)
        return self._claim(st, sorted(forced.items()))

    # -- whose turn ------------------------------------------------------------------
    def _hand_over(self, st: State, order: tuple[int, ...]) -> State:
        """Turn after a completed move (:func:`quaternity_cp.quartets.effects.hand_over`), then, with
        ``forced_no_question = false``, on to a seat with a legal question."""
        if st.over:
            return replace(st, turn=())
        r = self.rules
        chosen = effects.hand_over(order, hands=st.constraints.hands, scores=st.scores, empty_hand=r.empty_hand,
                                   handover=r.handover)
        if not r.forced_no_question:
            chosen = tuple(sorted({self._skip(st, p) for p in chosen}))
        return replace(st, turn=chosen)

    def _fallback(self, st: State, start: int) -> tuple[int, ...]:
        return effects.fallback_seats(self.rules.handover, st.constraints.hands, st.scores, start)

    def _skip(self, st: State, p: int) -> int:
        """With forced_no_question = false: the first seat from p on, clockwise, that has a legal question."""
        P = self.game.players
        ask = self.rules.empty_hand == "ask"
        for k in range(P):
            q = (p + k) % P
            if (ask or st.constraints.hands[q] > 0) and self._has_question(st, q):
                return q
        return p

    def _has_question(self, st: State, x: int) -> bool:
        c = st.constraints
        if self.rules.dealt and (st.opening or st.window is not None):
            c = self.settled_constraints(c)
            if not self._feasible(c):
                return True  # a put-down is due: the turn stays where it is
        targets = [y for y in range(self.game.players) if y != x and c.hands[y] > 0]
        if not targets:
            return False
        for card in c.cards_in_play:
            asked = self.question_constraints(x, card, c)
            if not self._feasible(asked):
                continue
            owners = self._analyze(asked).owners[card]
            if any(owners >> y & 1 for y in targets):
                return True
        return False

    def _turn_text(self, st: State) -> str:
        names = [self.game.player_name(p) for p in st.turn]
        if not names:
            return "nobody is on turn"
        return ("on turn: " if len(names) == 1 else "on turn (any of): ") + ", ".join(names)

    # -- push / pop -----------------------------------------------------------------
    def push(self, move: Move) -> tuple[tuple[int, int], ...]:
        """Play ``move``; returns the (set, seat) claims it caused.

        An illegal move raises :class:`IllegalMoveError` and leaves the position
        unchanged under ``invalid = reject``; under ``invalid = lose`` it ends the
        game, the mover losing, and the error is kept in :attr:`illegal`.
        """
        try:
            new = self._apply(move)
            err = None
        except IllegalMoveError as e:
            if self.rules.invalid != "lose" or e.reason is Illegal.GAME_OVER:
                raise
            err = e
            new = replace(
                self._state, loser=self._mover(move, e), turn=(), ply=self._state.ply + 1, last_claims=(), pending=None
            )
        if not self.history:
            self._stack.clear()
        self._stack.append((move, self._state, err))
        self._state = new
        return new.last_claims

    def push_str(self, text: str) -> tuple[tuple[int, int], ...]:
        return self.push(self.game.parse_move(text))

    def pop(self) -> Move:
        """Undo the last move and return it."""
        move, previous, _ = self._stack.pop()
        self._state = previous
        return move

    @staticmethod
    def _mover(move: Move, err: IllegalMoveError) -> int:
        """Who made the illegal ``move``: the answerer for an impossible answer, else the asker or declarer."""
        if isinstance(move, Declaration):
            return move.player
        if err.reason in (Illegal.IMPOSSIBLE_YES, Illegal.IMPOSSIBLE_NO):
            return move.target
        return move.asker

    # -- move generation ------------------------------------------------------------
    def legal_moves(self) -> Iterator[Move]:
        """Every legal move: answers to an open question, else declarations and questions
        (questions without their answer; push one to open it, then push an answer)."""
        st = self._state
        if st.over:
            return
        c = st.constraints
        q = st.pending
        if q is not None:
            ans = self.answers()
            assert ans is not None  # a question is open
            for value in (True, False):
                if ans["yes" if value else "no"]:
                    yield q.answered(value)
            return
        analysis = self.analysis()
        P = self.game.players
        ask = self.rules.empty_hand == "ask"
        if self.rules.dealt:
            if st.opening:
                for p in range(P):
                    for s in c.sets_in_play:
                        if analysis.quartets[s] >> p & 1:
                            yield Declaration(p, s)
            elif st.window is not None:
                x, _, s = st.window
                if c.in_play[s] and analysis.quartets[s] >> x & 1:
                    yield Declaration(x, s)
            if st.opening or st.window is not None:
                c = self.settled_constraints(c)
                if not self._feasible(c):
                    return  # a put-down is due: no question is legal
                analysis = self._analyze(c)
        for x in st.turn:
            if self.rules.declare:
                for s in c.sets_in_play:
                    if analysis.quartets[s] >> x & 1:
                        yield Declaration(x, s)
            if c.hands[x] == 0 and not ask:
                continue
            targets = [y for y in range(P) if y != x and c.hands[y] > 0]
            if not targets:
                continue
            for card in c.cards_in_play:
                if not analysis.owners[card] & ~(1 << x):
                    continue  # x holds it in every deal: asking leaves no deal
                asked = self.question_constraints(x, card, c)
                if not self._feasible(asked):
                    continue
                if self.rules.forced_no_question:
                    for y in targets:
                        yield Question(x, y, card)
                else:
                    owners = self._analyze(asked).owners[card]
                    for y in targets:
                        if effects.legal_answers(owners, y)[0]:  # a yes is legal
                            yield Question(x, y, card)

    def __repr__(self) -> str:
        return f"<Position {self.game!r} rules={self.rules.name} ply={self._state.ply} turn={self.turn}>"

    def _repr_html_(self) -> str:
        """The knowledge grid for notebooks: the game's ``html`` part, from the registry (the core imports no picture)."""
        from ..registry import GAMES, load_all
        return str((GAMES.get("quartets") or load_all()["quartets"]).part("html")(self))
