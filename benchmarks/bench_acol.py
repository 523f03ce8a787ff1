"""Cost per sample of the sequential CBAI learners (G-ACOL family), ask / tell vs compiled loop.

Usage::

    .venv/bin/python benchmarks/bench_acol.py                 # full table (a few minutes)
    .venv/bin/python benchmarks/bench_acol.py --quick         # smaller budgets

For every sequential method (theory and tuned width) and every size ``(n_arms, d)``, runs are repeated
on fresh ``acol/unit-sphere`` instances until ``budget`` samples have been spent (a run ends when the
learner stops or at the budget); the cost is the wall time of :func:`safebandits.run` divided by the
samples. Numba compilation is excluded by a warm-up run. The memory section compares the peak traced
memory (tracemalloc) and numba's net NRT allocations of compiled runs of 10^5 and 10^6 samples.

Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

os.environ.setdefault("NUMBA_NRT_STATS", "1")  # must precede the numba import

import numpy as np
from numba.core.runtime import rtsys

from safebandits.algorithms import make_learner
from safebandits.experiments.simulate import run
from safebandits.problems import make_instance

METHODS = ["g-acol", "greedy-maxvar", "adaptive-uniform", "g-acol-uniform", "maxrew-u", "maxrew-f"]
WIDTHS = ["theory", "tuned"]
SIZES = [(11, 10), (30, 30), (100, 30)]


def one_run(name, width, n, d, seed, budget, compiled):
    inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(seed), n_arms=n, d=d)
    learner = make_learner(name, inst.public_info(), np.random.default_rng(seed + 1), {"width": width})
    env = inst.environment(np.random.default_rng(seed + 2))
    t0 = time.perf_counter()
    out = run(learner, env, inst, budget=budget, compiled=compiled)
    return time.perf_counter() - t0, out.samples


def cost_per_sample(name, width, n, d, budget, compiled):
    one_run(name, width, n, d, 10**6, 50, compiled)  # warm-up (compilation, caches)
    wall, samples, runs, seed = 0.0, 0, 0, 0
    while samples < budget:
        w, s = one_run(name, width, n, d, seed, budget - samples, compiled)
        wall += w
        samples += s
        runs += 1
        seed += 3
    return 1e6 * wall / samples, samples / runs


def memory(name, width, n, d, budget):
    one_run(name, width, n, d, 10**6, 50, True)
    stats0 = rtsys.get_allocation_stats()
    tracemalloc.start()
    _, samples = one_run(name, width, n, d, 0, budget, True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    stats1 = rtsys.get_allocation_stats()
    net_nrt = (stats1.alloc - stats0.alloc) - (stats1.free - stats0.free)
    return peak, net_nrt, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--budget", type=int, default=200_000, help="samples per cell, compiled path")
    parser.add_argument("--python-budget", type=int, default=20_000, help="samples per cell, ask/tell path")
    parser.add_argument("--quick", action="store_true", help="budgets 20000 / 2000, no 10^6 memory run")
    args = parser.parse_args()
    budget, py_budget = (20_000, 2_000) if args.quick else (args.budget, args.python_budget)

    print(
        f"Cost per sample (us); unit-sphere instances; compiled budget {budget}, ask/tell budget {py_budget}"
    )
    header = f"{'method':<18}{'width':<8}" + "".join(
        f"{f'({n},{d}) ask/tell':>18}{'compiled':>10}{'samples/run':>13}" for n, d in SIZES
    )
    print(header)
    print("-" * len(header))
    for name in METHODS:
        for width in WIDTHS:
            row = f"{name:<18}{width:<8}"
            for n, d in SIZES:
                py, _ = cost_per_sample(name, width, n, d, py_budget, compiled=False)
                co, per_run = cost_per_sample(name, width, n, d, budget, compiled=True)
                row += f"{py:>18.2f}{co:>10.2f}{per_run:>13.0f}"
            print(row, flush=True)

    print()
    budgets = (10**5,) if args.quick else (10**5, 10**6)
    print("Memory of compiled runs at (30, 30): tracemalloc peak (KiB) and net numba NRT allocations")
    for name in ("g-acol", "adaptive-uniform", "maxrew-f"):
        for b in budgets:
            peak, net, samples = memory(name, "theory", 30, 30, b)
            print(
                f"  {name:<18} budget {b:>8}: samples {samples:>8}, peak {peak / 1024:8.1f} KiB, "
                f"net NRT {net}"
            )


if __name__ == "__main__":
    main()
