"""The puzzle sheet: one printable HTML page of a folder of puzzles, the answers after them.

:func:`read_puzzles` reads every puzzle of a folder (``NAME.json`` with its
``NAME.answer.json``, docs/puzzles.md, read by :func:`.answers.read_answer`);
:func:`sheet_html` makes the page. Each puzzle shows its setup, the game so far
in words (the web table's narration, :func:`quaternity_cp.quartets.web.narration`;
a puzzle given as a position says what the position states), the knowledge
grid at the puzzle's moment (:func:`quaternity_cp.quartets.svg.grid_svg`) and
its question. The answers follow from a new page: the verdict in the solver's
words (:meth:`quaternity_cp.quartets.solver.SolveResult.summary`), the first moves that
work, the traps, the difficulty, and the strategy tree with every move in
words, numbered on from the game's moves, and why each forced answer is forced
(the answer file's ``why``, else the explainer's, :class:`.grade.Explanations`).

The bundled hand-made puzzles (``examples/puzzles``) state verdicts without a
strategy (``answers``: goal, player, result, ...). The sheet solves each one,
within the page's ``max_seconds``: a verdict the solver does not confirm is
refused, and a forced goal of the seat on turn is shown as a generated puzzle
is (:func:`.puzzle.solve_puzzle`: first moves, traps, difficulty, strategy).

The page is A4 (``@page``), self-contained (CSS and SVG inline, no script, no
reference to the network) and readable on a screen too; a puzzle is kept on one
page, and the pictures scale to the page's width and height.

>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> moves = ["0>1:C0+", "0>2:C2-", "2>0:A0+", "2>1:B1-", "1>2:B0+", "1>0:B1+", "1>0:C1+"]
>>> _ = (folder / "p.json").write_text(json.dumps({"players": 3, "sets": 3, "set_size": 3, "moves": moves}))
>>> answer = {"goal": "quartet", "player": 1, "questions": 1, "first_moves": ["1>0:C0"],
...           "strategy": {"ask": "1>0:C0", "forced": True, "why": "C0 must be with seat 0.",
...                        "answers": {"yes": {"reached": "quartet", "set": "C"}}}}
>>> _ = (folder / "p.answer.json").write_text(json.dumps(answer))
>>> html = sheet_html(read_puzzles(str(folder)))
>>> html.count('class="puzzle"'), html.count('class="answer"'), "Seat 0 asked seat 1 for C0" in html
(1, 1, True)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from html import escape
from typing import Any, Iterable

from ...budget import SOLVED, Budget, Limits
from ...errors import FormatError, QuaternityError
from ..explain import ExplanationLimitError
from ..formats import Record, decode_input, load_json, position_to_json, record_from_json
from ..game import Declaration, Game, Move, Question
from ...jsonio import InputRefused, read_input_bytes
from ..svg import grid_svg
from ..web import legend, narration
from ..replay import MoveReport, Replay, replay
from ..rules import Rules
from ..solver import SolveResult, solve
from .answers import ANSWER_SUFFIX, Stated, read_answer
from .grade import DIFFICULTIES, Explanations
from .puzzle import Puzzle, PuzzleStopped, answer_json, describe, solve_puzzle
from .search import QUARTET, PuzzleAnswer, PuzzleError, move_text, parse_first_move

PUZZLE_SUFFIX = ".json"
NOBODY = -1  # the narration's viewer: the sheet tells every move from no seat's side
MAX_TREE_MOVES = 400  # moves of one strategy tree shown on the sheet; a larger tree ends in "..."
SOLVE_POSITIONS = 500_000  # a hand-made puzzle is solved storing at most this many positions


class SheetError(FormatError):
    """A puzzle folder or file the sheet cannot use; the message names the file."""


# -- reading the puzzles ----------------------------------------------------------------------------
@dataclass
class SheetPuzzle:
    """One puzzle of a sheet: its name (``NAME``), its two files, its record, the verdicts its answer file
    states (one for a generated puzzle) and the answer file as read."""

    name: str
    path: str
    answer_path: str
    record: Record
    stated: list[Stated]
    answer: dict[str, Any]
    title: str = ""
    description: str = ""

    @property
    def hand_made(self) -> bool:
        """An answer file of the bundled puzzles' kind (``answers``: verdicts without a strategy)."""
        return "answers" in self.answer


def read_puzzles(folder: str) -> list[SheetPuzzle]:
    """Every puzzle of ``folder``, in the order of the file names; :class:`SheetError` (naming the file) for a
    missing folder, a folder without puzzles, a puzzle without its answer file (or the other way round), or a
    file that cannot be read."""
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        raise SheetError(f"{folder}: no such folder") from None
    except NotADirectoryError:
        raise SheetError(f"{folder}: not a folder (give the folder of the puzzles)") from None
    except OSError as err:
        raise SheetError(f"{folder}: cannot read ({err.strerror or err})") from None
    answers = {n[: -len(ANSWER_SUFFIX)] for n in names if n.endswith(ANSWER_SUFFIX)}
    puzzles = {n[: -len(PUZZLE_SUFFIX)] for n in names if n.endswith(PUZZLE_SUFFIX) and not n.endswith(ANSWER_SUFFIX)}
    for name in sorted(answers - puzzles):
        raise SheetError(f"{os.path.join(folder, name + ANSWER_SUFFIX)}: no puzzle {name}{PUZZLE_SUFFIX} beside it")
    for name in sorted(puzzles - answers):
        raise SheetError(f"{os.path.join(folder, name + PUZZLE_SUFFIX)}: no answer file {name}{ANSWER_SUFFIX} "
                         "beside it")
    if not puzzles:
        raise SheetError(f"{folder}: no puzzles (no NAME{PUZZLE_SUFFIX} with its NAME{ANSWER_SUFFIX})")
    return [read_puzzle(os.path.join(folder, name + PUZZLE_SUFFIX)) for name in sorted(puzzles)]


