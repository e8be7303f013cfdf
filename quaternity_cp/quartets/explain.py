"""Explanations: why a card, a quartet or a move is what it is.

For a fact about one moment of a record (a forced card, a card that cannot be
with a player, a forced or impossible quartet, a claim, an illegal move) an
:class:`Explanation` gives

1. the **moves responsible**: moves of the record whose information alone
   already implies the fact, none of which can be dropped (each is needed);
2. a **counting argument**: once the fact is assumed false, which players or
   set slots would need more cards than can go to them (a Hall-type witness),
   with every number it uses.

What a move tells (its *information*) refers to the moment it was made, and is
the facts of :mod:`quaternity_cp.quartets.effects` (the one home of what a move does),
taken on the constraint state of that moment (:func:`move_told`): a question's
:func:`~quaternity_cp.quartets.effects.asked_facts`, an answer no's exclusion, an answer
yes's hand-over (the card's movement, public anyway), a declaration's whole set
(which its claim says too). The reasoning below and the sentences that name
what each move told (:func:`move_information`, put into words by the one
renderer :func:`told_words`) use these same facts.

Always known, whichever moves are named: the hand sizes, the rules
(``initial_quartets``), a starting position, the cards' movements (answered
yes) and the claims. A claim tells that the claimer held the whole set at that
moment (the set leaves play and the claimer's hand shrinks by S, which fits no
other deal), so it counts as known like a movement, even where the moves that
forced it (``auto_claim``) are not named. An auto-claim made by the move being
explained is not used for its own explanation.

Each piece of information is carried to the frame of the fact's moment: a bound
on x's cards of s becomes a bound on x's cards of s then, shifted by the known
movements of s to and from x in between; a fact about a card that moved later,
or about a set claimed later, is settled by that movement or claim and dropped.
So "moves M imply the fact" means: the current-frame constraints built from the
known things and M's information, with the fact negated, leave no deal.

>>> from quaternity_cp.quartets.formats import parse_record
>>> rec = parse_record("players: 3\\nsets: 2\\nset_size: 3\\nrules: quaternity\\n0>1:A0+")
>>> [e.text for e in Explainer(rec).card(rec.game.card("A0"))]
['A0 must be with seat 0: seat 1 gave it to seat 0 in move 1.']

An explanation calls the exact engine once per move it might leave out, and
CP-SAT once, so a long record of a large game can take long: an
:class:`Explainer` made with ``max_seconds`` checks its clock between those
calls and inside its own loops, and raises :class:`ExplanationLimitError` once
the time is up (nothing partial is returned).
"""

from __future__ import annotations

import itertools
import math
import threading
import weakref
from collections import OrderedDict, deque
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Sequence, Union

from . import effects
from ..budget import Limits
from .constraints import Constraints, bits
from .effects import AtLeast, AtMost, Fact, Holds, Lacks
from .engines import ENGINES, Engine, get_engine
from ..errors import Illegal, IllegalMoveError, QuaternityError
from .formats import Record
from .game import Declaration, Game, Question
from .replay import Replay, replay
from .rules import Rules

# Moments inside move i: before it; after its question (answer not yet given);
# after its own effect (answer or declaration) but before the claims it forced;
# after everything.
BEFORE, ASKED, DONE, AFTER = "before", "asked", "done", "after"

# Where a statement of an argument comes from (besides a move index).
KNOWN = "known"  # hand sizes, rules, starting position, movements, claims, set size
HYPOTHESIS = "hypothesis"  # the assumption that the fact is false


class ExplanationError(QuaternityError):
    """A fact that cannot be explained (it is not true) or an internal inconsistency."""


class ExplanationLimitError(QuaternityError):
    """Explaining took longer than the explainer's ``max_seconds``: refused, nothing partial is returned."""


Check = Callable[[], None]


def _unlimited() -> None:
    """The check of an explainer without a time limit."""


# -- information atoms: the facts of quaternity_cp.quartets.effects ---------------------------------
Atom = Fact


# -- what is known at a moment -----------------------------------------------------
@dataclass(frozen=True)
class Knowledge:
    """The known things and every move's information, in the frame of one moment.

    ``base`` holds what is known whatever moves are named (start, rules,
    movements, claims); ``info[i]`` is move i's information that ``base`` does
    not already imply (moves without any are left out).
    """

    base: Constraints
    info: dict[int, tuple[Atom, ...]]
    movements: dict[int, tuple[int, int, int]]  # card -> (move, giver, taker) of its last movement

    def constraints(self, moves: Iterable[int] = (), extra: Iterable[Atom] = ()) -> Constraints:
        """The constraints of the named moves' information (plus ``extra`` atoms)."""
        c = self.base
        for m in moves:
            for atom in self.info.get(m, ()):
                c = atom.apply(c)
        for atom in extra:
            c = atom.apply(c)
        return c


# -- arguments and explanations ---------------------------------------------------------
@dataclass(frozen=True)
class Bound:
    """A count in an argument: ``seat`` holds at least/at most ``count`` cards of ``set``."""

    seat: int
    set: int
    count: int
    by: "int | str"  # a move index, KNOWN or HYPOTHESIS


@dataclass(frozen=True)
class Argument:
    """A counting argument: why no deal is left when the fact is assumed false.

    Kinds, each an inequality between ``need`` and ``supply``:

    - ``hall``: the ``seats`` (with their whole hands) and the ``at_least``
      slots would need ``need`` cards; only the listed ``cards`` and at most
      the ``at_most`` counts can go to them: ``supply`` < ``need``;
    - ``crowd``: the listed ``cards`` can only go to the ``seats``, which hold
      ``supply`` cards in all: ``need`` (the number of cards) > ``supply``;
    - ``card``: a card no seat could hold (``excluded`` gives each seat's reason);
    - ``bounds``: one seat would need at least ``need`` cards of a set and may
      hold at most ``supply`` of it;
    - ``hand``: one seat would need at least ``need`` cards (its ``at_least``
      counts) and holds ``supply``;
    - ``moved``: the card is where its known movement put it; ``start``: where
      the starting position puts it; ``claimed``: the set was claimed or
      declared (these three state no inequality: need = supply = 0).
    """

    kind: str
    text: str
    seats: tuple[tuple[int, int], ...] = ()  # (seat, hand size)
    at_least: tuple[Bound, ...] = ()
    at_most: tuple[Bound, ...] = ()
    cards: tuple[int, ...] = ()
    excluded: tuple[tuple[int, "int | str"], ...] = ()  # (seat, by) for kind "card"
    need: int = 0
    supply: int = 0

    def to_json(self, game: Game) -> dict[str, Any]:
        named = {p for p, _ in self.seats} | {b.seat for b in self.at_least + self.at_most} | {p for p, _ in self.excluded}
        return {
            "kind": self.kind,
            "text": self.text,
            "players": sorted(named),
            "seats": [{"player": p, "cards": h} for p, h in self.seats],
            "at_least": [_bound_json(game, b) for b in self.at_least],
            "at_most": [_bound_json(game, b) for b in self.at_most],
            "cards": [game.card_name(c) for c in self.cards],
            "excluded": [{"player": p, "by": by} for p, by in self.excluded],
            "need": self.need,
            "supply": self.supply,
        }


