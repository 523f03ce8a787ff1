"""Compare two results stores cell by cell on the runs they share (same run key), e.g. a branch's quick
runs against the baseline of main.

    python benchmarks/compare_stores.py /work/baseline_quick /tmp/mine [--experiment ckb-synthetic]

Prints, per shared column, the number of runs whose values differ (columns only one store has are
listed apart: a new metric is not a changed result). Wall times and versions are not compared. Exit
status 1 if a shared column differs.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

import safebandits as sb

SKIP = {"pk", "timestamp", "wall_s", "safebandits_version", "numpy_version", "python_version"}


def _key_columns(df: pd.DataFrame) -> list[str]:
    return ["experiment", "scale", "run_key"]  # (a run key is a pure function of configuration and seed)


def compare(base: pd.DataFrame, mine: pd.DataFrame) -> tuple[dict[str, int], list[str], list[str], int]:
    keys = _key_columns(base)
    merged = base.merge(mine, on=keys, suffixes=("_a", "_b"))
    shared = [c for c in base.columns if c in mine.columns and c not in keys and c not in SKIP]
    shared = [c for c in shared if not c.endswith("_s") and "time" not in c]
    diffs = {}
    for c in shared:
        a, b = merged[f"{c}_a"], merged[f"{c}_b"]
        an = pd.to_numeric(a, errors="coerce")
        bn = pd.to_numeric(b, errors="coerce")
        numeric = an.notna() | bn.notna()
        both_null = a.isna().to_numpy() & b.isna().to_numpy()
        same = both_null | np.where(
            numeric, (an == bn).to_numpy(), (a.astype(str) == b.astype(str)).to_numpy()
        )
        n = int((~same.astype(bool)).sum())  # (np.where over object columns: an object array)
        if n:
            diffs[c] = n
    only_a = sorted(set(base.columns) - set(mine.columns))
    only_b = sorted(set(mine.columns) - set(base.columns))
    return diffs, only_a, only_b, len(merged)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("mine")
    parser.add_argument("--experiment", action="append", default=[])
    args = parser.parse_args()
    base, mine = sb.load_results(args.base), sb.load_results(args.mine)
    if args.experiment:
        base = base[base["experiment"].isin(args.experiment)]
    mine = mine[mine["experiment"].isin(base["experiment"].unique())]
    diffs, only_a, only_b, n = compare(base, mine)
    print(f"{n} shared runs; columns only in base: {only_a or 'none'}; only in mine: {only_b or 'none'}")
    for c, k in sorted(diffs.items()):
        print(f"  {c}: {k} runs differ")
    print("identical on every shared column" if not diffs else f"{len(diffs)} columns differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
