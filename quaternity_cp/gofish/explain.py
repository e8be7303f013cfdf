"""Why a cell of the table of counts has the range it has, and why an answer is forced (``gofish explain``).

What the moves say directly is a bound on single cells (GOFISH.md): asking
proves the asker holds at least one card of the suit, a yes that the asked
player held one (before it passed), a no that it held none; every bound is then
carried along by the cards that moved since. The exact range of a cell can be
narrower than these direct bounds, because every hand has its size and every
suit its cards. When it is, the reason is a *cut*: a set of players R and a set
of suits C such that, if the cell went past its bound,

    the cards the players R must hold of the suits C (their hands, less what
    they can hold of the other suits)  +  the cards the other players must
    hold of the suits C  >  the cards the suits C have.

Such a pair always exists (it is a minimum cut of the flow network of
:mod:`.bounds`, with the cell's bound moved one past its limit: Hoffman's
condition for a table with these row sums, column sums and cell bounds), and
the explanation gives every number it uses. A bound reached is shown by a
consistent table that reaches it.

>>> from .game import GoFish
>>> g = GoFish(3)
>>> for m in ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]:
...     _ = g.push(m)
>>> e = explain_cell(g, 2, 1)
>>> e.low, e.high
(3, 3)
>>> print(e.lines[0])
Seat 2 holds exactly 3 of B.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Sequence

from ..names import seat_name
from .bounds import FlowNetwork, Grid
from .game import GoFish, State
from .rules import GoFishError


@dataclass
class Explanation:
    """Why cell (``seat``, ``suit``) ranges over ``low`` .. ``high``: ``lines`` in words; ``cuts`` the
    players and suits of each cut used (``{"bound": "min" or "max", "players": [...], "suits": [...]}``),
    ``answer`` what an open question on this cell may get (``+`` / ``-``; None when no question is open on it)."""

    seat: int
    suit: int
    low: int
    high: int
    lines: list[str] = field(default_factory=list)
    cuts: list[dict[str, object]] = field(default_factory=list)
    answers: list[str] | None = None


class _Words:
    def __init__(self, game: GoFish):
        self.game = game
        s = game.setup
        self.names = list(s.players) if s.named_players else None
        self.suits = s.suits

    def p(self, seat: int) -> str:
        return seat_name(self.names, seat)

    def s(self, suit: int) -> str:
        return self.suits[suit]

    def ps(self, seats: Sequence[int]) -> str:
        return _join([self.p(x) for x in seats])

    def ss(self, suits: Sequence[int]) -> str:
        return _join([self.s(x) for x in suits])


def _cap(text: str) -> str:
    """A sentence starting with a capital (``seat 2 holds`` -> ``Seat 2 holds``; names stay as they are)."""
    return text[:1].upper() + text[1:]


def _join(items: Sequence[str]) -> str:
    if not items:
        return "none"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _origins(game: GoFish) -> tuple[dict[tuple[int, int], tuple[int, State]], dict[tuple[int, int], tuple[int, State]]]:
    """For each cell, the last move of the record (1-based) that raised its lower bound and lowered its upper
    bound of the initial table, with the state right before that push (what the move says is about that
    moment). Moves are counted by the record, not by the pushes: a question pushed alone and then its answer
    are two pushes of one move (the state after a push holds as many moves as the record has so far, the
    answer replacing the open question), so both give the same move number as one push of the whole move."""
    lows: dict[tuple[int, int], tuple[int, State]] = {}
    highs: dict[tuple[int, int], tuple[int, State]] = {}
    states = game.states()
    for i in range(1, len(states)):
        before, after = states[i - 1], states[i]
        number = len(after.moves)  # the record's move this push played (or answered)
        for p in range(game.players):
            for s in range(game.suits):
                if after.low0[p][s] > before.low0[p][s]:
                    lows[(p, s)] = (number, before)
                if after.high0[p][s] < before.high0[p][s]:
                    highs[(p, s)] = (number, before)
    return lows, highs


class _Explainer:
    def __init__(self, game: GoFish):
        self.game = game
        self.say = _Words(game)
        self.tables = game.tables()
        self.bounds = game.bounds()
        self.lows, self.highs = _origins(game)
        self.moves = game.moves
        self.supposed: tuple[int, int] | None = None

    # -- what the moves say directly -----------------------------------------------------------------------
    def _since(self, p: int, s: int, then: State) -> str:
        moved = self.game.state.shift[p][s] - then.shift[p][s]
        if moved > 0:
            return f", and {moved} more came to {self.say.p(p)} from then on"
        if moved < 0:
            return f", and {-moved} left {self.say.p(p)} from then on"
        return ""

    def direct_low(self, p: int, s: int) -> str:
        """Why the direct lower bound of cell (p, s) holds (it is above 0)."""
        say = self.say
        origin = self.lows.get((p, s))
        if origin is None:
            return f"{say.p(p)} holds at least {self.tables.low[p][s]} of {say.s(s)}"
        i, then = origin
        text = self.moves[i - 1]
        move = self.game.parse_move(text)
        if move.asker == p:
            why = f"it asked for {say.s(s)} in move {i} ({text}), which proves it held one then"
        else:
            why = f"it answered yes to {say.s(s)} in move {i} ({text}), so it held one then"
        return f"{say.p(p)} holds at least {self.tables.low[p][s]} of {say.s(s)}: {why}{self._since(p, s, then)}"

    def direct_high(self, p: int, s: int) -> str:
        """Why the direct upper bound of cell (p, s) holds."""
        say = self.say
        hi = self.tables.high[p][s]
        origin = self.highs.get((p, s))
        if origin is None or hi >= self.game.suit_size:
            if hi >= self.game.suit_size:
                return f"{say.s(s)} has {self.game.suit_size} cards"
            start = self.game.states()[0]
            return (f"{say.p(p)} holds at most {hi} of {say.s(s)}: nobody is dealt a whole suit"
                    + self._since(p, s, start))
        i, then = origin
        text = self.moves[i - 1]
        return (f"{say.p(p)} holds at most {hi} of {say.s(s)}: it answered no to {say.s(s)} in move {i} ({text})"
                + self._since(p, s, then))

    # -- cuts ------------------------------------------------------------------------------------------------
    def cut(self, low: Grid, high: Grid) -> tuple[list[int], list[int]]:
        """Players R and suits C whose counting rules out every table with these bounds (they admit none)."""
        t = self.tables
        P, K = t.players, t.suits
        lo = [[max(v, 0) for v in row] for row in low]
        hi = [[min(high[p][s], t.suit_sizes[s]) for s in range(K)] for p in range(P)]
        rows = [t.hands[p] - sum(lo[p]) for p in range(P)]
        cols = [t.suit_sizes[s] - sum(lo[p][s] for p in range(P)) for s in range(K)]
        for p in range(P):
            if rows[p] < 0:
                return [q for q in range(P) if q != p], list(range(K))
        for s in range(K):
            if cols[s] < 0:
                return [], [s]
        source, sink = P + K, P + K + 1
        net = FlowNetwork(P + K + 2)
        for p in range(P):
            net.add(source, p, rows[p])
        for s in range(K):
            net.add(P + s, sink, cols[s])
        for p in range(P):
            for s in range(K):
                net.add(p, P + s, hi[p][s] - lo[p][s])
        net.max_flow(source, sink)
        reached = {source}
        queue = [source]
        for u in queue:
            for e in net.adj[u]:
                v = net.to[e]
                if net.cap[e] > 0 and v not in reached:
                    reached.add(v)
                    queue.append(v)
        R = [p for p in range(P) if p in reached]
        C = [s for s in range(K) if P + s in reached]
        if P + K <= 12:  # small: the cut naming the fewest rows and columns (seen from either side)
            found = self._search(lo, hi)
            if found is not None:
                R, C = found
        if not self._violated(R, C, lo, hi):  # never expected; a search keeps the explanation right
            found = self._search(lo, hi)
            if found is None:
                raise GoFishError("no counting argument found (internal error)")
            R, C = found
        return R, C

    def _violated(self, R: Sequence[int], C: Sequence[int], lo: list[list[int]], hi: list[list[int]]) -> bool:
        t = self.tables
        P, K = t.players, t.suits
        notR = [p for p in range(P) if p not in R]
        notC = [s for s in range(K) if s not in C]
        lhs = sum(t.hands[p] for p in R) - sum(t.suit_sizes[s] for s in C)
        rhs = sum(hi[p][s] for p in R for s in notC) - sum(lo[p][s] for p in notR for s in C)
        return lhs > rhs

    def _search(self, lo: list[list[int]], hi: list[list[int]]) -> tuple[list[int], list[int]] | None:
        P, K = self.tables.players, self.tables.suits
        if P + K > 16:
            return None
        best: tuple[int, list[int], list[int]] | None = None
        for size in range(P + K + 1):
            for chosen in combinations(range(P + K), size):
                R = [x for x in chosen if x < P]
                C = [x - P for x in chosen if x >= P]
                if self._violated(R, C, lo, hi):
                    measure = min(size, P + K - size)
                    if best is None or measure < best[0]:
                        best = (measure, R, C)
        return None if best is None else (best[1], best[2])

    def argument(self, p: int, s: int, bound: str, value: int) -> tuple[list[str], dict[str, object]]:
        """The cut showing that cell (p, s) is at least ``value`` (``bound`` = "min") or at most ``value``
        ("max"), in words: the suits C would need more cards than they have, or (the same cut seen from the
        other side) the players R would need more cards than they hold, whichever names fewer rows and columns."""
        say, t = self.say, self.tables
        P, K = t.players, t.suits
        low = [list(r) for r in t.low]
        high = [list(r) for r in t.high]
        if bound == "min":
            high[p][s] = value - 1
            hyp = f"Suppose {say.p(p)} held at most {value - 1} of {say.s(s)}"
        else:
            low[p][s] = value + 1
            hyp = f"Suppose {say.p(p)} held at least {value + 1} of {say.s(s)}"
        R, C = self.cut(tuple(map(tuple, low)), tuple(map(tuple, high)))
        notR = [q for q in range(P) if q not in R]
        notC = [x for x in range(K) if x not in C]
        self.supposed = (p, s)
        if len(R) + len(C) <= len(notR) + len(notC):
            lines = [hyp + "."] + self._suits_overflow(R, C, notR, notC, low, high)
        else:
            lines = [hyp + "."] + self._hands_overflow(notR, notC, R, C, low, high)
        verb = "at least" if bound == "min" else "at most"
        lines.append(f"So {say.p(p)} holds {verb} {value} of {say.s(s)}.")
        return lines, {"bound": bound, "players": [self._pname(q) for q in R], "suits": [say.s(x) for x in C]}

    def _cap(self, q: int, x: int, high: list[list[int]]) -> str:
        say = self.say
        cap = min(high[q][x], self.game.suit_size)
        why = "supposed" if (q, x) == self.supposed else self._high_reason(q, x)
        return f"{say.p(q)} at most {cap} of {say.s(x)} ({why})"

    def _floor(self, q: int, x: int, low: list[list[int]]) -> str:
        say = self.say
        if (q, x) == self.supposed:
            return f"{say.p(q)} at least {low[q][x]} of {say.s(x)} (supposed)"
        return self.direct_low(q, x)

    def _caps(self, cells: list[tuple[int, int]], high: list[list[int]]) -> tuple[int, list[str]]:
        size = self.game.suit_size
        most, said, full = 0, [], 0
        for q, x in cells:
            cap = min(high[q][x], size)
            most += cap
            if cap < size or (q, x) == self.supposed:
                said.append(self._cap(q, x, high))
            else:
                full += 1
        if full == 1:
            said.append(f"{'the other' if said else 'one'} cell at most {size} (a suit's size)")
        elif full:
            said.append(f"{'the other ' if said else ''}{full} cells at most {size} each (a suit's size)")
        return most, said

    def _floors(self, cells: list[tuple[int, int]], low: list[list[int]]) -> tuple[int, list[str]]:
        least, said = 0, []
        for q, x in cells:
            v = max(low[q][x], 0)
            least += v
            if v:
                said.append(self._floor(q, x, low))
        return least, said

    def _suits_overflow(self, R: list[int], C: list[int], notR: list[int], notC: list[int],
                        low: list[list[int]], high: list[list[int]]) -> list[str]:
        """The suits C would need more cards than they have."""
        say, t = self.say, self.tables
        hands = sum(t.hands[q] for q in R)
        in_c = sum(t.suit_sizes[x] for x in C)
        lines = []
        got = 0
        if R:
            hold = "holds" if len(R) == 1 else "hold"
            most, said = self._caps([(q, x) for q in R for x in notC], high)
            if notC and C:
                lines.append(f"- {say.ps(R)} {hold} {hands} card{'s' if hands != 1 else ''}; of {say.ss(notC)} at "
                             f"most {most} ({'; '.join(said)}). So at least {hands - most} of them "
                             f"{'is' if hands - most == 1 else 'are'} of {say.ss(C)}.")
            elif notC:
                lines.append(f"- {say.ps(R)} {hold} {hands} card{'s' if hands != 1 else ''} but can hold at most "
                             f"{most} ({'; '.join(said)}).")
                return lines
            else:
                lines.append(f"- {say.ps(R)} {hold} {hands} card{'s' if hands != 1 else ''}, all of them of "
                             f"{say.ss(C)}.")
            got = hands - most
        least, said = self._floors([(q, x) for q in notR for x in C], low)
        if notR:
            lines.append(f"- {say.ps(notR)} {'hold' if len(notR) > 1 else 'holds'} at least {least} of {say.ss(C)}"
                         + (" (" + "; ".join(said) + ")" if said else "") + ".")
        total = got + least
        lines.append(f"- That makes at least {total} card{'s' if total != 1 else ''} of {say.ss(C)}, but "
                     f"{'they have' if len(C) > 1 else 'it has'} only {in_c}.")
        return lines

    def _hands_overflow(self, R: list[int], C: list[int], notR: list[int], notC: list[int],
                        low: list[list[int]], high: list[list[int]]) -> list[str]:
        """The players R would need more cards than they hold (the same cut, from the players' side)."""
        say, t = self.say, self.tables
        hands = sum(t.hands[q] for q in R)
        in_c = sum(t.suit_sizes[x] for x in C)
        hold = "holds" if len(R) == 1 else "hold"
        lines = []
        least, said = self._floors([(q, x) for q in R for x in notC], low)
        got = least
        if notC:
            lines.append(f"- {say.ps(R)} {hold} at least {least} of {say.ss(notC)}"
                         + (" (" + "; ".join(said) + ")" if said else "") + ".")
        if C:
            if notR:
                most, caps = self._caps([(q, x) for q in notR for x in C], high)
                lines.append(f"- {say.ss(C)} {'have' if len(C) > 1 else 'has'} {in_c} cards; {say.ps(notR)} "
                             f"{'hold' if len(notR) > 1 else 'holds'} at most {most} of them ({'; '.join(caps)}). "
                             f"So {say.ps(R)} {hold} at least {in_c - most} of {say.ss(C)}.")
                got += in_c - most
            else:
                lines.append(f"- {say.ps(R)} {hold} all {in_c} cards of {say.ss(C)}.")
                got += in_c
        lines.append(f"- That makes at least {got} card{'s' if got != 1 else ''}, but {say.ps(R)} "
                     f"{hold} only {hands}.")
        return lines

    def _pname(self, q: int) -> str:
        s = self.game.setup
        return s.players[q]

    def _high_reason(self, q: int, x: int) -> str:
        origin = self.highs.get((q, x))
        if origin is None:
            return "nobody is dealt a whole suit" + self._since(q, x, self.game.states()[0])
        i, _ = origin
        return f"answered no in move {i}"

    def witness(self, p: int, s: int, value: int) -> str:
        """A consistent table in which cell (p, s) has ``value``, in words."""
        t = self.tables.bounded(p, s, low=value, high=value)
        b = self.game.engine.bounds(t)
        say = self.say
        rows = []
        for q in range(t.players):
            held = [f"{b.example[q][x]} {say.s(x)}" for x in range(t.suits) if b.example[q][x]]
            rows.append(f"{say.p(q)}: {', '.join(held) or 'nothing'}")
        return "; ".join(rows)


def explain_cell(game: GoFish, seat: int, suit: int) -> Explanation:
    """Why cell (``seat``, ``suit``) of ``game``'s current table (after an open question: the table after it)
    has its exact range; see the module's docstring."""
    if not 0 <= seat < game.players or not 0 <= suit < game.suits:
        raise GoFishError(f"no cell ({seat}, {suit}) in a game of {game.players} players and {game.suits} suits")
    ex = _Explainer(game)
    say, t, b = ex.say, ex.tables, ex.bounds
    lo, hi = b.low[seat][suit], b.high[seat][suit]
    e = Explanation(seat, suit, lo, hi)
    who, what = say.p(seat), say.s(suit)
    e.lines.append(_cap(f"{who} holds exactly {lo} of {what}." if lo == hi else f"{who} holds {lo} to {hi} of {what}."))
    # the minimum
    if lo == 0:
        e.lines.append(f"At least 0: a consistent table gives {who} none of {what}: {ex.witness(seat, suit, 0)}.")
    elif lo <= t.low[seat][suit]:
        e.lines.append(f"At least {lo}: {ex.direct_low(seat, suit)}.")
    else:
        e.lines.append(f"At least {lo} (the cell's own bound says at least {t.low[seat][suit]}):")
        lines, cut = ex.argument(seat, suit, "min", lo)
        e.lines.extend("  " + line for line in lines)
        e.cuts.append(cut)
    if lo != hi or lo == 0:
        e.lines.append(f"The minimum {lo} is reached: {ex.witness(seat, suit, lo)}." if lo else "")
    # the maximum
    direct = min(t.high[seat][suit], game.suit_size)
    if hi >= direct:
        e.lines.append(f"At most {hi}: {ex.direct_high(seat, suit)}.")
    else:
        e.lines.append(f"At most {hi} (the cell's own bound says at most {direct}):")
        lines, cut = ex.argument(seat, suit, "max", hi)
        e.lines.extend("  " + line for line in lines)
        e.cuts.append(cut)
    if lo != hi:
        e.lines.append(f"The maximum {hi} is reached: {ex.witness(seat, suit, hi)}.")
    e.lines = [line for line in e.lines if line]
    q = game.pending
    if q is not None and q.asked == seat and q.suit == suit and not game.over:
        answers = ["+" if yes else "-" for yes in game.legal_answers()]
        e.answers = answers
        asker = _cap(say.p(q.asker))
        if answers == ["+"]:
            e.lines.append(f"{asker} asked {who} for {what}: only yes can be answered, because {who} holds at "
                           f"least {lo} of {what} in every consistent table (above).")
        elif answers == ["-"]:
            e.lines.append(f"{asker} asked {who} for {what}: only no can be answered, because {who} holds none "
                           f"of {what} in every consistent table (above).")
        else:
            e.lines.append(f"{asker} asked {who} for {what}: yes and no can both be answered ({who} holds "
                           f"{lo} to {hi}).")
    return e


__all__ = ["Explanation", "explain_cell"]
