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


# -- the game graph of a start, and its sizes (tests/test_gofish_sizes.py) ------------------------------------------
# A *position* here is what the rules make of a game so far, nothing else:
#   ("ask", turn, worlds)            nobody is asked yet: the seat to ask, and the tables consistent now;
#   ("open", (a, b, s), worlds)      a asked b for s, no answer yet: the question, and the tables consistent
#                                    with it (a holds one of s);
#   ("over", mover, winner, worlds)  the game ended on a move of ``mover`` (the asker of the last question):
#                                    who asked last, who won (None: nobody), the tables consistent at the end.
# ``worlds`` is a frozenset of tables now (tuples of rows); the hands are their row sums. Two plays that reach
# the same key have the same future: the rules read nothing else (``repetition = draw`` is off here).


def _copy(ref):
    new = Reference.__new__(Reference)
    new.__dict__ = dict(ref.__dict__)
    new.hands = list(ref.hands)
    new.seen = set()
    return new


def _node_key(ref, mover):
    worlds = frozenset(ref.worlds)
    if ref.over:
        return ("over", mover, ref.winner, worlds)
    if ref.pending is not None:
        return ("open", ref.pending, worlds)
    return ("ask", ref.turn, worlds)


def _plies(ref):
    """Every legal ply of a position not over: (the mover, the position it leads to)."""
    out = []
    if ref.pending is None:
        for a, b, s in ref.legal_questions():
            child = _copy(ref)
            assert child.play(a, b, s, None) is None
            out.append(child)
        return ref.turn, out
    a, b, s = ref.pending
    for yes in ref.legal_answers(a, b, s):
        child = _copy(ref)
        assert child.play(a, b, s, yes) is None
        out.append(child)
    return a, out


