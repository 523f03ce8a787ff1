"""Per-round cost of CKB and StageOpt split into its parts, as |X| grows (CKB digest §5.8).

Usage::

    .venv/bin/python benchmarks/bench_ckb_scaling.py                  # |X| in (250, 500, 1000, 2000, 4000)
    .venv/bin/python benchmarks/bench_ckb_scaling.py --sizes 500 1000 2000 --budget 1.0
    .venv/bin/python benchmarks/bench_ckb_scaling.py --linear         # issue 33's targets (about 5 min)
    .venv/bin/python benchmarks/bench_ckb_scaling.py --ts-effect      # CKB-TS: joint vs candidate draws
    .venv/bin/python benchmarks/bench_ckb_scaling.py --whole          # issue 43: whole runs, auto vs eager

``--whole`` (issue 43) prints the CPU of whole runs of CKB-UCB (``--method`` for another) with
``updates="auto"`` and ``"eager"`` at |X| in {500, 1,000, 5,000, 20,000} and T in {300, 1,000}
(``--sizes``, ``--horizons``), what ``"auto"`` resolved to, their ratio beside the targets (at most 1.05
everywhere, at most 0.5 at 20,000 / 1,000) and the mean, median and slowest round of each; a fresh
process per cell runs ``--repeats`` runs of each mode, alternating, after an untimed warm-up. About 3
minutes.

``--linear`` (issue 33) prints the cost of a whole CKB round (ask and tell) at round ``t = 1,000`` for
``|X| = 1,000 ... 20,000`` beside the targets (at most 2 ms at 5,000; growth exponent at most 1.1 between
1,000 and 20,000), and the peak resident memory of a run of ``T = 1,000`` rounds at ``|X| = 100,000``
(target under 2 GB), each in a fresh process. The domain is ``ckb/synthetic``'s (evenly spaced points
of [0, 1], SE kernel with lengthscale 0.2, ``f`` and ``g`` random RKHS functions of 100 centres,
normalised, Gaussian noise 0.1) but given to the learner as a
:class:`~safebandits.estimators.gp.PointKernel` (kernel columns on demand: the instance's ``n x n``
matrices and its ``O(n^3)`` PSD check would not fit), so CKB runs on its default ``posterior="auto"``,
here the low-rank posterior shared by ``f`` and ``g`` (same kernel and ``lambda``), with CKB's default
``updates="auto"``: lazy exact updates (points brought up to date only when their score could be the
maximum; ``docs/decisions/ckb.md``) where a whole run is cheaper lazily (issue 43: for CKB-UCB and
CKB-Rand at T = 1,000 from 4,000 points on, eager at 1,000 and 2,000), beside the eager updates
(``updates="eager"``: every point every round). Per-round cost: the median (the target's
statistic) and the mean of the process CPU time of rounds 951-1,000 (one BLAS thread); also the entries
of the factor ``W`` computed per round over those rounds divided by ``|X|`` (an eager round computes
``|X|``; a lazy one catches up on the points left behind, so above 1 is possible), the CPU of the whole
run and the load average. About 5 minutes.

``--ts-effect`` measures what the candidate draws of CKB-TS (``ts_sampling="candidates"``) cost against
the paper's joint draws where both are affordable: ``ckb/synthetic`` with 400 points, ``T = 1,000``,
10 seeds (draws ``f``, ``g`` and noise paired across the variants), mean and standard error of ``R(T)``,
``R+(T)``, the violating rounds ``N`` and ``sum_t [g(x_t)]_+``.

The paper (Sec. 5, "practical considerations"; Remark 1): CKB's per-round cost is that of an
unconstrained GP bandit, one argmax over the finite domain and one projection of the dual, i.e. O(|X|)
*plus the GP update*; StageOpt's safe-set construction is O(|X|^2). Both methods also update two GP
posteriors, which with exact rank-one updates of the full covariance is O(|X|^2) for either
(``bench_ckb.py`` shows the totals). So the parts are timed separately on ``ckb/synthetic`` (SE kernel,
lengthscale 0.2, ``n_points = |X|``, T = 10,000) through the public ask / tell protocol:

* ``CKB-UCB ask``, ``CKB-Rand ask``: lines 3-7 of Algorithm 1 (exploration estimates from the posterior mean
  and variances, truncation, the argmax of ``f- - phi g-``): CKB's per-round work apart from the GP update
  (its tell adds only the O(1) dual step of line 8);
* ``CKB tell``: line 8 (dual step) and line 9 (two rank-one GP updates);
* ``StageOpt ask``: stage 1, the expanders ``G_t`` (safe points that could certify an unsafe one) and the
  argmax of the safety interval's width;
* ``StageOpt set``: ``StageOpt tell`` minus the GP update, i.e. the intersection of the intervals of ``g``
  and the Lipschitz expansion of the safe set ``S_t``;
* ``StageOpt - GP``: StageOpt's per-round work apart from the GP update (ask + set), the paper's O(|X|^2);
* ``GP update``: two rank-one updates alone (:class:`~safebandits.estimators.gp.FiniteGP`), timed on mirror
  posteriors told the same data right after each tell (paired, so the subtraction sees the same load).

StageOpt is timed in stage 1 (T_0 = 1,000 rounds; the warm-up and the timed rounds stay inside it), so its
ask builds the expanders every round. Clock: process CPU time with one BLAS thread (robust on a shared
machine). Each part's cost per round is the median over the timed rounds, after a warm-up of 50 rounds
that also excludes numba compilation; every learner here runs the dense posterior (``posterior="dense"``;
issue 33's low-rank posterior, the default above 512 points, is timed by ``--linear``). ``exponent`` is
the least-squares slope of log(cost) on log(|X|) over the sizes (``last 2``: over the two largest
sizes, where fixed per-call overheads matter least).
``|S|/|X|`` is StageOpt's safe-set fraction at the end of the timed rounds (its set work is
O(|S| |X|)).

Not collected by pytest; no timing asserts anywhere (style.md). Results are recorded in
``docs/decisions/ckb.md`` and in CKB's unevaluated items (``safebandits/papers/ckb/digest.py``, status
"benchmark").
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core: set before numpy loads its BLAS

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from safebandits.algorithms import make_learner  # noqa: E402
from safebandits.estimators.gp import FiniteGP  # noqa: E402
from safebandits.problems import make_instance  # noqa: E402

PARTS = (
    "CKB-UCB ask",
    "CKB-Rand ask",
    "CKB tell",
    "StageOpt ask",
    "StageOpt set",
    "StageOpt - GP",
    "GP update",
)
#: The paper's exponents: CKB O(|X|) apart from the GP update (its ask; its tell adds an O(1) dual step to
#: the update), StageOpt O(|X|^2) apart from the GP update; the GP update itself is O(|X|^2) for both
#: with exact rank-one updates of the full covariance (digest §1.4).
PAPER = {p: 2 for p in PARTS} | {"CKB-UCB ask": 1, "CKB-Rand ask": 1}
WARMUP = 50
clock = time.process_time


def _instance(n: int):
    return make_instance("ckb/synthetic", np.random.default_rng(0), n_points=n, T=10_000)


def _protocol(method: str, n: int, rounds: int) -> tuple[dict[str, np.ndarray], object]:
    """CPU seconds per round of ask, tell and, on mirror posteriors told the same data at the same time,
    the two rank-one GP updates alone (paired with the tell, so a subtraction sees the same load)."""
    inst = _instance(n)
    info = inst.public_info()
    # the dense posterior (the paper's parts; the low-rank one is --linear's), mirrored by dense GPs
    learner = make_learner(method, info, np.random.default_rng(1), {"posterior": "dense"})
    env = inst.environment(np.random.default_rng(2))
    mirror = (
        FiniteGP(info.kernel, 1.0, posterior="dense"),
        FiniteGP(info.constraint_kernel, 1.0, posterior="dense"),
    )
    out = {k: np.empty(rounds) for k in ("ask", "tell", "gp")}
    for r in range(-WARMUP, rounds):
        t0 = clock()
        d = learner.ask()
        t1 = clock()
        obs = env.play(d)
        t2 = clock()
        learner.tell(d, obs)
        t3 = clock()
        mirror[0].update(int(d.arm), float(obs.reward))
        mirror[1].update(int(d.arm), float(obs.constraints[0]))
        t4 = clock()
        if r >= 0:
            out["ask"][r], out["tell"][r], out["gp"][r] = t1 - t0, t3 - t2, t4 - t3
    return out, learner


def measure(n: int, rounds: int) -> tuple[dict[str, float], float]:
    """Median µs per round of every part at ``|X| = n``, and StageOpt's safe-set fraction."""
    ucb, _ = _protocol("ckb-ucb", n, rounds)
    rand, _ = _protocol("ckb-rand", n, rounds)
    so, learner = _protocol("stageopt", n, rounds)
    if getattr(learner, "stage", 1) != 1:
        raise RuntimeError(f"StageOpt left stage 1 at |X| = {n}; lower --budget.")
    med = {
        "CKB-UCB ask": np.median(ucb["ask"]),
        "CKB-Rand ask": np.median(rand["ask"]),
        "CKB tell": np.median(ucb["tell"]),
        "StageOpt ask": np.median(so["ask"]),
        "StageOpt set": np.median(so["tell"] - so["gp"]),
        "StageOpt - GP": np.median(so["ask"] + so["tell"] - so["gp"]),
        "GP update": np.median(np.concatenate([ucb["gp"], so["gp"]])),
    }
    return {k: max(float(v), 1e-12) * 1e6 for k, v in med.items()}, float(np.mean(learner.safe_set()))