def read_puzzle(path: str) -> SheetPuzzle:
    """The puzzle ``path`` (``NAME.json``) with its answer file beside it (``NAME.answer.json``)."""
    answer_path = path[: -len(PUZZLE_SUFFIX)] + ANSWER_SUFFIX
    name = os.path.basename(path)[: -len(PUZZLE_SUFFIX)]
    try:
        data = load_json(_read(path))
    except SheetError:
        raise  # names the file already
    except QuaternityError as err:
        raise SheetError(f"{path}: {err}") from None
    return sheet_puzzle(name, data, _read(answer_path), path=path, answer_path=answer_path)


def sheet_puzzle(name: str, record_data: Any, answer: str | dict[str, Any], *, path: str = "",
                 answer_path: str = "") -> SheetPuzzle:
    """The puzzle ``name`` of a sheet from its record (JSON data) and its answer (the answer file's text, or
    its JSON data); ``path`` and ``answer_path`` name them in messages (:class:`SheetError`)."""
    path = path or f"{name}{PUZZLE_SUFFIX}"
    answer_path = answer_path or f"{name}{ANSWER_SUFFIX}"
    try:
        record = record_from_json(record_data)
    except QuaternityError as err:
        raise SheetError(f"{path}: {err}") from None
    if record.deal is not None:
        raise SheetError(f"{path}: a puzzle has no deal (nothing is hidden in Quaternity puzzles)")
    text = answer if isinstance(answer, str) else json.dumps(answer)
    try:
        stated, answer_data = read_answer(record.game, text, answer_path)
    except SheetError:
        raise
    except QuaternityError as err:
        raise SheetError(str(err)) from None
    _check_extra(record.game, answer_data, answer_path)
    p = SheetPuzzle(name, path, answer_path, record, stated, answer_data)
    p.title = _text(answer_data, "title", answer_path) or name
    p.description = _text(answer_data, "description", answer_path)
    return p


def _read(path: str) -> str:
    """A file's text, within the input limits (:data:`~quaternity_cp.jsonio.MAX_INPUT_BYTES`, strict UTF-8)."""
    try:
        data = read_input_bytes(path)  # special files and oversized ones refused before reading
    except InputRefused as err:
        raise SheetError(f"{path}: {err}") from None
    except IsADirectoryError:
        raise SheetError(f"{path}: is a folder, not a puzzle file") from None
    except OSError as err:
        raise SheetError(f"{path}: cannot read ({err.strerror or err})") from None
    try:
        return decode_input(data)
    except SheetError:
        raise  # names the file already
    except QuaternityError as err:
        raise SheetError(f"{path}: {err}") from None


def _text(answer: dict[str, Any], key: str, where: str) -> str:
    value = answer.get(key, "")
    if not isinstance(value, str):
        raise SheetError(f"{where}: {key} must be text")
    return value


def _check_extra(game: Game, answer: dict[str, Any], where: str) -> None:
    """The fields of a generated answer the sheet shows and :func:`.answers.read_answer` leaves unchecked."""
    if "answers" in answer:
        return
    for key in ("first_moves", "traps"):
        items = answer.get(key, [])
        if not isinstance(items, list):
            raise SheetError(f"{where}: {key} must be a list of moves like \"0>1:A2\"")
        for i, text in enumerate(items):
            _first_move(game, text, f"{where}: {key}[{i}]")
    classes = answer.get("first_move_classes", [])
    if not isinstance(classes, list) or not all(isinstance(c, list) for c in classes):
        raise SheetError(f"{where}: first_move_classes must be a list of lists of moves")
    for i, c in enumerate(classes):
        for j, text in enumerate(c):
            _first_move(game, text, f"{where}: first_move_classes[{i}][{j}]")
    if answer.get("difficulty") is not None and answer["difficulty"] not in DIFFICULTIES:
        raise SheetError(f"{where}: difficulty must be one of {', '.join(DIFFICULTIES)}")
    grade = answer.get("grade", {})
    if not isinstance(grade, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                              for v in grade.values()):
        raise SheetError(f"{where}: grade must be an object of numbers")
    if "strategy" in answer and not isinstance(answer["strategy"], dict):
        raise SheetError(f"{where}: strategy must be a node of the strategy tree")


def _first_move(game: Game, text: Any, where: str) -> Move:
    try:
        return parse_first_move(game, text)
    except QuaternityError as err:
        raise SheetError(f"{where}: {err}") from None


