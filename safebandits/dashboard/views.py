"""What the dashboard draws: per-arm bounds, progress, simulated curves and the answer views (SVG)."""

from __future__ import annotations

import datetime as _dt
import io
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from safebandits.study.words import estimate_arrays as _estimate_arrays
from safebandits.study.words import recommendation_words

__all__ = [
    "answers_svg",
    "arm_sets",
    "bounds_svg",
    "estimates_svg",
    "identification_outcomes",
    "picture_svg",
    "problem_instance",
    "query_view",
    "recommendation_words",
    "simulated_curves_svg",
    "view_kind",
]


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.index("<svg") :]  # inline: drop the XML prolog and doctype


def problem_instance(study: Any) -> Any | None:
    """The simulated instance a study names in its ``problem`` (``{"instance", "params"}``), else None."""
    problem = study.problem or {}
    name = problem.get("instance")
    if not name:
        return None
    from safebandits.problems.registry import list_instances, make_instance

    try:
        entry = list_instances().get(name)
        rng = np.random.default_rng(int(problem.get("instance_seed", 0))) if entry and entry.random else None
        return make_instance(name, rng, **dict(problem.get("params") or {}))
    except Exception:  # a problem the dashboard cannot rebuild: no simulated curves
        return None


def _view_names(entries: dict[str, Any]) -> dict[str, str]:
    """Answer views a study's stored ``problem["view"]`` may name, by name: the kinds, and the older names
    the instances' views register (:attr:`~safebandits.problems.registry.QueryView.aliases`: studies made
    before the views were the instances' own)."""
    from safebandits.problems.registry import VIEW_KINDS

    names = {kind: kind for kind in VIEW_KINDS}
    for entry in entries.values():
        for alias in entry.view.aliases:
            names.setdefault(alias, entry.view.kind)
    return names


def query_view(study: Any) -> Any:
    """The :class:`~safebandits.problems.registry.QueryView` of a study's queries: the one its stored
    ``problem["view"]`` names, else its instance's (``problem["instance"]``), else a label view for a
    classification learner, else the generic one."""
    from safebandits.algorithms.registry import get_algorithm
    from safebandits.problems.registry import QueryView, list_instances

    problem = study.problem or {}
    entries = list_instances()
    entry = entries.get(str(problem.get("instance", "")))
    named = _view_names(entries).get(str(problem.get("view", "")))
    if entry is not None and named in (None, entry.view.kind):
        return entry.view
    if named is not None:
        return QueryView(named)
    if get_algorithm(study.algorithm).task == "classification":
        return QueryView("label", question="Label of this record:")
    return QueryView()


def view_kind(study: Any) -> str:
    """``"picture"``, ``"label"`` or ``"generic"``: the answer view of a study (:func:`query_view`)."""
    return str(query_view(study).kind)


def arm_sets(learner: Any, summary: dict[str, Any], threshold: float | None) -> dict[str, list[int]]:
    """The learner's sets: uncertain, certified feasible (or safe), eliminated.

    CBAI learners keep ``U`` (uncertain) and ``F`` (certified feasible) themselves (cumulative, with
    reward-dominated arms eliminated too): those are shown. Otherwise the sets follow from the current
    confidence bounds against the threshold (upper <= tau: certified feasible; lower > tau: eliminated).
    """
    from safebandits.algorithms.pure_exploration._cbai import CBAISets

    out: dict[str, list[int]] = {}
    sets = getattr(learner, "_sets", None)
    if isinstance(sets, CBAISets):
        uncertain, feasible = sets.uncertain, sets.feasible
        eliminated = np.setdiff1d(np.arange(sets.n_arms), np.union1d(uncertain, feasible))
        out = {"uncertain": uncertain.tolist(), "certified feasible": feasible.tolist(),
               "eliminated": eliminated.tolist()}  # fmt: skip
    else:
        cb = summary.get("confidence_bounds")
        if isinstance(cb, dict) and threshold is not None:
            lower, upper = np.asarray(cb["lower"], dtype=float), np.asarray(cb["upper"], dtype=float)
            if lower.ndim == 1:
                feasible = np.flatnonzero(upper <= threshold)
                eliminated = np.flatnonzero(lower > threshold)
                uncertain = np.setdiff1d(np.arange(lower.size), np.union1d(feasible, eliminated))
                out = {"uncertain": uncertain.tolist(), "certified feasible": feasible.tolist(),
                       "eliminated": eliminated.tolist()}  # fmt: skip
    if not out:
        out = _sets_from_estimates(summary.get("arm_estimates"))
    safe = summary.get("safe_set")
    if isinstance(safe, list) and safe and all(isinstance(v, int) for v in safe):
        out["certified safe"] = safe
    return out


