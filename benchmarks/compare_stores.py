"""Compare two results stores cell by cell (issue 31: quick-scale results must stay identical).

    python benchmarks/compare_stores.py BASELINE_DIR NEW_DIR [--experiment NAME ...]

Runs are matched by run key (``seed/sweep_point/label/replicate``) within each (experiment, scale), not by
the stored primary key: a new option with its default changes every config hash, not the results. Every
result column both stores hold is compared exactly (NaN equal to NaN); wall time, timestamps, versions,
config hash and config JSON are ignored, and a config column only the new store fills (a new option at its
default) is listed, not compared. Prints one line per experiment and exits 1 if any cell differs.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from safebandits.experiments.store import ResultsStore, latest_runs

IGNORED = {
    "pk", "config_hash", "config_json", "wall_s", "timestamp", "python_version", "numpy_version",
    "safebandits_version",
}  # fmt: skip


def _frame(directory: str) -> pd.DataFrame:
    with ResultsStore(directory, mode="r") as store:
        return latest_runs(store.to_frame())


def _same(a: pd.Series, b: pd.Series) -> pd.Series:
    both_nan = a.isna() & b.isna()
    try:
        eq = a.astype(object).eq(b.astype(object))
    except (TypeError, ValueError):
        eq = a.astype(str) == b.astype(str)
    return eq | both_nan


def compare(base: pd.DataFrame, new: pd.DataFrame, experiments: list[str] | None) -> int:
    bad = 0
    names = sorted(set(base["experiment"]) | set(new["experiment"]))
    for name in experiments or names:
        a = base[base["experiment"] == name].set_index(["scale", "run_key"])
        b = new[new["experiment"] == name].set_index(["scale", "run_key"])
        keys = a.index.intersection(b.index)
        missing = len(a.index.difference(b.index)) + len(b.index.difference(a.index))
        a = a.dropna(axis=1, how="all")
        b = b.dropna(axis=1, how="all")
        # a config column only the new store fills is a new option at its default, not a result
        new_options = sorted(
            c for c in set(b.columns) - set(a.columns) if c.startswith(("instance.", "algorithm."))
        )
        cols = sorted((set(a.columns) & set(b.columns)) - IGNORED)
        diffs = {}
        for col in cols:
            same = _same(a.loc[keys, col], b.loc[keys, col])
            if not bool(np.all(same)):
                diffs[col] = int((~same).sum())
        only = sorted((set(a.columns) ^ set(b.columns)) - IGNORED - set(new_options))
        status = "identical" if not diffs and not missing else "DIFFERENT"
        bad += status != "identical"
        print(f"{name}: {len(keys)} runs matched, {missing} unmatched, {status}"
              + (f"; cells differ in {diffs}" if diffs else "")
              + (f"; columns in one store only: {only}" if only else "")
              + (f"; new options (config only): {new_options}" if new_options else ""))  # fmt: skip
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("baseline")
    parser.add_argument("new")
    parser.add_argument("--experiment", action="append")
    args = parser.parse_args(argv)
    return compare(_frame(args.baseline), _frame(args.new), args.experiment)


if __name__ == "__main__":
    sys.exit(main())
