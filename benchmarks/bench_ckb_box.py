"""What a round of CKB costs on a continuous domain (a box), as the rounds accumulate (issue 33).

Usage::

    .venv/bin/python benchmarks/bench_ckb_box.py                       # d = 2, t up to 1,000
    .venv/bin/python benchmarks/bench_ckb_box.py --dims 1 2 5 --rounds 500

On a box the posterior is conditioned on the ``t`` points observed so far (no finite domain), so a round
costs ``O(m t^2)`` for the ``m`` random candidates (``box_candidates``, default 256) plus ``O(t^2)`` per
L-BFGS-B evaluation, and the posterior keeps a ``t x t`` Cholesky factor (memory ``O(T^2)``): box runs
are for horizons of a few thousand rounds. The problem: the box ``[0, 1]^d``, SE kernel with lengthscale
0.3, ``f`` and ``g`` sums of 8 kernel bumps (random centres and weights, seed 0), Gaussian noise 0.05.
Printed per dimension: the median process CPU time of a CKB-UCB round (ask and tell) over windows of
rounds, the L-BFGS-B evaluations per round, and the mean gain of the local search over the best
random candidate. One BLAS thread. No target: the paper states no cost for continuous domains (its
footnote 4 only names the method), so the table documents the cost.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import time

import numpy as np

from safebandits.algorithms import make_learner
from safebandits.estimators.gp import PointKernel
from safebandits.problems.kernel import GaussianFeedback
from safebandits.problems.kernel_box import Box, BoxKernelInstance, RKHSFunction


def instance(d: int, horizon: int) -> BoxKernelInstance:
    box = Box(np.zeros(d), np.ones(d))
    kern = PointKernel(box.centre[None, :], "se", lengthscale=0.3)
    rng = np.random.default_rng(0)
    f = RKHSFunction(rng.random((8, d)), rng.normal(size=8) * 0.5, kern)
    g = RKHSFunction(rng.random((8, d)), rng.normal(size=8) * 0.5, kern, offset=-0.2)
    return BoxKernelInstance(
        reward=f, constraint=g, box=box, kernel=kern, horizon=horizon, feedback=GaussianFeedback(0.05)
    )


def run(d: int, rounds: int, window: int) -> list[tuple[int, float, float, float]]:
    inst = instance(d, rounds)
    learner = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(1), {"gp_noise": 0.01})
    env = inst.environment(np.random.default_rng(2))
    times, rows = [], []
    evals_before, gain_before = 0, 0.0
    for t in range(1, rounds + 1):
        c0 = time.process_time()
        decision = learner.ask()
        learner.tell(decision, env.play(decision))
        times.append(time.process_time() - c0)
        if t % window == 0:
            s = learner.search
            rows.append(
                (t, 1e3 * float(np.median(times[-window:])), (s.evaluations - evals_before) / window,
                 (s.gain_sum - gain_before) / window)
            )  # fmt: skip
            evals_before, gain_before = s.evaluations, s.gain_sum
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[2])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--window", type=int, default=100)
    args = parser.parse_args()
    print(f"{'d':>2} {'rounds':>11} {'ms / round':>11} {'L-BFGS-B evals':>15} {'local gain':>11}")
    for d in args.dims:
        for t, ms, evals, gain in run(d, args.rounds, args.window):
            print(f"{d:>2} {t - args.window + 1:>5}-{t:<5} {ms:11.2f} {evals:15.1f} {gain:11.2e}")


if __name__ == "__main__":
    main()