def _bound_json(game: Game, b: Bound) -> dict[str, Any]:
    return {"player": b.seat, "set": game.set_name(b.set), "count": b.count, "by": b.by}


@dataclass(frozen=True)
class Explanation:
    """Why one fact holds at one moment of a record.

    ``fact``: ``forced_card``, ``excluded_card``, ``forced_quartet``,
    ``impossible_quartet``, ``illegal_question`` or ``only_no``. ``moves``:
    1-based indices of the moves responsible (every one needed). The fact is
    about the moment ``stage`` of move ``index``: ``before`` it, ``asked``
    (after its question, before the answer), ``done`` (before the claims it
    forced) or ``after`` it. ``context``: ``position`` (the current position),
    ``claim`` (the claim made by move ``index``) or ``illegal`` (why move
    ``index`` is illegal).
    """

    fact: str
    statement: str
    text: str
    moves: tuple[int, ...]
    argument: Argument | None
    index: int
    stage: str
    context: str = "position"
    card: int | None = None
    set: int | None = None
    player: int | None = None

    def to_json(self, game: Game) -> dict[str, Any]:
        return {
            "fact": self.fact,
            "context": self.context,
            "text": self.text,
            "card": None if self.card is None else game.card_name(self.card),
            "set": None if self.set is None else game.set_name(self.set),
            "player": self.player,
            "moves": list(self.moves),
            "moment": {"move": self.index, "stage": self.stage},
            "argument": None if self.argument is None else self.argument.to_json(game),
        }


# -- phrasing ---------------------------------------------------------------------------
def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _n_cards(n: int) -> str:
    return "no cards" if n == 0 else f"{n} card" + ("" if n == 1 else "s")


def moves_phrase(moves: Sequence[int], *, start: bool = False, initial_quartets: bool = True) -> str:
    """``because of moves 3, 5 and 8``, or what is known without any move's information."""
    if not moves:
        known = ["the hand sizes", "the cards' movements", "the claims"]
        if start:
            known.insert(0, "the starting position")
        if not initial_quartets:
            known.append("the rule that nobody starts with a complete set")
        return f"from {_join(known)} alone"
    if len(moves) == 1:
        return f"because of move {moves[0]}"
    return "because of moves " + _join([str(m) for m in moves])


class _Phrases:
    def __init__(self, game: Game):
        self.g = game

    def p(self, seat: int) -> str:
        return self.g.seat_name(seat)

    def P(self, seat: int) -> str:
        """The player at the start of a sentence (``Seat 2``; names as they are)."""
        name = self.p(seat)
        return name if self.g.named_players else name[0].upper() + name[1:]

    def c(self, card: int) -> str:
        return self.g.card_name(card)

    def s(self, s: int) -> str:
        return self.g.set_name(s)

    def seats(self, seats: Iterable[int]) -> str:
        return _join([self.p(x) for x in seats])


# -- the explainer -----------------------------------------------------------------------
def default_engine_name() -> str:
    return "flow" if "flow" in ENGINES else "cpsat"