# -- words ------------------------------------------------------------------------------------------------
def who(game: Game, seat: int) -> str:
    """A seat as the sheet names it: its player's name, else ``seat 2``."""
    return game.seat_name(seat)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


class _Table:
    """What :func:`quaternity_cp.quartets.web.narration` asks of a table: how a seat is named, and the
    decisions in order (a question, then its answer only when the asked seat had a choice)."""

    def __init__(self, game: Game):
        self.game = game
        self.log: list[tuple[int, str]] = []

    def seat_name(self, seat: int, viewer: int | None = None, *, start: bool = True) -> str:
        name = who(self.game, seat)
        return _cap(name) if start else name


class Line:
    """A line of play from a puzzle's start: the position, the moves so far and what the narration needs.

    :meth:`push` checks and plays a move (an illegal one raises :class:`SheetError`), :meth:`pop` takes it
    back; :meth:`words` tells the moves, :meth:`asking` an open question."""

    def __init__(self, record: Record, result: Replay):
        self.record = record
        self.game = record.game
        self.position = result.position
        self.moves = list(record.moves)
        self.texts = [self.game.move_str(m) for m in record.moves]
        self.reports = list(result.reports)
        self.table = _Table(self.game)
        for move, text, report in zip(self.moves, self.texts, self.reports):
            self.table.log += self._decisions(move, text, report.forced)

    def _decisions(self, move: Move, text: str, forced: bool) -> list[tuple[int, str]]:
        if isinstance(move, Declaration):
            return [(move.player, text)]
        asked = [(move.asker, self.game.move_str(move.unanswered()))]
        return asked if move.answer is None or forced else asked + [(move.target, text)]

    def _record(self, extra: Move | None = None) -> Record:
        moves = self.moves + ([extra] if extra is not None else [])
        texts = self.texts + ([self.game.move_str(extra)] if extra is not None else [])
        r = self.record
        return Record(r.game, r.rules, moves, r.start, texts, first=r.first, tie_break=r.tie_break)

    def words(self, first: int = 0) -> list[dict[str, Any]]:
        """The moves from index ``first`` on, each told in words (:func:`~quaternity_cp.quartets.web.narration`:
        ``move``, ``text``)."""
        return narration(self.table, NOBODY, self._record(), Replay(self.position, self.reports))[first:]

    def asking(self, move: Move) -> str:
        """A next move in words: a question as asked ("Seat 0 asks seat 1 for A2."), a declaration as made."""
        if isinstance(move, Question):
            move = move.unanswered()
        table = _Table(self.game)
        table.log = self.table.log + self._decisions(move, self.game.move_str(move), False)
        text: str = narration(table, NOBODY, self._record(move), Replay(self.position, self.reports))[-1]["text"]
        return text

    def push(self, move: Move, where: str) -> None:
        """Play ``move``; :class:`SheetError` (``where``) when it is illegal here."""
        err = self.position.check(move)
        if err is not None:
            raise SheetError(f"{where}: {self.game.move_str(move)} is illegal here: {err}")
        forced = False
        if isinstance(move, Question) and move.answer is not None:
            probe = self.position.copy()
            probe.push(move.unanswered())
            forced = probe.check(move.answered(not move.answer)) is not None
        text = self.game.move_str(move)
        claims = self.position.push(move)
        self.moves.append(move)
        self.texts.append(text)
        self.reports.append(MoveReport(len(self.moves), move, claims, forced, self.position.turn))
        self.table.log += self._decisions(move, text, forced)

    def pop(self) -> None:
        self.position.pop()
        self.moves.pop()
        self.texts.pop()
        report = self.reports.pop()
        del self.table.log[len(self.table.log) - len(self._decisions(report.move, "", report.forced)):]


def position_words(record: Record) -> list[str]:
    """What a puzzle given as a position states, in sentences: the hands, scores and claims, where cards are
    known to be, the bounds per set and whose turn it is."""
    if record.start is None:
        return []
    g = record.game
    data = position_to_json(record.position())
    out = ["Hands: " + ", ".join(f"{who(g, p)} {n} card{'' if n == 1 else 's'}"
                                 for p, n in enumerate(data["hands"])) + "."]
    if any(data["scores"]):
        out.append("Scores: " + ", ".join(f"{n} for {who(g, p)}" for p, n in enumerate(data["scores"])) + ".")
    for s, p in data["claimed"].items():
        out.append(f"Set {s} is claimed by {who(g, p)}.")
    for card, seats in data["cards"].items():
        out.append(f"{card} is with {_or([who(g, p) for p in seats])}." if seats else f"{card} can be with nobody.")
    for key, word in (("at_least", "at least"), ("at_most", "at most")):
        for name, per_set in data[key].items():
            bounds = ", ".join(f"{word} {n} of set {s}" for s, n in per_set.items())
            out.append(f"{_cap(who(g, g.player(name)))} holds {bounds}.")
    st = record.start
    if len(st.turn) == 1:
        out.append(f"{_cap(who(g, st.turn[0]))} is on turn.")
    elif st.turn:
        out.append(f"The turn is a free choice among {_and([who(g, p) for p in st.turn])}.")
    return out


