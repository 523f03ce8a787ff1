"""Throughput of a sweep of many short runs: local process pool vs a Dask ``LocalCluster``.

Usage::

    .venv/bin/python benchmarks/bench_dask.py [--runs 400] [--workers 2]

The sweep is ``acol-regret-comparison`` restricted to the Oracle baseline (a round-based method, a few
milliseconds per run) with ``--runs`` replicates. Every configuration goes through
:func:`~safebandits.experiments.runner.run_tasks` into a fresh results store, as ``safebandits run`` does:

- ``serial``: one process, no executor (the per-run compute cost ``c``);
- ``local pool``: the default executor with ``--workers`` processes (pool start included);
- ``dask, own LocalCluster``: ``--executor dask`` as the command runs it (cluster start and stop included);
- ``dask, running cluster``: the same sweep on a LocalCluster started beforehand (``--scheduler``),
  i.e. the steady state of a long sweep.

Overhead per run is ``wall * workers / runs - c``: the time a worker slot spends on a run beyond the run
itself (task dispatch, pickling, result transfer, store write, start-up amortised over the sweep).
Reference numbers (2-core VM shared with other jobs, load average ~9 during the measurement, so
parallel rows are pessimistic; ``--runs 400 --workers 2``, distributed 2026.8.0):

==========================  =======  ========  ======  =================
executor                    workers  wall [s]  runs/s  overhead/run [ms]
==========================  =======  ========  ======  =================
serial (1 process)          1        2.57      155.9   0 (6.4 ms/run)
local pool                  2        5.21      76.7    19.7
dask, own LocalCluster      2        16.03     24.9    73.8
dask, running cluster       2        6.83      58.6    27.7
==========================  =======  ========  ======  =================

Starting a LocalCluster (two spawned workers that import safebandits) costs about 10 s here; once
running, Dask adds a few tens of milliseconds per run on this loaded machine: negligible for the
paper-scale runs (seconds to minutes each) that it is meant for, not for sweeps of millisecond runs.

Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time

from safebandits.experiments.runner import run_tasks
from safebandits.experiments.spec import expand, get_experiment, select
from safebandits.experiments.store import ResultsStore


def _tasks(n_runs: int):
    spec = select(get_experiment("acol-regret-comparison"), algorithms=("oracle",), panels=())
    return expand(spec, "quick", replicates=n_runs)


def _timed(tasks, **kw) -> float:
    with tempfile.TemporaryDirectory() as tmp, ResultsStore(tmp, mode="w") as store:
        t0 = time.perf_counter()
        summary = run_tasks(tasks, store, quiet=True, **kw)
        wall = time.perf_counter() - t0
        assert summary.n_ok == len(tasks), summary.line()
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("bench_dask: skipped (pip install 'safebandits[distributed]')")
        return

    tasks = _tasks(args.runs)
    _timed(tasks[:5], workers=1)  # warm-up: imports, numba cache load
    rows = [("serial (1 process)", 1, _timed(tasks, workers=1))]
    per_run = rows[0][2] / len(tasks)
    rows.append(("local pool", args.workers, _timed(tasks, workers=args.workers)))
    own = _timed(tasks, workers=args.workers, executor="dask")
    rows.append(("dask, own LocalCluster", args.workers, own))
    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.WARNING,
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        client.wait_for_workers(args.workers)
        _timed(tasks[: 2 * args.workers], executor="dask", scheduler=cluster.scheduler_address)  # warm-up
        rows.append(
            (
                "dask, running cluster",
                args.workers,
                _timed(tasks, executor="dask", scheduler=cluster.scheduler_address),
            )
        )

    print(f"Sweep of {len(tasks)} short runs (Oracle, acol/one-dimensional), {1e3 * per_run:.1f} ms/run")
    header = f"{'executor':<26}{'workers':>8}{'wall [s]':>10}{'runs/s':>10}{'overhead/run [ms]':>19}"
    print(header)
    print("-" * len(header))
    for name, workers, wall in rows:
        overhead = 1e3 * (wall * workers / len(tasks) - per_run)
        print(f"{name:<26}{workers:>8}{wall:>10.2f}{len(tasks) / wall:>10.1f}{overhead:>19.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
