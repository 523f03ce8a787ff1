"""CKB-UCB / CKB-TS / SafeOpt / StageOpt against BoTorch's constrained acquisition (issue 33).

Usage (BoTorch lives in its own venv, never in the test venv; ``sh benchmarks/setup_botorch_venv.sh`` makes
``.venv-botorch``)::

    SAFEBANDITS_DATA=/path/to/data nice -n 10 .venv-botorch/bin/python benchmarks/bench_botorch.py
    .venv-botorch/bin/python benchmarks/bench_botorch.py --seeds 2 --horizon 30 --smoke   # a minute
    .venv/bin/python benchmarks/bench_botorch.py --no-botorch --seeds 2 --horizon 30      # ours only

Problems (finite domains; every method plays one domain point per round, feedback ``r = f(x) + eps``,
``c = g(x) + eps~`` with Gaussian noise ``sigma = 0.1`` on both, ``g <= 0`` feasible):

* ``synthetic``: ``ckb/synthetic`` on ``--n-synthetic`` (500) evenly spaced points of [0, 1]: ``f`` and
  ``g`` random RKHS functions of the SE kernel with lengthscale 0.2, a new pair per seed.
* ``light``: ``ckb/light`` (41 light sensors; ``k`` the correlation matrix of the training readings,
  ``g = -f + B/2``); needs the data (``$SAFEBANDITS_DATA`` or ``safebandits data fetch``): left out
  with a note when absent.
* ``gardner``: the constrained toy problem of Gardner et al. (ICML 2014, "simulation 1"): minimise
  ``cos(2 x1) cos(x2) + sin(x1)`` subject to ``cos(x1) cos(x2) - sin(x1) sin(x2) <= 0.5`` on ``[0, 6]^2``,
  on a ``--gardner-side`` x ``--gardner-side`` (24 x 24 = 576) grid; ``f`` = minus the objective and
  ``g`` = the constraint minus 0.5, each divided by its largest absolute value on the grid. Its "known"
  kernel is an SE kernel on the unit-scaled grid whose lengthscale is fitted once by type-II maximum
  likelihood to the noiseless ``f`` and ``g`` on the whole grid (an oracle choice, the same for every
  method).

Settings:

* ``known``: every method gets the truth's kernel and noise. CKB / SafeOpt / StageOpt run with their
  defaults (the paper's ``lambda = 1``, ``R = sigma``, ``delta = 0.05``; SafeOpt's guaranteed width),
  and CKB-UCB / CKB-TS once more with ``lambda = sigma^2`` (``gp_noise``: the GP told the true noise
  variance, as BoTorch is; the paper does not state its ``lambda``);
  BoTorch gets two ``SingleTaskGP`` (``f``, ``g``; a ``ModelListGP``) with that kernel as a fixed matrix
  (inputs are the point indices), a zero mean, the noise variance ``sigma^2`` fixed, no outcome transform,
  nothing fitted; each round it plays the argmax over the whole domain of the analytic
  ``LogConstrainedExpectedImprovement`` (objective ``f``, constraint ``g <= 0``) with ``best_f`` the
  largest posterior mean of ``f`` over the points played so far whose posterior mean of ``g`` is at most
  0 (the smallest posterior mean of ``f`` there when none is).
* ``ml``: hyperparameters from data. CKB-UCB / CKB-TS with ``hyperparameters="ml"`` (an SE kernel on the
  unit-scaled coordinates told a wrong lengthscale 0.5, refitted by type-II ML after 20, 40, 80, ...
  observations; ``gp_noise = sigma^2`` so that the likelihood is the right one; kernel variance 1; the
  noise is told, not fitted). **Their guarantee is lost** (``docs/decisions/ckb.md``). SafeOpt and
  StageOpt refuse ``hyperparameters="ml"`` (their Lipschitz safe set is built on the known metric) and
  have no row. BoTorch: ``SingleTaskGP`` defaults (RBF kernel with its priors, ``Standardize``
  outcomes, a learned noise) on the unit-scaled coordinates, all hyperparameters refitted with
  ``fit_gpytorch_mll`` every ``--refit-every`` rounds (1: every round, the usual BoTorch loop), the same
  acquisition.

Every method's first round is free to choose except BoTorch's, which plays the instance's safe seed
(the point SafeOpt and StageOpt are told is safe) to have one observation to condition on.

Columns (mean and standard error over seeds; the same draws and noise for every method of a seed, the
environment's variates are drawn per round): ``R(T)`` the cumulative regret ``sum_t f(x*) - f(x_t)``
against the best feasible point ``x*``, ``sum g+`` the cumulative violation ``sum_t [g(x_t)]_+``,
``N viol.`` the rounds with ``g(x_t) > 0``, ``ms/round`` CPU milliseconds per round
(``time.process_time`` over the whole run, model building, fitting and acquisition included).
The table is printed and written as markdown (``--out``). Not collected by pytest; no asserts
(``tests/unit/test_bench_botorch.py`` runs the builders and our runner on a tiny size).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from safebandits.algorithms import make_learner  # noqa: E402
from safebandits.estimators.gp import PointKernel, fit_lengthscale, se_kernel  # noqa: E402
from safebandits.experiments.regret_loop import run_regret  # noqa: E402
from safebandits.problems import make_instance  # noqa: E402
from safebandits.problems.kernel import DataNotFoundError, GaussianFeedback, KernelInstance  # noqa: E402
from safebandits.problems.stagewise import TOL  # noqa: E402

SIGMA = 0.1
#: Lengthscale told to the ``ml`` learners before their first fit (unit-scaled coordinates).
ML_START_LENGTHSCALE = 0.5
PROBLEMS = ("synthetic", "light", "gardner")
#: Our learners: label -> (registry name, config) per setting; SafeOpt / StageOpt refuse ``ml``.
OURS = {
    "known": {
        "CKB-UCB": ("ckb-ucb", {}),
        "CKB-TS": ("ckb-ts", {}),
        "SafeOpt": ("safeopt", {}),
        "StageOpt": ("stageopt", {}),
        "CKB-UCB lam=s^2": ("ckb-ucb", {"gp_noise": SIGMA**2}),
        "CKB-TS lam=s^2": ("ckb-ts", {"gp_noise": SIGMA**2}),
    },
    "ml": {
        "CKB-UCB": ("ckb-ucb", {"hyperparameters": "ml", "gp_noise": SIGMA**2}),
        "CKB-TS": ("ckb-ts", {"hyperparameters": "ml", "gp_noise": SIGMA**2}),
    },
}
BOTORCH_LABEL = "BoTorch LogCEI"


# --------------------------------------------------------------------------------------------------
# problems
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """One seed's instance and what the two settings tell: ``instance`` (truth, known kernel matrix),
    ``coords`` (n, d) the points scaled to the unit box (for the fitted kernels)."""

    name: str
    instance: KernelInstance
    coords: np.ndarray

    def ml_info(self) -> Any:
        """The learners' info of the ``ml`` setting: an SE kernel on the unit-scaled coordinates with the
        wrong lengthscale :data:`ML_START_LENGTHSCALE` (refitted from data)."""
        kern = PointKernel(self.coords, "se", lengthscale=ML_START_LENGTHSCALE)
        return dataclasses.replace(self.instance.public_info(), kernel=kern, constraint_kernel=kern)


def _unit(points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64)
    pts = pts[:, None] if pts.ndim == 1 else pts
    lo, span = pts.min(axis=0), np.ptp(pts, axis=0)
    return (pts - lo) / np.where(span > 0, span, 1.0)


def gardner_functions(side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gardner et al. (2014) simulation 1 on a ``side x side`` grid of ``[0, 6]^2``: ``(x, f, g)`` with
    ``f = -(cos 2x1 cos x2 + sin x1)``, ``g = cos x1 cos x2 - sin x1 sin x2 - 0.5``, both divided by their
    largest absolute value on the grid; ``x`` (side^2, 2) in ``[0, 6]^2``."""
    axis = np.linspace(0.0, 6.0, side)
    x1, x2 = (a.ravel() for a in np.meshgrid(axis, axis, indexing="ij"))
    f = -(np.cos(2 * x1) * np.cos(x2) + np.sin(x1))
    g = np.cos(x1) * np.cos(x2) - np.sin(x1) * np.sin(x2) - 0.5
    return np.column_stack([x1, x2]), f / np.max(np.abs(f)), g / np.max(np.abs(g))


