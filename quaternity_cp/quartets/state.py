"""Quartets as a :class:`~quaternity_cp.registry.GameState`: every Quaternity preset and classic Quartets.

Registered as the game ``"quartets"`` (options ``preset``, ``players``, ``sets``,
``set_size`` and any rule option). Two kinds of state sit behind one factory:

- **Quaternity presets** (``quaternity``, ``quaternity-seat``, ``blind``,
  ``pythagoras``): nothing is dealt, a :class:`~quaternity_cp.quartets.position.Position`
  decides legality. The asker chooses a question (or a declaration); when both
  answers are legal the asked player decides, otherwise the only legal answer is
  applied at once. A free choice of who moves (``handover = fewest`` ties) and
  a tie-break (``tie = random``) are chance outcomes (see below).
- **Classic** (preset ``classic``): the cards are really dealt from the state's
  seed, answers are truthful and applied at once, complete sets are
  put down automatically (``x!s`` tokens in the record). Only the asker decides.
  This state is a plain simulation (no engine call per move): the public
  constraint state is computed only when an agent asks for it
  (:meth:`QuartetsObservation.public_constraints`).

Every random event is a :class:`~quaternity_cp.registry.ChanceOutcome` in the
state's ``chance`` list, drawn from the seed and the moment it happens, so
``undo`` and replay meet the same outcomes. A state's ``draw`` (a callable
``draw(kind, at, choices) -> seat``, None by default) replaces those draws: the
OpenSpiel bridge (:mod:`quaternity_cp.spiel`) makes them explicit chance nodes
with it. :meth:`ClassicState.from_view` builds a classic game that agrees with
one seat's observation and a deal of its view (the search agents' worlds).

>>> state = new_state(7, preset="classic", players=3, sets=6, set_size=4)
>>> state.current_player() in (0, 1, 2), state.is_terminal()
(True, False)
>>> import random
>>> rng = random.Random(1)
>>> while not state.is_terminal():
...     state.apply_action(rng.choice(state.legal_actions()))
>>> sum(state.scores()), len(state.record()["deal"])
(6.0, 3)
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Hashable, Mapping, Sequence

from . import effects
from .constraints import Constraints
from ..errors import Illegal, IllegalMoveError, InvalidMoveError, QuaternityError, RulesError
from .game import Declaration, Game, Move, Question
from .classic import Table, draw_first
from .classic import deal as draw_deal
from .formats import record_to_json
from ..registry import TERMINAL, ChanceOutcome, chance_draw
from .outcome import tied as tied_for_first
from .outcome import winners as winners_of
from .position import Position
from .rules import Rules

#: A classic game stops (unfinished, nobody wins) after this many questions; agents that
#: never ask for a missing card could otherwise go on for ever.
MAX_QUESTIONS = 5_000

#: What the classic simulation reads from the rules (the preset ``classic`` and its overrides).
CLASSIC_OPTIONS = ("empty_hand", "after_no", "tie", "handover")


# -- rules -----------------------------------------------------------------------------
def classic_rules(**overrides: Any) -> tuple[Rules, dict[str, Any]]:
    """The rules of a classic game (preset ``classic`` with ``overrides``) and the options the game reads."""
    rules = Rules.preset("classic", **overrides)
    return rules, {key: getattr(rules, key) for key in CLASSIC_OPTIONS}


def _rules_field(preset: str, overrides: dict[str, Any]) -> Any:
    """The record's ``rules`` field: the preset name, or the preset with its overrides."""
    if not overrides:
        return preset
    return {"preset": preset, **overrides}


# -- observations ------------------------------------------------------------------------
_GAME_IDS = itertools.count(1)


def next_game_id() -> int:
    """A number naming a new game state for the agents (:attr:`QuartetsObservation.game_id`): the next of a
    counter of this process, so it says nothing about the seed or the deal."""
    return next(_GAME_IDS)


