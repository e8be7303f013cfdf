"""Whole-process time of ``quaternity check`` on every game's bundled examples, against ``python -c pass``.

Not a test. Run from the project root::

    python benchmarks/cli_startup.py              # 15 rounds, every example
    python benchmarks/cli_startup.py --runs 30
    python benchmarks/cli_startup.py --only gofish

Each round runs ``python -c pass`` and then ``quaternity check FILE`` of each example (``python -m
quaternity_cli``, the same code as the installed ``quaternity`` script), each as a fresh process, so that the
load of a shared machine hits them alike; the table gives the median wall time of each, its ratio to the
median of ``python -c pass`` and the median of its ratios round by round (both measured in this run), and
how many modules the command imports: the project's (``quaternity_cp``, ``quaternity_cli``) and all of them
(``sys.modules`` as the command exits; ``python -c pass`` counts its own). The goal of issue 40: ``check`` of each game's example within 4x ``python
-c pass``, importing only the record's game. Modules run from compiled bytecode, as from an installed
package (pip compiles it at install): one untimed round writes it to a temporary cache first, not into the
tree; ``--no-bytecode`` times the case where every start compiles every module from source.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 4.0  # issue 40: at most 4x python -c pass


def examples(only: str | None) -> list[Path]:
    """Every game's bundled examples: examples/quaternity.json, examples/gofish/*, examples/quarto/*."""
    found = [ROOT / "examples" / "quaternity.json"]
    for game in ("gofish", "quarto"):
        found += sorted((ROOT / "examples" / game).glob("*.json"))
    return [p for p in found if only is None or only in str(p.relative_to(ROOT))]


ENV = dict(os.environ)


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


#: Runs a command's arguments as ``python -m quaternity_cli`` does, then prints the modules loaded as it exits
#: (``sys.modules``: what the whole run imported, however it exits).
PROBE = ("import atexit, json, runpy, sys\n"
         "atexit.register(lambda: print('MODULES ' + json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
         "sys.argv = ['quaternity', *sys.argv[1:]]\n"
         "runpy.run_module('quaternity_cli', run_name='__main__', alter_sys=True)\n")


def imported(command: list[str]) -> tuple[int, int, list[str]]:
    """(project modules, all modules, the project's names) that ``command`` imports (``python -c pass``:
    ``command`` without arguments after ``-c``)."""
    import json

    args = command[3:] if command[1:3] == ["-m", "quaternity_cli"] else None
    script = PROBE if args is not None else "import atexit, json, sys\n" + PROBE.splitlines()[1] + "\n"
    done = subprocess.run([command[0], "-c", script, *(args or [])], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, check=False)
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    names = json.loads(line.removeprefix("MODULES "))
    project = [n for n in names if n.split(".")[0] in ("quaternity_cp", "quaternity_cli")]
    return len(project), len(names), project


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15, help="timed rounds (default 15)")
    ap.add_argument("--only", default=None, help="only the examples whose path contains this text")
    ap.add_argument("--modules", action="store_true", help="also list the project's modules of each command")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="compile every module at every start (PYTHONDONTWRITEBYTECODE as set in the environment)")
    args = ap.parse_args()
    if not args.no_bytecode:
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        ENV["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="quaternity-pycache-")
    files = examples(args.only)
    baseline = [sys.executable, "-c", "pass"]
    commands = {str(p.relative_to(ROOT)): [sys.executable, "-m", "quaternity_cli", "check", str(p.relative_to(ROOT))]
                for p in files}
    env_note = "every module compiled at every start" if args.no_bytecode else "from bytecode"
    for command in [baseline, *commands.values()]:  # untimed: writes the bytecode, warms the disk cache
        wall(command)
    times: dict[str, list[float]] = {name: [] for name in ["python -c pass", *commands]}
    ratios: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        base = wall(baseline)
        times["python -c pass"].append(base)
        for name, command in commands.items():
            t = wall(command)
            times[name].append(t)
            ratios[name].append(t / base)
    base_median = statistics.median(times["python -c pass"])
    print(f"quaternity check of each example, {args.runs} rounds, interleaved with python -c pass ({env_note}); "
          f"goal: at most {GOAL:g}x")
    print(f"{'command':<44} {'median s':>9} {'ratio':>6} {'per round':>9} {'project':>8} {'modules':>8}")
    print(f"{'python -c pass':<44} {base_median:9.3f} {1:6.2f} {1:9.2f} {0:8d} {imported(baseline)[1]:8d}")
    worst = 0.0
    for name, command in commands.items():
        median = statistics.median(times[name])
        ratio = median / base_median
        worst = max(worst, ratio)
        project, total, names = imported(command)
        print(f"{'check ' + name:<44} {median:9.3f} {ratio:6.2f} {statistics.median(ratios[name]):9.2f} "
              f"{project:8d} {total:8d}")
        if args.modules:
            print("    " + " ".join(names))
    print(f"worst ratio {worst:.2f}x: {'within' if worst <= GOAL else 'beyond'} the goal of {GOAL:g}x")


if __name__ == "__main__":
    main()
