"""Cross-paper comparison of learners on one declared problem (user experiment files).

One figure puts every learner on the same axes, each labelled with its guarantee:

* cumulative regret against the **per-round-safe optimum** (the best arm that satisfies the
  constraints; the tracker's ``regret`` curve);
* cumulative regret against the **best policy in expectation** (the LP optimum over distributions on
  the arms whose expected costs meet the thresholds; ``policy_regret``);
* cumulative **violating rounds** (rounds whose played action's true cost exceeds a threshold);
* cumulative **positive constraint cost** ``sum_t sum_i [c_i(x_t) - tau_i]_+``;
* on a **conservative** problem (``setting = "conservative"`` or ``"conservative-linear"``), whose only
  constraint is the cumulative one, the conservative record replaces the two stage-wise panels: the
  margin ``sum mu - (1 - alpha) sum r(baseline)`` under the truth per round (the zero line drawn) and the
  rounds whose margin fell below zero per learner;
* **samples to a correct answer** of identification learners (median over the runs that stopped with a
  correct answer; the bar's label gives how many runs did).

Regret curves are means over runs with a band of one standard deviation; the line style encodes the
guarantee (solid: safe every round, dashed: safe in expectation, dotted: soft constraint).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from safebandits.experiments.results import correct_but_infeasible
from safebandits.plotting._text import wrapped, wrapped_suptitle

__all__ = ["comparison_figure", "comparison_tables", "conservative_only", "guarantees"]

_STYLE = {
    "safe every round w.p. 1-delta": "-",
    "safe in expectation w.p. 1-delta": "--",
    "soft constraint (sublinear cumulative violation)": ":",
}
_PANELS = (
    ("regret", "regret vs per-round-safe optimum"),
    ("policy_regret", "regret vs best policy in expectation"),
    ("violations", "violating rounds (cumulative)"),
    ("positive_cost", "positive constraint cost  sum [c - tau]+"),
)
#: The panels of a conservative problem (the stage-wise ones do not apply): the margin curve, and the
#: conservative violations per learner (a bar chart: the runs record the count, not a curve of it).
_CONSERVATIVE_PANELS = (
    _PANELS[0],
    _PANELS[1],
    ("conservative_margin", "conservative margin under the truth\nsum mu - (1 - alpha) sum r(baseline)"),
    ("conservative_violations", "rounds below (1 - alpha) x baseline\nunder the truth (per run)"),
)
#: Settings whose only constraint is the conservative (cumulative) one.
_CONSERVATIVE_SETTINGS = frozenset({"conservative", "conservative-linear"})
#: Stage-wise columns of the regret table, not applicable on a conservative problem.
_STAGEWISE_COLUMNS = ("violating rounds", "violating rounds, all runs", "rounds with expected cost above tau",
                      "positive constraint cost", "final plays feasible")  # fmt: skip


def _setting(problem: Any) -> str | None:
    try:
        declared = json.loads(problem) if isinstance(problem, str) else problem
    except ValueError:
        return None
    return declared.get("setting") if isinstance(declared, dict) else None


def conservative_only(runs: pd.DataFrame) -> bool:
    """Whether every run in ``runs`` is of a conservative problem (its stored ``instance.problem`` declares
    ``setting = "conservative"`` or ``"conservative-linear"``) and records the conservative constraint."""
    if runs.empty or "instance.problem" not in runs or "conservative_violations" not in runs:
        return False
    # (one declaration per experiment: each distinct stored text parsed once, not once per run)
    values = runs["instance.problem"]
    distinct = [*{p for p in values if isinstance(p, str)}, *(p for p in values if not isinstance(p, str))]
    return bool(runs["conservative_violations"].notna().all()) and all(
        _setting(p) in _CONSERVATIVE_SETTINGS for p in distinct
    )


def guarantees(runs: pd.DataFrame) -> dict[str, str]:
    """Label -> guarantee wording of the learners in ``runs`` (from the registry)."""
    from safebandits.algorithms.compatibility import guarantee_of
    from safebandits.algorithms.registry import get_algorithm
    from safebandits.exceptions import ConfigError

    out = {}
    for label, name in runs[["label", "algorithm"]].drop_duplicates().itertuples(index=False):
        try:
            out[label] = guarantee_of(get_algorithm(name)) or "guarantee not declared"
        except ConfigError:
            out[label] = "unregistered learner"
    return out


def _series(curve: dict[str, Any], metric: str) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(curve["t"], dtype=float)
    y = np.asarray(curve.get(metric, []), dtype=float)
    if y.ndim == 2:  # per-constraint lists: summed over the constraints
        y = y.sum(axis=1)
    return t, y


def _mean_band(curves: list[dict[str, Any]], metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    series = [_series(c, metric) for c in curves if c and len(c.get("t", ())) and len(c.get(metric, ()))]
    if not series:
        return np.empty(0), np.empty(0), np.empty(0)
    t = min((s[0] for s in series), key=len)
    ys = np.vstack([np.interp(t, s[0], s[1]) for s in series])
    return t, ys.mean(axis=0), ys.std(axis=0)


def _kinds(runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    ok = runs[runs["status"] == "ok"]
    regret = ok[ok["regret"].notna()] if "regret" in ok else ok.iloc[:0]
    classif = ok[ok["accuracy"].notna()] if "accuracy" in ok else ok.iloc[:0]
    ident = ok[~ok.index.isin(regret.index) & ~ok.index.isin(classif.index)]
    return regret, ident, classif


def comparison_figure(spec: Any, runs: pd.DataFrame, curves: dict[str, Any]) -> Figure:
    """The comparison figure of one experiment's runs (``curves``: pk -> stored curve trace)."""
    regret, ident, classif = _kinds(runs)
    guar = guarantees(runs)
    if regret.empty and ident.empty and not classif.empty:
        return _classification_figure(spec, classif, curves, guar)
    labels = [lbl for lbl in (spec.labels if spec is not None else sorted(guar)) if lbl in guar]
    if regret.empty:  # identification learners only: their panel and the legend
        fig = Figure(figsize=(14, 1.6 + 0.7 * max(3, ident["label"].nunique())), layout="constrained")
        ident_ax, legend_ax = fig.subplots(1, 2, width_ratios=(1.6, 1))
        regret_axes = []
    else:
        fig = Figure(figsize=(17, 9.5), layout="constrained")
        axes = fig.subplots(2, 3)
        regret_axes, ident_ax, legend_ax = list(axes.flat[:4]), axes.flat[4], axes.flat[5]
    colours = {lbl: f"C{i % 10}" for i, lbl in enumerate(labels)}
    handles: dict[str, Any] = {}
    panels = _CONSERVATIVE_PANELS if conservative_only(regret) else _PANELS
    for ax, (metric, title) in zip(regret_axes, panels):
        if metric == "conservative_violations":
            _conservative_violations_panel(ax, regret, labels, colours)
        else:
            _curve_panel(ax, metric, regret, curves, labels, colours, guar, handles)
        ax.set_title(title, fontsize=11)
    ax = ident_ax
    ident_labels = [lbl for lbl in labels if lbl in set(ident["label"])]
    top = 0.0
    for i, lbl in enumerate(ident_labels):
        rows = ident[ident["label"] == lbl]
        good = rows[rows["correct"].astype(bool) & rows["stopped"].astype(bool)]
        n, k = len(rows), len(good)
        unsafe = int(correct_but_infeasible(good).sum()) if "feasible" in good else 0
        flag = f", {unsafe} of them infeasible" if unsafe else ""
        samples = good["samples"].astype(float)
        if k:
            med, q25, q75 = samples.median(), samples.quantile(0.25), samples.quantile(0.75)
            ax.barh(i, med, height=0.5, color=colours[lbl], xerr=[[med - q25], [q75 - med]], capsize=3)
            ax.text(q75, i, f"  {med:,.0f} ({k}/{n} correct{flag})", va="center", fontsize=9,
                    color="#c62828" if unsafe else "black")  # fmt: skip
            top = max(top, q75)
        else:
            ax.text(0, i, f"  0/{n} runs stopped with a correct answer", va="center", fontsize=9)
        handles.setdefault(lbl, ax.patches[-1] if ax.patches else ax.plot([], [], color=colours[lbl])[0])
    ax.set_yticks(range(len(ident_labels)), ident_labels, fontsize=9)
    ax.set_title("samples to a correct answer (identification)", fontsize=11)
    ax.set_xlabel("samples (median, 25-75% bars)")
    if ident_labels:
        ax.set_xlim(0, 1.45 * max(top, 1.0))
        ax.set_ylim(-0.75, len(ident_labels) - 0.25)
    else:
        ax.set_title("")
        ax.axis("off")
    ax.grid(alpha=0.3, axis="x")
    leg = legend_ax
    leg.axis("off")
    if handles:
        names = [wrapped(f"{lbl} — {guar[lbl]}", 4.6, 9) for lbl in labels if lbl in handles]
        leg.legend([handles[lbl] for lbl in labels if lbl in handles], names, loc="center", fontsize=9,
                   frameon=False, title="learner — guarantee")  # fmt: skip
    title = spec.title if spec is not None else "Comparison"
    n_rep = runs.groupby("label").size().max() if not runs.empty else 0
    wrapped_suptitle(fig, f"{title} ({n_rep} runs per learner; bands: ± 1 sd)", fontsize=13)
    return fig