def _sets_from_estimates(estimates: Any) -> dict[str, list[int]]:
    """Sets from per-arm intervals against the thresholds: certified (every bounded quantity's upper bound
    at most its threshold), eliminated (some lower bound above it), uncertain (the rest)."""
    arrays = _estimate_arrays(estimates)
    if arrays is None:
        return {}
    _, lower, upper = arrays
    cols = [j for j, t in enumerate(estimates.get("thresholds") or []) if t is not None]
    if not cols:
        return {}
    tau = np.array([estimates["thresholds"][j] for j in cols], dtype=float)
    feasible = np.flatnonzero(np.all(upper[:, cols] <= tau, axis=1))
    eliminated = np.flatnonzero(np.any(lower[:, cols] > tau, axis=1))
    uncertain = np.setdiff1d(np.arange(lower.shape[0]), np.union1d(feasible, eliminated))
    return {"uncertain": uncertain.tolist(), "certified feasible": feasible.tolist(),
            "eliminated": eliminated.tolist()}  # fmt: skip


_SET_COLOURS = {"certified feasible": "#2e7d32", "eliminated": "#c62828", "uncertain": "#757575"}


def bounds_svg(
    summary: dict[str, Any], threshold: float | None, recommended: int | None, sets: dict[str, list[int]]
) -> str | None:
    """Per-arm estimate (midpoint) and confidence interval of the constraint value against tau."""
    cb = summary.get("confidence_bounds")
    if not isinstance(cb, dict) or "lower" not in cb or "upper" not in cb:  # (CKB: f_ and g_ bounds)
        return None
    lower, upper = np.asarray(cb["lower"], dtype=float), np.asarray(cb["upper"], dtype=float)
    if lower.ndim != 1:
        return None
    n = lower.size
    mid = (lower + upper) / 2
    colours = np.full(n, "#757575", dtype=object)
    for name, arms in sets.items():
        if name in _SET_COLOURS:
            colours[np.asarray(arms, dtype=int)] = _SET_COLOURS[name]
    fig = Figure(figsize=(min(11, 3 + 0.35 * n), 3.2), layout="constrained")
    ax = fig.subplots()
    x = np.arange(n)
    finite = np.isfinite(lower) & np.isfinite(upper)
    ax.vlines(x[finite], lower[finite], upper[finite], colors=list(colours[finite]), lw=3)
    ax.scatter(x[finite], mid[finite], c=list(colours[finite]), s=14, zorder=3)
    if threshold is not None:
        ax.axhline(threshold, color="black", ls=":", lw=1, label=f"threshold tau = {threshold:g}")
    if recommended is not None and 0 <= recommended < n:
        ax.axvline(recommended, color="#1565c0", lw=1, alpha=0.5, label=f"recommended arm {recommended}")
    for name, colour in _SET_COLOURS.items():
        if name in sets:
            ax.scatter([], [], c=colour, label=name)
    ax.set_xlabel("arm")
    if n <= 30:
        ax.set_xticks(x)
    ax.set_ylabel("constraint value:\nestimate and CI")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    ax.grid(alpha=0.3)
    return _svg(fig)