def exponent(sizes: list[int], costs: list[float]) -> float:
    """Least-squares slope of log(cost) on log(size)."""
    return float(np.polyfit(np.log(sizes), np.log(costs), 1)[0])


# --------------------------------------------------------------------------------------------------
# issue 33: linear cost in |X| (whole rounds at t = 1,000; memory at 100,000 points)
# --------------------------------------------------------------------------------------------------
LINEAR_SIZES = (1000, 2000, 5000, 10000, 20000)
LINEAR_T = 1000


def _point_problem(n: int, horizon: int, seed: int = 0):
    """``ckb/synthetic``'s construction on ``n`` points, with a :class:`PointKernel` (no matrix)."""
    from safebandits.estimators.gp import PointKernel
    from safebandits.problems.kernel import KernelInfo

    rng = np.random.default_rng(seed)
    pts = np.linspace(0.0, 1.0, n)
    kern = PointKernel(pts, "se", lengthscale=0.2)

    def draw() -> np.ndarray:
        centres = rng.integers(0, n, size=100)
        a = rng.uniform(-1.0, 1.0, size=100)
        h = kern.between(pts[:, None], pts[centres][:, None]) @ a
        return h / np.max(np.abs(h))

    f = draw()
    g = draw()
    while -np.min(g) < 0.1:
        g = draw()
    info = KernelInfo(
        kernel=kern, constraint_kernel=kern, points=pts[:, None], reward_bound=1.0, constraint_bound=1.0,
        noise_bound=0.1, constraint_noise_bound=0.1, slater=min(1.0, float(-np.min(g))), horizon=horizon,
        safe_seed=(int(np.argmin(g)),),
    )  # fmt: skip
    return info, f, g


