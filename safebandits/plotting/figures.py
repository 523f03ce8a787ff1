"""Figures from summary tables: pure functions, table in, matplotlib Axes or Figure out.

The input is :func:`safebandits.experiments.store.summary_table` restricted to one experiment and
scale (columns ``panel``, ``sweep.value``, ``label``, ``median``, ``q25``, ``q75``, ``mean``, ``se``,
``frac_correct``, ``n_not_stopped``). Nothing here runs experiments or touches pyplot's global
state: figures are :class:`matplotlib.figure.Figure` objects rendered by the Agg canvas.

- :func:`sweep_figure`: the layout of Figure 2 of Lindner et al. (2022): one panel per sweep, median
  samples against the swept parameter with a 25th-75th percentile band, log y axis, one line per
  method, legend below. With ``metric="frac_correct"`` it plots the fraction of correct answers.
- :func:`bar_figure`: the layout of Figure 3: mean samples +- one standard error per method, log y.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from safebandits.plotting._text import wrapped, wrapped_suptitle

__all__ = ["bar_figure", "method_style", "plot_bars", "plot_sweep", "sweep_figure"]

_BASE_COLOURS = {
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
_FALLBACK = ("#bcbd22", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5")
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h")


def method_style(label: str, index: int = 0) -> dict[str, Any]:
    """Line style of a method: colour by method, dashed for "(theory)", dotted for "(tuned)" variants.

    Parameters
    ----------
    label : str
        Method label, e.g. ``"G-ACOL (tuned)"``.
    index : int
        Position of the label in the legend (picks a fallback colour and the marker).
    """
    base, _, variant = label.partition(" (")
    colour = _BASE_COLOURS.get(base, _FALLBACK[index % len(_FALLBACK)])
    linestyle = {"theory)": "--", "tuned)": "-"}.get(variant, "-")
    return {"color": colour, "linestyle": linestyle, "marker": _MARKERS[index % len(_MARKERS)]}


def _ordered(values: Sequence[Any], order: Sequence[Any] | None) -> list[Any]:
    present = list(dict.fromkeys(values))
    if not order:
        return present
    return [v for v in order if v in present]


def plot_sweep(
    ax: Axes,
    table: pd.DataFrame,
    *,
    labels: Sequence[str] | None = None,
    metric: str = "median",
    band: tuple[str, str] | None = ("q25", "q75"),
    log: bool = True,
    title: str = "",
    xlabel: str = "",
) -> Axes:
    """Draw one panel: ``metric`` against ``sweep.value``, one line per label.

    Points where some run hit the budget (``n_not_stopped > 0``) get a hollow marker: the plotted
    value is then a lower bound.
    """
    for i, label in enumerate(_ordered(table["label"], labels)):
        rows = table[(table["label"] == label) & table[metric].notna()].sort_values("sweep.value")
        if rows.empty:
            continue
        style = method_style(label, (list(labels).index(label) if labels else i))
        x = rows["sweep.value"].to_numpy(dtype=float)
        y = rows[metric].to_numpy(dtype=float)
        ax.plot(x, y, label=label, markersize=4, **style)
        if "n_not_stopped" in rows:
            cens = rows["n_not_stopped"].to_numpy() > 0
            if cens.any():
                ax.plot(x[cens], y[cens], linestyle="none", marker="o", markersize=8, mfc="none",
                        color=style["color"])  # fmt: skip
        if band is not None and len(rows) > 1:
            lo = rows[band[0]].to_numpy(dtype=float)
            hi = rows[band[1]].to_numpy(dtype=float)
            ax.fill_between(x, lo, hi, color=style["color"], alpha=0.15, linewidth=0)
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.grid(True, which="major", alpha=0.3)
    return ax


def sweep_figure(
    summary: pd.DataFrame,
    *,
    panels: Sequence[tuple[str, str, str]] | None = None,
    labels: Sequence[str] | None = None,
    metric: str = "median",
    title: str = "",
) -> Figure:
    """Figure 2 layout: 1 x n panels of ``metric`` against the swept parameter, legend below.

    Parameters
    ----------
    summary : DataFrame
        Summary table of one experiment and scale.
    panels : sequence of (name, title, xlabel), optional
        Panels in display order (default: order of appearance, titled by name).
    labels : sequence of str, optional
        Methods in legend order (default: all, in order of appearance).
    metric : {"median", "mean", "frac_correct", "frac_stopped"}
        ``"median"`` draws the 25th-75th percentile band and a log y axis.
    title : str
        Figure title.
    """
    if panels is None:
        panels = [(p, p, str(summary.loc[summary["panel"] == p, "sweep.param"].iloc[0]))
                  for p in _ordered(summary["panel"], None)]  # fmt: skip
    panels = [p for p in panels if (summary["panel"] == p[0]).any()] or [("", "no data", "")]
    fig = Figure(figsize=(3.6 * len(panels) + 0.4, 3.9), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    is_samples = metric in ("median", "mean")
    for ax, (name, ptitle, xlabel) in zip(axes, panels):
        plot_sweep(
            ax,
            summary[summary["panel"] == name],
            labels=labels,
            metric=metric,
            band=("q25", "q75") if metric == "median" else None,
            log=is_samples,
            title=ptitle,
            xlabel=xlabel,
        )
    axes[0].set_ylabel({"median": "samples (median)", "mean": "samples (mean)"}.get(metric, metric))
    if not is_samples:
        for ax in axes:
            ax.set_ylim(-0.05, 1.05)
    handles, names = [], []
    for ax in axes:
        for h, n in zip(*ax.get_legend_handles_labels()):
            if n not in names:
                handles.append(h)
                names.append(n)
    if handles:
        fig.legend(handles, names, loc="outside lower center", ncol=min(4, len(names)), frameon=False)
    if title:
        wrapped_suptitle(fig, title)
    return fig


def plot_bars(
    ax: Axes, table: pd.DataFrame, *, labels: Sequence[str] | None = None, log: bool = True
) -> Axes:
    """Bars of mean samples +- one standard error per label (grouped by sweep point if several)."""
    labels = _ordered(table["label"], labels)
    points = list(dict.fromkeys(zip(table["panel"], table["sweep.value"])))
    width = 0.8 / max(len(points), 1)
    for j, (panel, value) in enumerate(points):
        rows = table[(table["panel"] == panel) & (table["sweep.value"] == value)].set_index("label")
        rows = rows.reindex(labels)
        x = np.arange(len(labels)) + (j - (len(points) - 1) / 2) * width
        colours = [method_style(lbl, i)["color"] for i, lbl in enumerate(labels)]
        se = rows["se"].fillna(0.0).to_numpy(dtype=float)
        bars = ax.bar(x, rows["mean"].to_numpy(dtype=float), width=width, yerr=se, color=colours,
                      alpha=0.85 if j == 0 else 0.6, capsize=3, label=f"{panel}: {value!r}")  # fmt: skip
        for bar, lbl in zip(bars, labels):
            if lbl.endswith("(theory)"):
                bar.set_hatch("//")
    ax.set_xticks(np.arange(len(labels)), labels, rotation=30, ha="right")
    if log:
        ax.set_yscale("log")
    ax.set_ylabel("samples (mean ± s.e.)")
    ax.grid(True, axis="y", alpha=0.3)
    return ax


def bar_figure(summary: pd.DataFrame, *, labels: Sequence[str] | None = None, title: str = "") -> Figure:
    """Figure 3 layout: mean samples +- standard error per method, log y axis."""
    n = len(_ordered(summary["label"], labels))
    fig = Figure(figsize=(max(3.5, 0.7 * n + 1.5), 4.2), layout="constrained")
    ax = fig.subplots()
    plot_bars(ax, summary, labels=labels)
    if title:
        ax.set_title(wrapped(title, fig.get_figwidth()), fontsize=10)
    return fig
