"""The report figure of ``ckb-slack-horizons`` (Zhou & Ji 2022, Section 4; no paper figure).

Report hook (``f(spec, runs, traces, out_dir, slug) -> [file names]``, registered below with
``register_report_figure``): :func:`slack_horizons_figure`, the mean over runs of
``[R+(T)]_+`` against the horizon ``T`` on log-log axes, one line per method with its fitted slope, and the
bound's order ``sqrt(T) (ln T)^2`` (scaled to the slack line's first point) with its slope, which is the
claim's threshold (:func:`~safebandits.papers.ckb.claims.horizon_bound_slope`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from safebandits.papers.ckb.claims import SLACK_LOG_POWER, horizon_bound_slope
from safebandits.plotting.report import register_report_figure

__all__ = ["slack_horizons_figure"]


def slack_horizons_figure(spec: Any, runs: pd.DataFrame, traces: Any, out_dir: Path, slug: str) -> list[str]:
    """Mean ``[R+(T)]_+`` against ``T`` (log-log), with the bound's order as a dashed reference."""
    from matplotlib.figure import Figure

    ok = runs[runs["status"] == "ok"].copy()
    if ok.empty or "policy_regret" not in ok:
        return []
    ok["T"] = pd.to_numeric(ok.get("instance.T", ok["samples"]), errors="coerce")
    ok["A"] = np.maximum(pd.to_numeric(ok["policy_regret"], errors="coerce"), 0.0)
    fig = Figure(figsize=(5.0, 4.0), layout="constrained")
    ax = fig.subplots()
    first = None
    for label, grp in ok.groupby("label", sort=False):
        mean = grp.groupby("T")["A"].mean().sort_index()
        mean = mean[mean > 0]
        if len(mean) < 2:
            continue
        t = mean.index.to_numpy(dtype=float)
        slope = float(np.polyfit(np.log(t), np.log(mean.to_numpy()), 1)[0])
        ax.plot(t, mean.to_numpy(), marker="o", label=f"{label} (slope {slope:.2f})")
        first = first or (t, float(mean.iloc[0]))
    if first is None:
        return []
    t, a0 = first
    shape = np.sqrt(t) * np.log(t) ** SLACK_LOG_POWER
    k = f"{SLACK_LOG_POWER:g}"
    ax.plot(t, a0 * shape / shape[0], "k--", label=f"sqrt(T) (ln T)^{k} (slope {horizon_bound_slope(t):.2f})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("horizon T")
    ax.set_ylabel("mean [R+(T)]_+ over runs")
    ax.set_title("Regret across horizons, with and without the slack", fontsize=10)
    ax.legend(fontsize=8)
    name = f"{slug}-horizons.png"
    fig.savefig(Path(out_dir) / name, dpi=110)
    return [name]


#: Report captions of the figures above, by file-name suffix.
_CAPTIONS = {
    "horizons": "Mean over {runs} of the positive part of the stronger regret R+(T) against the horizon T "
    "(separate runs per T), log-log, one line per method with its fitted slope; dashed: the bound's order "
    "sqrt(T) (ln T)^2 through the first point, whose slope is the claim's threshold.",
}

register_report_figure("ckb-slack-horizons", captions=_CAPTIONS)(slack_horizons_figure)
