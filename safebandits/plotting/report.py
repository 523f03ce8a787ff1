"""Static HTML report of a results directory: figures, claims and a summary table per experiment.

The page comes from Jinja2 templates shipped with the package (``templates/report.html`` and
``report.css``): a verdict summary by scale at the top, a table of contents, and one section per
experiment and scale in which every figure has a caption (what is plotted, over how many runs, what the
bands and markers mean). Verdicts are any strings ("pass", "fail", "inconclusive", "not run", ...).

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

from safebandits.exceptions import ConfigError
from safebandits.experiments.claims import check_claims
from safebandits.experiments.spec import ExperimentSpec, list_experiments
from safebandits.experiments.store import ResultsStore, latest_runs, summary_table
from safebandits.plotting.curves import curve_figure
from safebandits.plotting.figures import (
    bar_figure,
    load_paper_figures,
    natural_key,
    outcome_figure,
    outcome_table,
    sweep_figure,
)

__all__ = [
    "EXTRA_CAPTIONS",
    "EXTRA_FIGURES",
    "guarantee_rows",
    "load_paper_figures",
    "register_report_figure",
    "section_slug",
    "verdict_table",
    "write_report",
]

#: Extra figures of an experiment: name -> functions ``f(spec, runs, traces, out_dir, slug) -> [file names]``
#: where ``runs`` is the experiment's runs table at one scale and ``traces`` the store's
#: ``{(pk, trace name): value}``. Registered with :func:`register_report_figure`.
EXTRA_FIGURES: dict[str, list[Any]] = {}


def register_report_figure(experiment: str, *, captions: dict[str, str] | None = None) -> Any:
    """Decorator: add a figure function to the report section of ``experiment``.

    ``captions`` maps the suffix of the file names the function writes (after ``{slug}-``) to its caption
    (``{runs}`` is replaced by the runs it was drawn from). The papers' figure modules register this way
    (``safebandits.papers.<paper>.figures``); the report imports them (:func:`load_paper_figures`).
    """
    for suffix, text in (captions or {}).items():
        if EXTRA_CAPTIONS.get(suffix, text) != text:
            raise ConfigError(f"The report caption of figure suffix {suffix!r} is registered twice.")
        EXTRA_CAPTIONS[suffix] = text

    def deco(fn: Any) -> Any:
        figures = EXTRA_FIGURES.setdefault(experiment, [])
        if fn not in figures:
            figures.append(fn)
        return fn

    return deco


#: A bar figure of all methods is drawn only up to this many methods (else the main figure's subset).
MAX_BARS = 40

#: Canonical order of verdict categories in the summary (any other verdict string follows, sorted).
VERDICT_ORDER = ("pass", "fail", "inconclusive", "not run")

#: Captions of the figures that experiments register, by file-name suffix (``{runs}`` is filled in);
#: registered with the figure (:func:`register_report_figure`, ``captions``).
EXTRA_CAPTIONS: dict[str, str] = {}

_CURVE_CAPTIONS = {
    "regret": "cumulative regret",
    "per_step_regret": "per-step regret R(t)/t",
    "cost": "expected cost of the policy played (dotted lines: the thresholds tau)",
    "reward": "mean reward so far",
    "violation": "cumulative constraint violation sum of [c - tau]+ (a count that cannot be negative: its "
    "band is clipped at 0)",
    "margin": "conservative margin sum mu - (1 - alpha) sum r(baseline) under the truth (below 0: the "
    "cumulative reward fell below (1 - alpha) times the baseline's)",
}


def section_slug(*parts: str) -> str:
    """Anchor of a report section and prefix of its figure files (``section_slug(experiment, scale)``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts)).strip("_")


_slug = section_slug


def _css_class(value: Any) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(value).lower()).strip("-") or "unknown"


def _save(fig: Any, path: Path) -> str:
    fig.savefig(path, dpi=110)
    return path.name


def _panels(spec: ExperimentSpec | None) -> list[tuple[str, str, str]] | None:
    if spec is None:
        return None
    return [(p.name, p.title or p.name, p.xlabel or p.sweep_param) for p in spec.panels]