def estimates_svg(summary: dict[str, Any], recommended: int | None, sets: dict[str, list[int]]) -> str | None:
    """One panel per estimated quantity (:class:`~safebandits.records.ArmEstimates`): every arm's estimate
    and confidence interval, the threshold of a constrained quantity, the recommended arm, coloured by set."""
    estimates = summary.get("arm_estimates")
    arrays = _estimate_arrays(estimates)
    if arrays is None:
        return None
    est, lower, upper = arrays
    n, q = est.shape
    unit = str(estimates.get("unit") or "arm")
    colours = np.full(n, "#757575", dtype=object)
    for name, arms in sets.items():
        if name in _SET_COLOURS:
            colours[np.asarray(arms, dtype=int)] = _SET_COLOURS[name]
    fig = Figure(figsize=(min(11, max(6.5, 3 + 0.35 * n)), 1.2 + 2.2 * q), layout="constrained")
    axes = np.atleast_1d(fig.subplots(q, 1, sharex=True, squeeze=False)[:, 0])
    x = np.arange(n)
    for j, ax in enumerate(axes):
        bounded = np.isfinite(lower[:, j]) & np.isfinite(upper[:, j])
        ax.vlines(x[bounded], lower[bounded, j], upper[bounded, j], colors=list(colours[bounded]), lw=3)
        known = np.isfinite(est[:, j])
        ax.scatter(x[known], est[known, j], c=list(colours[known]), s=14, zorder=3)
        unbounded = ~bounded
        if unbounded.any():  # no interval yet: marked on the axis
            ax.scatter(x[unbounded], np.zeros(int(unbounded.sum())), marker="x", c="#bdbdbd", s=12)
        threshold = (estimates.get("thresholds") or [None] * q)[j]
        if threshold is not None:
            ax.axhline(threshold, color="black", ls=":", lw=1, label=f"threshold {threshold:g}")
        if recommended is not None and 0 <= recommended < n:
            ax.axvline(
                recommended, color="#1565c0", lw=1, alpha=0.5, label=f"recommended {unit} {recommended}"
            )
        ax.set_ylabel(str(estimates["quantities"][j]) + ":\nestimate and CI", fontsize=8)
        ax.grid(alpha=0.3)
        if j == 0:
            for name, colour in _SET_COLOURS.items():
                if name in sets:
                    ax.scatter([], [], c=colour, label=name)
            if unbounded.any():
                ax.scatter([], [], marker="x", c="#bdbdbd", label="no interval yet")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    axes[-1].set_xlabel(unit)
    if n <= 30:
        axes[-1].set_xticks(x)
    return _svg(fig)


#: Most points a curve of the dashboard draws (a study with more answers is drawn at evenly spaced ones:
#: at a few hundred pixels wide the picture is the same, and a page's cost stops growing with the study).
MAX_CURVE_POINTS = 1_000


def _thinned(n: int) -> np.ndarray:
    """Evenly spaced indices of ``range(n)``, at most :data:`MAX_CURVE_POINTS`, the first and last kept."""
    if n <= MAX_CURVE_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_CURVE_POINTS).round().astype(np.int64))


def answers_svg(times: list[str]) -> str | None:
    """Answers over time (cumulative count against the time each was told; ``times`` as
    :meth:`~safebandits.study.study.Study.answer_times` gives them)."""
    times = sorted(t for t in times if t)
    if not times:
        return None
    keep = _thinned(len(times))
    t = [_dt.datetime.fromisoformat(times[i]) for i in keep]
    minutes = np.array([(v - t[0]).total_seconds() / 60 for v in t])
    fig = Figure(figsize=(5, 2.2), layout="constrained")
    ax = fig.subplots()
    ax.step(minutes, keep + 1, where="post", color="#1565c0")
    ax.set_xlabel(f"minutes since the first answer ({t[0]:%Y-%m-%d %H:%M} UTC)")
    ax.set_ylabel("answers")
    ax.grid(alpha=0.3)
    return _svg(fig)


