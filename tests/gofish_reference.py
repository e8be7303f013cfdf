"""An independent brute-force reference for Quantum Go Fish (GOFISH.md), for small games only.

It lists every initial table of counts (player x suit) and keeps, as the game
goes, every table *now* that some consistent initial table leads to: a
question keeps the tables where the asker holds the suit, a yes those where the
asked player does (and moves the card), a no those where it does not. Every
answer (legal moves, cell ranges, determined, fours, turns, wins) is read from
that list. Nothing here imports quaternity_cp.gofish.

Rule choices follow quaternity_cp/gofish/game.py's docstring (the places where
GOFISH.md leaves a choice): ``forbid`` judges the asked player after the
question; the turn goes round from the asker, the asker last; a win after a
question takes no answer; ``lose`` ends the game with the player at fault the
loser; a position for ``repetition`` is the set of tables now and who asks.
"""

from __future__ import annotations

from functools import lru_cache

DEFAULTS = {"first": 0, "ask_void": "allow", "after_yes": "next", "four": "named", "win_after_ask": False,
            "priority": "mover", "no_initial_four": False, "invalid": "reject", "repetition": "none"}


@lru_cache(maxsize=None)
def initial_tables(players, suits, suit_size, cap):
    """Every players x suits table with row sums suits*suit_size/players, column sums suit_size, cells <= cap."""
    hand = suits * suit_size // players
    out = []

    def rows(need, left, k):  # a row with `need` cards over suits k.., each within what is left and the cap
        if k == suits:
            if need == 0:
                yield ()
            return
        for v in range(0, min(need, left[k], cap) + 1):
            for rest in rows(need - v, left, k + 1):
                yield (v,) + rest

    def deal(p, left, acc):
        if p == players:
            if all(x == 0 for x in left):
                out.append(tuple(acc))
            return
        for row in rows(hand, left, 0):
            deal(p + 1, [left[k] - row[k] for k in range(suits)], acc + [row])

    deal(0, [suit_size] * suits, [])
    return tuple(out)


