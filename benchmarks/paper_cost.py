"""Issue 43: the CPU cost of the paper scale, measured from the result stores, beside its targets.

Usage::

    .venv/bin/python benchmarks/paper_cost.py                       # the archives in docs/data
    .venv/bin/python benchmarks/paper_cost.py results/paper-seed1/results.sqlite   # plus stores
    .venv/bin/python benchmarks/paper_cost.py --no-archives A.sqlite B.sqlite --markdown
    .venv/bin/python benchmarks/paper_cost.py STORE --today 2026-11-29T17:13   # measured since then

Reads result stores as data (SQLite, read-only; ``*.sqlite.xz`` archives are decompressed to a temporary
folder) and prints, for every registered experiment with a paper scale, the cost of one sweep of it
(its own panels, methods and replicates at their default settings, one experiment seed): runs, CPU
core-seconds, the longest run, the stores, seed, library version and dates of the runs counted, and how
each number was obtained. The totals are set against the targets of issue 43: 19,200 core-s for all
experiments and 600 s for the longest run. A second table lists the extra paper-scale runs in the
stores (other seeds' sweeps, ``--set`` ranges, configurations that today's code no longer asks for).

Which sweep: a stored run belongs to an experiment's sweep for seed S when its primary key (run key and
configuration hash) is one that today's code asks for (``expand(spec, "paper", seed=S)``). Per
experiment the (store, seed) with the most such runs carrying ``cpu_s`` is counted (then the most runs,
then the newest); the others are extras. Each run of the sweep is costed by one rule (the codes of the
``basis`` column):

- ``M`` measured: its ``cpu_s`` (process CPU time of the run, on the code of its timestamp);
- ``W`` projected from an archived run without ``cpu_s``: its ``wall_s`` with pauses removed (capped at
  ``--cap`` = 5 times the median wall time per sample of its point and method in its store), times the
  method's speed-up since (``R`` if measured, else ``D``, else 1);
- ``G`` projected for a run not yet stored: the mean measured ``cpu_s`` of the same point and method in
  the same sweep;
- ``P`` projected for a run not yet stored where its point and method have no measured run: the mean
  cost (``W``) of that point and method in another stored sweep of the experiment (another seed), times
  the method's speed-up (``R``, ``D`` or 1);
- ``R`` speed-up measured in the stores: the method's CPU per sample in the counted sweep over its gap-free
  wall per sample in the other sweep, on the points both hold;
- ``D`` speed-up documented by a per-sample benchmark (``DOCUMENTED_SPEEDUPS``, with its source), used
  where no ``R`` exists;
- ``1`` no speed-up known: the archived cost as is.

Assumptions, printed under the table: a single-threaded run's wall time equals its CPU time apart from
pauses; a seed's sweep costs what another seed's does (the same points, methods and budgets); code
changes after a measured run do not make it slower. Nothing is run here; no timing asserts.
"""

from __future__ import annotations

