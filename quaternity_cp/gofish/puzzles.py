"""Quantum Go Fish puzzles: which question wins at once, whatever the answer? (the registry's "puzzles").

A puzzle is a game so far (a record ``quaternity check`` accepts, its last move
answered, the game not over) and a question: "Zoe to ask: which question wins
at once, whatever the answer?". A question **wins at once** when every legal
answer to it ends the game with the asker the winner (a question that ends the
game by itself, under ``win_after_ask``, wins at once when its winner is the
asker). A question that wins on some legal answer but not on every one is
**tempting** (a trap).

Two questions are **interchangeable** when they ask the same player and their
suits are interchangeable at the puzzle's moment: the suits' columns of exact
bounds (every cell's minimum and maximum over the consistent tables) are equal,
so swapping the two suits maps the set of consistent tables onto itself and the
game from there on is the same game with the suits renamed (seats are never
interchanged: the turn order tells them apart). A puzzle is **unique** when its
winning questions are one class; ``generate`` keeps only those.

The part is three functions, called by ``quaternity puzzle generate --game
gofish`` and ``quaternity puzzle verify`` (docs/puzzles.md, "Quantum Go Fish
puzzles"):

- :func:`generate` ``(count, seed, options, limits) -> list[GoFishPuzzle]``;
- :func:`verify` ``(record, answer, *, show=False) -> Verdict`` (raises
  :class:`~quaternity_cp.gofish.rules.GoFishError`, one line, on bad input);
- :func:`puzzle_names` ``(options, seed, count)``: the names ``generate`` gives;
- :func:`sheet_html` ``(puzzles, *, title) -> str``: the printable page of ``(name, record, answer)``
  triples (``quaternity puzzle sheet DIR`` of a folder of Go Fish puzzles).

>>> game = GoFish(3)
>>> for m in ["0>1:A+", "1>2:A+", "2>0:B-"]:
...     _ = game.push(m)
>>> s = solve(game)
>>> [question_text(game, q) for q in s.winning], s.unique
(['0>1:C', '0>2:C'], False)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..budget import Limits
from ..registry import derive_seed
from .game import GAME_NAME, GoFish, Move, MoveError
from .rules import GoFishError
from .state import RULE_OPTIONS, table_rules

GOAL = "win-at-once"
DIFFICULTIES = ("easy", "medium", "hard", "expert")
#: The lowest score of medium, hard and expert (see :func:`grade`).
THRESHOLDS = (2.0, 3.5, 5.0)
#: Moves of random play per game, at most, before the game is passed over.
MAX_PLAY = 40


class PuzzleInputError(GoFishError):
    """A puzzle or an answer file that cannot be checked (one line: the place and the reason); ``source`` says
    which file: ``"puzzle"`` or ``"answer"``."""

    def __init__(self, message: str, source: str = "answer"):
        super().__init__(message)
        self.source = source


@dataclass
class Solution:
    """The exact answer at a moment: the player to ask, every legal question (``questions``), those that
    win at once (``winning``), the tempting ones (``tempting``), the classes of interchangeable questions of
    each kind, and for each question the outcome of each legal answer (``answers``)."""

    player: int
    questions: list[Move]
    winning: list[Move]
    tempting: list[Move]
    classes: list[list[Move]]  # every legal question, grouped
    winning_classes: list[list[Move]]
    tempting_classes: list[list[Move]]
    answers: dict[Move, dict[str, Any]] = field(default_factory=dict)

    @property
    def unique(self) -> bool:
        return len(self.winning_classes) == 1


def _classes(game: GoFish, moves: list[Move]) -> list[list[Move]]:
    """``moves`` (questions of one asker) grouped by interchangeable suits (equal columns of exact bounds)."""
    b = game.bounds()
    column = {s: tuple((b.low[p][s], b.high[p][s]) for p in range(game.players)) for s in range(game.suits)}
    groups: dict[tuple[object, ...], list[Move]] = {}
    for q in moves:
        groups.setdefault((q.asked, column[q.suit]), []).append(q)
    return list(groups.values())


def _outcomes(game: GoFish, q: Move) -> dict[str, Any]:
    """What each legal answer to ``q`` leads to: ``{"yes"|"no"|"asked": {"winner", "reason"} or None}``."""
    out: dict[str, Any] = {}
    game.push(q)
    try:
        if game.over:  # won by the question alone (win_after_ask)
            o = game.outcome
            assert o is not None
            return {"asked": {"winner": o.winner, "reason": o.reason}}
        for yes in game.legal_answers():
            game.push(Move(q.asker, q.asked, q.suit, yes))
            o = game.outcome
            out["yes" if yes else "no"] = None if o is None else {"winner": o.winner, "reason": o.reason}
            game.pop()
    finally:
        game.pop()
    return out


def solve(game: GoFish) -> Solution:
    """The exact answer of the moment of ``game`` (its player on turn, no question open, not over)."""
    if game.over:
        raise PuzzleInputError("the game is over: there is no question to find", "puzzle")
    if game.pending is not None:
        raise PuzzleInputError("a question is open: a puzzle ends with an answered move", "puzzle")
    player = game.turn
    assert player is not None
    questions = game.legal_questions()
    answers = {q: _outcomes(game, q) for q in questions}
    wins = {q: [o is not None and o["winner"] == player for o in answers[q].values()] for q in questions}
    winning = [q for q in questions if all(wins[q])]
    tempting = [q for q in questions if any(wins[q]) and not all(wins[q])]
    classes = _classes(game, questions)
    return Solution(player, questions, winning, tempting, classes,
                    [c for c in classes if c[0] in winning], [c for c in classes if c[0] in tempting], answers)


# -- grading ------------------------------------------------------------------------------------------------
def grade(solution: Solution) -> dict[str, Any]:
    """How hard the puzzle is: ``questions`` (legal questions), ``classes`` (of interchangeable questions),
    ``tempting`` (classes of questions that win on one answer only), ``answers`` (legal answers to the winning
    question: 2 means both must be seen to win). ``score`` = log2(classes) + 1.5 x log2(1 + tempting) +
    (answers - 1); :data:`THRESHOLDS` cut it into :data:`DIFFICULTIES`."""
    classes, tempting = len(solution.classes), len(solution.tempting_classes)
    answers = len(solution.answers[solution.winning[0]]) if solution.winning else 0
    score = round(math.log2(max(1, classes)) + 1.5 * math.log2(1 + tempting) + max(0, answers - 1), 2)
    difficulty = DIFFICULTIES[sum(score >= t for t in THRESHOLDS)]
    return {"score": score, "questions": len(solution.questions), "classes": classes, "tempting": tempting,
            "answers": answers, "difficulty": difficulty}


# -- records and answers -----------------------------------------------------------------------------------
def _words(game: GoFish, seat: int) -> str:
    return game.setup.players[seat] if game.setup.named_players else f"seat {seat}"


def question_text(game: GoFish, q: Move) -> str:
    """A question in the notation of a puzzle's answer: ``0>1:A`` (no answer mark)."""
    return game.move_text(q.question())[:-1]


