"""The puzzle search against references that share no code with the solver, on many small moments.

**The win goal counts the answer's ply.** Under the win goal a question whose
answer is open is two plies: the question, then the answer (a forced answer is
one ply with its question). So a first question wins within K plies when every
legal answer leaves the win forced within K-2 more, and it is a trap when one
answer would and another would not (docs/puzzles.md, "Difficulty").
``PuzzleSearch._classify`` counts that ply (``after = rest - 1`` for the win
goal); a search that does not count it lists first moves that need K+1 plies
and traps that are none. Here every moment of a few seeded games (3 x 3 x 3,
the ``pythagoras`` and ``blind`` presets, where open answers near the end are
common) that the generator would search is solved by
:class:`~quaternity_cp.quartets.puzzles.search.PuzzleSearch` and compared with the
plain depth-limited AND-OR search over positions of ``test_puzzles.py``
(``WinSearch``: the rules as :class:`~quaternity_cp.quartets.position.Position` plays
them, no canonical keys, no game graph): K, every winning first move, every
trap. The moments include some where counting the answer's ply changes a
first move's verdict (the reference finds them; the test requires some), so
the comparison fails if the ply is not counted.

**Grades on a threshold.** A score exactly on a threshold of
``quaternity_cp.quartets.puzzles.grade`` is the harder level, as docs/puzzles.md says
("below 4 is easy, below 8 medium, below 13 hard, from 13 on expert"); the
thresholds are read from that sentence.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_puzzle_generate import answered, win_facts
from test_puzzles import WinSearch

from quaternity_cp.budget import Limits
from quaternity_cp.quartets.game import Question
from quaternity_cp.quartets.position import Position
from quaternity_cp.quartets.puzzles.generate import DEFAULT_POSITIONS, GenerateOptions, _moments, spec_game
from quaternity_cp.quartets.puzzles.grade import DIFFICULTIES, THRESHOLDS, difficulty_of, grade, score_of
from quaternity_cp.quartets.puzzles.search import PuzzleAnswer, PuzzleSearch, TreeStats
from quaternity_cp.quartets.rules import Rules

DOCS = Path(__file__).resolve().parent.parent / "docs" / "puzzles.md"

#: (preset, seed, games): the moments of these seeded games, latest first, as the generator searches them.
GAMES = [("pythagoras", 5, range(6)), ("blind", 5, range(6))]
#: every game of the generator's first fourteen under pythagoras (behind --runslow: 14 s of a shared core)
SLOW_GAMES = [("pythagoras-all", 5, range(14))]
#: The most plies of a moment compared (the reference is a plain search: deeper ones cost too much).
MAX_PLIES = 7


def moments(preset: str, seed: int, games: range):
    """Every moment of the games the generator's win search proves within its default budget (the
    moments of a game latest first, up to the first it cannot prove, as the generator does)."""
    opts = GenerateOptions(3, 3, 3, preset, "win")
    game, rules = spec_game(opts), Rules.preset(preset)
    for unit in games:
        found, _ = _moments(opts, seed, unit)
        for played, st in found:
            pos = Position(game, rules, state=st)
            search = PuzzleSearch(pos, "win", st.turn[0], limits=Limits(max_positions=DEFAULT_POSITIONS["win"]))
            answer = search.answer(MAX_PLIES)
            if not answer.proven:
                break
            yield (unit, played), pos, answer


def ply_sensitive(pos: Position, player: int, k: int) -> set:
    """The first questions whose verdict (win, trap or neither) changes when the answer's ply is not
    counted: both answers legal, and the reference's verdicts after them differ within k-2 and k-1 plies."""
    search = WinSearch(player)
    out = set()
    for m in list(pos.legal_moves()):
        if not isinstance(m, Question):
            continue
        pos.push(m)
        options = answered(pos, m)
        verdicts = []
        for more in (k - 2, k - 1):  # the answer's ply counted, and not
            results = []
            for a in options:
                pos.push(a)
                results.append(search.win(pos, more))
                pos.pop()
            verdicts.append("win" if all(results) else "trap" if any(results) else None)
        pos.pop()
        if len(options) == 2 and verdicts[0] != verdicts[1]:
            out.add(m)
    return out


@pytest.mark.parametrize("preset,seed,games", [pytest.param(*g, id=g[0]) for g in GAMES]
                         + [pytest.param(*g, id=g[0], marks=pytest.mark.slow) for g in SLOW_GAMES])
def test_win_first_moves_and_traps_count_the_answers_ply(preset, seed, games):
    preset = preset.removesuffix("-all")
    compared = sensitive = 0
    for where, pos, answer in moments(preset, seed, games):
        if not answer.forced:
            continue
        k, p = answer.questions, answer.player
        reference = WinSearch(p)
        assert reference.win(pos, k) and not reference.win(pos, k - 1), where  # K is least
        wins, traps = win_facts(pos, p, k)
        assert set(answer.first_moves) == wins and len(answer.first_moves) == len(wins), (where, answer.first_moves)
        assert set(answer.traps) == traps and len(answer.traps) == len(traps), (where, answer.traps, traps)
        compared += 1
        sensitive += bool(ply_sensitive(pos, p, k))
    # the comparison can fail: some moments have questions whose verdict depends on the answer's ply
    assert compared >= 20 and sensitive >= 1, (compared, sensitive)


# -- grades on a threshold -------------------------------------------------------------------------------
def documented_levels() -> list[tuple[float, str]]:
    """The thresholds of docs/puzzles.md: (the lowest score of a level, the level), from its sentence
    'below 4 is **easy**, below 8 **medium**, below 13 **hard**, from 13 on **expert**'."""
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    m = re.search(r"below ([\d.]+) is \*\*(\w+)\*\*, below ([\d.]+) \*\*(\w+)\*\*, below ([\d.]+) \*\*(\w+)\*\*, "
                  r"from ([\d.]+) on \*\*(\w+)\*\*", text)
    assert m is not None, "the thresholds' sentence of docs/puzzles.md"
    g = m.groups()
    below = [(float(g[0]), g[1]), (float(g[2]), g[3]), (float(g[4]), g[5])]
    assert float(g[6]) == below[-1][0]
    # a level starts where the one before it stops
    return [(t, below[i + 1][1] if i + 1 < len(below) else g[7]) for i, (t, _) in enumerate(below)] + \
        [(float("-inf"), below[0][1])]


def test_the_documented_thresholds_are_the_librarys():
    levels = documented_levels()
    assert [t for t, _ in levels[:-1]] == list(THRESHOLDS)
    assert [name for _, name in [levels[-1], *levels[:-1]]] == list(DIFFICULTIES)


@pytest.mark.parametrize("i", range(len(THRESHOLDS)))
def test_a_score_on_a_threshold_is_the_harder_level(i):
    threshold, level = documented_levels()[i]
    below = documented_levels()[i - 1][1] if i else documented_levels()[-1][1]
    assert difficulty_of(threshold) == level
    assert difficulty_of(round(threshold - 0.01, 2)) == below  # scores have two decimals
    # through the whole grade: a strategy of whole-numbered depth scores exactly the threshold
    depth = int(threshold)
    assert depth == threshold
    answer = PuzzleAnswer("quartet", 0, game=None, forced=True, questions=depth, positions=1)
    stats = TreeStats(nodes=depth, depth=depth)
    g = grade(answer, stats)
    assert g.score == threshold == score_of(g.numbers)
    assert g.difficulty == level
    shallower = grade(answer, TreeStats(nodes=depth - 1, depth=depth - 1))
    assert shallower.score < threshold and shallower.difficulty == below
