"""Start-up latency of the command, side by side with a bare Python process.

Not a test. Run from the project root::

    python benchmarks/startup.py            # 15 runs of each command, interleaved
    python benchmarks/startup.py --runs 30
    python benchmarks/startup.py --baseline   # also the commit of benchmarks/baseline_solve.json

Every command runs as a fresh process (``python -m cli ...``, the same code as
the installed ``quaternity`` script), interleaved with ``python -c pass`` so
that the load of a shared machine hits both alike; the table gives medians and
the ratio to ``python -c pass``. The goal of issue 12: ``check`` of a small
record within 8x ``python -c pass``. Modules run from compiled bytecode, as
from an installed package (pip compiles it at install): one untimed round
writes it to a temporary cache first; ``--no-bytecode`` times the case where
every start compiles every module from source.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COMMANDS = [
    ("python -c pass", [sys.executable, "-c", "pass"]),
    ("import quaternity_cp", [sys.executable, "-c", "import quaternity_cp"]),
    ("quaternity --help", [sys.executable, "-m", "cli", "--help"]),
    ("quaternity check examples/quaternity.json", [sys.executable, "-m", "cli", "check", "examples/quaternity.json"]),
    ("quaternity check examples/full-game-4p-8x4.json", [sys.executable, "-m", "cli", "check",
                                                         "examples/full-game-4p-8x4.json"]),
    ("quaternity analyze examples/position.json", [sys.executable, "-m", "cli", "analyze", "examples/position.json"]),
    ("quaternity check examples/quaternity.json --engine cpsat",
     [sys.executable, "-m", "cli", "check", "examples/quaternity.json", "--engine", "cpsat"]),
    ("python -c 'import ortools.sat.python.cp_model'", [sys.executable, "-c", "import ortools.sat.python.cp_model"]),
]


def baseline_checkout() -> tuple[str, str] | None:
    """The code of the commit named in benchmarks/baseline_solve.json, extracted to a temporary directory."""
    from baseline import extract_baseline

    return extract_baseline()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-bytecode", action="store_true",
                    help="compile every module at every start (PYTHONDONTWRITEBYTECODE as set in the environment)")
    ap.add_argument("--baseline", action="store_true",
                    help="also time `check` with the code of the commit in benchmarks/baseline_solve.json")
    args = ap.parse_args()
    commands = [(name, cmd, ROOT) for name, cmd in COMMANDS]
    if args.baseline:
        checkout = baseline_checkout()
        if checkout is not None:
            commands.insert(4, (f"quaternity check examples/quaternity.json (commit {checkout[1][:7]})",
                                [sys.executable, "-m", "cli", "check", "examples/quaternity.json"], checkout[0]))
    env = dict(os.environ)
    if not args.no_bytecode:
        # as an installed package runs: pip compiles the bytecode at install time. Here it is written
        # to a temporary cache (not into the tree) by one untimed round first.
        import tempfile
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="quaternity-pycache-")
        for name, cmd, cwd in commands:
            subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times: dict[str, list[float]] = {name: [] for name, _, _ in commands}
    for _ in range(args.runs):
        for name, cmd, cwd in commands:
            start = time.perf_counter()
            subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["python -c pass"])
    print(f"median of {args.runs} runs each, interleaved"
          + (", every module compiled at every start" if args.no_bytecode else ", from bytecode"))
    print("| command | median ms | x python -c pass |")
    print("|---|---:|---:|")
    for name, _, _ in commands:
        t = statistics.median(times[name])
        print(f"| `{name}` | {t * 1000:.0f} | {t / base:.1f}x |")


if __name__ == "__main__":
    main()