@dataclass(frozen=True)
class QuartetsObservation:
    """What one seat may know: the public record and, in classic, its own hand.

    ``moves`` is the public record so far (answered questions, declarations and
    put-downs; an open question last). ``hand`` is the seat's own cards in
    classic, None in the Quaternity presets (nothing is dealt there).
    ``turn`` is the seat that must decide now (asker, or answerer while a
    question is open). Never holds the deal, the seed or anything drawn from it:
    ``game_id`` tells one game from another (the same in a clone and after an
    undo, another in every new state, whatever its seed), a number from a
    counter of this process.
    """

    seat: int
    game: Game
    preset: str
    rules: Any  # the Rules value (Quaternity presets, and classic once the library has the preset) or None
    options: dict[str, Any]  # classic: empty_hand, after_no, tie, handover; else {}
    moves: tuple[Move, ...]
    hands: tuple[int, ...]  # cards per seat
    claimed: tuple[int, ...]  # per set: the claiming seat or -1
    scores: tuple[int, ...]
    turn: int
    pending: Question | None
    hand: frozenset[int] | None
    first: int = 0
    game_id: int = 0  # names this game for an agent's cache (:func:`next_game_id`): not the seed, nothing of the deal
    _position: Any = field(default=None, repr=False, compare=False)

    @property
    def classic(self) -> bool:
        return self.hand is not None

    def position(self) -> Position:
        """A copy of the public position (Quaternity presets only)."""
        if self._position is None:
            raise QuaternityError("classic observations have no Position; use public_constraints()")
        pos: Position = self._position.copy()
        return pos

    def public_constraints(self) -> Constraints:
        """What the table knows in public: the constraint state after the public record."""
        if self._position is not None:
            from .knowledge import public_constraints

            return public_constraints(self._position)
        return classic_public_constraints(self.game, tuple(self.moves), self.options.get("empty_hand", "ask"))

    def private_constraints(self) -> Constraints:
        """What this seat knows: the public state plus its own hand (classic); the public state otherwise."""
        c = self.public_constraints()
        if self.hand is None:
            return c
        from .knowledge import private_constraints

        return private_constraints(c, self.seat, self.hand)


@lru_cache(maxsize=256)
def classic_public_constraints(game: Game, moves: tuple[Move, ...], empty_hand: str = "ask") -> Constraints:
    """The public constraint state of a classic record (no deal): the consistent deals of docs/rules.md.

    The same as :func:`quaternity_cp.quartets.knowledge.public_constraints` of the record
    replayed in a :class:`~quaternity_cp.quartets.position.Position` (a test compares
    them), computed without an engine from the rules of :mod:`quaternity_cp.quartets.effects`:
    put-downs (``x!s``) fix the set with the player and claim it; every put-down
    due is made before a question (:func:`~quaternity_cp.quartets.effects.settle`); a
    question and its answer tell what :func:`~quaternity_cp.quartets.effects.question` and
    :func:`~quaternity_cp.quartets.effects.answer` say (classic has no ``silence``).
    ``empty_hand`` is part of the cache key only: an asker without cards tells
    nothing under either value.
    """
    c = Constraints.initial(game.players, game.sets, game.set_size, True)
    for move in moves:
        if isinstance(move, Declaration):
            c = effects.claim(c.with_whole_set(move.player, move.set), move.player, move.set)
            continue
        c = effects.question(effects.settle(c), move.asker, move.card)
        if move.answer is not None:
            c = effects.answer(c, move.asker, move.target, move.card, move.answer)
    if not moves or not (isinstance(moves[-1], Question) and moves[-1].answer is None):
        c = effects.settle(c)
    return c


# -- classic: a dealt game ------------------------------------------------------------------
_QUESTIONS: dict[tuple[int, int], list[list[list[Question]]]] = {}