def rules_words(rules: Rules) -> str:
    """The rules by preset name; custom rules as the options that differ from the ``quaternity`` preset."""
    if rules.name != "custom":
        return f"rules {rules.name}"
    base = Rules().to_dict()
    diff = [f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in rules.to_dict().items()
            if base[k] != v]
    return "rules quaternity with " + ", ".join(diff)


def question_words(record: Record, stated: Stated, *, generated: bool) -> str:
    """The question a puzzle asks, without giving the answer away: a generated puzzle's as
    :func:`.puzzle.describe` words it, a stated verdict of a hand-made puzzle as a question."""
    g = record.game
    if generated:
        answer = PuzzleAnswer(stated.goal, stated.player, g, forced=True, questions=stated.questions)
        return describe(Puzzle(record, answer))[1]
    p = who(g, stated.player)
    if stated.goal == "quartet":
        k = stated.max_questions
        within = "" if k is None else f" within {k} question" + ("" if k == 1 else "s")
        return (f"Can {p} force a quartet in this turn{within}, whatever the answers?"
                + ("" if k is not None else " With how many questions?"))
    if stated.goal == "win":
        return f"Can {p} force being a winner, whatever all the other players do together?"
    return f"With best play on both sides, does {p} win, lose or draw?"


# -- strategy trees -------------------------------------------------------------------------------------
class _Tree:
    """The HTML of a strategy tree (docs/puzzles.md, "File formats"), each move played on a :class:`Line`
    (checked and told in words, numbered on from the puzzle's moves), within :data:`MAX_TREE_MOVES` moves.
    A line of play is one list; it branches only where several answers or moves must be followed."""

    def __init__(self, line: Line, player: int, where: str, explain: Explanations):
        self.line, self.player, self.where, self.explain = line, player, where, explain
        self.shown = 0

    def html(self, node: Any) -> str:
        return f'<ol class="tree">{"".join(self.items(node, "strategy"))}</ol>'

    def items(self, node: Any, at: str) -> list[str]:
        if not isinstance(node, dict):
            raise SheetError(f"{self.where}: {at}: expected a node of the strategy tree")
        if self.shown >= MAX_TREE_MOVES:
            return [f'<li class="more"><div class="node">… (the tree goes on: more than {MAX_TREE_MOVES} moves; '
                    "see <code>quaternity solve</code>)</div></li>"]
        for kind in ("ask", "declare", "options", "choose", "reached"):
            if kind in node:
                items: list[str] = getattr(self, kind)(node, at)
                return items
        raise SheetError(f"{self.where}: {at}: expected one of ask, declare, options, choose, reached")

    def _number(self) -> str:
        return f'<span class="n">{len(self.line.moves) + 1}.</span> '

    def ask(self, node: dict[str, Any], at: str) -> list[str]:
        line, g = self.line, self.line.game
        q = _first_move(g, node["ask"], f"{self.where}: {at}.ask")
        if not isinstance(q, Question):
            raise SheetError(f"{self.where}: {at}.ask: expected a question, not {node['ask']!r}")
        answers = node.get("answers")
        if not isinstance(answers, dict) or not answers or set(answers) - {"yes", "no"}:
            raise SheetError(f"{self.where}: {at}.answers: expected an object with yes and/or no")
        legal = {key: line.position.check(q.answered(key == "yes")) is None for key in ("yes", "no")}
        for key in ("yes", "no"):
            if key in answers and not legal[key]:
                err = line.position.check(q.answered(key == "yes"))
                raise SheetError(f"{self.where}: {at}.answers.{key}: {g.move_str(q.answered(key == 'yes'))} is "
                                 f"illegal here: {err}")
            if key not in answers and legal[key] and q.target != self.player:
                raise SheetError(f"{self.where}: {at}.answers: the answer {key} to {move_text(g, q)} can be given "
                                 "but is not in the tree")
        number = self._number()
        if len(answers) == 1:  # one answer to follow (forced, or the goal player's choice): no branch
            key = next(iter(answers))
            head, rest = self._answer(q, key, node, f"{at}.answers.{key}", number)
            return [f'<li class="step">{head}</li>'] + rest
        branches = []
        for key in ("yes", "no"):
            head, rest = self._answer(q, key, node, f"{at}.answers.{key}")
            branches.append(f'<li class="branch {key}">{head}<ol class="tree">{"".join(rest)}</ol></li>')
        return [f'<li class="step"><div class="node">{number}<span class="words">{escape(line.asking(q))}</span> '
                f'<code>{escape(move_text(g, q))}</code></div><ul class="branches">{"".join(branches)}</ul></li>']

    def _answer(self, q: Question, key: str, node: dict[str, Any], at: str, number: str | None = None
                ) -> tuple[str, list[str]]:
        """The answer ``key`` to ``q``: its line and what follows. With the move's ``number``, the line is the
        whole move in words; without, only the answer (a branch under its question)."""
        line, g = self.line, self.line.game
        move = q.answered(key == "yes")
        line.push(move, f"{self.where}: {at}")
        self.shown += 1
        try:
            said = line.words(len(line.moves) - 1)[0]["text"]
            if number is None:
                said = _cap(said.partition(": ")[2])  # the question is told on its own line
            why = ""
            if line.reports[-1].forced:
                text = node.get("why") if isinstance(node.get("why"), str) else None
                why = f'<div class="why"><b>Why:</b> {escape(text or self._why(move))}</div>'
            head = (f'<div class="node">{number or ""}<span class="words">{escape(said)}</span> '
                    f'<code>{escape(g.move_str(move))}</code>{why}</div>')
            return head, self.items(node["answers"][key], at)
        finally:
            line.pop()

    def _why(self, move: Question) -> str:
        """The explainer's words for a forced answer the tree gives no ``why`` for."""
        try:
            got = self.explain(self.line.moves[len(self.line.record.moves):], "answer", move.card)
        except ExplanationLimitError:
            return "not explained here (the page's time limit was spent)."
        except QuaternityError:
            got = None
        return got[0] if got is not None else "the other answer is illegal here."

    def declare(self, node: dict[str, Any], at: str) -> list[str]:
        line, g = self.line, self.line.game
        move = _first_move(g, node["declare"], f"{self.where}: {at}.declare")
        if not isinstance(move, Declaration):
            raise SheetError(f"{self.where}: {at}.declare: expected a declaration, not {node['declare']!r}")
        number = self._number()
        line.push(move, f"{self.where}: {at}.declare")
        self.shown += 1
        try:
            said = line.words(len(line.moves) - 1)[0]["text"]
            head = (f'<li class="step"><div class="node">{number}<span class="words">{escape(said)}</span> '
                    f'<code>{escape(g.move_str(move))}</code></div></li>')
            return [head] + self.items(node.get("next"), f"{at}.next")
        finally:
            line.pop()

    def options(self, node: dict[str, Any], at: str) -> list[str]:
        g, turn = self.line.game, self.line.position.turn
        options = node["options"]
        if not isinstance(options, list) or not options:
            raise SheetError(f"{self.where}: {at}.options: expected a list of nodes")
        if node.get("to_move") not in turn or len(turn) != 1:
            raise SheetError(f"{self.where}: {at}.to_move: {node.get('to_move')!r} is not the seat on turn")
        seat = _cap(who(g, turn[0]))
        if len(options) == 1:  # no branch: the line goes on
            note = f"{seat} has one move here (up to interchangeable ones):"
            return [f'<li class="step"><div class="node"><span class="words seat">{escape(note)}</span></div></li>'
                    ] + self.items(options[0], f"{at}.options[0]")
        branches = "".join(f'<li class="branch option"><ol class="tree">{"".join(self.items(o, f"{at}.options[{i}]"))}'
                           f"</ol></li>" for i, o in enumerate(options))
        return [f'<li class="step"><div class="node"><span class="words seat">{escape(seat)} moves; whatever it '
                f'does:</span></div><ul class="branches">{branches}</ul></li>']

    def choose(self, node: dict[str, Any], at: str) -> list[str]:
        g, turn = self.line.game, self.line.position.turn
        choices = node["choose"]
        if not isinstance(choices, dict) or not choices:
            raise SheetError(f"{self.where}: {at}.choose: expected an object seat -> node")
        branches = []
        for key, child in choices.items():
            try:
                seat = g.player(key)
            except QuaternityError:
                seat = -1
            if seat not in turn:
                raise SheetError(f"{self.where}: {at}.choose: {key!r} is not a seat sharing the turn")
            branches.append(f'<li class="branch option"><div class="node">If {escape(who(g, seat))} takes the '
                            f'turn:</div><ol class="tree">{"".join(self.items(child, f"{at}.choose.{key}"))}</ol></li>')
        return [f'<li class="step"><div class="node"><span class="words">The turn is a free choice among '
                f'{escape(_and([who(g, p) for p in turn]))}; the other players choose:</span></div>'
                f'<ul class="branches">{"".join(branches)}</ul></li>']

    def reached(self, node: dict[str, Any], at: str) -> list[str]:
        g, pos, me = self.line.game, self.line.position, who(self.line.game, self.player)
        if node["reached"] == "quartet":
            claimed = [g.set_name(s) for s, p in sorted(pos.claimed.items()) if p == self.player]
            wanted = node.get("set")
            if not claimed or (wanted is not None and wanted not in claimed):
                raise SheetError(f"{self.where}: {at}: says a quartet ({wanted}) is reached, but {me} has claimed "
                                 f"{_and(claimed) if claimed else 'no set'} here")
            text = f"Quartet: set {wanted if wanted is not None else claimed[-1]} is claimed by {me}."
        elif node["reached"] == "win":
            winners = pos.winners() if pos.over else []
            if self.player not in winners:
                raise SheetError(f"{self.where}: {at}: says the game is won, but {me} is not a winner here")
            scores = ", ".join(f"{who(g, p)} {s}" for p, s in enumerate(pos.scores))
            text = (f"Game over: {_and([who(g, p) for p in winners])} "
                    f"{'wins' if len(winners) == 1 else 'win'} (sets: {scores}).")
        else:
            raise SheetError(f"{self.where}: {at}.reached: expected quartet or win, not {node['reached']!r}")
        return [f'<li class="reached"><div class="node"><span class="words">{escape(text)}</span></div></li>']


