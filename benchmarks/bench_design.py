"""Wall time of :func:`safebandits.design.frank_wolfe_design` (G-optimal designs, targets = arms).

Usage::

    .venv/bin/python benchmarks/bench_design.py              # (n, d) = (30, 30), (100, 30), (100, 100)
    .venv/bin/python benchmarks/bench_design.py --extended   # plus transductive and unit-sphere cases

Arms are standard Gaussian (seed 0); the G-optimal value is d (Kiefer--Wolfowitz). Times are the median
and minimum over ``--repeats`` calls after a warm-up call (numba compilation excluded). The thread count
of the BLAS matters little: the hot loops are compiled kernels and ``r x r`` Cholesky inverses.

Reference numbers (2-core shared VM, tol=1e-3, "gap" rule, (100, 30), median wall time), measured
while developing the solver:

=====================================================================  ======  ===================
implementation                                                         steps   time
=====================================================================  ======  ===================
Frank--Wolfe on the log-sum-exp smoothing (first proposal)             5000    > 1 s, gap ~1e-2
primal--dual, numpy inner loop                                         ~1800   ~0.10 s
primal--dual, numba inner loop, scipy triangular-solve inverse        ~1800   ~0.04 s
primal--dual, numba inner loop and numba Cholesky inverse             ~800    ~0.01 s
final (kappa = 2, clipped dual steps, singular-optimum safeguards)     ~900    ~0.02 s
=====================================================================  ======  ===================

Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from safebandits.design import frank_wolfe_design

SIZES = [(30, 30), (100, 30), (100, 100)]


def cases(extended: bool) -> list[tuple[str, np.ndarray, np.ndarray | None]]:
    rng = np.random.default_rng(0)
    out: list[tuple[str, np.ndarray, np.ndarray | None]] = []
    for n, d in SIZES:
        out.append((f"G-opt ({n}, {d})", rng.standard_normal((n, d)), None))
    if extended:
        x = rng.standard_normal((100, 30))
        out.append(("transductive (100, 30), 100 targets", x, rng.standard_normal((100, 30))))
        x = rng.standard_normal((40, 8))
        i, j = np.triu_indices(40, 1)
        out.append(("differences (40, 8), 780 targets", x, x[i] - x[j]))
        for n, d in [(500, 20), (1000, 30)]:
            s = rng.standard_normal((n, d))
            out.append((f"unit sphere ({n}, {d})", s / np.linalg.norm(s, axis=1, keepdims=True), None))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extended", action="store_true", help="add transductive and unit-sphere cases")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tol", type=float, default=1e-3)
    args = parser.parse_args()

    frank_wolfe_design(np.eye(2))  # warm-up: numba compilation / cache load
    frank_wolfe_design(np.eye(2), stop="relative-change")
    columns = ("steps", "value", "gap/value", "median ms", "min ms")
    widths = (6, 10, 9, 9, 8)
    header = f"{'case':<38} {'stop':<16} " + " ".join(f"{c:>{w}}" for c, w in zip(columns, widths))
    print(header)
    print("-" * len(header))
    for label, arms, targets in cases(args.extended):
        for stop in ("gap", "relative-change"):
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                res = frank_wolfe_design(arms, targets, tol=args.tol, stop=stop)
                times.append(time.perf_counter() - t0)
            rel = res.gap / res.value if stop == "gap" else float("nan")
            print(
                f"{label:<38} {stop:<16} {res.n_iter:>6} {res.value:>10.4f} {rel:>9.1e} "
                f"{1e3 * np.median(times):>9.2f} {1e3 * min(times):>8.2f}"
            )


if __name__ == "__main__":
    main()
