"""Regret, cost and reward against rounds for regret-minimisation experiments (pure functions).

Input: a long table with one row per run (columns ``panel``, ``sweep.value``, ``label``, ``curve``), where
``curve`` is the run's stored log-grid trace (``t``, ``regret``, ``policy_regret``, ``reward``, ``cost``,
``policy_cost``; see :mod:`safebandits.experiments.regret_loop`). One axes per panel; one line per
(method, swept value): the mean over runs with a band of +- one standard deviation (the paper's
Figures 1, 5-7 shade one standard deviation). Colour by swept value, line style by method.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from safebandits.plotting._text import legend_below, wrapped_suptitle

__all__ = ["CURVE_METRICS", "curve_figure", "curve_stats"]

#: metric -> (y label, log y axis)
CURVE_METRICS = {
    "regret": ("cumulative regret", False),
    "policy_regret": ("cumulative regret (policy)", False),
    "cost": ("mean cost since last grid point", False),
    "policy_cost": ("expected cost of the policy", False),
    "reward": ("mean reward so far", False),
    "per_step_regret": ("per-step regret R(t)/t", False),
    "per_step_policy_regret": ("per-step regret R(t)/t (policy)", False),
    "positive_cost": ("cumulative violation sum [c - tau]+", False),
    "conservative_margin": ("margin sum mu - (1 - alpha) sum r(baseline)", False),
}
_COLOURS = ("#000000", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
_STYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D", "v", "x", "+")
#: Metrics that cannot be negative: their +- sd band is clipped at 0.
NON_NEGATIVE = frozenset({"positive_cost"})


def _thousands(x: float, _pos: int) -> str:
    return f"{x / 1000:g}k" if abs(x) >= 1000 else f"{x:g}"


def _series(curve: dict[str, Any], metric: str) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(curve["t"], dtype=float)
    if metric.startswith("per_step_"):
        return t, np.asarray(curve[metric.removeprefix("per_step_")], dtype=float) / t
    y = np.asarray(curve[metric], dtype=float)
    if y.ndim == 2:  # per-constraint lists: the first constraint
        y = y[:, 0]
    return t, y


def curve_stats(curves: Sequence[dict[str, Any]], metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and standard deviation over runs of ``metric`` on the common grid (the shortest run's)."""
    series = [_series(c, metric) for c in curves if c and len(c.get("t", ())) > 0]
    if not series:
        return np.empty(0), np.empty(0), np.empty(0)
    t = min((s[0] for s in series), key=len)
    ys = np.vstack([np.interp(t, s[0], s[1]) for s in series])
    return t, ys.mean(axis=0), ys.std(axis=0)


def curve_figure(
    runs: pd.DataFrame,
    *,
    metric: str = "regret",
    panels: Sequence[tuple[str, str]] | None = None,
    labels: Sequence[str] | None = None,
    thresholds: bool = False,
    log_x: bool = False,
    title: str = "",
) -> Figure:
    """One axes per panel: ``metric`` against rounds, mean +- sd over runs per (method, value).

    Parameters
    ----------
    runs : DataFrame
        Columns ``panel``, ``sweep.value``, ``sweep.param``, ``label``, ``curve`` (dict).
    metric : str
        A key of :data:`CURVE_METRICS`.
    panels : sequence of (name, title), optional
    labels : sequence of str, optional
        Methods to draw, in legend order.
    thresholds : bool
        Draw a dotted horizontal line at each swept ``tau`` (cost plots).
    log_x : bool
    title : str
    """
    ylabel, log_y = CURVE_METRICS[metric]
    panels = list(panels) if panels else [(p, p) for p in dict.fromkeys(runs["panel"])]
    panels = [p for p in panels if p[0] in set(runs["panel"])]
    labels = [lbl for lbl in (labels or dict.fromkeys(runs["label"])) if lbl in set(runs["label"])]
    n = max(1, len(panels))
    fig = Figure(figsize=(4.6 * n, 3.8), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    # One colour per swept value in every panel (sorted, so tau = 0.2 has the same colour everywhere).
    all_values = sorted(dict.fromkeys(runs["sweep.value"]), key=lambda v: (str(type(v)), v))
    for ax, (pname, ptitle) in zip(axes, panels):
        part = runs[runs["panel"] == pname]
        present = set(part["sweep.value"])
        values = [v for v in all_values if v in present]
        param = str(part["sweep.param"].iloc[0]) if len(part) else ""
        for value in values:
            colour = _COLOURS[all_values.index(value) % len(_COLOURS)]
            for li, label in enumerate(labels):
                lc = _COLOURS[li % len(_COLOURS)] if len(values) == 1 else colour  # one value: by method
                sel = part[(part["sweep.value"] == value) & (part["label"] == label)]
                t, mean, sd = curve_stats(list(sel["curve"]), metric)
                if t.size == 0:
                    continue
                # Markers at staggered positions keep coinciding curves (e.g. two methods at zero) apart.
                ax.plot(t, mean, color=lc, linestyle=_STYLES[li % len(_STYLES)], lw=1.4,
                        marker=_MARKERS[li % len(_MARKERS)], markersize=4,
                        markevery=(0.03 + 0.05 * (li % 4), 0.2),
                        label=f"{label}, {param} = {value}")  # fmt: skip
                lo = np.maximum(mean - sd, 0.0) if metric in NON_NEGATIVE else mean - sd
                ax.fill_between(t, lo, mean + sd, color=lc, alpha=0.12, lw=0)
            if thresholds and param == "tau":
                ax.axhline(float(value), color=colour, linestyle=":", lw=1.0)
        ax.set_title(ptitle, fontsize=10)
        ax.set_xlabel("round t")
        ax.set_ylabel(ylabel)
        if log_x:
            ax.set_xscale("log")
        else:  # few round ticks, thousands as "5k": long tick labels collide in narrow panels
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
            ax.xaxis.set_major_formatter(FuncFormatter(_thousands))
        if log_y:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    legend_below(fig, axes, 2 * n, fontsize=8)
    if title:
        wrapped_suptitle(fig, title)
    return fig
