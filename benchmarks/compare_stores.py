"""Compare two results stores cell by cell: every column of every run and every stored trace.

Usage::

    .venv/bin/python benchmarks/compare_stores.py BEFORE_DIR AFTER_DIR
    .venv/bin/python benchmarks/compare_stores.py results/before results/after --scale quick
    .venv/bin/python benchmarks/compare_stores.py A B --experiment acol/figure2 --show 20

``BEFORE_DIR`` and ``AFTER_DIR`` are results directories (``safebandits run ... --out DIR``). Runs are
matched by (experiment, scale, run key), the latest row of each (as ``safebandits results`` shows them:
``safebandits.experiments.store.latest_runs``); every
column is compared as stored (floats bit for bit: ``repr`` of the stored value, NaN equal to NaN), and
every trace (curves, recommendations, learner and instance records, ...) as its stored JSON, matched
by (run, trace name). Ignored: the columns that describe the execution rather than the result
(wall time, library versions, timestamp, the row's primary key and the traceback's file paths; see
``IGNORED``). A column present in one store only counts as a difference wherever it holds a value.

Prints one line per kind of difference (up to ``--show`` examples each) and a summary; exits with
status 0 when the stores hold identical results for the same run keys, 1 otherwise. Runs present in
one store only are listed and counted as differences unless ``--subset`` is given (then only the
runs of BEFORE must be in AFTER, with identical results).
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

#: Columns that describe the execution, not the result.
IGNORED = frozenset(
    {
        "pk",
        "wall_s",
        "cpu_s",
        "timestamp",
        "python_version",
        "numpy_version",
        "safebandits_version",
        "traceback",
    }
)


def _connect(directory: Path) -> sqlite3.Connection:
    path = directory / "results.sqlite"
    if not path.is_file():
        raise SystemExit(f"{directory}: no results store (results.sqlite)")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _norm(value: Any) -> Any:
    """A stored value as a comparable key: floats by their exact repr (NaN equal to NaN)."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return value


class Close:
    """Equality of stored values within a tolerance (``rtol``, ``atol``) for floats, exact otherwise;
    ``worst`` is the largest relative difference seen between floats that are not bit-identical."""

    def __init__(self, rtol: float, atol: float = 0.0) -> None:
        self.rtol, self.atol, self.worst = rtol, atol, 0.0

    def cell(self, a: Any, b: Any) -> bool:
        if a == b:
            return True
        fa, fb = _as_float(a), _as_float(b)
        if fa is None or fb is None:
            return False
        return self._floats(fa, fb)

    def trace(self, a: str | None, b: str | None) -> bool:
        if a == b:
            return True
        if a is None or b is None:
            return False
        try:
            return self._tree(json.loads(a), json.loads(b))
        except (TypeError, ValueError):
            return False

    def _floats(self, a: float, b: float) -> bool:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if a != b and math.isfinite(a) and math.isfinite(b):
            self.worst = max(self.worst, abs(a - b) / max(abs(a), abs(b)))
        return math.isclose(a, b, rel_tol=self.rtol, abs_tol=self.atol)

    def _tree(self, a: Any, b: Any) -> bool:
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(self._tree(a[k], b[k]) for k in a)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(self._tree(x, y) for x, y in zip(a, b))
        if isinstance(a, float) or isinstance(b, float):
            if (
                isinstance(a, bool)
                or isinstance(b, bool)
                or not isinstance(a, (int, float))
                or not isinstance(b, (int, float))
            ):
                return False
            return self._floats(float(a), float(b))
        return a == b


def _as_float(value: Any) -> float | None:
    """A cell's float (cells hold floats as their repr, see ``_norm``), or None for other values."""
    if isinstance(value, str):
        try:
            return float(value) if value == "nan" or ("." in value or "e" in value) else None
        except ValueError:
            return None
    return None


