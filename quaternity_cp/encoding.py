"""The numbers the research bridges share: action ids, observation and information-state tensors and strings.

:mod:`quaternity_cp.spiel` (OpenSpiel) and :mod:`quaternity_cp.aec` (PettingZoo) show the registered
games to frameworks that want each action as a whole number and each observation as a flat vector of
0s and 1s. Both take them from here, so they agree. Nothing here imports a framework or numpy: a
tensor is given as the positions that hold a 1 (every piece is a one-hot or a set of flags), and each
bridge fills its own array. A tensor is a list of named *pieces* (name, shape), laid end to end.

Quartets (:class:`QuartetsCodec`, every preset; P seats, N sets, C cards):

- actions, ``C*P + N + 2`` ids: ``c*P + y`` the seat deciding asks seat y for card c; ``C*P + s`` it
  declares set s; ``C*P + N`` and ``C*P + N + 1`` the asked seat answers yes, no (Quaternity presets);
- a *record entry* (a move of the public record) is ``2 + 2P + C + N + 2`` flags: question or
  declaration, the asker (or declarer), the asked seat, the card, the set declared or put down, yes, no;
- the observation (what the seat sees now): ``seat``, ``hand`` (its cards, classic), ``hands`` (each
  seat's number of cards), ``claimed`` (per set its claimer, or none), ``turn``, ``may_hold`` (card x
  seat: the seats that may hold each card in the seat's view, its constraint state) and ``last`` (the
  last record entry);
- the information state (perfect recall): ``seat``, ``dealt`` (its cards at the deal, classic),
  ``dealing`` (the cards dealt so far), ``first``, ``turn``, ``tie_break`` and ``moves``, the whole
  public record, one entry per row, ``max_moves + N`` rows (one per decision at most, and the sets
  put down).

Quarto (:class:`QuartoCodec`): action ``(cell + 1) * 17 + (piece + 1)`` (cell and piece 0..15, 0
standing for none: the opening gives a piece only, a winning placement gives none), 289 ids; the
observation is the board (16 cells x 17: a piece or empty), the piece in hand and the player to move;
the information state the moves so far (17 rows of cell and piece).

>>> from quaternity_cp.game import Game, Question
>>> codec = QuartetsCodec(Game(2, 2, 2), max_moves=10)
>>> codec.num_actions, codec.action_id(Question(0, 1, 3)), codec.action_text(0, 7)
(12, 7, '0>1:B1?')
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from .game import Declaration, Game, Move, Question

Pieces = list[tuple[str, tuple[int, ...]]]


def size(pieces: Pieces) -> int:
    """The length of the flat tensor of ``pieces``."""
    total = 0
    for _, shape in pieces:
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


def offsets(pieces: Pieces) -> dict[str, int]:
    """Where each piece starts in the flat tensor."""
    out, at = {}, 0
    for name, shape in pieces:
        out[name] = at
        at += size([(name, shape)])
    return out


# -- quartets ------------------------------------------------------------------------------
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
        """The observation's 1s from a :class:`~quaternity_cp.quartets.game.QuartetsObservation` (``turn``:
        the seat deciding, when not ``obs.turn``; -1 for none)."""
        view = obs.private_constraints()
        in_play = set(view.cards_in_play)
        return self.observation_ones(
            obs.seat, hand=obs.hand or (), hands=obs.hands, claimed=obs.claimed,
            turn=obs.turn if turn is None else turn,
            may_hold=[mask if card in in_play else 0 for card, mask in enumerate(view.domains)],
            last=obs.moves[-1] if obs.moves else None)

    def view_text(self, obs: Any, turn: int | None = None, private: bool = True) -> str:
        """The observation of a :class:`~quaternity_cp.quartets.game.QuartetsObservation` as one line
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


# -- quarto ---------------------------------------------------------------------------------
class QuartoCodec:
    """Action ids, tensors and strings of Quarto (see the module's docstring)."""

    num_actions = 17 * 17
    rows = 17  # the opening and 16 placements
    observation_pieces: Pieces = [("seat", (2,)), ("board", (16, 17)), ("in_hand", (17,)), ("to_move", (2,))]
    info_pieces: Pieces = [("seat", (2,)), ("moves", (17, 34))]

    def action_id(self, move: Any) -> int:
        """The id of a :class:`~quaternity_cp.quarto.Move`."""
        cell = 0 if move.cell is None else int(move.cell) + 1
        piece = 0 if move.piece is None else int(move.piece) + 1
        return cell * 17 + piece

    def legal(self, actions: Iterable[Any]) -> dict[int, Any]:
        return {self.action_id(a): a for a in actions}

    def move(self, action: int) -> Any:
        """The Move of an id (ValueError when it is none)."""
        from .quarto.core import Cell, Piece
        from .quarto.position import Move

        cell, piece = divmod(action, 17)
        if not 0 <= action < self.num_actions or (cell == 0 and piece == 0):
            raise ValueError(f"no Quarto action {action}")
        return Move(None if cell == 0 else Cell(cell - 1), None if piece == 0 else Piece(piece - 1))

    def observation_ones(self, seat: int, position: Any) -> list[int]:
        out = [seat]
        for cell in range(16):
            piece = position.board[cell]
            out.append(2 + cell * 17 + (16 if piece is None else int(piece)))
        hand = position.piece
        out.append(2 + 16 * 17 + (16 if hand is None else int(hand)))
        if position.to_move is not None:
            out.append(2 + 16 * 17 + 17 + position.to_move)
        return out

    def info_ones(self, seat: int, moves: Sequence[Any]) -> list[int]:
        out = [seat]
        for i, move in enumerate(moves):
            row = 2 + i * 34
            out.append(row + (16 if move.cell is None else int(move.cell)))
            out.append(row + 17 + (16 if move.piece is None else int(move.piece)))
        return out

    def observation_text(self, seat: int, position: Any) -> str:
        board = " / ".join(position.board.row_text(r) for r in range(4))
        hand = "-" if position.piece is None else str(position.piece)
        turn = "-" if position.to_move is None else str(position.to_move)
        return f"player {seat}; board {board}; in hand {hand}; to move {turn}"

    def info_text(self, seat: int, moves: Sequence[Any]) -> str:
        return f"player {seat}; moves " + (" ".join(str(m) for m in moves) or "-")


__all__ = ["Pieces", "size", "offsets", "QuartetsCodec", "QuartoCodec"]
