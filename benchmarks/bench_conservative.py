"""Conservative UCB per round: the compiled path against a straightforward numpy loop of the same
algorithm, and the ask / tell path (issue 44).

Usage::

    .venv/bin/python benchmarks/bench_conservative.py               # T = 10^5 on the paper's five arms
    .venv/bin/python benchmarks/bench_conservative.py --rounds 1000000
    .venv/bin/python benchmarks/bench_conservative.py --contextual     # CLUCB, CLUCB2, ... only

The target (issue 44): the compiled path END TO END at least 100x the numpy loop, and ask + tell within
the per-step target of ``bench_shape.py`` (5 us). Every row is CPU time (``time.process_time``), the best
of three runs: on a shared machine the wall clock also counts the other processes' turns (the load
average is printed before and after).

Rows: the compiled ``simulate`` (the shared driver over the kernels; scoring excluded), ``run_regret``
(compiled, with the scoring and the conservative record: the end-to-end path, its ratio to the numpy loop
printed against the 100x target), the ask / tell loop with the environment's ``play``, ask + tell alone
(observations replayed: the per-step target of ``bench_shape.py``, 5 us), and a straightforward numpy
loop of the same algorithm (vectorised over the arms, one round per Python iteration, its own Gaussian
draws). The numpy loop is checked first to play the same arms as the library on the library's
environment (every choice equal over 20,000 rounds). Compilation is excluded by a warm-up. Not collected
by pytest; no timing asserts anywhere (style.md).

Contextual linear learners (CLUCB, CLUCB with estimated baseline rewards, CLUCB2 and its checkpoint
variant; d = 4, K = 10): the compiled block (``play_block`` on contexts drawn beforehand: the kernels),
the runner end to end (``run_conservative_linear``: the environment's draws, features, means and baseline
rows, the compiled rounds, the conservative record), ask + tell alone (observations replayed), and a
straightforward numpy loop of the same steps on the same contexts (``V`` inverted each round), checked
first to play the same rows over 2,000 rounds; the two ratios (kernels, end to end) against the 100x
target.
"""

from __future__ import annotations

import argparse
import math
import os
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


def timed(fn, repeats=3):
    """CPU seconds of ``fn()``, the best of ``repeats`` runs."""
    best = math.inf
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def load():
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


# -- contextual linear learners ----------------------------------------------------------------------
THETA = np.array([0.5, 0.8, 0.2, 0.9])
CONTEXTUAL = {  # name -> (known baseline rewards, constrained choice, learn from every round, checkpoint)
    "clucb": (True, False, False, 1),
    "clucb-unknown-baseline": (False, False, True, 1),
    "clucb2": (True, True, True, 1),
    "clucb2-checkpoint": (True, True, True, 20),
}


def linear_instance(name, horizon):
    from safebandits.problems.conservative_linear import ConservativeLinearInstance

    known, _, _, tau = CONTEXTUAL[name]
    return ConservativeLinearInstance(
        theta=THETA, n_actions=10, alpha=0.05, baseline_param=np.array([0.8, 0.8, 0.2, 0.9]),
        known_baseline=known, checkpoint=tau, horizon=horizon, feature_low=0.3 if tau > 1 else 0.0,
        baseline_floor=0.3 if tau > 1 else 0.0,
    )  # fmt: skip


def numpy_linear(name, info, arms, baselines, rewards, ys):
    """The steps written plainly with numpy, one round per iteration; ``ys(t, row)`` the reward."""
    from safebandits.estimators.confidence import adaptive_width

    known, constrained, learn_all, tau = CONTEXTUAL[name]
    d, alpha, floor = info.dim, info.alpha, info.baseline_floor if tau > 1 else 0.0
    v, xy, z = np.eye(d), np.zeros(d), np.zeros(d)
    n = banked = total = 0.0
    out = np.empty(arms.shape[0], dtype=np.int64)
    for t in range(arms.shape[0]):
        x_all, b, rb = arms[t], int(baselines[t]), float(rewards[t])
        beta = adaptive_width(n, d, 1.0 / info.horizon, 1.0, info.noise_bound, 1.0, info.param_bound)
        inv = np.linalg.inv(v)
        theta = inv @ xy
        ucb = x_all @ theta + beta * np.sqrt(np.einsum("ki,ij,kj->k", x_all, inv, x_all))
        w = z + x_all if known else z + x_all - (1 - alpha) * x_all[b]
        xi = w @ theta - beta * np.sqrt(np.maximum(np.einsum("ki,ij,kj->k", w, inv, w), 0.0))
        if known:
            xi = xi + banked - (1 - alpha) * (total + rb)
        xi = xi + alpha * floor * (math.ceil((t + 1) / tau) * tau - (t + 1))
        if constrained:
            ok = xi >= 0.0
            ok[b] = True
            a = int(np.argmax(np.where(ok, ucb, -np.inf)))
        else:
            j = int(np.argmax(ucb))
            a = j if xi[j] >= 0.0 else b
        base_round = a == b if constrained else (a == b and xi[int(np.argmax(ucb))] < 0.0)
        x, y = x_all[a], ys(t, a)
        total += rb
        if learn_all or not base_round:
            v += np.outer(x, x)
            xy += y * x
            n += 1
        if base_round:
            banked += rb
            z = z + alpha * x_all[b] if not known else z
        else:
            z = z + (x if known else x - (1 - alpha) * x_all[b])
        out[t] = a
    return out


