"""Where CKB's constraint violations come from (Zhou & Ji 2022, Sec. 5; issue 31).

Usage::

    .venv/bin/python benchmarks/ckb_violations.py synthetic --draws 50 --T 10000 --lambdas 1 0.01
    SAFEBANDITS_DATA=... .venv/bin/python benchmarks/ckb_violations.py light --draws 50 --T 1000
    .venv/bin/python benchmarks/ckb_violations.py synthetic --draws 10 --set beta_scale=0.5 --out x.jsonl

Runs CKB-UCB, CKB-TS and CKB-Rand (``--variants``; ``ucb-slack`` is CKB-UCB with ``slack="auto"``) through
the public ask / tell protocol, round by round, for every GP noise ``lambda`` in ``--lambdas`` (the other
learner settings from ``--set KEY=VALUE``), and prints one row per (variant, lambda):

* ``binding``: draws where the optimal policy ``pi*`` (the LP of the stronger regret ``R+``) mixes two
  points, i.e. the constraint binds at the optimum; ``forced N``: ``T`` times the mass ``pi*`` puts on
  infeasible points (the violating rounds that following ``pi*`` takes; any learner with sublinear ``R+``
  plays infeasible points ``Theta(T)`` times on such a draw);
* ``N`` (mean and median) on the draws where the constraint does not bind and on those where it does;
  ``V>0``: runs with ``V(T) = [sum_t g(x_t)]_+ > 0``;
* ``early``: share of the violating rounds in the first tenth of the horizon; ``optimistic``: share of
  violating rounds where the algorithm's own truncated estimate ``g-_t(x_t)`` (the one line 8 of
  Algorithm 1 feeds to the dual) was ``< 0``, i.e. the algorithm believed the point feasible (the rest are
  the primal-dual time-sharing that a positive ``phi_t`` buys knowingly); ``... free``: the same on the
  draws where the constraint does not bind;
* ``phi``: the dual variable ``phi_t`` at ``t = T/100, T/10, T`` (median over runs) and its share of ``rho``;
* ``R+``: the mean stronger regret.

Draw ``d`` uses the seeds ``(seed, d)`` for the instance, ``(seed, d, 1)`` for the noise and ``(seed, d, 2)``
for the learner, so variants and lambdas share draws and noise; with ``--keys SEED:SWEEP_POINT`` (the
``seed`` and ``sweep_point`` columns of a stored paper run, e.g. ``0:3517268056`` for ``ckb-synthetic``)
draw ``d`` is replicate ``d`` of that experiment, run with its own seeds, so at ``lambda = 1`` the rows
reproduce the stored runs (their ``N`` and ``sum g``) with the per-round detail added. Single process,
not collected by pytest; the evidence in ``docs/decisions/ckb.md`` (issue 31) was produced with it.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from safebandits.algorithms import make_learner
from safebandits.experiments.spec import parse_assignments
from safebandits.problems.registry import make_instance
from safebandits.rng import RunKey, environment_rng, instance_rng, learner_rng

INSTANCES = {"synthetic": "ckb/synthetic", "light": "ckb/light", "finance": "ckb/finance"}
VARIANTS = {"ucb": ("ckb-ucb", {}), "ts": ("ckb-ts", {}), "rand": ("ckb-rand", {}),
            "ucb-slack": ("ckb-ucb", {"slack": "auto"})}  # fmt: skip
#: The method labels of the paper experiments (``--keys``: their run keys' learner seeds).
LABELS = {"ucb": "CKB-UCB", "ts": "CKB-TS", "rand": "CKB-Rand", "ucb-slack": "CKB-UCB (slack)"}


def _rngs(problem: str, draw: int, variant: str, seed: int, keys: tuple[int, int] | None):
    """Generators of the instance (synthetic only), the noise and the learner: the script's own seeds, or
    (``keys = (experiment seed, sweep point)``) those of the stored run ``replicate = draw`` of the paper
    experiment, so that the run is the stored one (same draw, noise and learner randomness)."""
    if keys is None:
        return (np.random.default_rng([seed, draw]), np.random.default_rng([seed, draw, 1]),
                np.random.default_rng([seed, draw, 2]))  # fmt: skip
    key = RunKey(keys[0], keys[1], LABELS[variant], draw)
    return instance_rng(key), environment_rng(key), learner_rng(key)


def one_run(
    problem: str, draw: int, horizon: int, variant: str, settings: dict, seed: int, keys=None
) -> dict:
    """One run of a CKB variant; the per-run record of the table (see the module docstring)."""
    name = INSTANCES[problem]
    rng_i, rng_e, rng_l = _rngs(problem, draw, variant, seed, keys)
    inst = make_instance(name, rng_i if problem == "synthetic" else None, T=horizon)
    env = inst.environment(rng_e)
    alg, extra = VARIANTS[variant]
    learner = make_learner(alg, inst.public_info(), rng_l, {"delta": 0.05, **extra, **settings})
    f, g = inst.reward, inst.constraint
    xs = np.empty(horizon, dtype=np.int64)
    g_est = np.empty(horizon)
    phi = np.empty(horizon + 1)
    for t in range(horizon):
        phi[t] = learner.phi
        decision = learner.ask()
        xs[t] = decision.arm
        g_est[t] = learner.last_estimates[1]
        learner.tell(decision, env.pull(int(decision.arm)))
    phi[horizon] = learner.phi
    viol = g[xs] > 1e-12
    pi = inst.optimal_policy
    n_viol = int(viol.sum())
    return {
        "problem": problem, "variant": variant, "draw": draw, "T": horizon,
        "lambda": float(learner.gp_f.noise_var), "rho": learner.rho, "V_step": learner.step,
        "binding": bool((pi > 1e-9).sum() > 1), "forced_N": float(horizon * pi[g > 1e-12].sum()),
        "N": n_viol, "sum_g": float(g[xs].sum()), "N_early": int(viol[: horizon // 10].sum()),
        "N_optimistic": int((viol & (g_est < 0.0)).sum()),
        "phi_1pc": float(phi[horizon // 100]), "phi_10pc": float(phi[horizon // 10]), "phi_T": float(phi[-1]),
        "rounds_at_rho": learner.rounds_at_rho,
        "R": float(horizon * inst.optimal_value - f[xs].sum()),
        "R_plus": float(horizon * inst.optimal_policy_value - f[xs].sum()),
    }  # fmt: skip


def summary(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (variant, lam), sub in df.groupby(["variant", "lambda"], sort=False):
        free, bind = sub[~sub["binding"]], sub[sub["binding"]]
        n, n_free = sub["N"].sum(), free["N"].sum()
        rows.append({
            "variant": variant, "lambda": lam, "runs": len(sub), "binding": len(bind),
            "N free mean": free["N"].mean(), "N free median": free["N"].median(),
            "N binding mean": bind["N"].mean(), "forced N": bind["forced_N"].mean(),
            "N all mean": sub["N"].mean(), "V>0": int((sub["sum_g"] > 1e-9).sum()),
            "V>0 free": int((free["sum_g"] > 1e-9).sum()),
            "early": sub["N_early"].sum() / n if n else float("nan"),
            "optimistic": sub["N_optimistic"].sum() / n if n else float("nan"),
            "optimistic free": free["N_optimistic"].sum() / n_free if n_free else float("nan"),
            "early free": free["N_early"].sum() / n_free if n_free else float("nan"),
            "phi T/100": sub["phi_1pc"].median(), "phi T/10": sub["phi_10pc"].median(),
            "phi T": sub["phi_T"].median(), "phi_T/rho max": (sub["phi_T"] / sub["rho"]).max(),
            "R+ mean": sub["R_plus"].mean(),
        })  # fmt: skip
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problem", choices=sorted(INSTANCES))
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--T", type=int, default=None, help="horizon (default: the instance's)")
    ap.add_argument("--variants", nargs="+", default=["ucb", "ts", "rand"], choices=sorted(VARIANTS))
    ap.add_argument("--lambdas", nargs="+", type=float, default=[1.0])
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--out", default=None, help="append the per-run records (JSON lines)")
    ap.add_argument(
        "--keys",
        default=None,
        metavar="SEED:SWEEP_POINT",
        help="use the run keys of a stored paper experiment (its 'seed' and 'sweep_point' columns): draw d "
        "is then replicate d of that experiment, with its instance, noise and learner seeds",
    )
    args = ap.parse_args()
    horizon = args.T or {"synthetic": 10_000, "light": 1_000, "finance": 10_000}[args.problem]
    settings = parse_assignments(tuple(args.sets))
    keys = tuple(int(v) for v in args.keys.split(":")) if args.keys else None
    records = []
    start = time.process_time()
    for lam in args.lambdas:
        for variant in args.variants:
            for d in range(args.draws):
                records.append(
                    one_run(args.problem, d, horizon, variant, {**settings, "gp_noise": lam}, args.seed, keys)
                )
    df = pd.DataFrame(records)
    if args.out:
        with open(args.out, "a") as fh:
            for rec in records:
                fh.write(json.dumps({**rec, "settings": settings}) + "\n")
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.precision", 3):
        print(f"{args.problem}, T = {horizon}, {args.draws} draws, settings {settings}")
        print(summary(df).to_string(index=False))
    print(f"CPU {time.process_time() - start:.1f} s")


if __name__ == "__main__":
    main()
