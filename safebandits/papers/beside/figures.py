"""The report figure of the BESIDE experiments (Camilleri et al. 2022, Figure 4).

Report hook (``f(spec, runs, traces, out_dir, slug) -> [file names]``, registered below with
``register_report_figure``): :func:`hard_loglog_figure`, median pulls against ``1 / eps`` on instance I1,
log-log, with the fitted slopes (:func:`~safebandits.papers.beside.experiments.loglog_slope`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from safebandits.papers.beside.experiments import loglog_slope
from safebandits.plotting.report import register_report_figure

__all__ = ["hard_loglog_figure"]


def hard_loglog_figure(spec: Any, runs: pd.DataFrame, traces: Any, out_dir: Path, slug: str) -> list[str]:
    """Figure 4 layout: median pulls against ``1 / eps``, log-log, with the fitted slopes in the legend."""
    from matplotlib.figure import Figure

    ok = runs[runs["status"] == "ok"].copy()
    if ok.empty:
        return []
    ok["eps"] = pd.to_numeric(ok["sweep.value"])
    ok["samples"] = pd.to_numeric(ok["samples"])
    fig = Figure(figsize=(5.0, 4.0), layout="constrained")
    ax = fig.subplots()
    for label, grp in ok.groupby("label", sort=False):
        med = grp.groupby("eps")["samples"].median().sort_index()
        slope = loglog_slope(med.index.to_numpy(), med.to_numpy())
        ax.plot(1.0 / med.index.to_numpy(), med.to_numpy(), marker="o", label=f"{label} (slope {slope:.2f})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("1 / eps")
    ax.set_ylabel("median total pulls")
    ax.set_title("Instance I1: pulls vs 1/eps (log-log)", fontsize=10)
    ax.legend(fontsize=8)
    name = f"{slug}-loglog.png"
    fig.savefig(Path(out_dir) / name, dpi=110)
    return [name]


#: Report captions of the figures above, by file-name suffix.
_CAPTIONS = {
    "loglog": "Median total pulls against 1/eps on log-log axes, one line per method, over {runs}; the "
    "legend gives each line's fitted slope.",
}

register_report_figure("beside-hard", captions=_CAPTIONS)(hard_loglog_figure)