def _question_table(players: int, cards: int) -> list[list[list[Question]]]:
    """Every open question x>y:c as one shared frozen value, table[x][y][c] (made once per size)."""
    table = _QUESTIONS.get((players, cards))
    if table is None:
        table = [[[Question(x, y, c) for c in range(cards)] for y in range(players)] for x in range(players)]
        if len(_QUESTIONS) < 64:
            _QUESTIONS[(players, cards)] = table
    return table


#: The chance events of a quartets game after the deal, numbered for :func:`~quaternity_cp.registry.chance_draw`.
_CHANCE_KINDS = {"handover": 1, "tie_break": 2}


#: Who settles a state's chance events instead of its seed: ``draw(kind, at, choices)`` returns one of
#: ``choices`` (seats) for the event ``kind`` (``"handover"`` or ``"tie_break"``) after ``at`` record moves.
Draw = Callable[[str, int, Sequence[int]], int]


def _draw(seed: int, kind: str, at: int, choices: Sequence[int], draw: Draw | None = None) -> int:
    if draw is not None:
        outcome = draw(kind, at, list(choices))
        if outcome not in choices:
            raise QuaternityError(f"the {kind} drawn, {outcome!r}, is not one of the seats {list(choices)}")
        return outcome
    return chance_draw(seed, _CHANCE_KINDS[kind], at, list(choices))


def deal_before(game: Game, moves: Sequence[Move], owners: Mapping[int, int]) -> dict[int, list[int]]:
    """The deal of a classic game whose record is ``moves`` and whose cards in play are now with ``owners``
    (card -> seat, e.g. one deal of :func:`quaternity_cp.quartets.count.sample_deals`): the record read backwards,
    a put-down gives its set back to its holder and a yes gives its card back to the asked seat.

    One deal for each current one (the moves are public), so uniform current deals of a view are
    uniform deals at the start among those the record allows. Raises QuaternityError when a card is
    neither in ``owners`` nor in a set put down.
    """
    owner = [-1] * game.cards
    for card, seat in owners.items():
        owner[card] = seat
    for move in reversed(moves):
        if isinstance(move, Declaration):
            for card in game.cards_of(move.set):
                owner[card] = move.player
        elif move.answer:
            owner[move.card] = move.target
    if -1 in owner:
        raise QuaternityError(f"card {game.card_name(owner.index(-1))} is neither placed nor put down")
    return {p: [c for c in range(game.cards) if owner[c] == p] for p in range(game.players)}


