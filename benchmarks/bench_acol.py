"""Cost per sample of the sequential CBAI learners (G-ACOL family), ask / tell vs compiled loop.

Usage::

    .venv/bin/python benchmarks/bench_acol.py                 # full table (a few minutes)
    .venv/bin/python benchmarks/bench_acol.py --quick         # smaller budgets
    .venv/bin/python benchmarks/bench_acol.py --numerics primal,gram --methods g-acol --sizes 11x10

For every sequential method (theory and tuned width), every ridge numerics asked for (``--numerics``;
default: the learner's default, ``"auto"``) and every size -- ``(n_arms, d)`` of fresh
``acol/unit-sphere`` instances, and ``51x50i``: ``acol/irrelevant-dimensions`` with ``d = 50``,
``epsilon = 0.05`` -- runs are repeated until ``budget`` samples have been spent (a run ends when the
learner stops or at the budget); the cost is the wall time of :func:`safebandits.run` divided by the
samples. Each cell also shows the numerics the learner resolved to (``p``: primal, ``g``: Gram,
``d``: diagonal). The compiled path uses certified skips by default (uniform and max-reward rules:
samples taken as a block when no arm can leave ``U``; the cost per sample is then the average over
skipped and single samples); ``--no-skip`` measures the sample-by-sample loop.
Numba compilation is excluded by a warm-up run. The memory section compares the peak traced
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
SIZES = ["11x10", "30x30", "100x30", "51x50i"]


def make(size, seed):
    """Instance of a size label: ``NxD`` (unit sphere) or ``51x50i`` (irrelevant dimensions, d = 50)."""
    if size.endswith("i"):
        d = int(size[:-1].split("x")[1])
        return make_instance("acol/irrelevant-dimensions", d=d, epsilon=0.05)
    n, d = (int(v) for v in size.split("x"))
    return make_instance("acol/unit-sphere", rng=np.random.default_rng(seed), n_arms=n, d=d)


SKIP = {"certified_skip": True}


def one_run(name, width, numerics, size, seed, budget, compiled):
    inst = make(size, seed)
    config = {"width": width, **SKIP}
    if numerics != "default":
        config["numerics"] = numerics
    learner = make_learner(name, inst.public_info(), np.random.default_rng(seed + 1), config)
    env = inst.environment(np.random.default_rng(seed + 2))
    t0 = time.perf_counter()
    out = run(learner, env, inst, budget=budget, compiled=compiled)
    return time.perf_counter() - t0, out.samples, getattr(learner, "numerics", "primal")


def cost_per_sample(name, width, numerics, size, budget, compiled):
    one_run(name, width, numerics, size, 10**6, 50, compiled)  # warm-up (compilation, caches)
    wall, samples, runs, seed, mode = 0.0, 0, 0, 0, ""
    while samples < budget:
        w, s, mode = one_run(name, width, numerics, size, seed, budget - samples, compiled)
        wall += w
        samples += s
        runs += 1
        seed += 3
    return 1e6 * wall / samples, samples / runs, mode


def memory(name, width, numerics, size, budget):
    one_run(name, width, numerics, size, 10**6, 50, True)
    stats0 = rtsys.get_allocation_stats()
    tracemalloc.start()
    _, samples, _ = one_run(name, width, numerics, size, 0, budget, True)
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
    parser.add_argument(
        "--numerics", default="default", help="comma-separated: auto, primal, gram (default: learner's)"
    )
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated method names")
    parser.add_argument("--widths", default=",".join(WIDTHS), help="comma-separated: theory, tuned")
    parser.add_argument("--sizes", default=",".join(SIZES), help="comma-separated: NxD, or 51x50i")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory section")
    parser.add_argument("--no-skip", action="store_true", help="compiled loop without certified skips")
    args = parser.parse_args()
    SKIP["certified_skip"] = not args.no_skip
    budget, py_budget = (20_000, 2_000) if args.quick else (args.budget, args.python_budget)
    numerics_list = args.numerics.split(",")
    sizes = args.sizes.split(",")

    skips = "off" if args.no_skip else "on"
    print(
        f"Cost per sample (us); compiled budget {budget} (certified skips {skips}), "
        f"ask/tell budget {py_budget}"
    )
    header = f"{'method':<18}{'width':<8}{'numerics':<10}" + "".join(
        f"{f'{size} ask/tell':>18}{'compiled':>10}{'samples/run':>13}{'mode':>5}" for size in sizes
    )
    print(header)
    print("-" * len(header))
    for name in args.methods.split(","):
        for width in args.widths.split(","):
            for numerics in numerics_list:
                row = f"{name:<18}{width:<8}{numerics:<10}"
                for size in sizes:
                    py, _, _ = cost_per_sample(name, width, numerics, size, py_budget, compiled=False)
                    co, per_run, mode = cost_per_sample(name, width, numerics, size, budget, compiled=True)
                    row += f"{py:>18.2f}{co:>10.2f}{per_run:>13.0f}{mode[0]:>5}"
                print(row, flush=True)
    if args.no_memory:
        return

    print()
    budgets = (10**5,) if args.quick else (10**5, 10**6)
    print("Memory of compiled runs at (30, 30): tracemalloc peak (KiB) and net numba NRT allocations")
    for name in ("g-acol", "adaptive-uniform", "maxrew-f"):
        for numerics in numerics_list:
            for b in budgets:
                peak, net, samples = memory(name, "theory", numerics, "30x30", b)
                print(
                    f"  {name:<18} {numerics:<8} budget {b:>8}: samples {samples:>8}, "
                    f"peak {peak / 1024:8.1f} KiB, net NRT {net}"
                )


if __name__ == "__main__":
    main()
