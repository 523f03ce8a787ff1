"""OPLB's cost per round beside LC-LUCB's on the same declared problem (issue 43, item 5; target <= 5).

Usage::

    .venv/bin/python benchmarks/bench_oplb.py              # 24 arms in d = 5, T = 2000, 5 repeats
    .venv/bin/python benchmarks/bench_oplb.py --repeats 9 --rounds 4000

The problem: 24 random unit arms in d = 5, the first (shrunk to norm 0.2) the safe arm ``x0``, one linear
constraint with ``tau = c0 + 0.2``, Gaussian noise 0.1, ``action_set="star"`` (LC-LUCB cannot start on
the points alone), safe values known (projected estimator) or unknown (full estimator after the warm
start). The cost is the CPU time (``time.process_time``) of a compiled :func:`run_regret` (scoring
included) divided by the rounds, compilation excluded by a warm-up run; the two learners are timed
back to back in each repeat and the median of the per-repeat ratios is printed (the machine may be
shared). Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from safebandits.algorithms import make_learner
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems.declare.linear import LinearProblem

TARGET = 5.0


def declared(known: bool, n_arms: int = 24, d: int = 5, horizon: int = 2000, seed: int = 0):
    rng = np.random.default_rng(seed)
    arms = rng.normal(size=(n_arms, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    arms[0] *= 0.2
    theta = rng.normal(size=d)
    theta /= 2 * np.linalg.norm(theta)
    mu = rng.normal(size=d)
    mu /= 2 * np.linalg.norm(mu)
    kw = {"arms": arms, "threshold": float(mu @ arms[0]) + 0.2, "safe_arm": 0, "horizon": horizon,
          "feedback": {"kind": "gaussian", "sigma": 0.1}, "action_set": "star"}  # fmt: skip
    if known:
        kw.update(safe_reward=float(theta @ arms[0]), safe_cost=float(mu @ arms[0]))
    return LinearProblem(**kw).simulate(reward_param=theta, cost_params=[mu]).instance("stagewise")


def per_round_ms(alg: str, inst, rounds: int) -> float:
    learner = make_learner(alg, inst.public_info(), np.random.default_rng(1))
    env = inst.environment(np.random.default_rng(2))
    c0 = time.process_time()
    run_regret(learner, env, inst, horizon=rounds)
    return (time.process_time() - c0) / rounds * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"OPLB / LC-LUCB cost per round [ms CPU], 24 arms in d = 5, {args.rounds} rounds, median of "
          f"{args.repeats} back-to-back repeats")  # fmt: skip
    print(f"{'safe values':<14}{'LC-LUCB':>10}{'OPLB':>10}{'ratio':>10}{'target':>10}")
    for known in (True, False):
        inst = declared(known, horizon=args.rounds)
        for alg in ("lc-lucb", "oplb"):
            per_round_ms(alg, inst, min(args.rounds, 300))  # warm-up (compilation)
        lc, op, ratios = [], [], []
        for _ in range(args.repeats):
            a = per_round_ms("lc-lucb", inst, args.rounds)
            b = per_round_ms("oplb", inst, args.rounds)
            lc.append(a)
            op.append(b)
            ratios.append(b / a)
        label = "known" if known else "unknown"
        print(
            f"{label:<14}{statistics.median(lc):>10.4f}{statistics.median(op):>10.4f}"
            f"{statistics.median(ratios):>10.1f}{'<= ' + str(TARGET):>10}"
        )


if __name__ == "__main__":
    main()