class Reference:
    """A game, by brute force. ``worlds``: the consistent tables now (tuples of rows)."""

    def __init__(self, players, suits, suit_size, rules=None):
        self.P, self.K, self.S = players, suits, suit_size
        self.rules = dict(DEFAULTS, **(rules or {}))
        cap = suit_size - 1 if self.rules["no_initial_four"] else suit_size
        self.worlds = list(initial_tables(players, suits, suit_size, cap))
        self.hands = [suits * suit_size // players] * players
        self.pending = None
        self.winner = self.loser = None
        self.reason = None
        self.over = False
        self.turn = self._first_with_question(self.rules["first"], include_start=True)
        self.seen = set()
        if self.turn is None:
            self._end(None, "stuck")
        else:
            self.seen.add(self._position())

    # facts
    def count(self):
        return len(self.worlds)

    def cell_range(self, p, s):
        values = [w[p][s] for w in self.worlds]
        return min(values), max(values)

    def ranges(self):
        low = tuple(tuple(min(w[p][s] for w in self.worlds) for s in range(self.K)) for p in range(self.P))
        high = tuple(tuple(max(w[p][s] for w in self.worlds) for s in range(self.K)) for p in range(self.P))
        return low, high

    def determined(self):
        return len(self.worlds) == 1

    def fours(self):
        mode = self.rules["four"]
        if mode == "off" or not self.worlds:
            return []
        out = []
        for p in range(self.P):
            if mode == "named":
                ok = any(all(w[p][s] == self.S for w in self.worlds) for s in range(self.K))
            else:
                ok = all(any(w[p][s] == self.S for s in range(self.K)) for w in self.worlds)
            if ok:
                out.append(p)
        return out

    # legality
    def _questions_of(self, a):
        out = []
        if self.hands[a] == 0:
            return out
        for s in range(self.K):
            holding = [w for w in self.worlds if w[a][s] >= 1]
            if not holding:
                continue
            for b in range(self.P):
                if b == a or self.hands[b] == 0:
                    continue
                if self.rules["ask_void"] == "forbid" and not any(w[b][s] >= 1 for w in holding):
                    continue
                out.append((a, b, s))
        return out

    def legal_questions(self):
        if self.over or self.pending is not None:
            return []
        return self._questions_of(self.turn)

    def legal_answers(self, a, b, s):
        """The answers (True: yes, False: no) to a question ``a`` asks ``b`` for ``s``, judged after it."""
        holding = [w for w in self.worlds if w[a][s] >= 1]
        out = []
        if any(w[b][s] >= 1 for w in holding):
            out.append(True)
        if any(w[b][s] == 0 for w in holding):
            out.append(False)
        return out

    def question_fault(self, a, b, s):
        if a != self.turn:
            return "not on turn"
        if a == b:
            return "self"
        if self.hands[b] == 0:
            return "empty"
        if not any(w[a][s] >= 1 for w in self.worlds):
            return "lacks"
        if (a, b, s) not in self._questions_of(a):
            return "void"
        return None

    # turns and wins
    def _first_with_question(self, start, include_start):
        order = range(0, self.P) if include_start else range(1, self.P + 1)
        for i in order:
            p = (start + i) % self.P
            if self._questions_of(p):
                return p
        return None

    def _end(self, winner, reason, loser=None):
        self.over, self.winner, self.reason, self.loser = True, winner, reason, loser
        self.turn = None

    def _won(self, mover):
        det = self.determined()
        fours = self.fours()
        order = [(mover + i) % self.P for i in range(self.P)]
        if self.rules["priority"] == "mover":
            if det:
                return mover, "determined"
            if mover in fours:
                return mover, "four"
            for p in order[1:]:
                if p in fours:
                    return p, "four"
            return None
        for p in order:
            if p in fours:
                return p, "four"
        return (mover, "determined") if det else None

    def _position(self):
        return self.turn, frozenset(self.worlds)

    # playing
    def play(self, a, b, s, answer):
        """Play a question (``answer`` None) or a question with its answer, or the answer to the open question
        (same a, b, s). Returns None, or the fault (a short word) when the move is illegal and the rules reject
        it; under ``lose`` an illegal move ends the game instead."""
        assert not self.over
        before = (self.worlds, self.pending)
        if self.pending is None:
            fault = self.question_fault(a, b, s)
            if fault is not None:
                if self.rules["invalid"] == "lose":
                    self._end(None, "invalid", a)
                    return None
                return fault
            self.worlds = [w for w in self.worlds if w[a][s] >= 1]
            self.pending = (a, b, s)
            if self.rules["win_after_ask"]:
                won = self._won(a)
                if won:
                    self.pending = None
                    self._end(*won)
                    return None
            if answer is None:
                return None
        assert self.pending == (a, b, s) and answer is not None
        yes = [w for w in self.worlds if w[b][s] >= 1]
        no = [w for w in self.worlds if w[b][s] == 0]
        kept = yes if answer else no
        if not kept:
            if self.rules["invalid"] == "lose":
                self.pending = None
                self._end(None, "invalid", b)
                return None
            self.worlds, self.pending = before  # a rejected move changes nothing, its question included
            return "impossible yes" if answer else "impossible no"
        self.pending = None
        if answer:
            moved = []
            for w in kept:
                rows = [list(r) for r in w]
                rows[b][s] -= 1
                rows[a][s] += 1
                moved.append(tuple(tuple(r) for r in rows))
            kept = moved
            self.hands[b] -= 1
            self.hands[a] += 1
        self.worlds = kept
        won = self._won(a)
        if won:
            self._end(*won)
            return None
        if answer and self.rules["after_yes"] == "again" and self._questions_of(a):
            self.turn = a
        else:
            self.turn = self._first_with_question(a, include_start=False)
        if self.turn is None:
            self._end(None, "stuck")
            return None
        key = self._position()
        if self.rules["repetition"] == "draw" and key in self.seen:
            self._end(None, "draw")
            return None
        self.seen.add(key)
        return None
