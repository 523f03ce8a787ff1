"""Conservative UCB per round: the compiled path against a straightforward numpy loop of the same
algorithm, and the ask / tell path (issue 44).

Usage::

    .venv/bin/python benchmarks/bench_conservative.py               # T = 10^5 on the paper's five arms
    .venv/bin/python benchmarks/bench_conservative.py --rounds 1000000

Rows: the compiled ``simulate`` (the shared driver over the kernels; scoring excluded), ``run_regret``
(compiled, with the scoring and the conservative record), the ask / tell loop with the environment's
``play``, ask + tell alone (observations replayed: the per-step target of ``bench_shape.py``, 5 us), and a
straightforward numpy
loop of the same algorithm (vectorised over the arms, one round per Python iteration, its own Gaussian
draws). The numpy loop is checked first to play the same arms as the library on the library's
environment (every choice equal over 20,000 rounds). Compilation is excluded by a warm-up. Not collected
by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.conservative_ucb import psi_constants
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems.conservative import ConservativeInstance
from safebandits.types import Decision

MEANS = np.array([0.5, 0.6, 0.4, 0.4, 0.4])
ALPHA = 0.1


def numpy_cucb(means, alpha, horizon, delta, play):
    """Conservative UCB with a known default mean, written plainly with numpy (the reference loop).
    ``play(arm) -> reward``. Returns the arms played."""
    k = means.shape[0]
    a, b = psi_constants(k, delta)
    mu0 = float(means[0])
    counts, sums = np.zeros(k), np.zeros(k)
    arms = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        pulled = counts > 0
        n = np.maximum(counts, 1.0)
        psi = a * np.maximum(np.log(np.log(n + 1.0)), 0.0) + b
        width = np.sqrt(2.0 * psi / n)
        mean = sums / n
        upper = np.where(pulled, mean + width, np.inf)
        lower = np.where(pulled, np.maximum(0.0, mean - width), 0.0)
        upper[0] = lower[0] = mu0
        j = int(np.argmax(upper))
        xi = float(counts[1:] @ lower[1:]) + lower[j] + counts[0] * mu0 - (1.0 - alpha) * t * mu0
        arm = j if xi >= 0.0 else 0
        counts[arm] += 1.0
        sums[arm] += play(arm)
        arms[t - 1] = arm
    return arms


def instance(horizon):
    return ConservativeInstance(means=MEANS, alpha=ALPHA, horizon=horizon)


def check_same_arms(rounds=20_000):
    inst = instance(rounds)
    learner = make_learner("conservative-ucb", inst.public_info(), np.random.default_rng(0))
    block = learner.simulate(inst.environment(np.random.default_rng(5)), rounds)
    env = inst.environment(np.random.default_rng(5))
    ref = numpy_cucb(MEANS, ALPHA, rounds, 1.0 / rounds, lambda arm: env.play(Decision(arm=arm)).reward)
    same = bool(np.array_equal(np.argmax(block.points, axis=1), ref))
    print(f"numpy loop plays the library's arms over {rounds:,} rounds: {same}")
    return same


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=100_000)
    args = parser.parse_args()
    rounds = args.rounds
    check_same_arms()
    inst = instance(rounds)

    def compiled():
        learner = make_learner("conservative-ucb", inst.public_info(), np.random.default_rng(0))
        learner.simulate(inst.environment(np.random.default_rng(1)), rounds)

    def scored():
        learner = make_learner("conservative-ucb", inst.public_info(), np.random.default_rng(0))
        run_regret(learner, inst.environment(np.random.default_rng(1)), inst)

    def ask_tell(n):
        learner = make_learner("conservative-ucb", inst.public_info(), np.random.default_rng(0))
        env = inst.environment(np.random.default_rng(1))
        for _ in range(n):
            d = learner.ask()
            learner.tell(d, env.play(d))

    def replay(n):
        """ask + tell alone (the project's per-step target, bench_shape.py): observations recorded first,
        then replayed to a fresh learner (the same decisions); the clock sees ask and tell only."""
        learner = make_learner("conservative-ucb", inst.public_info(), np.random.default_rng(0))
        env = inst.environment(np.random.default_rng(1))
        observations = []
        for _ in range(n):
            d = learner.ask()
            observations.append(env.play(d))
            learner.tell(d, observations[-1])
        best = math.inf
        for _ in range(3):  # (CPU time, the best of three fresh learners: as bench_shape.py measures it)
            learner = make_learner("conservative-ucb", inst.public_info(), np.random.default_rng(0))
            t0 = time.process_time()
            for obs in observations:
                learner.tell(learner.ask(), obs)
            best = min(best, time.process_time() - t0)
        return best

    def reference(n):
        rng = np.random.default_rng(1)
        numpy_cucb(MEANS, ALPHA, n, 1.0 / rounds, lambda arm: MEANS[arm] + rng.standard_normal())

    compiled(), ask_tell(100)  # (warm-up: compilation)
    n_slow = min(rounds, 20_000)
    rows = [
        ("compiled simulate", timed(compiled) / rounds),
        ("run_regret (compiled, scored)", timed(scored) / rounds),
        ("ask / tell with env.play", timed(lambda: ask_tell(n_slow)) / n_slow),
        ("ask + tell alone (target <= 5 us)", replay(n_slow) / n_slow),
        ("numpy loop (reference)", timed(lambda: reference(n_slow)) / n_slow),
    ]
    print(f"Conservative UCB, K = 5, alpha = {ALPHA}, T = {rounds:,} (slow rows on {n_slow:,} rounds)")
    print(f"{'path':<36}{'us / round':>12}")
    for name, sec in rows:
        print(f"{name:<36}{sec * 1e6:>12.3f}")
    speedup = rows[4][1] / rows[0][1]
    print(f"compiled vs numpy loop: {speedup:,.0f}x (target >= 100x)")
    assert math.isfinite(speedup)


if __name__ == "__main__":
    main()