def gardner_lengthscale(side: int) -> float:
    """The oracle lengthscale of the ``gardner`` problem's known kernel: type-II ML of one SE kernel
    (variance 1, noise variance ``sigma^2``) for the noiseless ``f`` and ``g`` on the whole grid."""
    x, f, g = gardner_functions(side)
    kern = PointKernel(_unit(x), "se", lengthscale=0.2)
    ones = np.ones(f.shape[0], dtype=np.int64)
    return float(fit_lengthscale(kern, SIGMA**2, [(ones, f), (ones, g)]))


def build_problem(name: str, seed: int, horizon: int, *, n_synthetic: int = 500, gardner_side: int = 24,
                  data_dir: str | None = None) -> Problem:  # fmt: skip
    """The problem ``name`` of seed ``seed`` (only ``synthetic`` draws new functions per seed; the others
    are fixed and the seed only changes the noise and the learners' randomness)."""
    if name == "synthetic":
        inst = make_instance("ckb/synthetic", np.random.default_rng(seed), n_points=n_synthetic, T=horizon,
                             sigma=SIGMA)  # fmt: skip
        return Problem(name, inst, _unit(inst.points))
    if name == "light":
        inst = make_instance("ckb/light", data_dir=data_dir, sigma=SIGMA, T=horizon)
        return Problem(name, inst, _unit(inst.points))
    if name == "gardner":
        x, f, g = gardner_functions(gardner_side)
        unit = _unit(x)
        k = se_kernel(unit, lengthscale=_gardner_ls(gardner_side))
        inst = KernelInstance(
            reward=f, constraint=g, kernel=k, feedback=GaussianFeedback(sigma=SIGMA), horizon=horizon,
            points=unit, noise_bound=SIGMA, name="gardner2014",
        )  # fmt: skip
        return Problem(name, inst, unit)
    raise ValueError(f"Unknown problem {name!r}; known: {PROBLEMS}")