def _curve_panel(ax: Any, metric: str, regret: pd.DataFrame, curves: dict[str, Any], labels: list[str],
                colours: dict[str, str], guar: dict[str, str], handles: dict[str, Any]) -> None:  # fmt: skip
    """One curve panel: per learner the mean over runs of ``metric`` with a band of one sd."""
    for lbl in labels:
        rows = regret[regret["label"] == lbl]
        cs = [curves[pk] for pk in rows["pk"] if pk in curves]
        t, mean, sd = _mean_band(cs, metric)
        if t.size == 0:
            continue
        style = _STYLE.get(guar[lbl], "-.")
        (line,) = ax.plot(t, mean, color=colours[lbl], linestyle=style, linewidth=1.8)
        ax.fill_between(t, mean - sd, mean + sd, color=colours[lbl], alpha=0.12, linewidth=0)
        handles[lbl] = line
    if metric == "conservative_margin" and ax.has_data():  # (below it: the constraint is broken)
        ax.axhline(0.0, color="black", linewidth=0.9)
    ax.set_xlabel("round t")
    ax.grid(alpha=0.3)
    if not ax.has_data():
        ax.text(0.5, 0.5, "no regret learner", ha="center", va="center", transform=ax.transAxes)


def _conservative_violations_panel(
    ax: Any, regret: pd.DataFrame, labels: list[str], colours: dict[str, str]
) -> None:
    """Per learner, the mean over runs of the rounds whose margin under the truth fell below zero (bars),
    labelled with the count over all runs, the runs that broke the constraint and the earliest violated
    round (``t``)."""
    shown = [lbl for lbl in labels if lbl in set(regret["label"])]
    top = 0.0
    for i, lbl in enumerate(shown):
        rows = regret[regret["label"] == lbl]
        counts = pd.to_numeric(rows["conservative_violations"], errors="coerce").astype(float)
        first = pd.to_numeric(rows.get("conservative_first_violation"), errors="coerce").dropna()
        mean = float(counts.mean())
        ax.barh(i, mean, height=0.5, color=colours[lbl])
        broken = int((counts > 0).sum())
        text = f"  {mean:,.4g} ({counts.sum():,.0f} in all, {broken}/{len(counts)} runs"
        text += f"; first t = {first.min():,.0f})" if len(first) and broken else ")"
        ax.text(mean, i, text, va="center", fontsize=9, color="#c62828" if broken else "black")
        top = max(top, mean)
    ax.set_yticks(range(len(shown)), shown, fontsize=9)
    ax.set_xlim(0, 3.2 * max(top, 1.0))  # (room for the labels)
    ax.set_ylim(len(shown) - 0.25, -0.75)  # (top to bottom in the legend's order)
    ax.set_xlabel("violated rounds (mean over runs)")
    ax.grid(alpha=0.3, axis="x")


