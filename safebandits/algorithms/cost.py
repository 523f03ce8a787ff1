"""The estimated memory and work of building a learner on a problem view and answering its first ask,
checked before the learner is built (:func:`check_learner_cost`; the limits: :mod:`safebandits._cost`).

Every path that builds a learner from a user's problem calls it first: ``run FILE.toml`` (each listed
learner, when the file is read), ``learners --for`` (the file read as ``run`` reads it; each candidate's
start-up check), :func:`~safebandits.study.create_study` (hence ``study create``, the JSON API and the
dashboard). The declarations check their own matrices before they build them
(:class:`~safebandits.problems.declare_covariate.CovariateProblem`,
:class:`~safebandits.problems.declare.KernelProblem`).

The estimate reads the view's size only: ``n`` arms (points, records) of dimension ``d``, or the ``n x n``
kernel matrix of a kernel view, and a model per learner family (the constants were measured on the
reference machine: ``n`` and ``d`` were varied and the time of creation plus the first ask fitted):

* kernel learners (CKB, StageOpt, SGP-UCB, SafeOpt, on any kernel view): ``n x n`` posterior
  arrays, ``n^2`` work;
* design learners (ACOL, BESIDE, G-allocation, XY-safe, LC-LUCB, OPLB, ...): Frank-Wolfe designs or
  optimisations over the arms, ``n d^2`` work per iteration;
* pairwise learners (RAGE and XY-diff: designs over the ``n^2`` differences of arms; Passive and
  Adaptive Uniform: eliminations over pairs): ``n^2 d^2`` or ``n^2 d``;
* OPB: a linear programme over the ``K`` arms of a K-armed view (its arms are the ``K x K`` identity);
* any other learner (a plugin's included): ``n d^2`` with a small constant.

A study also stores its view as JSON (:func:`stored_view_cost`): every number of the view (a kernel view's
``n x n`` matrices) is written, read back and compared at creation and read again by the first ask.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from safebandits._cost import Cost, check_cost, stored_numbers_cost

__all__ = [
    "bounds_cost",
    "check_learner_cost",
    "learner_cost",
    "stored_view_cost",
    "view_numbers",
    "view_size",
]

#: ``(form, operations per unit)`` of each learner family, ``form`` one of
#: ``"arms"`` (``n d^2``), ``"pairs"`` (``n^2 d^2``), ``"pairs-d"`` (``n^2 d``), ``"kernel"`` (``n^2``).
_MODELS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(
        ("acol", "beside", "beside-baseline", "beside-practical", "g-allocation", "oracle", "xy-safe-only"),
        ("arms", 1.2e5),
    ),
    **dict.fromkeys(("lc-lucb", "oplb"), ("arms", 5e5)),
    "safe-lts": ("arms", 1e5),
    **dict.fromkeys(("rage", "xy-diff-only"), ("pairs", 1e4)),
    **dict.fromkeys(("passive", "adaptive-uniform"), ("pairs-d", 500.0)),
    "opb": ("arms", 0.2),
}
#: Operations per entry of a kernel view's ``n x n`` matrix (posterior variances, safe-set updates).
_KERNEL_OPS = 500.0
#: Arrays of ``n x n`` float64 a kernel learner keeps or builds at once.
_KERNEL_ARRAYS = 6
#: Any other learner: ``n d^2`` operations per unit.
_OTHER = ("arms", 1e3)


def view_size(info: Any) -> tuple[int, int, bool]:
    """``(n, d, kernel)`` of a problem view: its number of arms (points, records, kernel rows), their
    dimension, and whether it is a kernel view (an ``n x n`` kernel matrix)."""
    kernel = getattr(info, "kernel", None)
    if isinstance(kernel, np.ndarray) and kernel.ndim == 2:
        points = getattr(info, "points", None)
        d = points.shape[1] if isinstance(points, np.ndarray) and points.ndim == 2 else 1
        return int(kernel.shape[0]), int(d), True
    sources = [getattr(info, a, None) for a in ("arms", "decisions", "features", "reward_class")]
    decision_set = getattr(info, "decision_set", None)
    if decision_set is not None:
        sources += [getattr(decision_set, a, None) for a in ("arms", "points")]
    n, d = 1, 1
    for arr in sources:
        if isinstance(arr, np.ndarray) and arr.ndim == 2 and arr.shape[0] * max(arr.shape[1], 1) > n * d:
            n, d = int(arr.shape[0]), int(arr.shape[1])
    return n, d, False


def learner_cost(info: Any, name: str) -> Cost:
    """The estimated memory and work of building learner ``name`` on ``info`` and its first ask."""
    n, d, kernel = view_size(info)
    nf, df = float(n), float(max(d, 1))
    view = f"{n:,} arms" + (f" of dimension {d}" if not kernel else "")
    arms = Cost(memory=8.0 * nf * df * 8, memory_of=f"copies of the {n:,} x {d} arms")
    if kernel:
        return Cost(
            memory=_KERNEL_ARRAYS * 8.0 * nf * nf,
            work=_KERNEL_OPS * nf * nf,
            memory_of=f"the posterior arrays of {n:,} x {n:,} points",
            work_of=f"posterior updates on {n:,} x {n:,} points",
        )
    form, ops = _MODELS.get(name, _OTHER)
    if form == "arms":
        return arms + Cost(work=ops * nf * df * df, work_of=f"designs over {view}")
    if form == "pairs":
        return Cost(
            memory=3 * 8.0 * nf * nf * df,
            work=ops * nf * nf * df * df,
            memory_of=f"the {n * n:,} differences of {view}",
            work_of=f"designs over the {n * n:,} differences of {view}",
        )
    return arms + Cost(
        memory=2 * 8.0 * nf * nf, work=ops * nf * nf * df, memory_of=f"pairs of {view}",
        work_of=f"eliminations over the pairs of {view}",
    )  # fmt: skip


#: ``safebandits bounds``: operations per ``n^2 d^2`` of an instance's sample-complexity quantities (designs
#: over the competing arms, one per arm's margin; measured: 2,000 arms in one dimension 1.3 s, 20,000
#: arms 70 s on the quiet reference machine, about ``n^1.75``).
_BOUNDS_OPS = 3e3


def bounds_cost(info: Any) -> Cost:
    """The estimated cost of ``safebandits bounds`` on an instance (or its view) of ``n`` arms in ``d``
    dimensions: designs over the arms for each competing arm, ``n^2 d^2`` work."""
    n, d, _ = view_size(info)
    nf, df = float(n), float(max(d, 1))
    return Cost(
        memory=8.0 * nf * df * 8,
        work=_BOUNDS_OPS * nf * nf * df * df,
        memory_of=f"copies of the {n:,} x {d} arms",
        work_of=f"the designs of the bounds over {n:,} arms of dimension {d}",
    )


def view_numbers(info: Any, depth: int = 0) -> int:
    """How many numbers the arrays of a problem view (and of the records it holds) hold."""
    if isinstance(info, np.ndarray):
        return int(info.size)
    if depth > 2 or not dataclasses.is_dataclass(info) or isinstance(info, type):
        return 0
    return sum(view_numbers(getattr(info, f.name, None), depth + 1) for f in dataclasses.fields(info))


def stored_view_cost(info: Any) -> Cost:
    """The cost of storing ``info`` in a study (its JSON written, read back and compared, read again)."""
    return stored_numbers_cost(float(view_numbers(info)))


def check_learner_cost(info: Any, name: str, *, what: str | None = None, stored: bool = False) -> Cost:
    """Refuse learner ``name`` on ``info`` when its estimate is above a limit
    (:class:`~safebandits.exceptions.TooLargeError`, naming the limit and the estimate); ``stored``: the
    view is stored in a study as well (:func:`stored_view_cost`)."""
    if isinstance(info, Mapping):  # (a view's JSON is checked once it is a view)
        return Cost()
    n, _, _ = view_size(info)
    cost = learner_cost(info, name)
    if stored:
        cost = cost + stored_view_cost(info)
    return check_cost(cost, what or f"Learner {name!r} on {n:,} arms")
