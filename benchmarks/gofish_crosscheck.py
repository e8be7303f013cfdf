"""Cross-check a solved Quantum Go Fish start of the partitioned solver against the Python solver.

For a checkpoint folder written by ``quaternity gofish starts --checkpoint`` (its graph kept: no
``--drop-graph``), this runs the attractor again over the stored graph and re-solves random positions of
it with the Python solver (``quaternity_cp.gofish.solver``: flow bounds, players not rotated), each from
that position within ``--max-positions``, comparing every seat's verdict and plies. Positions whose
remaining graph passes the limit are skipped (they are early positions; the sample is uniform over the
graph, so most compared ones are mid- and late-game)::

    python benchmarks/gofish_crosscheck.py gofish4/p4-s4-default --samples 200

prints how many positions were compared, skipped and disagreed, and how many seat verdicts were wins.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a start's checkpoint folder (with manifest.json and its parts)")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-positions", type=int, default=5000)
    parser.add_argument("--by-layer", action="store_true",
                        help="draw a layer first, then a position of it (late positions as often as early ones)")
    args = parser.parse_args()

    from quaternity_cp.gofish import bigsolve
    from quaternity_cp.gofish.fastgraph import Shape

    try:
        with open(os.path.join(args.folder, "manifest.json"), encoding="utf-8") as f:
            head = json.load(f)
    except (OSError, ValueError) as err:
        sys.exit(f"{args.folder}: no readable manifest.json ({err})")
    if not head.get("complete") or not os.path.isdir(os.path.join(args.folder, "part000")):
        sys.exit(f"{args.folder}: not a complete graph with its files (still building, or --drop-graph?)")
    shape = Shape.of(head["players"], head["suits"], head["suit_size"], head["rules"])
    built = bigsolve.build(shape, args.folder, parts=head["parts"])  # (complete: read, not built again)
    began = time.perf_counter()
    att = bigsolve.attract(built)
    print(f"{built.positions:,} positions; attractor {time.perf_counter() - began:.0f} s; seats: "
          f"{ {s: e['wins'] for s, e in att.seats.items()} }")
    began = time.perf_counter()
    got = bigsolve.crosscheck(built, att.ranks, samples=args.samples, seed=args.seed,
                              max_positions=args.max_positions, by_layer=args.by_layer)
    print(f"cross-check ({time.perf_counter() - began:.0f} s): {got}")
    sys.exit(1 if got["disagreements"] else 0)


if __name__ == "__main__":
    main()