# -- the page ----------------------------------------------------------------------------------------
def sheet_html(puzzles: Iterable[SheetPuzzle], *, title: str = "Quaternity puzzles",
               max_seconds: float | None = None) -> str:
    """The printable page of ``puzzles`` (a string): the puzzles first, the answers from a new page.

    The hand-made puzzles' verdicts are solved, and the explanations the trees lack are found, within
    ``max_seconds`` for the whole page (None: no limit; a hand-made puzzle also within
    :data:`SOLVE_POSITIONS` positions): past them an answer is shown as its file states it, saying that it
    was not solved here. A stated verdict the solver contradicts, an illegal move (in a record or a strategy)
    and a strategy that does not reach its goal raise :class:`SheetError` naming the file.
    """
    budget = Limits(max_seconds=max_seconds).start()
    puzzles = list(puzzles)
    blocks, answers = [], []
    for n, p in enumerate(puzzles, 1):
        result = replay(p.record)
        if result.error is not None:
            i = result.error_index
            assert i is not None  # set with the error
            raise SheetError(f"{p.path}: move {i} ({p.record.texts[i - 1]}) is illegal: {result.error}")
        if not result.position.is_valid():
            raise SheetError(f"{p.path}: the position is invalid: no deal is consistent with it")
        if result.position.over or result.position.pending is not None:
            raise SheetError(f"{p.path}: a puzzle needs a seat on turn with no open question")
        blocks.append(_puzzle_block(n, p, result))
        answers.append(_answer_block(n, p, budget))
    marks = "".join(_legend_item(item) for item in legend(False) if item["mark"] not in ("tint", "0.25", "outline"))
    count = f"{len(puzzles)} puzzle" + ("" if len(puzzles) == 1 else "s")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>
{CSS}
</style>
</head>
<body>
<section class="puzzles">
<header>
<h1>{escape(title)}</h1>
<p class="intro">{count} of Quaternity: nothing is hidden, every card's whereabouts follow from the questions
asked and answered, and an answer must work whatever the other players answer or do. Each puzzle tells the
game so far (moves numbered from 1) and draws the grid of what everybody knows now. A question is written
<code>0&gt;1:A2</code> (seat 0 asks seat 1 for A2; <code>+</code> yes, <code>-</code> no), a declaration
<code>0!A</code>. The answers follow the puzzles, from a new page.</p>
<ul class="legend">{marks}</ul>
</header>
{"".join(blocks)}
</section>
<section class="answers">
<h1>Answers</h1>
{"".join(answers)}
</section>
</body>
</html>
"""


def _legend_item(item: dict[str, str]) -> str:
    mark, colour = item["mark"], item["colour"]
    if mark == "chip":
        swatch = f'<span class="chip" style="background:{colour}">A by seat 0</span>'
    elif len(mark) > 2 and _light(colour):
        swatch = f'<span class="word" style="background:{colour}">{escape(mark)}</span>'
    else:
        swatch = f'<span class="glyph" style="color:{colour}">{escape(mark)}</span>'
    return f'<li>{swatch} {escape(item["meaning"])}</li>'


def _light(colour: str) -> bool:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b > 160


def _puzzle_block(n: int, p: SheetPuzzle, result: Replay) -> str:
    record, g = p.record, p.record.game
    story = []
    facts = position_words(record)
    if facts:
        story.append('<h3>The position</h3><ul class="facts">' + "".join(f"<li>{escape(t)}</li>" for t in facts)
                     + "</ul>")
    if record.moves:
        said = Line(record, result).words()
        story.append('<h3>The game so far</h3><ol class="moves">' + "".join(
            f'<li><span class="words">{escape(m["text"])}</span> <code>{escape(m["move"])}</code></li>'
            for m in said) + "</ol>")
    if p.hand_made:
        questions = [question_words(record, s, generated=False) for s in p.stated]
    else:
        questions = [p.description or question_words(record, p.stated[0], generated=True)]
    if len(questions) == 1:
        asked = f'<p class="question"><b>Question.</b> {escape(questions[0])}</p>'
    else:
        asked = ('<div class="question"><b>Questions.</b><ol type="a">'
                 + "".join(f"<li>{escape(q)}</li>" for q in questions) + "</ol></div>")
    setup = (f"{g.players} players, {g.sets} sets of {g.set_size} cards (hands of {g.hand_size} at the deal), "
             f"{rules_words(record.rules)}")
    return f"""<article class="puzzle" id="puzzle-{n}" data-name="{escape(p.name)}">
