"""The 2-D sets of Safe-LUCB (arXiv Figure 2): ``D0``, ``D0^s``, ``D^s_{T'+1}``, ``D^s_T`` and ``x*``.

:func:`safe_sets_figure` is a pure function of an instance description
(:meth:`~safebandits.problems.safe_linear.SafeLinearInstance.describe`) and, per panel, the estimates a
learner stored at ``T' + 1`` and at a late round (``diagnostics()["estimate_tprime"]`` /
``["estimate_final"]``: ``theta``, Gram matrix ``a``, ``beta``). :func:`report_safe_sets` draws it for the
report of ``safelucb-exploration`` from the stored traces (first replicate of each method; no re-run).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from safebandits.plotting._text import wrapped_suptitle
from safebandits.plotting.report import register_report_figure

__all__ = ["report_confidence_slack", "report_safe_sets", "safe_sets_figure"]

Estimate = dict[str, Any]


def _d0_violation(desc: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """Signed violation of ``D0`` (``<= 0`` inside) at every row of ``x``."""
    if desc["kind"] == "ball":
        return np.linalg.norm(x - np.asarray(desc["center"]), axis=1) - float(desc["radius"])
    g, h = np.asarray(desc["g_mat"]), np.asarray(desc["h_vec"])
    return (x @ g.T - h).max(axis=1)


def _estimate(value: Any) -> Estimate | None:
    if value is None:
        return None
    return json.loads(value) if isinstance(value, str) else dict(value)


def _ucb(est: Estimate, b_mat: np.ndarray, x: np.ndarray) -> np.ndarray:
    bx = x @ b_mat.T
    sol = np.linalg.solve(np.asarray(est["a"]), bx.T).T
    return bx @ np.asarray(est["theta"]) + float(est["beta"]) * np.sqrt(np.maximum((bx * sol).sum(axis=1), 0))


def safe_sets_figure(
    description: dict[str, Any],
    panels: Sequence[tuple[str, Any, Any, int | None]],
    *,
    late_label: str = "T",
    title: str = "",
    resolution: int = 401,
) -> Figure:
    """One axes per panel with ``D0`` (black), ``D0^s`` (blue, filled), ``D^s_{T'+1}`` (red),
    ``D^s_late`` (green) and ``x*`` (star).

    Parameters
    ----------
    description : dict
        ``SafeLinearInstance.describe()`` of a 2-D convex instance.
    panels : sequence of (label, estimate at T'+1, late estimate, T')
        Estimates as dicts or JSON strings (``theta``, ``a``, ``beta``); ``None`` skips a set.
    late_label : str
        Round of the late estimate, for the legend.
    title : str
    resolution : int
        Grid points per axis.
    """
    ds = description["decision_set"]
    if ds["d"] != 2 or ds["kind"] == "arms":
        raise ValueError("safe_sets_figure draws 2-D convex decision sets only.")
    b_mat, mu, c = np.asarray(description["b_mat"]), np.asarray(description["mu"]), description["threshold"]
    x_star = np.asarray(description["x_star"])
    if ds["kind"] == "ball":
        lo, hi = np.asarray(ds["center"]) - ds["radius"], np.asarray(ds["center"]) + ds["radius"]
    else:
        from safebandits.problems.safe_linear import DecisionSet

        lo, hi = DecisionSet.from_description(ds).bounding_box()
    pad = 0.08 * (hi - lo)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    d0 = _d0_violation(ds, pts)
    true_safe = np.maximum(d0, pts @ (b_mat.T @ mu) - c)
    fig = Figure(figsize=(4.6 * len(panels), 4.6), constrained_layout=True)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (label, est_tp, est_late, t_prime) in zip(axes, panels):
        ax.contourf(gx, gy, true_safe.reshape(gx.shape), levels=[-np.inf, 0], colors=["#1f77b4"], alpha=0.18)
        ax.contour(gx, gy, true_safe.reshape(gx.shape), levels=[0], colors=["#1f77b4"], linewidths=1.5)
        ax.contour(gx, gy, d0.reshape(gx.shape), levels=[0], colors=["black"], linewidths=1.8)
        handles = [("black", "-", "D0"), ("#1f77b4", "-", "true safe set D0^s")]
        for est, colour, name in (
            (_estimate(est_tp), "#d62728", f"D^s at T'+1 (T' = {t_prime})"),
            (_estimate(est_late), "#2ca02c", f"D^s at t = {late_label}"),
        ):
            if est is None:
                continue
            g = np.maximum(d0, _ucb(est, b_mat, pts) - c).reshape(gx.shape)
            if np.nanmin(g) <= 0:
                ax.contour(gx, gy, g, levels=[0], colors=[colour], linewidths=1.5, linestyles="--")
                handles.append((colour, "--", name))
        ax.plot(*x_star, marker="*", color="black", markersize=13, linestyle="none")
        for colour, style, name in handles:
            ax.plot([], [], color=colour, linestyle=style, label=name)
        ax.plot([], [], marker="*", color="black", linestyle="none", label="x*")
        ax.set_title(label, fontsize=10)
        ax.set_aspect("equal")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=2, frameon=False)
    if title:
        wrapped_suptitle(fig, title, fontsize=10)
    return fig


#: Report caption of the figure below, by file-name suffix.
_CAPTIONS = {
    "safe-sets": "The safe set estimated by Safe-LUCB after its exploration phase and at the end of one "
    "run (dashed), against the true safe set (blue, shaded) inside the decision set D0; the star is the "
    "optimal safe action.",
}


@register_report_figure("safelucb-exploration", captions=_CAPTIONS)
def report_safe_sets(
    spec: Any, runs: Any, traces: dict[tuple[str, str], Any], out_dir: Any, slug: str
) -> list[str]:
    """Set picture of the first replicate of each method (from the ``learner`` and ``instance`` traces)."""
    ok = runs[runs["status"] == "ok"].sort_values("replicate")
    panels, description, late = [], None, "T"
    labels = spec.labels if spec is not None else sorted(ok["label"].unique())
    for label in labels:
        rows = ok[ok["label"] == label]
        if rows.empty:
            continue
        pk = rows.iloc[0]["pk"]
        learner, inst = traces.get((pk, "learner")), traces.get((pk, "instance"))
        if learner is None or inst is None:
            continue
        description = inst
        late = str(int(rows.iloc[0]["samples"]))
        panels.append(
            (label, learner.get("estimate_tprime"), learner.get("estimate_final"), learner.get("t_prime"))
        )
    if not panels or description is None or description["decision_set"]["kind"] == "arms":
        return []
    fig = safe_sets_figure(description, panels, late_label=late, title="Estimated safe sets (arXiv Figure 2)")
    name = f"{slug}-safe-sets.png"
    fig.savefig(Path(out_dir) / name, dpi=110)
    return [name]


_SLACK_CAPTIONS = {
    "confidence-slack": "Theorem 1 audit: for each run, the least relative slack "
    "1 - ||mu_hat_t - mu||_{{A_t}} / beta_t over all rounds t <= T (histogram over the runs: {runs}; "
    "one panel per instance). The true mu lies in every confidence ellipsoid C_t of a run exactly when "
    "its slack stays at or above 0 (red line).",
}


@register_report_figure("safelucb-confidence", captions=_SLACK_CAPTIONS)
def report_confidence_slack(
    spec: Any, runs: Any, traces: dict[tuple[str, str], Any], out_dir: Any, slug: str
) -> list[str]:
    """Histogram over runs of the least confidence slack, one panel per instance."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty or "confidence_min_slack" not in ok:
        return []
    panels = list(dict.fromkeys(ok["panel"]))
    fig = Figure(figsize=(4.2 * len(panels), 3.4))
    axes = fig.subplots(1, len(panels), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        part = ok[ok["panel"] == panel]
        slack = part["confidence_min_slack"].astype(float).to_numpy()
        failing = int((part["confidence_failures"].astype(float) > 0).sum())
        lo, hi = float(slack.min()), float(slack.max())
        if not hi - lo > 1e-9 * max(1.0, abs(hi)):  # (equal values: numpy cannot split a zero range)
            lo, hi = lo - 1e-3, hi + 1e-3
        ax.hist(slack, bins=min(30, max(5, len(slack) // 3)), range=(lo, hi), color="tab:blue", alpha=0.8)
        ax.axvline(0.0, color="tab:red", linewidth=1.5)
        ax.set_xlim(min(-0.05, float(slack.min()) - 0.05), 1.0)
        ax.set_xlabel("least slack over rounds: 1 - ||mu_hat - mu||_A / beta", fontsize=8)
        ax.set_ylabel("runs")
        ax.set_title(f"{panel}: {len(part)} runs, {failing} with mu outside some C_t", fontsize=9)
    wrapped_suptitle(fig, "Safe-LUCB: is mu in the confidence ellipsoid at every round? (Theorem 1)")
    fig.tight_layout()
    name = f"{slug}-confidence-slack.png"
    fig.savefig(Path(out_dir) / name, dpi=110)
    return [name]
