"""StageOpt (Sui, Zhuang, Burdick & Yue, ICML 2018), the safe-exploration baseline of Zhou & Ji, Sec. 5.

Safe Bayesian optimisation in two stages from a known safe seed ``S_0`` (digest ``ckb.md`` §4.4, item 1;
the digest's summary of the StageOpt paper). In this package's sign convention the safety function is
``-g`` with threshold 0:

* confidence intervals of ``g`` intersected over time, ``C_t = C_{t-1} n [mu~ -+ beta~ sigma~]`` with ends
  ``l_t`` and ``u_t``;
* Lipschitz safe set ``S_t = S_{t-1} u {x' : exists x in S_{t-1}, u_t(x) + L d(x, x') <= 0}``;
* expanders ``G_t = {x in S_t : e_t(x) > 0}``, ``e_t(x) = |{x' not in S_t : l_t(x) + L d(x, x') <= 0}|``
  (unsafe points ``x`` could certify if its optimistic value were observed);
* **stage 1** (safe expansion) for ``T_0`` rounds, or until no expander is left or every expander's
  interval is narrower than ``width_tol``: ``x_t = argmax_{G_t} (u_t - l_t)``;
* **stage 2** (optimisation): GP-UCB on ``f`` in the safe set, ``x_t = argmax_{S_t} mu + beta sigma``
  (the safe set keeps growing from the new data).

Parameters the paper leaves open (documented in ``docs/decisions/ckb.md``): ``L`` (default ``G``: with the
kernel metric ``d(x, x') = ||k(x, .) - k(x', .)||`` every ``g`` with ``||g||_k <= G`` is ``G``-Lipschitz),
the metric (kernel-induced by default; Euclidean on ``info.points`` as an option, and the default when
the problem declares a Lipschitz constant, ``info.lipschitz``), ``T_0`` (a fraction of
``T``), ``beta_t`` (CKB's formula and options) and the seed (told by the instance). Cost per round
``O(|S| |S^c|)`` for the set updates at most (the matrix ``L d`` is kept up to
:data:`DISTANCE_CACHE_POINTS` points; above, no ``n x n`` matrix since issue 40: with coordinates only
the pairs that can certify are computed, found with a k-d tree, else the distances a block of safe
points at a time; the same sets either way), plus the two posterior updates (``O(min(t, n) n)``,
:class:`~safebandits.estimators.gp.FiniteGP`).

``safe_set="incremental"`` (an option; issue 33) keeps the set in ``O(n)`` time per source: each round
only the point just observed and the points certified the round before are *sources* (one distance row
each, ``O(n)`` from a kernel column), and every point keeps the best certificate
``min_sources u_s(x) + L d(x, x')`` seen so far. The intervals are intersected, so ``u_s(x) >= u_t(x)``
and an old certificate stays an upper bound of ``g(x')`` whenever the intervals hold: the incremental set
is a subset of the paper's (as safe, possibly smaller). The expanders are the same set as the paper's
(``l(x) + L min_{x' not in S} d(x, x') <= 0``), with the distance to the nearest unsafe point from a k-d
tree on the coordinates where the metric allows (Euclidean, or a stationary
:class:`~safebandits.estimators.gp.PointKernel`, whose kernel metric is increasing in the Euclidean
distance), else by blocks.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np

from safebandits._limits import MAX_KERNEL_POINTS
from safebandits._validation import check_int, check_interval, check_positive
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret._ckb_common import RoundDraws, _pick
from safebandits.algorithms.regret.ckb import (
    GPBanditConfig,
    SafeSeedGPLearner,
    reward_and_constraint,
)
from safebandits.algorithms.regret.safe_box import discretise_box, grow, grow_due
from safebandits.estimators.gp import (
    PointKernel,
    kernel_block,
    kernel_column,
    kernel_diagonal,
)
from safebandits.exceptions import ConfigError
from safebandits.records import ArmEstimates, Certificate
from safebandits.types import Decision, FloatArray

__all__ = ["LipschitzSafeLearner", "SafeSetConfig", "StageOpt", "StageOptConfig"]

#: Elements of one block of distances in the updates of ``safe_set="full"`` (2 MB of float64): the
#: ``|S| x n`` work is done a block of safe points at a time (issue 40).
BLOCK_ELEMENTS = 250_000
#: ``safe_set="full"`` keeps the matrix ``L d(x, x')`` on domains of at most this many points (32 MB at
#: most: cheaper rounds) and computes it a block at a time above (no ``n x n`` matrix); both give the same
#: numbers, element for element.
DISTANCE_CACHE_POINTS = 2048


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SafeSetConfig(GPBanditConfig):
    """The safe-set fields StageOpt and SafeOpt share (see :class:`StageOptConfig` for their meaning)."""

    lipschitz: float | None = None
    metric: Literal["kernel", "euclidean"] = "kernel"
    safe_set: Literal["full", "incremental"] = "full"
    box_points: int = 1000
    box_grow_every: int = 10
    box_grow_points: int = 50
    box_max_points: int = 2000

    def __post_init__(self) -> None:
        GPBanditConfig.__post_init__(self)  # (zero-argument super() fails in slotted dataclasses)
        owner = type(self).__name__
        if self.lipschitz is not None:
            check_positive(self.lipschitz, "lipschitz", owner=owner)
        check_int(self.box_points, "box_points", low=1, high=MAX_KERNEL_POINTS, owner=owner)
        check_int(self.box_grow_every, "box_grow_every", low=0, owner=owner)
        check_int(self.box_grow_points, "box_grow_points", low=1, high=MAX_KERNEL_POINTS, owner=owner)
        check_int(self.box_max_points, "box_max_points", low=1, high=MAX_KERNEL_POINTS, owner=owner)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class StageOptConfig(SafeSetConfig):
    """Configuration of :class:`StageOpt`.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Failure probability in ``beta_t`` (CKB's formula).
    gp_noise : float > 0 or "theory", default 1.0
        ``lambda`` of both surrogate GPs.
    info_gain : {"heuristic", "greedy", "realised"}, default "heuristic"
    beta_scale : float > 0, default 1.0
    lipschitz : float > 0 or None, default None
        ``L`` of ``g`` for the metric (``None``: the problem's declared ``info.lipschitz`` with the
        Euclidean metric if it has one, else ``G``).
    metric : {"kernel", "euclidean"}, default "kernel"
        ``d``: kernel-induced, or Euclidean on the points' coordinates (needs ``info.points``).
    expansion_fraction : float in [0, 1], default 0.1
        ``T_0 = ceil(expansion_fraction * T)`` rounds of stage 1.
    expansion_rounds : int >= 0 or None, default None
        ``T_0`` directly (overrides the fraction).
    width_tol : float >= 0, default 0.0
        Stage 1 ends early once every expander's safety interval is narrower than this.
    horizon : int >= 1 or None, default None
    posterior : {"auto", "dense", "lowrank"}, default "auto"
        As CKB's (:class:`~safebandits.algorithms.regret.ckb.GPBanditConfig`).
    safe_set : {"full", "incremental"}, default "full"
        ``"full"``: the paper's construction, every safe point a source every round (``O(|S| n)`` per
        round, distances by blocks); ``"incremental"``: the point observed and the new safe
        points as sources (``O(n)`` per source, no matrix; a subset of the paper's set; module docstring).
    box_points : int >= 1, default 1000
        On a box (``info.box``): the safe set is grown on the safe seed plus this many points drawn
        uniformly in the box from the learner's generator at the start
        (:func:`~safebandits.algorithms.regret.safe_box.discretise_box`); every point played is one of the
        candidates and certified safe as on a finite domain.
    box_grow_every : int >= 0, default 10
        On a box: every that many observations, ``box_grow_points`` candidates are added around
        certified points, inside the region their own certificates cover
        (:func:`~safebandits.algorithms.regret.safe_box.grow`); 0: the initial candidates only.
    box_grow_points : int >= 1, default 50
    box_max_points : int >= 1, default 2000
        Most candidates (each round's set update is ``O(|S| n)``).
    """

    expansion_fraction: float = 0.1
    expansion_rounds: int | None = None
    width_tol: float = 0.0

    def __post_init__(self) -> None:
        SafeSetConfig.__post_init__(self)
        owner = type(self).__name__
        check_interval(
            self.expansion_fraction, "expansion_fraction", low=0.0, high=1.0, closed="both", owner=owner
        )
        if self.expansion_rounds is not None:
            check_int(self.expansion_rounds, "expansion_rounds", low=0, owner=owner)
        check_positive(self.width_tol, "width_tol", owner=owner, allow_zero=True)


class LipschitzSafeLearner(SafeSeedGPLearner):
    """The safe set StageOpt and SafeOpt share: intersected confidence intervals of ``g`` (``l_t``,
    ``u_t``), the Lipschitz safe set ``S_t`` grown from the safe seed, and the expanders ``G_t`` (module
    docstring; ``safe_set="incremental"`` for the variant with ``O(n)`` sources)."""

    owner = "Lipschitz safe learner"

    def __init__(self, config: SafeSetConfig, info: Any, rng: np.random.Generator) -> None:
        box = getattr(info, "box", None)
        #: On a box: the coordinates of the candidate points (the safe seed first), else ``None``.
        self.box_points: FloatArray | None = None
        if box is not None:
            #: On a box: the problem's own view (the candidates' views are made from it).
            self.box_info = info
            info, self.box_points = discretise_box(info, config.box_points, rng, self.owner)
            #: On a box: the observations ``(candidate, reward, constraint)`` in order (replayed when the
            #: candidates grow).
            self._history: list[tuple[int, float, float]] = []
        super().__init__(config, info, rng)
        #: The continuous domain the candidates were drawn in (``None``: a finite domain).
        self.box = box
        info = self.info
        c = config
        n = info.n_points
        # A Lipschitz constant declared with the problem (Euclidean metric on its points) serves when
        # the learner's own option is unset (docs/decisions/engine.md, "Covariate declarations").
        told_l = getattr(info, "lipschitz", None) if c.lipschitz is None else None
        #: The metric in use: the option's, or Euclidean for a declared Lipschitz constant.
        self.metric = "euclidean" if told_l is not None else c.metric
        if self.metric == "euclidean" and info.points is None:
            raise ConfigError(f"{self.owner}: metric='euclidean' needs point coordinates (info.points).")
        if c.hyperparameters != "known":
            raise ConfigError(
                f"{self.owner}: hyperparameters='ml' is not supported (its Lipschitz safe set is built on "
                "the known kernel's metric); use CKB or SGP-UCB for fitted hyperparameters."
            )
        self.lipschitz = float(
            c.lipschitz
            if c.lipschitz is not None
            else told_l
            if told_l is not None
            else info.constraint_bound
        )
        self.incremental = c.safe_set == "incremental"
        self._diag = kernel_diagonal(info.constraint_kernel)
        if self.incremental:
            self._reach = np.full(n, np.inf)  # best certificate min_s u_s(x) + L d(x, .) seen so far
            self._sources = list(info.safe_seed)  # sources of the next set update
        self._cache_distances()
        self.safe = np.zeros(n, dtype=bool)
        self.safe[list(info.safe_seed)] = True
        self.g_lower = np.full(n, -np.inf)
        self.g_upper = np.full(n, np.inf)
        self._draws = RoundDraws(rng)
        self._scores = np.zeros(n)
        self._intersect()

    # -- sets ---------------------------------------------------------------------------------------
    def _intersect(self) -> None:
        """``C_t = C_{t-1} n Q_t`` for ``g``, then the Lipschitz expansion of the safe set."""
        _, beta_g = self.betas()
        sg = self.gp_g.std()
        np.maximum(self.g_lower, self.gp_g.mean - beta_g * sg, out=self.g_lower)
        np.minimum(self.g_upper, self.gp_g.mean + beta_g * sg, out=self.g_upper)
        if self.incremental:
            sources, self._sources = sorted(set(self._sources)), []
            for x in sources:
                np.minimum(
                    self._reach, self.g_upper[x] + self.lipschitz * self._distance_row(x), out=self._reach
                )
            new = (self._reach <= 0.0) & ~self.safe
            self.safe |= new
            self._sources.extend(np.flatnonzero(new).tolist())
            return
        u = np.flatnonzero(~self.safe)
        if u.size == 0:
            return
        s = np.flatnonzero(self.safe)
        s = s[self.g_upper[s] <= 0.0]  # (u + L d >= u: a source above 0 certifies nothing)
        coords = self._coordinates() if self._ld is None else None
        if coords is not None and s.size:
            self.safe[u[self._certified_near(s, u, coords)]] = True
            return
        reach = np.full(u.size, np.inf)  # min over the safe points, a block of them at a time
        for rows in self._blocks(s, u.size):
            block = self.g_upper[rows, None] + self._ld_block(rows, u)
            np.minimum(reach, block.min(axis=0), out=reach)
        self.safe[u[reach <= 0.0]] = True

    def _coordinates(self) -> tuple[FloatArray, PointKernel | None] | None:
        """``(points, kernel)`` when ``d`` is computed from coordinates (``kernel`` ``None`` for the
        Euclidean metric, a :class:`~safebandits.estimators.gp.PointKernel` for its kernel metric), else
        ``None`` (a kernel given as a matrix)."""
        kern = self.info.constraint_kernel
        if self.metric != "euclidean" and not isinstance(kern, PointKernel):
            return None
        pts = np.asarray(self.info.points if self.metric == "euclidean" else kern.points, dtype=np.float64)
        return (pts[:, None] if pts.ndim == 1 else pts), (None if self.metric == "euclidean" else kern)

    def _radius(self, m: FloatArray, coords: tuple[FloatArray, PointKernel | None]) -> FloatArray:
        """A Euclidean radius beyond which ``d`` exceeds ``m`` for certain (``d`` increases with the
        Euclidean distance; margins cover round-off; ``inf`` where the whole domain is within ``m``)."""
        pts, kern = coords
        if kern is None:
            return m * (1.0 + 1e-6) + 1e-9
        v = kern.variance
        m = m * (1.0 + 1e-6) + 1e-6 * math.sqrt(v)  # (d = sqrt(2v - 2k) loses digits near 0)

        def dist(r: FloatArray) -> FloatArray:
            return np.sqrt(np.maximum(v + v - 2.0 * kern._of_distance(r), 0.0))

        hi = np.full(m.shape, float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0))) * 1.01 + 1e-9)
        whole = dist(hi) <= m
        lo = np.zeros_like(hi)
        for _ in range(60):  # bisection: dist(lo) <= m < dist(hi)
            mid = 0.5 * (lo + hi)
            above = dist(mid) > m
            hi, lo = np.where(above, mid, hi), np.where(above, lo, mid)
        return np.where(whole, np.inf, hi * (1.0 + 1e-9) + 1e-12)

    def _pair_distance(self, a: np.ndarray, b: np.ndarray, coords: tuple) -> FloatArray:
        """``d(x_a[i], x_b[i])`` for index arrays of one length: element for element
        :meth:`distance_block`'s numbers."""
        pts, kern = coords
        r = np.sqrt(np.maximum(((pts[a] - pts[b]) ** 2).sum(-1), 0.0))
        if kern is None:
            return r
        return np.sqrt(np.maximum(self._diag[a] + self._diag[b] - 2.0 * kern._of_distance(r), 0.0))

    def _certified_near(self, s: np.ndarray, u: np.ndarray, coords: tuple) -> np.ndarray:
        """Mask over ``u``: certified by some source of ``s``, ``u_t(x) + L d(x, x') <= 0``, testing only the
        pairs within each source's radius (:meth:`_radius`; a k-d tree): the same set as every pair."""
        from scipy.spatial import cKDTree

        pts = coords[0]
        tree = cKDTree(pts[u])
        radius = self._radius(-self.g_upper[s] / self.lipschitz, coords)
        near, _ = tree.query(pts[s])
        keep = near <= radius
        s, radius = s[keep], radius[keep]
        out = np.zeros(u.size, dtype=bool)
        for a in range(0, s.size, 256):
            balls = tree.query_ball_point(pts[s[a : a + 256]], np.minimum(radius[a : a + 256], 1e300))
            sizes = np.fromiter((len(b) for b in balls), dtype=np.int64, count=len(balls))
            if not sizes.sum():
                continue
            cols = np.concatenate([np.asarray(b, dtype=np.int64) for b in balls])
            rows = np.repeat(s[a : a + 256], sizes)
            ok = (self.g_upper[rows] + self.lipschitz * self._pair_distance(rows, u[cols], coords)) <= 0.0
            out[cols[ok]] = True
        return out

    def _lipschitz_set(self) -> bool:
        """Whether the learner keeps the Lipschitz safe set (SafeOpt's ``variant="berkenkamp"`` does not)."""
        return True

    def _cache_distances(self) -> None:
        """``safe_set="full"`` on at most :data:`DISTANCE_CACHE_POINTS` points: the matrix ``L d`` once
        (``self._ld``); else ``None`` (blocks each round)."""
        n = self.info.n_points
        self._ld: FloatArray | None = None
        if self.incremental or not self._lipschitz_set() or n > DISTANCE_CACHE_POINTS:
            return
        every = np.arange(n)
        self._ld = np.empty((n, n))
        for rows in self._blocks(every, n):
            self._ld[rows] = self.lipschitz * self.distance_block(rows, every)

    def _ld_block(self, rows: np.ndarray, cols: np.ndarray) -> FloatArray:
        """``L d(x_r, x_c)``: from the cached matrix, or computed."""
        if self._ld is not None:
            return self._ld[np.ix_(rows, cols)]
        return self.lipschitz * self.distance_block(rows, cols)

    def _blocks(self, rows: np.ndarray, n_cols: int) -> Any:
        """``rows`` in consecutive pieces of at most :data:`BLOCK_ELEMENTS` ``/ n_cols`` rows."""
        step = max(1, BLOCK_ELEMENTS // max(1, n_cols))
        for a in range(0, rows.shape[0], step):
            yield rows[a : a + step]

    def distance_block(self, rows: np.ndarray, cols: np.ndarray) -> FloatArray:
        """``d(x_r, x_c)`` (m, p) for index arrays ``rows``, ``cols``: Euclidean on the coordinates, or
        the kernel metric ``sqrt(k(x, x) + k(x', x') - 2 k(x, x'))``; each element computed on its own
        (a :class:`~safebandits.estimators.gp.PointKernel` from the coordinates' differences, not through
        a matrix product), so that any block holds the same numbers as the whole matrix."""
        kern = self.info.constraint_kernel
        if self.metric == "euclidean" or isinstance(kern, PointKernel):
            pts = np.asarray(
                self.info.points if self.metric == "euclidean" else kern.points, dtype=np.float64
            )
            pts = pts[:, None] if pts.ndim == 1 else pts
            r = np.sqrt(np.maximum(((pts[rows, None, :] - pts[None, cols, :]) ** 2).sum(-1), 0.0))
            if self.metric == "euclidean":
                return r
            k = kern._of_distance(r)
        else:
            k = kernel_block(kern, rows, cols)
        return np.sqrt(np.maximum(self._diag[rows, None] + self._diag[None, cols] - 2.0 * k, 0.0))

    def _distance_row(self, x: int) -> FloatArray:
        """``d(x, .)`` (n,) without a matrix: Euclidean on the coordinates, or the kernel metric
        ``sqrt(k(x, x) + k(x', x') - 2 k(x, x'))`` from one kernel column."""
        if self.metric == "euclidean":
            diff = np.asarray(self.info.points, dtype=np.float64) - np.asarray(self.info.points)[x]
            return np.sqrt(np.einsum("ij,ij->i", diff, diff))
        col = kernel_column(self.info.constraint_kernel, x)
        return np.sqrt(np.maximum(self._diag[x] + self._diag - 2.0 * col, 0.0))

    def _nearest_unsafe(self, s: np.ndarray, u: np.ndarray) -> FloatArray:
        """``min_{x' in u} d(x, x')`` for every ``x`` in ``s`` without an ``n x n`` matrix."""
        kern = self.info.constraint_kernel
        euclid = self.metric == "euclidean"
        if euclid or isinstance(kern, PointKernel):
            from scipy.spatial import cKDTree

            pts = np.asarray(self.info.points if euclid else kern.points, dtype=np.float64)
            pts = pts[:, None] if pts.ndim == 1 else pts
            r, _ = cKDTree(pts[u]).query(pts[s])
            if euclid:
                return r
            k_r = kern._of_distance(np.asarray(r, dtype=np.float64))  # stationary: d increases with r
            return np.sqrt(np.maximum(2.0 * kern.variance - 2.0 * k_r, 0.0))
        out = np.empty(s.shape[0])
        step = max(1, 2_000_000 // max(1, u.shape[0]))
        for a in range(0, s.shape[0], step):
            rows = s[a : a + step]
            d2 = self._diag[rows, None] + self._diag[None, u] - 2.0 * kernel_block(kern, rows, u)
            out[a : a + step] = np.sqrt(np.maximum(d2.min(axis=1), 0.0))
        return out

    def expanders(self) -> np.ndarray:
        """Boolean mask of ``G_t``: safe points whose optimistic value would certify an unsafe point."""
        s = np.flatnonzero(self.safe)
        unsafe = ~self.safe
        if not unsafe.any():
            return np.zeros_like(self.safe)
        if self.incremental:
            near = self._nearest_unsafe(s, np.flatnonzero(unsafe))
            mask = np.zeros_like(self.safe)
            mask[s[self.g_lower[s] + self.lipschitz * near <= 0.0]] = True
            return mask
        u = np.flatnonzero(unsafe)
        mask = np.zeros_like(self.safe)
        s = s[self.g_lower[s] <= 0.0]  # (l + L d >= l)
        coords = self._coordinates() if self._ld is None else None
        if coords is not None and s.size:
            from scipy.spatial import cKDTree

            # l + L d <= 0 for some unsafe point iff it holds at the nearest (l + L d increases with d, and
            # d with the Euclidean distance): the unsafe points at the nearest distance up to round-off
            pts = coords[0]
            tree = cKDTree(pts[u])
            near, _ = tree.query(pts[s])
            balls = tree.query_ball_point(pts[s], near * (1.0 + 1e-9) + 1e-12)
            sizes = np.fromiter((len(b) for b in balls), dtype=np.int64, count=len(balls))
            cols = u[np.concatenate([np.asarray(b, dtype=np.int64) for b in balls])]
            rows = np.repeat(np.arange(s.size), sizes)
            d = self._pair_distance(s[rows], cols, coords)
            dmin = np.full(s.size, np.inf)
            np.minimum.at(dmin, rows, d)
            mask[s[(self.g_lower[s] + self.lipschitz * dmin) <= 0.0]] = True
            return mask
        for rows in self._blocks(s, u.size):
            cert = (self.g_lower[rows, None] + self._ld_block(rows, u)) <= 0.0
            mask[rows[cert.any(axis=1)]] = True
        return mask

    def safe_set(self) -> np.ndarray:
        return self.safe.copy()

    def _certificate(self, decision: Decision) -> Certificate:
        """``S_t``, the Lipschitz safe set the choice was made in (on a box: over the candidates); every
        choice of StageOpt and SafeOpt is one of its points (issue 40)."""
        return Certificate(
            kind="safe-set", round=self.n_samples + 1, safe_arms=self.safe.copy(),
            basis="S_t: Lipschitz safe set grown from the safe seed (intersected intervals of g)",
        )  # fmt: skip

    def _played(self, i: int) -> Decision:
        """The decision of candidate ``i``: its index, and on a box its coordinates too."""
        if self.box_points is None:
            return Decision(arm=i)
        return Decision(arm=i, point=self.box_points[i].copy())

    def cancel(self) -> None:
        super().cancel()
        self._draws.give_back()

    def _tell(self, decision: Decision, observation: Any) -> None:
        reward, constraint = reward_and_constraint(observation, self.owner)
        i = int(decision.arm)
        self.gp_f.update(i, reward)
        self.gp_g.update(i, constraint)
        if self.incremental:
            self._sources.append(i)
        self._intersect()
        if self.box_points is not None:
            self._history.append((i, reward, constraint))
            if grow_due(self):
                grow(self)

    def arm_estimates(self) -> ArmEstimates:
        """As CKB's (:meth:`GPPairLearner.arm_estimates`), with ``g``'s interval the intersected safety
        interval ``[l_t, u_t]`` the learner acts on (the posterior mean clipped into it)."""
        est = super().arm_estimates()
        lower, upper = est.lower.copy(), est.upper.copy()
        lower[:, 1], upper[:, 1] = self.g_lower, self.g_upper
        value = est.estimate.copy()
        value[:, 1] = np.clip(self.gp_g.mean, self.g_lower, self.g_upper)
        how = "GP posterior mean -+ beta_t sigma_t; g's interval intersected over rounds; safe when u_t <= 0"
        return ArmEstimates(est.quantities, value, lower, upper, est.thresholds, est.unit, how)

    @property
    def g_bounds(self) -> tuple[FloatArray, FloatArray]:
        """The intersected safety intervals ``(l_t, u_t)`` of ``g``."""
        return self.g_lower.copy(), self.g_upper.copy()


@register_algorithm(
    "stageopt",
    task="regret",
    description="StageOpt: Lipschitz safe expansion from a safe seed, then GP-UCB in the safe set "
    "(Sui et al. 2018; baseline of Zhou & Ji, Sec. 5).",
    info="kernel",
    guarantee="round",
    assumptions=("rkhs", "noise", "safe-action"),
)
class StageOpt(LipschitzSafeLearner):
    """StageOpt on a finite domain with a known safe seed (a hard-constraint baseline).

    Parameters
    ----------
    config : StageOptConfig
    info : KernelInfo
        Kernels, bounds, horizon and ``safe_seed`` (non-empty).
    rng : numpy.random.Generator
        Tie-breaking uniforms only.

    Notes
    -----
    Glossary: ``S_t`` -> ``self.safe``; ``l_t, u_t`` -> ``self.g_lower, self.g_upper``; ``G_t`` ->
    :meth:`expanders`; ``T_0`` -> ``self.expansion_rounds``; ``L`` -> ``self.lipschitz``.
    Applicability: per-round safety holds only if ``g`` is ``L``-Lipschitz for ``d`` and the intervals
    hold; with ``L = G`` and the kernel metric that needs ``||g||_k <= G``, which the experiments' ``G =
    max |g|`` does not guarantee.
    """

    config_cls = StageOptConfig
    setting = "round"
    owner = "StageOpt"

    def __init__(self, config: StageOptConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        c = config
        self.expansion_rounds = (
            int(c.expansion_rounds)
            if c.expansion_rounds is not None
            else math.ceil(c.expansion_fraction * self.horizon)
        )
        self.stage = 1 if self.expansion_rounds > 0 else 2
        self.stage_switch = 0 if self.stage == 2 else None

    def diagnostics(self) -> dict[str, Any]:
        return {
            "safe_set_size": int(self.safe.sum()),
            "stage": self.stage,
            "stage_switch": self.stage_switch,
            "expansion_rounds": self.expansion_rounds,
            "lipschitz": self.lipschitz,
        }

    # -- protocol -----------------------------------------------------------------------------------
    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError("StageOpt plays a fixed finite domain; ask() takes no context.")
        u, _ = self._draws.next()
        scores = self._scores
        if self.stage == 1:
            exp = self.expanders()
            width = self.g_upper - self.g_lower
            if (not exp.any() or np.max(width[exp]) <= self.config.width_tol
                    or self.n_samples >= self.expansion_rounds):  # fmt: skip
                self.stage, self.stage_switch = 2, self.n_samples
            else:
                scores[:] = np.where(exp, width, -np.inf)
        if self.stage == 2:
            beta, _ = self.betas()
            scores[:] = np.where(self.safe, self.gp_f.mean + beta * self.gp_f.std(), -np.inf)
        return self._played(int(_pick(scores, float(np.max(scores)), u)))
