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

The per-round kernels are module-level ``numba.njit`` functions acting in place on the arrays of an
*estimator tuple* (:attr:`StagewiseEstimator.state`), so that learners' ask / tell paths and compiled
simulation loops run the same code. Every ``refresh_every`` updates the inverses are recomputed
exactly (Cholesky) from the Gram matrices.

Deviations (see ``docs/decisions/stagewise.md``): with ``radii="theory"`` each of the ``1 + m`` confidence
sets is built at level ``delta / (1 + m)`` so that the joint event of eq. (12) has probability
``>= 1 - delta`` (the paper uses ``delta`` for each); ``beta_t(delta, d)`` is used for the cost when
``x0 = 0`` (no known direction) and for the full estimator.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from safebandits._validation import check_array, check_choice, check_int, check_interval, check_positive
from safebandits.estimators.confidence import adaptive_width_scalar
from safebandits.estimators.ridge import cholesky_inverse, sherman_morrison_update
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "RADII",
    "StagewiseEstimator",
    "confidence_radii",
    "orthonormal_complement",
    "ray_scale",
    "stagewise_refresh",
    "stagewise_update",
    "stagewise_update_table",
    "table_update",
    "vertex_table",
]

#: Confidence radii: ``"theory"`` (Thm. 10 with alpha's) or ``"code"`` (the authors' code, spec 2.8).
RADII = ("theory", "code")
#: Noise constant hard-coded in the authors' code radius.
CODE_NOISE = 2.0
# fparams slots
F_REG, F_DELTA_R, F_DELTA_C, F_R, F_L, F_S, F_ALPHA_R, F_ALPHA_C, F_REWARD_SCALE = range(9)
# slots of the estimator tuple (:attr:`StagewiseEstimator.state`)
E_SINV, E_SIG, E_BR, E_THETA, E_MINV, E_MGRAM, E_BC, E_NU = range(8)
E_BASIS, E_E0, E_KAPPA, E_C0, E_TAU, E_FSTATE, E_ISTATE, E_FP, E_IP = range(8, 17)
E_WD, E_WD2, E_WP, E_WP2, E_WM = range(17, 22)
# iparams slots
I_D, I_DP, I_FULL, I_SHARED, I_REFRESH, I_RADII, I_X0_ZERO = range(7)
# fstate / istate slots
S_LOGDET_SIG, S_LOGDET_M, S_C, S_CM, S_COEF = range(5)
S_T, S_SINCE = 0, 1
# columns of the vertex table (see :func:`vertex_table`)
T_SXX, T_S0X, T_RX, T_QC, T_LIN = range(5)
#: Bisection steps of the full estimator's ray scaling (to machine precision on [0, 1]).
BISECTION_STEPS = 60


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


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _rls_step(est_vec, u, c, x, y):
    """Recursive least squares ``est <- est + u (y - x^T est) / c``; returns the coefficient."""
    p = 0.0
    for i in range(x.shape[0]):
        p += x[i] * est_vec[i]
    coef = (y - p) / c
    for i in range(x.shape[0]):
        est_vec[i] += coef * u[i]
    return coef


@numba.njit(cache=True)
def _logdet(a):
    if a.shape[0] == 0:
        return 0.0
    low = np.linalg.cholesky(a)
    s = 0.0
    for i in range(a.shape[0]):
        s += 2.0 * math.log(low[i, i])
    return s


@numba.njit(cache=True)
def stagewise_refresh(est):
    """Exact recompute of ``Sigma^{-1}``, ``M^{-1}`` (Cholesky), the estimates and the log-determinants."""
    sinv, sig, br, theta = est[E_SINV], est[E_SIG], est[E_BR], est[E_THETA]
    minv, mgram, bc, nu = est[E_MINV], est[E_MGRAM], est[E_BC], est[E_NU]
    fstate, istate, ip = est[E_FSTATE], est[E_ISTATE], est[E_IP]
    d = ip[I_D]
    cholesky_inverse(sig, sinv)
    fstate[S_LOGDET_SIG] = _logdet(sig)
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += sinv[i, j] * br[j]
        theta[i] = s
    inv = sinv
    if ip[I_SHARED] == 0 and ip[I_DP] > 0:
        cholesky_inverse(mgram, minv)
        fstate[S_LOGDET_M] = _logdet(mgram)
        inv = minv
    dp = bc.shape[1]
    for k in range(bc.shape[0]):
        for i in range(dp):
            s = 0.0
            for j in range(dp):
                s += inv[i, j] * bc[k, j]
            nu[k, i] = s
    istate[S_SINCE] = 0


