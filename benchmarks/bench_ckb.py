"""Cost per round of CKB-UCB, CKB-Rand, CKB-TS, StageOpt and SGP-UCB as the domain grows.

Usage::

    .venv/bin/python benchmarks/bench_ckb.py                 # |X| in (100, 500, 1000, 2000)
    .venv/bin/python benchmarks/bench_ckb.py --sizes 100 200 --rounds 4000

Instance ``ckb/synthetic`` (SE kernel, lengthscale 0.2) with ``n_points = |X|``. The cost is the time of
``ask`` + ``env.play`` + ``tell`` per round (no scoring), after a warm-up of 50 rounds that also excludes
numba compilation; the posterior already holds those 50 observations. By default the clock is the
process CPU time with single-threaded BLAS (the "one core" of the targets; robust on a shared machine,
where wall time also counts the waits for a core); ``--clock wall`` measures wall time.
Issue targets at |X| = 100, one core:
CKB-UCB and CKB-Rand <= 30 µs per round (two rank-one updates of the |X| x |X| covariance are the floor),
CKB-TS <= 300 µs (two jittered Cholesky factorisations for the joint draws). The last column is the
growth exponent ``log(cost(n_max) / cost(n_min)) / log(n_max / n_min)``.

Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core: set before numpy loads its BLAS

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from safebandits.algorithms import make_learner  # noqa: E402
from safebandits.problems import make_instance  # noqa: E402

METHODS = ("ckb-ucb", "ckb-rand", "ckb-ts", "stageopt", "sgp-ucb")
TARGETS = {"ckb-ucb": 30.0, "ckb-rand": 30.0, "ckb-ts": 300.0}


def per_round(method: str, n: int, rounds: int, clock: str = "cpu") -> float:
    inst = make_instance("ckb/synthetic", np.random.default_rng(0), n_points=n, T=10_000)
    learner = make_learner(method, inst.public_info(), np.random.default_rng(1))
    env = inst.environment(np.random.default_rng(2))
    for _ in range(50):  # warm-up
        d = learner.ask()
        learner.tell(d, env.play(d))
    timer = time.process_time if clock == "cpu" else time.perf_counter
    t0 = timer()
    for _ in range(rounds):
        d = learner.ask()
        learner.tell(d, env.play(d))
    return (timer() - t0) / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 1000, 2000])
    parser.add_argument(
        "--rounds", type=int, default=20_000, help="rounds at |X| = 100 (fewer for larger |X|)"
    )
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="process CPU or wall time")
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    print(f"Cost per round [µs, {args.clock} time] (ask + play + tell), ckb/synthetic with |X| points")
    print(
        f"{'method':<10}" + "".join(f"{f'|X|={n}':>13}" for n in sizes) + f"{'growth':>9}{'target@100':>12}"
    )
    for method in args.methods:
        costs = []
        for n in sizes:
            scale = (n / 100) ** (3 if method == "ckb-ts" else 2)
            rounds = max(10, int(args.rounds / scale / (5 if method == "ckb-ts" else 1)))
            costs.append(per_round(method, n, rounds, args.clock))
        growth = (
            math.log(costs[-1] / costs[0]) / math.log(sizes[-1] / sizes[0])
            if len(sizes) > 1
            else float("nan")
        )
        target = TARGETS.get(method)
        tgt = f"{target:g}" if target is not None and sizes[0] == 100 else "-"
        print(f"{method:<10}" + "".join(f"{c:>13.1f}" for c in costs) + f"{growth:>9.2f}{tgt:>12}")


if __name__ == "__main__":
    main()
