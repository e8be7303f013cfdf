"""A graph's size from its first layers, by the shape of a graph built whole: ``python benchmarks/layer_model.py
--layers 1,3,6,45,...``, or ``--sample P N S --preset PRESET`` to count the first layers here.

The partitioned solver builds a graph by layers; a start too large to build shows only its first ones. This
script carries the measured layers on with the ratios of a reference graph built whole (by default 4x4x3 under
quaternity: 281,287,990 positions in 45 layers, docs/solver.md), from the first of its ratios below four-fold,
after ``--delay`` more layers at the last measured ratio, and prints the total, the peak and the layers. It is a
model, not a measurement: docs/solver.md says where it is used and what it assumes.

``--sample P N S`` counts the first layers itself, for starts the packed solver does not take (more than 8 players,
or a position wider than its 512 bits): breadth first with the in-memory solver (:class:`~quaternity_cp.quartets.
solver.core.Context`, its canonical keys: sets relabelled and equal cards merged, seats *not* rotated, so a layer
holds up to P times the packed solver's positions), finished games not counted, as the packed solver keeps none.
It stops before a layer would pass ``--max-positions`` new positions or once ``--max-seconds`` have passed
(checked at every position), and models from the layers it finished. ``--sample-gofish PLAYERS SUIT_SIZE`` does the
same for Quantum Go Fish's start (its default rules, as many suits as players), with its in-memory solver's keys.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

#: 4x4x3 under quaternity, the whole graph: positions new in each layer (the manifest's sizes summed)
REFERENCE = [1, 3, 6, 42, 100, 540, 2436, 11337, 48859, 225774, 824390, 2382461, 5095217, 8748598, 13160236,
             18125698, 22645497, 26253639, 27846489, 27757329, 26269811, 23652179, 20347363, 16694057, 13019792,
             9667721, 6822671, 4590247, 2940070, 1807976, 1066505, 602718, 330900, 176253, 89268, 44364, 21138,
             9627, 4227, 1545, 642, 186, 57, 21]


def slowing(reference: list[int], below: float = 4.0) -> list[float]:
    """The reference's layer-to-layer ratios from the first one below ``below`` (past its first layers)."""
    ratios = [b / a for a, b in zip(reference, reference[1:])]
    first = next(i for i, r in enumerate(ratios) if i > 5 and r < below)
    return ratios[first:]


def carry_on(layers: list[int], delay: int = 0, reference: list[int] = REFERENCE) -> tuple[float, float, int]:
    """(total, peak, layers) of ``layers`` carried on: ``delay`` layers at the last ratio, then the reference's
    slowing, until a layer holds less than one position."""
    if len(layers) < 2 or layers[-2] <= 0:
        raise ValueError("give at least two layers, the one before the last not empty")
    out = [float(x) for x in layers]
    for r in [layers[-1] / layers[-2]] * delay + slowing(reference):
        out.append(out[-1] * r)
        if out[-1] < 1:
            out.pop()
            break
    return sum(out), max(out), len(out)


def sample(players: int, sets: int, set_size: int, preset: str, max_positions: int, max_seconds: float,
           log: Callable[[str], None] | None = None) -> list[int]:
    """The positions new in each of the first layers of a start (see the module docstring): every layer that
    was finished within ``max_positions`` (all layers together) and ``max_seconds``."""
    from quaternity_cp.quartets.game import Game
    from quaternity_cp.quartets.position import Position
    from quaternity_cp.quartets.rules import Rules
    from quaternity_cp.quartets.solver.core import Context

    rules = Rules.preset(preset)
    ctx = Context(Game(players, sets, set_size), rules, "sets")
    root = ctx.search_root(ctx.describe(Position(ctx.game, rules, engine=ctx.engine).state))
    seen = {root.key}
    frontier = [root]
    layers = [1]
    start = time.monotonic()
    while frontier:
        nxt = []
        for node in frontier:
            if time.monotonic() - start > max_seconds:
                return layers
            for move in ctx.moves(node):
                child = ctx.child(node, move)
                if child.over or child.key in seen:
                    continue
                if len(seen) >= max_positions:
                    return layers
                seen.add(child.key)
                nxt.append(ctx.park(child))
        if not nxt:
            break
        layers.append(len(nxt))
        frontier = nxt
        if log is not None:
            log(f"layer {len(layers) - 1}: {len(nxt):,} new, {len(seen):,} in all, "
                f"{time.monotonic() - start:.0f} s")
    return layers


def sample_gofish(players: int, suit_size: int, max_positions: int, max_seconds: float,
                  log: Callable[[str], None] | None = None) -> list[int]:
    """:func:`sample` for Quantum Go Fish's start under its default rules (``players`` players, as many suits of
    ``suit_size`` cards, as ``gofish starts`` has them): the in-memory solver's keys (suits relabelled, seats
    *not* rotated: a layer holds up to ``players`` times the packed graph's positions), finished games not
    counted."""
    from dataclasses import replace

    from quaternity_cp.gofish.game import GoFish, History
    from quaternity_cp.gofish.solver import _canonical, _scratch

    game = _scratch(GoFish(players, players, suit_size, None))
    root = game.state
    seen = {_canonical(game, root)[0]}
    frontier = [root]
    layers = [1]
    start = time.monotonic()
    while frontier:
        nxt = []
        for st in frontier:
            if time.monotonic() - start > max_seconds:
                return layers
            for _move, child in game.successors(st):
                if child.outcome is not None:
                    continue
                key = _canonical(game, child)[0]
                if key in seen:
                    continue
                if len(seen) >= max_positions:
                    return layers
                seen.add(key)
                nxt.append(replace(child, moves=History()))
            st.cache.clear()
        if not nxt:
            break
        layers.append(len(nxt))
        frontier = nxt
        if log is not None:
            log(f"layer {len(layers) - 1}: {len(nxt):,} new, {len(seen):,} in all, "
                f"{time.monotonic() - start:.0f} s")
    return layers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", help="positions new in each layer, comma-separated")
    parser.add_argument("--sample", nargs=3, type=int, metavar=("P", "N", "S"),
                        help="count the start's first layers with the in-memory solver")
    parser.add_argument("--sample-gofish", nargs=2, type=int, metavar=("PLAYERS", "SUIT_SIZE"),
                        help="count Quantum Go Fish's start's first layers with its in-memory solver")
    parser.add_argument("--preset", default="quaternity", help="with --sample: the rule preset")
    parser.add_argument("--max-positions", type=int, default=2_000_000, help="with --sample")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="with --sample")
    parser.add_argument("--delay", type=int, default=0, help="layers at the last ratio before the slowing")
    args = parser.parse_args()
    if sum(x is not None for x in (args.layers, args.sample, args.sample_gofish)) != 1:
        parser.error("give one of --layers, --sample and --sample-gofish")
    if args.sample is not None:
        P, N, S = args.sample
        layers = sample(P, N, S, args.preset, args.max_positions, args.max_seconds, log=print)
        print("layers: " + ",".join(str(x) for x in layers))
    elif args.sample_gofish is not None:
        players, suit_size = args.sample_gofish
        layers = sample_gofish(players, suit_size, args.max_positions, args.max_seconds, log=print)
        print("layers: " + ",".join(str(x) for x in layers))
    else:
        layers = [int(x) for x in args.layers.split(",")]
    for delay in sorted({0, args.delay}):
        total, peak, n = carry_on(layers, delay)
        print(f"after {delay} more layer(s) at {layers[-1] / layers[-2]:.2f}-fold: {total:.2e} positions, "
              f"the largest layer {peak:.2e}, {n} layers")


if __name__ == "__main__":
    main()
