"""Exceptions raised by the library.

Every error the library raises derives from :class:`QuaternityError`, so a front
end can catch one class and show ``str(error)`` as a one-line message.
"""

from __future__ import annotations

from enum import Enum


class QuaternityError(Exception):
    """Base class of every error raised by quaternity_cp."""


class SetupError(QuaternityError, ValueError):
    """An impossible or absurd game setup (sizes, names)."""


class RulesError(QuaternityError, ValueError):
    """An unknown preset or rule option, or a bad option value."""


class InvalidMoveError(QuaternityError, ValueError):
    """Move text or a move value that cannot be read (bad notation, unknown player, card or set)."""


class FormatError(QuaternityError, ValueError):
    """A file that cannot be read as a record or position; the message names the place."""


class PositionError(QuaternityError, ValueError):
    """A position description that is malformed or contradicts the setup."""


class Illegal(Enum):
    """Why a move is illegal: one member per rule of docs/rules.md a move can break."""

    GAME_OVER = "the game is over"
    NOT_ON_TURN = "not on turn"
    QUESTION_OPEN = "a question is open and must be answered first"
    NO_QUESTION_OPEN = "no question is open"
    WRONG_ANSWERER = "answer does not match the open question"
    SELF_QUESTION = "a player cannot ask itself"
    ASKER_EMPTY = "the asker holds no cards"
    TARGET_EMPTY = "the asked player holds no cards"
    SET_CLAIMED = "the set is already claimed"
    NO_CONSISTENT_DEAL = "no consistent deal remains after the question"
    ONLY_NO = "the only valid answer would be no, and these rules forbid such a question"
    IMPOSSIBLE_YES = "the asked player cannot hold the card in any consistent deal"
    IMPOSSIBLE_NO = "the asked player must hold the card in every consistent deal"
    NO_DECLARATIONS = "declarations are not part of these rules"
    IMPOSSIBLE_DECLARATION = "no consistent deal gives the player the whole set"
    # classic quartets (rule option dealt): put-downs, and honesty against a recorded deal
    PUT_DOWN_NOT_DUE = "a set is put down only at the deal, or by the asker right after the yes that completes it"
    IMPOSSIBLE_PUT_DOWN = "no consistent deal gives the player the whole set to put down"
    PUT_DOWN_MISSING = "a complete set was not put down"
    DISHONEST_ANSWER = "the answer contradicts the deal"
    DISHONEST_QUESTION = "the asker's hand does not allow this question"
    DISHONEST_PUT_DOWN = "the put-downs contradict the deal"
    WRONG_TIE_BREAK = "the recorded tie-break does not fit the result"


#: The kind of each reason, as the command line reports it.
KIND = {
    Illegal.GAME_OVER: "turn",
    Illegal.NOT_ON_TURN: "turn",
    Illegal.QUESTION_OPEN: "turn",
    Illegal.NO_QUESTION_OPEN: "answer",
    Illegal.WRONG_ANSWERER: "answer",
    Illegal.SELF_QUESTION: "question",
    Illegal.ASKER_EMPTY: "question",
    Illegal.TARGET_EMPTY: "question",
    Illegal.SET_CLAIMED: "question",
    Illegal.NO_CONSISTENT_DEAL: "question",
    Illegal.ONLY_NO: "question",
    Illegal.IMPOSSIBLE_YES: "answer",
    Illegal.IMPOSSIBLE_NO: "answer",
    Illegal.NO_DECLARATIONS: "declaration",
    Illegal.IMPOSSIBLE_DECLARATION: "declaration",
    Illegal.PUT_DOWN_NOT_DUE: "claim",
    Illegal.IMPOSSIBLE_PUT_DOWN: "claim",
    Illegal.PUT_DOWN_MISSING: "claim",
    Illegal.DISHONEST_ANSWER: "answer",
    Illegal.DISHONEST_QUESTION: "question",
    Illegal.DISHONEST_PUT_DOWN: "claim",
    Illegal.WRONG_TIE_BREAK: "tie",
}


def _kind(reason: Illegal, move: object) -> str:
    kind = KIND[reason]
    if kind not in ("turn", "claim", "tie") and type(move).__name__ == "Declaration":
        return "declaration"
    return kind


class IllegalMoveError(QuaternityError):
    """A well-formed move that the rules do not allow in this position.

    ``reason`` is an :class:`Illegal` member, ``kind`` one of ``"turn"``,
    ``"question"``, ``"answer"``, ``"declaration"``, ``"claim"`` (a put-down of
    classic quartets) or ``"tie"``, ``move`` the offending move. ``player`` and
    ``card`` name the player and card at fault when known (honesty checks).
    """

    def __init__(self, reason: Illegal, move: object, detail: str = "", kind: str | None = None,
                 player: int | None = None, card: int | None = None) -> None:
        self.reason = reason
        self.move = move
        self.detail = detail
        self.kind = kind or _kind(reason, move)
        self.player = player
        self.card = card
        text = reason.value + (f" ({detail})" if detail else "")
        super().__init__(text)

    @property
    def message(self) -> str:
        return str(self)
