"""The benchmark command: `make bench` (or `.venv/bin/python benchmarks/run.py [--paper]`).

Prints two tables:
1. wall time of every registered experiment at the quick scale (and at the paper scale with
   ``--paper``; that takes tens of minutes), run through the CLI with all cores;
2. the tables of every ``benchmarks/bench_*.py`` script: cost per sample of the ACOL family at
   (n, d) = (11, 10), (30, 30), (100, 30) (bench_acol.py), the design solver (bench_design.py), cost per
   round and memory of the stage-wise learners (bench_stagewise.py), OPLB / LC-LUCB per round beside the
   target 5 (bench_oplb.py) and of Safe-LUCB (bench_safe_lucb.py),
   and so on for each family, the start-up time of ``import safebandits`` and ``safebandits --help``
   beside their targets (bench_startup.py), and the issue-19 shape table of G-ACOL, LC-LUCB, Safe-LUCB and
   OPB at (K, d) = (10, 10): ask / tell and compiled cost per step, fixed cost of one simulated run, cold
   and warm compile time, each beside its target (bench_shape.py; ``bench_shape.py --compile-only``: the
   cold compile of every family beside the 10 s target).

Not run by this command (they read stores rather than time code): ``benchmarks/paper_cost.py``, the CPU
cost of every experiment at paper scale from the result stores (the archives in docs/data and any store
given), measured where runs carry ``cpu_s`` and projected otherwise, each projection with its
assumption, the totals beside issue 43's targets (19,200 core-s in all, 600 s for the longest run);
``benchmarks/compare_stores.py``, two stores compared cell by cell.

Timings are not asserted anywhere: they are reported in the issue notes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable


def experiment_times(scales: list[str], workers: int) -> list[tuple[str, str, float, int]]:
    from safebandits.datasets import DataNotFoundError, find_dataset
    from safebandits.experiments.spec import list_experiments
    from safebandits.experiments.store import ResultsStore

    rows = []
    for name, spec in list_experiments().items():
        try:
            for dataset in spec.requires_data:
                find_dataset(dataset)
        except DataNotFoundError as exc:
            print(f"skipping {name}: {exc}", flush=True)
            continue
        for scale in scales:
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                subprocess.run(
                    [
                        PY,
                        "-m",
                        "safebandits.cli",
                        "run",
                        name,
                        "--scale",
                        scale,
                        "--out",
                        tmp,
                        "--workers",
                        str(workers),
                        "--quiet",
                    ],
                    check=True,
                )
                wall = time.perf_counter() - t0
                with ResultsStore(tmp) as store:
                    n = len(store.to_frame())
            rows.append((name, scale, wall, n))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paper", action="store_true", help="also time the paper scale (slow)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-experiments", action="store_true")
    args = parser.parse_args()
    if not args.skip_experiments:
        scales = ["quick", "paper"] if args.paper else ["quick"]
        rows = experiment_times(scales, args.workers)
        print(f"\nExperiment wall time ({args.workers} workers)")
        print(f"{'experiment':<28}{'scale':<8}{'runs':>8}{'wall [s]':>12}")
        for name, scale, wall, n in rows:
            print(f"{name:<28}{scale:<8}{n:>8}{wall:>12.1f}")
    for script in sorted(HERE.glob("bench_*.py")):
        print()
        subprocess.run([PY, str(script)], check=True)


if __name__ == "__main__":
    main()
