"""Benchmark of Algorithm 2 (Camilleri et al. 2022) on the full UCI Adult pool (48,842 points).

Usage::

    .venv/bin/python benchmarks/bench_fdr.py [--data PATH] [--labels 500] [--repeats 3]

Times one round of Algorithm 2 after ``--labels`` labels (k = 10 perturbed logistic ERMs + CERMs on
the pool, the safe and difference designs on the diagonal design matrix, sampling a batch of 25), split
into its parts, and the final CERM classifier. Needs the Adult data (``safebandits data fetch
uci_adult`` or ``$SAFEBANDITS_DATA``); prints a note and exits otherwise. Timings are not asserted
anywhere. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from safebandits.algorithms import make_learner
from safebandits.classification.problem import PoolInstance
from safebandits.datasets import DataNotFoundError


def _median(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=None, help="uci_adult folder or data root")
    parser.add_argument("--labels", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from safebandits.classification.data import load_adult

    try:
        t0 = time.perf_counter()
        pool = load_adult(args.data)
        t_load = time.perf_counter() - t0
    except DataNotFoundError as exc:
        print(f"bench_fdr: skipped ({exc})")
        return
    inst = PoolInstance(pool, 0.15)
    learner = make_learner(
        "fdr-active", inst.public_info(), np.random.default_rng(0), {"n_initial": args.labels}
    )
    env = inst.environment(np.random.default_rng(1))
    d = learner.ask()
    learner.tell(d, env.play(d))

    t_erm, z = _median(learner.perturbed_classifiers, args.repeats)
    t_design, _ = _median(lambda: learner.designs(z), args.repeats)
    info = dict(learner.last_designs)

    def full_round():
        dec = learner.ask()
        learner.cancel()
        return dec

    t_round, _ = _median(full_round, args.repeats)
    t_predict, _ = _median(learner.predict, args.repeats)
    print(
        f"\nAlgorithm 2, one round on the Adult pool (n = {pool.n}, d = {pool.features.shape[1]}, "
        f"{args.labels} labels, k = 10; median of {args.repeats})"
    )
    print(f"{'part':<44}{'wall [s]':>10}")
    for name, t in [
        ("load + preprocess Adult", t_load),
        ("10 perturbed ERMs + CERMs on the pool", t_erm),
        ("safe + difference designs (diagonal)", t_design),
        ("whole round (ask: ERMs, designs, sampling)", t_round),
        ("final CERM classifier (predict)", t_predict),
    ]:
        print(f"{name:<44}{t:>10.3f}")
    print(
        f"designs: safe value {info['safe_value']:.4g} (support {info['safe_support']}), "
        f"diff value {info['diff_value']:.4g} (support {info['diff_support']}); "
        f"classifiers predict {int(z.sum(axis=1).mean())} positives on average"
    )


if __name__ == "__main__":
    main()
