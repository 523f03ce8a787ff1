"""Per-step, per-run and compile costs of four families beside the targets of issue 19.

Usage::

    .venv/bin/python benchmarks/bench_shape.py                 # the table of the issue
    .venv/bin/python benchmarks/bench_shape.py --no-compile    # skip the two subprocess columns
    .venv/bin/python benchmarks/bench_shape.py --family OPB --breakdown
    .venv/bin/python benchmarks/bench_shape.py --compile-only  # cold compile per family (issue 43)

Families and their (K, d) = (10, 10) cases: G-ACOL on ``acol/unit-sphere`` (10 arms, d = 10); LC-LUCB on
``stagewise/cyclic`` (d = 10: 10 rays); Safe-LUCB on ``safelucb/karm`` (K = 10, d = 10, ``t_prime=100``,
so that most steps are optimistic-pessimistic rounds); OPB on ``stagewise/random-mab`` (K = 10). Columns:

* ``ask/tell``: CPU microseconds of ``learner.ask()`` + ``learner.tell(...)`` per step (observations
  recorded from the environment first and replayed; ``env us`` is the environment's ``play`` alone);
  target <= 5 us;
* ``compiled``: microseconds per sample of the compiled path (``run`` / ``run_regret`` with
  ``compiled=True``, scoring included); target: no slower than before (the baseline numbers are in
  ``docs/decisions/engine.md``);
* ``fixed``: the fixed cost of one simulated run, in ms: the median wall time of building the learner
  and the environment and playing a 100-sample run through the compiled path (``run_regret`` /
  ``run``), minus 100 x the compiled per-sample cost. The instance is built once (a tuning loop
  reuses it); seeding, spec building and the results store are outside. Target <= 0.2 ms;
* ``short x``: how many times faster a whole 100-sample run is on the compiled path than on ask / tell
  (median CPU time of building the learner and the environment and playing the run, each path; the
  purpose of the fixed-cost target: short tuned runs gain from the compiled path);
* ``cold``: CPU seconds of the first compile in a fresh process with an empty ``NUMBA_CACHE_DIR`` (from
  after the imports and the instance to the end of one short compiled run and one short ask / tell run
  of 200 samples, learners built included); target <= 10 s;
* ``warm``: the same in a second process with the cache that the first one wrote; target <= 1 s.
  Both are the median of ``--compile-repeats`` pairs (default 3, each with its own empty cache; every
  run is printed below the table): the machine moves between speed states, and one cold compile moves
  by 1-1.5 s with them.

``--compile-only`` prints the cold and warm compile alone, beside the same targets, of these four
families and of ACOL, CKB-UCB and SGP-UCB (:data:`COMPILE_FAMILIES`; issue 43, item 6: cold compile
<= 10 s per family on a quiet machine), with the load average before each family.

``--breakdown`` prints where the fixed cost goes (learner construction, environment, run). Every time is
process CPU time (``time.process_time``; wall time on a shared, loaded machine measures the other jobs
too): the minimum (per-step columns) or median (fixed cost) of repeats, measured in ``--rounds`` rounds
over the families (default 3) of which the best is shown (the lowest per-step costs, the lowest fixed
cost with the per-sample cost of the same round, the median "short x"): the machine moves between speed
states for tens of seconds at a time, and a family measured once may meet only the slow one. The load
average is printed beside them. Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

#: label -> (algorithm, task, instance name, instance params, learner config)
FAMILIES = {
    "G-ACOL": ("g-acol", "pure", "acol/unit-sphere", {"n_arms": 10, "d": 10}, {}),
    "LC-LUCB": ("lc-lucb", "regret", "stagewise/cyclic", {"d": 10, "tau": 0.5}, {}),
    "Safe-LUCB": (
        "safe-lucb",
        "regret",
        "safelucb/karm",
        {"K": 10, "d": 10, "condition": "margin"},
        {"t_prime": 100},
    ),
    "OPB": ("opb", "regret", "stagewise/random-mab", {"K": 10, "tau": 0.5}, {}),
}
#: Families whose compile alone is timed too (``--compile-only``; issue 43, item 6: cold compile <= 10 s
#: per family): CKB-UCB and SGP-UCB on ``ckb/synthetic`` with 600 points (low-rank posteriors with lazy
#: updates, their default there: ``T = 200 <= n``), ACOL (the plain arm-ridge learner) as G-ACOL's case.
COMPILE_FAMILIES = {
    **FAMILIES,
    "ACOL": ("acol", "pure", "acol/unit-sphere", {"n_arms": 10, "d": 10}, {}),
    "CKB": ("ckb-ucb", "regret", "ckb/synthetic", {"n_points": 600}, {}),
    "SGP-UCB": ("sgp-ucb", "regret", "ckb/synthetic", {"n_points": 600}, {}),
}
TARGET_ASK_TELL_US = 5.0
TARGET_FIXED_MS = 0.2
TARGET_COLD_S = 10.0
TARGET_WARM_S = 1.0
FIXED_SAMPLES = 100


def make(label: str, horizon: int):
    """The instance of a family at ``horizon`` rounds (regret) and its learner factory."""
    from safebandits.algorithms import make_learner
    from safebandits.problems import list_instances, make_instance

    alg, task, name, params, config = COMPILE_FAMILIES[label]
    kw = dict(params)
    if task == "regret":
        kw["T"] = horizon
    rng = np.random.default_rng(0) if list_instances()[name].random else None
    inst = make_instance(name, rng, **kw)

    def learner(seed: int | np.random.Generator = 1):
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return make_learner(alg, inst.public_info(), rng, config)

    return inst, learner, task


def _play(task, learner, env, inst, n, compiled):
    if task == "regret":
        from safebandits.experiments.regret_loop import run_regret

        return run_regret(learner, env, inst, horizon=n, compiled=compiled).rounds
    from safebandits.experiments.simulate import run

    return run(learner, env, inst, budget=n, compiled=compiled).samples


def ask_tell_us(label: str, steps: int, repeats: int = 3) -> tuple[float, float]:
    """(ask + tell, env.play) CPU microseconds per step, the minimum over ``repeats`` fresh learners.

    A first pass plays ``ask -> env.play -> tell`` and records the observations; each timed pass then
    replays them to a fresh learner with the same seed (the same decisions, hence the same
    observations): the clock sees ``ask`` and ``tell`` only. The plays are timed alone on a fresh
    environment with the recorded decisions. (Before 2026-11-26 the column was the whole loop minus the
    plays timed apart: the difference of two timings, of which the plays were most, moved by +-1 us.)
    """
    inst, learner, _ = make(label, steps)
    clock = time.process_time
    lrn, env = learner(1), inst.environment(np.random.default_rng(2))
    decisions, observations = [], []
    while len(decisions) < steps and not getattr(lrn, "done", False):
        d = lrn.ask()
        o = env.play(d)
        lrn.tell(d, o)
        decisions.append(d)
        observations.append(o)
    n = len(decisions)
    best, best_env = np.inf, np.inf
    for r in range(repeats + 1):  # (the first is a warm-up)
        lrn = learner(1)
        t0 = clock()
        for o in observations:
            lrn.tell(lrn.ask(), o)
        total = clock() - t0
        env = inst.environment(np.random.default_rng(2))
        t0 = clock()
        for d in decisions:
            env.play(d)
        t_env = clock() - t0
        if r:
            best = min(best, total / n * 1e6)
            best_env = min(best_env, t_env / n * 1e6)
    return best, best_env


def compiled_us(label: str, samples: int, repeats: int = 3) -> float:
    """Microseconds per sample of the compiled path (minimum over ``repeats``)."""
    inst, learner, task = make(label, samples)
    _play(task, learner(1), inst.environment(np.random.default_rng(2)), inst, min(samples, 2000), True)
    best = np.inf
    for _ in range(repeats):
        lrn, env = learner(1), inst.environment(np.random.default_rng(2))
        t0 = time.process_time()
        n = _play(task, lrn, env, inst, samples, True)
        best = min(best, (time.process_time() - t0) / n * 1e6)
    return best


def fixed_ms(label: str, per_sample_us: float, repeats: int = 300) -> tuple[float, dict[str, float]]:
    """Median wall time (ms) of one 100-sample simulated run minus its per-sample work; and its parts."""
    inst, learner, task = make(label, FIXED_SAMPLES)
    pc = time.process_time
    parts: dict[str, list[float]] = {"learner": [], "environment": [], "run": []}
    totals = []
    for r in range(repeats + 5):
        rng_learner, rng_env = (
            np.random.default_rng(1 + r),
            np.random.default_rng(2 + r),
        )  # (seeding: outside)
        t0 = pc()
        lrn = learner(rng_learner)
        t1 = pc()
        env = inst.environment(rng_env)
        t2 = pc()
        n = _play(task, lrn, env, inst, FIXED_SAMPLES, True)
        t3 = pc()
        if r >= 5:
            totals.append((t3 - t0) * 1e3 - n * per_sample_us / 1e3)
            parts["learner"].append((t1 - t0) * 1e3)
            parts["environment"].append((t2 - t1) * 1e3)
            parts["run"].append((t3 - t2) * 1e3 - n * per_sample_us / 1e3)
    return statistics.median(totals), {k: statistics.median(v) for k, v in parts.items()}


def short_run_gain(label: str, repeats: int = 200) -> float:
    """Median CPU time of a whole 100-sample run on ask / tell over that on the compiled path."""
    inst, learner, task = make(label, FIXED_SAMPLES)
    med = {}
    for compiled in (True, False):
        _play(task, learner(1), inst.environment(np.random.default_rng(2)), inst, FIXED_SAMPLES, compiled)
        times = []
        for r in range(repeats):
            t0 = time.process_time()
            lrn, env = learner(1 + r), inst.environment(np.random.default_rng(2 + r))
            _play(task, lrn, env, inst, FIXED_SAMPLES, compiled)
            times.append(time.process_time() - t0)
        med[compiled] = statistics.median(times)
    return med[False] / med[True]


_CHILD = """
import json, sys, time
sys.path.insert(0, {bench!r})
import numpy as np
import bench_shape as b
import safebandits.experiments.regret_loop, safebandits.experiments.simulate  # (imports outside the clock)
inst, learner, task = b.make({label!r}, 200)  # (the instance is not numba's: outside the clock)
t0 = time.process_time()
b._play(task, learner(1), inst.environment(np.random.default_rng(2)), inst, 200, True)
b._play(task, learner(1), inst.environment(np.random.default_rng(2)), inst, 200, False)
print(json.dumps(time.process_time() - t0))
"""


def compile_times(label: str) -> tuple[float, float]:
    """(cold, warm) seconds: a fresh process with an empty numba cache, then one with that cache."""
    code = _CHILD.format(bench=str(Path(__file__).resolve().parent), label=label)
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = []
        for _ in range(2):
            proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(proc.stderr)
            out.append(float(json.loads(proc.stdout.strip().splitlines()[-1])))
    return out[0], out[1]


def compile_medians(label: str, repeats: int) -> tuple[float, float, list[float], list[float]]:
    """Median cold and warm seconds over ``repeats`` pairs (each with its own empty cache), and all of them:
    the machine's speed moves one cold compile by 1-1.5 s, so one run alone can land either side of 10 s."""
    pairs = [compile_times(label) for _ in range(repeats)]
    colds, warms = [c for c, _ in pairs], [w for _, w in pairs]
    return statistics.median(colds), statistics.median(warms), colds, warms


