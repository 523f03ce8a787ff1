"""Static HTML report of a results directory: figures, claims and a summary table per experiment.

``write_report(DIR)`` reads ``DIR/results.sqlite`` and writes ``DIR/report/index.html``, one PNG per
figure and ``DIR/report/claims.json`` (the list of claim dicts). It never runs experiments.
"""

from __future__ import annotations

import html
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from safebandits.experiments.claims import check_claims
from safebandits.experiments.spec import ExperimentSpec, list_experiments
from safebandits.experiments.store import ResultsStore, latest_runs, summary_table
from safebandits.plotting.curves import curve_figure
from safebandits.plotting.figures import bar_figure, sweep_figure

__all__ = ["EXTRA_FIGURES", "register_report_figure", "write_report"]

#: Extra figures of an experiment: name -> functions ``f(spec, runs, traces, out_dir, slug) -> [file names]``
#: where ``runs`` is the experiment's runs table at one scale and ``traces`` the store's
#: ``{(pk, trace name): value}``. Registered with :func:`register_report_figure`.
EXTRA_FIGURES: dict[str, list[Any]] = {}


def register_report_figure(experiment: str) -> Any:
    """Decorator: add a figure function to the report section of ``experiment``."""

    def deco(fn: Any) -> Any:
        EXTRA_FIGURES.setdefault(experiment, []).append(fn)
        return fn

    return deco


