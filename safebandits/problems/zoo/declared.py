"""``user/declared``: a problem declared from public parts with its simulation truth (experiment files).

The instance parameters are plain values (so that run tasks pickle and hash): the ``[problem]`` table
of an experiment file (:func:`~safebandits.problems.settings.problem_from_dict`), its ``[truth]`` table
and the horizon ``T``. The factory returns a
:class:`~safebandits.problems.declare.SimulatedProblem`; the runner builds from it the instance of the
kind each learner reads (:func:`safebandits.algorithms.compatibility.instance_for`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from safebandits.exceptions import ConfigError
from safebandits.problems.declare import PoolProblem, SimulatedProblem
from safebandits.problems.settings import problem_from_dict

__all__ = ["declaration", "declared", "pool_from_csv"]


def pool_from_csv(values: Mapping[str, Any]) -> tuple[PoolProblem, Any]:
    """``{"setting": "pool", "csv": PATH, "label": COLUMN, "q": Q, ...}`` -> (problem, 0/1 labels)."""
    import pandas as pd

    values = dict(values)
    values.pop("setting", None)
    path = values.pop("csv")
    label = values.pop("label", None)
    if not isinstance(label, str):
        raise ConfigError(
            f"A pool problem read from a CSV file needs the 0/1 label column (label). Got {label!r}."
        )
    unknown = set(values) - {"q", "features", "standardize"}
    if unknown:
        raise ConfigError(f"A pool problem read from a CSV file has no parameter(s) {sorted(unknown)}.")
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"Cannot read the pool's CSV file {path!r}: {exc}") from None
    return PoolProblem.from_frame(frame, label=label, **values)  # type: ignore[return-value]


#: What to do with a truth outside the declared bounds: refuse it (default) or run and flag every run.
TRUTH_OUTSIDE_BOUNDS = ("refuse", "flag")


def declared(
    *,
    problem: dict[str, Any] | None = None,
    truth: dict[str, Any] | None = None,
    T: int = 10_000,
    truth_outside_bounds: str = "refuse",
) -> SimulatedProblem:
    """A problem declared from public parts with its simulation truth (user experiment files).

    The truth is checked against the bounds the problem declares
    (:meth:`~safebandits.problems.declare.Problem.truth_violations`: means within ``mean_bound``, norms
    within ``param_norm_bound``, RKHS norms within the declared bounds): a truth outside them is refused
    (one line per bound it breaks), unless ``truth_outside_bounds="flag"`` -- a misspecified problem run on
    purpose -- and then every run raises the "assumption contradicted" flag at round 0.

    Registered as ``user/declared`` by :mod:`safebandits.problems.registry` itself (the library's own
    instance: the registry imports this module, never the other way round)."""
    if not isinstance(problem, Mapping):
        raise ConfigError("Instance 'user/declared' needs the problem table (instance parameter 'problem').")
    if truth_outside_bounds not in TRUTH_OUTSIDE_BOUNDS:
        raise ConfigError(
            f"truth_outside_bounds must be one of {TRUTH_OUTSIDE_BOUNDS}. Got {truth_outside_bounds!r} "
            "instead."
        )
    truth = dict(truth or {})
    decl, labels = _declaration(problem)
    if labels is not None:
        truth.setdefault("eta", labels)
    if "horizon" in {f.name for f in dataclasses.fields(decl)}:  # type: ignore[arg-type]
        decl = dataclasses.replace(decl, horizon=T)  # type: ignore[type-var]
    sim = SimulatedProblem(problem=decl, truth=truth)  # (checks the truth's shapes and the safe action)
    broken = decl.truth_violations(truth)
    if broken and truth_outside_bounds == "refuse":
        lines = "\n".join(f"  - {b}" for b in broken)
        raise ConfigError(
            f"the [truth] is outside the bounds the [problem] declares, so the guarantees printed for it "
            f"would not apply ({len(broken)} bound{'s' if len(broken) != 1 else ''} broken; nothing was "
            f"run):\n{lines}\n  (to run a misspecified problem on purpose, set truth_outside_bounds = "
            '"flag" at the top of the file: every run is then flagged "assumption contradicted")'
        )
    return dataclasses.replace(sim, flags=tuple(broken)) if broken else sim


def declaration(problem: Mapping[str, Any]) -> Any:
    """The declaration of a ``[problem]`` table alone (no truth, no instance built)."""
    return _declaration(problem)[0]


def _declaration(problem: Mapping[str, Any]) -> tuple[Any, Any]:
    """(declaration, 0/1 labels of a pool read from a CSV file, else ``None``)."""
    if problem.get("setting") == "pool" and "csv" in problem:
        return pool_from_csv(problem)
    return problem_from_dict(problem), None
