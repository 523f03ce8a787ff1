"""Cost of persistent studies: one ask + tell through the database, and a reload (replay) per query.

Usage::

    .venv/bin/python benchmarks/bench_study.py                  # 300 queries per method
    .venv/bin/python benchmarks/bench_study.py --queries 1000 --methods g-acol ckb-ucb

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--methods", nargs="+", default=list(DEFAULT))
    args = parser.parse_args()
    print(
        f"{'method':<12} {'queries':>7} {'ask+tell (ms)':>14} {'learner (ms)':>13} {'replay/query (ms)':>18}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.methods:
            per_query, alone, replay, n = bench(name, args.queries, Path(tmp))
            print(f"{name:<12} {n:>7} {per_query * 1e3:>14.3f} {alone * 1e3:>13.3f} {replay * 1e3:>18.3f}")


if __name__ == "__main__":
    main()