_GARDNER_LS: dict[int, float] = {}


def _gardner_ls(side: int) -> float:
    if side not in _GARDNER_LS:
        _GARDNER_LS[side] = gardner_lengthscale(side)
    return _GARDNER_LS[side]


# --------------------------------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    regret: float
    positive_g: float
    violations: int
    cpu_per_round: float


def score(instance: KernelInstance, played: np.ndarray, cpu: float) -> Run:
    """The columns of one run from its played points (the same definitions as the regret tracker's)."""
    f, g = instance.reward[played], instance.constraint[played]
    return Run(
        regret=float(np.sum(instance.optimal_value - f)),
        positive_g=float(np.sum(np.maximum(g, 0.0))),
        violations=int(np.sum(g > TOL)),
        cpu_per_round=cpu / len(played),
    )


def run_ours(problem: Problem, setting: str, label: str, seed: int) -> Run:
    """One run of our learner ``label`` in ``setting`` on ``problem`` (learner seed ``100 + seed``,
    environment seed ``200 + seed``), through :func:`~safebandits.experiments.regret_loop.run_regret`."""
    name, cfg = OURS[setting][label]
    inst = problem.instance
    info = inst.public_info() if setting == "known" else problem.ml_info()
    t0 = time.process_time()
    learner = make_learner(name, info, np.random.default_rng(100 + seed), cfg)
    out = run_regret(learner, inst.environment(np.random.default_rng(200 + seed)), inst)
    cpu = time.process_time() - t0
    return Run(float(out.regret), float(out.positive_cost[0]), int(out.violations), cpu / inst.horizon)


