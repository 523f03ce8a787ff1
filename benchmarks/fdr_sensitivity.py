"""Sensitivity of the FDR claims (Camilleri et al. 2022, Sec. 5) to the open choices of Algorithm 2.

Usage::

    SAFEBANDITS_DATA=... .venv/bin/python benchmarks/fdr_sensitivity.py german --trials 50 \
        --set sigma=1.0 --out sweep.jsonl
    .venv/bin/python benchmarks/fdr_sensitivity.py --summary sweep.jsonl

Runs Active (``fdr-active``) and Passive (``fdr-passive``) for ``--trials`` trials on one pool with the
given learner settings (``--set KEY=VALUE``, repeatable: ``batch_size``, ``n_initial``, ``alpha``,
``n_classifiers``, ``sigma``; ``--q`` the FDR level; ``--budget`` labels; half-circle pool options with
``--pool-set``), appends one JSON line per (setting, method) with the per-trial curves, and
``--summary`` prints, per setting, the trial means and standard errors at the paper's label counts and
the "half the labels" ratio of ``claims_fdr``. Trial ``t`` of every setting uses the seeds
``(seed, t)`` for the learner and the labels, so methods and settings share their initial labels when
their ``n_initial`` agree. Single process; the evidence in ``docs/decisions/beside.md`` ("Active
classification under an FDR constraint", sensitivity) was produced with it. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from safebandits.algorithms import make_learner
from safebandits.classification.problem import run_classification
from safebandits.papers.beside.claims_fdr import HALF_FACTOR, labels_to_reach
from safebandits.papers.beside.fdr import TICKS
from safebandits.papers.beside.instances_fdr import adult, german, half_circle

DEFAULTS = {
    "adult": {"q": 0.15, "batch_size": 25, "n_initial": 50, "budget": 2000},
    "german": {"q": 0.3, "batch_size": 10, "n_initial": 50, "budget": 600},
    "halfcircle": {"q": 0.15, "batch_size": 10, "n_initial": 20, "budget": 300},
}


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def run(args: argparse.Namespace) -> None:
    d = DEFAULTS[args.pool]
    q = d["q"] if args.q is None else args.q
    budget = d["budget"] if args.budget is None else args.budget
    params = {"batch_size": d["batch_size"], "n_initial": d["n_initial"]}
    params.update({k: _value(v) for k, v in (s.split("=", 1) for s in args.set)})
    pool_params = {k: _value(v) for k, v in (s.split("=", 1) for s in args.pool_set)}
    fixed = {"adult": adult, "german": german}
    base = fixed[args.pool](q=q) if args.pool in fixed else None
    for method in args.methods:
        cfg = dict(params)
        if method == "fdr-passive":
            cfg = {k: v for k, v in cfg.items() if k in ("batch_size", "n_initial", "alpha")}
        curves, walls = [], []
        for t in range(args.trials):
            inst = base
            if inst is None:
                inst = half_circle(rng=np.random.default_rng([args.seed, t, 7]), q=q, **pool_params)
            learner = make_learner(method, inst.public_info(), np.random.default_rng([args.seed, t]), cfg)
            env = inst.environment(np.random.default_rng([args.seed, t, 1]))
            res = run_classification(learner, env, inst, budget=budget)
            curves.append(res.curves)
            walls.append(res.wall_s)
        row = {
            "pool": args.pool,
            "tag": args.tag or json.dumps({**params, **pool_params, "q": q}, sort_keys=True),
            "method": method,
            "q": q,
            "params": cfg,
            "pool_params": pool_params,
            "budget": budget,
            "trials": args.trials,
            "seed": args.seed,
            "wall_s_mean": float(np.mean(walls)),
            "curves": curves,
        }
        with open(args.out, "a") as fh:
            fh.write(json.dumps(row) + "\n")
        wall = np.mean(walls)
        print(f"{args.pool} {method} {row['tag']}: {args.trials} trials, {wall:.2f} s/trial", flush=True)


def _stats(curves: list[dict]) -> pd.DataFrame:
    long = pd.concat([pd.DataFrame(c).assign(run=i) for i, c in enumerate(curves)], ignore_index=True)
    g = long.drop(columns="run").groupby("labels")
    return g.mean().join(g.sem().add_suffix("_sem"))


def _se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")


def frontier(pool_name: str):
    """Best accuracy with pool FDR <= f, and best recall with precision >= p, over the thresholds of a
    logistic score fitted on the whole labelled pool (a reference classifier of the same class)."""
    from safebandits.classification.data import load_adult, load_german
    from safebandits.classification.oracles import fit_logistic

    pool = {"adult": load_adult, "german": load_german}[pool_name]()
    s = fit_logistic(pool.features, pool.eta, alpha=1.0).scores(pool.features)
    y = pool.eta[np.argsort(-s)]
    k = np.arange(1, y.size + 1)
    tp = np.cumsum(y)
    fdr = (k - tp) / k
    acc = (tp + (y.size - k) - (y.sum() - tp)) / y.size
    rec = tp / y.sum()

    def best_acc(f: float) -> float:
        ok = fdr <= f + 1e-12
        return float(max(acc[ok].max() if ok.any() else 0.0, 1.0 - y.mean()))

    def best_recall(p: float) -> float:
        ok = 1.0 - fdr >= p - 1e-12
        return float(rec[ok].max()) if ok.any() else 0.0

    return best_acc, best_recall


def _gaps(curves: list[dict], tick: int, best_acc, best_recall) -> tuple[np.ndarray, np.ndarray]:
    """Per trial at ``tick``: accuracy below the frontier at its own FDR, recall below it at its precision."""
    acc_gap, rec_gap = [], []
    for c in curves:
        i = c["labels"].index(float(tick))
        acc_gap.append(best_acc(c["fdr"][i]) - c["accuracy"][i])
        rec_gap.append(best_recall(c["precision"][i]) - c["recall"][i])
    return np.array(acc_gap), np.array(rec_gap)


def summary(paths: list[str]) -> None:
    rows = [json.loads(line) for p in paths for line in open(p) if line.strip()]
    groups: dict[tuple, dict] = {}
    for r in rows:
        groups.setdefault((r["pool"], r["tag"]), {})[r["method"]] = r
    passive_by_cfg = {
        (r["pool"], r["q"], json.dumps({"alpha": 1.0, **r["params"]}, sort_keys=True)): r
        for r in rows
        if r["method"] == "fdr-passive" and not r["pool_params"]
    }
    fronts: dict[str, tuple] = {}
    for (pool, tag), methods in groups.items():
        if "fdr-passive" not in methods and "fdr-active" in methods:  # share Passive of the same schedule
            r = methods["fdr-active"]
            cfg = {k: v for k, v in r["params"].items() if k in ("batch_size", "n_initial", "alpha")}
            key = (pool, r["q"], json.dumps({"alpha": 1.0, **cfg}, sort_keys=True))
            if key in passive_by_cfg and passive_by_cfg[key]["trials"] >= r["trials"]:
                shared = dict(passive_by_cfg[key])  # (trial t has the same seeds in every setting)
                shared["curves"] = shared["curves"][: r["trials"]]
                methods["fdr-passive"] = shared
        if {"fdr-active", "fdr-passive"} - set(methods):
            continue
        a, p = _stats(methods["fdr-active"]["curves"]), _stats(methods["fdr-passive"]["curves"])
        n = methods["fdr-active"]["trials"]
        print(f"\n== {pool} {tag} ({n} trials; Active {methods['fdr-active']['wall_s_mean']:.1f} s/trial)")
        name = {"adult": "fdr-adult", "german": "fdr-german", "halfcircle": "fdr-halfcircle"}[pool]
        metrics = ("accuracy", "fdr", "precision", "recall")
        print("labels  " + "  ".join(f"{m:>22}" for m in metrics) + "   (Active - Passive, se)")
        for t in TICKS[name]:
            if t not in a.index or t not in p.index:
                continue
            cells = []
            for m in metrics:
                diff = a.loc[t, m] - p.loc[t, m]
                se = float(np.hypot(a.loc[t, f"{m}_sem"], p.loc[t, f"{m}_sem"]))
                cells.append(f"{a.loc[t, m]:.3f}/{p.loc[t, m]:.3f} {diff:+.3f}({se:.3f})")
            print(f"{t:>6}  " + "  ".join(f"{c:>22}" for c in cells))
        if pool in ("adult", "german"):
            if pool not in fronts:
                fronts[pool] = frontier(pool)
            for t in TICKS[name]:
                if t not in a.index or t not in p.index:
                    continue
                ga = _gaps(methods["fdr-active"]["curves"], t, *fronts[pool])
                gp = _gaps(methods["fdr-passive"]["curves"], t, *fronts[pool])
                print(
                    f"{t:>6}  below frontier: accuracy@own FDR A {ga[0].mean():.4f}({_se(ga[0]):.4f}) "
                    f"P {gp[0].mean():.4f}({_se(gp[0]):.4f}); recall@own precision "
                    f"A {ga[1].mean():.3f}({_se(ga[1]):.3f}) P {gp[1].mean():.3f}({_se(gp[1]):.3f})"
                )
        half = {"adult": [("fdr", True, HALF_FACTOR)], "german": [("precision", False, HALF_FACTOR)]}.get(
            pool, [("recall", False, 0.5), ("precision", False, 0.5)]
        )
        for metric, lower, factor in half:
            target = float(p[metric].iloc[-1])
            n_p = labels_to_reach(p, metric, target, lower_is_better=lower)
            n_a = labels_to_reach(a, metric, target, lower_is_better=lower)
            verdict = "PASS" if n_a / n_p <= factor else "FAIL"
            print(
                f"half({metric}): target {target:.3f}, Active {n_a:.0f} / Passive {n_p:.0f} = "
                f"{n_a / n_p:.2f} (<= {factor}) {verdict}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pool", nargs="?", choices=sorted(DEFAULTS))
    parser.add_argument("--trials", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--q", type=float, default=None)
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--pool-set", action="append", default=[])
    parser.add_argument("--methods", nargs="+", default=["fdr-active", "fdr-passive"])
    parser.add_argument("--tag", default=None)
    parser.add_argument("--out", default="fdr_sensitivity.jsonl")
    parser.add_argument("--summary", nargs="+", default=None, metavar="JSONL")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
        return
    t0 = time.perf_counter()
    run(args)
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
