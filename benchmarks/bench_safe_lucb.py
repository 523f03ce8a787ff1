"""Cost per round of Safe-LUCB and GSLUCB (Amani et al. 2019), compiled ``simulate`` vs ask / tell.

Usage::

    .venv/bin/python benchmarks/bench_safe_lucb.py            # the table of the issue
    .venv/bin/python benchmarks/bench_safe_lucb.py --rounds 500000

Cases:

* K-armed play, d = 10, K = 50 (random arms in the unit ball, ``mu`` on the unit sphere, ``B = I``,
  ``c = 0.5``; ``T' = 1000`` exploration rounds then optimistic-pessimistic play; target <= 5 µs per round);
* GSLUCB on the same instance (its exploration rounds also compute the gap LCB);
* 2-D convex play on ``safelucb/2d-convex`` (unit disc): the radial optimistic step with 720 directions
  and golden-section refinement, and the ``"discretise"`` polar grid (720 x 32 points); ``T' = 1000``.

The cost is the wall time of :func:`safebandits.experiments.regret_loop.run_regret` (scoring included)
divided by the rounds, on one core; numba compilation is excluded by a warm-up run. The memory columns
are the peak traced memory (tracemalloc) of a compiled run at two horizons: it must not grow with T.

Not collected by pytest; no timing asserts anywhere.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from safebandits.algorithms import make_learner
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems import make_instance
from safebandits.problems.noise import make_noise
from safebandits.problems.safe_linear import DecisionSet, SafeLinearInstance


def karm_instance(horizon: int, d: int = 10, k: int = 50) -> SafeLinearInstance:
    rng = np.random.default_rng(0)
    arms = rng.standard_normal((k, d))
    arms *= (rng.uniform(0.2, 1.0, k) / np.linalg.norm(arms, axis=1))[:, None]
    mu = rng.standard_normal(d)
    return SafeLinearInstance(
        decision_set=DecisionSet("arms", arms=arms),
        mu=mu / np.linalg.norm(mu),
        b_mat=np.eye(d),
        threshold=0.5,
        noise=make_noise("gaussian", 0.1),
        horizon=horizon,
    )


CASES = [
    ("safe-lucb", "K-armed d=10 K=50", karm_instance, {"t_prime": 1000}),
    ("gslucb", "K-armed d=10 K=50", karm_instance, {}),
    (
        "safe-lucb",
        "2-D disc, radial",
        lambda T: make_instance("safelucb/2d-convex", T=T),
        {"t_prime": "t_delta"},
    ),
    (
        "safe-lucb",
        "2-D disc, discretise",
        lambda T: make_instance("safelucb/2d-convex", T=T),
        {"t_prime": 1000, "convex_solver": "discretise"},
    ),
]


def _run(alg, factory, cfg, rounds, compiled):
    inst = factory(rounds)
    learner = make_learner(alg, inst.public_info(), np.random.default_rng(1), cfg)
    env = inst.environment(np.random.default_rng(2))
    t0 = time.perf_counter()
    run_regret(learner, env, inst, compiled=compiled)
    return (time.perf_counter() - t0) / rounds * 1e6


def peak_memory(alg, factory, cfg, rounds):
    inst = factory(rounds)
    learner = make_learner(alg, inst.public_info(), np.random.default_rng(1), cfg)
    env = inst.environment(np.random.default_rng(2))
    tracemalloc.start()
    run_regret(learner, env, inst)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200_000, help="rounds of the K-armed cases")
    parser.add_argument("--convex-rounds", type=int, default=20_000, help="rounds of the 2-D convex cases")
    args = parser.parse_args()
    print("Cost per round [µs] (one core, scoring included); peak traced memory [KiB] at two horizons")
    print(f"{'method':<11}{'case':<24}{'simulate':>10}{'ask/tell':>10}{'mem T1':>10}{'mem T2':>10}  (T1, T2)")
    for alg, label, factory, cfg in CASES:
        convex = "2-D" in label
        n = args.convex_rounds if convex else args.rounds
        _run(alg, factory, cfg, 3000, True)  # warm-up (compilation)
        sim = _run(alg, factory, cfg, n, True)
        py = _run(alg, factory, cfg, n if convex else n // 10, False)
        horizons = (10_000, 50_000) if convex else (100_000, 1_000_000)
        m1, m2 = (peak_memory(alg, factory, cfg, h) for h in horizons)
        print(f"{alg:<11}{label:<24}{sim:>10.2f}{py:>10.2f}{m1:>10.0f}{m2:>10.0f}  {horizons}")


if __name__ == "__main__":
    main()