def _met(value: float, target: float) -> str:
    return "met" if value <= target else "NOT MET"


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def compile_table(labels: list[str], repeats: int) -> None:
    """Issue 43, item 6: every family's cold and warm compile beside the targets (medians of ``repeats``
    pairs, each run listed), with the load average before each family: CPU seconds run long on a loaded
    machine (shared caches, speed states), so a number over the target is read beside its load."""
    print(f"Cold compile per family, target <= {TARGET_COLD_S:.0f} s (CPU s; median of {repeats}; "
          f"{os.cpu_count()} cores)")  # fmt: skip
    print(f"{'family':<11}{'cold s':>8}{'<=10':>9}{'warm s':>8}{'<=1':>9}{'load':>7}   cold runs")
    for label in labels:
        load = _load()
        cold, warm, colds, _ = compile_medians(label, repeats)
        cells = f"{cold:>8.1f}{_met(cold, TARGET_COLD_S):>9}{warm:>8.2f}{_met(warm, TARGET_WARM_S):>9}"
        print(f"{label:<11}{cells}{load:>7.2f}   " + " ".join(f"{c:.1f}" for c in colds), flush=True)
    print(f"load average after: {_load():.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--family", action="append", choices=list(COMPILE_FAMILIES), help="only these families"
    )
    parser.add_argument(
        "--compile-only",
        action="store_true",
        help=f"only the cold / warm compile of each family ({', '.join(COMPILE_FAMILIES)})",
    )
    parser.add_argument("--steps", type=int, default=5000, help="ask / tell steps per repeat")
    parser.add_argument("--samples", type=int, default=100_000, help="samples of the compiled runs")
    parser.add_argument("--no-compile", action="store_true", help="skip the cold / warm compile columns")
    parser.add_argument("--breakdown", action="store_true", help="print the parts of the fixed cost")
    parser.add_argument(
        "--compile-repeats", type=int, default=3, help="cold / warm pairs per family (the median is shown)"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds over the families of the in-process columns (best kept)"
    )
    args = parser.parse_args()
    if args.compile_only:
        compile_table(args.family or list(COMPILE_FAMILIES), max(1, args.compile_repeats))
        return
    labels = args.family or list(FAMILIES)
    if set(labels) - set(FAMILIES):
        parser.error(f"the shape table has {', '.join(FAMILIES)}; the others with --compile-only")
    load = _load()
    print(f"Issue 19 shape targets at (K, d) = (10, 10) (load average {load:.2f}, {os.cpu_count()} cores)")
    head = (
        f"{'family':<11}{'ask/tell us':>12}{'<=5':>8}{'env us':>8}{'compiled us':>13}"
        f"{'fixed ms':>10}{'<=0.2':>8}{'short x':>9}{'cold s':>8}{'<=10':>8}{'warm s':>8}{'<=1':>8}"
    )
    print(head)
    # The in-process columns are measured in rounds over the families and the best round is kept per
    # column (the fixed cost with the per-sample cost of its own round): the machine moves between speed
    # states for tens of seconds at a time, and a family measured once may meet only the slow one.
    seen: dict[str, list[tuple[float, float, float, float, dict[str, float], float]]] = {
        k: [] for k in labels
    }
    for _ in range(max(1, args.rounds)):
        for label in labels:
            at, env_us = ask_tell_us(label, args.steps)
            comp = compiled_us(label, args.samples)
            fixed, parts = fixed_ms(label, comp)
            seen[label].append((at, env_us, comp, fixed, parts, short_run_gain(label)))
    rows = []
    spreads = []
    for label in labels:
        runs = seen[label]
        at, env_us = min(r[0] for r in runs), min(r[1] for r in runs)
        comp = min(r[2] for r in runs)
        fixed, parts = min(((r[3], r[4]) for r in runs), key=lambda fp: fp[0])
        gain = statistics.median(r[5] for r in runs)
        cold = warm = float("nan")
        if not args.no_compile:
            cold, warm, colds, warms = compile_medians(label, max(1, args.compile_repeats))
            spreads.append((label, colds, warms))
        cells = [
            f"{label:<11}{at:>12.2f}{_met(at, TARGET_ASK_TELL_US):>8}{env_us:>8.2f}{comp:>13.3f}",
            f"{fixed:>10.3f}{_met(fixed, TARGET_FIXED_MS):>8}{gain:>8.1f}x",
            f"{cold:>8.1f}{'' if np.isnan(cold) else _met(cold, TARGET_COLD_S):>8}",
            f"{warm:>8.2f}{'' if np.isnan(warm) else _met(warm, TARGET_WARM_S):>8}",
        ]
        print("".join(cells), flush=True)
        rows.append((label, parts))
    if args.rounds > 1:
        print(f"\nEach of the {args.rounds} rounds (the table shows the best): ask/tell us | fixed ms")
        for label in labels:
            runs = seen[label]
            print(f"{label:<11}" + " ".join(f"{r[0]:5.2f}" for r in runs) + "   |   "
                  + " ".join(f"{r[3]:6.3f}" for r in runs))  # fmt: skip
    if spreads and len(spreads[0][1]) > 1:
        n_runs = len(spreads[0][1])
        print(f"\nCold / warm compile, each of the {n_runs} runs [s] (the table shows the median)")
        for label, colds, warms in spreads:
            print(f"{label:<11}cold " + " ".join(f"{c:5.1f}" for c in colds) + "   warm "
                  + " ".join(f"{w:5.2f}" for w in warms))  # fmt: skip
    if args.breakdown:
        print("\nFixed cost of one 100-sample run, median parts [ms] (run: minus the per-sample work)")
        for label, parts in rows:
            print(f"{label:<11}" + "".join(f"{k} {v:7.3f}   " for k, v in parts.items()))


if __name__ == "__main__":
    main()