def _classification_figure(
    spec: Any, runs: pd.DataFrame, curves: dict[str, Any], guar: dict[str, str]
) -> Figure:
    """Accuracy, FDR, precision and recall of the current classifier against labels, per learner."""
    labels = [lbl for lbl in (spec.labels if spec is not None else sorted(guar)) if lbl in set(runs["label"])]
    fig = Figure(figsize=(14, 8.5), layout="constrained")
    axes = fig.subplots(2, 2)
    for ax, metric in zip(axes.flat, ("accuracy", "fdr", "precision", "recall")):
        for i, lbl in enumerate(labels):
            cs = [curves[pk] for pk in runs.loc[runs["label"] == lbl, "pk"] if pk in curves]
            series = [
                (np.asarray(c["labels"], float), np.asarray(c[metric], float)) for c in cs if c.get(metric)
            ]
            if not series:
                continue
            t = min((x for x, _ in series), key=len)
            ys = np.vstack([np.interp(t, x, y) for x, y in series])
            ax.plot(t, ys.mean(axis=0), color=f"C{i % 10}", label=f"{lbl} — {guar.get(lbl, '')}")
            ax.fill_between(t, ys.mean(0) - ys.std(0), ys.mean(0) + ys.std(0), color=f"C{i % 10}", alpha=0.12)
        ax.set_title(metric if metric != "fdr" else "false discovery rate", fontsize=11)
        ax.set_xlabel("labels queried")
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=9)
    title = spec.title if spec is not None else "Comparison"
    wrapped_suptitle(fig, f"{title} (means over runs; bands: ± 1 sd)", fontsize=13)
    return fig