def _runs_phrase(group: pd.DataFrame) -> str:
    """``"3 runs per method and point"`` (or a range when the counts differ)."""
    ok = group[group["status"] == "ok"]
    if ok.empty:
        return "no runs"
    sizes = ok.groupby(["panel", "sweep.value", "label"], sort=False).size()
    lo, hi = int(sizes.min()), int(sizes.max())
    n = str(lo) if lo == hi else f"{lo}-{hi}"
    return f"{n} run{'s' if hi > 1 else ''} per method and point ({len(ok)} runs in all)"


def _figures(
    spec: ExperimentSpec | None, summary: pd.DataFrame, group: pd.DataFrame, slug: str, out: Path
) -> list[tuple[str, str]]:
    """Write the figures of one experiment/scale; return (file, caption) pairs."""
    labels = spec.labels if spec else None
    main_labels = list(spec.figure_labels) if spec and spec.figure_labels else labels
    n_points = summary[["panel", "sweep.value"]].drop_duplicates().shape[0]
    kind = spec.figure if spec else ("bar-samples" if n_points == 1 else "samples-vs-sweep")
    title = spec.title if spec else ""
    runs = _runs_phrase(group)
    files: list[tuple[str, str]] = []
    if kind == "extra-only":  # solver studies: only the registered extra figures
        return files
    if kind == "bar-samples":
        cap = (f"Mean samples to stop per method, ± one standard error, over {runs}; log y axis. "
               "Several sweep points (e.g. scenarios) get one marker each (legend). Runs that hit "
               "the budget count with the samples they used.")  # fmt: skip
        files.append((_save(bar_figure(summary, labels=main_labels, title=title), out / f"{slug}.png"), cap))
        if main_labels != labels and len(labels) <= MAX_BARS:
            fig = bar_figure(summary, labels=labels, title=f"{title} — all methods")
            files.append((_save(fig, out / f"{slug}-all.png"), cap.replace("per method", "for every method")))
    else:
        panels = _panels(spec)
        cap = (f"Median samples to stop against the swept parameter, one line per method, over {runs}; band: "
               "25th-75th percentiles; log y axis. A hollow ring marks a point where some run hit the sample "
               "budget: its samples count as used, so the median there is a lower bound.")  # fmt: skip
        fig = sweep_figure(summary, panels=panels, labels=main_labels, title=title)
        files.append((_save(fig, out / f"{slug}.png"), cap))
        if main_labels != labels:
            fig = sweep_figure(summary, panels=panels, labels=labels, title=f"{title} — all methods")
            files.append((_save(fig, out / f"{slug}-all.png"), cap.replace("per method", "for every method")))
        fig = outcome_figure(group, panels=panels, labels=labels, title=f"{title} — outcomes")
        cap = (f"Outcomes over {runs}. Top: fraction correct among the runs that stopped (no point where no "
               "run stopped). Bottom: fraction of runs that hit the sample budget, a category of its own: "
               "such a run is neither correct nor incorrect.")  # fmt: skip
        files.append((_save(fig, out / f"{slug}-correct.png"), cap))
    return files


def _setting_curve(curve: dict[str, Any], row: pd.Series) -> dict[str, Any]:
    """The run's curve with ``regret`` against its own benchmark (policy regret for in-expectation runs)."""
    reg, pol, act = (float(row[c]) for c in ("regret", "policy_regret", "action_regret"))
    if abs(reg - pol) < abs(reg - act) and "policy_regret" in curve:  # (a thin record keeps it if not regret)
        return {**curve, "regret": curve["policy_regret"]}
    return curve