def run_rounds(
    method: str, n: int, horizon: int, config: dict | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """CPU seconds of every round (ask + tell) of ``method`` on the point problem with ``n`` points, and
    after every round the entries of the factor ``W`` computed so far (lazy updates; ``n`` per round
    for eager ones)."""
    from safebandits.types import Observation

    info, f, g = _point_problem(n, horizon)
    learner = make_learner(method, info, np.random.default_rng(1), config or {})
    cov = learner.gp_f.lowrank
    lazy = bool(getattr(learner, "lazy", False))
    noise = np.random.default_rng(2).standard_normal((horizon, 2)) * 0.1
    out = np.empty(horizon)
    work = np.empty(horizon)
    for t in range(horizon):
        t0 = clock()
        d = learner.ask()
        i = int(d.arm)
        learner.tell(d, Observation(reward=f[i] + noise[t, 0], constraints=np.array([g[i] + noise[t, 1]])))
        out[t] = clock() - t0
        work[t] = cov.computed if lazy else (t + 1) * n
    return out, work


def _child(method: str, n: int, horizon: int, config: dict) -> None:
    """Run in a fresh process: print the median and mean of the last 50 rounds (µs), the entries of ``W``
    computed per round over them (as a fraction of an eager update's ``n``), total CPU and peak RSS."""
    import json
    import resource

    times, work = run_rounds(method, n, horizon, config)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB
    last = times[-50:]
    share = float((work[-1] - work[-51]) / 50.0 / n) if horizon > 50 else float("nan")
    print(json.dumps({"round_us": float(np.median(last) * 1e6), "mean_us": float(np.mean(last) * 1e6),
                      "max_us": float(np.max(last) * 1e6), "work_share": share, "total_s": float(times.sum()),
                      "peak_rss": rss}))  # fmt: skip


def _spawn(method: str, n: int, horizon: int, config: dict | None = None) -> dict:
    import json
    import subprocess
    import sys

    argv = [sys.executable, os.path.abspath(__file__), "--child", method, str(n), str(horizon)]
    out = subprocess.run([*argv, json.dumps(config or {})], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


#: The rows of ``--linear``: (label, method, config). ``updates="eager"`` is the previous method (every
#: point's mean and variance updated each round), kept as a named option.
LINEAR_ROWS = (
    ("ckb-ucb", "ckb-ucb", {}),
    ("ckb-ucb eager", "ckb-ucb", {"updates": "eager"}),
    ("ckb-rand", "ckb-rand", {}),
    ("ckb-rand eager", "ckb-rand", {"updates": "eager"}),
    ("sgp-ucb", "sgp-ucb", {}),
    ("sgp-ucb eager", "sgp-ucb", {"updates": "eager"}),
)


def linear_table(sizes: tuple[int, ...] = LINEAR_SIZES, horizon: int = LINEAR_T, big: int = 100_000) -> None:
    rows = {label: [_spawn(m, n, horizon, cfg) for n in sizes] for label, m, cfg in LINEAR_ROWS}
    ts = _spawn("ckb-ts", 5000, horizon)
    mem = _spawn("ckb-ucb", big, horizon)
    load = os.getloadavg()[0]
    print(f"CKB per round (ask + tell) at t = {horizon} [µs, process CPU, rounds {horizon - 49}-{horizon}: "
          "median (the target's statistic) and mean], point problem (ckb/synthetic's construction), "
          f"posterior='auto', updates='auto' unless 'eager'; load average {load:.1f} at the "
          "end")  # fmt: skip
    print(
        f"{'method':<16}{'':<7}" + "".join(f"{f'|X|={n}':>10}" for n in sizes) + f"{'exponent':>10}  target"
    )
    lo, hi = sizes.index(1000) if 1000 in sizes else 0, len(sizes)
    targets = {"median": "<= 2,000 at 5,000; exponent <= 1.1", "mean": "(no target; the mean cost)",
               "slowest": "(no target; the slowest of the 50 rounds)"}  # fmt: skip
    for label, res in rows.items():
        for stat, key in (("median", "round_us"), ("mean", "mean_us"), ("slowest", "max_us")):
            c = [r[key] for r in res]
            e = exponent(list(sizes[lo:hi]), c[lo:hi])
            target = targets[stat] if label == "ckb-ucb" else ""
            print(f"{label if stat == 'median' else '':<16}{stat:<7}" + "".join(f"{v:>10.0f}" for v in c)
                  + f"{e:>10.2f}  {target}")  # fmt: skip
        share = [r["work_share"] for r in res]
        total = [r["total_s"] for r in res]
        print(
            f"{'':<16}{'W/n':<7}"
            + "".join(f"{v:>10.3f}" for v in share)
            + "  (entries of W computed per round / |X|)"
        )
        print(
            f"{'':<16}{'total s':<7}"
            + "".join(f"{v:>10.2f}" for v in total)
            + f"  (CPU of the whole run, T = {horizon:,})"
        )
    print(f"ckb-ts (ts_sampling='candidates', 200 candidates) at |X|=5000: {ts['round_us']:.0f} µs per round")
    gb = mem["peak_rss"] / 2**30
    print(f"|X| = {big:,}, T = {horizon:,} (ckb-ucb): peak RSS {gb:.2f} GB (target < 2 GB), "
          f"{mem['total_s']:.1f} s CPU in total, {mem['round_us']:.0f} µs per round at t = {horizon:,} "
          "(median)")  # fmt: skip


# --------------------------------------------------------------------------------------------------
# issue 43: whole runs, updates="auto" against "eager"
# --------------------------------------------------------------------------------------------------
WHOLE_SIZES = (500, 1000, 5000, 20000)
WHOLE_HORIZONS = (300, 1000)
#: The targets: auto's whole-run CPU at most this multiple of eager's everywhere, and at most
#: ``WHOLE_BIG`` 's multiple at (|X|, T) = ``WHOLE_BIG_AT``.
WHOLE_EVERYWHERE = 1.05
WHOLE_BIG, WHOLE_BIG_AT = 0.5, (20000, 1000)


def _whole_child(method: str, n: int, horizon: int, repeats: int) -> None:
    """Run in a fresh process: ``repeats`` whole runs of ``method`` with ``updates="auto"`` and with
    ``"eager"`` (alternating which goes first; one untimed short run of each first, numba's compilation),
    then print what each resolved to, the whole-run CPU of every repeat and every round's CPU (µs)."""
    import json

    run_rounds(method, 300, 20, {"updates": "auto"})
    run_rounds(method, 300, 20, {"updates": "eager"})
    info, _, _ = _point_problem(n, horizon)
    auto_lazy = bool(getattr(make_learner(method, info, np.random.default_rng(1), {}), "lazy", False))
    out: dict[str, dict[str, list]] = {m: {"total": [], "rounds": []} for m in ("auto", "eager")}
    for r in range(repeats):
        for mode in ("auto", "eager") if r % 2 == 0 else ("eager", "auto"):
            times, _ = run_rounds(method, n, horizon, {"updates": mode})
            out[mode]["total"].append(float(times.sum()))
            out[mode]["rounds"].extend((times * 1e6).tolist())
    print(json.dumps({"auto_is": "lazy" if auto_lazy else "eager", **out}))


def whole_table(
    method: str = "ckb-ucb",
    sizes: tuple[int, ...] = WHOLE_SIZES,
    horizons: tuple[int, ...] = WHOLE_HORIZONS,
    repeats: int = 3,
) -> None:
    """Whole-run CPU of ``updates="auto"`` against ``"eager"`` per (|X|, T), beside the targets."""
    import json
    import subprocess
    import sys

    print(f"{method}: whole-run CPU [s, process time, median of {repeats} runs each, auto and eager "
          "alternating in one process per cell] and per-round CPU over all those rounds [µs: mean, median, "
          "slowest]; point problem (ckb/synthetic's construction)")  # fmt: skip
    head = (f"{'|X|':>7}{'T':>6}{'auto is':>9}{'auto s':>9}{'eager s':>9}{'ratio':>7}{'target':>8}"
            f"{'auto mean/median/slowest':>28}{'eager mean/median/slowest':>29}{'load':>6}")  # fmt: skip
    print(head)
    worst = 0.0
    for n in sizes:
        for horizon in horizons:
            argv = [sys.executable, os.path.abspath(__file__), "--whole-child", method, str(n), str(horizon),
                    str(repeats)]  # fmt: skip
            res = json.loads(
                subprocess.run(argv, capture_output=True, text=True, check=True).stdout.splitlines()[-1]
            )
            a, e = (float(np.median(res[m]["total"])) for m in ("auto", "eager"))
            ratio = a / e
            big = (n, horizon) == WHOLE_BIG_AT
            target = WHOLE_BIG if big else WHOLE_EVERYWHERE
            worst = max(worst, ratio)
            stats = []
            for m in ("auto", "eager"):
                r = np.asarray(res[m]["rounds"])
                stats.append(f"{r.mean():.0f} / {np.median(r):.0f} / {r.max():.0f}")
            mark = "ok" if ratio <= target else "MISSED"
            if res["auto_is"] == "eager":  # (the same method twice: a ratio off 1 is the clock's noise)
                mark += " (same method)"
            print(f"{n:>7}{horizon:>6}{res['auto_is']:>9}{a:>9.3f}{e:>9.3f}{ratio:>7.2f}{f'<={target}':>8}"
                  f"{stats[0]:>28}{stats[1]:>29}{os.getloadavg()[0]:>6.1f}  {mark}")  # fmt: skip
    print(
        f"largest ratio {worst:.2f} (target <= {WHOLE_EVERYWHERE} everywhere, <= {WHOLE_BIG} at "
        f"|X| = {WHOLE_BIG_AT[0]:,}, T = {WHOLE_BIG_AT[1]:,})"
    )


def ts_effect(n: int = 400, horizon: int = 1000, seeds: int = 10) -> None:
    from safebandits.experiments.regret_loop import run_regret

    variants = {
        "joint (paper)": {"ts_sampling": "joint"},
        "candidates m=200": {"ts_sampling": "candidates", "ts_candidates": 200},
        "candidates m=50": {"ts_sampling": "candidates", "ts_candidates": 50},
    }
    rows: dict[str, list[tuple[float, float, float, float]]] = {v: [] for v in variants}
    for seed in range(seeds):
        inst = make_instance("ckb/synthetic", np.random.default_rng(seed), n_points=n, T=horizon)
        for label, cfg in variants.items():
            learner = make_learner("ckb-ts", inst.public_info(), np.random.default_rng(100 + seed), cfg)
            out = run_regret(learner, inst.environment(np.random.default_rng(200 + seed)), inst)
            rows[label].append(
                (out.regret, out.policy_regret, float(out.violations), float(out.positive_cost[0]))
            )
    print(f"CKB-TS on ckb/synthetic, |X| = {n}, T = {horizon}, {seeds} seeds: mean (standard error)")
    print(f"{'draws':<18}{'R(T)':>16}{'R+(T)':>16}{'N':>16}{'sum [g]_+':>16}")
    for label, vals in rows.items():
        a = np.array(vals)
        m, se = a.mean(axis=0), a.std(axis=0, ddof=1) / np.sqrt(len(a))
        print(f"{label:<18}" + "".join(f"{f'{x:.1f} ({e:.1f})':>16}" for x, e in zip(m, se)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000, 4000])
    parser.add_argument(
        "--budget", type=float, default=0.5, help="about this many CPU seconds per method and size"
    )
    parser.add_argument("--linear", action="store_true", help="issue 33's table: whole rounds and memory")
    parser.add_argument("--ts-effect", action="store_true", help="CKB-TS: joint vs candidate draws")
    parser.add_argument("--whole", action="store_true", help="issue 43's table: whole runs, auto vs eager")
    parser.add_argument(
        "--method", default="ckb-ucb", help="--whole: the learner (ckb-ucb, ckb-rand, sgp-ucb)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="--whole: runs per cell and mode")
    parser.add_argument("--horizons", type=int, nargs="+", default=list(WHOLE_HORIZONS), help="--whole: T")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)  # method n T config-json (internal)
    parser.add_argument("--whole-child", nargs=4, help=argparse.SUPPRESS)  # method n T repeats (internal)
    args = parser.parse_args()
    if args.whole_child:
        m, n, horizon, repeats = args.whole_child
        _whole_child(m, int(n), int(horizon), int(repeats))
        return
    if args.whole:
        sizes = tuple(args.sizes) if args.sizes != [250, 500, 1000, 2000, 4000] else WHOLE_SIZES
        whole_table(args.method, sizes, tuple(args.horizons), args.repeats)
        return
    if args.child:
        import json

        _child(args.child[0], int(args.child[1]), int(args.child[2]), json.loads(args.child[3]))
        return
    if args.linear:
        linear_table()
        return
    if args.ts_effect:
        ts_effect()
        return
    sizes = sorted(set(args.sizes))
    if len(sizes) < 2 or sizes[0] < 10:
        parser.error("give two or more sizes >= 10")
    rows: dict[str, list[float]] = {p: [] for p in PARTS}
    fractions = []
    for n in sizes:
        # rounds so that the O(n^2) parts take about --budget seconds (at least 20, and inside stage 1)
        rounds = int(min(900, max(20, args.budget / (2.5e-9 * n * n))))
        costs, frac = measure(n, rounds)
        for p in PARTS:
            rows[p].append(costs[p])
        fractions.append(frac)
    print("Cost per round by part [µs, process CPU time, median over rounds], ckb/synthetic with |X| points")
    head = f"{'part':<14}" + "".join(f"{f'|X|={n}':>12}" for n in sizes)
    print(head + f"{'exponent':>10}{'last 2':>8}{'paper':>7}")
    for p in PARTS:
        c = rows[p]
        tail = f"{exponent(sizes, c):>10.2f}{exponent(sizes[-2:], c[-2:]):>8.2f}{PAPER[p]:>7}"
        print(f"{p:<14}" + "".join(f"{v:>12.1f}" for v in c) + tail)
    print(f"{'|S|/|X|':<14}" + "".join(f"{v:>12.2f}" for v in fractions))


if __name__ == "__main__":
    main()