def load(directory: Path, experiments: set[str] | None, scales: set[str] | None) -> tuple[dict, dict]:
    """``({run: {column: value}}, {(run, trace name): json text})`` of the latest row of each run
    ``"experiment|scale|run_key"``."""
    conn = _connect(directory)
    try:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT rowid AS _rowid, * FROM runs ORDER BY timestamp, rowid").fetchall()
        runs: dict[str, dict[str, Any]] = {}
        pk_key: dict[str, str] = {}
        for row in rows:
            rec = dict(row)
            if experiments and rec.get("experiment") not in experiments:
                continue
            if scales and rec.get("scale") not in scales:
                continue
            key = f"{rec.get('experiment')}|{rec.get('scale')}|{rec['run_key']}"
            runs[key] = rec  # (later rows of a run replace earlier ones: the latest wins)
            pk_key[rec["pk"]] = key
        latest_pk = {rec["pk"] for rec in runs.values()}
        traces: dict[tuple[str, str], str] = {}
        for pk, name, text in conn.execute("SELECT pk, name, json FROM traces"):
            if pk in latest_pk:
                traces[(pk_key[pk], name)] = _canonical_json(text)
    finally:
        conn.close()
    cleaned = {
        key: {c: _norm(v) for c, v in rec.items() if c not in IGNORED and c != "_rowid" and v is not None}
        for key, rec in runs.items()
    }
    for rec in cleaned.values():
        if "config_json" in rec:
            rec["config_json"] = _canonical_json(rec["config_json"])
    return cleaned, traces


def _canonical_json(text: str | None) -> str | None:
    """JSON text re-serialised with sorted keys (floats keep their repr through json)."""
    if text is None:
        return None
    try:
        return json.dumps(json.loads(text), sort_keys=True)
    except (TypeError, ValueError):
        return text


def compare(
    before: Path,
    after: Path,
    experiments=None,
    scales=None,
    subset=False,
    show=10,
    rtol: float | None = None,
    atol: float = 0.0,
) -> int:
    close = Close(rtol, atol) if rtol is not None else None
    runs_a, traces_a = load(before, experiments, scales)
    runs_b, traces_b = load(after, experiments, scales)
    diffs: dict[str, list[str]] = defaultdict(list)
    only_a = sorted(set(runs_a) - set(runs_b))
    only_b = sorted(set(runs_b) - set(runs_a))
    for key in only_a:
        diffs["run only in BEFORE"].append(key)
    if not subset:
        for key in only_b:
            diffs["run only in AFTER"].append(key)
    common = sorted(set(runs_a) & set(runs_b))
    cells = 0
    for key in common:
        a, b = runs_a[key], runs_b[key]
        for col in sorted(set(a) | set(b)):
            cells += 1
            va, vb = a.get(col), b.get(col)
            if va != vb and not (close is not None and close.cell(va, vb)):
                diffs[f"column {col}"].append(f"{key}: {a.get(col)!r} -> {b.get(col)!r}")
    n_traces = 0
    common_set = set(common)
    for tk in sorted(set(traces_a) | set(traces_b)):
        if tk[0] not in common_set:
            continue
        n_traces += 1
        ta, tb = traces_a.get(tk), traces_b.get(tk)
        if ta != tb and not (close is not None and close.trace(ta, tb)):
            short = lambda t: None if t is None else (t if len(t) < 120 else t[:117] + "...")  # noqa: E731
            diffs[f"trace {tk[1]}"].append(f"{tk[0]}: {short(ta)} -> {short(tb)}")
    for kind, items in sorted(diffs.items()):
        print(f"{kind}: {len(items)} difference(s)")
        for item in items[:show]:
            print(f"    {item}")
    n_diff = sum(len(v) for v in diffs.values())
    print(
        f"compared {len(common)} runs ({cells} cells, {n_traces} traces); "
        f"{len(only_a)} only in BEFORE, {len(only_b)} only in AFTER; {n_diff} difference(s)"
    )
    if close is not None:
        print(
            f"floats compared with rel_tol={close.rtol:g}, abs_tol={close.atol:g}; "
            f"largest relative difference seen: {close.worst:.3g}"
        )
    if not common:
        print("no run in common: nothing was compared")
        return 1
    return 0 if n_diff == 0 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--experiment", action="append", help="only this experiment (repeatable)")
    parser.add_argument("--scale", action="append", help="only this scale (repeatable)")
    parser.add_argument("--subset", action="store_true", help="AFTER may hold runs BEFORE has not")
    parser.add_argument("--show", type=int, default=10, help="examples printed per kind of difference")
    parser.add_argument("--rtol", type=float, help="compare floats within this relative tolerance")
    parser.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (with --rtol)")
    args = parser.parse_args(argv)
    exps = set(args.experiment) if args.experiment else None
    scales = set(args.scale) if args.scale else None
    return compare(args.before, args.after, exps, scales, args.subset, args.show, args.rtol, args.atol)


if __name__ == "__main__":
    sys.exit(main())
