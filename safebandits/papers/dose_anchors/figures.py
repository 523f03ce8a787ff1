"""Figures of ``dose-anchors``: the selection percentage per dose of each design on each scenario, and
PCS against patients above the MTD (report hooks, registered with ``register_report_figure``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from safebandits.plotting.report import register_report_figure

__all__ = ["selection_figure", "tradeoff_figure"]

_COLOURS = {
    "BOIN": "#1f77b4",
    "CRM": "#ff7f0e",
    "dose-escalation (step 0.2)": "#2ca02c",
    "dose-escalation (true steps)": "#98df8a",
}


def _ok(runs: pd.DataFrame) -> pd.DataFrame:
    ok = runs[runs["status"] == "ok"].copy()
    for c in ok.columns:
        if c.startswith(("selected_d", "patients_d")) or c in ("trials", "sweep.value", "mtd", "pcs"):
            ok[c] = pd.to_numeric(ok[c], errors="coerce")
    return ok


def selection_figure(spec: Any, runs: pd.DataFrame, traces: Any, out: Path, slug: str) -> list[str]:
    """Selection percentage per dose (bars, one colour per design), the true MTD shaded, one panel per
    scenario."""
    ok = _ok(runs)
    if ok.empty:
        return []
    cells = sorted({(p, int(v)) for p, v in zip(ok["panel"], ok["sweep.value"], strict=True)})
    labels = [lbl for lbl in _COLOURS if lbl in set(ok["label"])] or sorted(set(ok["label"]))
    cols = 6
    rows = -(-len(cells) // cols)
    fig = Figure(figsize=(2.6 * cols, 2.4 * rows))
    axes = fig.subplots(rows, cols, sharey=True, squeeze=False)
    width = 0.8 / len(labels)
    for ax, (panel, value) in zip(axes.flat, cells, strict=False):
        cell = ok[(ok["panel"] == panel) & (ok["sweep.value"] == value)]
        doses = [c for c in sorted(cell.columns) if c.startswith("selected_d") and cell[c].notna().any()]
        x = np.arange(1, len(doses) + 1)
        for i, lbl in enumerate(labels):
            g = cell[cell["label"] == lbl]
            if g.empty:
                continue
            w = g["trials"].to_numpy(dtype=float)
            sel = [float(np.dot(w, g[d].to_numpy(dtype=float)) / w.sum()) for d in doses]
            ax.bar(x - 0.4 + width * (i + 0.5), sel, width=width, color=_COLOURS.get(lbl), label=lbl)
        mtd = int(cell["mtd"].iloc[0])
        ax.axvspan(mtd - 0.5, mtd + 0.5, color="0.9", zorder=-1)
        ax.set_title(f"{panel} {value}", fontsize=9)
        ax.set_xticks(x)
    for ax in axes.flat[len(cells) :]:
        ax.axis("off")
    for r in range(rows):
        axes[r, 0].set_ylabel("selected (%)")
    axes[0, 0].legend(fontsize=7)
    fig.supxlabel("dose (shaded: the true MTD)")
    fig.tight_layout()
    name = f"{slug}-selection.png"
    fig.savefig(out / name, dpi=110)
    return [name]


def tradeoff_figure(spec: Any, runs: pd.DataFrame, traces: Any, out: Path, slug: str) -> list[str]:
    """PCS against patients per trial above the true MTD, one point per design and scenario."""
    from safebandits.papers.dose_anchors.claims import scenario_table

    tab = scenario_table(runs)
    if tab.empty:
        return []
    fig = Figure(figsize=(6, 4.5))
    ax = fig.subplots()
    for lbl, g in tab.groupby("label"):
        ax.scatter(g["above_mtd"], g["pcs"], color=_COLOURS.get(str(lbl)), label=str(lbl), s=22)
    ax.set_xlabel("patients per trial above the true MTD")
    ax.set_ylabel("true MTD selected (%)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    name = f"{slug}-tradeoff.png"
    fig.savefig(out / name, dpi=110)
    return [name]


register_report_figure(
    "dose-anchors",
    captions={
        "selection.png": "percentage of trials selecting each dose, per design and scenario ({runs})",
        "tradeoff.png": "correct selection against patients treated above the true MTD ({runs})",
    },
)(selection_figure)
register_report_figure("dose-anchors")(tradeoff_figure)