def _strategy(game: GoFish, solution: Solution, q: Move) -> dict[str, Any]:
    node: dict[str, Any] = {"ask": question_text(game, q), "answers": {}}
    for answer, outcome in solution.answers[q].items():
        assert outcome is not None
        node["answers"][answer] = {"reached": "win", "winner": outcome["winner"], "reason": outcome["reason"]}
    return node


def answer_json(name: str, game: GoFish, solution: Solution, *, seed: int | None = None,
                generator: dict[str, Any] | None = None) -> dict[str, Any]:
    """``NAME.answer.json`` of a puzzle whose moment has a winning question (docs/puzzles.md)."""
    if not solution.winning:
        raise PuzzleInputError("only a puzzle with a winning question has an answer file")
    who = _words(game, solution.player)
    g = grade(solution)
    out: dict[str, Any] = {
        "game": GAME_NAME, "puzzle": name,
        "title": f"{who[:1].upper()}{who[1:]}: a question that wins at once",
        "description": f"{who[:1].upper()}{who[1:]} to ask: which question wins at once, whatever the answer?",
        "goal": GOAL, "player": solution.player,
        "first_moves": [question_text(game, q) for q in solution.winning],
        "first_move_classes": [[question_text(game, q) for q in c] for c in solution.winning_classes],
        "unique": solution.unique,
        "traps": [question_text(game, q) for q in solution.tempting],
        "difficulty": g["difficulty"], "grade": g,
        "strategy": _strategy(game, solution, solution.winning[0]),
    }
    if seed is not None:
        out["seed"] = seed
    if generator is not None:
        out["generator"] = generator
    return out


@dataclass
class GoFishPuzzle:
    """A generated puzzle: its ``name``, the ``record`` (NAME.json) and the ``answer`` (NAME.answer.json)."""

    name: str
    record: dict[str, Any]
    answer: dict[str, Any]


# -- generating ---------------------------------------------------------------------------------------------
SETUP_OPTIONS = ("players", "suits", "suit_size", "rules")