class Explainer:
    """Explanations for the facts of one record (replayed once).

    ``result`` is the record's :class:`~quaternity_cp.quartets.replay.Replay` when the
    caller has it; ``engine`` (a name or an engine) decides every feasibility
    question, by default the flow engine when there is one, else CP-SAT.
    ``max_seconds`` (a finite number > 0, else ValueError; None: no limit): the
    time every explanation of this explainer may take together, counted from
    its making; past it they raise :class:`ExplanationLimitError`.
    """

    def __init__(self, record: Record, result: Replay | None = None, *, engine: "str | Engine | None" = None,
                 max_seconds: float | None = None):
        self.max_seconds = max_seconds
        self._clock = Limits(max_seconds=max_seconds).start()
        self.check: Check = self._check if max_seconds is not None else _unlimited
        self.record = record
        self.game = record.game
        if engine is None:
            engine = result.position.engine if result is not None else default_engine_name()
        self.engine = get_engine(engine)
        self.result = result if result is not None else replay(record, engine=self.engine, mark_forced=False)
        self.say = _Phrases(self.game)
        self._knowledge: dict[tuple[int, str], Knowledge] = {}

    def _check(self) -> None:
        """Raise :class:`ExplanationLimitError` once ``max_seconds`` have passed."""
        if self._clock.expired():
            raise ExplanationLimitError(f"explaining takes longer than {self.max_seconds:g} s")

    def _seconds_left(self) -> float | None:
        """The time left (None without a limit), for CP-SAT's own time limit."""
        return None if self.max_seconds is None else max(0.01, self.max_seconds - self._clock.elapsed())

    # -- moments ----------------------------------------------------------------------
    @property
    def applied(self) -> int:
        """Moves applied before the current position (all, or up to the first illegal one)."""
        return self.result.moves_applied

    def _claims(self, i: int) -> tuple[tuple[int, int], ...]:
        """The claims forced by move i (a declaration's own claim left out)."""
        claims = self.result.reports[i - 1].claims
        move = self.record.moves[i - 1]
        if isinstance(move, Declaration):
            claims = tuple(x for x in claims if x != (move.set, move.player))
        return claims

    def knowledge(self, index: int, stage: str = AFTER) -> Knowledge:
        """What is known after move ``index`` (``stage`` says how much of it), in that frame."""
        key = (index, stage)
        if key not in self._knowledge:
            self._knowledge[key] = self._walk(index, stage)
        return self._knowledge[key]

    def _walk(self, index: int, stage: str) -> Knowledge:
        g = self.game
        S = g.set_size
        start = self.record.start
        if start is not None:
            base, pending = start.constraints, start.pending
        else:
            base = Constraints.initial(g.players, g.sets, S, self.record.rules.initial_quartets)
            pending = None
        info: dict[int, list[Atom]] = {}
        movements: dict[int, tuple[int, int, int]] = {}

        def transfer(i: int, card: int, giver: int, taker: int) -> None:
            nonlocal base
            base = base.transfer(card, giver, taker)
            movements[card] = (i, giver, taker)
            for m, atoms in info.items():
                info[m] = [b for a in atoms if (b := a.moved(card, giver, taker, S)) is not None]

        def claim(s: int, p: int) -> None:
            nonlocal base
            base = effects.claim(base, p, s)
            for m, atoms in info.items():
                info[m] = [a for a in atoms if a.set_of(S) != s]

        check = self.check
        for i, move in enumerate(self.record.moves[:index], 1):
            check()
            last = i == index
            if last and stage == BEFORE:
                break
            atoms = info.setdefault(i, [])
            if isinstance(move, Question):
                if pending is None or move.unanswered() != pending:
                    atoms.extend(question_told(base, move, self.record.rules))
                    pending = move.unanswered()
                if last and stage == ASKED or move.answer is None:
                    continue
                pending = None
                for told in answer_told(base, move):
                    if isinstance(told, Gave):
                        transfer(i, told.card, told.giver, told.taker)
                    else:
                        atoms.append(told)
            else:
                atoms.extend(claim_told(base, move.player, move.set))
                claim(move.set, move.player)
            if last and stage != AFTER:
                break
            for s, p in self._claims(i):
                claim(s, p)
        kept = {}
        for m, atoms in info.items():
            atoms = [a for a in dict.fromkeys(atoms) if not a.implied_by(base)]
            if atoms:
                kept[m] = tuple(atoms)
        return Knowledge(base, kept, movements)

    def _because(self, moves: Sequence[int]) -> str:
        return moves_phrase(moves, start=self.record.start is not None,
                            initial_quartets=self.record.rules.initial_quartets)

    # -- the core: which moves imply a fact -----------------------------------------------
    def _feasible(self, c: Constraints) -> bool:
        return self.engine.feasible(c)

    def responsible_moves(self, k: Knowledge, negation: Sequence[Atom]) -> tuple[int, ...]:
        """A set of moves whose information implies that ``negation`` cannot hold, each needed.

        A first core comes from CP-SAT (one assumption literal per move,
        ``SufficientAssumptionsForInfeasibility``); it is then shrunk by
        deletion, every removal checked by the engine on rebuilt constraints.
        """
        candidates = sorted(k.info)
        self.check()
        if self._feasible(k.constraints(candidates, negation)):
            raise ExplanationError("the fact does not hold: some consistent deal contradicts it")
        self.check()
        core = _sat_core(k, candidates, negation, seconds=self._seconds_left())
        self.check()
        if core is None or self._feasible(k.constraints(core, negation)):
            core = candidates  # never expected (or CP-SAT ran out of time); the deletion below keeps the answer right
        keep = list(core)
        for m in sorted(core, reverse=True):
            self.check()
            trial = [j for j in keep if j != m]
            if not self._feasible(k.constraints(trial, negation)):
                keep = trial
        return tuple(keep)

    # -- facts of the current position ----------------------------------------------------
    def _current(self) -> tuple[int, Constraints]:
        return self.applied, self.result.position.constraints

    def card(self, card: int, player: int | None = None) -> list[Explanation]:
        """Why ``card``'s possible owners are what they are (or, with ``player``, why that
        player must or cannot hold it). Nothing to explain gives an empty list."""
        g = self.game
        s = card // g.set_size
        n, c = self._current()
        if not c.in_play[s]:
            return self.quartet(s)
        analysis = self.result.position.analysis()
        if not analysis.feasible:
            raise ExplanationError("the position is invalid: no consistent deal is left")
        owners = analysis.owners[card]
        forced = analysis.forced_owner(card)
        if player is not None:
            if forced == player:
                return [self.forced_card(card, player, n, AFTER)]
            if not owners >> player & 1:
                return [self.excluded_card(card, player, n, AFTER)]
            return []
        if forced is not None:
            return [self.forced_card(card, forced, n, AFTER)]
        return [self.excluded_card(card, p, n, AFTER) for p in range(g.players) if not owners >> p & 1]

    def quartet(self, s: int, player: int | None = None) -> list[Explanation]:
        """Why set ``s`` is claimed, forced, or impossible for some players."""
        n, c = self._current()
        if not c.in_play[s]:
            return [self.claim(s)]
        analysis = self.result.position.analysis()
        if not analysis.feasible:
            raise ExplanationError("the position is invalid: no consistent deal is left")
        forced = analysis.forced_quartets(c).get(s)
        if forced is not None and player in (None, forced):
            return [self.forced_quartet(s, forced, n, AFTER)]
        seats = range(self.game.players) if player is None else [player]
        return [self.impossible_quartet(s, p, n, AFTER) for p in seats if not analysis.quartets[s] >> p & 1]

    def position(self) -> list[Explanation]:
        """Every forced card and forced quartet of the current position."""
        n, c = self._current()
        analysis = self.result.position.analysis()
        if not analysis.feasible:
            return []
        out = []
        for card in c.cards_in_play:
            self.check()
            p = analysis.forced_owner(card)
            if p is not None:
                out.append(self.forced_card(card, p, n, AFTER))
        for s, p in sorted(analysis.forced_quartets(c).items()):
            out.append(self.forced_quartet(s, p, n, AFTER))
        return out

    def claim(self, s: int) -> Explanation:
        """Why set ``s`` was claimed: declared, claimed in the starting position, or forced by a move."""
        say = self.say
        for i, r in enumerate(self.result.reports, 1):
            for t, p in r.claims:
                if t != s:
                    continue
                move = self.record.moves[i - 1]
                if isinstance(move, Declaration) and (move.set, move.player) == (s, p):
                    statement = f"Set {say.s(s)} was declared by {say.p(p)} in move {i}"
                    arg = Argument("claimed", f"{say.P(p)} declared it: {say.p(p)} held all of {say.s(s)}.")
                    return Explanation("forced_quartet", statement, statement + ".", (i,), arg, i, DONE,
                                       "claim", set=s, player=p)
                e = self.forced_quartet(s, p, i, DONE)
                statement = f"Set {say.s(s)} was claimed by {say.p(p)} after move {i}: it was forced"
                text = f"{statement}, {self._because(e.moves)}."
                return replace(e, statement=statement, text=text, context="claim")
        p = self.record.start.claimed[s] if self.record.start is not None else -1
        statement = f"Set {say.s(s)} was claimed by {say.p(p)} before the record starts"
        arg = Argument("claimed", "The starting position says so.")
        return Explanation("forced_quartet", statement, statement + ".", (), arg, 0, AFTER, "claim", set=s, player=p)

    # -- one fact at one moment -----------------------------------------------------------
    def forced_card(self, card: int, p: int, index: int, stage: str) -> Explanation:
        say = self.say
        k = self.knowledge(index, stage)
        statement = f"{say.c(card)} must be with {say.p(p)}"
        if k.base.domains[card] == 1 << p:
            moved = k.movements.get(card)
            if moved is not None and moved[2] == p:
                i, giver, _ = moved
                kind, reason = "moved", f"{say.p(giver)} gave it to {say.p(p)} in move {i}"
            else:
                kind, reason = "start", "the starting position says so"
            arg = Argument(kind, f"{statement}: {reason}.")
            return Explanation("forced_card", statement, arg.text, (), arg, index, stage, card=card, player=p)
        return self._explain("forced_card", statement, [Lacks(card, p)], f"{say.c(card)} were not with {say.p(p)}",
                             k, index, stage, card=card, player=p)

    def excluded_card(self, card: int, p: int, index: int, stage: str) -> Explanation:
        say = self.say
        k = self.knowledge(index, stage)
        statement = f"{say.c(card)} cannot be with {say.p(p)}"
        moved = k.movements.get(card)
        if not k.base.domains[card] >> p & 1 and moved is not None and k.base.domains[card] == 1 << moved[2]:
            i, giver, taker = moved
            arg = Argument("moved", f"{statement}: {say.p(giver)} gave it to {say.p(taker)} in move {i}.")
            return Explanation("excluded_card", statement, arg.text, (), arg, index, stage, card=card, player=p)
        return self._explain("excluded_card", statement, [Holds(card, p)], f"{say.c(card)} were with {say.p(p)}",
                             k, index, stage, card=card, player=p)

    def forced_quartet(self, s: int, p: int, index: int, stage: str) -> Explanation:
        say = self.say
        k = self.knowledge(index, stage)
        statement = f"Set {say.s(s)} must be with {say.p(p)}"
        return self._explain("forced_quartet", statement, [AtMost(p, s, self.game.set_size - 1)],
                             f"{say.p(p)} did not hold all of {say.s(s)}", k, index, stage, set=s, player=p)

    def impossible_quartet(self, s: int, p: int, index: int, stage: str) -> Explanation:
        say = self.say
        k = self.knowledge(index, stage)
        statement = f"{say.P(p)} cannot hold all of set {say.s(s)}"
        negation: list[Atom] = [Holds(card, p) for card in self.game.cards_of(s)]
        return self._explain("impossible_quartet", statement, negation, f"{say.p(p)} held all of {say.s(s)}",
                             k, index, stage, set=s, player=p)

    def illegal(self) -> Explanation | None:
        """Why the record's first illegal move is illegal, when the constraints decide it
        (impossible answers, questions and declarations); None otherwise."""
        err = self.result.error
        if err is None:
            return None
        i = self.result.error_index
        assert i is not None  # set with the error
        move = self.record.moves[i - 1]
        say = self.say
        if isinstance(move, Declaration):
            if err.reason not in (Illegal.IMPOSSIBLE_DECLARATION, Illegal.IMPOSSIBLE_PUT_DOWN):
                return None
            e = self.impossible_quartet(move.set, move.player, i, BEFORE)
            prefix = f"{say.P(move.player)} could not declare {say.s(move.set)}"
        elif err.reason is Illegal.IMPOSSIBLE_YES:
            e = self.excluded_card(move.card, move.target, i, ASKED)
            prefix = "The answer had to be no"
        elif err.reason is Illegal.IMPOSSIBLE_NO:
            e = self.forced_card(move.card, move.target, i, ASKED)
            prefix = "The answer had to be yes"
        elif err.reason in (Illegal.NO_CONSISTENT_DEAL, Illegal.ONLY_NO):
            k = self.knowledge(i, BEFORE)
            x, y, card = move.asker, move.target, move.card
            negation = question_told(k.base, move, self.record.rules)
            asked, lacks = self._asking(k.base, x, card)
            if err.reason is Illegal.ONLY_NO:
                negation = negation + [Holds(card, y)]
                statement = f"{say.c(card)} cannot be with {say.p(y)} once {say.p(x)} asks for it (only a no is possible)"
                hyp = f"{asked} and {say.p(y)} held it"
                fact = "only_no"
            else:
                statement = f"{say.p(x)} cannot {lacks}"
                hyp = asked
                fact = "illegal_question"
            e = self._explain(fact, statement, negation, hyp, k, i, BEFORE, card=card, player=x)
            prefix = f"{say.P(x)} could not ask {say.p(y)} for {say.c(card)}"
        else:
            return None
        inner = e.statement
        if not self.game.named_players and inner.startswith("Seat "):
            inner = "s" + inner[1:]
        statement = f"{prefix}: {inner}"
        why = self._because(e.moves)
        if e.moves == (i,):
            why = "because of the question itself"
        elif i in e.moves:
            why += f" (move {i}: its question)"
        if e.argument is not None and e.argument.kind in ("moved", "start"):
            return replace(e, statement=statement, text=f"{prefix}: {e.text}", context="illegal")
        return replace(e, statement=statement, text=f"{statement}, {why}.", context="illegal")

    def _asking(self, c: Constraints, x: int, card: int) -> tuple[str, str]:
        """What seat x's question for ``card`` in state ``c`` tells about x, in the words of an illegal
        question's explanation, from :func:`quaternity_cp.quartets.effects.question_facts`: ``x asked for c
        (lacking it and holding another card of S[, and no complete set])`` and ``lack c while
        holding another card of S[ and no complete set]`` (other facts: said as :func:`told_words` does)."""
        say = self.say
        S = self.game.set_size
        facts = effects.question_facts(c, x, card, silence=self.record.rules.silence)
        rest: list[Told] = list(facts)
        if _take(rest, [Lacks(card, x), AtLeast(x, card // S, 1)]):
            whole = _take(rest, [AtMost(x, t, S - 1) for t in c.sets_in_play])
            if not rest:
                s = say.s(card // S)
                return (f"{say.p(x)} asked for {say.c(card)} (lacking it and holding another card of {s}"
                        + (", and no complete set)" if whole else ")"),
                        f"lack {say.c(card)} while holding another card of {s}" + (" and no complete set" if whole else ""))
        words = "; ".join(told_words(facts, c, say, asker=x))
        return f"{say.p(x)} asked for {say.c(card)} ({words})", f"have asked for {say.c(card)} ({words})"

    def _explain(self, fact: str, statement: str, negation: list[Atom], hypothesis: str, k: Knowledge,
                 index: int, stage: str, **about) -> Explanation:
        moves = self.responsible_moves(k, negation)
        arg = counting_argument(self.game, k, moves, negation, hypothesis, self.say, check=self.check)
        text = f"{statement}, {self._because(moves)}."
        return Explanation(fact, statement, text, moves, arg, index, stage, **about)


# -- what a move tells --------------------------------------------------------------------
@dataclass(frozen=True)
class Gave:
    """An answer yes: ``giver`` handed ``card`` to ``taker`` (the card's movement, public anyway)."""

    card: int
    giver: int
    taker: int


#: What a move tells: facts of :mod:`quaternity_cp.quartets.effects`, and the hand-over of a yes.
Told = Union[Fact, Gave]


def question_told(c: Constraints, move: Question, rules: Rules) -> list[Fact]:
    """What asking ``move``'s question tells, in the constraint state ``c`` it was asked in:
    :func:`quaternity_cp.quartets.effects.asked_facts` under ``rules``."""
    return effects.asked_facts(c, move.asker, move.card, silence=rules.silence, dealt=rules.dealt)


def answer_told(c: Constraints, move: Question) -> list[Told]:
    """What the answer of ``move`` (answered) tells in the constraint state ``c``, read off
    :func:`quaternity_cp.quartets.effects.answer`: yes, the hand-over it makes (the seat whose hand
    shrinks gave the card to the seat whose hand grows); no, that every seat outside
    :func:`quaternity_cp.quartets.effects.answer_domain` did not hold the card."""
    if move.answer:
        after = effects.answer(c, move.asker, move.target, move.card, True)
        giver = [p for p in range(c.players) if after.hands[p] < c.hands[p]]
        taker = [p for p in range(c.players) if after.hands[p] > c.hands[p]]
        return [Gave(move.card, g, t) for g, t in zip(giver, taker)]
    mask = effects.answer_domain(move.target, False)
    return [Lacks(move.card, p) for p in range(c.players) if not mask >> p & 1]


def claim_told(c: Constraints, seat: int, s: int) -> list[Fact]:
    """What a declaration (or put-down) of set ``s`` by ``seat`` tells, read off
    :func:`quaternity_cp.quartets.effects.claim`: the seat whose hand shrinks held every card of the
    sets that leave play."""
    after = effects.claim(c, seat, s)
    left = [t for t in range(c.sets) if c.in_play[t] and not after.in_play[t]]
    holders = [p for p in range(c.players) if after.hands[p] < c.hands[p]]
    return [Holds(card, p) for p in holders for t in left for card in c.cards_of(t)]


@dataclass(frozen=True)
class MoveTold:
    """What one move tells at the moment it was made, as facts.

    ``question``: what its question tells (None when the move asks nothing: a declaration, or
    the answer to a question already open; empty: an asker without cards, which tells nothing);
    ``answer``: what its answer or declaration tells (empty when not given, or cut off by the
    stage ``asked``). ``state``: the constraint state it was made in (before the move).
    """

    question: tuple[Fact, ...] | None
    answer: tuple[Told, ...]
    state: Constraints


def move_told(record: Record, i: int, stage: str = AFTER) -> MoveTold:
    """What move i (1-based) of ``record`` tells, as facts, at the moment it was made (with stage
    ``asked``: its question only). The states come from one replay of the record through
    :class:`~quaternity_cp.quartets.position.Position`, kept for the record's next moves."""
    c, pending = _moment(record, i)
    move = record.moves[i - 1]
    if isinstance(move, Declaration):
        return MoveTold(None, tuple(claim_told(c, move.player, move.set)), c)
    question = None if pending == move.unanswered() else tuple(question_told(c, move, record.rules))
    answer: tuple[Told, ...] = ()
    if stage != ASKED and move.answer is not None:
        answer = tuple(answer_told(c, move))
    return MoveTold(question, answer, c)


def move_information(record: Record, i: int, stage: str = AFTER) -> str:
    """What move i (1-based) of ``record`` tells, at the moment it was made, in words
    (with stage ``asked``: its question only): the facts of :func:`move_told`, put into words
    by :func:`told_words`."""
    move = record.moves[i - 1]
    told = move_told(record, i, stage)
    say = _Phrases(record.game)
    parts = []
    if told.question is not None and isinstance(move, Question):
        parts.extend(told_words(told.question, told.state, say, asker=move.asker))
    parts.extend(told_words(told.answer, told.state, say))
    return "; ".join(parts)


def told_words(told: Sequence[Told], c: Constraints, say: _Phrases, asker: int | None = None) -> list[str]:
    """Facts in words, one clause each group (``c``: the state they were told in, for the sets
    in play and the set size):

    - Lacks(c, p) and AtLeast(p, set of c, 1): ``p held a card of S but not c``, followed by
      ``, and no complete set`` when AtMost(p, t, S-1) comes with it for every set t in play;
    - AtMost(p, t, S-1) for every seat p and set t in play: ``nobody held a complete set``
      (always the last clause);
    - Holds(c, p) for every card c of a set S: ``p held all of S``;
    - Gave(c, q, p): ``q gave c to p``;
    - any other fact in plain words (:func:`fact_words`), never dropped.

    ``asker``: the facts are what a question of that seat told; when they say nothing about it
    (an asker without cards), the first clause is ``asker held no cards (and could ask for any card)``.
    """
    S = c.set_size
    live = c.sets_in_play
    rest = list(told)
    tail = []
    grid = [AtMost(p, t, S - 1) for p in range(c.players) for t in live]
    if grid and _take(rest, grid):
        tail.append("nobody held a complete set")
    clauses = []
    if asker is not None and not rest:
        clauses.append(f"{say.p(asker)} held no cards (and could ask for any card)")
    while rest:
        fact = rest.pop(0)
        if isinstance(fact, Lacks) and _take(rest, [AtLeast(fact.seat, fact.card // S, 1)]):
            text = f"{say.p(fact.seat)} held a card of {say.s(fact.card // S)} but not {say.c(fact.card)}"
            if live and _take(rest, [AtMost(fact.seat, t, S - 1) for t in live]):
                text += ", and no complete set"
            clauses.append(text)
        elif isinstance(fact, Holds) and _take(rest, [Holds(k, fact.seat) for k in c.cards_of(fact.card // S)
                                                      if k != fact.card]):
            clauses.append(f"{say.p(fact.seat)} held all of {say.s(fact.card // S)}")
        else:
            clauses.append(fact_words(fact, S, say))
    return clauses + tail


def fact_words(fact: Told, S: int, say: _Phrases) -> str:
    """One fact in plain words (the phrasing of a fact no group of :func:`told_words` covers)."""
    if isinstance(fact, Gave):
        return f"{say.p(fact.giver)} gave {say.c(fact.card)} to {say.p(fact.taker)}"
    if isinstance(fact, Lacks):
        return f"{say.p(fact.seat)} did not hold {say.c(fact.card)}"
    if isinstance(fact, Holds):
        return f"{say.p(fact.seat)} held {say.c(fact.card)}"
    p, s, n = say.p(fact.seat), say.s(fact.set), fact.count
    if isinstance(fact, AtLeast):
        return f"{p} held all of {s}" if n >= S else f"{p} held at least {_n_cards(n)} of {s}"
    if n <= 0:
        return f"{p} held no card of {s}"
    return f"{p} did not hold all of {s}" if n == S - 1 else f"{p} held at most {_n_cards(n)} of {s}"


def _take(pool: list[Told], wanted: Sequence[Told]) -> bool:
    """Remove one copy of each of ``wanted`` from ``pool`` when all are there (else leave it as it is)."""
    left = list(pool)
    for item in wanted:
        if item not in left:
            return False
        left.remove(item)
    pool[:] = left
    return True


# The constraint state before each move of a record (and the question open then), from one replay
# through the referee; a few records kept, so that the moves an explanation cites cost one replay.
_Moments = list[tuple[Constraints, "Question | None"]]
_MOMENTS: "OrderedDict[int, tuple[weakref.ref[Record], tuple[Any, ...], _Moments]]" = OrderedDict()
_MOMENTS_KEPT = 4
_MOMENTS_LOCK = threading.Lock()


def _moment(record: Record, i: int) -> tuple[Constraints, Question | None]:
    """The constraint state in which move i was made, and the question then open."""
    key = (record.game, record.rules, record.start, tuple(record.moves))
    with _MOMENTS_LOCK:
        kept = _MOMENTS.get(id(record))
        if kept is not None and kept[0]() is record and kept[1] == key:
            _MOMENTS.move_to_end(id(record))
            return kept[2][i - 1]
    moments = _moments(record)
    with _MOMENTS_LOCK:
        _MOMENTS[id(record)] = (weakref.ref(record), key, moments)
        while len(_MOMENTS) > _MOMENTS_KEPT:
            _MOMENTS.popitem(last=False)
    return moments[i - 1]


def _moments(record: Record) -> list[tuple[Constraints, Question | None]]:
    """One replay through :class:`~quaternity_cp.quartets.position.Position`: the state before each move.
    Past the first move the referee refuses (whose own state is known), the moves are taken as
    written: a yes moves the card (:func:`quaternity_cp.quartets.effects.answer`), a declaration claims its set
    (:func:`quaternity_cp.quartets.effects.claim`); no rule is checked there."""
    position = record.position()
    position.history = False
    out: list[tuple[Constraints, Question | None]] = []
    moves = record.moves
    for move in moves:
        out.append((position.constraints, position.pending))
        try:
            position.push(move)
        except IllegalMoveError:
            break
        if position.illegal is not None:
            break
    else:
        return out
    c, pending = out[-1]
    for move in moves[len(out) - 1:-1]:  # each move as written gives the state before the next one
        if isinstance(move, Declaration):
            c, pending = effects.claim(c, move.player, move.set), None
        elif move.answer is None:
            pending = move.unanswered()
        else:
            if move.answer:
                c = effects.answer(c, move.asker, move.target, move.card, True)
            pending = None
        out.append((c, pending))
    return out


# -- CP-SAT: a first core over per-move assumption literals ---------------------------------
def _sat_core(k: Knowledge, candidates: Sequence[int], negation: Sequence[Atom],
              seconds: float | None = None) -> list[int] | None:
    """Moves whose information CP-SAT found sufficient for infeasibility, or None if feasible
    (all the candidates when it did not decide within ``seconds``)."""
    from ..imports import cp_model as _load_cp_model
    _load_cp_model()  # the first import is slow: Ctrl-C held back meanwhile
    from ortools.sat.python import cp_model

    c = k.base
    S = c.set_size
    model = cp_model.CpModel()
    zero = model.new_constant(0)
    x: dict[tuple[int, int], cp_model.IntVar] = {}
    for card in c.cards_in_play:
        row = []
        for p in bits(c.domains[card]):
            x[card, p] = v = model.new_bool_var(f"x{card}_{p}")
            row.append(v)
        if not row:
            return []
        model.add_exactly_one(row)

    def held(p: int, s: int):
        return cp_model.LinearExpr.sum([x[card, p] for card in c.cards_of(s) if (card, p) in x])

    for p in range(c.players):
        model.add(cp_model.LinearExpr.sum([v for (_, q), v in x.items() if q == p]) == c.hands[p])
        for s in c.sets_in_play:
            lo, hi = max(0, c.lo[p][s]), min(S, c.hi[p][s])
            if lo > hi:
                return []
            model.add_linear_constraint(held(p, s), lo, hi)

    def post(atom: Atom, lit=None) -> None:
        if isinstance(atom, Holds):
            cts = [model.add(x.get((atom.card, atom.seat), zero) == 1)]
        elif isinstance(atom, Lacks):
            cts = [model.add(x.get((atom.card, atom.seat), zero) == 0)]
        elif isinstance(atom, AtLeast):
            cts = [model.add(held(atom.seat, atom.set) >= atom.count)]
        else:
            cts = [model.add(held(atom.seat, atom.set) <= atom.count)]
        if lit is not None:
            for ct in cts:
                ct.only_enforce_if(lit)

    for atom in negation:
        post(atom)
    literal_move, literals = {}, []
    for m in candidates:
        lit = model.new_bool_var(f"move{m}")
        literal_move[lit.index] = m
        literals.append(lit)
        for atom in k.info[m]:
            post(atom, lit)
    model.add_assumptions(literals)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    from .engines.cpsat import run_solve  # stoppable by Ctrl-C, the SIGINT handler left as it was

    # one solve, maybe long: in a worker thread from the start (a restart after a first slice would cost it time)
    status = run_solve(solver, model, math.inf if seconds is None else seconds, direct_seconds=0)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    if status != cp_model.INFEASIBLE:
        return list(candidates)
    return sorted(literal_move[i] for i in solver.sufficient_assumptions_for_infeasibility())


# -- the counting argument ------------------------------------------------------------------
class _Sources:
    """Where each count or exclusion of the fact-negated constraints comes from."""

    def __init__(self, k: Knowledge, moves: Sequence[int]):
        self.k = k
        self.moves = moves

    def lacks(self, card: int, seat: int) -> "int | str":
        if not self.k.base.domains[card] >> seat & 1:
            return KNOWN
        for m in self.moves:
            for a in self.k.info[m]:
                if (isinstance(a, Lacks) and a.card == card and a.seat == seat) or (
                    isinstance(a, Holds) and a.card == card and a.seat != seat
                ):
                    return m
        return HYPOTHESIS

    def at_least(self, seat: int, s: int, n: int) -> "int | str":
        if n <= max(0, self.k.base.lo[seat][s]):
            return KNOWN
        for m in self.moves:
            for a in self.k.info[m]:
                if isinstance(a, AtLeast) and (a.seat, a.set) == (seat, s) and a.count >= n:
                    return m
        return HYPOTHESIS

    def at_most(self, seat: int, s: int, n: int) -> "int | str":
        if n >= min(self.k.base.hi[seat][s], self.k.base.set_size):
            return KNOWN
        for m in self.moves:
            for a in self.k.info[m]:
                if isinstance(a, AtMost) and (a.seat, a.set) == (seat, s) and a.count <= n:
                    return m
        return HYPOTHESIS


def counting_argument(game: Game, k: Knowledge, moves: Sequence[int], negation: Sequence[Atom],
                      hypothesis: str, say: "_Phrases | None" = None, check: Check = _unlimited) -> Argument:
    """Why the named moves' information, with ``negation``, leaves no deal: the simplest
    violated counting condition found (see :class:`Argument` for the kinds). ``check`` is
    called now and then while it searches (an explainer's clock)."""
    say = say or _Phrases(game)
    c = k.constraints(moves, negation)
    src = _Sources(k, moves)
    S, P = c.set_size, c.players
    live = c.sets_in_play
    hyp = f"If {hypothesis}, "
    # a card nobody may hold
    focus = [a.card for a in negation if isinstance(a, (Lacks, Holds))]
    for card in focus + [card for card in c.cards_in_play if card not in focus]:
        if c.domains[card] == 0:
            excluded = tuple((p, src.lacks(card, p)) for p in range(P))
            others = [p for p, by in excluded if by != HYPOTHESIS]
            text = f"{hyp}{say.c(card)} could go to no one: {say.seats(others) or 'nobody'} cannot hold it."
            direct = [(p, by) for p, by in excluded if Holds(card, p) in negation and isinstance(by, int)]
            if direct:  # the fact is one move's own information
                p, m = direct[0]
                text = (f"Move {m} rules it out directly: {say.p(p)} did not hold {say.c(card)} then,"
                        f" and {say.c(card)} has not moved since.")
            return Argument("card", text, cards=(card,), excluded=excluded, need=1, supply=0)
    # crossed bounds of one seat and set
    for p in range(P):
        for s in live:
            lo, hi = max(0, c.lo[p][s]), min(S, c.hi[p][s])
            if lo > hi:
                text = (f"{hyp}{say.p(p)} would need at least {_n_cards(lo)} of {say.s(s)}"
                        f" but could hold {f'at most {hi}' if hi else 'none'}.")
                return Argument("bounds", text, at_least=(Bound(p, s, lo, src.at_least(p, s, lo)),),
                                at_most=(Bound(p, s, hi, src.at_most(p, s, hi)),), need=lo, supply=hi)
    # a hand too small for its lower bounds
    for p in range(P):
        need = [(s, c.lo[p][s]) for s in live if c.lo[p][s] > 0]
        total = sum(n for _, n in need)
        if total > c.hands[p]:
            parts = _join([f"{n} of {say.s(s)}" for s, n in need])
            text = f"{hyp}{say.p(p)} would need at least {_n_cards(total)} ({parts}) but holds {_n_cards(c.hands[p])}."
            bounds = tuple(Bound(p, s, n, src.at_least(p, s, n)) for s, n in need)
            return Argument("hand", text, seats=((p, c.hands[p]),), at_least=bounds, need=total, supply=c.hands[p])
    return _hall_argument(c, src, focus, hyp, say, check)


def _crowd_text(c: Constraints, W: Sequence[int], crowd: Sequence[int], hyp: str, say: _Phrases) -> str:
    room = sum(c.hands[p] for p in W)
    what = say.c(crowd[0]) if len(crowd) == 1 else f"the {len(crowd)} cards " + ", ".join(say.c(x) for x in crowd)
    verb = "holds" if len(W) == 1 else "hold"
    return f"{hyp}{what} could go only to {say.seats(W)}, who {verb} {_n_cards(room)}."


def _crowd(c: Constraints, W: Sequence[int], crowd: Sequence[int], focus: Sequence[int], hyp: str,
           say: _Phrases) -> Argument:
    """The cards of ``crowd`` can only go to the seats W: one more of them than W holds is enough
    (the fact's own cards first)."""
    room = sum(c.hands[p] for p in W)
    crowd = sorted(crowd, key=lambda card: (card not in focus, card))[:room + 1]
    return Argument("crowd", _crowd_text(c, W, sorted(crowd), hyp, say), seats=tuple((p, c.hands[p]) for p in W),
                    cards=tuple(sorted(crowd)), need=len(crowd), supply=room)


def _crowd_argument(c: Constraints, focus: Sequence[int], hyp: str, say: _Phrases, most: int = 2,
                    check: Check = _unlimited) -> Argument | None:
    """Cards that can only go to one or two seats, more of them than those seats hold."""
    for size in range(1, min(most, c.players - 1) + 1):
        best = None
        for W in itertools.combinations(range(c.players), size):
            check()
            mask = sum(1 << p for p in W)
            crowd = [card for card in c.cards_in_play if c.domains[card] & ~mask == 0]
            room = sum(c.hands[p] for p in W)
            if len(crowd) > room and (best is None or len(crowd) - room > best[2]):
                best = (W, crowd, len(crowd) - room)
        if best is not None:
            return _crowd(c, best[0], best[1], focus, hyp, say)
    return None


def _hall_argument(c: Constraints, src: _Sources, focus: Sequence[int], hyp: str, say: _Phrases,
                   check: Check = _unlimited) -> Argument:
    found = _crowd_argument(c, focus, hyp, say, check=check)
    if found is not None:
        return found
    witness = _Witness(c, check)
    X, Y, Z = witness.from_min_cut()
    X, Y, Z = witness.simplify(X, Y, Z)
    need, supply, cards = witness.evaluate(X, Y, Z)
    if need <= supply:
        raise ExplanationError("internal: no counting argument found for an infeasible state")
    seats = tuple((p, c.hands[p]) for p in sorted(X))
    at_least = tuple(Bound(p, s, c.lo[p][s], src.at_least(p, s, c.lo[p][s])) for p, s in sorted(Y))
    at_most = tuple(Bound(p, s, witness.cap(p, s), src.at_most(p, s, witness.cap(p, s))) for p, s in sorted(Z))
    if not Y and not Z:
        listed = set(cards)
        crowd = [card for card in c.cards_in_play if card not in listed]
        W = [p for p in range(c.players) if p not in X]
        if W and sum(c.hands[p] for p in W) + 1 < len(cards):
            return _crowd(c, W, crowd, focus, hyp, say)
    named = sorted(X | {p for p, _ in Y})
    them = "them" if len(named) > 1 else say.p(named[0])
    if not Y:
        subject = f"{say.seats(named)} would need {_n_cards(need)}"
    elif not X and len(Y) == 1:
        ((p, s),) = Y
        subject = f"{say.p(p)} would need at least {_n_cards(need)} of {say.s(s)}"
    else:
        parts = []
        for p in named:
            if p in X:
                parts.append(f"{say.p(p)} ({_n_cards(c.hands[p])} in hand)")
            else:
                least = _join([f"{_n_cards(c.lo[q][s])} of {say.s(s)}" for q, s in sorted(Y) if q == p])
                parts.append(f"{say.p(p)} (at least {least})")
        subject = f"{_join(parts)} would need {_n_cards(need)}"
    items = [say.c(card) for card in cards]
    caps = [(f"at most {_n_cards(b.count)}" if b.count else "none") + f" of {say.s(b.set)} for {say.p(b.seat)}"
            for b in at_most]
    listing = ", ".join(items)
    if caps:
        listing = _join(([listing] if listing else []) + caps)
    if supply == 0:
        text = f"{hyp}{subject}, but no card may still go to {them}" + (f" ({_join(caps)})" if caps else "") + "."
    else:
        text = f"{hyp}{subject} among the {supply} that may still go to {them}: {listing}."
    return Argument("hall", text, seats=seats, at_least=at_least, at_most=at_most, cards=tuple(cards),
                    need=need, supply=supply)


class _Witness:
    """Hall-type witnesses (X, Y, Z) of an infeasible constraint state.

    X: seats that need their whole hand; Y: (seat, set) slots of other seats that
    need their lower bound; Z: slots of seats in X counted by their upper bound
    instead of by the cards that may go to them. In every deal the cards
    given to X and to the Y slots number at least ``need`` = sum of X's hands
    + sum of Y's lower bounds, and each of them is either a listed card (one
    that may go to a Y slot, or to a seat of X for a set not in Z) or one of at
    most ``cap`` cards of a Z slot: at most ``supply``. need > supply: no deal.
    Every infeasible state with uncrossed bounds (lo <= hi, sum of a seat's lower
    bounds <= its hand, every card with a possible owner) has one: it is a
    minimum cut of the flow network below.
    """

    def __init__(self, c: Constraints, check: Check = _unlimited):
        self.c = c
        self.check = check
        self.S = c.set_size
        self.live = c.sets_in_play

    def cap(self, p: int, s: int) -> int:
        return max(0, min(self.S, self.c.hi[p][s]))

    def evaluate(self, X: set, Y: set, Z: set) -> tuple[int, int, list[int]]:
        c = self.c
        need = sum(c.hands[p] for p in X) + sum(c.lo[p][s] for p, s in Y)
        takers = {s: 0 for s in self.live}
        for p in X:
            for s in self.live:
                if (p, s) not in Z:
                    takers[s] |= 1 << p
        for p, s in Y:
            takers[s] |= 1 << p
        cards = [card for card in c.cards_in_play if c.domains[card] & takers[card // self.S]]
        return need, len(cards) + sum(self.cap(p, s) for p, s in Z), cards

    def from_min_cut(self) -> tuple[set, set, set]:
        """A minimum cut of the flow network, read as (X, Y, Z).

        Network: source -> card (1) -> slot (p, s) for p in the card's domain (1);
        slot -> seat p (hi - lo); slot -> sink (lo); seat p -> sink (hand - sum
        of lo). Every card placed = a deal. The cut taken is the one nearest to
        the sink (the nodes that can still reach the sink), the smallest witness.
        """
        c = self.c
        live = self.live
        cards = c.cards_in_play
        res: dict[Any, dict[Any, int]] = {}

        def edge(u, v, w: int) -> None:
            res.setdefault(u, {})
            res.setdefault(v, {})
            res[u][v] = res[u].get(v, 0) + w
            res[v].setdefault(u, 0)

        for card in cards:
            edge("source", ("card", card), 1)
            for p in bits(c.domains[card]):
                edge(("card", card), ("slot", p, card // self.S), 1)
        for p in range(c.players):
            low = 0
            for s in live:
                lo = max(0, c.lo[p][s])
                low += lo
                edge(("slot", p, s), ("seat", p), self.cap(p, s) - lo)
                edge(("slot", p, s), "sink", lo)
            edge(("seat", p), "sink", c.hands[p] - low)
        while True:  # augmenting paths (BFS)
            self.check()
            parent: dict[Any, Any] = {"source": None}
            queue = deque(["source"])
            while queue and "sink" not in parent:
                u = queue.popleft()
                for v, w in res[u].items():
                    if w > 0 and v not in parent:
                        parent[v] = u
                        queue.append(v)
            if "sink" not in parent:
                break
            v = "sink"
            while parent[v] is not None:
                u = parent[v]
                res[u][v] -= 1
                res[v][u] += 1
                v = u
        # nodes that can still reach the sink in the residual graph
        B = {"sink"}
        queue = deque(["sink"])
        while queue:
            v = queue.popleft()
            for u in res[v]:
                if u not in B and res[u][v] > 0:
                    B.add(u)
                    queue.append(u)
        X = {p for p in range(c.players) if ("seat", p) in B}
        Y = {(p, s) for p in range(c.players) if p not in X for s in live
             if ("slot", p, s) in B and c.lo[p][s] > 0}
        Z = {(p, s) for p in X for s in live if ("slot", p, s) not in B}
        return X, Y, Z

    def simplify(self, X: set, Y: set, Z: set) -> tuple[set, set, set]:
        """Drop seats, slots and caps while the witness stays violated (fewer things to read)."""
        def violated(x, y, z):
            need, supply, _ = self.evaluate(x, y, z)
            return need > supply

        changed = True
        while changed:
            self.check()
            changed = False
            for p in sorted(X, key=lambda p: self.c.hands[p]):
                x = X - {p}
                z = {(q, s) for q, s in Z if q != p}
                if violated(x, Y, z):
                    X, Z, changed = x, z, True
            for slot in sorted(Y):
                if violated(X, Y - {slot}, Z):
                    Y, changed = Y - {slot}, True
            for slot in sorted(Z):  # list the cards instead of a cap when that is no worse
                if violated(X, Y, Z - {slot}):
                    Z, changed = Z - {slot}, True
        return X, Y, Z