class ClassicState:
    """A classic game: a real deal, truthful answers, automatic put-downs. Mutable; undo restores.

    The real cards are a :class:`~quaternity_cp.quartets.classic.Table` (:attr:`table`): every question and every
    put-down is applied through it (the answer is :meth:`~quaternity_cp.quartets.classic.Table.answer`, the
    put-downs :meth:`~quaternity_cp.quartets.classic.Table.putdowns_due`), so the game, the honesty checks and the
    random records share one simulation of the cards. ``owner``, ``count``, ``held``, ``hands`` and
    ``claimed`` are the table's lists (see :class:`~quaternity_cp.quartets.classic.Table`; ``hands`` is its ``sizes``).
    The state adds whose turn it is (:mod:`quaternity_cp.quartets.effects`), the score and the winners
    (:mod:`quaternity_cp.quartets.outcome`), the chance events and the record.

    Its random events are :class:`~quaternity_cp.registry.ChanceOutcome` values in :attr:`chance`; the
    record carries them (``deal``, ``first``, ``tie_break``; a hand-over drawn
    among tied seats shows as the next asker).
    """

    def __init__(self, game: Game, seed: int, *, rules: Any = None, options: dict[str, Any] | None = None,
                 overrides: dict[str, Any] | None = None, deal: dict[int, list[int]] | None = None,
                 first: int | None = None, draw: Draw | None = None):
        self.draw = draw
        if options is None:
            rules, options = classic_rules(**(overrides or {}))
        self.game = game
        self.seed = seed  # the deal's and the chance events' seed: never in an observation
        self.game_id = next_game_id()
        self.rules = rules
        self.options = dict(options)
        self._overrides = dict(overrides or {})
        P, N, S = game.players, game.sets, game.set_size
        self._ask_empty = self.options["empty_hand"] == "ask"
        self._after_no = self.options["after_no"]
        if rules is not None and not rules.dealt:
            raise RulesError("the classic game state deals the cards: dealt = false is not classic "
                             "(play a Quaternity preset instead)")
        if rules is not None and not rules.forced_no_question:
            raise RulesError("the classic game state plays forced_no_question = true only "
                             "(with dealt cards every honest question is legal)")
        rng = random.Random(seed)  # the deal and the first player: the draws of quaternity_cp.quartets.classic
        if deal is None:
            deal = draw_deal(game, rng, rules)
        if first is None:
            first = draw_first(game, rng)
        self.deal = {p: sorted(deal[p]) for p in range(P)}
        self.first = first
        self.chance: list[ChanceOutcome] = [
            ChanceOutcome("deal", tuple(tuple(self.deal[p]) for p in range(P)), 0),
            ChanceOutcome("first", first, 0),
        ]
        self.table = Table(game, self.deal)  # the real cards: every question and put-down acts through it
        self._cards()
        self.points = [0] * P
        self.reached = [0] * P
        self.moves: list[Move] = []
        self.questions = 0
        self.winners_: list[int] = []
        self.tie_break: int | None = None  # tie = random: the seat drawn among those tied for first
        self.unfinished = False
        self._undo: list[tuple[int, int, int, bool, list[int]]] = []
        self._q = _question_table(P, N * S)
        self._unclaimed = N
        self._put_downs_due()  # complete sets at the deal are put down at once, by set
        self.turn = -1
        if self._unclaimed:
            self.turn = first if self._ask_empty or self.hands[first] > 0 else self._hand_over((first,))
        self._check_over()

    # -- protocol ---------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.game.players

    def current_player(self) -> int:
        return TERMINAL if self.turn < 0 else self.turn

    def is_terminal(self) -> bool:
        return self.turn < 0

    def legal_actions(self) -> list[Question]:
        """The asker's questions, by card then target (ascending)."""
        x = self.turn
        if x < 0:
            return []
        S = self.game.set_size
        hands = self.hands
        targets = [y for y in range(self.game.players) if y != x and hands[y] > 0]
        row = self._q[x]
        if hands[x] > 0:
            held = self.held[x]
            cards = [c for s, k in enumerate(self.count[x]) if k for c in range(s * S, s * S + S) if c not in held]
        elif self._ask_empty:
            cards = [c for s, p in enumerate(self.claimed) if p < 0 for c in range(s * S, s * S + S)]
        else:
            return []
        if len(targets) == 1:
            r = row[targets[0]]
            return [r[c] for c in cards]
        return [row[y][c] for c in cards for y in targets]

    def _illegal(self, move: Any) -> IllegalMoveError | None:
        if not isinstance(move, Question):
            return IllegalMoveError(Illegal.NO_DECLARATIONS, move, "put-downs are made by the game itself")
        g = self.game
        x, y, card = move.asker, move.target, move.card
        if self.turn < 0:
            return IllegalMoveError(Illegal.GAME_OVER, move)
        if not (isinstance(y, int) and 0 <= y < g.players and isinstance(card, int) and 0 <= card < g.cards):
            return IllegalMoveError(Illegal.NO_CONSISTENT_DEAL, move, "unknown player or card")
        if x != self.turn:
            return IllegalMoveError(Illegal.NOT_ON_TURN, move, f"on turn: {g.player_name(self.turn)}")
        if move.answer is not None:
            return IllegalMoveError(Illegal.NO_QUESTION_OPEN, move, "answers are given by the deal")
        if x == y:
            return IllegalMoveError(Illegal.SELF_QUESTION, move)
        s = card // g.set_size
        if self.claimed[s] >= 0:
            return IllegalMoveError(Illegal.SET_CLAIMED, move)
        if self.hands[y] == 0:
            return IllegalMoveError(Illegal.TARGET_EMPTY, move)
        if self.hands[x] == 0:
            if not self._ask_empty:
                return IllegalMoveError(Illegal.ASKER_EMPTY, move)
        elif self.count[x][s] == 0 or self.owner[card] == x:
            return IllegalMoveError(
                Illegal.NO_CONSISTENT_DEAL, move,
                f"{g.player_name(x)} must hold a card of {g.set_name(s)} and not {g.card_name(card)}")
        return None

    def apply_action(self, action: Hashable) -> None:
        err = self._illegal(action)
        if err is not None:
            raise err
        assert isinstance(action, Question)
        self._ask(action.asker, action.target, action.card)

    def _cards(self) -> None:
        """Name the table's lists (the same objects: the table changes them in place)."""
        t = self.table
        self.owner, self.count, self.held, self.hands, self.claimed = t.owner, t.count, t.held, t.sizes, t.claimed

    def _ask(self, x: int, y: int, card: int) -> None:
        self._undo.append((self.turn, len(self.moves), len(self.chance), self.unfinished, list(self.reached)))
        self.questions += 1
        yes = self.table.answer(self._q[x][y][card])
        move = Question(x, y, card, yes)
        self.moves.append(move)
        self.table.apply(move)
        if yes:
            self._put_downs_due()
        if self._unclaimed:
            self.turn = self._hand_over(effects.next_order(yes, x, y, self.game.players, self._after_no))
        if self.questions >= MAX_QUESTIONS and self._unclaimed:
            self.unfinished = True
        if self._unclaimed == 0 or self.unfinished:
            self._check_over()

    def _put_downs_due(self) -> None:
        """Make every put-down the rules require now (:meth:`~quaternity_cp.quartets.classic.Table.putdowns_due`)."""
        for move in self.table.putdowns_due():
            p = move.player
            self._unclaimed -= 1
            self.points[p] += 1
            self.reached[p] = len(self.moves) + 1
            self.moves.append(move)
            self.table.apply(move)

    def _hand_over(self, order: tuple[int, ...]) -> int:
        """The next asker (:func:`quaternity_cp.quartets.effects.hand_over`); a free choice is a chance event."""
        seats = effects.hand_over(order, hands=self.hands, scores=self.points, empty_hand=self.options["empty_hand"],
                                  handover=self.options["handover"])
        if len(seats) > 1:
            return self._draw("handover", seats)
        return seats[0] if seats else -1

    def _draw(self, kind: str, choices: Sequence[int]) -> int:
        outcome = _draw(self.seed, kind, len(self.moves), choices, self.draw)
        self.chance.append(ChanceOutcome(kind, outcome, len(self.moves)))
        return outcome

    def _check_over(self) -> None:
        if self.unfinished:
            self.turn = -1
            self.winners_ = []
            return
        if self._unclaimed:
            return
        self.turn = -1
        top = tied_for_first(self.points)
        tie = self.options["tie"]
        if len(top) > 1 and tie == "random":  # one of the tied players, a chance event (recorded)
            self.tie_break = self._draw("tie_break", top)
        self.winners_ = winners_of(self.points, tie=tie, reached=self.reached, tie_break=self.tie_break)

    def undo(self) -> None:
        """Take back the last question, with its put-down and the chance events after it."""
        if not self._undo:
            raise QuaternityError("nothing to undo")
        turn, n, chances, unfinished, reached = self._undo.pop()
        for move in reversed(self.moves[n:]):
            if isinstance(move, Declaration):
                self._unclaimed += 1
                self.points[move.player] -= 1
            self.table.undo()
        del self.moves[n:]
        del self.chance[chances:]
        self.turn = turn
        self.reached = reached
        self.unfinished = unfinished
        self.questions -= 1
        self.winners_ = []
        self.tie_break = None

    def winners(self) -> list[int]:
        return list(self.winners_) if self.turn < 0 else []

    def returns(self) -> list[float]:
        return _shares(self.game.players, self.winners())

    def scores(self) -> list[float]:
        return [float(x) for x in self.points]

    def observation(self, player: int) -> QuartetsObservation:
        return QuartetsObservation(
            seat=player, game=self.game, preset="classic", rules=self.rules, options=self.options,
            moves=tuple(self.moves), hands=tuple(self.hands), claimed=tuple(self.claimed),
            scores=tuple(self.points), turn=self.turn, pending=None, hand=frozenset(self.held[player]),
            first=self.first, game_id=self.game_id,
        )

    def action_to_string(self, action: Hashable) -> str:
        assert isinstance(action, Question)
        return self.game.move_str(action)

    def string_to_action(self, text: str) -> Question:
        move = self.game.parse_move(text)
        if not isinstance(move, Question):
            raise InvalidMoveError(f"{text!r}: in classic only questions are chosen (put-downs are automatic)")
        if move.answer is not None:  # refused whatever the answer: accepting only the true one would tell it
            raise InvalidMoveError(f"in classic the answer comes from the cards dealt; ask the question alone "
                                   f"({self.game.move_str(move.unanswered())})")
        return move.unanswered()

    def record(self) -> dict[str, Any]:
        return record_to_json(self.game, _rules_field("classic", self._overrides), self.moves, deal=self.deal,
                              first=self.first, tie_break=self.tie_break)

    @classmethod
    def from_view(cls, obs: "QuartetsObservation", owners: Mapping[int, int], seed: int = 0) -> "ClassicState":
        """A classic game that agrees with everything ``obs`` (a classic observation) shows, its cards in
        play now with ``owners`` (card -> seat, a deal of ``obs.private_constraints()``): the deal given
        back by :func:`deal_before`, the record's questions asked again, each hand-over as the record
        shows it. Its later chance events are drawn from ``seed``. Raises QuaternityError when the
        owners do not fit the record."""
        if obs.hand is None:
            raise QuaternityError("a view of a Quaternity preset has no deal to place (nothing is dealt)")
        game, moves = obs.game, obs.moves
        askers = [(i, m.asker) for i, m in enumerate(moves) if isinstance(m, Question)]

        def recorded(kind: str, at: int, choices: Sequence[int]) -> int:
            after = [seat for i, seat in askers if i >= at]  # the next asker the record shows
            return after[0] if after else obs.turn if kind == "handover" else choices[0]

        state = cls(game, seed, rules=obs.rules, options=obs.options, deal=deal_before(game, moves, owners),
                    first=obs.first, draw=recorded)
        for move in moves:
            if isinstance(move, Question):
                if state.is_terminal() or state.turn != move.asker:
                    break
                state.apply_action(move.unanswered())
        state.draw = None
        if state.moves != list(moves) or state.current_player() != obs.turn:
            raise QuaternityError("the owners given do not fit the record of the observation")
        return state

    def clone(self) -> "ClassicState":
        other = object.__new__(ClassicState)
        other.__dict__.update(self.__dict__)
        other.table = self.table.copy()
        other._cards()
        other.points = list(self.points)
        other.reached = list(self.reached)
        other.moves = list(self.moves)
        other.chance = list(self.chance)
        other.winners_ = list(self.winners_)
        other._undo = list(self._undo)
        return other


