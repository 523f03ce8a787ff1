"""Driving simulator (Lindner et al. 2022, Sec. 4.3): feature throughput and candidate generation time.

Usage::

    .venv/bin/python benchmarks/bench_driving.py            # 1000 candidates (about 30 s on 1 core)
    .venv/bin/python benchmarks/bench_driving.py --quick    # 100 candidates

Prints (1) feature-evaluation throughput in policies per second for batches of 1, 100, 10^4 and 10^5
random policies (vectorised rollout + Table C.1 features, one scenario), and (2) the wall time of
generating a candidate set with the authors' recipe (random environment, perturbed parameters, CEM
50 x 50 x 5), without the disk cache, of one constrained CEM with 10 restarts (the authors' solver,
acol-robustness' reference) and of one solve of the library's warm-polish constrained solver (its
extra row).

Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from safebandits.papers.acol.simulator import get_scenario, policy_features
from safebandits.papers.acol.simulator.candidates import generate_candidates
from safebandits.papers.acol.simulator.cem import cem
from safebandits.papers.acol.simulator.constrained import constrained_optimum


def throughput(batch: int, repeats: int) -> float:
    rng = np.random.default_rng(0)
    pols = rng.uniform(-1.0, 1.0, (batch, 20, 2))
    sc = get_scenario("base")
    policy_features(pols, sc)  # warm-up
    t0 = time.perf_counter()
    for _ in range(repeats):
        policy_features(pols, sc, check=False)
    return batch * repeats / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="generate 100 candidates instead of 1000")
    args = parser.parse_args()
    print("feature evaluation (base scenario)")
    print(f"{'batch':>8} {'policies/s':>12}")
    for batch, repeats in ((1, 2000), (100, 200), (10_000, 5), (100_000, 1)):
        print(f"{batch:>8} {throughput(batch, repeats):>12,.0f}")
    n = 100 if args.quick else 1000
    t0 = time.perf_counter()
    generate_candidates(n, seed=0)
    gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    cem(get_scenario("base"), np.random.default_rng(0), n_restarts=10)
    one = time.perf_counter() - t0
    t0 = time.perf_counter()
    constrained_optimum(get_scenario("base"), np.random.default_rng(0))
    polish = time.perf_counter() - t0
    print(f"\ncandidate generation: {n} policies in {gen:.1f} s ({n / gen:.1f} policies/s)")
    print(f"constrained CEM, base scenario, 10 restarts: {one:.2f} s")
    print(f"warm-polish constrained reference, base scenario: {polish:.2f} s")


if __name__ == "__main__":
    main()