import argparse
import lzma
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ARCHIVES = tuple(
    HERE.parent / "docs" / "data" / f"{name}.sqlite.xz"
    for name in (
        "paper-results",
        "paper-confirm-results",
        "paper-seed1b-results",
        "paper-seed1c-results",
        "paper-ranges-results",
        "paper-conservative-results",
        "paper-clucb-results",
        "paper-clucb2-results",
        "dose-anchors-results",
    )
)
#: Issue 43's targets: all experiments at paper scale, and the longest run (CPU seconds).
TARGET_TOTAL = 19_200.0
TARGET_LONGEST = 600.0
#: Pauses removed from archived wall times: a run is capped at CAP times the median wall time per sample
#: of its point and method (docs/decisions/acol.md, "Lazy selection").
CAP = 5.0
#: Per-sample speed-ups from the archived code (2026-11-27/28) to today's, measured by
#: ``benchmarks/bench_acol_per_sample.py`` (theory width, first samples, old and new code alternately)
#: on the driving shape (1,000 arms, 20 distinct, d = 9); docs/decisions/acol.md: "Distinct arms"
#: (Greedy Max Var 7.94 -> 0.29 us, G-ACOL 7.58 -> 0.37, Max Rew-U 0.79 -> 0.06, Adaptive Uniform 3.8 ->
#: 3.3), "Lazy selection" (Adaptive Uniform 2.98 -> 2.52) and "Exact constant factors per sample" (Greedy
#: Max Var 0.268 -> 0.220). Used only where the stores hold no measured speed-up (``R``) of the method.
DOCUMENTED_SPEEDUPS: Mapping[tuple[str, str], float] = {
    ("acol-driving", "greedy-maxvar"): (0.29 / 7.94) * (0.220 / 0.268),
    ("acol-driving", "g-acol"): 0.37 / 7.58,
    ("acol-driving", "maxrew-u"): 0.06 / 0.79,
    ("acol-driving", "adaptive-uniform"): (3.3 / 3.8) * (2.52 / 2.98),
}
COLUMNS = (
    "pk", "run_key", "config_hash", "experiment", "scale", "status", "seed", "panel", "sweep.value",
    "label", "algorithm", "replicate", "samples", "wall_s", "cpu_s", "safebandits_version", "timestamp",
)  # fmt: skip
POINT = ("panel", "sweep.value", "label")
EXTRA_SUMS = {
    "runs": ("pk", "size"),
    "cpu_s": ("cpu_s", "sum"),
    "wall_s": ("wall_s", "sum"),
    "longest_cpu_s": ("cpu_s", "max"),
}
LEGEND = {
    "M": "measured cpu_s (code of the run's date)",
    "W": "archived wall_s without pauses (capped at CAP x its point's median per sample) x speed-up",
    "G": "run not stored yet: mean measured cpu_s of its point and method in the same sweep",
    "P": "run not stored yet: mean cost of its point and method in another seed's sweep x speed-up",
    "R": "speed-up measured in the stores (method's CPU per sample now / archived wall per sample)",
    "D": "speed-up documented by bench_acol_per_sample.py (DOCUMENTED_SPEEDUPS)",
    "1": "no speed-up known: archived cost as is",
}


# -- reading ----------------------------------------------------------------------------------------


