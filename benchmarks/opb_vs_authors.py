"""OPB on the four-arm instance against the authors' code (issue 31; ``docs/decisions/stagewise.md``).

    python benchmarks/opb_vs_authors.py [--horizons 1000 10000] [--runs 10] [--tau 0.5]

Runs the library's OPB with the authors' constants (``radii="code"``: alpha_r = 1 + 1/tau, alpha_c = 1;
``confidence="code"``: delta' = 1/T^2) in four variants: the paper's Bernoulli arms or the authors'
clipped Gaussian (sd 0.1), crossed with the library's closed-form LP or SciPy's ``linprog`` (the authors'
solver), and prints the mean policy regret, its standard deviation and standard error over the runs
(learner seed ``s``, environment seed ``10_000 + s``, ``s = 0 .. runs - 1``) beside the authors' numbers
measured with their code (``pacchiano/constrainedBandits``, ``utilities.ConstrainedBandit`` unmodified,
tau = 0.5, seeds ``np.random.seed(s)``): T = 1,000: 556.9 (sd 0.48, 10 runs); T = 10^4: 2,071.2 (sd
56.7, 5 runs).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.opb import OPBConfig
from safebandits.problems import make_instance

#: The authors' code's policy regret at tau = 0.5 (measured; mean, sd, runs), by horizon.
AUTHORS = {1000: (556.9, 0.48, 10), 10_000: (2071.2, 56.7, 5)}


def policy_regret(tau: float, horizon: int, noise: str, lp_solver: str, seed: int) -> float:
    inst = make_instance("stagewise/four-arm", tau=tau, T=horizon, noise=noise)
    cfg = OPBConfig(radii="code", confidence="code", lp_solver=lp_solver)
    learner = make_learner("opb", inst.public_info(), np.random.default_rng(seed), config=cfg)
    blk = learner.simulate(inst.environment(np.random.default_rng(10_000 + seed)), horizon)
    return float(np.sum(inst.optimal_policy_value - blk.probs @ inst.arm_rewards))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--horizons", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--tau", type=float, default=0.5)
    args = parser.parse_args()
    print("| T | noise | LP | policy regret mean | sd | se | runs | authors' code | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for horizon in args.horizons:
        for noise in ("bernoulli", "clipped-gaussian"):
            for lp in ("closed-form", "linprog"):
                t0 = time.perf_counter()
                r = np.array([policy_regret(args.tau, horizon, noise, lp, s) for s in range(args.runs)])
                ref = AUTHORS.get(horizon)
                ref_text = f"{ref[0]:,.1f} (sd {ref[1]:.2f}, {ref[2]} runs)" if ref else "-"
                sd = r.std(ddof=1) if len(r) > 1 else float("nan")
                se = sd / np.sqrt(len(r))
                print(f"| {horizon:,} | {noise} | {lp} | {r.mean():,.1f} | {sd:.2f} | {se:.2f} "
                      f"| {len(r)} | {ref_text} | {time.perf_counter() - t0:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
