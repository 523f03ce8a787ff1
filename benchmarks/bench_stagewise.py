"""Cost per round of the stage-wise constrained learners, compiled ``simulate`` vs ask / tell.

Usage::

    .venv/bin/python benchmarks/bench_stagewise.py            # the table of the issue
    .venv/bin/python benchmarks/bench_stagewise.py --rounds 200000

Cases: LC-LUCB and Safe-LTS on ``stagewise/cyclic`` with d = 10 (10 rays), OPLB on the same set,
OPB on ``stagewise/four-arm`` (K = 4), OPNLB on ``stagewise/finite-class``. The cost is the wall time of
:func:`safebandits.experiments.regret_loop.run_regret` (scoring included) divided by the rounds; numba
compilation is excluded by a warm-up run. The memory column is the peak traced memory (tracemalloc) of
a compiled run of 10^5 rounds and of 10^6 rounds: it must not grow with the horizon.

Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from safebandits.algorithms import list_algorithms, make_learner
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems import make_instance

CASES = [
    ("lc-lucb", "stagewise/cyclic", {"d": 10, "tau": 0.5}),
    ("safe-lts", "stagewise/cyclic", {"d": 10, "tau": 0.5}),
    ("oplb", "stagewise/cyclic", {"d": 10, "tau": 0.5}),
    ("opb", "stagewise/four-arm", {"tau": 0.5}),
    ("opnlb", "stagewise/finite-class", {}),
]


def _instance(name, params, horizon):
    rng = np.random.default_rng(0)
    try:
        return make_instance(name, rng, T=horizon, **params)
    except TypeError:
        return make_instance(name, T=horizon, **params)


def per_round(alg, inst_name, params, rounds, compiled):
    inst = _instance(inst_name, params, rounds)
    learner = make_learner(alg, inst.public_info(), np.random.default_rng(1))
    env = inst.environment(np.random.default_rng(2))
    t0 = time.perf_counter()
    run_regret(learner, env, inst, compiled=compiled)
    return (time.perf_counter() - t0) / rounds * 1e6


def peak_memory(alg, inst_name, params, rounds):
    inst = _instance(inst_name, params, rounds)
    learner = make_learner(alg, inst.public_info(), np.random.default_rng(1))
    env = inst.environment(np.random.default_rng(2))
    tracemalloc.start()
    run_regret(learner, env, inst)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument(
        "--memory", action="store_true", help="also measure peak memory at 1e5 and 1e6 rounds"
    )
    args = parser.parse_args()
    known = list_algorithms("regret")
    print(f"Cost per round [µs] ({args.rounds} rounds, one core, scoring included)")
    print(
        f"{'method':<10}{'instance':<24}{'simulate':>10}{'ask/tell':>10}{'mem 1e5 [KiB]':>15}{'mem 1e6':>10}"
    )
    for alg, inst_name, params in CASES:
        if alg not in known:
            continue
        has_sim = hasattr(known[alg].cls, "simulate")
        slow = alg == "opnlb"
        n = args.rounds // 20 if slow else args.rounds
        per_round(alg, inst_name, params, 2000, True)  # warm-up (compilation)
        sim = per_round(alg, inst_name, params, n, True) if has_sim else float("nan")
        py = per_round(alg, inst_name, params, max(2000, n // 10), False)
        m5 = m6 = float("nan")
        if args.memory and has_sim:
            m5, m6 = peak_memory(alg, inst_name, params, 10**5), peak_memory(alg, inst_name, params, 10**6)
        label = inst_name.split("/")[1] + "".join(f" {k}={v}" for k, v in params.items())
        print(f"{alg:<10}{label:<24}{sim:>10.2f}{py:>10.2f}{m5:>15.0f}{m6:>10.0f}")


if __name__ == "__main__":
    main()