def run_botorch(problem: Problem, setting: str, seed: int, *, refit_every: int = 1) -> Run:
    """One BoTorch run (module docstring): the same environment seed as our learners."""
    import torch
    from botorch.acquisition.analytic import LogConstrainedExpectedImprovement
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import ModelListGP, SingleTaskGP
    from gpytorch.kernels import Kernel
    from gpytorch.means import ZeroMean
    from gpytorch.mlls import SumMarginalLogLikelihood

    class MatrixKernel(Kernel):
        """A fixed kernel matrix over the domain; inputs are point indices (one float column)."""

        has_lengthscale = False

        def __init__(self, matrix: torch.Tensor) -> None:
            super().__init__()
            self.register_buffer("matrix", matrix)

        def forward(
            self, x1: torch.Tensor, x2: torch.Tensor, diag: bool = False, **params: Any
        ) -> torch.Tensor:
            i, j = x1[..., 0].round().long(), x2[..., 0].round().long()
            if diag:
                return self.matrix[i, j]
            return self.matrix[i.unsqueeze(-1), j.unsqueeze(-2)]

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    inst = problem.instance
    n, horizon = inst.n_points, inst.horizon
    dtype = torch.float64
    env = inst.environment(np.random.default_rng(200 + seed))
    if setting == "known":
        cand = torch.arange(n, dtype=dtype).unsqueeze(-1)
        kmat = torch.tensor(np.array(inst.kernel), dtype=dtype)
    else:
        cand = torch.as_tensor(problem.coords, dtype=dtype)
    played = np.empty(horizon, dtype=np.int64)
    ys = np.empty((horizon, 2))
    state: dict[str, Any] | None = None
    t0 = time.process_time()
    for t in range(horizon):
        if t == 0:
            i = inst.safe_seed[0]
        else:
            x = cand[torch.as_tensor(played[:t])]
            yf = torch.as_tensor(ys[:t, :1], dtype=dtype)
            yg = torch.as_tensor(ys[:t, 1:], dtype=dtype)
            if setting == "known":
                var = torch.full_like(yf, SIGMA**2)
                models = [
                    SingleTaskGP(
                        x,
                        y,
                        var,
                        covar_module=MatrixKernel(kmat),
                        mean_module=ZeroMean(),
                        outcome_transform=None,
                    )
                    for y in (yf, yg)
                ]
                model = ModelListGP(*models)
            else:
                model = ModelListGP(SingleTaskGP(x, yf), SingleTaskGP(x, yg))
                if state is not None:
                    model.load_state_dict(state, strict=False)
                if (t - 1) % refit_every == 0:
                    mll = SumMarginalLogLikelihood(model.likelihood, model)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            fit_gpytorch_mll(mll)
                        except Exception:  # (a failed fit keeps the previous values)
                            pass
                state = {
                    k: v
                    for k, v in model.state_dict().items()
                    if "train" not in k and "outcome_transform" not in k
                }
            model.eval()
            with torch.no_grad():
                post = model.posterior(x)
                mean = post.mean
                feasible = mean[:, 1] <= 0.0
                best = mean[feasible, 0].max() if bool(feasible.any()) else mean[:, 0].min()
                acq = LogConstrainedExpectedImprovement(model, best_f=best, objective_index=0,
                                                        constraints={1: (None, 0.0)})  # fmt: skip
                values = acq(cand.unsqueeze(-2))
            i = int(torch.argmax(values))
        obs = env.pull(int(i))
        played[t] = i
        ys[t] = (obs.reward, obs.constraints[0])
    return score(inst, played, time.process_time() - t0)


# --------------------------------------------------------------------------------------------------
# table
# --------------------------------------------------------------------------------------------------
def mean_se(values: list[float]) -> tuple[float, float]:
    v = np.asarray(values, dtype=np.float64)
    se = float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else float("nan")
    return float(v.mean()), se


def table_rows(results: dict[tuple[str, str, str], list[Run]]) -> list[list[str]]:
    rows = []
    for (problem, setting, label), runs in results.items():
        cells = [problem, setting, label]
        for attr, fmt in (("regret", "{:.1f} ({:.1f})"), ("positive_g", "{:.1f} ({:.1f})"),
                          ("violations", "{:.1f} ({:.1f})"), ("cpu_per_round", None)):  # fmt: skip
            m, s = mean_se([getattr(r, attr) for r in runs])
            cells.append(fmt.format(m, s) if fmt else f"{1e3 * m:.2f} ({1e3 * s:.2f})")
        rows.append(cells)
    return rows


HEADER = ["problem", "setting", "method", "R(T) (se)", "sum g+ (se)", "N viol. (se)", "ms/round (se)"]


def markdown(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def plain(rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[c]) for r in rows)) for c, h in enumerate(HEADER)] if rows else []
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*HEADER), *(fmt.format(*r) for r in rows)])


def versions() -> dict[str, str]:
    out = {"python": platform.python_version(), "numpy": np.__version__}
    for mod in ("torch", "botorch", "gpytorch"):
        try:
            out[mod] = __import__(mod).__version__
        except ImportError:
            out[mod] = "absent"
    try:
        root = Path(__file__).resolve().parents[1]
        out["safebandits commit"] = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
            check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):  # pragma: no cover
        out["safebandits commit"] = "unknown"
    return out


def warm_up(problem: Problem, setting: str, label: str, refit_every: int = 1) -> None:
    """One short untimed run (numba's and torch's first-call costs are not a round's cost)."""
    short = dataclasses.replace(
        problem, instance=problem.instance.with_horizon(min(5, problem.instance.horizon))
    )
    if label == BOTORCH_LABEL:
        run_botorch(short, setting, 0, refit_every=refit_every)
    else:
        run_ours(short, setting, label, 0)


