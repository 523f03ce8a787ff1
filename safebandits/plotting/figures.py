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

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from safebandits.exceptions import ConfigError
from safebandits.plotting._text import legend_below, wrapped, wrapped_suptitle

__all__ = [
    "METRIC_LABELS",
    "bar_figure",
    "load_paper_figures",
    "method_style",
    "natural_key",
    "outcome_figure",
    "outcome_table",
    "plot_bars",
    "plot_sweep",
    "register_method_style",
    "sweep_figure",
]

#: Axis labels of the summary columns (never a raw column name on an axis).
METRIC_LABELS = {
    "median": "samples (median)",
    "mean": "samples (mean)",
    "frac_correct": "fraction correct (all runs)",
    "frac_stopped": "fraction of runs that stopped",
    "frac_correct_stopped": "fraction correct\n(of the runs that stopped)",
    "frac_budget": "fraction of runs that\nhit the budget",
}


def natural_key(value: Any) -> tuple[Any, ...]:
    """Sort key that orders embedded numbers by value: ``"x2"`` before ``"x10"``, ``"x1.5"`` between."""
    import re

    parts = re.split(r"(\d+(?:\.\d+)?)", str(value))
    return tuple((0, float(p), "") if i % 2 else (1, 0.0, p) for i, p in enumerate(parts) if p)