def _curve_figures(
    spec: ExperimentSpec, group: pd.DataFrame, curves: dict[str, Any], slug: str, out: Path
) -> list[tuple[str, str]]:
    """Regret, cost and reward curves of a regret experiment (one axes per panel)."""
    ok = group[(group["status"] == "ok") & group["pk"].isin(curves.keys())].copy()
    if ok.empty:
        return []
    ok["curve"] = [_setting_curve(curves[pk], row) for pk, (_, row) in zip(ok["pk"], ok.iterrows())]
    panels = [(p.name, p.title or p.name) for p in spec.panels]
    labels = list(spec.figure_labels) or spec.labels
    runs = _runs_phrase(ok)
    files = []
    kinds = {
        "regret": ("regret", {}),
        "per_step_regret": ("per_step_regret", {"log_x": True}),
        "cost": ("policy_cost", {"thresholds": True, "log_x": True}),
        "reward": ("reward", {"log_x": True}),
        "violation": ("positive_cost", {}),
        "margin": ("conservative_margin", {}),
    }
    for suffix in spec.curves:
        metric, kwargs = kinds[suffix]
        fig = curve_figure(
            ok, metric=metric, panels=panels, labels=labels, title=f"{spec.title} — {suffix}", **kwargs
        )
        cap = (f"The {_CURVE_CAPTIONS[suffix]} against the round, mean over {runs}, one line per method "
               "and swept value; band: ± one standard deviation over runs. Markers only tell coinciding "
               "lines apart.")  # fmt: skip
        files.append((_save(fig, out / f"{slug}-{suffix}.png"), cap))
    return files


def _sorted_table(table: pd.DataFrame) -> pd.DataFrame:
    """Rows in natural order of panel, swept value and method (``x2`` before ``x10``)."""
    keys = [c for c in ("panel", "sweep.value", "label") if c in table]
    if not keys or table.empty:
        return table
    order = sorted(range(len(table)), key=lambda i: tuple(natural_key(table[k].iloc[i]) for k in keys))
    return table.iloc[order]


_COLUMN_NAMES = {
    "panel": "panel",
    "sweep.value": "value",
    "label": "method",
    "n": "runs",
    "frac_correct": "fraction correct",
    "frac_stopped": "fraction stopped",
    "n_failed": "failed runs",
    "cpu_s": "CPU s",
    "wall_s": "wall s",
}


def _html_table(table: pd.DataFrame) -> str:
    table = _sorted_table(table).rename(columns=_COLUMN_NAMES)
    return table.to_html(
        index=False, na_rep="", float_format=lambda v: f"{v:.4g}", classes="summary", border=0
    )


def _regret_summary_html(group: pd.DataFrame) -> str:
    """Regret runs per point and learner. Every regret column names its comparator (the best feasible arm,
    the best feasible policy), per-round violations (the played action) and violations of the promise in
    expectation (the policy's expected cost) are separate columns, and the largest policy cost is stated
    minus the threshold, one unit for every learner (issue 40). Stores written before that hold the raw
    ``max_policy_cost``, shown under its own name."""
    ok = group[group["status"] == "ok"].copy()
    if ok.empty:
        return ""
    cols = ["action_regret", "policy_regret", "policy_regret_tenth", "reward", "cost",
            "max_policy_cost_over_threshold", "max_policy_cost", "violations", "policy_violations",
            "samples", "cpu_s", "wall_s"]  # fmt: skip
    for c in cols:
        if c in ok:
            ok[c] = pd.to_numeric(ok[c], errors="coerce")
    g = ok.groupby(["panel", "sweep.value", "label"], sort=False)
    columns: dict[str, Any] = {"runs": g.size(), "T": g["samples"].max()}
    if "action_regret" in ok:
        columns["regret vs best feasible arm, mean"] = g["action_regret"].mean()
        columns["regret vs best feasible arm, sd"] = g["action_regret"].std(ddof=1)
    columns["regret vs best feasible policy, mean"] = g["policy_regret"].mean()
    columns["regret vs best feasible policy, sd"] = g["policy_regret"].std(ddof=1)
    if "policy_regret_tenth" in ok:
        columns["regret vs best feasible policy at T/10"] = g["policy_regret_tenth"].mean()
    columns["mean reward"] = g["reward"].mean()
    columns["mean cost"] = g["cost"].mean()
    if "max_policy_cost_over_threshold" in ok:
        columns["max policy cost minus threshold"] = g["max_policy_cost_over_threshold"].max()
    elif "max_policy_cost" in ok:  # (an old store)
        columns["max policy cost (old store: raw, or minus tau for kernel learners)"] = g[
            "max_policy_cost"
        ].max()
    columns["rounds the played action violated a threshold"] = g["violations"].sum()
    columns["rounds the policy's expected cost violated a threshold"] = g["policy_violations"].sum()
    if "conservative_violations" in ok:  # (conservative problems: the cumulative constraint under the truth)
        for c in ("conservative_violations", "conservative_min_margin"):
            ok[c] = pd.to_numeric(ok[c], errors="coerce")
        g = ok.groupby(["panel", "sweep.value", "label"], sort=False)
        columns["rounds the cumulative reward fell below (1 - alpha) x the baseline's"] = g[
            "conservative_violations"
        ].sum()
        columns["smallest margin sum mu - (1 - alpha) sum r(baseline)"] = g["conservative_min_margin"].min()
    columns["CPU s"] = g["cpu_s"].mean() if "cpu_s" in ok else float("nan")  # (blank: stored without it)
    columns["wall s"] = g["wall_s"].mean()
    return _html_table(pd.DataFrame(columns).reset_index())