def open_copy(path: Path, tmp: Path) -> Path:
    """A plain SQLite path for ``path``: ``*.xz`` archives decompressed into ``tmp``."""
    if path.suffix != ".xz":
        return path
    out = tmp / path.name[: -len(".xz")]
    with lzma.open(path) as src, out.open("wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    return out


def read_runs(path: Path, name: str) -> pd.DataFrame:
    """The ok paper-scale runs of one store (read-only), with the columns of ``COLUMNS`` (``cpu_s`` missing
    in stores written before it) and ``store`` = ``name``."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        have = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
        cols = ", ".join(f'"{c}"' if c in have else f'NULL AS "{c}"' for c in COLUMNS)
        df = pd.read_sql_query(f"SELECT {cols} FROM runs WHERE scale = 'paper' AND status = 'ok'", conn)
    finally:
        conn.close()
    for c in ("samples", "wall_s", "cpu_s", "seed", "replicate"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    df["sweep.value"] = df["sweep.value"].map(point_value)
    df["store"] = name
    return df


def point_value(value) -> str:
    """A sweep value as a comparable key (``50``, ``50.0`` and ``"50"`` alike: stores keep numbers as
    integers or reals)."""
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return str(value)


def expected_runs(pairs: Iterable[tuple[str, int]]) -> pd.DataFrame:
    """The runs today's code asks for: one row per task of ``expand(spec, "paper", seed=S)``."""
    from safebandits.experiments.spec import expand, get_experiment

    rows = []
    for name, seed in sorted(set(pairs)):
        for t in expand(get_experiment(name), "paper", seed=int(seed)):
            rows.append((name, int(seed), t.pk, t.panel, point_value(t.sweep_value), t.label, t.algorithm))
    return pd.DataFrame(
        rows, columns=["experiment", "seed", "pk", "panel", "sweep.value", "label", "algorithm"]
    )


# -- costing ----------------------------------------------------------------------------------------


def gap_free(runs: pd.DataFrame, cap: float = CAP) -> pd.Series:
    """Each run's wall time without pauses: at most ``cap`` times the median wall time per sample of its
    (store, experiment, seed, point, method) times its samples (at least one sample)."""
    if runs.empty:
        return pd.Series(dtype=float)
    per = runs["wall_s"] / runs["samples"].clip(lower=1)
    median = per.groupby([runs[c] for c in ("store", "experiment", "seed", *POINT)]).transform("median")
    return np.minimum(runs["wall_s"], cap * median * runs["samples"].clip(lower=1))


def choose_sweeps(runs: pd.DataFrame, expected: pd.DataFrame) -> dict[str, tuple[str, int]]:
    """Per experiment, the (store, seed) counted: most runs of today's keys with ``cpu_s``, then most runs
    of today's keys, then the newest."""
    keyed = runs[runs["pk"].isin(set(expected["pk"]))]
    score = (
        keyed.assign(has_cpu=keyed["cpu_s"].notna())
        .groupby(["experiment", "store", "seed"])
        .agg(cpu=("has_cpu", "sum"), n=("pk", "size"), newest=("timestamp", "max"))
        .reset_index()
        .sort_values(["experiment", "cpu", "n", "newest"], ascending=[True, False, False, False])
    )
    first = score.drop_duplicates("experiment")
    return {r.experiment: (r.store, int(r.seed)) for r in first.itertuples()}


def speedups(counted: pd.DataFrame, reference: pd.DataFrame) -> dict[tuple[str, str], float]:
    """Per method (label), on each panel and on all panels (key ``(panel, label)`` and ``("", label)``):
    CPU per sample of ``counted``'s measured runs over the cost per sample of ``reference`` (column
    ``cost``: its ``cpu_s``, else its gap-free wall time), on the points both hold."""
    meas = counted[counted["cpu_s"].notna()]
    if meas.empty or reference.empty:
        return {}
    a = meas.groupby(list(POINT)).agg(cpu=("cpu_s", "sum"), n_now=("samples", "sum"))
    b = reference.groupby(list(POINT)).agg(cost=("cost", "sum"), n_ref=("samples", "sum"))
    both = a.join(b, how="inner").reset_index()
    out = {}
    groups = [*both.groupby(["panel", "label"]), *((("", lab), g) for lab, g in both.groupby("label"))]
    for key, g in groups:
        now = g["cpu"].sum() / max(g["n_now"].sum(), 1)
        ref = g["cost"].sum() / max(g["n_ref"].sum(), 1)
        if ref > 0 and now > 0:
            out[(str(key[0]), str(key[1]))] = float(now / ref)
    return out


def _factor(row: Mapping, experiment: str, measured: Mapping, documented: Mapping) -> tuple[float, str]:
    """The speed-up of a run's method since the archive: measured on its panel, else on all panels (R),
    else documented (D), else 1."""
    for key in ((row["panel"], row["label"]), ("", row["label"])):
        if key in measured:
            return measured[key], "R"
    if (experiment, row["algorithm"]) in documented:
        return documented[(experiment, row["algorithm"])], "D"
    return 1.0, "1"


def cost_runs(
    runs: pd.DataFrame,
    expected: pd.DataFrame,
    *,
    cap: float = CAP,
    documented: Mapping[tuple[str, str], float] = DOCUMENTED_SPEEDUPS,
) -> pd.DataFrame:
    """One row per run of each experiment's counted sweep (stored or not): ``cost`` (CPU s), ``peak`` (the
    run's cost, or for a run not stored yet the longest of its point and method), ``basis`` (``M``,
    ``W+R``, ``G``, ...), the run's ``store``, ``seed``, ``timestamp`` and version."""
    runs = runs.assign(cost=runs["cpu_s"].fillna(gap_free(runs, cap)))
    chosen = choose_sweeps(runs, expected)
    today = runs[runs["pk"].isin(set(expected["pk"]))]  # (not the --set ranges nor older configs)
    parts = []
    for exp, (store, seed) in sorted(chosen.items()):
        want = expected[(expected["experiment"] == exp) & (expected["seed"] == seed)]
        mine = runs[(runs["store"] == store) & runs["pk"].isin(set(want["pk"]))].drop_duplicates("pk")
        others = today[(today["experiment"] == exp) & ~((today["store"] == store) & (today["seed"] == seed))]
        ref_pairs = others.groupby(["store", "seed"]).size().sort_values(ascending=False)
        reference = (
            others[(others["store"] == ref_pairs.index[0][0]) & (others["seed"] == ref_pairs.index[0][1])]
            if len(ref_pairs)
            else others
        )
        measured = speedups(mine, reference)
        rows = mine.copy()
        rows["basis"] = "M"
        no_cpu = rows["cpu_s"].isna()
        for i in rows.index[no_cpu]:
            f, code = _factor(rows.loc[i], exp, measured, documented)
            rows.at[i, "cost"] = rows.at[i, "cost"] * f
            rows.at[i, "basis"] = f"W+{code}"
        rows.loc[~no_cpu, "cost"] = rows.loc[~no_cpu, "cpu_s"]
        missing = want[~want["pk"].isin(set(mine["pk"]))]
        if len(missing):
            parts.append(_project_missing(missing, rows, reference, exp, store, measured, documented))
        parts.append(rows.assign(peak=rows["cost"]))
    cols = ["experiment", "store", "seed", *POINT, "algorithm", "pk", "samples", "cost", "peak", "basis"]
    cols += ["cpu_s", "safebandits_version", "timestamp"]
    if not parts:
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)[cols]