def _shares(players: int, winners: Sequence[int]) -> list[float]:
    """Per seat, the share of the win: 1/k to each of k winners."""
    out = [0.0] * players
    for p in winners:
        out[p] = 1.0 / len(winners)
    return out


# -- the Quaternity presets: nothing is dealt ------------------------------------------------
class QuaternityState:
    """A game under a Quaternity preset, on a :class:`Position`. Answerers choose when both answers are legal."""

    def __init__(self, game: Game, rules: Rules, seed: int, *, preset: str, overrides: dict[str, Any] | None = None,
                 engine: Any = None, draw: Draw | None = None):
        self.draw = draw
        self.game = game
        self.rules = rules
        self.seed = seed  # the chance events' seed: never in an observation
        self.game_id = next_game_id()
        self.preset = preset
        self._overrides = dict(overrides or {})
        self.chance: list[ChanceOutcome] = []  # the movers drawn among the seats of a free hand-over choice
        self.position = Position(game, rules, engine=engine)
        self._stack: list[tuple[int, int, int]] = []  # per decision: (moves pushed, mover before, chance events)
        self._mover = self._draw_mover()

    def _draw_mover(self) -> int:
        """Who decides now: the answerer of an open question, else the seat on turn; a free choice
        among several seats (``handover = fewest``) is a chance event, recorded in :attr:`chance`."""
        pos = self.position
        if pos.over:
            return TERMINAL
        q = pos.pending
        if q is not None:
            return q.target
        turn = pos.turn
        if len(turn) == 1:
            return turn[0]
        at = len(pos.moves)
        mover = _draw(self.seed, "handover", at, sorted(turn), self.draw)
        self.chance.append(ChanceOutcome("handover", mover, at))
        return mover

    @property
    def num_players(self) -> int:
        return self.game.players

    def current_player(self) -> int:
        return self._mover

    def is_terminal(self) -> bool:
        return self.position.over

    def legal_actions(self) -> list[Move]:
        """While a question is open: yes then no; else declarations, then questions by card then target."""
        pos = self.position
        if pos.over:
            return []
        if pos.pending is not None:
            return list(pos.legal_moves())
        me = self._mover
        return [m for m in pos.legal_moves() if (m.player if isinstance(m, Declaration) else m.asker) == me]

    def apply_action(self, action: Hashable) -> None:
        pos = self.position
        if pos.over:
            raise IllegalMoveError(Illegal.GAME_OVER, action)
        if not isinstance(action, (Question, Declaration)):
            raise InvalidMoveError(f"not a move: {action!r}")
        mover = action.player if isinstance(action, Declaration) else (
            action.target if pos.pending is not None else action.asker)
        if mover != self._mover:
            raise IllegalMoveError(Illegal.NOT_ON_TURN, action, f"on turn: {self.game.player_name(self._mover)}")
        before = self._mover
        if isinstance(action, Question) and pos.pending is None and action.answer is not None:
            raise IllegalMoveError(Illegal.NO_QUESTION_OPEN, action, "ask the question; the asked player answers")
        pos.push(action)
        pushed = 1
        if pos.pending is not None and not pos.over:
            answers = pos.answers()
            assert answers is not None  # a question is open
            if answers["yes"] != answers["no"]:  # one legal answer: it is given at once
                pos.push(pos.pending.answered(answers["yes"]))
                pushed += 1
        self._stack.append((pushed, before, len(self.chance)))
        if pos.over and self.rules.tie == "random" and pos.tie_break is None and len(pos.tied()) > 1:
            at = len(pos.moves)  # a tie for first under tie = random: the winner is drawn (recorded)
            pos.tie_break = _draw(self.seed, "tie_break", at, pos.tied(), self.draw)
            self.chance.append(ChanceOutcome("tie_break", pos.tie_break, at))
        self._mover = self._draw_mover()

    def undo(self) -> None:
        if not self._stack:
            raise QuaternityError("nothing to undo")
        pushed, before, chances = self._stack.pop()
        for _ in range(pushed):
            self.position.pop()
        self.position.tie_break = None
        del self.chance[chances:]
        self._mover = before

    def winners(self) -> list[int]:
        return self.position.winners()

    def returns(self) -> list[float]:
        return _shares(self.game.players, self.position.winners())

    def scores(self) -> list[float]:
        return [float(x) for x in self.position.scores]

    def observation(self, player: int) -> QuartetsObservation:
        pos = self.position
        st = pos.state
        return QuartetsObservation(
            seat=player, game=self.game, preset=self.preset, rules=self.rules, options={},
            moves=tuple(_public_moves(pos.moves)), hands=tuple(pos.hands), claimed=tuple(st.claimed),
            scores=tuple(st.scores), turn=self._mover, pending=st.pending, hand=None, first=0,
            game_id=self.game_id, _position=pos.copy(),
        )

    def action_to_string(self, action: Hashable) -> str:
        assert isinstance(action, (Question, Declaration))  # one of legal_actions()
        return self.game.move_str(action)

    def string_to_action(self, text: str) -> Move:
        move = self.game.parse_move(text)
        if isinstance(move, Question) and self.position.pending is None and move.answer is not None:
            # a question and its answer are two actions, the second the asked seat's: an answer written here would
            # be dropped without a word
            raise InvalidMoveError(f"{text!r}: ask the question alone ({self.game.move_str(move.unanswered())}); "
                                   "the asked player answers it")
        return move

    def record(self) -> dict[str, Any]:
        return record_to_json(self.game, _rules_field(self.preset, self._overrides),
                              _public_moves(self.position.moves), tie_break=self.position.tie_break)

    def clone(self) -> "QuaternityState":
        other = object.__new__(QuaternityState)
        other.__dict__.update(self.__dict__)
        other.position = self.position.copy()
        other._stack = list(self._stack)
        other.chance = list(self.chance)
        return other