def _game(options: Mapping[str, Any]) -> GoFish:
    """A fresh game of the options (``players``, ``suits`` (0 or absent: as many as players), ``suit_size``,
    ``rules``: a preset name, and the rule options of GOFISH.md)."""
    for key in options:
        if key not in SETUP_OPTIONS and key not in RULE_OPTIONS:
            raise PuzzleInputError(f"option {key}: unknown (known: {', '.join(SETUP_OPTIONS + tuple(RULE_OPTIONS))})")
    rules = table_rules(options.get("rules", "stacky"), **{k: v for k, v in options.items() if k in RULE_OPTIONS})
    return GoFish(options.get("players", 3), options.get("suits") or None, options.get("suit_size", 4), rules)


def puzzle_names(options: Mapping[str, Any], seed: int, count: int) -> list[str]:
    """The names of the puzzles ``generate`` makes: ``gofish-<P>x<suits>x<size>-<rules>-<seed>-<n>``."""
    game = _game(options)
    base = f"{GAME_NAME}-{game.players}x{game.suits}x{game.suit_size}-{options.get('rules', 'stacky')}-{seed}"
    return [f"{base}-{n:03d}" for n in range(1, count + 1)]


def generate(count: int, seed: int, options: Mapping[str, Any] | None = None, limits: Limits | None = None, *,
             difficulty: str | None = None, max_games: int | None = None,
             found: Callable[[GoFishPuzzle], None] | None = None) -> list[GoFishPuzzle]:
    """Up to ``count`` unique puzzles from seeded random games (the game numbered ``i`` is played with the
    generator of ``derive_seed(seed, i)``): at every moment of a game where a player is to ask, the moment is
    kept when the player has at least two classes of legal questions and exactly one class that wins at
    once (and, with ``difficulty``, the grade is that one); one puzzle per game. At most ``max_games``
    games (default 200 per puzzle asked for); ``limits.max_seconds`` (if given) bounds the whole run. Fewer
    than ``count`` puzzles when the games run out: the caller says so. The same arguments give the same
    puzzles. ``found`` is called with each puzzle as it is made (so that a run stopped by its time limit,
    :class:`~quaternity_cp.budget.Stopped`, keeps them)."""
    options = dict(options or {})
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise PuzzleInputError(f"difficulty {difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
    names = puzzle_names(options, seed, count)
    budget = limits.start() if limits is not None else None
    games = max_games if max_games is not None else 200 * count
    out: list[GoFishPuzzle] = []
    for index in range(games):
        if len(out) == count:
            break
        if budget is not None:
            budget.check_time()
        rng = random.Random(derive_seed(seed, index))
        game = _game(options)
        for _ in range(MAX_PLAY):
            if game.over:
                break
            if game.state.moves:
                solution = solve(game)
                if solution.unique and len(solution.classes) >= 2:
                    g = grade(solution)
                    if difficulty is None or g["difficulty"] == difficulty:
                        name = names[len(out)]
                        generator = {**options, "difficulty": difficulty, "game": index,
                                     "moves": len(game.state.moves)}
                        made = GoFishPuzzle(name, game.record(),
                                            answer_json(name, game, solution, seed=seed, generator=generator))
                        out.append(made)
                        if found is not None:
                            found(made)
                        break
            moves = game.legal_moves()
            game.push(moves[rng.randrange(len(moves))])
    return out


# -- verifying ----------------------------------------------------------------------------------------------
@dataclass
class Verdict:
    """A stated answer checked: ``right`` (every stated question legal and winning at once, every winning
    class named), ``unique`` (one winning class), ``reason`` (why not right, in words) and the solution."""

    right: bool
    unique: bool
    reason: str | None
    player: int
    first_moves: list[str]
    classes: list[list[str]]
    traps: list[str]
    grade: dict[str, Any] | None
    stated: list[str]
    show: bool = False
    who: str = ""  # the player to ask, in words (its name, or "seat N")

    @property
    def ok(self) -> bool:
        return self.right and self.unique

    def summary(self) -> str:
        if not self.right:
            hint = f" (the winning questions: {', '.join(self.first_moves) or 'none'})" if self.show else \
                " (--show names the winning ones)"
            return f"wrong: {self.reason}{hint}"
        first = self.first_moves[0] if self.first_moves else "?"
        cls = next((c for c in self.classes if any(s in c for s in self.stated)), self.classes[0])
        named = next((s for s in self.stated if s in cls), first)
        others = [m for m in cls if m != named]
        more = f" (or an interchangeable one: {', '.join(others)})" if others else ""
        g = self.grade or {}
        if not self.unique:
            return (f"not unique: {len(self.classes)} classes of winning questions "
                    f"({'; '.join(', '.join(c) for c in self.classes)})")
        return (f"right and unique: {self.who or f'seat {self.player}'} wins at once with {named}{more}, whatever the answer; "
                f"difficulty {g.get('difficulty')} (score {g.get('score', 0):g})")

    def to_json(self) -> dict[str, Any]:
        shown = self.right or self.show
        return {"game": GAME_NAME, "goal": GOAL, "right": self.right, "unique": self.unique, "ok": self.ok,
                "reason": self.reason, "player": self.player, "stated": self.stated,
                "first_moves": self.first_moves if shown else None,
                "first_move_classes": self.classes if shown else None,
                "traps": self.traps if shown else None, "grade": self.grade, "summary": self.summary()}


def _question(game: GoFish, text: object, where: str) -> Move | str:
    """The stated question ``text`` (``0>1:A`` or ``0>1:A?``), or why it is not a question here (a string)."""
    if not isinstance(text, str):
        raise PuzzleInputError(f"{where}: expected a question like \"0>1:A\", got {text!r}")
    written = text if text.endswith("?") else text + "?"
    try:
        move = game.parse_move(written)
    except MoveError as err:
        raise PuzzleInputError(f"{where}: {text!r}: {err.detail}") from None
    fault = game.check(move)
    return move if fault is None else f"{text} is illegal: {fault.value}"


def verify(record: Mapping[str, Any], answer: Mapping[str, Any], *, show: bool = False) -> Verdict:
    """Check the stated ``answer`` (NAME.answer.json's data: ``player`` and ``first_moves`` are needed) of the
    puzzle ``record`` (a Go Fish record, every move legal, the last answered, the game not over)."""
    if not isinstance(answer, Mapping):
        raise PuzzleInputError(f"the answer file is an object, not {type(answer).__name__}")
    goal = answer.get("goal", GOAL)
    if goal != GOAL:
        raise PuzzleInputError(f"field 'goal': a Go Fish puzzle's goal is {GOAL!r}, not {goal!r}")
    try:
        game = GoFish.from_record(record)
    except GoFishError as err:
        raise PuzzleInputError(str(err), "puzzle") from None
    solution = solve(game)
    player = answer.get("player")
    if isinstance(player, bool) or not isinstance(player, int):
        raise PuzzleInputError(f"field 'player': expected a seat number, got {player!r}")
    stated = answer.get("first_moves")
    if not isinstance(stated, list) or not stated:
        raise PuzzleInputError("field 'first_moves': expected a non-empty list of questions like \"0>1:A\"")
    texts = [question_text(game, q) for q in solution.winning]
    classes = [[question_text(game, q) for q in c] for c in solution.winning_classes]
    traps = [question_text(game, q) for q in solution.tempting]
    g = grade(solution) if solution.winning else None
    reason: str | None = None
    if player != solution.player:
        reason = f"seat {solution.player} is to ask, not seat {player}"
    else:
        named: set[int] = set()
        for i, text in enumerate(stated):
            got = _question(game, text, f"field 'first_moves', item {i + 1}")
            if isinstance(got, str):
                reason = got
                break
            if got not in solution.winning:
                wins = [o is not None and o["winner"] == player for o in solution.answers[got].values()]
                reason = (f"{text} does not win at once: " +
                          ("it wins on one answer only" if any(wins) else "no answer to it wins"))
                break
            named.update(i for i, c in enumerate(solution.winning_classes) if got in c)
        if reason is None and len(named) < len(solution.winning_classes):
            left = len(solution.winning_classes) - len(named)
            reason = f"incomplete: {left} of the {len(solution.winning_classes)} classes of winning questions not named"
    return Verdict(reason is None, len(solution.winning_classes) == 1, reason, solution.player, texts, classes,
                   traps, g, [str(s) for s in stated], show, _words(game, solution.player))


# -- the printable sheet ------------------------------------------------------------------------------------
SHEET_STYLE = """
@page { size: A4; margin: 14mm 14mm 15mm; }
body { font-family: Georgia, 'Times New Roman', serif; max-width: 180mm; margin: 0 auto; padding: 0 4mm;
       color: #111; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-bottom: .3em; }
section.puzzle, section.answer { break-inside: avoid; page-break-inside: avoid; margin-bottom: 1.5em; }
section.answers { break-before: page; page-break-before: always; }
ol.moves { columns: 2; font-size: .92em; } code { font-family: 'DejaVu Sans Mono', monospace; }
p.question { font-weight: bold; } .grade { color: #444; font-size: .9em; }
svg { max-width: 100%; height: auto; }
"""
REASONS = {"determined": "every hand is determined", "four": "it provably holds all of a suit"}


def _move_words(game: GoFish, text: str) -> str:
    """``0>1:A+`` in words: "seat 0 asks seat 1 for an A: yes" ("a B", "an F", a named suit as it is)."""
    from .words import article

    m = game.parse_move(text)
    answer = {True: "yes", False: "no", None: "not answered yet"}[m.answer]
    asker = _words(game, m.asker)
    return (f"{asker[:1].upper()}{asker[1:]} asks {_words(game, m.asked)} for {article(game.setup.suits[m.suit])}: "
            f"{answer}")


def sheet_html(puzzles: list[tuple[str, Mapping[str, Any], Mapping[str, Any]]], *, title: str | None = None) -> str:
    """One printable page (A4, self-contained, no script) of the puzzles ``(name, record, answer)``: each
    puzzle with its moves in words, the table of what is known and its question; from a new page, each
    answer: the winning question (and the interchangeable ones), what each answer to it leads to, the
    tempting questions and the difficulty. Every stated answer is verified first: a wrong one raises
    :class:`PuzzleInputError` naming the puzzle."""
    from html import escape

    from .svg import bounds_svg

    title = title or "Quantum Go Fish puzzles"
    heads, tails = [], []
    for number, (name, record, answer) in enumerate(puzzles, 1):
        try:
            verdict = verify(record, answer)
        except PuzzleInputError as err:
            raise PuzzleInputError(f"{name}: {err}", err.source) from None
        if not verdict.right:
            raise PuzzleInputError(f"{name}: the stated answer is wrong: {verdict.reason}")
        game = GoFish.from_record(record)
        solution = solve(game)
        who = _words(game, solution.player)
        question = answer.get("description") or \
            f"{who[:1].upper()}{who[1:]} to ask: which question wins at once, whatever the answer?"
        moves = "".join(f"<li>{escape(_move_words(game, t))} <code>{escape(t)}</code></li>" for t in record["moves"])
        heads.append(f'<section class="puzzle"><h2>Puzzle {number}</h2>'
                     f'<p>{game.players} players, {game.suits} suits of {game.suit_size} cards'
                     f'{"; rules: " + escape(", ".join(f"{k} {v}" for k, v in game.rules.to_dict().items())) if game.rules.to_dict() else ""}.</p>'
                     f'<ol class="moves">{moves}</ol>{bounds_svg(game, status=False)}'
                     f'<p class="question">{escape(question)}</p></section>')
        lines = []
        for cls in solution.winning_classes:
            first, others = question_text(game, cls[0]), [question_text(game, q) for q in cls[1:]]
            more = f" (or, the same with the suits renamed: {', '.join(others)})" if others else ""
            lines.append(f"<p>Ask <code>{escape(first)}</code>{escape(more)}.</p><ul>")
            for said, outcome in solution.answers[cls[0]].items():
                said_words = "the question alone" if said == "asked" else f"if the answer is {said}"
                lines.append(f"<li>{escape(said_words.capitalize())}: {escape(_words(game, outcome['winner']))} wins "
                             f"({escape(REASONS.get(outcome['reason'], outcome['reason']))}).</li>")
            lines.append("</ul>")
        if not verdict.unique:
            lines.append(f"<p>Not unique: {len(solution.winning_classes)} different winning questions.</p>")
        for q in solution.tempting:
            wins = [said for said, o in solution.answers[q].items() if o is not None and o["winner"] == solution.player]
            lines.append(f"<p>Tempting but wrong: <code>{escape(question_text(game, q))}</code> wins only on "
                         f"{escape(' or '.join(wins))}.</p>")
        g = verdict.grade or {}
        lines.append(f'<p class="grade">Difficulty: {escape(str(g.get("difficulty")))} (score {g.get("score", 0):g}; '
                     f'{g.get("questions")} legal question{"" if g.get("questions") == 1 else "s"}, '
                     f'{g.get("classes")} different {"one" if g.get("classes") == 1 else "ones"}, '
                     f'{g.get("tempting")} tempting).</p>')
        tails.append(f'<section class="answer"><h2>Answer {number}</h2>{"".join(lines)}</section>')
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{SHEET_STYLE}</style>'
            f'</head><body><h1>{escape(title)}</h1>{"".join(heads)}'
            f'<section class="answers"><h1>Answers</h1>{"".join(tails)}</section></body></html>\n')


__all__ = ["GOAL", "DIFFICULTIES", "THRESHOLDS", "Solution", "GoFishPuzzle", "Verdict", "PuzzleInputError",
           "solve", "grade", "answer_json", "generate", "verify", "puzzle_names", "question_text", "sheet_html"]
