"""Results of a results directory as tidy data frames: runs (one row each) and curves (long format).

:func:`load_results` gives one row per run with every config column (``experiment``, ``panel``,
``label``, ``algorithm``, ``instance.*``, ``algorithm.*``, ``sweep.*``, ``seed``, ``replicate``, ...) and
the metrics of its kind (identification: ``samples``, ``correct``, ``stopped``; regret: ``regret``,
``policy_regret``, ``violations``, ``positive_cost``, ...; classification: ``accuracy``, ``fdr``, ...).
:func:`load_curves` decodes the curves the store keeps as JSON (regret over rounds, classification
metrics over labels) into one row per (run, curve, component, point). :func:`summary_by_kind` is the
table ``safebandits results`` prints.

Examples
--------
>>> import safebandits as sb
>>> runs = sb.load_results("results/quick", experiment="stagewise-comparison")  # doctest: +SKIP
>>> curves = sb.load_curves("results/quick", curve="regret")  # doctest: +SKIP
>>> curves.groupby(["label", "x"])["y"].mean()  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from safebandits.experiments.store import ResultsStore, latest_runs
from safebandits.experiments.watch import FLAG_COLUMN

__all__ = [
    "CURVE_KEY_COLUMNS",
    "KINDS",
    "correct_but_infeasible",
    "load_curves",
    "load_results",
    "named_columns",
    "ok_runs",
    "run_kind",
    "summary_by_kind",
]

#: Run columns repeated on every row of :func:`load_curves` (those present in the store).
CURVE_KEY_COLUMNS = (
    "pk",
    "run_key",
    "experiment",
    "scale",
    "panel",
    "label",
    "algorithm",
    "instance",
    "sweep.param",
    "sweep.value",
    "seed",
    "replicate",
)

#: Bookkeeping columns :func:`load_results` leaves out unless ``details=True``.
_DETAIL_COLUMNS = (
    "config_json",
    "traceback",
    "python_version",
    "numpy_version",
    "safebandits_version",
    "curve",
)

#: Stored regret metrics -> the names users see (``results`` tables, ``--csv``, the report), each naming
#: its comparator (issue 40): ``action_regret`` is measured against the best feasible arm,
#: ``policy_regret`` against the best feasible policy (the LP optimum over distributions on the arms),
#: ``violations`` counts rounds whose *played action* exceeds a threshold, ``policy_violations`` rounds
#: whose *policy's expected cost* does (the in-expectation promise). The stored ``regret`` is each
#: learner's own benchmark (the arm for per-round learners, the policy for in-expectation ones): shown
#: as ``regret_vs_own_benchmark`` beside ``regret_benchmark``, which says which.
REGRET_NAMES = {
    "action_regret": "regret_vs_best_feasible_arm",
    "policy_regret": "regret_vs_best_feasible_policy",
    "regret": "regret_vs_own_benchmark",
    "regret_tenth": "regret_vs_own_benchmark_at_tenth",
    "policy_regret_tenth": "regret_vs_best_feasible_policy_at_tenth",
    "violations": "violations_per_round",
    "policy_violations": "violations_of_expected_cost",
}


def regret_benchmark(algorithm: Any) -> str:
    """The benchmark of a learner's own ``regret``: "best feasible arm" (per-round learners) or "best
    feasible policy" (learners safe in expectation); "" when the learner is not registered."""
    from safebandits.algorithms.registry import get_algorithm
    from safebandits.exceptions import ConfigError

    try:
        cls = get_algorithm(str(algorithm)).cls
    except (ConfigError, KeyError, TypeError):
        return ""
    return (
        "best feasible policy" if getattr(cls, "setting", "round") == "expectation" else "best feasible arm"
    )


