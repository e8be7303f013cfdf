"""Quartets' numbering for the research bridges (every preset, classic included): action ids, observation and
information-state tensors and strings, as :mod:`quaternity_cp.encoding` describes them.

The game's ``codec`` part is :func:`codec_for`; the OpenSpiel game (:mod:`quaternity_cp.quartets.spiel`) and
the PettingZoo environment (:mod:`quaternity_cp.aec`) take their numbers from here, so they agree.

>>> from quaternity_cp.quartets.game import Game, Question
>>> codec = QuartetsCodec(Game(2, 2, 2), max_moves=10)
>>> codec.num_actions, codec.action_id(Question(0, 1, 3)), codec.action_text(0, 7)
(12, 7, '0>1:B1?')
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..encoding import Pieces, offsets
from .game import Declaration, Game, Move, Question
from .state import MAX_QUESTIONS


def codec_for(state: Any, max_moves: int | None = None) -> "QuartetsCodec":
    """The ``codec`` part: the codec of the game of ``state`` (its size), ``max_moves`` decisions at most
    (None: the classic game's own limit, :data:`~quaternity_cp.quartets.state.MAX_QUESTIONS`)."""
    return QuartetsCodec(state.game, MAX_QUESTIONS if max_moves is None else max_moves)


class QuartetsCodec:
    """Action ids, tensors and strings of quartets games of ``game``'s size (every preset).

    ``max_moves`` bounds the decisions of a game (the information state holds the whole record).
    """

    def __init__(self, game: Game, max_moves: int):
        self.game = game
        self.max_moves = max_moves
        P, N, C = game.players, game.sets, game.cards
        self.num_actions = C * P + N + 2
        self.entry = 2 + 2 * P + C + N + 2
        self.rows = max_moves + N
        self.observation_pieces: Pieces = [
            ("seat", (P,)), ("hand", (C,)), ("hands", (P, C + 1)), ("claimed", (N, P + 1)), ("turn", (P,)),
            ("may_hold", (C, P)), ("last", (self.entry,)),
        ]
        self.info_pieces: Pieces = [
            ("seat", (P,)), ("dealt", (C,)), ("dealing", (C,)), ("first", (P,)), ("turn", (P,)),
            ("tie_break", (P,)), ("moves", (self.rows, self.entry)),
        ]
        self._obs_at = offsets(self.observation_pieces)
        self._info_at = offsets(self.info_pieces)

    # -- actions ------------------------------------------------------------------------------
    def action_id(self, move: Move) -> int:
        """The id of a legal action (an unanswered question, a declaration, or an answer)."""
        g = self.game
        base = g.cards * g.players
        if isinstance(move, Declaration):
            return base + move.set
        if move.answer is not None:
            return base + g.sets + (0 if move.answer else 1)
        return move.card * g.players + move.target

    def legal(self, actions: Iterable[Any]) -> dict[int, Any]:
        """id -> action, for the legal actions of a state."""
        return {self.action_id(a): a for a in actions}

    def action_text(self, seat: int, action: int, pending: Question | None = None) -> str:
        """The record notation of action id ``action`` taken by ``seat`` (an answer names the open question
        ``pending`` when given)."""
        g = self.game
        P, N, base = g.players, g.sets, g.cards * g.players
        if not 0 <= action < self.num_actions:
            raise ValueError(f"no action {action} (actions are 0..{self.num_actions - 1})")
        if action < base:
            card, target = divmod(action, P)
            return g.move_str(Question(seat, target, card))
        if action < base + N:
            return g.move_str(Declaration(seat, action - base))
        yes = action == base + N
        if pending is not None:
            return g.move_str(pending.answered(yes))
        return "yes" if yes else "no"

    # -- pieces ---------------------------------------------------------------------------------
    def entry_ones(self, move: Move, at: int) -> list[int]:
        """The flags of one record entry starting at ``at``."""
        g = self.game
        P, C, N = g.players, g.cards, g.sets
        if isinstance(move, Declaration):
            return [at + 1, at + 2 + move.player, at + 2 + 2 * P + C + move.set]
        out = [at, at + 2 + move.asker, at + 2 + P + move.target, at + 2 + 2 * P + move.card]
        if move.answer is not None:
            out.append(at + 2 + 2 * P + C + N + (0 if move.answer else 1))
        return out

    def observation_ones(self, seat: int, *, hand: Iterable[int] = (), hands: Sequence[int] = (),
                         claimed: Sequence[int] = (), turn: int = -1, may_hold: Sequence[int] = (),
                         last: Move | None = None) -> list[int]:
        """The observation's 1s: ``hand`` the seat's cards, ``hands`` cards per seat, ``claimed`` per set the
        claimer or -1, ``turn`` the seat deciding or -1, ``may_hold`` per card the mask of seats that may
        hold it (cards out of play: 0), ``last`` the last record entry."""
        g = self.game
        P, C = g.players, g.cards
        at = self._obs_at
        out = [at["seat"] + seat]
        out += [at["hand"] + c for c in hand]
        out += [at["hands"] + p * (C + 1) + n for p, n in enumerate(hands)]
        out += [at["claimed"] + s * (P + 1) + (p if p >= 0 else P) for s, p in enumerate(claimed)]
        if turn >= 0:
            out.append(at["turn"] + turn)
        out += [at["may_hold"] + c * P + p for c, mask in enumerate(may_hold) for p in range(P) if mask >> p & 1]
        if last is not None:
            out += self.entry_ones(last, at["last"])
        return out

    def info_ones(self, seat: int, *, dealt: Iterable[int] = (), dealing: int = 0, first: int | None = None,
                  turn: int = -1, tie_break: int | None = None, moves: Sequence[Move] = ()) -> list[int]:
        """The information state's 1s: ``dealt`` the seat's cards at the deal (so far), ``dealing`` how many
        cards were dealt, ``moves`` the public record (at most :attr:`rows` entries)."""
        at = self._info_at
        if len(moves) > self.rows:
            raise ValueError(f"a record of {len(moves)} moves does not fit {self.rows} rows (max_moves too small)")
        out = [at["seat"] + seat]
        out += [at["dealt"] + c for c in dealt]
        out += [at["dealing"] + c for c in range(dealing)]
        if first is not None:
            out.append(at["first"] + first)
        if turn >= 0:
            out.append(at["turn"] + turn)
        if tie_break is not None:
            out.append(at["tie_break"] + tie_break)
        for i, move in enumerate(moves):
            out += self.entry_ones(move, at["moves"] + i * self.entry)
        return out

    def view_ones(self, obs: Any, turn: int | None = None) -> list[int]:
        """The observation's 1s from a :class:`~quaternity_cp.quartets.state.QuartetsObservation` (``turn``:
        the seat deciding, when not ``obs.turn``; -1 for none)."""
        view = obs.private_constraints()
        in_play = set(view.cards_in_play)
        return self.observation_ones(
            obs.seat, hand=obs.hand or (), hands=obs.hands, claimed=obs.claimed,
            turn=obs.turn if turn is None else turn,
            may_hold=[mask if card in in_play else 0 for card, mask in enumerate(view.domains)],
            last=obs.moves[-1] if obs.moves else None)

    def state_ones(self, state: Any, seat: int) -> list[int]:
        """The observation's 1s of ``seat`` in a project state (the bridges' common entry)."""
        return self.view_ones(state.observation(seat))

    def view_text(self, obs: Any, turn: int | None = None, private: bool = True) -> str:
        """The observation of a :class:`~quaternity_cp.quartets.state.QuartetsObservation` as one line
        (``private``: with the seat's hand)."""
        return self.observation_text(obs.seat, hand=obs.hand if private else None, hands=obs.hands, claimed=obs.claimed,
                                     turn=obs.turn if turn is None else turn,
                                     last=obs.moves[-1] if obs.moves else None)

    # -- strings --------------------------------------------------------------------------------
    def cards_text(self, cards: Iterable[int]) -> str:
        return " ".join(self.game.card_name(c) for c in sorted(cards)) or "-"

    def moves_text(self, moves: Iterable[Move]) -> str:
        return " ".join(self.game.move_str(m) for m in moves) or "-"

    def observation_text(self, seat: int, *, hand: Iterable[int] | None = None, hands: Sequence[int] = (),
                         claimed: Sequence[int] = (), turn: int = -1, last: Move | None = None) -> str:
        """The observation as one line (the same facts as the tensor but ``may_hold``, which follows from
        the information state)."""
        g = self.game
        parts = [f"seat {seat}"]
        if hand is not None:
            parts.append(f"hand {self.cards_text(hand)}")
        if hands:
            parts.append("hands " + " ".join(map(str, hands)))
        owned = [f"{g.set_name(s)}:{p}" for s, p in enumerate(claimed) if p >= 0]
        if owned:
            parts.append("claimed " + " ".join(owned))
        parts.append(f"turn {turn}" if turn >= 0 else "turn -")
        if last is not None:
            parts.append(f"last {g.move_str(last)}")
        return "; ".join(parts)

    def info_text(self, seat: int, *, dealt: Iterable[int] | None = None, dealing: int | None = None,
                  first: int | None = None, turn: int = -1, tie_break: int | None = None,
                  moves: Sequence[Move] = ()) -> str:
        """The information state as one line: everything the seat has seen, in order."""
        parts = [f"seat {seat}"]
        if dealt is not None:
            parts.append(f"dealt {self.cards_text(dealt)}")
        if dealing is not None and dealing < self.game.cards:
            parts.append(f"dealing {dealing}/{self.game.cards}")
        if first is not None:
            parts.append(f"first {first}")
        parts.append(f"moves {self.moves_text(moves)}")
        if tie_break is not None:
            parts.append(f"tie-break {tie_break}")
        parts.append(f"turn {turn}" if turn >= 0 else "turn -")
        return "; ".join(parts)


__all__ = ["QuartetsCodec", "codec_for"]
