"""SafeOpt's confidence scale: what the guaranteed width costs in regret, what the heuristic costs in
unsafe rounds (issue 33).

Usage::

    .venv/bin/python benchmarks/bench_safeopt.py                 # 10 seeds, T = 1,000 (a few minutes)
    .venv/bin/python benchmarks/bench_safeopt.py --seeds 3 --horizon 300

On ``ckb/synthetic`` (100 points, SE kernel, ``f``, ``g`` random RKHS functions; ``B``, ``G`` told as their
RKHS norms, so the theory width is valid) with Gaussian noise ``sigma = 0.1`` (the paper's) and ``0.5``
(noisier: the theory width grows with ``R = sigma``, the heuristic does not), and ``sigma = 0.1`` with
``normalize=False`` (``f``, ``g`` not divided by their maxima: RKHS norms of about 5-10, so the theory
width grows with ``B``, ``G`` and the constant 2 is far too narrow), every method on the same
draws and noise (paired): SafeOpt with ``confidence="theory"`` (default: ``beta_t`` from ``B``, ``R`` and the
realised information gain) and ``"constant"`` (``beta = 2``, the usual heuristic, as in the authors'
implementation), StageOpt and SGP-UCB (defaults) for context. Columns: mean final regret ``R(T)`` (its
standard error), mean number of unsafe rounds ``N`` (``g(x_t) > 0``), the runs with at least one unsafe
round, and the mean ``beta_T`` of ``f`` and ``g`` at the end. Not collected by pytest; no asserts.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from safebandits.algorithms import make_learner  # noqa: E402
from safebandits.experiments.regret_loop import run_regret  # noqa: E402
from safebandits.problems import make_instance  # noqa: E402

METHODS = {
    "SafeOpt (theory)": ("safeopt", {}),
    "SafeOpt (beta=2)": ("safeopt", {"confidence": "constant"}),
    "StageOpt": ("stageopt", {}),
    "SGP-UCB": ("sgp-ucb", {}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--horizon", type=int, default=1000)
    args = parser.parse_args()
    settings = [(0.1, True), (0.5, True), (0.1, False)]
    print(f"ckb/synthetic, 100 points, T = {args.horizon}, {args.seeds} seeds (paired draws and noise)")
    head = f"{'sigma':>6}{'norm.':>6} {'method':<18}{'R(T) (se)':>18}{'unsafe N':>10}{'runs N>0':>10}"
    print(head + f"{'beta_T f / g':>16}{'ms/round':>10}")
    for sigma, normalize in settings:
        for label, (name, cfg) in METHODS.items():
            regret, unsafe, betas, cpu = [], [], [], 0.0
            for seed in range(args.seeds):
                inst = make_instance(
                    "ckb/synthetic", np.random.default_rng(seed), n_points=100, T=args.horizon, sigma=sigma,
                    normalize=normalize,
                )  # fmt: skip
                learner = make_learner(name, inst.public_info(), np.random.default_rng(100 + seed), cfg)
                t0 = time.process_time()
                out = run_regret(learner, inst.environment(np.random.default_rng(200 + seed)), inst)
                cpu += time.process_time() - t0
                regret.append(out.regret)
                unsafe.append(out.violations)
                betas.append(learner.betas())
            r, n_bad, b = np.array(regret), np.array(unsafe), np.array(betas).mean(axis=0)
            se = r.std(ddof=1) / np.sqrt(len(r)) if len(r) > 1 else float("nan")
            print(
                f"{sigma:>6g}{'yes' if normalize else 'no':>6} {label:<18}"
                f"{f'{r.mean():.1f} ({se:.1f})':>18}{n_bad.mean():>10.1f}"
                f"{int((n_bad > 0).sum()):>10}{f'{b[0]:.2f} / {b[1]:.2f}':>16}"
                f"{1e3 * cpu / (args.seeds * args.horizon):>10.2f}"
            )


if __name__ == "__main__":
    main()
