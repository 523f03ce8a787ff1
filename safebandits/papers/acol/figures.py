"""Figures of the driving experiments (Lindner et al. 2022, Figures 1, 4, 5 and 7).

Report hooks (``f(spec, runs, traces, out_dir, slug) -> [file names]``, registered at the end
of this module with ``register_report_figure``):

- :func:`tuned_sweep_figure`: samples (median) and fraction correct of the tuned methods against the
  width multiplier, one column per scenario, ACOL's median as a dashed reference and a vertical line at
  the multiplier ``m*`` above which every tuned run is correct (Figures 5 and 7, right).
- :func:`robustness_figure`: reward and constraint value of the penalised CEM solutions against lambda,
  the constrained references' rewards as labelled horizontal lines: the authors' Wen & Topcu CEM dashed
  (the paper's), the library's warm-polish solver dash-dot (Figure 4).
- :func:`solutions_figure`: top-down pictures of the constrained (both references) and penalised
  solutions of each scenario side by side, the penalty being the smallest that is feasible in the base
  scenario (Figure 1).

It also gives ACOL's methods their colours in every figure of the report (Figures 2 and 3 of the paper),
the theory-width variants dashed (:func:`~safebandits.plotting.figures.register_method_style`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from safebandits.plotting.figures import method_style, register_method_style
from safebandits.plotting.report import register_report_figure

__all__ = ["METHOD_COLOURS", "robustness_figure", "solutions_figure", "tuned_sweep_figure"]

#: Colour of each of ACOL's methods by base label (its variants, ``"(theory)"``, ``"(tuned x2)"``, share it).
METHOD_COLOURS = {
    "Uniform": "#7f7f7f",
    "G-Allocation": "#8c564b",
    "ACOL": "#d62728",
    "Oracle": "#000000",
    "Greedy Max Var": "#1f77b4",
    "Adaptive Uniform": "#ff7f0e",
    "G-ACOL": "#2ca02c",
    "G-ACOL Uniform": "#9467bd",
    "Max Rew-U": "#e377c2",
    "Max Rew-F": "#17becf",
}
for _label, _colour in METHOD_COLOURS.items():
    register_method_style(_label, color=_colour)
register_method_style(variant="theory", linestyle="--")  # the theoretical confidence widths: dashed


def _save(fig: Figure, path: Path) -> str:
    fig.savefig(path, dpi=110)
    return path.name


def tuned_sweep_figure(spec: Any, runs: pd.DataFrame, traces: Any, out: Path, slug: str) -> list[str]:
    """Samples and fraction correct against the width multiplier (one column per scenario)."""
    from safebandits.experiments.results import ok_runs
    from safebandits.papers.acol.claims_driving import correct_threshold, tuned_table
    from safebandits.papers.acol.experiments import ADAPTIVE

    ok = ok_runs(runs)
    table = tuned_table(ok)
    if table.empty:
        return []
    panels = [p for p in spec.panel_names if (table["panel"] == p).any()]
    fig = Figure(figsize=(3.8 * len(panels) + 0.4, 6.2), layout="constrained")
    axes = fig.subplots(2, len(panels), squeeze=False, sharex=True)
    for j, panel in enumerate(panels):
        t = table[table["panel"] == panel]
        for i, base in enumerate(ADAPTIVE):
            rows = t[t["method"] == base].sort_values("multiplier")
            style = method_style(base, i)
            axes[0, j].plot(
                rows["multiplier"], rows["median"], label=f"{base} (tuned)", markersize=3, **style
            )
            axes[1, j].plot(rows["multiplier"], rows["frac_correct"], markersize=3, **style)
        acol = ok[(ok["panel"] == panel) & (ok["label"] == "ACOL")]["samples"]
        if not acol.empty:
            axes[0, j].axhline(
                acol.median(), color=method_style("ACOL")["color"], linestyle="--", label="ACOL"
            )
        m_star = correct_threshold(t)
        for ax in axes[:, j]:
            if m_star is not None:
                ax.axvline(m_star, color="black", linewidth=0.8, linestyle=":")
            ax.grid(True, alpha=0.3)
        axes[0, j].set_yscale("log")
        axes[0, j].set_title(spec.panel(panel).title or panel)
        axes[1, j].set_ylim(-0.05, 1.05)
        axes[1, j].set_xlabel("width multiplier (beta_t)")
    axes[0, 0].set_ylabel("samples (median)")
    axes[1, 0].set_ylabel("fraction correct")
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncol=min(6, len(names)), frameon=False)
    fig.suptitle(f"{spec.title}: tuned widths")
    return [_save(fig, out / f"{slug}-tuned.png")]


#: Line style of each constrained reference of Figure 4 (the paper's dashed; the library's dash-dot).
_REFERENCE_STYLES = {"wen-topcu": "--", "warm-polish": "-."}
_REFERENCE_NAMES = {
    "wen-topcu": "constrained optimum (authors' Wen & Topcu CEM)",
    "warm-polish": "constrained optimum (warm-polish, library)",
}


def robustness_figure(spec: Any, runs: pd.DataFrame, traces: Any, out: Path, slug: str) -> list[str]:
    """Figure 4: reward and constraint value of the penalised solutions against lambda, with the reward
    of each constrained reference (the authors' solver dashed, the library's dash-dot) as a labelled
    horizontal line."""
    from matplotlib.lines import Line2D

    from safebandits.papers.acol.claims_driving import robustness_table
    from safebandits.papers.acol.driving import SCENARIO_TITLES

    table, _ = robustness_table(runs)
    if table.empty:
        return []
    refs = {solver: robustness_table(runs, solver)[1] for solver in _REFERENCE_STYLES}
    fig = Figure(figsize=(9.0, 4.4), layout="constrained")
    ax_r, ax_c = fig.subplots(1, 2)
    for i, (sc, title) in enumerate(SCENARIO_TITLES.items()):
        t = table[table["scenario"] == sc]
        if t.empty:
            continue
        colour = f"C{i}"
        ax_r.plot(t["penalty"], t["reward"], marker="o", markersize=3, color=colour, label=title)
        feas = t[t["feasible"]]
        ax_r.plot(feas["penalty"], feas["reward"], linestyle="none", marker="o", markersize=6, mfc="none",
                  color=colour)  # fmt: skip
        for solver, style in _REFERENCE_STYLES.items():
            if sc in refs[solver]:
                ax_r.axhline(refs[solver][sc], color=colour, linestyle=style, linewidth=1.2)
        ax_c.plot(t["penalty"], t["cost"], marker="o", markersize=3, color=colour, label=title)
    ax_c.axhline(1.0, color="black", linestyle=":", linewidth=1, label="threshold tau = 1")
    ax_r.set_title("reward theta^T f (ring: feasible penalised solution)", fontsize=9)
    ax_c.set_title("constraint value phi^T f", fontsize=9)
    ax_c.set_yscale("symlog", linthresh=1.0)
    for ax in (ax_r, ax_c):
        ax.set_xlabel("penalty lambda")
        ax.grid(True, alpha=0.3)
    ax_c.legend(fontsize=7)
    handles = [
        Line2D([], [], color="black", linestyle=style, linewidth=1.2, label=_REFERENCE_NAMES[solver])
        for solver, style in _REFERENCE_STYLES.items()
        if refs[solver]
    ]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8, frameon=False)
    fig.suptitle(spec.title)
    return [_save(fig, out / f"{slug}-robustness.png")]


def solutions_figure(spec: Any, runs: pd.DataFrame, traces: Any, out: Path, slug: str) -> list[str]:
    """Figure 1: constrained and penalised (lambda tuned on the base scenario) solutions side by side."""
    from safebandits.papers.acol.claims_driving import robustness_table
    from safebandits.papers.acol.driving import SCENARIO_TITLES
    from safebandits.papers.acol.simulator.dynamics import DrivingConfig, get_scenario
    from safebandits.papers.acol.simulator.render import policies_figure

    ok = runs[runs["status"] == "ok"]
    table, _ = robustness_table(runs)
    base = table[(table["scenario"] == "base") & table["feasible"]]
    lam = float(base["penalty"].min()) if not base.empty else 1.0
    items = []
    solver = ok.get("algorithm.constrained_solver", pd.Series("", index=ok.index))
    kinds = (
        ("constrained", "wen-topcu", "constrained (authors' CEM)"),
        ("constrained", "warm-polish", "constrained (warm-polish, library)"),
        ("penalised", "", f"penalised, lambda={lam:g}"),
    )
    for sc, title in SCENARIO_TITLES.items():
        for objective, which, name in kinds:
            rows = ok[(ok["instance.scenario"] == sc) & (ok["instance.objective"] == objective)]
            if objective == "penalised":
                rows = rows[np.isclose(rows["instance.penalty"].astype(float), lam)]
            else:
                rows = rows[solver[rows.index] == which]
            if rows.empty or (rows["pk"].iloc[0], "policy") not in traces:
                continue
            policy = np.asarray(traces[(rows["pk"].iloc[0], "policy")], dtype=float)
            features = str(rows["instance.features"].iloc[0])
            items.append((f"{title}:\n{name}", policy, get_scenario(sc)))
    if not items:
        return []
    fig = policies_figure(items, DrivingConfig.preset(features), title=f"{spec.title}: solutions")
    return [_save(fig, out / f"{slug}-solutions.png")]


#: Report captions of the figures above, by file-name suffix.
_CAPTIONS_TUNED = {
    "tuned": "The five tuned methods against their width multiplier, one column per driving scenario, over "
    "{runs}. Top: median samples to stop (log axis; dashed red: ACOL's median). Bottom: fraction correct "
    "(runs that hit the budget count as not correct here). Dotted vertical line: the smallest multiplier "
    "from which every tuned run is correct.",
}


#: Report captions of the figures above, by file-name suffix.
_CAPTIONS_ROBUSTNESS = {
    "robustness": "Solutions of the penalised objective against the penalty lambda, one line per scenario "
    "(one solver run per point). Left: reward of the solution (a ring marks a feasible solution); horizontal "
    "lines: the constrained solution's reward, dashed for the authors' Wen & Topcu constrained CEM (the "
    "paper's reference), dash-dot for the library's warm-polish solver (an extra row). Right: its "
    "constraint value (symmetric-log axis; dotted: the threshold).",
}


#: Report captions of the figures above, by file-name suffix.
_CAPTIONS_SOLUTIONS = {
    "solutions": "Top-down pictures of the solver's driving policies: road, lanes, the other cars (white) "
    "and the agent (orange), fading towards the start.",
}

register_report_figure("acol-driving", captions=_CAPTIONS_TUNED)(tuned_sweep_figure)
register_report_figure("acol-robustness", captions=_CAPTIONS_ROBUSTNESS)(robustness_figure)
register_report_figure("acol-robustness", captions=_CAPTIONS_SOLUTIONS)(solutions_figure)


def draw_query(ax: Any, params: dict[str, Any], arm: int) -> None:
    """The trajectory of candidate policy ``arm`` with its road and the other cars (the dashboard's
    picture of a driving query)."""
    from safebandits.papers.acol.instances_driving import candidate_policies
    from safebandits.papers.acol.simulator.dynamics import DrivingConfig, get_scenario
    from safebandits.papers.acol.simulator.render import draw_policy

    features = str(params.get("features", "paper"))
    pols = candidate_policies(
        str(params.get("candidates", "generated")),
        int(params.get("n_candidates", 100)),
        int(params.get("candidate_seed", 0)),
        features,
        params.get("data_dir"),
    )
    if not 0 <= arm < len(pols):
        raise IndexError(f"no candidate policy {arm}")
    scenario = get_scenario(str(params.get("scenario", "base")))
    draw_policy(
        ax, pols[arm], scenario, DrivingConfig.preset(features), title=f"policy {arm}", show_values=False
    )