def contextual_rows(rounds):
    """The contextual learners' table."""
    print(
        f"Contextual linear learners, d = 4, K = 10, alpha = 0.05 (slow rows on {min(rounds, 5_000):,} "
        "rounds)"
    )
    print(f"{'learner':<24}{'same rows':>10}{'kernels':>10}{'runner':>10}{'ask+tell':>10}{'numpy':>10}"
          f"{'kernels x':>11}{'end-to-end x':>14}  (CPU us / round; target: end to end >= 100x, "
          "ask + tell <= 5 us)")  # fmt: skip
    for name in CONTEXTUAL:
        contextual_row(name, rounds)


def contextual_row(name, rounds):
    """One learner's row of :func:`contextual_rows`."""
    from safebandits.experiments.conservative_linear import run_conservative_linear

    inst = linear_instance(name, rounds)
    info = inst.public_info()
    env = inst.environment(np.random.default_rng(1))
    u, zs = env.take_rounds(rounds)
    arms = inst.features(u)
    means = arms @ THETA
    b = np.argmax(arms @ inst.baseline_param, axis=1)
    rb = means[np.arange(rounds), b]
    told = rb if inst.known_baseline else np.zeros(rounds)
    sigma = float(inst.noise.sigma)

    def kernels(n):
        learner = make_learner(name, info, np.random.default_rng(0))
        return learner.play_block(arms[:n], b[:n], told[:n], means[:n], zs[:n], int(inst.noise.code), sigma)

    n_check = min(rounds, 2_000)
    ref = numpy_linear(name, info, arms[:n_check], b[:n_check], told[:n_check],
                       lambda t, a: means[t, a] + sigma * zs[t])  # fmt: skip
    same = bool(np.array_equal(kernels(n_check), ref))
    kernels(100)  # (warm-up)
    k_time = timed(lambda: kernels(rounds)) / rounds

    def runner():
        learner = make_learner(name, info, np.random.default_rng(0))
        run_conservative_linear(learner, inst, np.random.default_rng(1))

    r_time = timed(runner) / rounds
    n_slow = min(rounds, 5_000)
    learner = make_learner(name, info, np.random.default_rng(0))
    genv = inst.environment(np.random.default_rng(2))
    log = []
    for _ in range(n_slow):
        ctx = genv.context()
        d = learner.ask(ctx)
        obs = genv.play(d)
        learner.tell(d, obs)
        log.append((ctx, obs))
    best = math.inf
    for _ in range(3):
        learner = make_learner(name, info, np.random.default_rng(0))
        t0 = time.process_time()
        for ctx, obs in log:
            learner.tell(learner.ask(ctx), obs)
        best = min(best, time.process_time() - t0)
    a_time = best / n_slow
    n_time = timed(lambda: numpy_linear(name, info, arms[:n_slow], b[:n_slow], told[:n_slow],
                                        lambda t, a: means[t, a] + sigma * zs[t])) / n_slow  # fmt: skip
    ratio = n_time / r_time
    verdict = "ok" if ratio >= 100 else "BELOW"
    print(f"{name:<24}{same!s:>10}{k_time * 1e6:>10.3f}{r_time * 1e6:>10.3f}{a_time * 1e6:>10.3f}"
          f"{n_time * 1e6:>10.1f}{n_time / k_time:>10.0f}x{ratio:>9.0f}x {verdict}")  # fmt: skip


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--contextual", action="store_true", help="the contextual linear learners only")
    args = parser.parse_args()
    rounds = args.rounds
    print(f"before: {load()}")
    contextual_rows(rounds)
    if args.contextual:
        print(f"after: {load()}")
        return
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
        ("run_regret (end to end, scored)", timed(scored) / rounds),
        ("ask / tell with env.play", timed(lambda: ask_tell(n_slow)) / n_slow),
        ("ask + tell alone (target <= 5 us)", replay(n_slow) / n_slow),
        ("numpy loop (reference)", timed(lambda: reference(n_slow)) / n_slow),
    ]
    print(f"Conservative UCB, K = 5, alpha = {ALPHA}, T = {rounds:,} (slow rows on {n_slow:,} rounds)")
    print(f"{'path':<36}{'us / round':>12}")
    for name, sec in rows:
        print(f"{name:<36}{sec * 1e6:>12.3f}")
    speedup, end_to_end = rows[4][1] / rows[0][1], rows[4][1] / rows[1][1]
    print(
        f"compiled simulate vs numpy loop: {speedup:,.0f}x; end to end (run_regret) vs numpy loop: "
        f"{end_to_end:,.0f}x (target >= 100x: {'ok' if end_to_end >= 100 else 'BELOW'})"
    )
    print(f"after: {load()}")
    assert math.isfinite(speedup)


if __name__ == "__main__":
    main()
