"""Execute one run task and build its record: the part of the engine every executor shares.

:func:`execute_task` is a pure function of its :class:`~safebandits.experiments.spec.RunTask` (see
:mod:`safebandits.experiments.runner`); :func:`failed_record` is the record of a run lost outside it
(e.g. with its worker). The executors -- serial and the local process pool in
:mod:`~safebandits.experiments.runner`, Dask in :mod:`~safebandits.experiments.dask_executor` -- import
this module, so that neither executor imports the other both ways. Both names are re-exported from
:mod:`safebandits.experiments.runner`.
"""

from __future__ import annotations

import json
import platform
import time
import traceback
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

from safebandits._version import __version__
from safebandits.experiments.progress import WARM_UP_FIELD
from safebandits.experiments.simulate import run
from safebandits.experiments.spec import RunTask
from safebandits.plugins import import_plugins
from safebandits.records import to_stored
from safebandits.rng import environment_rng, instance_rng, learner_rng

__all__ = [
    "CLASSIFICATION_METRICS",
    "CONSERVATIVE_METRICS",
    "REGRET_METRICS",
    "execute_task",
    "failed_record",
]


def _json_safe(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_safe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    stored = to_stored(value)  # (e.g. an EstimateSnapshot: its JSON string)
    return stored if stored is not value else repr(value)


def execute_task(
    task: RunTask, *, plugins: Sequence[str] = (), plugin_path: Sequence[str] = ()
) -> dict[str, Any]:
    """Execute one run and return its record (never raises for errors inside the run).

    Parameters
    ----------
    task : RunTask
    plugins : sequence of str, default=()
        Plugin modules to import first, besides ``task.plugins`` (the executors pass those the parent
        process loaded: :func:`safebandits.plugins.active_plugins`).
    plugin_path : sequence of str, default=()
        Folders to put on ``sys.path`` before importing them (:func:`safebandits.plugins.plugin_path`).

    Returns
    -------
    dict
        Store columns: ``pk``, ``run_key``, ``config_hash``, ``scale``, the flattened config, the
        metrics, ``status`` ("ok" or "failed"), ``error`` and ``traceback`` (failed runs), versions
        and a timestamp. Key ``"_traces"`` holds JSON extras (the learner's recommendation info and
        the instance description) for the ``traces`` table; key ``"_warm_up"`` (not stored) whether this
        is the process's first run of the method and instance (its CPU time includes loading kernels).
    """
    record = _base_record(task)
    traces: dict[str, Any] = {}
    warm = (task.algorithm, task.instance)
    record[WARM_UP_FIELD] = warm not in _WARM  # (not stored: read by the progress estimate)
    _WARM.add(warm)
    try:
        import_plugins([*task.plugins, *plugins], plugin_path)
        from safebandits.algorithms._config import run_params
        from safebandits.algorithms.registry import get_algorithm, make_learner
        from safebandits.problems.registry import list_instances, make_instance

        key = task.key
        entry = list_instances().get(task.instance)
        rng = instance_rng(key) if entry is not None and entry.random else None
        instance = make_instance(task.instance, rng, **task.instance_params)
        from safebandits.experiments.solvers import find_solver

        solver = find_solver(task.algorithm)
        if solver is not None:  # a solver run (experiments/solvers.py), not a bandit run
            t0, c0 = time.perf_counter(), time.process_time()
            metrics, traces = solver.solve(instance, solver.config(**task.algorithm_params), learner_rng(key))
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            record.update(stopped=True, correct=None, recommended=None, error=None, traceback=None)
            record.update(_json_safe(metrics), status="ok", wall_s=wall, cpu_s=cpu)
            return _finish(record, _json_safe(traces))
        from safebandits.problems.declare import SimulatedProblem

        if isinstance(instance, SimulatedProblem):  # a declared problem: the instance of the learner's kind
            from safebandits.algorithms.compatibility import instance_for

            instance = instance_for(instance, task.algorithm)
        env = instance.environment(environment_rng(key))
        algorithm = get_algorithm(task.algorithm)
        info = instance.privileged_info() if algorithm.privileged else instance.public_info()
        params = run_params(algorithm.cls.config_cls, task.algorithm_params)  # (unkeyed fields: stored runs')
        learner = make_learner(task.algorithm, info, learner_rng(key), params)
        if algorithm.task == "regret":
            _run_regret_task(learner, env, instance, task, record, traces)
            return _finish(record, traces)
        if algorithm.task == "classification":
            _run_classification_task(learner, env, instance, task, record, traces)
            return _finish(record, traces)
        outcome = run(learner, env, instance, budget=task.budget)
        _watch_final(learner, instance, outcome.samples, record, traces)
        record.update(
            status="ok",
            samples=outcome.samples,
            correct=outcome.correct,
            feasible=outcome.feasible,
            recommended=outcome.recommended,
            stopped=outcome.stopped,
            wall_s=outcome.wall_s,
            cpu_s=outcome.cpu_s,
            error=None,
            traceback=None,
        )
        if outcome.info:
            traces["recommendation"] = _json_safe(outcome.info)
        describe = getattr(instance, "describe", None)
        if describe is not None:
            traces["instance"] = _json_safe(describe())
    except Exception as exc:  # (a failing run is recorded, not fatal)
        record.update(
            status="failed",
            error=f"{type(exc).__name__}: {exc}",
            traceback=traceback.format_exc(),
        )
    return _finish(record, traces)


def _watch_final(
    learner: Any, instance: Any, samples: int, record: dict[str, Any], traces: dict[str, Any]
) -> None:
    """An identification run of a declared problem: the learner's final intervals against the declared
    bounds (:mod:`safebandits.experiments.watch`; the column only when a flag was raised)."""
    from safebandits.experiments.watch import FLAG_COLUMN, Watcher

    watcher = Watcher(learner, instance)
    watcher.check(int(samples))
    summary = watcher.summary()
    if summary:
        record[FLAG_COLUMN] = summary["text"]
        traces["assumption"] = _json_safe(summary)


#: (method, instance) pairs this process has run (their kernels are loaded).
_WARM: set[tuple[str, str]] = set()


def _base_record(task: RunTask) -> dict[str, Any]:
    return {
        "pk": task.pk,
        "run_key": task.run_key,
        "config_hash": task.config_hash,
        "scale": task.scale,
        **task.config(),
        "config_json": task.config_json(),
    }


def failed_record(task: RunTask, error: str, traceback_text: str | None) -> dict[str, Any]:
    """The record of a run that failed outside :func:`execute_task` (e.g. lost with its worker).

    Same columns as a failed record of :func:`execute_task`: the key, the config, ``status="failed"``,
    ``error``, ``traceback`` and versions.
    """
    record = _base_record(task)
    record.update(status="failed", error=error, traceback=traceback_text)
    return _finish(record, {})


#: Metric columns of regret runs (besides ``samples`` = rounds, ``stopped``, ``wall_s``, ``cpu_s``).
REGRET_METRICS = (
    "regret",
    "policy_regret",
    "action_regret",
    "reward",
    "cost",
    "max_policy_cost_over_threshold",
    "violations",
    "policy_violations",
    "regret_tenth",
    "policy_regret_tenth",
    "tail_cost",
    "tail_reward",
    "positive_cost",
    "positive_cost_tenth",
    "optimism_failures",
    "final_feasible",
)


def _run_regret_task(
    learner: Any, env: Any, instance: Any, task: RunTask, record: dict[str, Any], traces: dict[str, Any]
) -> None:
    """Play a regret learner for the instance's horizon (capped by the budget) and fill the record.

    ``samples`` holds the rounds played, ``stopped`` whether the horizon was reached; ``correct``,
    ``feasible`` and ``recommended`` are left empty. ``max_policy_cost_over_threshold`` is the largest true
    expected cost of a played policy *minus the threshold* (at most 0: within the limit), one unit for
    every learner: kernel instances state their constraint as ``g = cost - tau <= 0`` (threshold 0), the
    others as ``cost <= tau``, so the raw largest cost had two meanings (issue 40; stores written before it
    hold ``max_policy_cost`` instead). ``cost``, ``max_policy_cost_over_threshold``, ``tail_cost`` and
    ``positive_cost`` (``sum_t [c_t - tau]_+``) are those of the first constraint (all constraints are in
    the ``curve`` and ``totals`` traces). ``optimism_failures`` counts the rounds whose optimistic value
    is below the optimal true value (``None`` for learners that report none; details in the ``optimism``
    trace). ``final_feasible``: the learner's final plays are within every limit under the truth -- the
    mean true cost of the last 10% of the rounds (of the played policies' expected costs, for learners
    safe in expectation) is at most each threshold (+ ``TOL``); the regret learners' "final answer".
    """
    from safebandits.experiments.regret_loop import run_regret
    from safebandits.problems.stagewise import TOL

    if getattr(instance, "contextual", False):  # (contexts through ask(context): CLUCB, LinUCB)
        from safebandits.experiments.conservative_linear import contextual_regret

        out = contextual_regret(learner, env, instance, budget=task.budget)
    else:
        out = run_regret(learner, env, instance, budget=task.budget)
    tau = np.asarray(instance.threshold, dtype=np.float64).reshape(-1)
    final_feasible = bool(np.all(np.asarray(out.tail_cost, dtype=np.float64) <= tau + TOL))

    def first(values: Any, shift: float = 0.0) -> float | None:  # (no per-round cost: conservative)
        return float(values[0]) - shift if len(values) else None

    shift = float(tau[0]) if tau.size else 0.0
    record.update(
        status="ok",
        samples=out.rounds,
        correct=None,
        feasible=None,
        recommended=None,
        stopped=out.stopped,
        wall_s=out.wall_s,
        cpu_s=out.cpu_s,
        error=None,
        traceback=None,
        regret=out.regret,
        policy_regret=out.policy_regret,
        action_regret=out.action_regret,
        reward=out.reward,
        cost=first(out.cost),
        max_policy_cost_over_threshold=first(out.max_policy_cost, shift),
        violations=out.violations,
        policy_violations=out.policy_violations,
        regret_tenth=out.regret_tenth,
        policy_regret_tenth=out.policy_regret_tenth,
        tail_cost=first(out.tail_cost),
        tail_reward=out.tail_reward,
        positive_cost=first(out.positive_cost),
        positive_cost_tenth=first(out.positive_cost_tenth),
        optimism_failures=out.optimism.get("failures"),
        final_feasible=final_feasible,
    )
    _regret_traces(out, learner, instance, tau, record, traces)
    if task.record == "thin":  # (fewer curve points and curves; the columns unchanged: thin_record.py)
        from safebandits.experiments.thin_record import thin_traces

        traces.update(thin_traces(traces))


def _regret_traces(
    out: Any, learner: Any, instance: Any, tau: np.ndarray, record: dict[str, Any], traces: dict[str, Any]
) -> None:
    """The traces of a regret run (curves, totals, optimism, the conservative constraint, diagnostics)
    and the columns only some runs have (the conservative constraint's, the assumption flag, ``diag.*``)."""
    if out.optimism:
        traces["optimism"] = _json_safe(out.optimism)
    if out.conservative:  # (the columns only on conservative problems: other runs' records are unchanged)
        cons = out.conservative
        record.update({f"conservative_{k}": cons[k] for k in CONSERVATIVE_METRICS})
        traces["conservative"] = _json_safe(cons)
    if out.assumption:  # (the column only when a flag was raised: other runs' records are unchanged)
        from safebandits.experiments.watch import FLAG_COLUMN

        record[FLAG_COLUMN] = out.assumption["text"]
        traces["assumption"] = _json_safe(out.assumption)
    traces["curve"] = _json_safe(out.curves)
    traces["totals"] = _json_safe(
        {
            "cost": out.cost,
            "max_policy_cost_over_threshold": (
                np.asarray(out.max_policy_cost, dtype=np.float64) - tau
            ).tolist(),
            "positive_cost": out.positive_cost,
            "setting": learner.setting,
        }
    )
    if out.info:
        traces["learner"] = _json_safe(out.info)
        # Scalar diagnostics also become columns (``diag.<name>``) for claims and tables.
        for name, value in out.info.items():
            value = _json_safe(value)
            if isinstance(value, (bool, int, float, str)) or value is None:
                record[f"diag.{name}"] = value
    describe = getattr(instance, "describe", None)
    if describe is not None:
        traces["instance"] = _json_safe(describe())


#: Columns of the conservative constraint (problems with a baseline), each ``conservative_<name>``: the
#: verified rounds whose margin ``sum_s mu_{I_s} - (1 - alpha) sum_s r(b_s)`` is negative under the truth,
#: the first of them (0: none), the smallest verified margin and the final margin.
CONSERVATIVE_METRICS = ("violations", "first_violation", "min_margin", "margin")

#: Metric columns of classification runs (final classifier, on the pool); ``samples`` = labels.
CLASSIFICATION_METRICS = ("accuracy", "fdr", "precision", "recall")


def _run_classification_task(
    learner: Any, env: Any, instance: Any, task: RunTask, record: dict[str, Any], traces: dict[str, Any]
) -> None:
    """Query labels up to the budget; final pool metrics as columns, per-batch curves as JSON in the
    ``curve`` column (read by the claims) and as the ``curve`` trace."""
    from safebandits.classification.problem import run_classification

    out = run_classification(learner, env, instance, budget=task.budget)
    record.update(
        status="ok",
        samples=out.labels,
        correct=None,
        feasible=None,
        recommended=None,
        stopped=True,
        wall_s=out.wall_s,
        cpu_s=out.cpu_s,
        error=None,
        traceback=None,
        curve=json.dumps(_json_safe(out.curves), separators=(",", ":")),
        **{k: out.final.get(k) for k in CLASSIFICATION_METRICS},
    )
    traces["curve"] = _json_safe(out.curves)
    traces["instance"] = _json_safe(instance.describe())


def _finish(record: dict[str, Any], traces: dict[str, Any]) -> dict[str, Any]:
    record.update(
        python_version=platform.python_version(),
        numpy_version=np.__version__,
        safebandits_version=__version__,
        timestamp=datetime.now(timezone.utc).isoformat(timespec="microseconds"),
        _traces=traces,
    )
    return record
