"""Record trajectories of the reference package ``safeopt`` 0.16 (Berkenkamp et al.) for the test of
SafeOpt's ``variant="berkenkamp"`` (issue 40).

Runs in its own venv (``sh benchmarks/setup_safeopt_venv.sh`` makes ``.venv-safeopt``; this project is
not installed there and not imported here)::

    .venv-safeopt/bin/python benchmarks/record_safeopt.py            # writes the file below
    .venv-safeopt/bin/python benchmarks/record_safeopt.py --check    # records again, compares
    .venv-safeopt/bin/python benchmarks/record_safeopt.py --bench FILE --rounds 20   # timing (bench_...py)

Problems: finite domains in 1-D (``N1`` points drawn uniformly in [0, 1], sorted) and 2-D (a ``side`` x
``side`` grid of [0, 1]^2, each point moved by a uniform jitter of a third of the spacing, so that no two
points are at exactly the same distance from a third: the choice is decided by the numbers, not by
round-off between equal ones); ``f`` and ``g`` one draw each from GPs with squared-exponential kernels
(different lengthscales and variances for ``f`` and ``g``, so the reference's scaling of the widths
matters); one safe seed drawn at random among the points and ``g`` shifted so that the seed has
``g = -0.5 sqrt(var_g)`` (the package's sign convention: safety value ``-g``, threshold ``fmin = 0``);
Gaussian noise ``sigma = 0.05`` on both (the GPs are told ``sigma^2``); ``beta = 2`` (the package's
default); ``T`` rounds after the seed's observation.

The package is run as documented: two ``GPy.models.GPRegression`` (objective ``f``, safety ``-g``) with
``GPy.kern.RBF`` kernels of the true parameters, conditioned on the seed's observation, and
``safeopt.SafeOpt([gp_f, gp_s], points, fmin=[-inf, 0], beta=2)`` without a Lipschitz constant (its
default); each round ``optimize()``, then ``add_new_data_point`` with the observation.

Written (``tests/data/safeopt_reference/trajectories.npz``, no pickled objects): per run ``k`` the points
``r{k}_points`` (n, d), the truths ``r{k}_f``, ``r{k}_g`` (n,), the kernel and noise parameters
``r{k}_params`` (lengthscale_f, variance_f, lengthscale_g, variance_g, noise variance, beta), the arms
``r{k}_arms`` (T + 1,: the seed, then the package's choices, as indices of the points), the observations
``r{k}_obs`` (T + 1, 2: reward ``f + eps``, constraint ``g + eps~``, in this package's convention), the
sizes of the package's sets after each choice ``r{k}_sets`` (T, 3: S, M, G) and two margins per round
``r{k}_margins`` (T, 2): the gap between the widest and the second widest candidate of ``M u G``
(relative to the widest) and the smallest ``|lower bound of -g|`` over the points (how far the safe set
is from a round-off flip). The file's ``meta`` is a JSON string (versions, settings).
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import json
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

if not hasattr(collections, "Sequence"):  # safeopt 0.16 imports collections.Sequence (gone in 3.10)
    collections.Sequence = collections.abc.Sequence  # type: ignore[attr-defined]

import GPy
import safeopt

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "safeopt_reference" / "trajectories.npz"
SIGMA = 0.05
BETA = 2.0
T = 40
N1 = 100
SIDE = 15
SETTINGS = {
    1: dict(ls_f=0.15, var_f=1.0, ls_g=0.1, var_g=2.0),
    2: dict(ls_f=0.3, var_f=1.0, ls_g=0.2, var_g=2.0),
}


def se(x: np.ndarray, lengthscale: float, variance: float) -> np.ndarray:
    sq = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    return variance * np.exp(-0.5 * sq / lengthscale**2)


def problem(dim: int, seed: int) -> dict:
    rng = np.random.default_rng(1000 * dim + seed)
    if dim == 1:
        pts = np.sort(rng.uniform(0.0, 1.0, N1))[:, None]
    else:
        g1 = np.linspace(0.0, 1.0, SIDE)
        pts = np.array([(a, b) for a in g1 for b in g1])
        pts = pts + rng.uniform(-1.0, 1.0, pts.shape) / (3.0 * (SIDE - 1))
    s = SETTINGS[dim]
    n = pts.shape[0]
    jitter = 1e-9 * np.eye(n)
    f = np.linalg.cholesky(se(pts, s["ls_f"], s["var_f"]) + jitter) @ rng.standard_normal(n)
    h = np.linalg.cholesky(se(pts, s["ls_g"], s["var_g"]) + jitter) @ rng.standard_normal(n)
    seed_arm = int(rng.integers(n))
    g = h - h[seed_arm] - 0.5 * np.sqrt(s["var_g"])
    noise = SIGMA * rng.standard_normal((T + 1, 2))
    params = np.array([s["ls_f"], s["var_f"], s["ls_g"], s["var_g"], SIGMA**2, BETA])
    return dict(points=pts, f=f, g=g, seed=seed_arm, noise=noise, params=params)


def run(p: dict, rounds: int = T) -> dict:
    pts, f, g, noise = p["points"], p["f"], p["g"], p["noise"]
    ls_f, var_f, ls_g, var_g, lam, beta = p["params"]
    d = pts.shape[1]
    i0 = p["seed"]
    obs = [(f[i0] + noise[0, 0], g[i0] + noise[0, 1])]
    x0 = pts[[i0]]
    gp_f = GPy.models.GPRegression(
        x0, np.array([[obs[0][0]]]), GPy.kern.RBF(d, variance=var_f, lengthscale=ls_f), noise_var=lam
    )
    gp_s = GPy.models.GPRegression(
        x0, np.array([[-obs[0][1]]]), GPy.kern.RBF(d, variance=var_g, lengthscale=ls_g), noise_var=lam
    )
    opt = safeopt.SafeOpt([gp_f, gp_s], pts, fmin=[-np.inf, 0.0], beta=beta)
    arms, sets, margins = [i0], [], []
    t0 = time.perf_counter()
    for t in range(1, rounds + 1):
        x = opt.optimize()
        hit = np.flatnonzero(np.all(pts == x[None, :], axis=1))
        assert hit.size == 1, "the package returned a point that is not one of the domain's"
        i = int(hit[0])
        lo, up = opt.Q[:, ::2], opt.Q[:, 1::2]
        mg = np.flatnonzero(opt.M | opt.G)
        value = np.sort(np.max((up[mg] - lo[mg]) / opt.scaling, axis=1))[::-1]
        gap = (value[0] - value[1]) / value[0] if value.size > 1 else 1.0
        margins.append((gap, float(np.min(np.abs(opt.Q[:, 2])))))
        sets.append((int(opt.S.sum()), int(opt.M.sum()), int(opt.G.sum())))
        y = (f[i] + noise[t, 0], g[i] + noise[t, 1])
        obs.append(y)
        arms.append(i)
        opt.add_new_data_point(x, np.array([[y[0], -y[1]]]))
    seconds = time.perf_counter() - t0
    out = dict(arms=np.array(arms), obs=np.array(obs), sets=np.array(sets), margins=np.array(margins))
    return {**out, "seconds": seconds}


def bench(path: str, rounds: int) -> None:
    """``--bench FILE``: run the package on the problem of ``FILE`` (an ``.npz`` written by
    ``benchmarks/bench_safeopt_reference.py``: points, f, g, seed, noise, params), once timed and once under
    ``tracemalloc``; print one JSON line (seconds per round, peak traced MB, the arms)."""
    with np.load(path, allow_pickle=False) as z:
        p = {k: z[k] for k in ("points", "f", "g", "noise", "params")}
        p["seed"] = int(z["seed"])
    r = run(p, rounds)
    tracemalloc.start()
    run(p, rounds)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    line = {"per_round": r["seconds"] / rounds, "peak_mb": peak / 2**20, "arms": r["arms"].tolist()}
    print(json.dumps(line))


def record(seeds: int) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    k = 0
    for dim in (1, 2):
        for seed in range(seeds):
            p = problem(dim, seed)
            r = run(p)
            out.update({f"r{k}_{key}": p[key] for key in ("points", "f", "g", "params")})
            out.update({f"r{k}_{key}": r[key] for key in ("arms", "obs", "sets", "margins")})
            m = r["margins"]
            print(
                f"run {k}: {dim}-D seed {seed}, n = {p['points'].shape[0]}, distinct arms "
                f"{np.unique(r['arms']).size}, final |S| {r['sets'][-1, 0]}, smallest margins "
                f"{m[:, 0].min():.1e} (choice) {m[:, 1].min():.1e} (safe set)",
                flush=True,
            )
            k += 1
    meta = {
        "package": f"safeopt {getattr(safeopt, '__version__', '0.16')}",
        "GPy": GPy.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "runs": k,
        "rounds": T,
        "sigma": SIGMA,
        "beta": BETA,
        "settings": {str(d): s for d, s in SETTINGS.items()},
    }
    out["meta"] = np.array(json.dumps(meta, sort_keys=True))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=8, help="runs per dimension")
    parser.add_argument("--check", action="store_true", help="record again and compare with the file")
    parser.add_argument("--bench", metavar="FILE", help="time the package on the problem in FILE (.npz)")
    parser.add_argument("--rounds", type=int, default=T, help="rounds of --bench")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.bench:
        bench(args.bench, args.rounds)
        return
    data = record(args.seeds)
    if args.check:
        old = np.load(OUT, allow_pickle=False)
        same = all(np.array_equal(old[k], data[k]) for k in data if k != "meta" and not k.endswith("margins"))
        print("same arms, observations and sets as the file" if same else "DIFFERENT from the file")
        sys.exit(0 if same else 1)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **data)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