#: A bar figure of all methods is drawn only up to this many methods (else the main figure's subset).
MAX_BARS = 40

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; color: #222; }
h1, h2, h3 { font-weight: 600; } img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; } td.text, th.text { text-align: left; }
.pass { color: #fff; background: #2e7d32; padding: 0.1em 0.5em; border-radius: 3px; font-weight: 600; }
.fail { color: #fff; background: #c62828; padding: 0.1em 0.5em; border-radius: 3px; font-weight: 600; }
.inconclusive { color: #fff; background: #ef6c00; padding: 0.1em 0.5em; border-radius: 3px; }
pre { background: #f7f7f7; padding: 0.6em; font-size: 0.8em; overflow-x: auto; max-height: 30em; }
.meta { color: #666; font-size: 0.9em; }
"""


def _slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts)).strip("_")


def _save(fig: Any, path: Path) -> str:
    fig.savefig(path, dpi=110)
    return path.name


def _panels(spec: ExperimentSpec | None) -> list[tuple[str, str, str]] | None:
    if spec is None:
        return None
    return [(p.name, p.title or p.name, p.xlabel or p.sweep_param) for p in spec.panels]


def _figures(spec: ExperimentSpec | None, summary: pd.DataFrame, slug: str, out: Path) -> list[str]:
    """Write the figures of one experiment/scale; return (caption, file) pairs as strings."""
    labels = spec.labels if spec else None
    main_labels = list(spec.figure_labels) if spec and spec.figure_labels else labels
    n_points = summary[["panel", "sweep.value"]].drop_duplicates().shape[0]
    kind = spec.figure if spec else ("bar-samples" if n_points == 1 else "samples-vs-sweep")
    title = spec.title if spec else ""
    files = []
    if kind == "extra-only":  # solver studies: only the registered extra figures
        return files
    if kind == "bar-samples":
        files.append(_save(bar_figure(summary, labels=main_labels, title=title), out / f"{slug}.png"))
        if main_labels != labels and len(labels) <= MAX_BARS:
            fig = bar_figure(summary, labels=labels, title=f"{title} — all methods")
            files.append(_save(fig, out / f"{slug}-all.png"))
    else:
        panels = _panels(spec)
        fig = sweep_figure(summary, panels=panels, labels=main_labels, title=title)
        files.append(_save(fig, out / f"{slug}.png"))
        if main_labels != labels:
            fig = sweep_figure(summary, panels=panels, labels=labels, title=f"{title} — all methods")
            files.append(_save(fig, out / f"{slug}-all.png"))
        fig = sweep_figure(
            summary, panels=panels, labels=labels, metric="frac_correct", title="Fraction correct"
        )
        files.append(_save(fig, out / f"{slug}-correct.png"))
    return files


def _setting_curve(curve: dict[str, Any], row: pd.Series) -> dict[str, Any]:
    """The run's curve with ``regret`` against its own benchmark (policy regret for in-expectation runs)."""
    reg, pol, act = (float(row[c]) for c in ("regret", "policy_regret", "action_regret"))
    if abs(reg - pol) < abs(reg - act):
        return {**curve, "regret": curve["policy_regret"]}
    return curve


def _curve_figures(
    spec: ExperimentSpec, group: pd.DataFrame, curves: dict[str, Any], slug: str, out: Path
) -> list[str]:
    """Regret, cost and reward curves of a regret experiment (one axes per panel)."""
    ok = group[(group["status"] == "ok") & group["pk"].isin(curves.keys())].copy()
    if ok.empty:
        return []
    ok["curve"] = [_setting_curve(curves[pk], row) for pk, (_, row) in zip(ok["pk"], ok.iterrows())]
    panels = [(p.name, p.title or p.name) for p in spec.panels]
    labels = list(spec.figure_labels) or spec.labels
    files = []
    kinds = {
        "regret": ("regret", {}),
        "per_step_regret": ("per_step_regret", {"log_x": True}),
        "cost": ("policy_cost", {"thresholds": True, "log_x": True}),
        "reward": ("reward", {"log_x": True}),
        "violation": ("positive_cost", {}),
    }
    for suffix in spec.curves:
        metric, kwargs = kinds[suffix]
        fig = curve_figure(
            ok, metric=metric, panels=panels, labels=labels, title=f"{spec.title} — {suffix}", **kwargs
        )
        files.append(_save(fig, out / f"{slug}-{suffix}.png"))
    return files


def _regret_summary_html(group: pd.DataFrame) -> str:
    ok = group[group["status"] == "ok"].copy()
    if ok.empty:
        return ""
    cols = [
        "regret",
        "regret_tenth",
        "reward",
        "cost",
        "max_policy_cost",
        "violations",
        "policy_violations",
        "samples",
        "wall_s",
    ]
    for c in cols:
        ok[c] = pd.to_numeric(ok[c], errors="coerce")
    g = ok.groupby(["panel", "sweep.value", "label"], sort=False)
    table = pd.DataFrame(
        {
            "runs": g.size(),
            "T": g["samples"].max(),
            "regret mean": g["regret"].mean(),
            "regret sd": g["regret"].std(ddof=1),
            "regret at T/10": g["regret_tenth"].mean(),
            "mean reward": g["reward"].mean(),
            "mean cost": g["cost"].mean(),
            "max policy cost": g["max_policy_cost"].max(),
            "violating rounds": g["violations"].sum(),
            "policy violations": g["policy_violations"].sum(),
            "wall s": g["wall_s"].mean(),
        }
    ).reset_index()
    return table.to_html(
        index=False, na_rep="", float_format=lambda v: f"{v:.4g}", classes="summary", border=0
    )


def _comparison_html(group: pd.DataFrame) -> str:
    """Tables of a cross-paper comparison: regret learners, identification learners, classifiers."""
    from safebandits.plotting.comparison import comparison_tables

    parts = []
    for caption, table in comparison_tables(group):
        parts.append(
            f"<h3>{html.escape(caption)}</h3>"
            + table.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.4g}", border=0)
        )
    return "".join(parts)


def _solver_summary_html(group: pd.DataFrame) -> str:
    """Table of solver runs (``experiments/solvers.py``): config and metric columns."""
    ok = group[group["status"] == "ok"]
    cols = [c for c in ("panel", "sweep.value", "label", "reward", "cost", "objective", "feasible", "wall_s")
            if c in ok]  # fmt: skip
    return ok[cols].to_html(index=False, na_rep="", float_format=lambda v: f"{v:.4g}", border=0)


def _claims_html(claims: list[dict[str, Any]]) -> str:
    if not claims:
        return "<p class='meta'>No claim checks for this experiment.</p>"
    rows = []
    for c in claims:
        verdict = c.get("verdict", "pass" if c["passed"] else "fail")
        badge = f"<span class='{verdict}'>{verdict.upper()}</span>"
        evidence = html.escape(json.dumps(c["evidence"], indent=1, default=str))
        rows.append(
            f"<tr><td class='text'>{badge}</td><td class='text'>{html.escape(c.get('id', ''))}</td>"
            f"<td class='text'>{html.escape(c['claim'])}<details><summary>evidence</summary>"
            f"<pre>{evidence}</pre></details></td></tr>"
        )
    head = "<tr><th class='text'>result</th><th class='text'>id</th><th class='text'>claim</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _summary_html(summary: pd.DataFrame) -> str:
    cols = ["panel", "sweep.value", "label", "n", "median", "q25", "q75", "frac_correct", "frac_stopped"]
    extra = [c for c in ("n_failed",) if c in summary and summary[c].sum() > 0]
    table = summary[cols + extra].rename(columns={"q25": "25%", "q75": "75%"})
    return table.to_html(
        index=False, na_rep="", float_format=lambda v: f"{v:.4g}", classes="summary", border=0
    )


def _failures_html(df: pd.DataFrame) -> str:
    failed = df[df["status"] != "ok"]
    if failed.empty:
        return ""
    errs = failed.groupby("error").size().sort_values(ascending=False).head(10)
    items = "".join(f"<li>{n} × <code>{html.escape(str(e))}</code></li>" for e, n in errs.items())
    return f"<h3>Failed runs ({len(failed)})</h3><ul>{items}</ul>"


def write_report(results_dir: str | os.PathLike[str]) -> Path:
    """Write ``results_dir/report/index.html`` with figures, claims and summary tables.

    Parameters
    ----------
    results_dir : str or Path
        A results directory written by ``safebandits run`` (holds ``results.sqlite``).

    Returns
    -------
    Path
        Path of ``index.html``. ``claims.json`` (a list of claim dicts, each with ``experiment`` and
        ``scale``) and the PNG figures are written next to it.
    """
    results_dir = Path(results_dir)
    with ResultsStore(results_dir, mode="r") as store:
        df = latest_runs(store.to_frame())
        all_traces = store.traces()
    curves = {pk: v for (pk, name), v in all_traces.items() if name == "curve"}
    out = results_dir / "report"
    out.mkdir(parents=True, exist_ok=True)
    from safebandits.experiments.user import stored_specs

    specs = {**list_experiments(), **stored_specs(results_dir)}
    all_claims: list[dict[str, Any]] = []
    sections = []
    if df.empty:
        sections.append("<p>The store holds no runs yet.</p>")
    for (experiment, scale), group in df.groupby(["experiment", "scale"], sort=True):
        spec = specs.get(experiment)
        slug = _slug(experiment, scale)
        summary = summary_table(group)
        ok = group[group["status"] == "ok"]
        regret_kind = spec is not None and spec.figure == "regret-curves"
        comparison = spec is not None and spec.figure == "comparison"
        if comparison:
            from safebandits.plotting.comparison import comparison_figure

            files = (
                [_save(comparison_figure(spec, group, curves), out / f"{slug}.png")] if not ok.empty else []
            )
        elif regret_kind:
            files = _curve_figures(spec, group, curves, slug, out) if not ok.empty else []
        elif spec is not None and spec.figure == "classification-curves":
            files = []  # (the experiment's registered figures only)
        else:
            files = _figures(spec, summary, slug, out) if not ok.empty else []
        for fn in EXTRA_FIGURES.get(experiment, []) if not ok.empty else []:
            files.extend(fn(spec, group, all_traces, out, slug))
        claims = [
            {"experiment": experiment, "scale": scale, **c}
            for c in (check_claims(group, spec.claims) if spec and spec.claims else [])
        ]
        all_claims.extend(claims)
        n_pass = sum(c["passed"] for c in claims)
        imgs = "".join(f"<img src='{html.escape(f)}' alt='{html.escape(f)}'>" for f in files)
        sections.append(
            f"<h2 id='{slug}'>{html.escape(spec.title if spec else experiment)}</h2>"
            f"<p class='meta'>experiment <code>{html.escape(experiment)}</code>, scale "
            f"<code>{html.escape(str(scale))}</code>: {len(group)} runs "
            f"({(group['status'] == 'ok').sum()} ok, {(group['status'] != 'ok').sum()} failed, "
            f"{int((~ok['stopped'].astype(bool)).sum())} hit the budget); "
            f"claims: {n_pass}/{len(claims)} pass</p>"
            f"{imgs}<h3>Claims</h3>{_claims_html(claims)}{_failures_html(group)}"
            + (
                _comparison_html(group)
                if comparison
                else "<h3>Summary (means over runs; violating rounds summed)</h3>"
                + _regret_summary_html(group)
                if regret_kind
                else f"<h3>Solver runs</h3>{_solver_summary_html(group)}"
                if spec is not None and spec.figure == "extra-only"
                else "<h3>Summary (samples over runs; runs that hit the budget count with the samples "
                f"used)</h3>{_summary_html(summary)}"
            )
        )
    (out / "claims.json").write_text(json.dumps(all_claims, indent=1, default=str) + "\n")
    versions = ", ".join(
        f"{col.replace('_version', '')} {', '.join(sorted(map(str, df[col].dropna().unique())))}"
        for col in ("safebandits_version", "numpy_version", "python_version")
        if col in df
    )
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>safebandits report</title>"
        f"<style>{_CSS}</style></head><body><h1>safebandits report</h1>"
        f"<p class='meta'>{html.escape(str(results_dir.resolve()))} — generated {now}"
        f"{' — ' + html.escape(versions) if versions else ''}</p>"
        f"{''.join(sections)}</body></html>\n"
    )
    index = out / "index.html"
    index.write_text(page)
    return index
