"""Benchmark of the safe transductive BAI family (Camilleri et al. 2022): experiments and design solves.

Usage::

    .venv/bin/python benchmarks/bench_beside.py            # quick-scale experiments + design table
    .venv/bin/python benchmarks/bench_beside.py --paper    # also the paper scale (minutes)

Table 1: wall time of ``beside-mab``, ``beside-linear`` and ``beside-hard`` run through the CLI with
``--workers`` processes. Table 2: median wall time of one design solve as |Z| and d grow (random Gaussian
X with |X| = 50 and Z; the weighted XY_safe design of BESIDE's line 6, the pivot XY_diff design of the
difference phase and RAGE's all-pairs design), and the multi-armed closed forms at K = 100. Timings are
not asserted anywhere (style.md). Not collected by pytest.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from safebandits.algorithms.pure_exploration._transductive import solve_design

EXPERIMENTS = ("beside-mab", "beside-linear", "beside-hard")


def experiment_times(scales: list[str], workers: int) -> None:
    print(f"\nBESIDE experiments ({workers} workers)")
    print(f"{'experiment':<16}{'scale':<8}{'wall [s]':>10}")
    for name in EXPERIMENTS:
        for scale in scales:
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                cmd = [sys.executable, "-m", "safebandits.cli", "run", name, "--scale", scale, "--out", tmp]
                subprocess.run([*cmd, "--workers", str(workers), "--quiet"], check=True)
                print(f"{name:<16}{scale:<8}{time.perf_counter() - t0:>10.1f}", flush=True)


def _time(fn, repeats: int) -> float:
    fn()  # warm-up (numba compilation)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def design_table(repeats: int) -> None:
    rng = np.random.default_rng(0)
    print("\nDesign solve (median wall time, ms; |X| = 50, fw_tol = 1e-2)")
    print(f"{'|Z|':>6}{'d':>5}{'XY_safe weighted':>18}{'XY_diff pivot':>15}{'RAGE all pairs':>16}")
    for nz, d in [(10, 5), (50, 5), (100, 5), (50, 10), (100, 20), (200, 20)]:
        x = rng.standard_normal((50, d))
        z = rng.standard_normal((nz, d))
        w = rng.uniform(0.5, 5.0, nz)
        i, j = np.triu_indices(nz, 1)
        cases = [((x, z, w), repeats), ((x, z[1:] - z[0], w[1:]), repeats), ((x, z[i] - z[j]), 1)]
        cols = [_time(lambda a=args: solve_design(*a), r) for args, r in cases]
        print(f"{nz:>6}{d:>5}" + "".join(f"{1e3 * t:>{k}.1f}" for t, k in zip(cols, (18, 15, 16))))
    k = 100
    e = np.eye(k)
    w = rng.uniform(0.5, 5.0, k)
    i, j = np.triu_indices(k, 1)
    print(
        f"multi-armed K = {k} (closed forms): safe "
        f"{1e3 * _time(lambda: solve_design(e, e, w), repeats):.2f} ms, pivot "
        f"{1e3 * _time(lambda: solve_design(e, e[1:] - e[0], w[1:]), repeats):.2f} ms, all pairs "
        f"{1e3 * _time(lambda: solve_design(e, e[i] - e[j]), repeats):.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper", action="store_true", help="also time the paper scale")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-experiments", action="store_true")
    args = parser.parse_args()
    if not args.skip_experiments:
        experiment_times(["quick", "paper"] if args.paper else ["quick"], args.workers)
    design_table(args.repeats)


if __name__ == "__main__":
    main()