@numba.njit(cache=True)
def _update_core(est, x, reward, costs):
    """Rank-one part of :func:`stagewise_update`; leaves ``u = Sigma^{-1} x`` in the ``wd`` slot,
    ``M^{-1} z`` in ``wp2``, ``(c, c_M, coef_r)`` in ``fstate`` and the cost coefficients in ``wm`` (for
    :func:`table_update`). Returns True when an exact refresh is due."""
    sinv, sig, br, theta = est[E_SINV], est[E_SIG], est[E_BR], est[E_THETA]
    minv, mgram, bc, nu = est[E_MINV], est[E_MGRAM], est[E_BC], est[E_NU]
    basis, e0, kappa = est[E_BASIS], est[E_E0], est[E_KAPPA]
    fstate, istate, ip = est[E_FSTATE], est[E_ISTATE], est[E_IP]
    wd, wp, wp2, wm = est[E_WD], est[E_WP], est[E_WP2], est[E_WM]
    d = ip[I_D]
    c = sherman_morrison_update(sinv, x, wd)
    fstate[S_LOGDET_SIG] += math.log(c)
    fstate[S_C] = c
    fstate[S_COEF] = _rls_step(theta, wd, c, x, reward)
    for i in range(d):
        xi = x[i]
        br[i] += reward * xi
        for j in range(d):
            sig[i, j] += xi * x[j]
    xe = 0.0
    for i in range(d):
        xe += x[i] * e0[i]
    if ip[I_SHARED] == 1:
        for k in range(kappa.shape[0]):
            cp = costs[k] - kappa[k] * xe
            wm[k] = _rls_step(nu[k], wd, c, x, cp)
            for i in range(d):
                bc[k, i] += cp * x[i]
    else:
        dp = ip[I_DP]
        for a in range(dp):
            wp[a] = 0.0
        for i in range(d):
            xi = x[i]
            for a in range(dp):
                wp[a] += basis[i, a] * xi
        cm = 1.0
        if dp > 0:
            cm = sherman_morrison_update(minv, wp, wp2)
            fstate[S_LOGDET_M] += math.log(cm)
            for a in range(dp):
                za = wp[a]
                for b in range(dp):
                    mgram[a, b] += za * wp[b]
        fstate[S_CM] = cm
        for k in range(kappa.shape[0]):
            cp = costs[k] - kappa[k] * xe
            wm[k] = _rls_step(nu[k], wp2, cm, wp, cp) if dp > 0 else 0.0
            for a in range(dp):
                bc[k, a] += cp * wp[a]
    istate[S_T] += 1
    istate[S_SINCE] += 1
    return ip[I_REFRESH] > 0 and istate[S_SINCE] >= ip[I_REFRESH]


@numba.njit(cache=True)
def stagewise_update(est, x, reward, costs):
    """Add one round ``(x, R, C)`` in place: Sherman--Morrison on ``Sigma^{-1}`` (and ``M^{-1}``), RLS
    updates of ``theta_hat`` and every ``nu_i``, Gram matrices, targets, log-determinants; an exact
    :func:`stagewise_refresh` every ``refresh_every`` updates. ``O(d^2 + m d)``."""
    if _update_core(est, x, reward, costs):
        stagewise_refresh(est)


