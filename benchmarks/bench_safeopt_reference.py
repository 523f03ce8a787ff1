"""SafeOpt per round against the reference package ``safeopt`` 0.16 at 100, 900 and 10,000 points (issue 40).

Usage::

    .venv/bin/python benchmarks/bench_safeopt_reference.py                  # 100, 900 (a minute or two)
    .venv/bin/python benchmarks/bench_safeopt_reference.py --sizes 100,900,10000 --rounds 20

The package runs in its own venv (``sh benchmarks/setup_safeopt_venv.sh`` makes ``.venv-safeopt``; its
rows are left out with a note when that venv is absent, or with ``--no-package``), through
``benchmarks/record_safeopt.py --bench``, on the same problem, noise and observations.

Problem: a jittered ``m x m`` grid of [0, 1]^2 (each point moved by up to a third of the spacing; ``n =
m^2``), ``f(x) = exp(-|x - (0.7, 0.6)|^2 / 0.08) - 0.5 |x - (0.5, 0.5)|^2`` and ``g(x) = |x - (0.45,
0.5)|^2 / 0.2 - 1`` (safe inside a disc of radius 0.45 around (0.45, 0.5)); the safe seed the point
nearest (0.45, 0.5); squared-exponential kernels (lengthscale 0.2, variance 1) given by their coordinates
(:class:`~safebandits.estimators.gp.PointKernel`: no ``n x n`` kernel matrix on our side); Gaussian noise
``sigma = 0.05``, the GPs told ``sigma^2``; ``beta = 2`` for every method (``confidence="constant"``, the
package's default); ``B = G = 1`` (``L = G`` in the kernel metric for Sui et al.'s form).

Rows: ``sui`` (our default form, ``safe_set="full"``), ``sui, incremental`` (``safe_set="incremental"``),
``berkenkamp`` (``variant="berkenkamp"``) and ``safeopt 0.16``. Columns: milliseconds per round (wall
time of the rounds after construction, one thread), the peak of the memory traced by ``tracemalloc``
over construction and rounds (a second run; numpy's and the package's arrays), the final safe set size,
and for ``berkenkamp`` whether it played the package's arms in every round. Not collected by pytest; no
asserts (``tests/unit/algorithms/test_safeopt_reference.py`` checks the trajectories).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from safebandits.algorithms import make_learner  # noqa: E402
from safebandits.estimators.gp import PointKernel  # noqa: E402
from safebandits.problems.kernel import KernelInfo  # noqa: E402
from safebandits.types import Observation  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_PY = ROOT / ".venv-safeopt" / "bin" / "python"
SIGMA, BETA, LENGTHSCALE = 0.05, 2.0, 0.2
METHODS = {
    "sui": {},
    "sui, incremental": {"safe_set": "incremental"},
    "berkenkamp": {"variant": "berkenkamp"},
}


def problem(n: int, rounds: int) -> dict:
    """The benchmark problem on about ``n`` points (module docstring)."""
    m = round(n**0.5)
    rng = np.random.default_rng(m)
    g1 = np.linspace(0.0, 1.0, m)
    pts = np.stack(np.meshgrid(g1, g1, indexing="ij"), -1).reshape(-1, 2)
    pts = pts + rng.uniform(-1.0, 1.0, pts.shape) / (3.0 * (m - 1))
    f = np.exp(-((pts - (0.7, 0.6)) ** 2).sum(1) / 0.08) - 0.5 * ((pts - 0.5) ** 2).sum(1)
    centre = np.array([0.45, 0.5])
    g = ((pts - centre) ** 2).sum(1) / 0.2 - 1.0
    seed = int(np.argmin(((pts - centre) ** 2).sum(1)))
    noise = SIGMA * rng.standard_normal((rounds + 1, 2))
    params = np.array([LENGTHSCALE, 1.0, LENGTHSCALE, 1.0, SIGMA**2, BETA])
    return dict(points=pts, f=f, g=g, seed=seed, noise=noise, params=params)


def ours(p: dict, options: dict, rounds: int) -> tuple[float, int, list[int]]:
    """Build and run one learner; returns (seconds per round, final safe set size, arms)."""
    pts = p["points"]
    kern = PointKernel(pts, lengthscale=LENGTHSCALE, variance=1.0)
    info = KernelInfo(
        kernel=kern, constraint_kernel=kern, points=pts, reward_bound=1.0, constraint_bound=1.0,
        noise_bound=SIGMA, constraint_noise_bound=SIGMA, slater=0.1, horizon=rounds + 1,
        safe_seed=(p["seed"],),
    )  # fmt: skip
    cfg = {"confidence": "constant", "constant_beta": BETA, "gp_noise": SIGMA**2, **options}
    learner = make_learner("safeopt", info, np.random.default_rng(0), cfg)
    arms = []
    t0 = 0.0
    for t in range(rounds + 1):
        if t == 1:  # (round 0 plays the seed: the package is handed its observation at construction)
            t0 = time.perf_counter()
        d = learner.ask()
        i = int(d.arm)
        arms.append(i)
        y = Observation(
            reward=p["f"][i] + p["noise"][t, 0], constraints=np.array([p["g"][i] + p["noise"][t, 1]])
        )
        learner.tell(d, y)
    return (time.perf_counter() - t0) / rounds, int(learner.safe.sum()), arms


def traced_peak(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def package(p: dict, rounds: int) -> dict | None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "problem.npz"
        np.savez(path, **p)
        out = subprocess.run(
            [str(PACKAGE_PY), str(ROOT / "benchmarks" / "record_safeopt.py"), "--bench", str(path),
             "--rounds", str(rounds)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,900", help="comma-separated numbers of points")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--no-package", action="store_true", help="our rows only")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with_package = not args.no_package and PACKAGE_PY.exists()
    print(f"SafeOpt against safeopt 0.16: {args.rounds} rounds after the seed, beta = 2 (one thread)")
    if not with_package:
        print("(the package's rows left out: no .venv-safeopt; sh benchmarks/setup_safeopt_venv.sh)")
    print(f"{'points':>7}  {'method':<18}{'ms/round':>10}{'peak MB':>10}{'|S| at T':>10}{'= package':>11}")
    for n in sizes:
        p = problem(n, args.rounds)
        ref = package(p, args.rounds) if with_package else None
        for label, options in METHODS.items():
            per, size, arms = ours(p, options, args.rounds)
            peak = traced_peak(lambda p=p, o=options: ours(p, o, args.rounds))
            same = "" if ref is None or label != "berkenkamp" else ("yes" if arms == ref["arms"] else "no")
            print(
                f"{p['points'].shape[0]:>7}  {label:<18}{1e3 * per:>10.2f}{peak:>10.1f}{size:>10}{same:>11}"
            )
        if ref is not None:
            print(f"{p['points'].shape[0]:>7}  {'safeopt 0.16':<18}{1e3 * ref['per_round']:>10.2f}"
                  f"{ref['peak_mb']:>10.1f}{'':>10}{'':>11}")  # fmt: skip


if __name__ == "__main__":
    main()