#: Colour of a method by its base label (the label before `` (``), and line style of a label variant (the
#: text in its trailing parentheses): registered by the paper packages' figures modules
#: (:func:`register_method_style`); any other method gets a fallback colour by its legend position.
_COLOURS: dict[str, str] = {}
_VARIANT_LINESTYLES: dict[str, str] = {}
_FALLBACK = ("#bcbd22", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5")
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h")


def register_method_style(
    label: str = "", *, color: str | None = None, variant: str = "", linestyle: str | None = None
) -> None:
    """Give a method its colour, or a label variant its line style, in every figure.

    Parameters
    ----------
    label : str
        Base label of the method (``"G-ACOL"`` colours ``"G-ACOL"``, ``"G-ACOL (theory)"``, ...).
    color : str, optional
        Its matplotlib colour (with ``label``).
    variant : str
        A label variant, the text in a label's trailing parentheses (``"theory"`` for
        ``"G-ACOL (theory)"``).
    linestyle : str, optional
        Its matplotlib line style (with ``variant``).

    Raises
    ------
    ConfigError
        If neither pair is given, or a method or variant is given another style than it has.
    """
    pairs = [(_COLOURS, label, color, "colour"), (_VARIANT_LINESTYLES, variant, linestyle, "line style")]
    given = [(table, key, value, what) for table, key, value, what in pairs if key or value is not None]
    if not given or any(not isinstance(key, str) or not key or not value for _, key, value, _ in given):
        raise ConfigError(
            "register_method_style takes a label and its color, or a variant and its linestyle. Got "
            f"label={label!r}, color={color!r}, variant={variant!r}, linestyle={linestyle!r} instead."
        )
    for table, key, value, what in given:
        if table.get(key, value) != value:
            raise ConfigError(f"The {what} of {key!r} is registered twice ({table[key]!r} and {value!r}).")
    for table, key, value, _ in given:
        table[key] = str(value)


def load_paper_figures() -> None:
    """Import the report-figure modules the paper packages declare (each registers its figures)."""
    from safebandits.experiments.papers import figure_modules

    for module in figure_modules():
        try:
            importlib.import_module(module)
        except Exception as exc:
            raise ConfigError(
                f"The figures module {module!r} failed to import: {type(exc).__name__}: {exc}"
            ) from exc


def method_style(label: str, index: int = 0) -> dict[str, Any]:
    """Line style of a method: its registered colour (else a fallback) and its variant's line style.

    The paper packages register their methods' styles with their report figures, which are loaded first
    (:func:`register_method_style`; ACOL: dashed for ``"(theory)"`` variants).

    Parameters
    ----------
    label : str
        Method label, e.g. ``"G-ACOL (tuned)"``.
    index : int
        Position of the label in the legend (picks a fallback colour and the marker).
    """
    load_paper_figures()
    base, _, variant = label.partition(" (")
    colour = _COLOURS.get(base, _FALLBACK[index % len(_FALLBACK)])
    linestyle = _VARIANT_LINESTYLES.get(variant[:-1] if variant.endswith(")") else variant, "-")
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


def _panels(
    panels: Sequence[tuple[str, str, str]] | None, table: pd.DataFrame, params: pd.DataFrame
) -> list[tuple[str, str, str]]:
    """The panels to draw: ``panels`` (default: those of ``table`` in order of appearance, titled by
    name, the x label the swept parameter read from ``params``) that have data, else one empty panel."""
    if panels is None:
        panels = [(p, p, str(params.loc[params["panel"] == p, "sweep.param"].iloc[0]))
                  for p in _ordered(table["panel"], None)]  # fmt: skip
    return [p for p in panels if (table["panel"] == p[0]).any()] or [("", "no data", "")]


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
    panels = _panels(panels, summary, summary)
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
    axes[0].set_ylabel(METRIC_LABELS.get(metric, metric.replace("_", " ")))
    if not is_samples:
        for ax in axes:
            ax.set_ylim(-0.05, 1.05)
    legend_below(fig, axes, 4)
    if title:
        wrapped_suptitle(fig, title)
    return fig


_POINT_MARKERS = ("o", "s", "^", "D", "v", "P")


def plot_bars(
    ax: Axes, table: pd.DataFrame, *, labels: Sequence[str] | None = None, log: bool = True
) -> Axes:
    """Mean samples +- one standard error per label: one marker per sweep point (a dot plot).

    Dots rather than bars: on a log axis a bar's length depends on an arbitrary floor. With several
    sweep points (e.g. scenarios) each gets its own marker and a legend entry.
    """
    labels = _ordered(table["label"], labels)
    points = list(dict.fromkeys(zip(table["panel"], table["sweep.value"])))
    width = 0.7 / max(len(points), 1)
    for j, (panel, value) in enumerate(points):
        rows = table[(table["panel"] == panel) & (table["sweep.value"] == value)].set_index("label")
        rows = rows.reindex(labels)
        x = np.arange(len(labels)) + (j - (len(points) - 1) / 2) * width
        colours = [method_style(lbl, i)["color"] for i, lbl in enumerate(labels)]
        se = rows["se"].fillna(0.0).to_numpy(dtype=float)
        mean = rows["mean"].to_numpy(dtype=float)
        marker = _POINT_MARKERS[j % len(_POINT_MARKERS)]
        ax.errorbar(x, mean, yerr=se, fmt="none", ecolor="#444444", capsize=3, lw=1, zorder=2)
        ax.scatter(x, mean, c=colours, marker=marker, s=36, edgecolors="black", linewidths=0.5, zorder=3)
        name = str(panel) if len(points) > 1 and value in (None, "", panel) else f"{panel}: {value}"
        ax.scatter([], [], c="white", marker=marker, edgecolors="black", label=name)
    ax.set_xticks(np.arange(len(labels)), labels, rotation=30, ha="right")
    if log:
        ax.set_yscale("log")
    ax.set_ylabel("samples (mean ± s.e.)")
    ax.grid(True, axis="y", alpha=0.3)
    if len(points) > 1:
        ax.legend(title="marker", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return ax


def bar_figure(summary: pd.DataFrame, *, labels: Sequence[str] | None = None, title: str = "") -> Figure:
    """Figure 3 layout: mean samples +- standard error per method, log y axis."""
    n = len(_ordered(summary["label"], labels))
    n_points = len(dict.fromkeys(zip(summary["panel"], summary["sweep.value"])))
    fig = Figure(
        figsize=(max(3.5, 0.7 * n + 1.5 + (2.2 if n_points > 1 else 0.0)), 4.2), layout="constrained"
    )
    ax = fig.subplots()
    plot_bars(ax, summary, labels=labels)
    if title:
        ax.set_title(wrapped(title, fig.get_figwidth()), fontsize=10)
    return fig


def outcome_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (panel, sweep point, method): runs, runs that stopped, and the two outcome fractions.

    ``frac_correct_stopped`` is the fraction correct among the runs that stopped (NaN when none did);
    ``frac_budget`` the fraction that hit the sample budget. A run that hit the budget is its own
    category: it counts as neither correct nor incorrect.

    Feasibility is scored apart from correctness: ``frac_feasible_stopped`` is the fraction of the runs
    that stopped whose answer satisfies every constraint under the truth (strictly, no tolerance), and
    ``n_correct_infeasible`` counts the runs scored correct under the learner's own relaxed guarantee
    (an answer up to ``epsilon`` above the threshold is correct for BESIDE) whose answer is infeasible.
    Runs without a recorded feasibility (classification, failed runs) count as neither.
    """
    ok = runs[runs["status"] == "ok"].copy()
    # Missing values (experiments without a stopping rule or a correct answer, e.g. classification): a run
    # with no recorded stop did not hit a budget, and one with no recorded answer is not correct.
    ok["stopped"] = [True if pd.isna(v) else bool(v) for v in ok["stopped"]]
    correct = pd.Series([False if pd.isna(v) else bool(v) for v in ok["correct"]], index=ok.index)
    ok["correct_stopped"] = correct & ok["stopped"]
    feasible = ok["feasible"] if "feasible" in ok else pd.Series(pd.NA, index=ok.index)
    known = feasible.notna() & ok["stopped"]
    is_feasible = pd.Series([not pd.isna(v) and bool(v) for v in feasible], index=ok.index)
    ok["feasible_known"] = known
    ok["feasible_stopped"] = known & is_feasible
    ok["correct_infeasible"] = ok["correct_stopped"] & known & ~is_feasible
    g = ok.groupby(["panel", "sweep.value", "label"], sort=False)
    out = pd.DataFrame(
        {
            "n": g.size(),
            "n_stopped": g["stopped"].sum(),
            "n_correct": g["correct_stopped"].sum(),
            "n_feasible_known": g["feasible_known"].sum(),
            "n_feasible": g["feasible_stopped"].sum(),
            "n_correct_infeasible": g["correct_infeasible"].sum(),
        }
    )
    out = out.reset_index()
    out["frac_correct_stopped"] = out["n_correct"] / out["n_stopped"].where(out["n_stopped"] > 0)
    out["frac_feasible_stopped"] = out["n_feasible"] / out["n_feasible_known"].where(
        out["n_feasible_known"] > 0
    )
    out["frac_budget"] = 1.0 - out["n_stopped"] / out["n"]
    return out


def outcome_figure(
    runs: pd.DataFrame,
    *,
    panels: Sequence[tuple[str, str, str]] | None = None,
    labels: Sequence[str] | None = None,
    title: str = "",
) -> Figure:
    """Two rows of panels: fraction correct among the runs that stopped, and fraction that hit the budget."""
    table = outcome_table(runs)
    panels = _panels(panels, table, runs)
    fig = Figure(figsize=(3.6 * len(panels) + 0.6, 6.4), layout="constrained")
    axes = fig.subplots(2, len(panels), squeeze=False, sharex="col")
    for row, metric in enumerate(("frac_correct_stopped", "frac_budget")):
        for ax, (name, ptitle, xlabel) in zip(axes[row], panels):
            plot_sweep(ax, table[table["panel"] == name], labels=labels, metric=metric, band=None, log=False,
                       title=ptitle if row == 0 else "", xlabel=xlabel if row == 1 else "")  # fmt: skip
            ax.set_ylim(-0.05, 1.05)
        axes[row][0].set_ylabel(METRIC_LABELS[metric])
    legend_below(fig, axes[0], 4)
    if title:
        wrapped_suptitle(fig, title)
    return fig