def _final_feasible_column(runs: pd.DataFrame, g: Any) -> dict[str, Any]:
    """``{"final plays feasible": fraction of runs}`` when the runs record ``final_feasible`` (the mean true
    cost of the last 10% of the rounds within every limit), else nothing."""
    if "final_feasible" not in runs or runs["final_feasible"].isna().all():
        return {}
    values = pd.to_numeric(runs["final_feasible"].astype("Float64"), errors="coerce").astype(float)
    return {"final plays feasible": values.groupby(runs["label"], sort=False).mean().reindex(g.size().index)}


def _conservative_columns(runs: pd.DataFrame, g: Any) -> dict[str, Any]:
    """Conservative problems: the rounds whose cumulative reward fell below ``(1 - alpha)`` times the
    baseline's under the truth (mean over runs, and over all runs) and the smallest margin (empty for
    other problems)."""
    if "conservative_violations" not in runs:
        return {}
    by = runs["label"]
    index = g.size().index
    viol = pd.to_numeric(runs["conservative_violations"], errors="coerce").groupby(by, sort=False)
    margin = pd.to_numeric(runs["conservative_min_margin"], errors="coerce").groupby(by, sort=False)
    return {
        "rounds below (1 - alpha) x baseline": viol.mean().reindex(index),
        "rounds below (1 - alpha) x baseline, all runs": viol.sum().reindex(index),
        "smallest conservative margin": margin.min().reindex(index),
    }


def comparison_tables(runs: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(caption, table) per kind of learner present: regret, identification, classification."""
    regret, ident, classif = _kinds(runs)
    guar = guarantees(runs) if not runs.empty else {}
    out = []
    if not regret.empty:
        r = regret.copy()
        cols = ["regret", "action_regret", "policy_regret", "violations", "policy_violations"]
        cols += ["positive_cost", "samples", "cpu_s", "wall_s"]
        for c in cols:
            r[c] = pd.to_numeric(r[c], errors="coerce") if c in r else float("nan")
        g = r.groupby("label", sort=False)
        table = pd.DataFrame(
            {
                "guarantee": [guar.get(lbl, "") for lbl in g.size().index],
                "runs": g.size(),
                "T": g["samples"].max(),
                "regret vs per-round-safe optimum": g["action_regret"].mean(),
                "regret vs best policy in expectation": g["policy_regret"].mean(),
                "violating rounds": g["violations"].mean(),
                "violating rounds, all runs": g["violations"].sum(),
                "rounds with expected cost above tau": g["policy_violations"].mean(),
                "positive constraint cost": g["positive_cost"].mean(),
                **_final_feasible_column(r, g),
                **_conservative_columns(r, g),
                "CPU s": g["cpu_s"].mean(),  # (NaN: stored without it, wall time only)
                "wall s": g["wall_s"].mean(),
            }
        ).reset_index()
        if conservative_only(r):  # (no stage-wise constraint: those columns do not apply)
            table = table.drop(columns=[c for c in _STAGEWISE_COLUMNS if c in table])
        out.append(("Regret learners (means over runs)", table))
    if not ident.empty:
        r = ident.copy()
        r["samples"] = r["samples"].astype(float)
        r["correct"] = r["correct"].astype(float)
        r["stopped"] = r["stopped"].astype(float)
        has_feasible = "feasible" in r
        if has_feasible:
            r["correct but infeasible"] = correct_but_infeasible(ident)
            r["feasible"] = pd.to_numeric(r["feasible"].astype("Float64"), errors="coerce").astype(float)
        g = r.groupby("label", sort=False)
        columns = {
            "guarantee": [guar.get(lbl, "") for lbl in g.size().index],
            "runs": g.size(),
            "median samples": g["samples"].median(),
            "fraction correct": g["correct"].mean(),
        }
        if has_feasible:
            columns["fraction feasible"] = g["feasible"].mean()
            columns["correct but infeasible"] = g["correct but infeasible"].sum().astype(int)
        columns["fraction stopped"] = g["stopped"].mean()
        table = pd.DataFrame(columns).reset_index()
        out.append(("Identification learners (samples over runs; runs at the budget count with it)", table))
    if not classif.empty:
        r = classif.copy()
        cols = ["samples", "accuracy", "fdr", "precision", "recall"]
        for c in cols:
            r[c] = pd.to_numeric(r[c], errors="coerce")
        g = r.groupby("label", sort=False)
        table = g[cols].mean().rename(columns={"samples": "labels"}).reset_index()
        table.insert(1, "guarantee", [guar.get(lbl, "") for lbl in table["label"]])
        out.append(("Classification learners (final classifier, means over runs)", table))
    return out
