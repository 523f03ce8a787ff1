"""StageOpt and SafeOpt on a box: the candidate set they grow their safe set on, and its growth around
the certified points (``docs/decisions/ckb.md``, "StageOpt and SafeOpt on a box").

At the start the candidates are the safe seed's points and ``box_points`` points drawn uniformly in the
box (:func:`discretise_box`). Every ``box_grow_every`` observations (:func:`grow`), ``box_grow_points``
new candidates are drawn around certified points, each inside the region that point's own certificate
covers: for a safe ``x`` with ``u_t(x) < 0`` every ``x'`` with ``L d(x, x') <= -u_t(x)`` is certified by the
Lipschitz rule, so a candidate drawn there (at a distance between half that radius and the radius, in
a uniform direction, projected into the box, which brings it no farther) joins the safe set at the next
update, and the set's frontier moves by about that radius each time. The candidates only grow
(appended: every index, interval, count and certificate carries over), up to ``box_max_points``; the
posteriors are rebuilt on the larger set by replaying the observations in order (the same posterior).
All draws come from the learner's generator.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from safebandits.estimators.box_search import uniform_in_box
from safebandits.estimators.gp import PointKernel, kernel_diagonal
from safebandits.exceptions import CannotStartError, Fix
from safebandits.types import FloatArray

__all__ = ["certified_radius", "discretise_box", "grow", "grow_due"]


def _on(points: FloatArray, kernel: PointKernel) -> PointKernel:
    return PointKernel(
        points, kernel.kind, lengthscale=kernel.lengthscale, variance=kernel.variance, nu=kernel.nu
    )


def _view(info: Any, points: FloatArray, n_seed: int) -> Any:
    k = _on(points, info.kernel)
    kg = k if info.constraint_kernel is info.kernel else _on(points, info.constraint_kernel)
    return dataclasses.replace(
        info, kernel=k, constraint_kernel=kg, points=points, safe_seed=tuple(range(n_seed)), box=None
    )


def discretise_box(info: Any, m: int, rng: np.random.Generator, owner: str) -> tuple[Any, FloatArray]:
    """A finite view of a box problem for the Lipschitz safe set: the safe seed's points followed by
    ``m`` points drawn uniformly in the box from ``rng``, with the kernels as
    :class:`~safebandits.estimators.gp.PointKernel` on them. Returns ``(info, points)``."""
    if not info.safe_seed or info.points is None:
        raise CannotStartError.build(
            owner,
            "it grows its safe set from points known to be safe, and the box problem declares no safe seed",
            [
                Fix(
                    "learner",
                    "learner",
                    "ckb-ucb",
                    "CKB (ckb-ucb / ckb-ts / ckb-rand), which needs no safe seed",
                )
            ],
            notes=["safe_seed (points of the box with g <= 0 known in advance)"],
        )
    box = info.box
    seed = np.asarray(info.points, dtype=np.float64)[list(info.safe_seed)]
    pts = np.vstack([seed, uniform_in_box(rng, box.lower, box.upper, m)])
    return _view(info, pts, seed.shape[0]), pts


def certified_radius(kernel: PointKernel, metric: str, reach: FloatArray) -> FloatArray:
    """Euclidean radius ``r`` with ``d(r) = reach`` (``reach = -u_t(x) / L``, the distance ``x``'s own
    certificate covers). Euclidean metric: ``r = reach``. Kernel metric of a stationary kernel:
    ``d(r)^2 = 2 (v - k(r))`` increases with ``r``, inverted by bisection (``inf`` beyond ``sqrt(2 v)``,
    which certifies every point)."""
    reach = np.asarray(reach, dtype=np.float64)
    if metric == "euclidean":
        return reach
    v = kernel.variance
    out = np.full(reach.shape, np.inf)
    ok = reach * reach < 2.0 * v
    if not ok.any():
        return out
    target = v - 0.5 * reach[ok] ** 2  # k(r) = target, k decreasing in r
    lo = np.zeros(target.shape)
    hi = np.full(target.shape, kernel.lengthscale)
    while True:  # grow the bracket until k(hi) <= target everywhere
        short = kernel._of_distance(hi) > target
        if not short.any() or np.max(hi) > 1e6 * kernel.lengthscale:
            break
        hi = np.where(short, 2.0 * hi, hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        above = kernel._of_distance(mid) > target
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    out[ok] = lo
    return out


def grow(learner: Any) -> int:
    """Append up to ``box_grow_points`` candidates around certified points and rebuild the learner's
    per-candidate state on the larger set (module docstring). Returns the number added."""
    c, box = learner.config, learner.box
    n = learner.box_points.shape[0]
    room = min(int(c.box_grow_points), int(c.box_max_points) - n)
    safe = np.flatnonzero(learner.safe)
    margin = -learner.g_upper[safe]
    sources = safe[margin > 0.0]
    if room <= 0 or sources.size == 0:
        return 0
    rng = learner.rng
    kern = learner.info.constraint_kernel
    radius = certified_radius(kern, learner.metric, margin[margin > 0.0] / learner.lipschitz)
    radius = np.minimum(radius, box.diameter)
    pick = rng.integers(0, sources.size, size=room)
    d = box.dim
    direction = rng.standard_normal((room, d))
    direction /= np.maximum(np.linalg.norm(direction, axis=1, keepdims=True), 1e-300)
    r = radius[pick] * (0.5 + 0.5 * rng.random(room))
    new = np.clip(learner.box_points[sources[pick]] + r[:, None] * direction, box.lower, box.upper)
    _rebuild(learner, np.vstack([learner.box_points, new]))
    return room


def _rebuild(learner: Any, points: FloatArray) -> None:
    """The learner's state on ``points`` (the old candidates first, in order): new kernels and views,
    the posteriors replayed, every per-candidate array extended."""
    old_n, n = learner.box_points.shape[0], points.shape[0]
    k = len(learner.info.safe_seed)
    gains = (learner._gain_f, learner._gain_g)
    learner.info = _view(learner.box_info, points, k)
    learner.box_points = points
    lam, lam_g = learner.gp_f.noise_var, learner.gp_g.noise_var
    box = learner.box
    learner._init_gps(learner.config, learner.info, lam, lam_g)  # (a finite view: it sets box = None)
    learner.box = box
    learner._gain_f, learner._gain_g = gains
    for i, r, cval in learner._history:
        learner.gp_f.update(i, r)
        learner.gp_g.update(i, cval)

    def extend(a: np.ndarray, fill: Any) -> np.ndarray:
        out = np.full(n, fill, dtype=a.dtype)
        out[:old_n] = a
        return out

    learner.safe = extend(learner.safe, False)
    learner.g_lower = extend(learner.g_lower, -np.inf)
    learner.g_upper = extend(learner.g_upper, np.inf)
    if hasattr(learner, "f_lower"):  # SafeOpt
        learner.f_lower = extend(learner.f_lower, -np.inf)
        learner.f_upper = extend(learner.f_upper, np.inf)
    if hasattr(learner, "_prior_sd_f"):
        learner._prior_sd_f = np.sqrt(np.maximum(kernel_diagonal(learner.info.kernel), 1e-300))
        learner._prior_sd_g = np.sqrt(np.maximum(kernel_diagonal(learner.info.constraint_kernel), 1e-300))
    learner._scores = np.zeros(n)
    learner._diag = kernel_diagonal(learner.info.constraint_kernel)
    if learner.incremental:
        learner._reach = extend(learner._reach, np.inf)
        learner._sources = sorted(set(learner._sources) | set(np.flatnonzero(learner.safe).tolist()))
    learner._cache_distances()
    learner._intersect()


def grow_due(learner: Any) -> bool:
    """A growth step is due after this observation (every ``box_grow_every`` observations)."""
    every = int(learner.config.box_grow_every)
    return every > 0 and learner.n_samples % every == 0
