"""The report figures of the FDR-constrained classification experiments (Camilleri et al. 2022, Figs. 5-12).

Report hook (``f(spec, runs, traces, out_dir, slug) -> [file names]``, registered below for
``fdr-adult``, ``fdr-german`` and ``fdr-halfcircle``): :func:`curves_figure`, accuracy, FDR, precision and
recall against labels (:func:`~safebandits.papers.beside.fdr.mean_curves`) and the paper's trade-off view.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from safebandits.papers.beside.fdr import TICKS, mean_curves
from safebandits.plotting.report import register_report_figure

__all__ = ["curves_figure"]


def curves_figure(spec: Any, runs: pd.DataFrame, traces: Any, out_dir: Path, slug: str) -> list[str]:
    """Accuracy, FDR, precision, recall against labels, and the paper's trade-off view (Figs. 5-6)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = mean_curves(runs)
    if not curves:
        return []
    files = []
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    for ax, metric in zip(axes, ("accuracy", "fdr", "precision", "recall")):
        for label, stats in curves.items():
            x = stats.index.to_numpy()
            y = stats[metric].to_numpy()
            se = np.nan_to_num(stats[f"{metric}_sem"].to_numpy())
            ax.plot(x, y, label=label)
            ax.fill_between(x, y - se, y + se, alpha=0.2)
        ax.set_xlabel("labels queried")
        ax.set_ylabel(metric if metric != "fdr" else "false discovery rate")
        ax.set_title(metric if metric != "fdr" else "FDR")
    q = float(pd.to_numeric(runs["sweep.value"], errors="coerce").iloc[0])
    axes[1].axhline(q, color="k", ls=":", lw=1)
    axes[0].legend()
    fig.suptitle(spec.title if spec else slug, fontsize=10)
    fig.tight_layout()
    name = f"{slug}-metrics.png"
    fig.savefig(out_dir / name, dpi=110)
    plt.close(fig)
    files.append(name)

    xm, ym = ("accuracy", "fdr") if spec is not None and spec.name == "fdr-adult" else ("precision", "recall")
    fig, ax = plt.subplots(figsize=(5, 4))
    ticks = TICKS.get(spec.name if spec else "", ())
    for label, stats in curves.items():
        ax.plot(stats[xm], stats[ym], marker=".", ms=3, label=label)
        for t in ticks:
            if t in stats.index:
                ax.annotate(str(t), (stats.loc[t, xm], stats.loc[t, ym]), fontsize=7)
    ax.set_xlabel(xm)
    ax.set_ylabel(ym)
    ax.legend()
    ax.set_title(f"{ym} against {xm} (labels annotated)", fontsize=9)
    fig.tight_layout()
    name = f"{slug}-tradeoff.png"
    fig.savefig(out_dir / name, dpi=110)
    plt.close(fig)
    files.append(name)
    return files


#: Report captions of the figures above, by file-name suffix.
_CAPTIONS = {
    "metrics": "Accuracy, false discovery rate, precision and recall against the number of labels "
    "queried, mean over {runs}; band: one standard error; dotted line: the FDR target.",
    "tradeoff": "The trade-off of the two metrics as labels accumulate, mean over {runs}; numbers mark "
    "the label counts.",
}

for _name in ("fdr-adult", "fdr-german", "fdr-halfcircle"):
    register_report_figure(_name, captions=_CAPTIONS)(curves_figure)