def _public_moves(moves: list[Move]) -> list[Move]:
    """The record's moves: a question opened and then answered is one answered move."""
    out: list[Move] = []
    for m in moves:
        if (out and isinstance(m, Question) and m.answer is not None and isinstance(out[-1], Question)
                and out[-1].answer is None and out[-1] == m.unanswered()):
            out[-1] = m
        else:
            out.append(m)
    return out


# -- the factory ----------------------------------------------------------------------------
_GAMES: dict[tuple[int, int, int], Game] = {}


def _game(players: int, sets: int, set_size: int) -> Game:
    """The Game of a size (immutable, so made once per size)."""
    key = (players, sets, set_size)
    game = _GAMES.get(key)
    if game is None:
        game = Game(players, sets, set_size)
        if len(_GAMES) < 64:
            _GAMES[key] = game
    return game


def new_state(seed: int = 0, preset: str = "quaternity", players: int = 3, sets: int = 6, set_size: int = 4,
              *, engine: Any = None, deal: dict[int, list[int]] | None = None, first: int | None = None,
              draw: Draw | None = None, **overrides: Any) -> Any:
    # Any: a ClassicState or a QuaternityState, registered as GameSpec.new_state (a GameState), which mypy does
    # not see they are (legal_actions returns list[Question], not list[Hashable]).
    """A fresh game of Quartets: ``preset`` any Quaternity preset or ``classic``, any rule option as a keyword.

    Classic only: ``deal`` (seat -> cards) and ``first`` fix what the seed would draw. ``draw`` settles the
    later chance events instead of the seed (see :data:`Draw`).
    """
    game = _game(players, sets, set_size)
    overrides = {k.replace("-", "_"): v for k, v in overrides.items()}
    if preset == "classic":
        rules, options = classic_rules(**overrides)
        return ClassicState(game, seed, rules=rules, options=options, overrides=overrides, deal=deal, first=first,
                            draw=draw)
    if deal is not None or first is not None:
        raise RulesError(f"the preset {preset} deals no cards: a deal and a first player are for classic")
    rules = Rules.preset(preset, **overrides)
    return QuaternityState(game, rules, seed, preset=preset, overrides=overrides, engine=engine, draw=draw)