def _per_arm(instance: Any, names: tuple[str, ...], n_arms: int) -> np.ndarray | None:
    for name in names:
        value = getattr(instance, name, None)
        if isinstance(value, np.ndarray) and value.shape[:1] == (n_arms,) and value.ndim <= 2:
            return np.asarray(value, dtype=float).reshape(n_arms, -1)[:, 0]
    return None


def true_arm_values(instance: Any) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Per-arm true mean reward and constraint value (first constraint) and the threshold, where the
    instance exposes them (CBAI, stage-wise, kernel and Safe-LUCB instances; losses count as -reward)."""
    n = getattr(instance, "n_arms", None)
    threshold = getattr(instance, "threshold", None)
    if n is None or threshold is None or np.size(threshold) < 1:
        return None
    threshold = float(np.ravel(threshold)[0])  # the first constraint's
    rewards = _per_arm(instance, ("reward_values", "arm_rewards", "reward"), int(n))
    if rewards is None:
        losses = _per_arm(instance, ("losses",), int(n))
        rewards = None if losses is None else -losses
    costs = _per_arm(instance, ("constraint_values", "arm_costs", "constraint", "safety_values"), int(n))
    if rewards is None or costs is None:
        return None
    return rewards, costs, threshold


def simulated_curves_svg(study: Any, instance: Any) -> str | None:
    """Cumulative regret (against the best feasible arm), cost of each pull and cumulative violation of the
    answered pulls.

    Regret studies only: a pure-exploration learner's queries are not plays, so their regret means nothing.
    """
    if study.task != "regret":
        return None
    values = true_arm_values(instance)
    if values is None:
        return None
    rewards, costs, threshold = values
    feasible = costs <= threshold
    if not feasible.any():
        return None
    best = float(rewards[feasible].max())
    arms = study.answered_arms()
    if not arms:
        return None
    a = np.asarray(arms, dtype=int)
    keep = _thinned(a.size)  # (sums over every pull; drawn at evenly spaced pulls)
    t = keep + 1
    fig = Figure(figsize=(10, 2.6), layout="constrained")
    axes = fig.subplots(1, 3)
    axes[0].plot(t, np.cumsum(best - rewards[a])[keep], color="#1565c0")
    axes[0].set_ylabel("cumulative regret\n(vs best feasible arm)")
    axes[1].plot(t, costs[a][keep], color="#6a1b9a", lw=0.8)
    axes[1].axhline(threshold, color="black", ls=":", lw=1)
    axes[1].set_ylabel(
        "constraint value of the pull" + ("" if keep.size == a.size else "\n(evenly spaced pulls)")
    )
    axes[2].plot(t, np.cumsum(np.maximum(costs[a] - threshold, 0.0))[keep], color="#c62828")
    axes[2].set_ylabel("cumulative violation [c - tau]+")
    for ax in axes:
        ax.set_xlabel("answered pull")
        ax.grid(alpha=0.3)
    return _svg(fig)


def picture_svg(study: Any, arm: int, view: Any = None) -> str | None:
    """The picture of arm ``arm`` that the study's query view (``view``, else :func:`query_view`) draws
    (``None`` when it has none or the study does not say how to rebuild its problem)."""
    view = query_view(study) if view is None else view
    draw = view.drawer()
    if draw is None:
        return None
    params = dict((study.problem or {}).get("params") or {})
    width, height = view.size
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.subplots()
    try:
        draw(ax, params, int(arm))
    except Exception:  # (a problem the dashboard cannot rebuild, an arm it does not have)
        return None
    fit_to_axes(fig, ax, width=width)
    return _svg(fig)


def fit_to_axes(fig: Figure, ax: Any, width: float) -> None:
    """Give an equal-aspect picture a figure height that matches its data (no empty bands)."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    fig.set_size_inches(width, min(12.0, max(2.0, width * (y1 - y0) / (x1 - x0) + 0.4)))