class StartGraph:
    """The game graph of a new game by brute force: every position reachable from the start (see above), breadth
    first. ``keys[i]``, ``kind[i]`` ("ask", "open", "over"), ``succ[i]`` (the positions of its legal plies, each
    once), ``dist[i]`` (the fewest plies from the start, a question and an answer each one)."""

    def __init__(self, players, suits, suit_size, rules=None):
        from collections import deque

        self.P, self.K = players, suits
        ref = Reference(players, suits, suit_size, dict(rules or {}, repetition="none"))
        assert not ref.over
        self.keys, self.kind, self.succ, self.dist = [], [], [], []
        self.index = {}

        def add(r, mover, d):
            key = _node_key(r, mover)
            got = self.index.get(key)
            if got is None:
                got = self.index[key] = len(self.keys)
                self.keys.append(key)
                self.kind.append(key[0])
                self.succ.append(())
                self.dist.append(d)
                if not r.over:
                    todo.append((got, r))
            return got

        todo = deque()
        add(ref, None, 0)
        self.plies = 0  # every legal ply of every position (two plies to one position count twice)
        while todo:
            i, r = todo.popleft()
            mover, children = _plies(r)
            self.plies += len(children)
            self.succ[i] = tuple(sorted({add(c, mover, self.dist[i] + 1) for c in children}))

    def __len__(self):
        return len(self.keys)

    # -- the symmetries: players rotated (seat p -> p - r), suits relabelled (suit s -> perm[s]) -------------------
    def _image(self, key, r, perm):
        P, K = self.P, self.K

        def seat(p):
            return None if p is None else (p - r) % P

        def table(w):
            rows = [None] * P
            for p in range(P):
                row = [0] * K
                for s in range(K):
                    row[perm[s]] = w[p][s]
                rows[(p - r) % P] = tuple(row)
            return tuple(rows)

        worlds = frozenset(table(w) for w in key[-1])
        if key[0] == "ask":
            return ("ask", seat(key[1]), worlds)
        if key[0] == "open":
            a, b, s = key[1]
            return ("open", (seat(a), seat(b), perm[s]), worlds)
        return ("over", seat(key[1]), seat(key[2]), worlds)

    def classes(self, rotate, relabel):
        """Each position's class under the symmetries asked for (a number per position; positions of one class are
        images of each other): the orbits of the group, met through the reachable positions."""
        from itertools import permutations

        group = [(r, perm) for r in (range(self.P) if rotate else [0])
                 for perm in (permutations(range(self.K)) if relabel else [tuple(range(self.K))])]
        cls = [-1] * len(self.keys)
        count = 0
        for i, key in enumerate(self.keys):
            if cls[i] >= 0:
                continue
            for r, perm in group:
                j = self.index.get(self._image(key, r, perm))
                if j is not None:
                    cls[j] = count
            count += 1
        return cls

    def counts(self, rotate=False, relabel=False):
        """{"ask": n, "open": n, "over": n}: the positions of each kind, counted once per class."""
        cls = self.classes(rotate, relabel)
        out = {"ask": set(), "open": set(), "over": set()}
        for i, c in enumerate(cls):
            out[self.kind[i]].add(c)
        return {k: len(v) for k, v in out.items()}

    # -- the solvers' definitions -----------------------------------------------------------------------------------
    def _moves(self, i, suit_cls):
        """The distinct successors of position i: two the same when one is the other with the suits relabelled (a
        game over: when they have the same winner)."""
        return len({("end", self.keys[j][2]) if self.kind[j] == "over" else suit_cls[j] for j in self.succ[i]})

    def solver_sizes(self):
        """What the Python solver (quaternity_cp.gofish.solver.build_graph) counts: positions = the asking and
        open-question positions with suits relabelled, plus one game over per winner (nobody included); moves =
        each of them's distinct successors."""
        suit_cls = self.classes(False, True)
        reps = {}
        winners = set()
        for i, c in enumerate(suit_cls):
            if self.kind[i] == "over":
                winners.add(self.keys[i][2])
            else:
                reps.setdefault(c, i)
        return {"positions": len(reps) + len(winners), "edges": sum(self._moves(i, suit_cls) for i in reps.values()),
                "ask": sum(1 for i in reps.values() if self.kind[i] == "ask"),
                "open": sum(1 for i in reps.values() if self.kind[i] == "open"), "over": len(winners)}

    def packed_sizes(self):
        """What the partitioned solver (quaternity_cp.gofish.bigsolve.build) counts: positions = the asking and
        open-question positions with players rotated and suits relabelled (games over are not positions); moves =
        each of them's distinct successors (games over included); layers = the build's breadth-first layers: the
        fewest plies from the start to a position of the class, 0 to the largest, and one more, empty, which ends
        the build."""
        suit_cls = self.classes(False, True)
        both = self.classes(True, True)
        reps, depth = {}, {}
        for i, c in enumerate(both):
            if self.kind[i] != "over":
                reps.setdefault(c, i)
                depth[c] = min(depth.get(c, self.dist[i]), self.dist[i])
        return {"positions": len(reps), "edges": sum(self._moves(i, suit_cls) for i in reps.values()),
                "layers": max(depth.values()) + 2,
                "ask": sum(1 for i in reps.values() if self.kind[i] == "ask"),
                "open": sum(1 for i in reps.values() if self.kind[i] == "open")}


def main(argv=None):
    """``python tests/gofish_reference.py --players 3 [--suits K] [--suit-size 4] [--rule OPTION=VALUE ...]``: the
    start's brute-force game graph, counted (JSON): plain, with each symmetry merged, and as each solver counts."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--suits", type=int, default=None)
    parser.add_argument("--suit-size", type=int, default=4)
    parser.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE")
    args = parser.parse_args(argv)
    rules = {}
    for item in args.rule:
        key, _, value = item.partition("=")
        rules[key] = {"true": True, "false": False}.get(value.lower(), value)
    g = StartGraph(args.players, args.suits or args.players, args.suit_size, rules)
    out = {"players": args.players, "suits": args.suits or args.players, "suit_size": args.suit_size,
           "rules": rules, "plain": dict(g.counts(), plies=g.plies), "players_rotated": g.counts(rotate=True),
           "suits_relabelled": g.counts(relabel=True), "both": g.counts(rotate=True, relabel=True),
           "python_solver": g.solver_sizes(), "partitioned_solver": g.packed_sizes()}
    print("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in out.items()) + "\n}")


if __name__ == "__main__":
    main()
