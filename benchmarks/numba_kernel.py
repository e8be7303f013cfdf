"""Would a compiled core pay? The sets engine's kernel in Python integers against numba.

Not a test, and numba is not a dependency: run it in an environment with numba
(``pip install numba``)::

    python benchmarks/numba_kernel.py

The set-signature engine's numeric work is a Minkowski sum of count vectors kept
as bit sets: ``new |= acc << code`` for every vector of a set, then a mask. In
Python the bit set is one integer and every shift or OR is one C loop over its
machine words. The numba version is the direct compiled loop over a byte per
bit (the form a compiled core would take without hand-written word packing).
The script prints the time of one sum for bit sets of the sizes the solver
meets (81 bits: 3 players with 4 cards each; 729: 4 players with 4 cards) and
beyond, the ratio, and numba's compile time on the first call. Run in the same
process, one after the other.
"""

from __future__ import annotations

import random
import sys
import time

try:
    import numpy as np
    from numba import njit
except ImportError:  # pragma: no cover - a benchmark of an optional library
    sys.exit("this benchmark needs numba (pip install numba); it is not a dependency of quaternity-cp")


@njit
def minkowski(acc, codes, valid):
    out = np.zeros_like(acc)
    n = acc.shape[0]
    for c in codes:
        for i in range(n - c):
            if acc[i]:
                out[i + c] = 1
    return out & valid


def py_minkowski(acc: int, codes: list[int], valid: int) -> int:
    new = 0
    for c in codes:
        new |= acc << c
    return new & valid


def main() -> None:
    print("| bits | Python integers (us) | numba (us) | numba / Python | first numba call (s) |")
    print("|---:|---:|---:|---:|---:|")
    for bits in (81, 729, 6561, 59049):
        rng = random.Random(1)
        acc_i = rng.getrandbits(bits)
        valid_i = (1 << bits) - 1
        codes = sorted(rng.sample(range(bits // 4), 10))
        acc_a = np.array([(acc_i >> i) & 1 for i in range(bits)], dtype=np.uint8)
        valid_a = np.ones(bits, dtype=np.uint8)
        codes_a = np.array(codes, dtype=np.int64)
        t = time.perf_counter()
        got = minkowski(acc_a, codes_a, valid_a)
        first = time.perf_counter() - t
        assert sum(int(b) << i for i, b in enumerate(got)) == py_minkowski(acc_i, codes, valid_i)
        n = 20_000 if bits < 10_000 else 2_000
        t = time.perf_counter()
        for _ in range(n):
            py_minkowski(acc_i, codes, valid_i)
        py = (time.perf_counter() - t) / n
        t = time.perf_counter()
        for _ in range(n):
            minkowski(acc_a, codes_a, valid_a)
        nb = (time.perf_counter() - t) / n
        print(f"| {bits:,} | {py * 1e6:.2f} | {nb * 1e6:.2f} | {nb / py:.1f}x | {first:.2f} |", flush=True)


if __name__ == "__main__":
    main()