@numba.njit(cache=True)
def vertex_table(est, tbl):
    """Exact per-vertex table of the rows ``x_r`` of ``tbl[0]`` (row 0 is ``x0``), ``O(n d^2)``.

    Columns: ``x_r^T Sigma^{-1} x_r``, ``x0^T Sigma^{-1} x_r``, ``<x_r, theta_hat>``, the cost quadratic
    form ``||z_r||^2_{M^{-1}}`` (``||x_r||^2_{Sigma^{-1}}`` in the shared layout) and, per constraint, the
    linear part of ``V~c_i(x_r)``: ``kappa_i <x_r, e0> + <z_r, nu_i>``.
    """
    sinv, theta, minv, nu = est[E_SINV], est[E_THETA], est[E_MINV], est[E_NU]
    e0, kappa, ip, wd, wp2 = est[E_E0], est[E_KAPPA], est[E_IP], est[E_WD2], est[E_WP2]
    vx, vz, tab = tbl[0], tbl[2], tbl[4]
    d = ip[I_D]
    shared = ip[I_SHARED] == 1
    for r in range(vx.shape[0]):
        x = vx[r]
        tab[r, T_SXX] = _quad(sinv, x, wd)
        s0x = 0.0
        rx = 0.0
        xe = 0.0
        for i in range(d):
            s0x += vx[0, i] * wd[i]
            rx += x[i] * theta[i]
            xe += x[i] * e0[i]
        tab[r, T_S0X] = s0x
        tab[r, T_RX] = rx
        z = x if shared else vz[r]
        tab[r, T_QC] = tab[r, T_SXX] if shared else _quad(minv, z, wp2)
        for k in range(kappa.shape[0]):
            s = 0.0
            for a in range(z.shape[0]):
                s += z[a] * nu[k, a]
            tab[r, T_LIN + k] = kappa[k] * xe + s


@numba.njit(cache=True)
def table_update(est, tbl):
    """Rank-one update of the vertex table after :func:`_update_core`, ``O(n (d + d') + n m)``:
    with ``w_r = x_r^T u`` (``u = Sigma^{-1} x_t`` before the update), ``x_r^T Sigma^{-1} x_s`` loses
    ``w_r w_s / c``, ``<x_r, theta_hat>`` gains ``w_r coef_r`` and the linear cost parts
    ``w_r coef_i`` (with ``M^{-1}`` and ``z`` in the projected layout)."""
    fstate, ip, wd, wp2, wm = est[E_FSTATE], est[E_IP], est[E_WD], est[E_WP2], est[E_WM]
    vxt, vzt, tab, w, w2 = tbl[1], tbl[3], tbl[4], tbl[5], tbl[6]
    n = w.shape[0]
    m = wm.shape[0]
    for r in range(n):
        w[r] = 0.0
    for i in range(vxt.shape[0]):
        ui = wd[i]
        for r in range(n):
            w[r] += vxt[i, r] * ui
    rs = 1.0 / math.sqrt(fstate[S_C])
    coef = fstate[S_COEF]
    w0 = w[0] * rs
    shared = ip[I_SHARED] == 1
    for r in range(n):
        wr = w[r] * rs
        tab[r, T_SXX] -= wr * wr
        tab[r, T_S0X] -= w0 * wr
        tab[r, T_RX] += coef * w[r]
        if shared:
            tab[r, T_QC] = tab[r, T_SXX]
            for k in range(m):
                tab[r, T_LIN + k] += wm[k] * w[r]
    if shared or vzt.shape[0] == 0:
        return
    for r in range(n):
        w2[r] = 0.0
    for a in range(vzt.shape[0]):
        va = wp2[a]
        for r in range(n):
            w2[r] += vzt[a, r] * va
    rsm = 1.0 / math.sqrt(fstate[S_CM])
    for r in range(n):
        wr = w2[r] * rsm
        tab[r, T_QC] -= wr * wr
        for k in range(m):
            tab[r, T_LIN + k] += wm[k] * w2[r]


