"""Quantum Go Fish through the one narrow game interface (:mod:`quaternity_cp.registry`), registered as ``"gofish"``.

Choices made here (GOFISH.md leaves them to a program that plays):

- **A question and its answer are two decisions of two seats.** When no
  question is open, :meth:`GoFishState.current_player` is the seat on turn and
  its actions are the legal questions, :class:`~quaternity_cp.gofish.game.Move`
  values with ``answer=None`` (by suit, then by asked seat). When a question is
  open, it is the *asked* seat's decision: its actions are the legal answers,
  the same move with ``answer`` True (yes) then False (no); when only one answer
  is legal the asked seat still takes it (one action). Each action is one
  ``push`` of the core (:class:`~quaternity_cp.gofish.game.GoFish`) and
  :meth:`~GoFishState.undo` one ``pop``.
- **Returns.** The winner gets 1, the others 0. A game that ends with no winner
  shares it as a Quarto draw does: a draw (``repetition = draw``), the move cap
  (below) and a game where nobody has a legal question (``stuck``) give 1/P to
  each of the P seats; their :meth:`~GoFishState.winners` is empty. Under
  ``invalid = lose`` (not reachable by legal actions: every action the state
  lists is legal) the seats other than the loser share it. :meth:`scores`: 1 to
  the winner.
- **The move cap.** Play can go round forever, so a table has ``max_moves``
  (default :data:`DEFAULT_MAX_MOVES`): once that many questions were answered
  without a winner the game is over, drawn, and :attr:`~GoFishState.unfinished`
  (a tournament counts it as unfinished). The cap is the table's, not a rule of
  the game: the record does not carry it, and it reads back as a game not over.
- **Observation.** Go Fish has no hidden information (everything said is
  public): every seat's observation is the public game, a
  :class:`GoFishObservation` (the setup, the rules, the moves, whose decision
  it is, the open question, the hand sizes and every cell's exact range), and
  never the seed (there is no deal to hide: nothing is dealt). Its
  :meth:`~GoFishObservation.game` is a copy of the game an agent may play on.
- **Naming suits in play** (option ``name_suits``; GOFISH.md: the first to ask
  names a suit). The suits start unnamed (lettered); a suit nobody has named
  or asked about is one of the *fresh* suits, all interchangeable (their
  cells have the bounds of the start), so a question for a suit name the
  table does not know yet (:meth:`~GoFishState.string_to_action`, e.g.
  ``0>1:Narwhals?``) is the question for the first fresh suit, carrying the
  name: a :class:`~quaternity_cp.gofish.game.NamedQuestion`, equal to that
  plain question (so it is among the :meth:`~GoFishState.legal_actions`);
  :meth:`~GoFishState.apply_action` names the suit and asks, and
  :meth:`~GoFishState.undo` unnames it. The legal actions stay the plain
  :class:`~quaternity_cp.gofish.game.Move` values: an agent that asks for a
  fresh suit asks for it by its letter, which stays its name. The record
  writes the names given so far (the others keep their letters) and replays
  to the same position; the observation's ``suits`` are the current names and
  ``fresh`` the suits a question may still name.

>>> from quaternity_cp.registry import GAMES, load_all
>>> _ = load_all()
>>> state = GAMES["gofish"].new_state(0, players=3)
>>> state.current_player(), state.legal_actions()[0]
(0, Move(asker=0, asked=1, suit=0, answer=None))
>>> state.apply_action(state.string_to_action("0>1:A?"))
>>> state.current_player(), [state.action_to_string(a) for a in state.legal_actions()]
(1, ['0>1:A+', '0>1:A-'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable, Mapping

from ..registry import TERMINAL, ChanceOutcome
from .bounds import Grid
from .game import GoFish, Move, MoveError, NamedQuestion, NotationError, Outcome
from .rules import PRESETS, GoFishError, GoFishRulesError, Rules

#: Questions answered after which a table's game is drawn when nobody has won (the ``max_moves`` option).
DEFAULT_MAX_MOVES = 200
#: The largest ``max_moves`` a table takes.
MAX_MOVES_LIMIT = 10_000
#: The rule options a table takes one by one (each at its default leaves the rule set's choice).
RULE_OPTIONS = ("first", "ask_void", "after_yes", "four", "win_after_ask", "priority", "no_initial_four",
                "repetition")


@dataclass(frozen=True)
class GoFishObservation:
    """What a seat knows: everything, since every question and answer is public (no seed, nothing dealt).

    ``player`` is the seat looking; ``to_move`` the seat that decides now (the asked seat while a question
    is open; None when the game is over); ``turn`` the asker on turn; ``pending`` the open question;
    ``hands`` the hand sizes; ``low``/``high`` every cell's exact range (player x suit) over the consistent
    tables, the open question's proof included; ``fours`` the seats holding a four under the rules;
    ``fresh`` (option ``name_suits``) the suits nobody has named or asked about yet.
    """

    player: int
    players: tuple[str, ...]
    suits: tuple[str, ...]
    suit_size: int
    rules: Rules
    moves: tuple[str, ...]
    to_move: int | None
    turn: int | None
    pending: Move | None
    hands: tuple[int, ...]
    low: Grid
    high: Grid
    determined: bool
    fours: tuple[int, ...]
    over: bool
    winner: int | None
    reason: str | None
    _game: GoFish = field(compare=False, repr=False)
    fresh: tuple[int, ...] = ()  # under name_suits: the suits a question may still name (none otherwise)

    def game(self) -> GoFish:
        """A copy of the public game (push and pop on it freely: the table's game is not changed)."""
        return self._game.copy()

    def record(self) -> dict[str, object]:
        """The public record of the game so far."""
        return self._game.record()


class GoFishState:
    """A game of Quantum Go Fish in progress, as a :class:`~quaternity_cp.registry.GameState` (see the module)."""

    def __init__(self, game: GoFish, *, seed: int = 0, max_moves: int = DEFAULT_MAX_MOVES, name_suits: bool = False):
        self.game = game
        self.name_suits = name_suits  # a question may name a fresh suit (see the module)
        self.seed = seed  # Go Fish has no chance: kept only to say which game of a run this is
        self.max_moves = max_moves
        self.chance: list[ChanceOutcome] = []

    # -- the protocol ----------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.game.players

    @property
    def capped(self) -> bool:
        """The move cap ended the game: ``max_moves`` questions answered, nobody won."""
        g = self.game
        return not g.over and g.pending is None and len(g.state.moves) >= self.max_moves

    @property
    def unfinished(self) -> bool:
        """The game ended at the move cap, not by the rules (a tournament counts it as unfinished)."""
        return self.capped

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        g = self.game
        q = g.pending
        if q is not None:
            return q.asked
        assert g.turn is not None
        return g.turn

    def legal_actions(self) -> list[Hashable]:
        """The legal questions (answer None; by suit, then by asked seat) or, with a question open, its legal
        answers (yes first); [] at the end."""
        if self.is_terminal():
            return []
        g = self.game
        q = g.pending
        if q is not None:
            return [Move(q.asker, q.asked, q.suit, yes) for yes in g.legal_answers()]
        return list(g.legal_questions())

    def apply_action(self, action: Hashable) -> None:
        """Ask (a Move with answer None) or answer the open question (answer True or False); one decision."""
        if not isinstance(action, Move):
            raise GoFishError(f"a Go Fish action is a Move, got {action!r}")
        if self.is_terminal():
            raise GoFishError("the game is over")
        if self.game.pending is None and action.answer is not None:
            raise GoFishError("ask first (a question and its answer are two decisions): "
                              f"{self.action_to_string(Move(action.asker, action.asked, action.suit))}")
        if isinstance(action, NamedQuestion):
            if not self.name_suits:
                raise GoFishError("this table's suits are not named in play (option name_suits)")
            self.game.push_named(action, action.name)
            return
        self.game.push(action)

    def undo(self) -> None:
        self.game.pop()

    def is_terminal(self) -> bool:
        return self.game.over or self.capped

    def outcome(self) -> Outcome | None:
        """How the game ended (the move cap: ``Outcome(None, "cap")``), None while it goes on."""
        if self.capped:
            return Outcome(None, "cap")
        return self.game.outcome

    def winners(self) -> tuple[int, ...]:
        """The seat that won, or () (a draw, the cap, nobody with a question, an illegal move's loser)."""
        out = self.outcome()
        return () if out is None or out.winner is None else (out.winner,)

    def returns(self) -> list[float]:
        P = self.num_players
        out = self.outcome()
        if out is None:
            return [0.0] * P
        if out.winner is not None:
            return [1.0 if p == out.winner else 0.0 for p in range(P)]
        if out.loser is not None:
            return [0.0 if p == out.loser else 1.0 / (P - 1) for p in range(P)]
        return [1.0 / P] * P

    def scores(self) -> list[float]:
        won = self.winners()
        return [1.0 if p in won else 0.0 for p in range(self.num_players)]

    def observation(self, player: int) -> GoFishObservation:
        g = self.game
        b = g.bounds()
        out = self.outcome()
        over = out is not None
        return GoFishObservation(
            player=player, players=g.setup.players, suits=g.setup.suits, suit_size=g.suit_size, rules=g.rules,
            moves=tuple(g.state.moves), to_move=None if over else self.current_player(),
            turn=None if over else g.turn, pending=g.pending, hands=g.hands(), low=b.low, high=b.high,
            determined=b.determined if b.feasible else False, fours=tuple(g.fours()), over=over,
            winner=None if out is None else out.winner, reason=None if out is None else out.reason,
            _game=g.copy(), fresh=tuple(g.fresh_suits()) if self.name_suits and not over else ())

    def action_to_string(self, action: Hashable) -> str:
        if not isinstance(action, Move):
            raise GoFishError(f"a Go Fish action is a Move, got {action!r}")
        if isinstance(action, NamedQuestion):
            names = self.game.setup.players
            mark = "?" if action.answer is None else "+" if action.answer else "-"
            return f"{names[action.asker]}>{names[action.asked]}:{action.name}{mark}"
        return self.game.move_text(action)

    def string_to_action(self, text: str) -> Move:
        """The move written ``ASKER>ASKED:SUIT?`` (a question) or ``...+``/``...-`` (an answer); under
        ``name_suits`` a suit name the table does not know names the first fresh suit (a
        :class:`~quaternity_cp.gofish.game.NamedQuestion`; see the module)."""
        if not isinstance(text, str):
            raise GoFishError(f"expected a move like \"0>1:A?\", got {text!r}")
        text = text.strip()
        g = self.game
        try:
            return g.parse_move(text)
        except NotationError:
            if not self.name_suits or text[-1:] not in ("+", "-", "?") or ">" not in text or ":" not in text:
                raise
            people, _, name = text[:-1].partition(":")
            if name in g.setup.suits:
                raise  # a known suit: the players are what is wrong
            fresh = g.fresh_suits()
            if not fresh:
                raise NotationError(f"unknown suit {name!r}: every suit is named or asked about already "
                                    f"({', '.join(g.setup.suits)})", None, text) from None
            try:
                g.check_suit_name(fresh[0], name)
            except GoFishError as err:
                raise NotationError(str(err), None, text) from None
            move = g.parse_move(f"{people}:{g.setup.suits[fresh[0]]}{text[-1]}")
            return NamedQuestion(move.asker, move.asked, move.suit, move.answer, name)

    def record(self) -> dict[str, Any]:
        return self.game.record()

    def clone(self) -> "GoFishState":
        return GoFishState(self.game.copy(), seed=self.seed, max_moves=self.max_moves, name_suits=self.name_suits)


def _whole(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise GoFishRulesError(f"option {name}: expected a whole number {low}..{high}, got {value!r}")
    return value


def table_rules(rules: str = "stacky", **options: Any) -> Rules:
    """The rules of a table: the rule set ``rules`` (a preset of :data:`~quaternity_cp.gofish.rules.PRESETS`),
    then every rule option given that differs from the default rules (an option at its default leaves the
    rule set's choice: to turn a rule set's option back, start from ``stacky``, the defaults)."""
    if not isinstance(rules, str) or rules not in PRESETS:
        raise GoFishRulesError(f"option rules: {rules!r} is not one of {', '.join(PRESETS)}")
    default = Rules()
    values: dict[str, object] = {"preset": rules}
    for name, value in options.items():
        if name not in RULE_OPTIONS:
            raise GoFishRulesError(f"option {name}: unknown (known: rules, {', '.join(RULE_OPTIONS)})")
        if value != getattr(default, name) or isinstance(value, bool) != isinstance(getattr(default, name), bool):
            values[name] = value
    return Rules.from_dict(values)


def resolve_options(given: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a table as a person gave them, with every one given honoured: a rule set (option
    ``rules``) stands for the rule options it fixes, and a rule option given explicitly wins over the rule
    set's value, one set back to its default included (as :func:`table_rules` reads options, an option at its
    default would leave the rule set's choice). The result names the defaults (``stacky``) as the rule set and
    every rule option the set fixed as played; the other options are untouched.

    >>> resolve_options({"rules": "geraschenko", "ask_void": "allow"})["ask_void"], table_rules(
    ...     **resolve_options({"rules": "geraschenko", "ask_void": "allow"})).four
    ('allow', 'some')
    """
    name = given.get("rules", "stacky")
    fixed = PRESETS.get(name, {}) if isinstance(name, str) else {}
    if not fixed:
        return dict(given)
    out = dict(given, rules="stacky")
    for option, value in fixed.items():
        out[option] = given[option] if option in given else value
    return out


def new_state(seed: int = 0, *, players: int = 3, suits: int = 0, suit_size: int = 4, rules: str = "stacky",
              first: int = 0, ask_void: str = "allow", after_yes: str = "next", four: str = "named",
              win_after_ask: bool = False, priority: str = "mover", no_initial_four: bool = False,
              repetition: str = "none", max_moves: int = DEFAULT_MAX_MOVES, suit_names: str = "",
              name_suits: bool = False) -> GoFishState:
    """A fresh game of Quantum Go Fish: ``players`` seats, ``suits`` suits (0: as many as players, or as
    ``suit_names`` names) of ``suit_size`` cards, the rule set ``rules`` with the rule options given (see
    :func:`table_rules`), the table's move cap ``max_moves`` (questions answered before a game nobody won is
    drawn), ``suit_names`` (the suits' names separated by commas; "": lettered A, B, C, ...) and
    ``name_suits`` (the first to ask for a suit names it: see the module). Nothing is
    dealt: the seed only names the game. A bad value raises
    :class:`~quaternity_cp.gofish.rules.GoFishRulesError`."""
    _whole("suits", suits, 0, 26)
    _whole("max_moves", max_moves, 1, MAX_MOVES_LIMIT)
    if not isinstance(suit_names, str):
        raise GoFishRulesError(f"option suit_names: expected names separated by commas, got {suit_names!r}")
    if not isinstance(name_suits, bool):
        raise GoFishRulesError(f"option name_suits: expected true or false, got {name_suits!r}")
    table = table_rules(rules, first=first, ask_void=ask_void, after_yes=after_yes, four=four,
                        win_after_ask=win_after_ask, priority=priority, no_initial_four=no_initial_four,
                        repetition=repetition)
    names = [n.strip() for n in suit_names.split(",")] if suit_names.strip() else []
    if names and suits and len(names) != suits:
        raise GoFishRulesError(f"option suit_names: {len(names)} names for {suits} suits")
    game = GoFish(_whole("players", players, 2, 26), names or suits or None, suit_size, table)
    return GoFishState(game, seed=seed, max_moves=max_moves, name_suits=name_suits)


def state_from_record(record: Mapping[str, object], *, max_moves: int = DEFAULT_MAX_MOVES,
                      name_suits: bool = False) -> GoFishState:
    """The state of a record's game (every move replayed; errors name the move); ``name_suits``: its suits
    not named or asked about yet may still be named in play."""
    return GoFishState(GoFish.from_record(record), max_moves=max_moves, name_suits=name_suits)


__all__ = ["GoFishState", "GoFishObservation", "new_state", "resolve_options", "table_rules", "state_from_record",
           "DEFAULT_MAX_MOVES", "RULE_OPTIONS", "MoveError"]
