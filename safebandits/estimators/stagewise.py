"""Shared linear estimators of stage-wise constrained bandits (Pacchiano, Ghavamzadeh & Bartlett, Sec. 2-4).

Reward (eq. 3-4): ridge regression ``theta_hat = Sigma^{-1} b_r`` with ``Sigma = lambda I + sum x x^T``,
``Sigma^{-1}`` kept by Sherman--Morrison rank-one updates.

Cost (eq. 4), *projected* estimator: the cost along ``e0 = x0 / ||x0||`` is known (``c0 / ||x0||`` per
unit), so only ``mu^{o,perp}`` is estimated. Without pseudo-inverses (spec ``stagewise.md`` Sec. 2.1):
``U`` is an orthonormal basis of ``e0^perp`` (``U = I`` when ``x0 = 0``), ``z = U^T x``,
``M = lambda I + sum z z^T`` and, per constraint ``i``, ``b_c^(i) = sum C^perp_i z`` with
``C^perp_i = C_i - <x, e0> c0_i / ||x0||``; then ``mu_hat^{o,perp}_i = U M^{-1} b_c^(i)``,
``(Sigma^{o,perp})^dagger = U M^{-1} U^T`` and ``||x^{o,perp}||_{(Sigma^{o,perp})^dagger} = ||z||_{M^{-1}}``.

*Full* estimator (unknown ``r0, c0``; Remark 12, App. F.1): ``mu_i`` is estimated in all ``d`` directions
with the full ``Sigma`` (``U = I``, no known part), like ``theta``.

Closed forms (Prop. 11), for many points at once:

* ``V~r(x) = <x, theta_hat> + alpha_r beta_t(delta, d) ||x||_{Sigma^{-1}}``                       (9)
* ``V~c_i(x) = <x, e0> c0_i / ||x0|| + <z, nu_i> + alpha_c beta_t(delta, d-1) ||z||_{M^{-1}}``     (10)

with ``nu_i = M^{-1} b_c^(i)``. Along a ray ``y(a) = x0 + a (x - x0)`` the projected ``V~c_i`` is affine,
``(1 - a) c0_i + a V~c_i(x)`` (eq. 18), so the largest pessimistically feasible point of the ray
(Lemma 14) is ``a* = min(1, min_i (tau_i - c0_i) / (V~c_i(x) - c0_i))`` over the constraints with
``V~c_i(x) > tau_i``. For the full estimator (``x0 != 0``) ``V~c_i`` is only convex along the ray and
``a*`` is found by bisection.

The per-round kernels are module-level ``numba.njit`` functions acting in place on the arrays of a
typed record, :class:`StagewiseState` (:attr:`StagewiseEstimator.state`: named arrays, the fixed
settings :class:`StagewiseConstants` and a record of the scalars that change), so that learners' ask /
tell paths and compiled simulation loops run the same code. Every ``refresh_every`` updates the inverses
are recomputed exactly (Cholesky) from the Gram matrices.

Deviations (see ``docs/decisions/stagewise.md``): with ``radii="theory"`` each of the ``1 + m`` confidence
sets is built at level ``delta / (1 + m)`` so that the joint event of eq. (12) has probability
``>= 1 - delta`` (the paper uses ``delta`` for each); ``beta_t(delta, d)`` is used for the cost when
``x0 = 0`` (no known direction) and for the full estimator.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Literal, NamedTuple, get_args

import numba
import numpy as np

from safebandits._numba import Rebinding
from safebandits._validation import check_array, check_choice, check_int, check_interval, check_positive
from safebandits.estimators.confidence import adaptive_width_scalar
from safebandits.estimators.ridge import cholesky_inverse
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "RADII",
    "STAGEWISE_LIVE",
    "StagewiseConstants",
    "StagewiseEstimator",
    "StagewiseState",
    "VertexTable",
    "confidence_radii",
    "orthonormal_complement",
    "ray_scale",
    "refresh_due",
    "stagewise_refresh",
    "stagewise_update",
    "stagewise_update_table",
    "table_update",
    "vertex_table",
]

#: Confidence radii: ``"theory"`` (Thm. 10 with alpha's) or ``"code"`` (the authors' code, spec 2.8).
Radii = Literal["theory", "code"]
RADII: tuple[str, ...] = get_args(Radii)
#: Noise constant hard-coded in the authors' code radius.
CODE_NOISE = 2.0
#: Bisection steps of the full estimator's ray scaling (to machine precision on [0, 1]).
BISECTION_STEPS = 60


class StagewiseConstants(NamedTuple):
    """Fixed settings of a :class:`StagewiseEstimator` (read by the compiled kernels)."""

    d: int  #: dimension of the actions
    dp: int  #: ``d'``: dimension of the cost estimator (``d - 1`` projected, ``d`` shared)
    m: int  #: number of constraints
    full: bool  #: unknown ``c0``: the full estimator (Remark 12)
    shared: bool  #: the cost Gram matrix is ``Sigma`` itself (``x0 = 0`` or the full estimator)
    refresh_every: int  #: exact recompute of the inverses every this many updates (0: never)
    code_radii: bool  #: ``radii="code"`` (the authors' log-det radius) rather than Thm. 10's
    x0_zero: bool  #: ``x0 = 0``
    reg: float  #: ridge regulariser ``lambda``
    delta_r: float  #: level of the reward confidence set
    delta_c: float  #: level of each cost confidence set
    noise_bound: float  #: ``R``
    arm_norm_bound: float  #: ``L``
    param_norm_bound: float  #: ``S``
    reward_scale: float  #: multiplier of the reward radius' noise part (code radii)


#: The scalars of a :class:`StagewiseState` that change: rounds so far ``t`` and since the last exact
#: refresh, the log-determinants of ``Sigma`` and ``M``, the last rank-one update's denominators
#: ``c = 1 + x^T Sigma^{-1} x``, ``c_M`` and reward coefficient, and the radius scalings ``alpha_r``,
#: ``alpha_c`` of eq. (5). One numpy record, written in place by the kernels and the estimator.
STAGEWISE_LIVE = np.dtype(
    [("t", np.int64), ("since_refresh", np.int64), ("logdet_sigma", np.float64), ("logdet_m", np.float64),
     ("c", np.float64), ("c_m", np.float64), ("coef_r", np.float64), ("alpha_r", np.float64),
     ("alpha_c", np.float64)]
)  # fmt: skip


class StagewiseState(NamedTuple):
    """The arrays and scalars the compiled kernels act on, in place (never rebound).

    Reward (eq. 3-4): ``sigma_inv`` ``Sigma^{-1}``, ``sigma`` ``Sigma``, ``b_r`` ``sum R x``, ``theta``
    ``theta_hat``. Cost: ``m_inv`` / ``m_gram`` ``M^{-1}`` / ``M`` (empty in the shared layout), ``b_c``
    and ``nu`` (m, d') the targets and ``nu_i = M^{-1} b_c^(i)``; ``basis`` ``U``, ``e0``, ``kappa``
    ``c0 / ||x0||``, ``c0``, ``tau``. Work vectors of the updates: ``u`` (``Sigma^{-1} x``), ``u_table``
    (the vertex table's), ``z`` (``U^T x``), ``mz`` (``M^{-1} z``) and ``cost_coef`` (the cost RLS
    coefficients). ``const``: :class:`StagewiseConstants`; ``live``: a one-element array of dtype
    :data:`STAGEWISE_LIVE` whose record ``live[0]`` the kernels read and write (an array, not the record:
    numba unboxes it ten times faster on the ask / tell path). LC-LUCB's ask / tell path passes it by
    reference (:func:`~safebandits._numba.by_reference`: one object to unbox, not twenty arrays).
    """

    sigma_inv: np.ndarray
    sigma: np.ndarray
    b_r: np.ndarray
    theta: np.ndarray
    m_inv: np.ndarray
    m_gram: np.ndarray
    b_c: np.ndarray
    nu: np.ndarray
    basis: np.ndarray
    e0: np.ndarray
    kappa: np.ndarray
    c0: np.ndarray
    tau: np.ndarray
    u: np.ndarray
    u_table: np.ndarray
    z: np.ndarray
    mz: np.ndarray
    cost_coef: np.ndarray
    const: StagewiseConstants
    live: Any


class VertexTable(NamedTuple):
    """Per-vertex table of ``x0`` (row 0) and the vertices (:meth:`StagewiseEstimator.make_table`): for
    each row ``x_r`` the terms of ``V~r(x_r)`` (eq. 9) and ``V~c_i(x_r)`` (eq. 10) that the selection
    combines (:func:`vertex_table` computes them, :func:`table_update` keeps them current).

    Row 0 is ``x0``, row ``i + 1`` vertex ``i``.
    """

    vx: np.ndarray  #: (n, d) the points ``x_r``
    vxt: np.ndarray  #: (d, n) their transpose
    vz: np.ndarray  #: (n, d') ``z_r = U^T x_r`` (empty in the shared layout)
    vzt: np.ndarray  #: (d', n) its transpose
    sxx: np.ndarray  #: (n,) ``x_r^T Sigma^{-1} x_r``
    s0x: np.ndarray  #: (n,) ``x0^T Sigma^{-1} x_r``
    rx: np.ndarray  #: (n,) ``<x_r, theta_hat>``
    qc: np.ndarray  #: (n,) ``||z_r||^2_{M^{-1}}`` (``sxx`` in the shared layout)
    lin: np.ndarray  #: (n, m) ``kappa_i <x_r, e0> + <z_r, nu_i>``: the linear part of ``V~c_i(x_r)``
    w: np.ndarray  #: (n,) work: ``x_r^T Sigma^{-1} x_t`` of the rank-one update
    w2: np.ndarray  #: (n,) work: ``z_r^T M^{-1} z_t``


def orthonormal_complement(x0: FloatArray) -> tuple[FloatArray, FloatArray, float]:
    """``(U, e0, ||x0||)``: an orthonormal basis ``U`` (d, d-1) of ``e0^perp`` from a QR of ``[e0, I]``.

    If ``x0 = 0``, ``V_o`` is empty (footnote 2): ``U = I_d`` and ``e0 = 0``.
    """
    x0 = np.asarray(x0, dtype=np.float64)
    d = x0.shape[0]
    norm = float(np.linalg.norm(x0))
    if norm == 0.0:
        return np.eye(d), np.zeros(d), 0.0
    e0 = x0 / norm
    q, _ = np.linalg.qr(np.column_stack([e0, np.eye(d)]))
    u = q[:, 1:d]
    u -= np.outer(e0, e0 @ u)  # re-orthogonalise against e0 (one Gram-Schmidt pass)
    u, _ = np.linalg.qr(u)
    return np.ascontiguousarray(u), e0, norm


@functools.lru_cache(maxsize=256)
def _complement_of(x0_bytes: bytes) -> tuple[FloatArray, FloatArray, float]:
    """:func:`orthonormal_complement` of the float64 vector with these bytes, computed once per ``x0``
    (a pure function of it: every learner of a problem shares the read-only result)."""
    basis, e0, norm = orthonormal_complement(np.frombuffer(x0_bytes, dtype=np.float64))
    basis.flags.writeable = False
    e0.flags.writeable = False
    return basis, e0, norm


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def stagewise_refresh(est):
    """Exact recompute of ``Sigma^{-1}``, ``M^{-1}`` (Cholesky), the estimates and the log-determinants."""
    sinv, sig, br, theta = est.sigma_inv, est.sigma, est.b_r, est.theta
    minv, mgram, bc, nu = est.m_inv, est.m_gram, est.b_c, est.nu
    const, live = est.const, est.live[0]
    d = const.d
    live.logdet_sigma = cholesky_inverse(sig, sinv)  # (and log det Sigma from the same factor)
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += sinv[i, j] * br[j]
        theta[i] = s
    inv = sinv
    if not const.shared and const.dp > 0:
        live.logdet_m = cholesky_inverse(mgram, minv)
        inv = minv
    dp = bc.shape[1]
    for k in range(bc.shape[0]):
        for i in range(dp):
            s = 0.0
            for j in range(dp):
                s += inv[i, j] * bc[k, j]
            nu[k, i] = s
    live.since_refresh = 0


@numba.njit(cache=True, inline="always")
def refresh_due(est):
    """Whether the exact refresh is due (``refresh_every`` rank-one updates since the last one)."""
    const = est.const
    return const.refresh_every > 0 and est.live[0].since_refresh >= const.refresh_every


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _reward_step(est, x, reward):
    """The reward part of :func:`_update_core` (Sherman--Morrison on ``Sigma^{-1}`` into ``u``, RLS of
    ``theta_hat``, ``b_r``, ``Sigma``); returns ``c``. One record in, nothing called, and every array it
    binds is used in its last loop, so that they die together and numba's pruning removes their counts
    (an array dying early keeps the others'). The same operations as
    :func:`~safebandits.estimators.ridge.sherman_morrison_update` and a recursive least-squares step
    ``theta <- theta + u (y - x^T theta) / c``, element by element (the same bits)."""
    sinv, sig, br, theta, wd = est.sigma_inv, est.sigma, est.b_r, est.theta, est.u
    n = x.shape[0]
    for i in range(n):
        wd[i] = 0.0
    for j in range(n):
        xj = x[j]
        for i in range(n):
            wd[i] += sinv[j, i] * xj
    c = 1.0
    p = 0.0
    for i in range(n):
        c += x[i] * wd[i]
        p += x[i] * theta[i]
    rs = 1.0 / math.sqrt(c)
    coef = (reward - p) / c
    live = est.live[0]
    live.logdet_sigma += math.log(c)
    live.c = c
    live.coef_r = coef
    for i in range(n):
        theta[i] += coef * wd[i]
        xi = x[i]
        br[i] += reward * xi
        vi = wd[i] * rs
        for j in range(n):
            sinv[i, j] -= vi * (wd[j] * rs)
            sig[i, j] += xi * x[j]
    return c


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _cost_step_shared(est, x, costs, c):
    """The costs' part of :func:`_update_core` in the shared layout (RLS of every ``nu_i`` with
    ``u``, ``c``; the targets ``b_c``); one record in, nothing called."""
    e0, kappa, nu, bc, wd, wm = est.e0, est.kappa, est.nu, est.b_c, est.u, est.cost_coef
    n = x.shape[0]
    xe = 0.0
    for i in range(n):
        xe += x[i] * e0[i]
    for k in range(kappa.shape[0]):
        cp = costs[k] - kappa[k] * xe
        # the RLS step of nu[k], written out (no view of a row)
        p = 0.0
        for i in range(n):
            p += x[i] * nu[k, i]
        coef = (cp - p) / c
        for i in range(n):
            nu[k, i] += coef * wd[i]
        wm[k] = coef
        for i in range(n):
            bc[k, i] += cp * x[i]


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _project(est, x):
    """``z = U^T x`` into ``est.z`` (projected layout); one record in, nothing called."""
    basis, wp = est.basis, est.z
    dp = wp.shape[0]
    for a in range(dp):
        wp[a] = 0.0
    for i in range(x.shape[0]):
        xi = x[i]
        for a in range(dp):
            wp[a] += basis[i, a] * xi


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _cost_gram_projected(est):
    """Sherman--Morrison on ``M^{-1}`` with ``z`` (``M^{-1} z`` into ``est.mz``), ``M``, ``log det M``
    (projected layout, ``d' > 0``, after :func:`_project`); returns ``c_M``. One record in, nothing
    called, every array used in the last loop (see :func:`_reward_step`)."""
    minv, mgram, wp, wp2 = est.m_inv, est.m_gram, est.z, est.mz
    dp = wp.shape[0]
    for i in range(dp):
        wp2[i] = 0.0
    for j in range(dp):
        xj = wp[j]
        for i in range(dp):
            wp2[i] += minv[j, i] * xj
    cm = 1.0
    for i in range(dp):
        cm += wp[i] * wp2[i]
    rs = 1.0 / math.sqrt(cm)
    est.live[0].logdet_m += math.log(cm)
    for i in range(dp):
        vi = wp2[i] * rs
        za = wp[i]
        for j in range(dp):
            minv[i, j] -= vi * (wp2[j] * rs)
            mgram[i, j] += za * wp[j]
    return cm


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _cost_step_projected(est, x, costs, cm):
    """The costs' RLS in the projected layout (``z``, ``M^{-1} z`` from :func:`_cost_gram_projected`;
    ``d' = 0``: coefficients 0); one record in, nothing called."""
    e0, kappa, nu, bc, wp, wp2, wm = est.e0, est.kappa, est.nu, est.b_c, est.z, est.mz, est.cost_coef
    dp = wp.shape[0]
    xe = 0.0
    for i in range(x.shape[0]):
        xe += x[i] * e0[i]
    for k in range(kappa.shape[0]):
        cp = costs[k] - kappa[k] * xe
        coef = 0.0
        if dp > 0:  # the RLS step of nu[k] in z, written out (no view of a row)
            p = 0.0
            for a in range(dp):
                p += wp[a] * nu[k, a]
            coef = (cp - p) / cm
            for a in range(dp):
                nu[k, a] += coef * wp2[a]
        wm[k] = coef
        for a in range(dp):
            bc[k, a] += cp * wp[a]


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _update_core(est, x, reward, costs):
    """Rank-one part of :func:`stagewise_update`; leaves ``u = Sigma^{-1} x`` in ``est.u``,
    ``M^{-1} z`` in ``est.mz``, ``c``, ``c_M``, ``coef_r`` in ``est.live`` and the cost coefficients in
    ``est.cost_coef`` (for :func:`table_update`). Returns True when an exact refresh is due.

    Its parts are small functions of the record (:func:`_reward_step`, :func:`_cost_step_shared`,
    :func:`_project`, :func:`_cost_gram_projected`, :func:`_cost_step_projected`) that bind their arrays
    and call nothing, so that numba's reference-count pruning removes the counts (docs/decisions/engine.md,
    "numba through its public API only")."""
    c = _reward_step(est, x, reward)
    const = est.const
    if const.shared:
        _cost_step_shared(est, x, costs, c)
    else:
        _project(est, x)
        cm = 1.0
        if const.dp > 0:
            cm = _cost_gram_projected(est)
        est.live[0].c_m = cm
        _cost_step_projected(est, x, costs, cm)
    live = est.live[0]
    live.t += 1
    live.since_refresh += 1
    return refresh_due(est)


@numba.njit(cache=True)
def stagewise_update(est, x, reward, costs):
    """Add one round ``(x, R, C)`` in place: Sherman--Morrison on ``Sigma^{-1}`` (and ``M^{-1}``), RLS
    updates of ``theta_hat`` and every ``nu_i``, Gram matrices, targets, log-determinants; an exact
    :func:`stagewise_refresh` every ``refresh_every`` updates. ``O(d^2 + m d)``."""
    if _update_core(est, x, reward, costs):
        stagewise_refresh(est)


@numba.njit(cache=True)
def vertex_table(est, tbl):
    """Exact per-vertex table of the rows ``x_r`` of ``tbl.vx`` (row 0 is ``x0``), ``O(n d^2)``: the
    fields ``sxx``, ``s0x``, ``rx``, ``qc`` and ``lin`` of :class:`VertexTable` (eqs. 9-10 per row).
    """
    sinv, theta, minv, nu = est.sigma_inv, est.theta, est.m_inv, est.nu
    e0, kappa, wd, wp2 = est.e0, est.kappa, est.u_table, est.mz
    vx, vz = tbl.vx, tbl.vz
    sxx, s0x, rx, qc, lin = tbl.sxx, tbl.s0x, tbl.rx, tbl.qc, tbl.lin
    d = est.const.d
    shared = est.const.shared
    for r in range(vx.shape[0]):
        x = vx[r]
        sxx[r] = _quad(sinv, x, wd)
        s0x_r = 0.0
        rx_r = 0.0
        xe = 0.0
        for i in range(d):
            s0x_r += vx[0, i] * wd[i]
            rx_r += x[i] * theta[i]
            xe += x[i] * e0[i]
        s0x[r] = s0x_r
        rx[r] = rx_r
        z = x if shared else vz[r]
        qc[r] = sxx[r] if shared else _quad(minv, z, wp2)
        for k in range(kappa.shape[0]):
            s = 0.0
            for a in range(z.shape[0]):
                s += z[a] * nu[k, a]
            lin[r, k] = kappa[k] * xe + s


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _table_products(est, tbl, projected):
    """``w = vx u`` (``u = Sigma^{-1} x_t``) into ``tbl.w`` or, ``projected``, ``w2 = vz M^{-1} z`` into
    ``tbl.w2``: one record in, nothing called, every array used in the last loop (see
    :func:`_reward_step`)."""
    vt, u, w = (tbl.vzt, est.mz, tbl.w2) if projected else (tbl.vxt, est.u, tbl.w)
    n = w.shape[0]
    for r in range(n):
        w[r] = 0.0
    for i in range(vt.shape[0]):
        ui = u[i]
        for r in range(n):
            w[r] += vt[i, r] * ui


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _table_reward(est, tbl, rs, coef, shared):
    """The reward fields' rank-one update (and, ``shared``, the cost fields') from ``tbl.w``. The fields
    are read as ``tbl.<field>[r]`` where used: bound to local names, each held a reference count across
    the loop that numba's pruning did not remove (LC-LUCB: ~5% of a sample)."""
    w, wm = tbl.w, est.cost_coef
    m = wm.shape[0]
    w0 = w[0] * rs
    for r in range(w.shape[0]):
        wr = w[r] * rs
        tbl.sxx[r] -= wr * wr
        tbl.s0x[r] -= w0 * wr
        tbl.rx[r] += coef * w[r]
        if shared:
            tbl.qc[r] = tbl.sxx[r]
            for k in range(m):
                tbl.lin[r, k] += wm[k] * w[r]


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _table_cost(est, tbl, rsm):
    """The cost fields' rank-one update in the projected layout from ``tbl.w2``."""
    w2, wm = tbl.w2, est.cost_coef
    m = wm.shape[0]
    for r in range(w2.shape[0]):
        wr = w2[r] * rsm
        tbl.qc[r] -= wr * wr
        for k in range(m):
            tbl.lin[r, k] += wm[k] * w2[r]


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def table_update(est, tbl):
    """Rank-one update of the vertex table after :func:`_update_core`, ``O(n (d + d') + n m)``:
    with ``w_r = x_r^T u`` (``u = Sigma^{-1} x_t`` before the update), ``x_r^T Sigma^{-1} x_s`` loses
    ``w_r w_s / c``, ``<x_r, theta_hat>`` gains ``w_r coef_r`` and the linear cost parts
    ``w_r coef_i`` (with ``M^{-1}`` and ``z`` in the projected layout). Its parts are small functions
    of the records that call nothing (:func:`_table_products`, :func:`_table_reward`,
    :func:`_table_cost`), so that numba's pruning removes the counts of the arrays they bind."""
    live = est.live[0]
    rs = 1.0 / math.sqrt(live.c)
    coef = live.coef_r
    shared = est.const.shared
    n_perp = tbl.vzt.shape[0]
    # (the flags are run-time values, not constants: numba compiles one _table_products, not one per
    # literal False / True, issue 43)
    _table_products(est, tbl, n_perp < 0)  # (False: w = vx u)
    _table_reward(est, tbl, rs, coef, shared)
    if shared or n_perp == 0:
        return
    _table_products(est, tbl, n_perp > 0)  # (True: w2 = vz M^{-1} z)
    _table_cost(est, tbl, 1.0 / math.sqrt(est.live[0].c_m))


@numba.njit(cache=True, inline="always")
def stagewise_update_table(est, tbl, x, reward, costs):
    """:func:`stagewise_update` that also keeps the vertex table ``tbl`` current (rank-one), except when
    the exact refresh falls due (:func:`refresh_due`): then it leaves the state and the table to the
    caller, who runs :func:`stagewise_refresh` and :func:`vertex_table` before anything reads them (the
    same operations in the same order as :func:`stagewise_update`). The refresh's kernels are so
    compiled on their own, when a run first reaches one, instead of into every compiled caller of the
    update (LC-LUCB's driver and its ask / tell kernel: about 1.5 s of a cold compile, issue 19).
    Returns whether it is due."""
    due = _update_core(est, x, reward, costs)
    if not due:
        table_update(est, tbl)
    return due


@numba.njit(cache=True)
def confidence_radii(est):
    """``(alpha_r beta_r, alpha_c beta_c)`` of the current round (``live.t`` = rounds so far).

    Theory: ``beta_t(delta_r, d)`` and ``beta_t(delta_c, d')`` (Thm. 10, via ``adaptive_width_scalar``).
    Code (spec 2.8): ``2 sqrt(2 log(det(V)^{1/2} det(lambda I)^{-1/2} / delta_t)) + sqrt(lambda) S``
    with ``delta_t = 1 / (1 + t)``, ``t`` the 1-based index of the round about to be played (rounds so far
    plus one; the digest does not say whether the authors' ``t`` counts from 0 or 1); the reward's noise
    part is multiplied by ``reward_scale``.
    """
    const, live = est.const, est.live[0]
    t = float(live.t)
    d = const.d
    dp = const.dp
    reg, s = const.reg, const.param_norm_bound
    if not const.code_radii:  # beta_t(delta, d) of Thm. 10
        r, el = const.noise_bound, const.arm_norm_bound
        br = adaptive_width_scalar(t, float(d), const.delta_r, reg, r, el, s)
        bcw = adaptive_width_scalar(t, float(dp), const.delta_c, reg, r, el, s)
    else:
        log_t = math.log(1.0 + (t + 1.0))  # delta_t = 1 / (1 + t) with t the 1-based index of this round
        lr = 0.5 * (live.logdet_sigma - d * math.log(reg)) + log_t
        ldc = live.logdet_sigma if const.shared else live.logdet_m
        lc = 0.5 * (ldc - dp * math.log(reg)) + log_t
        sr = math.sqrt(reg) * s
        br = const.reward_scale * CODE_NOISE * math.sqrt(2.0 * max(lr, 0.0)) + sr
        bcw = CODE_NOISE * math.sqrt(2.0 * max(lc, 0.0)) + sr
    return live.alpha_r * br, live.alpha_c * bcw  # eq. (5)


def _radii_interpreted(state: StagewiseState) -> tuple[float, float]:
    """:func:`confidence_radii` for Python callers, run by the interpreter (its ``py_func``: the same code):
    called from Python with the state as a NamedTuple, numba would compile a second copy of it beside
    the compiled callers' (which read the state by reference), about 0.4 s of a cold compile (issue 43)."""
    live = state.live.view(np.recarray)  # (its rows read by attribute, as in compiled code)
    return confidence_radii.py_func(state._replace(live=live))  # type: ignore[no-any-return]  # (numba: untyped)


@numba.njit(cache=True, inline="always")
def _quad(mat, x, w):
    """``x^T mat x`` with ``w <- mat x`` (axpy form).

    Written out rather than shared with :func:`~safebandits.estimators.ridge.sherman_morrison_update`:
    routing both through one helper changed how LLVM compiled the two loops, and the compiled run loop
    then no longer matched ask / tell bit for bit (``test_simulate_equals_ask_tell_bit_for_bit``).
    """
    n = x.shape[0]
    for i in range(n):
        w[i] = 0.0
    for j in range(n):
        xj = x[j]
        for i in range(n):
            w[i] += mat[j, i] * xj
    s = 0.0
    for i in range(n):
        s += x[i] * w[i]
    return max(s, 0.0)


@numba.njit(cache=True, inline="always")
def _full_excess(a, l0, lin, kc, s00, s0i, sii, tau):
    """``max_i V~c_i(x0 + a (x - x0)) - tau_i`` for the full estimator (quadratic form expanded)."""
    q = (1.0 - a) * (1.0 - a) * s00 + 2.0 * a * (1.0 - a) * s0i + a * a * sii
    h = kc * math.sqrt(max(q, 0.0))
    worst = -np.inf
    for j in range(tau.shape[0]):
        v = l0[j] + a * (lin[j] - l0[j]) + h - tau[j]
        if v > worst:
            worst = v
    return worst


@numba.njit(cache=True, inline="always")
def ray_scale(affine, lin, qc, kc, c0, tau, l0, quad):
    """Largest ``a in [0, 1]`` with ``x0 + a (x - x0)`` pessimistically feasible (Lemma 14).

    ``quad = (s00, s0i, sii)``: ``x0^T S x0``, ``x0^T S x`` and ``x^T S x`` with ``S = Sigma^{-1}`` (read
    by the full estimator's bisection only).

    ``affine`` (projected estimator, or ``x0 = 0``): closed form
    ``min(1, min_i (tau_i - c0_i) / (v_i - c0_i))`` over ``v_i = lin_i + kc sqrt(qc) > tau_i``.
    Otherwise (full estimator): ``1`` if the vertex is feasible, ``0`` if ``x0`` is not, else bisection
    on the convex ``a -> max_i V~c_i - tau_i`` (the returned ``a`` is always feasible).
    """
    if affine:
        a = 1.0
        h = kc * math.sqrt(max(qc, 0.0))
        for j in range(tau.shape[0]):
            v = lin[j] + h
            if v > tau[j]:
                r = (tau[j] - c0[j]) / (v - c0[j])
                if r < a:
                    a = r
        return max(a, 0.0)
    s00, s0i, sii = quad
    if _full_excess(1.0, l0, lin, kc, s00, s0i, sii, tau) <= 0.0:
        return 1.0
    if _full_excess(0.0, l0, lin, kc, s00, s0i, sii, tau) > 0.0:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        if _full_excess(mid, l0, lin, kc, s00, s0i, sii, tau) <= 0.0:
            lo = mid
        else:
            hi = mid
    return lo


def _view(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


# --------------------------------------------------------------------------------------------------
# Python front end
# --------------------------------------------------------------------------------------------------
class StagewiseEstimator(Rebinding):
    """Reward ridge and projected (or full) cost estimators with the confidence sets of eq. (5).

    Parameters
    ----------
    safe_action : array-like of shape (d,)
        The safe action ``x0``.
    threshold : array-like of shape (m,)
        Thresholds ``tau_i`` (used by the ray scaling).
    safe_cost : array-like of shape (m,) or None
        Known ``c0_i``: projected estimator. ``None``: full estimator (unknown ``c0``, Remark 12).
    reg : float > 0, default 1.0
        Ridge regulariser ``lambda`` (the paper's experiments use 1).
    delta : float in (0, 1), default 0.05
        Overall error probability (theory radii: ``delta / (1 + m)`` per confidence set).
    noise_bound, param_norm_bound, arm_norm_bound : float
        ``R``, ``S``, ``L`` of Thm. 10.
    radii : {"theory", "code"}
    alpha_r, alpha_c : float > 0
        Scalings of the reward and cost radii (eq. 5).
    reward_scale : float > 0, default 1.0
        Multiplier of the reward radius' noise part with ``radii="code"`` (the code's ``1/min(1, tau)``).
    refresh_every : int >= 0, default 1000
        Exact Cholesky recompute of the inverses every this many updates (0: never).
    check_input : bool, default True
        Validate the arguments. ``False`` trusts the caller to have checked them (a learner that
        validated its problem information and config, as scikit-learn's ``check_input``): ``x0``,
        ``threshold`` and ``safe_cost`` must then be float64 arrays of shapes (d,), (m,), (m,).

    Attributes
    ----------
    state : StagewiseState
        The typed record the compiled kernels act on, in place (never rebound).
    sigma, sigma_inv, theta_hat : ndarray
        Read-only live views of ``Sigma_t``, ``Sigma_t^{-1}`` and ``theta_hat_t``.
    perp_gram, perp_gram_inv : ndarray
        Read-only live views of ``M_t`` and ``M_t^{-1}`` (``Sigma_t``, ``Sigma_t^{-1}`` when shared).
    basis, e0 : ndarray
        ``U`` (d, d') and ``e0`` (zero when ``x0 = 0`` or for the full estimator).
    shared, affine, full : bool
        Cost Gram matrix is ``Sigma``; ray scaling in closed form; unknown-``c0`` estimator.

    Notes
    -----
    A vertex table (:meth:`make_table`) must be updated with :func:`stagewise_update_table` to stay in
    sync; :meth:`update` updates the estimator alone.
    """

    def __init__(
        self,
        safe_action: FloatArray,
        threshold: FloatArray,
        safe_cost: FloatArray | None = None,
        *,
        reg: float = 1.0,
        delta: float = 0.05,
        noise_bound: float = 1.0,
        param_norm_bound: float = 1.0,
        arm_norm_bound: float = 1.0,
        radii: Radii = "theory",
        alpha_r: float = 1.0,
        alpha_c: float = 1.0,
        reward_scale: float = 1.0,
        refresh_every: int = 1000,
        check_input: bool = True,
    ) -> None:
        owner = "StagewiseEstimator"
        if check_input:
            safe_action = check_array(safe_action, "safe_action", ndim=1, owner=owner)
            threshold = check_array(np.atleast_1d(threshold), "threshold", ndim=1, owner=owner)
            check_choice(radii, "radii", Radii, owner=owner)
            delta = check_interval(delta, "delta", low=0.0, high=1.0, owner=owner)
            positive = (("reg", reg), ("noise_bound", noise_bound), ("arm_norm_bound", arm_norm_bound),
                        ("alpha_r", alpha_r), ("alpha_c", alpha_c),
                        ("reward_scale", reward_scale))  # fmt: skip
            for k, v in positive:
                check_positive(v, k, owner=owner)
            check_positive(param_norm_bound, "param_norm_bound", owner=owner, allow_zero=True)
            refresh_every = check_int(refresh_every, "refresh_every", low=0, owner=owner)
            if safe_cost is not None:
                safe_cost = check_array(
                    np.atleast_1d(safe_cost), "safe_cost", shape=(threshold.shape[0],), owner=owner
                )
        x0, tau = safe_action, threshold
        m, d = tau.shape[0], x0.shape[0]
        self.full = safe_cost is None
        self.x0 = x0
        x0_zero = not x0.any()
        if self.full:
            basis, e0, norm = np.eye(d), np.zeros(d), 0.0
            c0 = np.zeros(m)
        else:
            c0 = safe_cost
            basis, e0, norm = _complement_of(x0.tobytes())
        kappa = c0 / norm if norm > 0 else np.zeros(m)
        shared = self.full or x0_zero
        dp = d if shared else d - 1
        self.dim, self.n_constraints = d, m
        #: The cost Gram matrix is ``Sigma`` itself (``x0 = 0`` or full estimator).
        self.shared = shared
        #: Pessimistic costs are affine along rays from ``x0`` (closed-form ray scaling).
        self.affine = not self.full or x0_zero
        refresh = int(refresh_every)
        reg = float(reg)
        const = StagewiseConstants(
            d=d, dp=dp, m=m, full=self.full, shared=shared, refresh_every=refresh, code_radii=radii == "code",
            x0_zero=x0_zero, reg=reg, delta_r=delta / (1 + m), delta_c=delta / (1 + m),
            noise_bound=float(noise_bound), arm_norm_bound=float(arm_norm_bound),
            param_norm_bound=float(param_norm_bound), reward_scale=float(reward_scale),
        )  # fmt: skip
        # the kernels read its record live_block[0]: t, since_refresh, logdet_sigma, logdet_m, c, c_m, coef_r,
        # alpha_r, alpha_c
        live_block = np.array(
            [(0, 0, d * math.log(reg), dp * math.log(reg), 1.0, 1.0, 0.0, float(alpha_r), float(alpha_c))],
            dtype=STAGEWISE_LIVE,
        )
        mdim = 0 if shared else dp
        sigma_inv, sigma = np.zeros((d, d)), np.zeros((d, d))
        m_inv, m_gram = np.zeros((mdim, mdim)), np.zeros((mdim, mdim))
        # lambda I and I / lambda
        sigma_inv.flat[:: d + 1] = 1.0 / reg
        sigma.flat[:: d + 1] = reg
        m_inv.flat[:: mdim + 1] = 1.0 / reg
        m_gram.flat[:: mdim + 1] = reg
        #: The typed record the compiled kernels act on (module docstring), in place.
        self.state = StagewiseState(
            sigma_inv, sigma, np.zeros(d), np.zeros(d), m_inv, m_gram, np.zeros((m, dp)), np.zeros((m, dp)),
            np.array(basis, dtype=np.float64), np.array(e0, dtype=np.float64), np.array(kappa, dtype=float),
            np.array(c0, dtype=np.float64), np.array(tau, dtype=np.float64), np.zeros(d), np.zeros(d),
            np.zeros(dp), np.zeros(dp), np.zeros(m), const, live_block,
        )  # fmt: skip
        StagewiseEstimator._make_views(self)
        self.basis, self.e0, self.c0, self.tau = basis, e0, c0, tau  # (the state holds copies)
        #: Count of the changes made through this object's methods (:meth:`update`, :meth:`refresh`,
        #: :meth:`set_alphas`): a learner that selected its next action at ``tell`` time checks it at
        #: ``ask`` (kernels acting on :attr:`state` directly do not count).
        self.changes = 0

    # :attr:`live` is a view of the state's live record: a copy or a pickle leaves it out and makes it
    # again (Rebinding; copied separately, it would stop sharing the record's memory).
    _views = ("live",)

    def _make_views(self) -> None:
        #: The changing scalars (the record of ``state.live``, a view: writes go through).
        self.live = self.state.live[0]

    # -- read-only live views (the kernels update the state in place and never rebind it) ----------
    @property
    def sigma(self) -> FloatArray:
        return _view(self.state.sigma)

    @property
    def sigma_inv(self) -> FloatArray:
        return _view(self.state.sigma_inv)

    @property
    def theta_hat(self) -> FloatArray:
        return _view(self.state.theta)

    @property
    def perp_gram(self) -> FloatArray:
        """``M`` (``Sigma`` in the shared layout)."""
        return _view(self.state.sigma if self.shared else self.state.m_gram)

    @property
    def perp_gram_inv(self) -> FloatArray:
        """``M^{-1}`` (``Sigma^{-1}`` in the shared layout)."""
        return _view(self.state.sigma_inv if self.shared else self.state.m_inv)

    # -- layout ------------------------------------------------------------------------------------
    @property
    def n_samples(self) -> int:
        return int(self.live["t"])

    @property
    def alphas(self) -> tuple[float, float]:
        """The radius scalings ``(alpha_r, alpha_c)`` of eq. (5)."""
        live = self.live
        return float(live["alpha_r"]), float(live["alpha_c"])

    def set_alphas(self, alpha_r: float | None = None, alpha_c: float | None = None) -> None:
        self.changes += 1
        if alpha_r is not None:
            self.live["alpha_r"] = check_positive(alpha_r, "alpha_r", owner="StagewiseEstimator")
        if alpha_c is not None:
            self.live["alpha_c"] = check_positive(alpha_c, "alpha_c", owner="StagewiseEstimator")

    # -- estimates ---------------------------------------------------------------------------------
    @property
    def mu_perp_hat(self) -> FloatArray:
        """``mu_hat^{o,perp}_i = U nu_i`` (rows; the full ``mu_hat_i`` for the full estimator)."""
        return self.state.nu @ self.basis.T

    @property
    def mu_hat(self) -> FloatArray:
        """``(c0_i / ||x0||) e0 + mu_hat^{o,perp}_i`` (rows, shape (m, d))."""
        return self.state.kappa[:, None] * self.e0[None, :] + self.mu_perp_hat

    @property
    def sigma_perp(self) -> FloatArray:
        """``Sigma^{o,perp} = U M U^T`` (lambda I^{o,perp} + sum x^{o,perp} x^{o,perp T})."""
        return self.basis @ self.perp_gram @ self.basis.T

    @property
    def sigma_perp_pinv(self) -> FloatArray:
        """``(Sigma^{o,perp})^dagger = U M^{-1} U^T``."""
        return self.basis @ self.perp_gram_inv @ self.basis.T

    @property
    def betas(self) -> tuple[float, float]:
        """Unscaled ``(beta_r, beta_c)`` of the current round."""
        kr, kc = _radii_interpreted(self.state)
        alpha_r, alpha_c = self.alphas
        return float(kr / alpha_r), float(kc / alpha_c)

    @property
    def radii(self) -> tuple[float, float]:
        """``(alpha_r beta_r, alpha_c beta_c)`` of the current round."""
        kr, kc = _radii_interpreted(self.state)
        return float(kr), float(kc)

    # -- updates -----------------------------------------------------------------------------------
    def update(self, x: FloatArray, reward: float, costs: FloatArray) -> None:
        """Add one round (``O(d^2 + m d)``)."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        c = np.ascontiguousarray(np.atleast_1d(costs), dtype=np.float64)
        if x.shape != (self.dim,) or c.shape != (self.n_constraints,):
            raise ConfigError(
                f"StagewiseEstimator.update needs x of shape ({self.dim},) and costs of shape "
                f"({self.n_constraints},). Got {x.shape} and {c.shape} instead."
            )
        stagewise_update(self.state, x, float(reward), c)
        self.changes += 1

    def refresh(self) -> None:
        stagewise_refresh(self.state)
        self.changes += 1

    @property
    def refresh_due(self) -> bool:
        """Whether the exact refresh is due (see :func:`stagewise_update_table`)."""
        every = self.state.const.refresh_every
        return every > 0 and int(self.live["since_refresh"]) >= every

    # -- closed forms ------------------------------------------------------------------------------
    def _points(self, points: FloatArray) -> FloatArray:
        p = np.ascontiguousarray(np.atleast_2d(np.asarray(points, dtype=np.float64)))
        if p.shape[1] != self.dim:
            raise ConfigError(f"Points must have {self.dim} columns. Got shape {p.shape} instead.")
        return p

    def optimistic_reward(self, points: FloatArray) -> FloatArray:
        """``V~r`` (eq. 9) of every row: ``<x, theta_hat> + alpha_r beta ||x||_{Sigma^{-1}}``."""
        p = self._points(points)
        return p @ self.state.theta + self.radii[0] * self.reward_norm(p)

    def pessimistic_cost(self, points: FloatArray) -> FloatArray:
        """``V~c_i`` (eq. 10) of every row of ``points``, shape (k, m): ``<x, e0> c0_i / ||x0|| + <U^T x,
        nu_i> + alpha_c beta ||U^T x||_{M^{-1}}`` (full estimator: ``<x, mu_hat_i> + alpha_c beta
        ||x||_{Sigma^{-1}}``)."""
        p = self._points(points)
        lin = np.outer(p @ self.e0, self.state.kappa) + (p @ self.basis) @ self.state.nu.T
        return lin + self.radii[1] * self.perp_norm(p)[:, None]

    def reward_norm(self, points: FloatArray) -> FloatArray:
        """``||x||_{Sigma^{-1}}`` of every row."""
        p = self._points(points)
        return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", p, self.state.sigma_inv, p), 0.0))

    def perp_norm(self, points: FloatArray) -> FloatArray:
        """``||x^{o,perp}||_{(Sigma^{o,perp})^dagger} = ||U^T x||_{M^{-1}}`` of every row."""
        z = self._points(points) @ self.basis
        return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", z, self.perp_gram_inv, z), 0.0))

    def make_table(self, vertices: FloatArray) -> VertexTable:
        """Vertex table of ``x0`` (row 0) and the rows of ``vertices``, computed exactly.

        Returns the :class:`VertexTable` that :func:`vertex_table`, :func:`table_update` and
        :func:`stagewise_update_table` act on (``vz = vx U`` with row 0 exactly 0 in the projected layout;
        empty in the shared one).
        """
        v = self._points(vertices)
        n, m = v.shape[0] + 1, self.n_constraints
        dz = 0 if self.shared else self.state.const.dp
        vx = np.empty((n, self.dim))
        vx[0] = self.x0
        vx[1:] = v
        vz = np.zeros((n, dz))
        if not self.shared:
            vz[:] = vx @ self.basis
            vz[0] = 0.0  # x0 has no component in e0^perp
        tbl = VertexTable(
            vx, np.ascontiguousarray(vx.T), vz, np.ascontiguousarray(vz.T), np.zeros(n), np.zeros(n),
            np.zeros(n), np.zeros(n), np.zeros((n, m)), np.zeros(n), np.zeros(n),
        )  # fmt: skip
        vertex_table(self.state, tbl)
        return tbl

    def ray_scaling(self, vertices: FloatArray) -> FloatArray:
        """Largest pessimistically feasible mixing coefficient ``a_i`` along each ray ``[x0, x_i]``."""
        tbl = self.make_table(vertices)
        _, kc = _radii_interpreted(self.state)
        sxx, lin = tbl.sxx, tbl.lin
        out = np.empty(sxx.shape[0] - 1)
        for r in range(1, sxx.shape[0]):
            out[r - 1] = ray_scale(
                self.affine, lin[r], tbl.qc[r], kc, self.c0, self.tau, lin[0], (sxx[0], tbl.s0x[r], sxx[r])
            )
        return out