def _project_missing(missing, rows, reference, exp, store, measured, documented) -> pd.DataFrame:
    """Runs of the sweep not stored yet: the mean (``cost``) and the longest (``peak``) of their point and
    method, measured in the same sweep (``G``) or in the reference sweep times the speed-up (``P+...``); the
    longest is given to the first missing run of each point and method, the mean to the others."""
    meas = rows[rows["basis"] == "M"].groupby(list(POINT))["cost"].agg(["mean", "max"])
    ref = reference.groupby(list(POINT))["cost"].agg(["mean", "max"])
    out = missing.copy()
    out["store"], out["samples"], out["cpu_s"] = store, np.nan, np.nan
    out["safebandits_version"], out["timestamp"] = None, None
    costs, peaks, bases, seen = [], [], [], set()
    for r in out.to_dict("records"):
        key = tuple(r[c] for c in POINT)
        if key in meas.index:
            f, code, source = 1.0, "G", meas
        elif key in ref.index:
            f, code = _factor(r, exp, measured, documented)
            code, source = f"P+{code}", ref
        else:
            costs.append(np.nan)
            peaks.append(np.nan)
            bases.append("?")
            continue
        costs.append(float(source.at[key, "mean"]) * f)
        peaks.append(float(source.at[key, "mean" if key in seen else "max"]) * f)  # (the longest once)
        bases.append(code)
        seen.add(key)
    out["cost"], out["peak"], out["basis"] = costs, peaks, bases
    return out


# -- tables -----------------------------------------------------------------------------------------


def experiment_table(costed: pd.DataFrame, today: str | None = None) -> pd.DataFrame:
    """Per experiment: runs, measured and projected core-s, total, the longest run (and its basis), stores,
    seed, versions, dates and the bases used; with ``today`` (an ISO time, UTC), ``today_s``: the core-s
    measured by runs stored at or after it (today's code when it is the time that code began running)."""
    rows = []
    for exp, g in costed.groupby("experiment", sort=True):
        meas = g["basis"] == "M"
        recent = meas & (g["timestamp"].fillna("") >= today) if today else meas & False
        top = g.loc[g["peak"].idxmax()] if g["peak"].notna().any() else None
        stamps = g["timestamp"].dropna()
        rows.append(
            {
                "experiment": exp,
                "runs": len(g),
                "measured_runs": int(meas.sum()),
                "measured_s": float(g.loc[meas, "cost"].sum()),
                "today_s": float(g.loc[recent, "cost"].sum()),
                "projected_s": float(g.loc[~meas, "cost"].sum()),
                "total_s": float(g["cost"].sum()),
                "longest_s": float(top["peak"]) if top is not None else np.nan,
                "longest_basis": top["basis"] if top is not None else "",
                "store": ",".join(sorted(set(g["store"]))),
                "seed": int(g["seed"].iloc[0]),
                "version": ",".join(sorted({str(v) for v in g["safebandits_version"].dropna()})),
                "dates": f"{stamps.min()[:16]} .. {stamps.max()[:16]}" if len(stamps) else "",
                "basis": ",".join(sorted(set(g["basis"]))),
            }
        )
    return pd.DataFrame(rows)


def totals(table: pd.DataFrame) -> dict[str, float]:
    """Sums of the experiment table and its longest run, beside the targets."""
    return {
        "runs": int(table["runs"].sum()),
        "measured_s": float(table["measured_s"].sum()),
        "today_s": float(table["today_s"].sum()),
        "projected_s": float(table["projected_s"].sum()),
        "total_s": float(table["total_s"].sum()),
        "longest_s": float(table["longest_s"].max()) if len(table) else 0.0,
        "target_total_s": TARGET_TOTAL,
        "target_longest_s": TARGET_LONGEST,
    }