def identification_outcomes(runs: Any) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Per (experiment, scale): one row per identification learner with its runs, the fraction correct
    (under its own, possibly relaxed, guarantee), the fraction feasible under the truth (strict) and the
    runs scored correct whose answer is infeasible. The results page shows them side by side."""
    from safebandits.experiments.results import summary_by_kind
    from safebandits.experiments.store import latest_runs

    table = summary_by_kind(latest_runs(runs)).get("identification")
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    if table is None:
        return out
    for (experiment, scale, label), row in table.iterrows():
        out.setdefault((str(experiment), str(scale)), []).append(
            {
                "label": str(label),
                "runs": int(row["runs"]),
                "correct": _fraction(row.get("correct")),
                "feasible": _fraction(row.get("feasible")),
                "correct_infeasible": int(row.get("correct_infeasible", 0) or 0),
            }
        )
    return out


def _fraction(value: Any) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return ""
    return "" if v != v else f"{v:.2f}"


def conservative_svg(record: dict[str, Any] | None) -> str | None:
    """The conservative constraint per answered round (a conservative study's
    :meth:`~safebandits.study.study.Study.conservative` record): the learner's pessimistic margin ``xi_t``
    of the action it considered (filled where it played that action, hollow where it fell back to the
    baseline's), the margin under the study's truth when it holds one, the zero line, the verified rounds
    where the true margin is negative (red crosses) and the baseline rounds (ticks)."""
    rounds = (record or {}).get("rounds") or []
    if not rounds:
        return None
    keep = _thinned(len(rounds))
    shown = [rounds[i] for i in keep]
    t = np.array([r["round"] for r in shown], dtype=float)
    fig = Figure(figsize=(10, 3.0), layout="constrained")
    ax = fig.subplots()
    ax.axhline(0.0, color="black", lw=0.8, ls=":")
    true = np.array([np.nan if r["true_margin"] is None else r["true_margin"] for r in shown], dtype=float)
    if np.isfinite(true).any():
        ax.plot(t, true, color="#1565c0", lw=1.4, label="margin under the truth")
    budget = np.array([np.nan if r["budget"] is None else r["budget"] for r in shown], dtype=float)
    explored = np.array([r["pessimistic_margin"] is not None for r in shown])
    if np.isfinite(budget[explored]).any():
        ax.plot(t[explored], budget[explored], "o", ms=3, color="#2e7d32",
                label="learner's pessimistic margin (action played)")  # fmt: skip
    refused = ~explored & np.isfinite(budget)
    if refused.any():
        ax.plot(t[refused], budget[refused], "o", ms=3, mfc="none", color="#ef6c00",
                label="pessimistic margin of the refused action (baseline played)")  # fmt: skip
    base = np.array([r["baseline_played"] for r in shown])
    if base.any():
        ax.plot(t[base], np.zeros(int(base.sum())), "|", ms=8, color="#757575", label="baseline round")
    bad = np.array([bool(r["violated"]) for r in shown])
    if bad.any():
        ax.plot(t[bad], true[bad], "x", ms=6, color="#c62828", label="violated (verified round)")
    anchor = np.concatenate([true[np.isfinite(true)], budget[explored & np.isfinite(budget)], [0.0]])
    low, high = float(anchor.min()), float(anchor.max())
    span = max(high - low, 1e-9)
    ax.set_ylim(low - 0.6 * span, high + 0.1 * span)  # (a refused action's margin may lie far below)
    ax.set_xlabel("answered round" + ("" if keep.size == len(rounds) else " (evenly spaced rounds)"))
    ax.set_ylabel("margin\nsum r(a) - (1 - alpha) sum r(b)", fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return _svg(fig)
