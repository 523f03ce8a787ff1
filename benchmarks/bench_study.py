"""Cost of persistent studies: one ask + tell through the database, and a reload (replay) per query;
with ``--load-scaling``, the cost of loading a study against the number of its answers.

Usage::

    .venv/bin/python benchmarks/bench_study.py                  # 300 queries per method
    .venv/bin/python benchmarks/bench_study.py --queries 1000 --methods g-acol ckb-ucb
    .venv/bin/python benchmarks/bench_study.py --load-scaling   # status / dashboard page at 100 and 10,000

``--load-scaling`` (issue 30, incremental studies): for each method, SQLite studies answered 100 and
10,000 times (``--sizes``) by the contract problem's simulator; then the wall time (median of
``--repeats``, the sizes timed in turn within each repeat) of ``safebandits study status NAME`` in a
fresh process, of the dashboard's study page (``GET /study/NAME`` through the ASGI application in this
process) and of ``load_study``, with and without snapshots. Target: status and the page at 10,000
answers within 2x of the same at 100.

For each method, on the small problem of the contract tests, a SQLite study (in a temporary directory)
is answered by the problem's simulator: the first column is the wall time of ``ask`` + ``tell`` per query
(two write transactions plus the learner's own step), the second that of the learner's ask + tell alone
(no database), the third the wall time of ``load_study`` divided by the number of stored queries (the
replay cost that every CLI command pays). Numba compilation is excluded by a warm-up.

Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import safebandits as sb
from tests.contract.test_learners import ENTRIES, problem_for

DEFAULT = ("g-acol", "maxrew-u", "lc-lucb", "opb", "safe-lucb", "ckb-ucb", "stageopt")


def bench(name: str, n_queries: int, directory: Path) -> tuple[float, float, float, int]:
    entry = ENTRIES[name]
    inst = problem_for(entry)
    info = inst.privileged_info() if entry.privileged else inst.public_info()
    # learner alone (and warm-up)
    times = []
    for _ in range(2):
        learner = entry.cls(entry.config(), info, np.random.default_rng(0))
        env = inst.environment(np.random.default_rng(1))
        t0 = time.perf_counter()
        n = 0
        while n < n_queries and not getattr(learner, "done", False):
            d = learner.ask()
            learner.tell(d, env.play(d))
            n += 1
        times.append((time.perf_counter() - t0) / max(n, 1))
    url = f"sqlite:///{directory / (name + '.db')}"
    study = sb.create_study(name, name, info, storage=url, seed=0)
    env = inst.environment(np.random.default_rng(1))
    t0 = time.perf_counter()
    n = 0
    while n < n_queries and not study.done:
        q = study.ask()
        study.tell(q.id, env.play(q.decision))
        n += 1
    per_query = (time.perf_counter() - t0) / max(n, 1)
    study.close()
    t0 = time.perf_counter()
    sb.load_study(name, url).close()
    replay = (time.perf_counter() - t0) / max(n, 1)
    return per_query, times[-1], replay, n


def _answered(name: str, n: int, url: str) -> None:
    from tests.contract.test_learners import regret_problem_name

    entry = ENTRIES[name]
    if entry.task == "regret":  # the contract problem with a horizon past the largest size
        inst_name, params = regret_problem_name(name)
        inst = sb.make_instance(inst_name, np.random.default_rng(11), **{**dict(params), "T": 2 * n})
    else:
        inst = problem_for(entry)
    info = inst.privileged_info() if entry.privileged else inst.public_info()
    study = sb.create_study(name, name, info, storage=url, seed=0)
    env = inst.environment(np.random.default_rng(1))
    told = 0
    while told < n and not study.done:
        q = study.ask()
        study.tell(q.id, env.play(q.decision))
        told += 1
    study.close()
    if told < n:
        raise SystemExit(f"{name} stopped after {told} answers; choose a regret learner for --load-scaling")


def _median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def load_scaling(methods: list[str], sizes: list[int], repeats: int, directory: Path) -> None:
    import subprocess
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from safebandits.dashboard import create_app

    cli = [str(Path(sys.executable).with_name("safebandits"))]
    print(
        f"{'method':<10} {'answers':>8} {'status (s)':>11} {'page (s)':>9} {'load (ms)':>10} "
        f"{'full replay (ms)':>17}"
    )
    rows: dict[str, list[tuple[int, float, float]]] = {}
    for name in methods:
        urls = {n: f"sqlite:///{directory / f'{name}-{n}.db'}" for n in sizes}
        for n, url in urls.items():
            _answered(name, n, url)
        clients = {n: TestClient(create_app(url), base_url="http://127.0.0.1") for n, url in urls.items()}
        for n in sizes:
            clients[n].get(f"/study/{name}")  # (warm: imports, compiled kernels)
        # The sizes are timed in turn within each repeat, so that a change of the machine's load falls on
        # every size alike (the medians are compared).
        times: dict[int, dict[str, list[float]]] = {
            n: {"status": [], "page": [], "load": [], "full": []} for n in sizes
        }
        for _ in range(repeats):
            for n, url in urls.items():
                t = times[n]
                t["status"].append(_median_time(lambda url=url, name=name: subprocess.run(
                    [*cli, "study", "status", name, "--storage", url], check=True, capture_output=True
                ), 1))  # fmt: skip
                t["page"].append(_median_time(
                    lambda c=clients[n], name=name: c.get(f"/study/{name}").raise_for_status(), 1
                ))  # fmt: skip
                t["load"].append(_median_time(lambda url=url, name=name: sb.load_study(name, url).close(), 1))
                t["full"].append(_median_time(
                    lambda url=url, name=name: sb.load_study(name, url, snapshots=False).close(), 1
                ))  # fmt: skip
        for n in sizes:
            status, page, load, full = (
                float(np.median(times[n][k])) for k in ("status", "page", "load", "full")
            )
            rows.setdefault(name, []).append((n, status, page))
            print(f"{name:<10} {n:>8} {status:>11.3f} {page:>9.3f} {load * 1e3:>10.1f} {full * 1e3:>17.1f}")
    print()
    print(f"{'method':<10} {'status ratio':>13} {'page ratio':>11}   target <= 2 (largest / smallest size)")
    for name, values in rows.items():
        (_n0, s0, p0), (_n1, s1, p1) = values[0], values[-1]
        print(f"{name:<10} {s1 / s0:>13.2f} {p1 / p0:>11.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--load-scaling", action="store_true", help="Status / page time against answers.")
    parser.add_argument("--sizes", nargs="+", type=int, default=[100, 10_000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.load_scaling:
        with tempfile.TemporaryDirectory() as tmp:
            load_scaling(args.methods or ["opb", "lc-lucb"], args.sizes, args.repeats, Path(tmp))
        return
    args.methods = args.methods or list(DEFAULT)
    print(
        f"{'method':<12} {'queries':>7} {'ask+tell (ms)':>14} {'learner (ms)':>13} {'replay/query (ms)':>18}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.methods:
            per_query, alone, replay, n = bench(name, args.queries, Path(tmp))
            print(f"{name:<12} {n:>7} {per_query * 1e3:>14.3f} {alone * 1e3:>13.3f} {replay * 1e3:>18.3f}")


if __name__ == "__main__":
    main()