@numba.njit(cache=True)
def stagewise_update_table(est, tbl, x, reward, costs):
    """:func:`stagewise_update` that also keeps the vertex table ``tbl`` current (rank-one, or exact
    :func:`vertex_table` after each exact refresh)."""
    if _update_core(est, x, reward, costs):
        stagewise_refresh(est)
        vertex_table(est, tbl)
    else:
        table_update(est, tbl)


@numba.njit(cache=True, inline="always")
def confidence_radii(est):
    """``(alpha_r beta_r, alpha_c beta_c)`` of the current round (``S_T`` = rounds so far).

    Theory: ``beta_t(delta_r, d)`` and ``beta_t(delta_c, d')`` (Thm. 10, via ``adaptive_width_scalar``).
    Code (spec 2.8): ``2 sqrt(2 log(det(V)^{1/2} det(lambda I)^{-1/2} / delta_t)) + sqrt(lambda) S``
    with ``delta_t = 1 / (1 + t)``, ``t`` the 1-based index of the round about to be played (rounds so far
    plus one; the digest does not say whether the authors' ``t`` counts from 0 or 1); the reward's noise
    part is multiplied by ``reward_scale``.
    """
    fstate, istate, fp, ip = est[E_FSTATE], est[E_ISTATE], est[E_FP], est[E_IP]
    t = float(istate[S_T])
    d = ip[I_D]
    dp = ip[I_DP]
    reg, s = fp[F_REG], fp[F_S]
    if ip[I_RADII] == 0:
        br = adaptive_width_scalar(t, float(d), fp[F_DELTA_R], reg, fp[F_R], fp[F_L], s)
        bcw = adaptive_width_scalar(t, float(dp), fp[F_DELTA_C], reg, fp[F_R], fp[F_L], s)
    else:
        log_t = math.log(1.0 + (t + 1.0))  # delta_t = 1 / (1 + t) with t the 1-based index of this round
        lr = 0.5 * (fstate[S_LOGDET_SIG] - d * math.log(reg)) + log_t
        ldc = fstate[S_LOGDET_SIG] if ip[I_SHARED] == 1 else fstate[S_LOGDET_M]
        lc = 0.5 * (ldc - dp * math.log(reg)) + log_t
        sr = math.sqrt(reg) * s
        br = fp[F_REWARD_SCALE] * CODE_NOISE * math.sqrt(2.0 * max(lr, 0.0)) + sr
        bcw = CODE_NOISE * math.sqrt(2.0 * max(lc, 0.0)) + sr
    return fp[F_ALPHA_R] * br, fp[F_ALPHA_C] * bcw


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
def ray_scale(affine, lin, qc, kc, c0, tau, l0, s00, s0i, sii):
    """Largest ``a in [0, 1]`` with ``x0 + a (x - x0)`` pessimistically feasible (Lemma 14).

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
class StagewiseEstimator:
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

    Attributes
    ----------
    state : tuple of ndarray
        The arrays the compiled kernels act on, in place (never rebound; slots ``E_*``).
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
        radii: str = "theory",
        alpha_r: float = 1.0,
        alpha_c: float = 1.0,
        reward_scale: float = 1.0,
        refresh_every: int = 1000,
    ) -> None:
        owner = "StagewiseEstimator"
        x0 = check_array(safe_action, "safe_action", ndim=1, owner=owner)
        tau = check_array(np.atleast_1d(threshold), "threshold", ndim=1, owner=owner)
        m, d = tau.shape[0], x0.shape[0]
        check_choice(radii, "radii", RADII, owner=owner)
        delta = check_interval(delta, "delta", low=0.0, high=1.0, owner=owner)
        for k, v in (("reg", reg), ("noise_bound", noise_bound), ("arm_norm_bound", arm_norm_bound),
                     ("alpha_r", alpha_r), ("alpha_c", alpha_c), ("reward_scale", reward_scale)):  # fmt: skip
            check_positive(v, k, owner=owner)
        check_positive(param_norm_bound, "param_norm_bound", owner=owner, allow_zero=True)
        fp = np.array([reg, delta / (1 + m), delta / (1 + m), noise_bound, arm_norm_bound, param_norm_bound,
                       alpha_r, alpha_c, reward_scale], dtype=np.float64)  # fmt: skip
        self.full = safe_cost is None
        self.x0 = x0
        x0_zero = bool(np.all(x0 == 0.0))
        if self.full:
            basis, e0, norm = np.eye(d), np.zeros(d), 0.0
            c0 = np.zeros(m)
        else:
            c0 = check_array(np.atleast_1d(safe_cost), "safe_cost", shape=(m,), owner=owner)
            basis, e0, norm = orthonormal_complement(x0)
        kappa = c0 / norm if norm > 0 else np.zeros(m)
        shared = self.full or x0_zero
        dp = d if shared else d - 1
        self.basis, self.e0, self.c0, self.tau = basis, e0, c0, tau
        self.dim, self.n_constraints = d, m
        #: The cost Gram matrix is ``Sigma`` itself (``x0 = 0`` or full estimator).
        self.shared = shared
        #: Pessimistic costs are affine along rays from ``x0`` (closed-form ray scaling).
        self.affine = not self.full or x0_zero
        refresh = check_int(refresh_every, "refresh_every", low=0, owner=owner)
        ip = np.array([d, dp, self.full, shared, refresh, RADII.index(radii), x0_zero], dtype=np.int64)
        mdim = 0 if shared else dp
        self.state = (
            np.eye(d) / fp[F_REG], fp[F_REG] * np.eye(d), np.zeros(d), np.zeros(d),
            np.eye(mdim) / fp[F_REG], fp[F_REG] * np.eye(mdim), np.zeros((m, dp)), np.zeros((m, dp)),
            basis, e0, kappa, c0, tau,
            np.array([d * math.log(fp[F_REG]), dp * math.log(fp[F_REG]), 1.0, 1.0, 0.0]),
            np.zeros(2, dtype=np.int64), fp, ip,
            np.zeros(d), np.zeros(d), np.zeros(dp), np.zeros(dp), np.zeros(m),
        )  # fmt: skip
        # read-only live views (the kernels update the state in place and never rebind it)
        self.sigma, self.sigma_inv, self.theta_hat = (_view(self.state[k]) for k in (E_SIG, E_SINV, E_THETA))
        #: ``M`` and ``M^{-1}`` (``Sigma`` and ``Sigma^{-1}`` in the shared layout).
        self.perp_gram = _view(self.state[E_SIG if shared else E_MGRAM])
        self.perp_gram_inv = _view(self.state[E_SINV if shared else E_MINV])

    # -- layout ------------------------------------------------------------------------------------
    @property
    def n_samples(self) -> int:
        return int(self.state[E_ISTATE][S_T])

    @property
    def params(self) -> FloatArray:
        """``fparams``: reg, delta_r, delta_c, R, L, S, alpha_r, alpha_c, reward_scale (kernels read it)."""
        return self.state[E_FP]

    def set_alphas(self, alpha_r: float | None = None, alpha_c: float | None = None) -> None:
        if alpha_r is not None:
            self.params[F_ALPHA_R] = check_positive(alpha_r, "alpha_r", owner="StagewiseEstimator")
        if alpha_c is not None:
            self.params[F_ALPHA_C] = check_positive(alpha_c, "alpha_c", owner="StagewiseEstimator")

    # -- estimates ---------------------------------------------------------------------------------
    @property
    def mu_perp_hat(self) -> FloatArray:
        """``mu_hat^{o,perp}_i = U nu_i`` (rows; the full ``mu_hat_i`` for the full estimator)."""
        return self.state[E_NU] @ self.basis.T

    @property
    def mu_hat(self) -> FloatArray:
        """``(c0_i / ||x0||) e0 + mu_hat^{o,perp}_i`` (rows, shape (m, d))."""
        return self.state[E_KAPPA][:, None] * self.e0[None, :] + self.mu_perp_hat

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
        kr, kc = confidence_radii(self.state)
        fp = self.params
        return float(kr / fp[F_ALPHA_R]), float(kc / fp[F_ALPHA_C])

    @property
    def radii(self) -> tuple[float, float]:
        """``(alpha_r beta_r, alpha_c beta_c)`` of the current round."""
        kr, kc = confidence_radii(self.state)
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

    def refresh(self) -> None:
        stagewise_refresh(self.state)

    # -- closed forms ------------------------------------------------------------------------------
    def _points(self, points: FloatArray) -> FloatArray:
        p = np.ascontiguousarray(np.atleast_2d(np.asarray(points, dtype=np.float64)))
        if p.shape[1] != self.dim:
            raise ConfigError(f"Points must have {self.dim} columns. Got shape {p.shape} instead.")
        return p

    def optimistic_reward(self, points: FloatArray) -> FloatArray:
        """``V~r`` (eq. 9) of every row: ``<x, theta_hat> + alpha_r beta ||x||_{Sigma^{-1}}``."""
        p = self._points(points)
        return p @ self.state[E_THETA] + self.radii[0] * self.reward_norm(p)

    def pessimistic_cost(self, points: FloatArray) -> FloatArray:
        """``V~c_i`` (eq. 10) of every row of ``points``, shape (k, m): ``<x, e0> c0_i / ||x0|| + <U^T x,
        nu_i> + alpha_c beta ||U^T x||_{M^{-1}}`` (full estimator: ``<x, mu_hat_i> + alpha_c beta
        ||x||_{Sigma^{-1}}``)."""
        p = self._points(points)
        lin = np.outer(p @ self.e0, self.state[E_KAPPA]) + (p @ self.basis) @ self.state[E_NU].T
        return lin + self.radii[1] * self.perp_norm(p)[:, None]

    def reward_norm(self, points: FloatArray) -> FloatArray:
        """``||x||_{Sigma^{-1}}`` of every row."""
        p = self._points(points)
        return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", p, self.state[E_SINV], p), 0.0))

    def perp_norm(self, points: FloatArray) -> FloatArray:
        """``||x^{o,perp}||_{(Sigma^{o,perp})^dagger} = ||U^T x||_{M^{-1}}`` of every row."""
        z = self._points(points) @ self.basis
        return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", z, self.perp_gram_inv, z), 0.0))

    def make_table(self, vertices: FloatArray) -> tuple[FloatArray, ...]:
        """Vertex table of ``x0`` (row 0) and the rows of ``vertices``, computed exactly.

        Returns the tuple ``(vx, vx^T, vz, vz^T, table, work, work)`` that :func:`vertex_table`,
        :func:`table_update` and :func:`stagewise_update_table` act on (``vz = vx U`` with row 0 exactly
        0 in the projected layout; empty in the shared one).
        """
        v = self._points(vertices)
        vx = np.ascontiguousarray(np.vstack([self.x0[None, :], v]))
        n = vx.shape[0]
        if self.shared:
            vz = np.zeros((n, 0))
        else:
            vz = np.ascontiguousarray(vx @ self.basis)
            vz[0] = 0.0  # x0 has no component in e0^perp
        tab = np.zeros((n, T_LIN + self.n_constraints))
        tbl = (vx, np.ascontiguousarray(vx.T), vz, np.ascontiguousarray(vz.T), tab, np.zeros(n), np.zeros(n))
        vertex_table(self.state, tbl)
        return tbl

    def ray_scaling(self, vertices: FloatArray) -> FloatArray:
        """Largest pessimistically feasible mixing coefficient ``a_i`` along each ray ``[x0, x_i]``."""
        tab = self.make_table(vertices)[4]
        _, kc = confidence_radii(self.state)
        l0 = np.ascontiguousarray(tab[0, T_LIN:])
        out = np.empty(tab.shape[0] - 1)
        for r in range(1, tab.shape[0]):
            out[r - 1] = ray_scale(
                self.affine, np.ascontiguousarray(tab[r, T_LIN:]), tab[r, T_QC], kc, self.c0, self.tau, l0,
                tab[0, T_SXX], tab[r, T_S0X], tab[r, T_SXX],
            )  # fmt: skip
        return out