def _problem_html(spec: Any) -> str:
    """The assumptions a user's declared problem tells the learners (feedback and its sub-Gaussian proxy,
    kernel, bounds), and whether any learner can promise per-round safety on it (empty for other specs)."""
    from safebandits.experiments.user import INSTANCE

    panels = getattr(spec, "panels", ())
    if len(panels) != 1 or panels[0].instance != INSTANCE:
        return ""
    from safebandits.algorithms.compatibility import per_round_safety_note
    from safebandits.exceptions import ConfigError
    from safebandits.problems.settings import problem_from_dict

    try:
        decl = problem_from_dict(panels[0].fixed["problem"])
    except (ConfigError, KeyError, TypeError):
        return ""
    lines = list(getattr(decl, "statement", lambda: [])())
    fb = getattr(decl, "feedback", None)
    if not lines and hasattr(fb, "describe"):
        lines = [fb.describe()]
    note = per_round_safety_note(decl)
    if note:
        lines.append(note)
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return f"<h3>The problem as declared (what the learners are told)</h3><ul>{items}</ul>"


def _comparison_html(group: pd.DataFrame, spec: Any = None) -> str:
    """Tables of a cross-paper comparison: regret learners, identification learners, classifiers."""
    from safebandits.plotting.comparison import comparison_tables

    parts = [_problem_html(spec)]
    for caption, table in comparison_tables(group):
        unsafe = int(table["correct but infeasible"].sum()) if "correct but infeasible" in table else 0
        if unsafe:
            parts.append(_infeasible_note(unsafe))
        parts.append(
            f"<h3>{html.escape(caption)}</h3>"
            + table.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.4g}", border=0)
        )
    return "".join(parts)


def _solver_summary_html(group: pd.DataFrame) -> str:
    """Table of solver runs (``experiments/solvers.py``): config and metric columns."""
    ok = group[group["status"] == "ok"]
    cols = [c for c in ("panel", "sweep.value", "label", "reward", "cost", "objective", "feasible", "cpu_s",
                        "wall_s") if c in ok]  # fmt: skip
    return _html_table(ok[cols])


def _summary_html(summary: pd.DataFrame, group: pd.DataFrame) -> str:
    """Samples per point and method, with the outcomes: correct among the runs that stopped, and the runs
    that hit the budget (their own category, never counted as incorrect)."""
    cols = ["panel", "sweep.value", "label", "n", "median", "q25", "q75"]
    extra = [c for c in ("n_failed",) if c in summary and summary[c].sum() > 0]
    table = summary[cols + extra].rename(columns={"q25": "25%", "q75": "75%"})
    keys = ["panel", "sweep.value", "label"]
    full = outcome_table(group)
    shown = [*keys, "frac_correct_stopped", "n_stopped", "n"]
    scored = bool(full["n_feasible_known"].sum() > 0)  # feasibility under the truth was recorded
    if scored:
        shown += ["frac_feasible_stopped", "n_correct_infeasible"]
    outcomes = full[shown]
    outcomes = outcomes.assign(hit_budget=outcomes["n"] - outcomes["n_stopped"]).drop(
        columns=["n", "n_stopped"]
    )
    table = table.merge(outcomes, on=keys, how="left").rename(columns=_OUTCOME_NAMES)
    note = ""
    if scored and full["n_correct_infeasible"].sum() > 0:
        note = _infeasible_note(int(full["n_correct_infeasible"].sum()))
    return note + _html_table(table)