def run_all(problems: list[str], seeds: int, horizon: int, *, with_botorch: bool, settings: tuple[str, ...],
            refit_every: int = 1, log: Callable[[str], None] = print, runs_log: str | None = None,
            **sizes: Any
            ) -> tuple[dict[tuple[str, str, str], list[Run]], list[str]]:  # fmt: skip
    """Every (problem, setting, method) over ``seeds`` seeds; returns the runs and notes (problems left
    out)."""
    results: dict[tuple[str, str, str], list[Run]] = {}
    notes: list[str] = []
    for pname in problems:
        try:
            built = [build_problem(pname, s, horizon, **sizes) for s in range(seeds)]
        except DataNotFoundError as exc:
            notes.append(f"{pname}: left out ({exc})")
            log(notes[-1])
            continue
        for setting in settings:
            labels = [*OURS[setting], *([BOTORCH_LABEL] if with_botorch else [])]
            for label in labels:
                warm_up(built[0], setting, label, refit_every)
                runs = []
                for s, prob in enumerate(built):
                    if label == BOTORCH_LABEL:
                        runs.append(run_botorch(prob, setting, s, refit_every=refit_every))
                    else:
                        runs.append(run_ours(prob, setting, label, s))
                results[(pname, setting, label)] = runs
                if runs_log:  # (one JSON line per finished cell: a stopped run keeps what it measured)
                    with open(runs_log, "a") as fh:
                        cell = {"problem": pname, "setting": setting, "method": label}
                        fh.write(json.dumps({**cell, "runs": [dataclasses.asdict(r) for r in runs]}) + "\n")
                m = mean_se([r.regret for r in runs])[0]
                cpu = mean_se([r.cpu_per_round for r in runs])[0]
                log(f"  {pname:<10}{setting:<6}{label:<16} R(T) {m:8.1f}  ms/round {1e3 * cpu:8.2f}")
    return results, notes


def _cpu_with_children() -> float:
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--horizon", type=int, default=200)
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS), choices=PROBLEMS)
    parser.add_argument("--settings", nargs="+", default=["known", "ml"], choices=["known", "ml"])
    parser.add_argument("--n-synthetic", type=int, default=500)
    parser.add_argument("--gardner-side", type=int, default=24)
    parser.add_argument("--refit-every", type=int, default=1)
    parser.add_argument("--data-dir", default=None, help="light-sensor data (default: $SAFEBANDITS_DATA)")
    parser.add_argument("--no-botorch", action="store_true", help="our learners only (no torch needed)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (one problem each)")
    parser.add_argument(
        "--runs-log", default=None, help="append every finished cell's runs here (JSON lines)"
    )
    parser.add_argument("--out", default=None, help="write the table as markdown here")
    args = parser.parse_args(argv)
    with_botorch = not args.no_botorch
    if with_botorch:
        try:
            import torch

            torch.set_num_threads(1)
        except ImportError:
            sys.exit("botorch/torch are not importable: use .venv-botorch (benchmarks/setup_botorch_venv.sh) "
                     "or --no-botorch")  # fmt: skip
    ver = versions()
    print(", ".join(f"{k} {v}" for k, v in ver.items()))
    print(
        f"T = {args.horizon}, seeds 0..{args.seeds - 1}, sigma = {SIGMA}; synthetic n = {args.n_synthetic}, "
        f"gardner {args.gardner_side} x {args.gardner_side}, BoTorch refit every {args.refit_every}"
    )
    wall, cpu0 = time.time(), _cpu_with_children()
    load0 = os.getloadavg()
    kwargs = dict(
        with_botorch=with_botorch, settings=tuple(args.settings), refit_every=args.refit_every,
        n_synthetic=args.n_synthetic, gardner_side=args.gardner_side, data_dir=args.data_dir,
        runs_log=args.runs_log,
    )  # fmt: skip
    results: dict[tuple[str, str, str], list[Run]] = {}
    notes: list[str] = []
    if args.jobs > 1:  # one process per problem (CPU per round is measured inside each)
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(run_all, [p], args.seeds, args.horizon, **kwargs) for p in args.problems]
            for fut in futures:
                res, nts = fut.result()
                results.update(res)
                notes += nts
    else:
        results, notes = run_all(args.problems, args.seeds, args.horizon, **kwargs)
    rows = table_rows(results)
    footer = (
        f"Total CPU {_cpu_with_children() - cpu0:.0f} s, wall {time.time() - wall:.0f} s; load average "
        f"{load0[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} CPUs)."
    )
    print(plain(rows))
    for note in notes:
        print(note)
    print(footer)
    if args.out:
        head = ", ".join(f"{k} {v}" for k, v in ver.items())
        text = (
            f"<!-- bench_botorch.py {' '.join(argv if argv is not None else sys.argv[1:])} -->\n"
            f"{head}; T = {args.horizon}, seeds 0..{args.seeds - 1}.\n\n{markdown(rows)}\n{footer}\n"
            + "".join(f"\n{n}\n" for n in notes)
        )
        Path(args.out).write_text(text)
        print(f"written {args.out}")


if __name__ == "__main__":
    main()
