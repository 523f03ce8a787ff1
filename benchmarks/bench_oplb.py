"""OPLB's cost per round beside LC-LUCB's on the same declared problem (issue 43, item 5; target <= 5).

Usage::

    .venv/bin/python benchmarks/bench_oplb.py              # 24 arms in d = 5, T = 2000, 5 repeats
    .venv/bin/python benchmarks/bench_oplb.py --repeats 9 --rounds 4000

The problem: 24 random unit arms in d = 5, the first (shrunk to norm 0.2) the safe arm ``x0``, one linear
constraint with ``tau = c0 + 0.2``, Gaussian noise 0.1, ``action_set="star"`` (LC-LUCB cannot start on
the points alone), safe values known (projected estimator) or unknown (full estimator after the warm
start). OPLB is timed with its default solver (the per-arm LP) and with ``solver="search"``. The cost
is the CPU time (``time.process_time``) of a compiled :func:`run_regret` (scoring
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


#: The timed learners: (label, algorithm, config). OPLB's default solver is the per-arm LP; the search
#: ((34) over 2- and 3-supports) is the solver of the stored oplb-random runs.
LEARNERS = (("LC-LUCB", "lc-lucb", {}), ("OPLB", "oplb", {}), ("OPLB search", "oplb", {"solver": "search"}))


def per_round_ms(alg: str, inst, rounds: int, config: dict | None = None) -> float:
    learner = make_learner(alg, inst.public_info(), np.random.default_rng(1), config)
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
          f"{args.repeats} back-to-back repeats; OPLB = the default solver (per-arm LP)")  # fmt: skip
    print(f"{'safe values':<12}{'LC-LUCB':>9}{'OPLB':>9}{'ratio':>7}{'target':>8}{'met':>5}"
          f"{'search':>9}{'ratio':>7}")  # fmt: skip
    for known in (True, False):
        inst = declared(known, horizon=args.rounds)
        for _, alg, config in LEARNERS:
            per_round_ms(alg, inst, min(args.rounds, 300), config)  # warm-up (compilation)
        times: dict[str, list[float]] = {label: [] for label, _, _ in LEARNERS}
        for _ in range(args.repeats):
            for label, alg, config in LEARNERS:
                times[label].append(per_round_ms(alg, inst, args.rounds, config))
        lc, op, se = (times[label] for label, _, _ in LEARNERS)
        ratio = statistics.median(b / a for a, b in zip(lc, op, strict=True))
        ratio_s = statistics.median(b / a for a, b in zip(lc, se, strict=True))
        label = "known" if known else "unknown"
        met = "yes" if ratio <= TARGET else "NO"
        print(
            f"{label:<12}{statistics.median(lc):>9.4f}{statistics.median(op):>9.4f}{ratio:>7.1f}"
            f"{'<= ' + str(TARGET):>8}{met:>5}{statistics.median(se):>9.4f}{ratio_s:>7.1f}"
        )


if __name__ == "__main__":
    main()