#: Column names of the outcome columns of identification summaries.
_OUTCOME_NAMES = {
    "frac_correct_stopped": "correct (of stopped)",
    "hit_budget": "hit budget",
    "frac_feasible_stopped": "feasible (of stopped)",
    "n_correct_infeasible": "correct but infeasible",
}


def _infeasible_note(n: int) -> str:
    """The warning shown above a table in which runs scored correct returned an infeasible answer."""
    return (
        '<p class="warning"><strong>'
        + html.escape(
            f"{n} run{'s' if n != 1 else ''} scored correct returned an answer that violates a constraint "
            "under the truth (feasible = False)."
        )
        + "</strong> "
        + html.escape(
            "Correct is scored under each learner's own guarantee, which may be relaxed by a tolerance "
            "(an answer within a tolerance epsilon may exceed the threshold by up to epsilon); feasible is "
            "strict. See each learner's guarantee."
        )
        + "</p>"
    )


def guarantee_rows(spec: ExperimentSpec | None, scale: str) -> list[dict[str, str]]:
    """Each learner's guarantee in the terms of a declared problem (experiment files), else ``[]``.

    One row per learner: its label, its name, the sentence of
    :func:`~safebandits.algorithms.compatibility.guarantee_statement` (threshold, delta and any tolerance
    that relaxes it, with the tolerance's source: the user's value or the documented default), what it
    rests on (:func:`~safebandits.algorithms.compatibility.assumption_statement`) and ``learning``: for a
    learner that starts from a known safe action, the rounds it needs at best before it can leave it
    (:func:`~safebandits.algorithms.learning.leave_estimate`), and whether that is within the horizon (""
    for the others).
    """
    from safebandits.experiments.user import INSTANCE

    if spec is None or not spec.panels or spec.panels[0].instance != INSTANCE:
        return []
    from safebandits.algorithms.compatibility import assumption_statement, guarantee_statement
    from safebandits.algorithms.learning import leave_estimate
    from safebandits.problems.zoo.declared import declaration

    try:
        problem = declaration(spec.panels[0].fixed["problem"])
    except (ConfigError, KeyError):
        return []
    rows = []
    for alg in spec.algorithms:
        horizon = alg.budget.get(scale) if alg.budget else None
        try:
            text = guarantee_statement(problem, alg.name, alg.params, horizon=horizon)
            rests = assumption_statement(problem, alg.name, alg.params, horizon=horizon)
            leave = leave_estimate(problem, alg.name, alg.params, horizon=horizon)
        except ConfigError as exc:  # (a learner no longer registered)
            text, rests, leave = str(exc), "", None
        rows.append({"label": alg.label, "name": alg.name, "guarantee": text, "assumptions": rests,
                     "learning": _learning_text(leave)})  # fmt: skip
    return rows


def contradicted_rows(group: pd.DataFrame) -> list[dict[str, Any]]:
    """Per learner (label) whose runs raised an "assumption contradicted" flag
    (:mod:`safebandits.experiments.watch`): the number of flagged runs and the first flag's text."""
    from safebandits.experiments.watch import FLAG_COLUMN

    if FLAG_COLUMN not in group or "label" not in group:
        return []
    flagged = group[group[FLAG_COLUMN].notna() & (group[FLAG_COLUMN].astype(str) != "")]
    rows = []
    for label, sub in flagged.groupby("label", sort=True):
        rows.append({"label": str(label), "runs": len(sub), "of": int((group["label"] == label).sum()),
                     "first": str(sub[FLAG_COLUMN].iloc[0])})  # fmt: skip
    return rows


