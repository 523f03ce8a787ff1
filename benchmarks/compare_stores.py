"""Compare two results stores cell by cell (issue 33: kernel experiments before / after a change).

Usage::

    .venv/bin/python benchmarks/compare_stores.py BASE NEW [--experiment ckb-synthetic ...] [--rtol 1e-9]

Runs are matched on (experiment, scale, run key, label); the config hash is not part of the match (a new
option with its default changes the hash, not the run). For every matched pair every numeric column of
``safebandits results --csv`` that both stores have (results, learner diagnostics; not wall time, config,
versions or timestamps) is compared: equal bits, equal within ``--rtol`` (relative, with an absolute
floor of ``rtol``), or different. Prints one line per experiment and the largest differences; exit
status 1 if a cell differs beyond the tolerance or a run is missing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

SKIP = {"wall_s", "timestamp", "config_json", "config_hash", "pk", "python_version", "numpy_version",
        "safebandits_version", "traceback", "error", "seed", "sweep_point", "replicate",
        "budget"}  # fmt: skip
KEY = ["experiment", "scale", "run_key", "label"]


def export(store: str) -> pd.DataFrame:
    exe = Path(sys.executable).with_name("safebandits")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.csv"
        subprocess.run([str(exe), "results", store, "--csv", str(out)], check=True, capture_output=True)
        return pd.read_csv(out, low_memory=False)


def compare(base: pd.DataFrame, new: pd.DataFrame, rtol: float) -> int:
    base, new = base.copy(), new.copy()  # (de-fragmented)
    merged = base.merge(new, on=KEY, how="outer", suffixes=("_base", "_new"), indicator=True)
    status = 0
    missing = merged[merged["_merge"] != "both"]
    if len(missing):
        status = 1
        print(f"runs in one store only: {len(missing)}")
        print(missing[[*KEY, "_merge"]].to_string(index=False))
    both = merged[merged["_merge"] == "both"]
    names = [c[: -len("_base")] for c in both.columns if c.endswith("_base")]
    meta = ("algorithm.", "instance.", "sweep.")
    cols = sorted(c for c in names if c + "_new" in both.columns and c not in SKIP and not c.startswith(meta))
    for exp, grp in both.groupby("experiment"):
        n_exact = n_tol = n_diff = 0
        worst: list[tuple[float, str, str, float, float]] = []
        for c in cols:
            a, b = grp[c + "_base"], grp[c + "_new"]
            if not (pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b)):
                eq = ((a.astype(str) == b.astype(str)) | (a.isna() & b.isna())).to_numpy()
                n_exact += int(eq.sum())
                n_diff += int((~eq).sum())
                continue
            x, y = a.to_numpy(float), b.to_numpy(float)
            same = (x == y) | (np.isnan(x) & np.isnan(y))
            close = np.isclose(x, y, rtol=rtol, atol=rtol, equal_nan=True)
            n_exact += int(same.sum())
            n_tol += int((close & ~same).sum())
            n_diff += int((~close).sum())
            for j in np.flatnonzero(~same):
                rel = abs(x[j] - y[j]) / max(abs(x[j]), abs(y[j]), 1e-300)
                worst.append((rel, c, str(grp["label"].iloc[j]), x[j], y[j]))
        print(f"{exp}: {len(grp)} runs, {n_exact} cells bit-identical, {n_tol} within rtol {rtol:g}, "
              f"{n_diff} different")  # fmt: skip
        for rel, c, label, x, y in sorted(worst, reverse=True)[:5]:
            print(f"    {c} ({label}): {x!r} vs {y!r} (relative {rel:.2g})")
        status |= int(n_diff > 0)
    return status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--experiment", action="append", default=[])
    parser.add_argument("--rtol", type=float, default=1e-9)
    args = parser.parse_args()
    base, new = export(args.base), export(args.new)
    if args.experiment:
        base = base[base["experiment"].isin(args.experiment)]
        new = new[new["experiment"].isin(args.experiment)]
    else:
        base = base[base["experiment"].isin(set(new["experiment"]))]
    sys.exit(compare(base, new, args.rtol))


if __name__ == "__main__":
    main()