def named_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` (runs as from :func:`load_results`) with the regret and violation columns under names that
    state their comparator (:data:`REGRET_NAMES`) and, where there is a ``regret`` column, a
    ``regret_benchmark`` column saying what each run's own regret is measured against. Old stores read
    the same way (columns they lack stay absent)."""
    out = df.rename(columns={k: v for k, v in REGRET_NAMES.items() if k in df})
    if "regret" in df and "algorithm" in df:
        marks = {a: regret_benchmark(a) for a in df["algorithm"].dropna().unique()}
        bench = df["algorithm"].map(marks).where(df["regret"].notna(), None)
        out.insert(list(out.columns).index(REGRET_NAMES["regret"]) + 1, "regret_benchmark", bench)
    return out


#: Kinds of runs, by the metrics their records hold.
KINDS = ("identification", "regret", "classification", "other")

# Per-curve x axis: the first of these keys found in a stored curve.
_X_KEYS = ("t", "labels", "x")


def _select(df: pd.DataFrame, column: str, wanted: str | Iterable[str] | None) -> pd.DataFrame:
    if wanted is None or column not in df:
        return df
    values = [wanted] if isinstance(wanted, str) else list(wanted)
    return df[df[column].isin(values)]


def _runs(
    directory: str | os.PathLike[str],
    experiment: str | Iterable[str] | None,
    scale: str | Iterable[str] | None,
    latest: bool,
) -> tuple[pd.DataFrame, ResultsStore]:
    store = ResultsStore(directory, mode="r")
    df = store.to_frame()
    df = _select(_select(df, "experiment", experiment), "scale", scale)
    if latest:
        df = latest_runs(df)
    return df.reset_index(drop=True), store


def load_results(
    directory: str | os.PathLike[str],
    *,
    experiment: str | Iterable[str] | None = None,
    scale: str | Iterable[str] | None = None,
    latest: bool = True,
    status: str | None = None,
    details: bool = False,
) -> pd.DataFrame:
    """The runs stored in ``directory`` as a data frame, one row per run.

    Parameters
    ----------
    directory : str or Path
        A results directory (``safebandits run ... --out DIRECTORY``).
    experiment, scale : str or iterable of str, optional
        Keep only these experiments / scales.
    latest : bool, default=True
        Keep only the most recent row of each run key (a rerun with other ``--set`` values adds rows).
    status : {"ok", "failed"}, optional
        Keep only runs of this status.
    details : bool, default=False
        Keep bookkeeping columns (``config_json``, ``traceback``, versions, classification ``curve``
        JSON); by default they are dropped, as are columns empty for every selected run (e.g. the regret
        metrics of identification runs).

    Returns
    -------
    pandas.DataFrame
        Columns: ``pk``, ``run_key``, the config columns, ``status``, ``error``, the metrics,
        ``timestamp`` and ``kind`` (one of :data:`KINDS`, see :func:`run_kind`).

    Raises
    ------
    ConfigError
        ``directory`` holds no results store.
    """
    df, store = _runs(directory, experiment, scale, latest)
    store.close()
    if status is not None:
        df = df[df["status"] == status].reset_index(drop=True)
    df = df.assign(kind=run_kind(df))
    if not details:
        df = df.drop(columns=[c for c in _DETAIL_COLUMNS if c in df])
        keep = set(CURVE_KEY_COLUMNS) | {"status", "error", "kind"}
        df = df[[c for c in df.columns if c in keep or df[c].notna().any()]]
    return df


def run_kind(df: pd.DataFrame) -> pd.Series:
    """Kind of each run (one of :data:`KINDS`), decided per (experiment, label) from the stored metrics.

    ``regret`` if the group has a ``regret`` value, ``classification`` if it has ``accuracy``,
    ``identification`` if it has ``correct``, else ``other`` (solver runs). A method whose runs all failed
    takes the kind of its experiment's other methods.
    """
    if df.empty:
        return pd.Series([], index=df.index, dtype=object)
    by = [c for c in ("experiment", "label") if c in df]
    kinds = _kinds_by(df, by)
    if "experiment" in df and "status" in df:
        # A method whose runs all failed gets the kind of the other methods of its experiment.
        failed_only = (df["status"] != "ok").groupby([df[c] for c in by], dropna=False).transform("all")
        fallback = _kinds_by(df, ["experiment"])
        use = failed_only.astype(bool) & (kinds == "other")
        kinds[use] = fallback[use]
    return kinds


def _kinds_by(df: pd.DataFrame, by: list[str]) -> pd.Series:
    kinds = pd.Series("other", index=df.index, dtype=object)
    for column, kind in (("correct", "identification"), ("accuracy", "classification"), ("regret", "regret")):
        if column not in df:
            continue
        has = df[column].notna()
        group_has = has.groupby([df[c] for c in by], dropna=False).transform("any") if by else has
        kinds[group_has.astype(bool)] = kind
    return kinds


def _series_rows(
    name: str, x: np.ndarray, values: list[Any]
) -> list[tuple[str, Any, np.ndarray, np.ndarray]]:
    """(curve, component, x, y) blocks of one stored series; vector values give one block per component."""
    y = np.asarray(values, dtype=float) if len(values) else np.empty(0)
    if y.ndim == 1:
        return [(name, pd.NA, x, y)]
    if y.ndim == 2:
        return [(name, j, x, y[:, j]) for j in range(y.shape[1])]
    raise ValueError(
        f"curve {name!r} has values of shape {y.shape}; expected one number or a vector per point."
    )


def load_curves(
    directory: str | os.PathLike[str],
    *,
    experiment: str | Iterable[str] | None = None,
    scale: str | Iterable[str] | None = None,
    curve: str | Iterable[str] | None = None,
    latest: bool = True,
) -> pd.DataFrame:
    """The curves stored with the runs of ``directory``, in long format.

    Regret runs store their curves on a log-spaced grid of rounds (``x`` = round ``t``): cumulative
    ``regret`` and ``policy_regret``, average ``reward``, windowed ``cost`` and ``policy_cost``,
    ``policy_cost_now`` and cumulative ``positive_cost`` (the last four with one component per constraint).
    Classification runs store ``accuracy``, ``fdr``, ``precision`` and ``recall`` after each batch
    (``x`` = labels used). Runs without curves (identification) have no rows.

    Parameters
    ----------
    directory : str or Path
    experiment, scale : str or iterable of str, optional
        Keep only these experiments / scales.
    curve : str or iterable of str, optional
        Keep only these curves (e.g. ``"regret"``).
    latest : bool, default=True
        Only the most recent row of each run key.

    Returns
    -------
    pandas.DataFrame
        One row per point: the run columns of :data:`CURVE_KEY_COLUMNS` present in the store, then
        ``curve`` (name), ``component`` (constraint index of vector curves, else missing), ``x_name``
        (``"t"`` or ``"labels"``), ``x`` and ``y``.
    """
    runs, store = _runs(directory, experiment, scale, latest)
    try:
        stored = store.traces("curve")
    finally:
        store.close()
    keys = [c for c in CURVE_KEY_COLUMNS if c in runs]
    wanted = None if curve is None else ({curve} if isinstance(curve, str) else set(curve))
    blocks: list[pd.DataFrame] = []
    for row in runs[keys].itertuples(index=False, name=None):
        data = stored.get((row[0], "curve"))
        if not isinstance(data, dict):
            continue
        x_name = next((k for k in _X_KEYS if k in data), None)
        if x_name is None:
            continue
        x = np.asarray(data[x_name], dtype=float)
        for name, values in data.items():
            if name == x_name or (wanted is not None and name not in wanted):
                continue
            if not isinstance(values, list) or len(values) != x.size:
                continue
            for cname, comp, xs, ys in _series_rows(name, x, values):
                n = xs.size
                columns_of_run = {col: [value] * n for col, value in zip(keys, row)}
                blocks.append(
                    pd.DataFrame(
                        {
                            **columns_of_run,
                            "curve": cname,
                            "component": comp,
                            "x_name": x_name,
                            "x": xs,
                            "y": ys,
                        }
                    )
                )
    columns = [*keys, "curve", "component", "x_name", "x", "y"]
    if not blocks:
        out = pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
        out["x"] = out["x"].astype(float)
        out["y"] = out["y"].astype(float)
        out["component"] = out["component"].astype("Int64")
        return out
    out = pd.concat(blocks, ignore_index=True)[columns]
    out["component"] = out["component"].astype("Int64")
    return out


def summary_by_kind(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per kind of run, a table per (experiment, scale, label): run counts and the kind's main metrics.

    identification: ``median_samples``, ``correct`` (under the learner's own guarantee, which may be
    relaxed by a tolerance such as BESIDE's epsilon), ``feasible`` (the answer satisfies every constraint
    under the truth, strictly), ``correct_infeasible`` (the number of runs scored correct whose answer is
    infeasible) and ``stopped`` (fractions but the count). regret: median ``rounds``; means of
    ``regret_vs_best_feasible_arm``, ``regret_vs_best_feasible_policy`` (each names its comparator:
    :data:`REGRET_NAMES`), ``violations_per_round`` (rounds whose played action exceeds a threshold),
    ``violations_of_expected_cost`` (rounds whose policy's expected cost does: the in-expectation promise)
    and ``positive_cost``; the largest ``max_policy_cost_over_threshold`` (cost minus threshold, at most 0
    within the limit, one unit for every learner); the fraction that reached the horizon; on conservative
    problems, the mean ``conservative_violations`` and the smallest ``conservative_min_margin``.
    classification: median ``labels`` and mean ``accuracy``, ``fdr``, ``precision``, ``recall``. other: median
    ``cpu_s`` (missing for runs stored without it) and ``wall_s``. Every table has ``runs`` (ok) and
    ``failed``.

    Parameters
    ----------
    df : pandas.DataFrame
        Runs as from :func:`load_results` (or :meth:`ResultsStore.to_frame`).
    """
    if df.empty:
        return {}
    df = df.assign(kind=run_kind(df)) if "kind" not in df else df
    by = [c for c in ("experiment", "scale", "label") if c in df]
    specs: dict[str, list[tuple[str, str, str]]] = {
        "identification": [
            ("median_samples", "samples", "median"),
            ("correct", "correct", "mean"),
            ("feasible", "feasible", "mean"),
            ("correct_infeasible", "correct_infeasible", "sum"),
            ("stopped", "stopped", "mean"),
        ],
        "regret": [
            ("rounds", "samples", "median"),
            (REGRET_NAMES["action_regret"], "action_regret", "mean"),
            (REGRET_NAMES["policy_regret"], "policy_regret", "mean"),
            (REGRET_NAMES["violations"], "violations", "mean"),
            (REGRET_NAMES["policy_violations"], "policy_violations", "mean"),
            ("positive_cost", "positive_cost", "mean"),
            ("max_policy_cost_over_threshold", "max_policy_cost_over_threshold", "max"),
            ("reached_horizon", "stopped", "mean"),
            # (conservative problems only: the rounds whose cumulative reward fell below (1 - alpha) times the
            # baseline's under the truth, and the smallest margin sum mu_I - (1 - alpha) sum r(b))
            ("conservative_violations", "conservative_violations", "mean"),
            ("conservative_min_margin", "conservative_min_margin", "min"),
        ],
        "classification": [
            ("labels", "samples", "median"),
            ("accuracy", "accuracy", "mean"),
            ("fdr", "fdr", "mean"),
            ("precision", "precision", "mean"),
            ("recall", "recall", "mean"),
        ],
        "other": [("median_cpu_s", "cpu_s", "median"), ("median_wall_s", "wall_s", "median")],
    }
    tables = {}
    for kind in KINDS:
        sub = df[df["kind"] == kind]
        if sub.empty:
            continue
        ok = sub[sub["status"] == "ok"]
        if kind == "identification" and "feasible" in ok and "correct" in ok:
            ok = ok.assign(correct_infeasible=correct_but_infeasible(ok))
        g = ok.groupby(by, sort=True)
        table = pd.DataFrame({"runs": g.size()})
        for out_name, column, how in specs[kind]:
            if column in ok:
                values = pd.to_numeric(ok[column].astype("Float64"), errors="coerce").astype(float)
                table[out_name] = getattr(values.groupby([ok[c] for c in by], sort=True), how)()
        if FLAG_COLUMN in ok:  # (runs whose data contradicted a declared bound: watch.py)
            flagged = ok[FLAG_COLUMN].notna() & (ok[FLAG_COLUMN].astype(str) != "")
            table[FLAG_COLUMN] = flagged.groupby([ok[c] for c in by], sort=True).sum().astype(int)
        failed = sub[sub["status"] != "ok"].groupby(by).size().rename("failed")
        table = table.join(failed, how="outer")
        table[["runs", "failed"]] = table[["runs", "failed"]].fillna(0).astype(int)
        tables[kind] = table
    return tables


def correct_but_infeasible(df: pd.DataFrame) -> pd.Series:
    """Per run: scored correct under the learner's relaxed guarantee, yet its answer violates a constraint
    under the truth (``feasible`` is False). Runs without a recorded feasibility are False."""
    correct = pd.Series([not pd.isna(v) and bool(v) for v in df["correct"]], index=df.index)
    infeasible = pd.Series([not pd.isna(v) and not bool(v) for v in df["feasible"]], index=df.index)
    return (correct & infeasible).astype(float)


def ok_runs(df: pd.DataFrame) -> pd.DataFrame:
    """The ``ok`` runs of an identification runs table, ``samples`` as float, ``stopped``/``correct`` as bool.

    The claims (:mod:`safebandits.experiments.claims`) and the report's figures read runs through it.
    """
    out = df[df["status"] == "ok"].copy()
    out["samples"] = out["samples"].astype(float)
    out["stopped"] = out["stopped"].astype(bool)
    out["correct"] = out["correct"].astype(bool)
    return out