def _learning_text(leave: Any) -> str:
    """When the learner can first leave the known safe action (issue 40: can start must mean can learn)."""
    if leave is None:
        return ""
    if leave.can_learn:
        return f"may leave the safe action after {int(leave.rounds):,} rounds at best: {leave.reason}."
    return (
        f"cannot learn within the horizon: {leave.describe()}; would learn with one of: "
        f"{'; '.join(leave.fixes)}."
    )


def _verdict(claim: dict[str, Any]) -> str:
    return str(claim.get("verdict", "pass" if claim.get("passed") else "fail"))


def _verdict_counts(claims: list[dict[str, Any]]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for c in claims:
        counts[_verdict(c)] = counts.get(_verdict(c), 0) + 1
    return [(v, counts[v]) for v in _verdict_order(counts)]


def _verdict_order(verdicts: Any) -> list[str]:
    present = set(verdicts)
    return [v for v in VERDICT_ORDER if v in present] + sorted(present - set(VERDICT_ORDER))


def verdict_table(claims: list[dict[str, Any]]) -> dict[str, Any]:
    """Verdict counts by scale: ``{"verdicts": [...], "rows": [{"scale", "counts", "total"}]}``.

    Scales in the order quick, paper, then any other; verdicts in :data:`VERDICT_ORDER`, then any other
    verdict string.
    """
    by_scale: dict[str, dict[str, int]] = {}
    for c in claims:
        counts = by_scale.setdefault(str(c.get("scale", "")), {})
        counts[_verdict(c)] = counts.get(_verdict(c), 0) + 1
    scales = sorted(by_scale, key=lambda s: ({"quick": 0, "paper": 1}.get(s, 2), s))
    verdicts = _verdict_order({v for counts in by_scale.values() for v in counts})
    rows = [{"scale": s, "counts": by_scale[s], "total": sum(by_scale[s].values())} for s in scales]
    return {"verdicts": verdicts, "rows": rows}


def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("safebandits.plotting", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["css"] = _css_class
    return env


def _extra_caption(file: str, slug: str, group: pd.DataFrame) -> str:
    suffix = Path(file).stem.removeprefix(slug).lstrip("-")
    text = EXTRA_CAPTIONS.get(suffix)
    if text is None:
        return f"A figure of this experiment ({suffix or file}), from {_runs_phrase(group)}."
    return text.format(runs=_runs_phrase(group))


def write_report(results_dir: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Write ``results_dir/report/index.html`` with figures, claims and summary tables.

    The page is rendered from the package's Jinja2 templates (``safebandits/plotting/templates``): a
    verdict summary by scale (with what the scales mean), a table of contents, then one section per
    experiment and scale, every figure with a caption.

    Parameters
    ----------
    results_dir : str or Path
        A results directory written by ``safebandits run`` (holds ``results.sqlite``).
    out : str or Path, optional
        Folder of the report (default ``results_dir / "report"``); the store is only read, so a store on
        read-only media can be reported elsewhere.

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
    out = results_dir / "report" if out is None else Path(out)
    out.mkdir(parents=True, exist_ok=True)
    from safebandits.experiments.claims_scoring import skipped_experiments
    from safebandits.experiments.user import stored_specs

    load_paper_figures()
    specs = {**list_experiments(), **stored_specs(results_dir)}
    all_claims: list[dict[str, Any]] = []
    sections = []
    number = 0
    groups = [] if df.empty else list(df.groupby(["experiment", "scale"], sort=True))
    for (experiment, scale), group in groups:
        spec = specs.get(experiment)
        slug = _slug(experiment, scale)
        summary = summary_table(group)
        ok = group[group["status"] == "ok"]
        regret_kind = spec is not None and spec.figure == "regret-curves"
        files: list[tuple[str, str]]
        comparison = spec is not None and spec.figure == "comparison"
        if comparison:
            from safebandits.plotting.comparison import comparison_figure, conservative_only

            record = (
                "the conservative margin under the truth per round (below the zero line: the cumulative "
                "reward under (1 - alpha) times the baseline's; the stage-wise panels do not apply) and the "
                "rounds below it per learner"
                if conservative_only(ok)
                else "cumulative violating rounds and positive constraint cost"
            )
            cap = (
                f"Every learner on the same axes, over {_runs_phrase(group)}: cumulative regret against the "
                f"per-round-safe optimum and against the best policy in expectation, {record} (means, band: "
                "one standard deviation), and samples to a correct answer of identification learners; the "
                "line style encodes each learner's guarantee (solid: safe every round, dashed: in "
                "expectation, dotted: soft constraint)."
            )
            files = (
                [(_save(comparison_figure(spec, group, curves), out / f"{slug}.png"), cap)]
                if not ok.empty
                else []
            )
        elif regret_kind:
            files = _curve_figures(spec, group, curves, slug, out) if not ok.empty else []
        elif spec is not None and spec.figure == "classification-curves":
            files = []  # (the experiment's registered figures only)
        else:
            files = _figures(spec, summary, group, slug, out) if not ok.empty else []
        for fn in EXTRA_FIGURES.get(experiment, []) if not ok.empty else []:
            files.extend((f, _extra_caption(f, slug, group)) for f in fn(spec, group, all_traces, out, slug))
        claims = [
            {"experiment": experiment, "scale": scale, **c}
            for c in (check_claims(group, spec.claims) if spec and spec.claims and not ok.empty else [])
        ]
        all_claims.extend(claims)
        figures = []
        for file, caption in files:
            number += 1
            figures.append({"id": f"fig-{_slug(Path(file).stem)}", "file": file, "caption": caption,
                            "number": number, "alt": caption.split(";")[0]})  # fmt: skip
        failed = group[group["status"] != "ok"]
        errors = failed.groupby("error").size().sort_values(ascending=False).head(10) if len(failed) else []
        if comparison:
            table_title, table_html = "Comparison tables", _comparison_html(group, spec)
        elif regret_kind:
            table_title, table_html = (
                "Summary (means over runs; violating rounds summed)",
                _regret_summary_html(group),
            )
        elif spec is not None and spec.figure == "extra-only":
            table_title, table_html = "Solver runs", _solver_summary_html(group)
        else:
            table_title = ("Summary (samples over runs; runs that hit the budget count with the samples "
                           "used; 'correct' is among the runs that stopped)")  # fmt: skip
            table_html = _summary_html(summary, group)
        uses_budget = not (regret_kind or comparison) and not (
            spec is not None and spec.figure == "extra-only"
        )
        sections.append(
            {
                "slug": slug,
                "title": spec.title if spec else experiment,
                "experiment": experiment,
                "scale": scale,
                "n_runs": len(group),
                "n_ok": len(ok),
                "n_failed": len(failed),
                "n_budget": int((~ok["stopped"].astype(bool)).sum()) if uses_budget else None,
                "figures": figures,
                "claims": [
                    {
                        **c,
                        "verdict": _verdict(c),
                        "evidence_json": json.dumps(c["evidence"], indent=1, default=str),
                    }
                    for c in claims
                ],
                "verdict_counts": _verdict_counts(claims),
                "failures": [(str(e), int(n)) for e, n in getattr(errors, "items", lambda: [])()],
                "table_title": table_title,
                "table_html": table_html,
                "guarantees": guarantee_rows(spec, scale),
                "contradicted": contradicted_rows(group),
            }
        )
    (out / "claims.json").write_text(json.dumps(all_claims, indent=1, default=str) + "\n")
    versions = ", ".join(
        f"{col.replace('_version', '')} {', '.join(sorted(map(str, df[col].dropna().unique())))}"
        for col in ("safebandits_version", "numpy_version", "python_version")
        if col in df
    )
    env = _environment()
    page = env.get_template("report.html").render(
        css=env.loader.get_source(env, "report.css")[0],
        results_dir=str(results_dir.resolve()),
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        versions=versions,
        verdict_table=verdict_table(all_claims),
        sections=sections,
        skipped=skipped_experiments(df),
    )
    index = out / "index.html"
    index.write_text(page)
    return index