<h2><span class="number">{n}.</span> {escape(p.title)}</h2>
<p class="setup">{escape(setup)}</p>
<div class="body">
<div class="story">{"".join(story)}</div>
<figure class="grid">{grid_svg(result.position)}</figure>
</div>
{asked}
</article>
"""


def _answer_block(n: int, p: SheetPuzzle, budget: Budget) -> str:
    parts = [f'<article class="answer" id="answer-{n}" data-name="{escape(p.name)}">',
             f'<h2><span class="number">{n}.</span> {escape(p.title)}</h2>']
    if p.hand_made:
        shown: dict[str, str] = {}  # a strategy shown already for an earlier verdict -> its label
        for i, s in enumerate(p.stated):
            parts.append(_hand_made(p, i, s, budget, shown))
        if p.description:
            parts.append(f'<p class="description">{escape(p.description)}</p>')
    else:
        parts.append(_generated(p, p.answer, budget))
    parts.append("</article>\n")
    return "\n".join(parts)


def _summary(record: Record, **result: Any) -> str:
    """A verdict in the solver's words (:meth:`~quaternity_cp.quartets.solver.SolveResult.summary`)."""
    return _cap(SolveResult(status=SOLVED, game=record.game, rules=record.rules, **result).summary()) + "."


def _left(budget: Budget) -> float | None:
    if budget.limits.max_seconds is None:
        return None
    return max(0.0, budget.limits.max_seconds - budget.elapsed())