def extras_table(runs: pd.DataFrame, costed: pd.DataFrame, expected: pd.DataFrame) -> pd.DataFrame:
    """Paper-scale runs outside the counted sweeps (each primary key once): per store, experiment and seed,
    whether today's code asks for them (another seed's sweep) or not (``--set`` ranges, older configs)."""
    extra = runs[~runs["pk"].isin(set(costed["pk"]))].drop_duplicates("pk")
    if extra.empty:
        return pd.DataFrame(columns=["store", "experiment", "seed", "kind", *EXTRA_SUMS])
    today = set(expected["pk"])
    extra = extra.assign(kind=np.where(extra["pk"].isin(today), "other seed", "variant or older config"))
    return extra.groupby(["store", "experiment", "seed", "kind"]).agg(**EXTRA_SUMS).reset_index()


def long_runs(costed: pd.DataFrame, limit: float = TARGET_LONGEST) -> pd.DataFrame:
    """The counted runs whose cost (or, not stored yet, the longest of their point and method) exceeds
    ``limit``, longest first."""
    cols = ["experiment", *POINT, "pk", "samples", "peak", "basis", "store"]
    return costed[costed["peak"] > limit].sort_values("peak", ascending=False)[cols]


# -- command ----------------------------------------------------------------------------------------


def _fmt(table: pd.DataFrame, markdown: bool) -> str:
    if markdown:
        head = "| " + " | ".join(table.columns) + " |"
        rule = "|" + "---|" * len(table.columns)
        body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
        return "\n".join([head, rule, *body])
    return table.to_string(index=False, float_format=lambda v: f"{v:,.0f}")


def _cell(v) -> str:
    if isinstance(v, float):
        return "" if np.isnan(v) else f"{v:,.0f}" if abs(v) >= 10 else f"{v:.2f}"
    return str(v)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stores", nargs="*", type=Path, help="extra stores (results.sqlite or *.sqlite.xz)")
    parser.add_argument("--no-archives", action="store_true", help="read only the stores given")
    parser.add_argument("--cap", type=float, default=CAP, help="pause cap, times the median per sample")
    parser.add_argument("--markdown", action="store_true", help="tables as markdown")
    parser.add_argument(
        "--today",
        metavar="ISO_TIME",
        help="runs stored at or after this UTC time count as measured on today's code (column today_s)",
    )
    args = parser.parse_args(argv)
    paths = [*(() if args.no_archives else ARCHIVES), *args.stores]
    with tempfile.TemporaryDirectory() as tmp:
        frames = []
        for p in paths:
            if not p.is_file():
                raise SystemExit(f"{p}: no such store")
            name = p.parent.name if p.name == "results.sqlite" else p.name.split(".")[0]
            frames.append(read_runs(open_copy(p, Path(tmp)), name))
    runs = pd.concat(frames, ignore_index=True)
    from safebandits.experiments.spec import list_experiments

    specs = list_experiments()
    runs = runs[runs["experiment"].isin([n for n, s in specs.items() if "paper" in s.scales])]
    pairs = {(e, int(s)) for e, s in runs[["experiment", "seed"]].drop_duplicates().itertuples(index=False)}
    expected = expected_runs(pairs)
    costed = cost_runs(runs, expected, cap=args.cap)
    table = experiment_table(costed, args.today)
    tot = totals(table)
    if not args.today:
        table = table.drop(columns="today_s")
    print(f"Paper-scale cost per experiment (one sweep each; stores: {', '.join(str(p) for p in paths)})\n")
    print(_fmt(table, args.markdown))
    print(
        f"\nTotal: {tot['runs']:,} runs, {tot['total_s']:,.0f} core-s ({tot['measured_s']:,.0f} measured, "
        f"{tot['projected_s']:,.0f} projected"
        + (f"; {tot['today_s']:,.0f} measured since {args.today}" if args.today else "")
        + f") against {TARGET_TOTAL:,.0f}; longest run "
        f"{tot['longest_s']:,.0f} s against {TARGET_LONGEST:,.0f}."
    )
    absent = sorted(n for n, s in specs.items() if "paper" in s.scales and n not in set(table["experiment"]))
    if absent:
        print(f"Not in any store (not counted): {', '.join(absent)}")
    print("\nBasis codes:")
    for code, text in LEGEND.items():
        print(f"  {code}: {text}")
    print(
        "Assumptions: a run's wall time is its CPU time apart from pauses (single-threaded runs); a seed's "
        "sweep costs what another seed's does; code changes after a measured run do not make it slower."
    )
    print(f"\nRuns over {TARGET_LONGEST:.0f} s:")
    print(_fmt(long_runs(costed), args.markdown))
    print("\nExtra paper-scale runs (not counted above):")
    print(_fmt(extras_table(runs, costed, expected), args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
