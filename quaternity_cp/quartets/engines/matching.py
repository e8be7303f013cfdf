"""The bipartite-matching pre-filter of the first Quaternity README.

Left side: hand slots. Each seat p has ``hands[p]`` slots; ``lo[p][s]`` of them
are reserved for set s (they may only take cards of s), the rest are free.
Right side: the cards in play. A slot may take a card the seat may hold. A
complete matching is necessary for a consistent deal; it ignores the upper
bounds, so it is a pre-filter, not a decision procedure.
"""

from __future__ import annotations

from ..constraints import Constraints


def matching_feasible(constraints: Constraints) -> bool:
    """False when no complete matching exists (then no consistent deal exists)."""
    c = constraints
    live = c.sets_in_play
    cards = c.cards_in_play
    if sum(c.hands) != len(cards) or any(h < 0 for h in c.hands):
        return False
    # slots: (seat, set or -1 for free)
    slots: list[tuple[int, int]] = []
    for p in range(c.players):
        reserved = 0
        for s in live:
            lo = c.lo[p][s]
            if lo > c.hi[p][s]:
                return False
            slots.extend((p, s) for _ in range(lo))
            reserved += lo
        if reserved > c.hands[p]:
            return False
        slots.extend((p, -1) for _ in range(c.hands[p] - reserved))
    S = c.set_size
    # adjacency slot -> cards
    adj = []
    for p, s in slots:
        bit = 1 << p
        if s >= 0:
            adj.append([x for x in range(s * S, (s + 1) * S) if c.domains[x] & bit])
        else:
            adj.append([x for x in cards if c.domains[x] & bit])
    match_card: dict[int, int] = {}

    def augment(root: int) -> bool:
        # iterative DFS for an augmenting path from slot ``root``
        seen = set()
        stack = [(root, iter(adj[root]))]
        parent_card: list[int] = []
        while stack:
            slot, it = stack[-1]
            advanced = False
            for card in it:
                if card in seen:
                    continue
                seen.add(card)
                owner = match_card.get(card)
                if owner is None:
                    # flip the path
                    parent_card.append(card)
                    for (sl, _), cd in zip(stack, parent_card):
                        match_card[cd] = sl
                    return True
                parent_card.append(card)
                stack.append((owner, iter(adj[owner])))
                advanced = True
                break
            if not advanced:
                stack.pop()
                if parent_card:
                    parent_card.pop()
        return False

    for slot in range(len(slots)):
        if not augment(slot):
            return False
    return True