def _generated(p: SheetPuzzle, a: dict[str, Any], budget: Budget, label: str = "") -> str:
    """A forced puzzle's answer as its answer file (docs/puzzles.md) has it: verdict, first moves, traps,
    difficulty, strategy."""
    record, g = p.record, p.record.game
    k, player = a["questions"], a["player"]
    if a["goal"] == QUARTET:
        verdicts = [_summary(record, goal="quartet", player=player, result=True, questions=k)]
        if k >= 2:
            verdicts.append(_summary(record, goal="quartet", player=player, result=False, questions=k,
                                     max_questions=k - 1))
    else:
        verdicts = [_summary(record, goal="win", player=player, result=True, plies=k)]
    out = [f'<p class="verdict">{label}{escape(" ".join(verdicts))}</p>']
    line = Line(record, replay(record))
    classes = a.get("first_move_classes") or [[m] for m in a.get("first_moves", [])]
    if classes:
        items = []
        for c in classes:
            words = line.asking(_first_move(g, c[0], p.answer_path))
            same = ", ".join(f"<code>{escape(m)}</code>" for m in c[1:])
            same = f" (or, the same game from there on: {same})" if same else ""
            items.append(f'<li>{escape(words)} <code>{escape(c[0])}</code>{same}</li>')
        one = sum(map(len, classes)) == 1
        out.append(f'<div class="first"><b>{"The first move" if one else "First moves"} that work'
                   f'{"s" if one else ""}:</b><ul>{"".join(items)}</ul></div>')
    traps = a.get("traps", [])
    if traps:
        listed = "".join(f'<li>{escape(line.asking(_first_move(g, t, p.answer_path)))} <code>{escape(t)}</code></li>'
                         for t in traps)
        out.append(f'<div class="traps"><b>Traps</b> (they look as if they might, but do not force it within '
                   f'{k}):<ul>{listed}</ul></div>')
    grade = a.get("grade", {})
    if a.get("difficulty") or grade:
        numbers = ", ".join(f"{str(key).replace('_', ' ')} {v:g}" for key, v in grade.items())
        out.append(f'<p class="difficulty"><b>Difficulty:</b> {escape(a.get("difficulty") or "not graded")}'
                   + (f' <span class="grade">({escape(numbers)})</span>' if numbers else "") + "</p>")
    if "strategy" in a:
        explain = Explanations(record, max_seconds=_left(budget))
        tree = _Tree(line, player, p.answer_path, explain).html(a["strategy"])
        out.append(f'<h3>Strategy</h3>{tree}')
    return "\n".join(out)


def _hand_made(p: SheetPuzzle, i: int, s: Stated, budget: Budget, shown: dict[str, str]) -> str:
    """Verdict ``i`` of a hand-made puzzle, solved: refused when the solver contradicts it; a forced goal of
    the seat on turn shown as a generated puzzle's answer (once per distinct strategy)."""
    record = p.record
    where = f"{p.answer_path}: answer {i + 1}"
    label = f'<span class="sub">({"abcdefghijklmnopqrstuvwxyz"[i % 26]})</span> ' if len(p.stated) > 1 else ""
    stated = s.result if isinstance(s.result, str) else "yes" if s.result else "no"
    left = _left(budget)
    not_solved = (f'<p class="verdict">{label}{escape(_cap(str(stated)))} (as the answer file states it; not '
                  'solved here: the page\'s time or position limit was reached).</p>')
    if left == 0:
        return not_solved
    limits = Limits(max_positions=SOLVE_POSITIONS, max_seconds=left)
    position = replay(record).position
    on_turn = position.turn == (s.player,)
    if s.goal in ("quartet", "win") and s.result is True and on_turn:
        try:
            solved = solve_puzzle(record, s.goal, s.player, max_questions=s.max_questions, limits=limits,
                                  explain_seconds=_left(budget))
        except PuzzleStopped:
            return not_solved
        except PuzzleError as err:
            raise SheetError(f"{where}: {err}") from None
        a = solved.answer
        if not a.forced or (s.questions is not None and s.questions != a.questions):
            found = "no" if not a.forced else f"{a.questions}"
            raise SheetError(f"{where}: states yes{'' if s.questions is None else f' in {s.questions}'} but the "
                             f"solver finds {found} (check it with quaternity puzzle verify)")
        data = answer_json(p.name, solved)
        key = repr(data["strategy"])
        if key in shown:  # the same answer as an earlier verdict's (within more questions, say)
            verdict = _generated(p, {k: data[k] for k in ("goal", "player", "questions")}, budget, label)
            return verdict.replace("</p>", f" The same strategy as {shown[key]}.</p>", 1)
        shown[key] = f"({'abcdefghijklmnopqrstuvwxyz'[i % 26]})"
        return _generated(p, data, budget, label)
    try:
        res = solve(position, s.goal, s.player, max_questions=s.max_questions, depth=0, limits=limits)
    except QuaternityError as err:
        raise SheetError(f"{where}: {err}") from None
    if not res.proven:
        return not_solved
    numbers_differ = s.questions is not None and s.questions != (res.questions if s.goal == QUARTET else res.plies)
    if res.result != s.result or (res.result is True and numbers_differ):
        raise SheetError(f"{where}: states {stated} but the solver finds: {res.summary()} "
                         "(check it with quaternity puzzle verify)")
    return f'<p class="verdict">{label}{escape(_cap(res.summary()))}.</p>'


