"""Quantum Go Fish's numbering for the research bridges (the game's ``codec`` part, see
:mod:`quaternity_cp.encoding`).

Actions: the seat deciding is always the one that acts, so a question only needs the seat asked and the
suit: id ``asked * suits + suit`` (``0 .. players * suits - 1``; the asker is the seat on turn), then the
two answers, ``players * suits`` (yes) and ``players * suits + 1`` (no). Ids that name the asker itself or
an illegal question are simply never legal.

Observation: everything said is public, so every seat sees the same tensor (no seat in it): each cell's
exact minimum and maximum over the consistent tables (player x suit, one-hot over ``0 .. suit_size``),
each hand size (one-hot over ``0 .. suits * suit_size``), the seat to decide (the asked seat while a
question is open; none at the end), the open question (asker, asked seat, suit) and a flag for a
determined table. Information state (perfect recall): the decisions so far, one row each (one-hot of
the action id, with a column for the asker of a question), at most two per question answered under the
table's move cap.

>>> from quaternity_cp.gofish.state import new_state
>>> state = new_state(players=3)
>>> codec = codec_for(state)
>>> codec.num_actions, codec.action_id(state.legal_actions()[0]), codec.action_text(0, 3)
(11, 3, '0>1:A?')
"""

from __future__ import annotations

from typing import Any, Iterable

from ..encoding import Pieces
from .game import Move


class GoFishCodec:
    """Action ids, tensors and strings of one table's Quantum Go Fish (players, suits and names fixed)."""

    def __init__(self, players: tuple[str, ...], suits: tuple[str, ...], suit_size: int, rows: int,
                 max_moves: int | None = None):
        self.players = players
        self.suits = suits
        self.suit_size = suit_size
        P, K = len(players), len(suits)
        self.questions = P * K
        self.yes = P * K
        self.no = P * K + 1
        self.num_actions = P * K + 2
        self.rows = rows
        self.max_moves = rows if max_moves is None else max_moves
        cells = suit_size + 1
        self.observation_pieces: Pieces = [
            ("low", (P, K, cells)), ("high", (P, K, cells)), ("hands", (P, K * suit_size + 1)),
            ("to_move", (P,)), ("asker", (P,)), ("asked", (P,)), ("suit", (K,)), ("determined", (1,)),
        ]
        self.info_pieces: Pieces = [("moves", (rows, self.num_actions + P))]

    # -- actions -----------------------------------------------------------------------------------------------
    def action_id(self, move: Move) -> int:
        """The id of a question (answer None) or an answer."""
        if move.answer is None:
            return move.asked * len(self.suits) + move.suit
        return self.yes if move.answer else self.no

    def legal(self, actions: Iterable[Any]) -> dict[int, Any]:
        return {self.action_id(a): a for a in actions}

    def move(self, seat: int, action: int, pending: Move | None = None) -> Move:
        """The move of an id decided by ``seat`` (an answer needs the open question ``pending``)."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"no Go Fish action {action}")
        if action < self.questions:
            asked, suit = divmod(action, len(self.suits))
            return Move(seat, asked, suit)
        if pending is None:
            raise ValueError(f"action {action} answers a question, and none is open")
        return Move(pending.asker, pending.asked, pending.suit, action == self.yes)

    def action_text(self, seat: int, action: int) -> str:
        """A question in the record's notation (``ASKER>ASKED:SUIT?``, the asker being ``seat``); an answer
        as ``+`` (yes) or ``-`` (no)."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"no Go Fish action {action}")
        if action >= self.questions:
            return "+" if action == self.yes else "-"
        asked, suit = divmod(action, len(self.suits))
        return f"{self.players[seat]}>{self.players[asked]}:{self.suits[suit]}?"

    # -- tensors and strings -----------------------------------------------------------------------------------
    def state_ones(self, state: Any, seat: int, perfect_recall: bool = False) -> list[int]:
        """The 1s of the (public) observation, or of the information state, of a project state."""
        return self._info_ones(state) if perfect_recall else self._observation_ones(state)

    def _observation_ones(self, state: Any) -> list[int]:
        g = state.game
        P, K, C = len(self.players), len(self.suits), self.suit_size + 1
        H = K * self.suit_size + 1
        out: list[int] = []
        b = g.bounds()
        at = 0
        if b.feasible:
            for p in range(P):
                for s in range(K):
                    out.append(at + (p * K + s) * C + b.low[p][s])
                    out.append(at + P * K * C + (p * K + s) * C + b.high[p][s])
        at += 2 * P * K * C
        out.extend(at + p * H + min(max(h, 0), H - 1) for p, h in enumerate(g.hands()))
        at += P * H
        player = state.current_player()
        if 0 <= player < P:
            out.append(at + player)
        at += P
        q = g.pending
        if q is not None:
            out += [at + q.asker, at + P + q.asked, at + 2 * P + q.suit]
        at += 2 * P + K
        if b.determined:
            out.append(at)
        return out

    def _decisions(self, state: Any) -> list[tuple[int, int]]:
        """(action id, asker) of every decision so far."""
        out = []
        g = state.game
        for text in g.state.moves:
            move = g.parse_move(text)
            if move.answer is None:
                out.append((self.action_id(move), move.asker))
            else:  # a question and its answer written as one move (a record's "+"/"-" move)
                out.append((self.action_id(move.question()), move.asker))
                out.append((self.action_id(move), move.asker))
        return out

    def _info_ones(self, state: Any) -> list[int]:
        width = self.num_actions + len(self.players)
        out = []
        for i, (action, asker) in enumerate(self._decisions(state)[:self.rows]):
            out += [i * width + action, i * width + self.num_actions + asker]
        return out

    def state_text(self, state: Any, seat: int, perfect_recall: bool = False) -> str:
        """The public game as one line (the same for every seat)."""
        g = state.game
        if perfect_recall:
            return "moves " + (" ".join(g.state.moves) or "-")
        b = g.bounds()
        cells = "/".join(",".join(f"{lo}-{hi}" for lo, hi in zip(b.low[p], b.high[p]))
                         for p in range(len(self.players))) if b.feasible else "none"
        player = state.current_player()
        decides = self.players[player] if 0 <= player < len(self.players) else "-"
        q = g.pending
        question = "-" if q is None else g.move_text(q)
        hands = ",".join(str(h) for h in g.hands())
        return f"cells {cells}; hands {hands}; to decide {decides}; question {question}"


def codec_for(state: Any, max_moves: int | None = None) -> GoFishCodec:
    """The ``codec`` part: the codec of ``state``'s table (its players, suits, names and move cap: a game
    lasts at most two decisions per question answered under the cap; ``max_moves`` only bounds when a
    bridge stops it)."""
    g = state.game
    return GoFishCodec(tuple(g.setup.players), tuple(g.setup.suits), g.suit_size, 2 * state.max_moves, max_moves)


__all__ = ["GoFishCodec", "codec_for"]