CSS = """
@page { size: A4; margin: 14mm 14mm 15mm; }
:root { --ink: #1d1d1f; --muted: #5f6368; --line: #d9dce0; --accent: #1565c0; }
* { box-sizing: border-box; }
html { background: #eceff1; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0 auto; max-width: 210mm; padding: 12mm 14mm; background: #fff; color: var(--ink);
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
h1 { font-size: 1.6em; margin: 0 0 .3em; }
h2 { font-size: 1.2em; margin: 0 0 .1em; break-after: avoid; page-break-after: avoid; }
h3 { font-size: .8em; margin: .5em 0 .2em; color: var(--muted); text-transform: uppercase;
     letter-spacing: .05em; break-after: avoid; page-break-after: avoid; }
h2 .number { color: var(--accent); }
code { font: .82em ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; color: var(--muted);
       white-space: nowrap; }
p, li { overflow-wrap: anywhere; }
.intro { margin: .2em 0 .5em; color: var(--muted); font-size: .92em; }
.legend { list-style: none; padding: 0; margin: 0 0 .6em; display: flex; flex-wrap: wrap; gap: .1em 1.2em;
          font-size: .8em; color: var(--muted); }
.legend .glyph { font-weight: bold; }
.legend .word, .legend .chip { padding: 0 .4em; border-radius: .6em; }
.legend .chip { color: #fff; font-size: .9em; }
article { border-top: 2px solid var(--line); padding: .6em 0 .7em; }
.puzzle { break-inside: avoid; page-break-inside: avoid; }
.setup { margin: 0 0 .3em; color: var(--muted); font-size: .88em; }
.body { display: flex; flex-wrap: wrap; gap: .4em 1.2em; align-items: flex-start; }
.story { flex: 1 1 16em; min-width: 0; font-size: .92em; }
.story ol, .story ul { margin: 0; padding-left: 1.7em; }
.story li { margin: .05em 0; }
figure.grid { margin: 0; flex: 0 1 auto; min-width: 0; max-width: 100%; }
figure.grid svg { display: block; width: auto; height: auto; max-width: 100%; max-height: 185mm; }
.question { margin: .5em 0 0; padding: .3em .6em; background: #f3f6fb; border-left: 3px solid var(--accent); }
.question ol { margin: .2em 0 0; padding-left: 1.6em; }
.answers { break-before: page; page-break-before: always; }
.answers > h1 { margin-bottom: .2em; }
.verdict { margin: .25em 0; font-weight: 600; }
.sub { color: var(--accent); }
.first, .traps { font-size: .95em; }
.first ul, .traps ul { margin: .1em 0 .3em; padding-left: 1.6em; }
.difficulty { margin: .3em 0; font-size: .95em; }
.grade { color: var(--muted); font-size: .9em; }
.description { color: var(--muted); font-style: italic; margin: .4em 0 0; font-size: .95em; }
ol.tree, ul.branches { list-style: none; margin: 0; padding: 0; }
ul.branches { margin: .1em 0 .2em .5em; }
li.branch { border-left: 2px solid var(--line); padding-left: .7em; margin: .2em 0; }
li.branch.yes { border-left-color: #81c784; }
li.branch.no { border-left-color: #e57373; }
.node { margin: .12em 0; font-size: .95em; break-inside: avoid; page-break-inside: avoid; }
.node .n { display: inline-block; min-width: 1.8em; color: var(--muted); font-variant-numeric: tabular-nums; }
li.branch.yes > .node > .words::before { content: "yes: "; color: #2e7d32; font-weight: 700; }
li.branch.no > .node > .words::before { content: "no: "; color: #b71c1c; font-weight: 700; }
li.branch.option > .node, .words.seat { font-style: italic; }
li.reached .words { color: #2e7d32; font-weight: 700; }
.why { margin: .1em 0 .15em 1.8em; padding: .1em .5em; font-size: .88em; color: #37474f; background: #f6f7f8;
       border-left: 2px solid #c5c9cc; }
@media print {
  html { background: none; }
  body { max-width: none; padding: 0; font-size: 10pt; }
}
@media (max-width: 600px) {
  body { padding: 4mm; font-size: 14px; }
}
"""

__all__ = ["sheet_puzzle", "SheetPuzzle", "SheetError", "Line", "read_puzzles", "read_puzzle", "sheet_html", "position_words",
           "rules_words", "question_words", "who", "MAX_TREE_MOVES", "SOLVE_POSITIONS"]
