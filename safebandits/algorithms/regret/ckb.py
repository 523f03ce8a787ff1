"""CKB, the constrained kernelized bandit (Zhou & Ji, NeurIPS 2022, Algorithm 1), with GP-UCB, GP-TS and
Rand-GP-UCB exploration (Definitions 1-2; Theorem 1, Corollaries 1-2).

Each round ``t`` (digest ``ckb.md`` §2.2 and §2.8, finite domain):

3. exploration estimates ``f^_t``, ``g^_t`` from the posteriors of ``f`` and ``g`` (``beta_t``, ``beta~_t``
   of Theorem 1 via :func:`~safebandits.estimators.gp.beta_width`):

   * ``"ucb"`` (CKB-UCB): ``f^ = mu + beta sigma`` and ``g^ = mu~ - beta~ sigma~`` (a *lower* bound: the
     negative sequence of Theorem 1, optimistic for the cost);
   * ``"ts"`` (CKB-TS): joint draws ``f^ ~ N(mu, beta^2 Sigma)``, ``g^ ~ N(mu~, beta~^2 Sigma~)`` (jittered
     Cholesky of the full posterior covariances);
   * ``"rand"`` (CKB-Rand): ``f^ = mu + Z sigma``, ``g^ = mu~ + Z~ sigma~`` with *scalars*
     ``Z ~ N(0, beta^2)``, ``Z~ ~ N(0, beta~^2)`` shared by all points, independent of each other;
4-5. truncation ``f- = clip(f^, -B, B)``, ``g- = clip(g^, -G, G)``;
6-7. ``x_t = argmax_x f-(x) - phi_t g-(x)`` (ties broken uniformly at random: at ``t = 1`` every point ties);
8. projected dual step on the algorithm's *own* truncated estimate at ``x_t`` (computed before the update):
   ``phi_{t+1} = Proj_[0, rho](phi_t + (g-_t(x_t) + eps) / V)``;
9. exact rank-one GP updates of both posteriors with ``(x_t, r_t)`` and ``(x_t, c_t)`` (Eqs. (3)-(4)).

Defaults (Theorem 1; digest §7 item 4): ``rho = 4 B / delta`` (``8 B / delta`` with a slack ``eps > 0``)
and ``V = G sqrt(T) / rho``, with ``delta`` the Slater constant told by the instance. Options: the slack
``eps`` of Section 4 (a number, or ``"auto"`` = ``min(delta/2, K^(T)/T)``, :func:`auto_slack`), the
virtual-queue variant (``dual="virtual_queue"``: ``Q_{t+1} = [Q_t + g-_t(x_t) + eps]_+``, action
``argmax V f- - Q g-``, i.e. the dual step without the upper projection), and the dual step on the
observation ``c_t`` (``dual_input="observation"``; not the paper's algorithm).

Deviations and open choices (``docs/decisions/ckb.md``): ``lambda = 1`` by default, ``gamma_t`` by a
heuristic ``log(1 + t)`` by default (greedy and realised information gain are options), a ``beta``
multiplier (default 1), random tie-breaking, the virtual queue being our reading of Section 4.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal, NamedTuple

import numba
import numpy as np
from scipy.special import ndtri as _norm_quantile

from safebandits._limits import MAX_BOX_CANDIDATES
from safebandits._numba import bind_kernel
from safebandits._validation import (
    check_choice,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret._ckb_common import RoundDraws, _pick, _pick_any, dual_step, stale_posterior
from safebandits.estimators.gp import (
    DENSE_MAX_POINTS,
    GP_LIVE,
    FiniteGP,
    GPPosterior,
    InfoGainMode,
    InformationGain,
    LazyGP,
    PointKernel,
    PosteriorMode,
    beta_width,
    cholesky_jittered,
    fit_lengthscale,
    gp_observe,
    resolve_posterior,
)
from safebandits.exceptions import CannotStartError, ConfigError, Fix, ProtocolError
from safebandits.problems.kernel import KernelInfo
from safebandits.records import ArmEstimates, interval_estimates, log_grid
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "CKB",
    "CKB_LIVE",
    "CKBConfig",
    "CKBConstants",
    "CKBState",
    "RoundDraws",
    "auto_slack",
    "check_kernel_info",
    "lazy_pays",
    "resolve_gp_noise",
    "select",
    "update",
]


def check_kernel_info(info: Any, owner: str) -> KernelInfo:
    """``info`` must be a :class:`~safebandits.problems.kernel.KernelInfo` (finite-domain kernel problem)."""
    if not isinstance(info, KernelInfo):
        raise ConfigError(
            f"{owner} needs a kernelized-bandit problem (KernelInfo: kernel matrices, B, G, R, Slater "
            f"constant). Got {type(info).__name__}."
        )
    return info


def resolve_gp_noise(value: float | str, horizon: int) -> float:
    """``lambda``: a positive number, or ``"theory"`` for ``1 + 2 / T`` (Chowdhury & Gopalan's
    ``1 + eta``)."""
    return 1.0 + 2.0 / horizon if value == "theory" else float(value)


def _check_gp_noise(value: Any, name: str, owner: str) -> None:
    if value == "theory":
        return
    check_positive(value, name, owner=owner)


def auto_slack(
    slater: float, horizon: int, bound_c: float, bound_g: float, gamma: float, delta: float, rho: float
) -> float:
    """``eps = min(delta_S / 2, K^(T) / T)`` (digest §2.6; our choice, not the paper's).

    ``K^(T) = G sqrt(T) + (1 + 1/rho) (C sqrt(T gamma) + sqrt(T gamma (gamma + log(2/delta))))`` is the
    violation bound of Theorem 1 as reconstructed in the digest, with unit constants; ``C = max(B, G)``.
    """
    t = float(horizon)
    k_hat = bound_g * math.sqrt(t) + (1.0 + 1.0 / rho) * (
        bound_c * math.sqrt(t * gamma) + math.sqrt(t * gamma * (gamma + math.log(2.0 / delta)))
    )
    return min(0.5 * slater, k_hat / t)


# --------------------------------------------------------------------------------------------------
# compiled round (lines 3-9 of Algorithm 1)
# --------------------------------------------------------------------------------------------------
class CKBConstants(NamedTuple):
    """Fixed settings of one CKB run (read by the compiled kernels)."""

    big_b: float  #: ``B``: truncation bound of ``f`` (line 4)
    big_g: float  #: ``G``: truncation bound of ``g`` (line 5)
    truncate: bool  #: lines 4-5 are applied
    joint: bool  #: the estimates are given joint draws (TS), not ``mean + c sigma`` (UCB, Rand)
    rho: float  #: upper end of the dual interval
    cap: float  #: upper projection of the dual step (``rho``; ``inf`` for the virtual queue)
    step: float  #: ``V``, the inverse dual step
    slack: float  #: ``eps``
    dual_estimate: bool  #: the dual step on ``g-_t(x_t)`` (Algorithm 1) rather than on ``c_t``


#: The scalars of a CKB run that change: the dual variable ``phi_t`` and its running max, sum and rounds
#: at ``rho``, and the round's own truncated estimates ``f-_t(x_t)``, ``g-_t(x_t)`` at the chosen point.
CKB_LIVE = np.dtype(
    [("phi", np.float64), ("phi_max", np.float64), ("phi_sum", np.float64), ("rounds_at_rho", np.int64),
     ("f_est", np.float64), ("g_est", np.float64)]
)  # fmt: skip


class CKBState(NamedTuple):
    """Everything the compiled CKB kernels read and write, by name.

    ``f`` / ``g`` the posteriors of ``f`` and ``g`` (:class:`~safebandits.estimators.gp.GPPosterior`);
    ``f_hat`` / ``g_hat`` (n,) the round's estimates (the TS draws are written there before
    :func:`select`, which leaves the truncated ``f-``, ``g-``); ``scores`` (n,) ``f- - phi g-``;
    ``const`` / ``live`` the fixed and changing scalars (:class:`CKBConstants`, a one-element array of
    dtype :data:`CKB_LIVE` whose record ``live[0]`` the kernels read and write).
    """

    f: GPPosterior
    g: GPPosterior
    f_hat: np.ndarray
    g_hat: np.ndarray
    scores: np.ndarray
    const: CKBConstants
    live: np.ndarray


@numba.njit(cache=True, inline="always")
def _truncate(value, bound, on):
    """Lines 4-5: ``clip(value, -bound, bound)`` if ``on``."""
    return min(max(value, -bound), bound) if on else value


@numba.njit(cache=True)
def select(st, cf, cg, u):
    """Lines 3-7 of Algorithm 1; returns ``x_t`` and leaves ``f-_t(x_t)``, ``g-_t(x_t)`` in ``st.live``.

    3. ``f^ = mu + cf sigma``, ``g^ = mu~ + cg sigma~`` (UCB: ``cf = beta``, ``cg = -beta~``; Rand:
       ``cf = Z``, ``cg = Z~``), or the joint draws already in ``st.f_hat``, ``st.g_hat`` (TS);
    4-5. ``f- = clip(f^, -B, B)``, ``g- = clip(g^, -G, G)`` (written to ``st.f_hat``, ``st.g_hat``);
    6-7. ``x_t = argmax f- - phi g-``, ties broken uniformly at random with ``u``. ``O(n)``.
    """
    c, live = st.const, st.live[0]
    f_hat, g_hat, scores = st.f_hat, st.g_hat, st.scores
    phi = live.phi
    best = -np.inf
    for j in range(scores.shape[0]):
        if c.joint:
            fh, gh = f_hat[j], g_hat[j]
        else:
            fh = st.f.mean[j] + cf * math.sqrt(max(st.f.var[j], 0.0))
            gh = st.g.mean[j] + cg * math.sqrt(max(st.g.var[j], 0.0))
        fh = _truncate(fh, c.big_b, c.truncate)
        gh = _truncate(gh, c.big_g, c.truncate)
        f_hat[j] = fh
        g_hat[j] = gh
        s = fh - phi * gh
        scores[j] = s
        if s > best:
            best = s
    i = _pick_any(scores, best, u)
    live.f_est = f_hat[i]
    live.g_est = g_hat[i]
    return i


@numba.njit(cache=True)
def update(st, i, reward, cost):
    """Lines 8-9 of Algorithm 1 after playing ``x_t`` (index ``i``) and observing ``(r_t, c_t)``:
    :func:`dual_step`, then the rank-one GP updates of both (dense) posteriors
    (:func:`~safebandits.estimators.gp.gp_observe`). Low-rank posteriors are updated outside (``CKB``)."""
    dual_step(st, cost)
    gp_observe(st.f, i, reward)
    gp_observe(st.g, i, cost)


@numba.njit(cache=True)
def lazy_upper_bounds(ub, known, pf, pg, cf, cg, phi, c):
    """Upper bounds of every point's score ``f- - phi g-`` of :func:`select` (UCB or Rand estimates
    ``mu + c sigma``) from lazy posteriors of ``f`` and ``g`` (:class:`~safebandits.estimators.gp.
    LazyCovariance`) as :class:`~safebandits.algorithms.regret._ckb_common.StalePosterior` records ``pf``
    (arcs of ``cf``) and ``pg`` (arcs of ``-cg``), written to ``ub``; ``known`` (n,) is set where ``ub``
    is the exact score; ``c`` CKB's constants. ``O(n)``.

    A point last brought up to date at step ``u < t`` has ``|mu_t - mu_u| <= sqrt(sigma_u^2 - sigma_t^2)
    Z`` (Cauchy-Schwarz, ``Z = ||z_{u..t-1}||``) and ``sigma_t^2 in [rho sigma_u^2, sigma_u^2]`` (``rho``
    the largest shrinkage, from ``log_shrink``), hence ``mu_t + c sigma_t <= mu_u + sigma_u arc_max(Z, c,
    rho)`` (``pf.arc[u]``, :func:`~safebandits.algorithms.regret._ckb_common.arc_table`) and ``mu~_t +
    c~ sigma~_t >= mu~_u - sigma~_u arc_max(Z~, -c~, rho~)`` (``pg.arc[u]``); truncation is monotone and
    ``phi >= 0``. A point up to date gets its exact score (the arithmetic of :func:`select`); a stale
    point's bound is raised by a relative ``1e-9`` against round-off.

    The exact score of a stale point is known without bringing it up to date where truncation decides it
    (issue 43): ``f-`` is ``B`` when the lower bound of ``mu_t + c sigma_t`` (``pf.back``) is at least
    ``B`` (``-B`` when the upper bound is at most ``-B``), and likewise ``g-`` at ``+-G`` (or it does not
    count: ``phi = 0``), both by a relative ``1e-9``. Then ``ub`` is ``f- - phi g-`` computed as
    :func:`select` computes it, and ``known`` is set: the points of an optimistic plateau (every
    unexplored point at ``B`` while ``phi = 0``, a tie :func:`_pick` must see whole) cost no update.
    """
    mf, vf, fresh_f, arc_f, back_f, tf = pf.mean, pf.var, pf.fresh, pf.arc, pf.back, pf.steps
    mg, vg, fresh_g, arc_g, back_g, tg = pg.mean, pg.var, pg.fresh, pg.arc, pg.back, pg.steps
    big_b, big_g, trunc = c.big_b, c.big_g, c.truncate
    for j in range(ub.shape[0]):
        sf = math.sqrt(max(vf[j], 0.0))
        sg = math.sqrt(max(vg[j], 0.0))
        exact_f = fresh_f[j] == tf
        exact_g = fresh_g[j] == tg
        if exact_f:
            fh = mf[j] + cf * sf
        else:
            fh = mf[j] + sf * arc_f[fresh_f[j]]
            if trunc:  # (the score is B, or -B, whatever the update: the bounds on both sides agree)
                lo = mf[j] - sf * back_f[fresh_f[j]]
                if lo - 1e-9 * (1.0 + abs(lo)) >= big_b:
                    fh, exact_f = big_b, True
                elif fh + 1e-9 * (1.0 + abs(fh)) <= -big_b:
                    fh, exact_f = -big_b, True
        if exact_g:
            gh = mg[j] + cg * sg
        else:
            gh = mg[j] - sg * arc_g[fresh_g[j]]
            hi = mg[j] + sg * back_g[fresh_g[j]]
            if trunc and gh - 1e-9 * (1.0 + abs(gh)) >= big_g:
                gh, exact_g = big_g, True
            elif trunc and hi + 1e-9 * (1.0 + abs(hi)) <= -big_g:
                gh, exact_g = -big_g, True
            elif phi == 0.0 and math.isfinite(gh) and math.isfinite(hi):
                exact_g = True  # (fh - 0 * gh is fh for every finite gh)
        fh = _truncate(fh, big_b, trunc)
        gh = _truncate(gh, big_g, trunc)
        s = fh - phi * gh
        if not (exact_f and exact_g):
            s += 1e-9 * (1.0 + abs(s))
        ub[j] = s
        known[j] = exact_f and exact_g


def lazy_argmax(
    ub: np.ndarray,
    exact: Any,
    covariances: tuple[Any, ...],
    scores: np.ndarray,
    u: float,
    first: np.ndarray | None = None,
    known: np.ndarray | None = None,
) -> int:
    """The index :func:`_pick` would return on the exact scores of all points, from upper bounds ``ub``
    (exact for the points up to date in every covariance), bringing up to date only points whose bound
    reaches the best exact score found so far (minus the tie tolerance).

    ``exact(idx)`` brings the points ``idx`` up to date and returns their exact scores; ``first`` (e.g. a
    safe seed) is scored first. Then, repeatedly, the ``k`` stale points of largest bound among those
    reaching ``b - tol(b)`` (``b`` the best exact score so far, ``tol`` :func:`_pick`'s tie tolerance;
    ``k = 16, 32, 64, ...``) are scored, their bounds replaced by their scores, until no stale point
    reaches it. Every point left stale then scores below ``max - tol(max)``: neither the maximiser nor a
    tie; :func:`_pick` runs on the exact scores of the others (``-inf`` elsewhere, written to ``scores``).
    ``known`` (optional, (n,) booleans) marks stale points whose ``ub`` is nevertheless their exact score
    (:func:`lazy_upper_bounds`: decided by truncation). ``ub`` is overwritten.
    """

    if known is not None:
        stale = ~known
    else:
        stale = covariances[0].fresh < covariances[0].steps
        for cov in covariances[1:]:
            if cov is not covariances[0]:
                stale |= cov.fresh < cov.steps
    best = _lazy_best(ub, stale)  # (exact where not stale)
    if first is not None and first.size:
        e = exact(first)
        ub[first] = e
        stale[first] = False
        best = max(best, float(np.max(e)))
    pool = _lazy_pool(ub, stale, _tie_floor(best))
    k = 16
    while pool.size:
        pick = pool if pool.size <= k else pool[np.argpartition(ub[pool], pool.size - k)[pool.size - k :]]
        e = exact(pick)
        ub[pick] = e
        stale[pick] = False
        best = max(best, float(np.max(e)))
        pool = pool[stale[pool] & (ub[pool] >= _tie_floor(best))]
        k *= 2
    _lazy_final(ub, scores, _tie_floor(best))
    return int(_pick(scores, best, u))


@numba.njit(cache=True)
def _lazy_best(ub, stale):
    """The largest ``ub`` where not ``stale`` (``-inf`` if none; NaN ignored, as :func:`select` does)."""
    best = -np.inf
    for j in range(ub.shape[0]):
        if not stale[j] and ub[j] > best:
            best = ub[j]
    return best


@numba.njit(cache=True)
def _lazy_pool(ub, stale, floor):
    """The stale points whose bound reaches ``floor`` (and is above ``-inf``), in index order."""
    out = np.empty(ub.shape[0], dtype=np.int64)
    m = 0
    for j in range(ub.shape[0]):
        if stale[j] and ub[j] >= floor and ub[j] > -np.inf:
            out[m] = j
            m += 1
    return out[:m]


@numba.njit(cache=True)
def _lazy_final(ub, scores, floor):
    """``scores`` = ``ub`` where it reaches ``floor`` (exact there), ``-inf`` elsewhere."""
    for j in range(ub.shape[0]):
        scores[j] = ub[j] if ub[j] >= floor else -np.inf


def _tie_floor(best: float) -> float:
    """The lowest score :func:`_pick` counts as a tie of ``best`` (``best`` itself when it is not finite:
    no tolerance is taken from an infinite score)."""
    return best - 1e-12 * (1.0 + abs(best)) if math.isfinite(best) else best


#: A posterior record without points: the state of a CKB on a box (its compiled dual step reads none).
_EMPTY_GP = GPPosterior(
    np.zeros(0),
    np.zeros((0, 0)),
    np.zeros(0),
    np.zeros(0, dtype=np.int64),
    np.zeros(0),
    np.zeros(0),
    1.0,
    np.zeros(1, dtype=GP_LIVE),
)


# --------------------------------------------------------------------------------------------------
# config and learner
# --------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class GPBanditConfig(LearnerConfig):
    """The fields CKB and its safe-seed baselines (StageOpt, SGP-UCB) share.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Failure probability of the confidence bounds (the paper's lost symbol, "alpha" in the digest); it
        enters ``beta_t`` as ``log(2 / delta)``.
    gp_noise : float > 0 or "theory", default 1.0
        ``lambda`` of the surrogate GP for ``f`` (``"theory"``: ``1 + 2/T``).
    info_gain : {"heuristic", "greedy", "realised"}, default "heuristic"
        ``gamma_t`` in ``beta_t`` (:class:`~safebandits.estimators.gp.InformationGain`).
    beta_scale : float > 0, default 1.0
        Multiplier of ``beta_t`` and ``beta~_t`` (values below 1 void the guarantee).
    horizon : int >= 1 or None, default None
        ``T`` (default: ``info.horizon``).
    posterior : {"auto", "dense", "lowrank"}, default "auto"
        How the two GP posteriors are kept (:class:`~safebandits.estimators.gp.FiniteGP`): the dense
        ``n x n`` covariance (``O(n^2)`` per round), or ``O(min(t, n) n)`` rows of the incremental Cholesky
        factor (shared by ``f`` and ``g`` when their kernels and ``lambda`` agree); ``"auto"`` is dense on
        at most 512 points given as a matrix, low-rank otherwise. The same posterior up to round-off.
    hyperparameters : {"known", "ml"}, default "known"
        ``"ml"``: the kernel's lengthscale is refitted from the data by type-II maximum likelihood
        (:func:`~safebandits.estimators.gp.fit_lengthscale`, L-BFGS-B) after ``ml_start``, ``2 ml_start``,
        ``4 ml_start``, ... observations, and both posteriors are conditioned anew on all the data with
        the fitted kernel (CKB and SGP-UCB; needs a kernel on coordinates,
        :class:`~safebandits.estimators.gp.PointKernel`). The kernel variance and ``lambda`` are kept
        (the likelihood takes ``lambda`` as the noise variance: set ``gp_noise`` near it for a meaningful
        fit). **The guarantees are lost**: Theorem 1's
        bounds (and the baselines' safety) assume the kernel is known; a fitted kernel depends on the
        data it then judges.
    ml_start : int >= 1, default 20
        Observations before the first fit (then doubling).
    accuracy_c : float > 0 or None, default None
        On a box (``info.box``): ``C`` of the accuracy ``eps_t = C / sqrt(t)`` to which the acquisition
        is maximised each round (Zhou & Ji, footnote 4; the L-BFGS-B stopping rule,
        :func:`~safebandits.estimators.box_search.maximise_on_box`). ``None``: ``max(B, G)``, the
        constant the paper calls ``C`` (Theorem 1). Unused on a finite domain.
    box_candidates : int >= 1, default 256
        On a box: random candidates per round (from the learner's generator) before the local search;
        CKB-TS draws jointly at them.
    box_starts : int >= 0, default 3
        On a box: L-BFGS-B runs per round, from the best candidates.
    """

    delta: float = 0.05
    gp_noise: float | str = 1.0
    info_gain: InfoGainMode = "heuristic"
    beta_scale: float = 1.0
    horizon: int | None = None
    posterior: PosteriorMode = "auto"
    hyperparameters: Literal["known", "ml"] = "known"
    ml_start: int = 20
    accuracy_c: float | None = None
    box_candidates: int = 256
    box_starts: int = 3

    def __post_init__(self) -> None:
        owner = type(self).__name__
        if self.accuracy_c is not None:
            check_positive(self.accuracy_c, "accuracy_c", owner=owner)
        check_int(self.box_candidates, "box_candidates", low=1, high=MAX_BOX_CANDIDATES, owner=owner)
        check_int(self.box_starts, "box_starts", low=0, high=100, owner=owner)
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        _check_gp_noise(self.gp_noise, "gp_noise", owner)
        check_literal_fields(self, owner=owner)
        check_positive(self.beta_scale, "beta_scale", owner=owner)
        if self.horizon is not None:
            check_int(self.horizon, "horizon", low=1, owner=owner)
        check_int(self.ml_start, "ml_start", low=1, owner=owner)


def reward_and_constraint(observation: Any, owner: str) -> tuple[float, float]:
    """``(reward, first constraint value)`` of a coupled observation, or a :class:`ProtocolError`."""
    if (
        not isinstance(observation, Observation)
        or observation.reward is None
        or observation.constraints is None
    ):
        raise ProtocolError(f"{owner} must be told an Observation with a reward and one constraint value.")
    return float(observation.reward), float(observation.constraints[0])


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class CKBConfig(GPBanditConfig):
    """Configuration of :class:`CKB`.

    Parameters
    ----------
    exploration : {"ucb", "ts", "rand"}, default "ucb"
        GP-UCB (Theorem 1), GP-TS (Corollary 1 (ii)) or Rand-GP-UCB with Gaussian ``Z`` (Corollary 2).
    delta, gp_noise, info_gain, beta_scale, horizon
        As :class:`GPBanditConfig` (``horizon`` is the ``T`` in ``V``).
    constraint_gp_noise : float > 0, "theory" or None, default None
        ``lambda~`` for ``g`` (``None``: same as ``gp_noise``).
    rho : float > 0 or None, default None
        Upper end of the dual interval (``None``: ``4 B / delta_S``, ``8 B / delta_S`` with a slack).
    step : float > 0 or None, default None
        ``V``, the inverse dual step (``None``: ``G sqrt(T) / rho``).
    slack : float >= 0 or "auto", default 0.0
        ``eps`` of Section 4 (``"auto"``: :func:`auto_slack`).
    dual : {"projected", "virtual_queue"}, default "projected"
        Algorithm 1's projected step, or the virtual queue (no upper projection; digest §2.7).
    dual_input : {"estimate", "observation"}, default "estimate"
        The dual step on ``g-_t(x_t)`` (Algorithm 1) or on the observed ``c_t`` (not the paper's).
    truncate : bool, default True
        Lines 4-5 (clip the estimates to ``[-B, B]`` and ``[-G, G]``).
    jitter : float > 0, default 1e-10
        Relative diagonal jitter of the TS Cholesky factorisations.
    refresh_every : int >= 0, default 0
        Exact posterior recomputation period (0: rank-one updates only; dense posterior only).
    ts_sampling : {"auto", "joint", "candidates"}, default "auto"
        CKB-TS draws: ``"joint"`` over the whole domain (Cholesky of the ``n x n`` covariances, ``O(n^3)``
        per round; the paper's Definition 1), or ``"candidates"``: joint draws on the ``ts_candidates``
        points of largest wide optimistic score only (:meth:`CKB.ts_candidates`; an approximation, the
        other points are not played that round). ``"auto"``: joint on at most 512 points given as a
        matrix, candidates otherwise (``docs/decisions/ckb.md``).
    ts_candidates : int >= 1, default 200
        Size of the candidate set of ``ts_sampling="candidates"``.
    updates : {"auto", "eager", "lazy"}, default "auto"
        How the low-rank posterior is brought up to date (issue 33; ``docs/decisions/ckb.md``):
        ``"eager"`` updates every point's mean and variance each round (:class:`~safebandits.estimators.
        gp.LowRankCovariance`, ``O(t n)`` per round, reading the whole ``t x n`` factor); ``"lazy"``
        brings a point up to date only when its score could be the round's maximum (bounded by
        Cauchy-Schwarz since its last update, :func:`lazy_upper_bounds`; :class:`~safebandits.estimators.
        gp.LazyGP`): the same posterior and the same argmax (ties included) up to round-off, at a cost
        that depends on how many points come near the top. ``"auto"``: lazy for CKB-UCB and CKB-Rand on
        the low-rank posterior with known hyperparameters where a whole run is cheaper lazily (``500 <=
        T <= n`` and ``T n >= 4e6``, :func:`lazy_pays`; issue 43), eager otherwise. ``"lazy"``
        uses the low-rank factorisation whatever ``posterior`` says (not ``"dense"``); CKB-TS reads every
        point each round, so lazy updates save it nothing.
    """

    exploration: Literal["ucb", "ts", "rand"] = "ucb"
    constraint_gp_noise: float | str | None = None
    rho: float | None = None
    step: float | None = None
    slack: float | str = 0.0
    dual: Literal["projected", "virtual_queue"] = "projected"
    dual_input: Literal["estimate", "observation"] = "estimate"
    truncate: bool = True
    jitter: float = 1e-10
    refresh_every: int = 0
    ts_sampling: Literal["auto", "joint", "candidates"] = "auto"
    ts_candidates: int = 200
    updates: Literal["auto", "eager", "lazy"] = "auto"

    def __post_init__(self) -> None:
        GPBanditConfig.__post_init__(self)  # (zero-argument super() fails in slotted dataclasses)
        owner = type(self).__name__
        if self.constraint_gp_noise is not None:
            _check_gp_noise(self.constraint_gp_noise, "constraint_gp_noise", owner)
        for name in ("rho", "step"):
            if getattr(self, name) is not None:
                check_positive(getattr(self, name), name, owner=owner)
        if self.slack != "auto":
            check_positive(self.slack, "slack", owner=owner, allow_zero=True)
        check_choice(self.truncate, "truncate", (True, False), owner=owner)
        check_positive(self.jitter, "jitter", owner=owner)
        check_int(self.refresh_every, "refresh_every", low=0, owner=owner)
        check_int(self.ts_candidates, "ts_candidates", low=1, owner=owner)
        _check_updates(self, owner)
        if self.refresh_every and self.posterior == "lowrank":
            raise ConfigError(
                f"{owner}: refresh_every needs posterior='dense' (or 'auto' on a small domain)."
            )


_VARIANTS = {
    "ucb": "CKB-UCB: primal-dual GP-UCB / LCB on a soft constraint (Zhou & Ji, Algorithm 1, Theorem 1).",
    "ts": "CKB-TS: primal-dual with joint GP posterior draws (Zhou & Ji, Algorithm 1, Corollary 1).",
    "rand": "CKB-Rand: primal-dual Rand-GP-UCB, one Gaussian scalar per round (Zhou & Ji, Corollary 2).",
}


def _with_lengthscale(kernel: PointKernel, lengthscale: float) -> PointKernel:
    return PointKernel(
        kernel.points, kernel.kind, lengthscale=lengthscale, variance=kernel.variance, nu=kernel.nu
    )


def _same_kernel(a: Any, b: Any) -> bool:
    """The two kernels are the same (the same object, or equal matrices of the same shape)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and bool(np.array_equal(a, b))
    return False


def _check_updates(config: Any, owner: str) -> None:
    """``updates="lazy"`` needs the low-rank posterior and a known kernel."""
    if config.updates == "lazy" and (config.posterior == "dense" or config.hyperparameters == "ml"):
        raise ConfigError(
            f"{owner}: updates='lazy' needs the low-rank posterior (posterior 'auto' or 'lowrank') and "
            "known hyperparameters."
        )


#: ``updates="auto"`` is lazy only for runs of at least this many rounds (issue 43; measured: at
#: ``T = 300`` eager is cheaper over the whole run at every size up to 10,000 points and 20,000 points; the
#: per-round cost of the lazy bounds, ``O(n)``, is not repaid; ``docs/decisions/ckb.md``).
LAZY_MIN_HORIZON = 500
#: ... and whose factor ``W`` reaches at least this many entries (``T n``; 32 MB, the size of the last-level
#: cache of the machine measured): below it the eager update reads its factor from cache and stays
#: cheaper (measured: 1.15-1.4x at 1,000 and 2,000 points with ``T = 1,000``).
LAZY_MIN_ENTRIES = 4_000_000


#: SGP-UCB's thresholds (its lazy rounds are cheaper: no dual variable, a safe set that excludes points
#: outright; measured lazy at 0.82x eager at 5,000 points and ``T = 300``, 0.84x at 1,000 / 1,000, 1.56x at
#: 500 / 300 and 1,000 / 300).
SGP_LAZY_MIN_HORIZON, SGP_LAZY_MIN_ENTRIES = 1, 1_000_000


def lazy_pays(
    n_points: int,
    horizon: int,
    min_horizon: int = LAZY_MIN_HORIZON,
    min_entries: int = LAZY_MIN_ENTRIES,
) -> bool:
    """Whether ``updates="auto"`` makes a lazy posterior of ``n_points`` points for a run of ``horizon``
    rounds (the whole-run cost rule of issue 43; CKB's thresholds :data:`LAZY_MIN_HORIZON` and
    :data:`LAZY_MIN_ENTRIES` by default): ``min_horizon <= T <= n`` and ``T n >= min_entries``. (``T > n``:
    the eager factor turns dense at ``t = n`` and each round then costs ``O(n^2)``, while the lazy
    ``T x T`` factor ``L`` outgrows ``W``.)"""
    return min_horizon <= horizon <= n_points and horizon * n_points >= min_entries


def _resolve_updates(
    config: Any, info: KernelInfo, horizon: int, applies: bool, thresholds: tuple[int, int] | None = None
) -> bool:
    """Whether a learner's posteriors are lazy (its ``updates`` option; see :class:`CKBConfig`):
    ``"auto"`` is lazy where ``applies`` (the learner's acquisition is bounded lazily) on the low-rank
    posterior with known hyperparameters, where a whole run is cheaper lazily (:func:`lazy_pays`, with
    the learner's ``thresholds``: ``(min_horizon, min_entries)``, CKB's by default)."""
    if getattr(info, "box", None) is not None or config.updates == "eager":
        return False
    if config.updates == "lazy":
        return True
    return (
        applies
        and config.hyperparameters == "known"
        and resolve_posterior(config.posterior, info.kernel) == "lowrank"
        and resolve_posterior(config.posterior, info.constraint_kernel) == "lowrank"
        and lazy_pays(info.n_points, horizon, *(thresholds or (LAZY_MIN_HORIZON, LAZY_MIN_ENTRIES)))
    )


class GPPairLearner(BaseLearner):
    """What CKB and the safe-seed baselines (StageOpt, SGP-UCB) share: surrogate GPs of ``f`` and ``g``
    (``self.gp_f``, ``self.gp_g``), their information gains, the horizon ``T`` and ``beta_t``, ``beta~_t``
    (:meth:`betas`, the one implementation of Theorem 1's widths)."""

    def _applied_options(self) -> dict[str, Any]:
        c = self.config
        lam, lam_g = getattr(self, "_gp_noises", None) or (  # (a learner restored from an older state)
            resolve_gp_noise(c.gp_noise, self.horizon),
            resolve_gp_noise(getattr(c, "constraint_gp_noise", None) or c.gp_noise, self.horizon),
        )
        out: dict[str, Any] = {"gp_noise": lam, "horizon": self.horizon}
        if hasattr(self.config, "constraint_gp_noise"):
            out["constraint_gp_noise"] = lam_g
        if self.box is None and getattr(self.config, "posterior", None) == "auto":
            mode = getattr(self.gp_f, "mode", "auto")
            out["posterior"] = "lowrank" if mode == "lazy" else mode  # (lazy: a low-rank posterior)
        if getattr(self.config, "updates", None) == "auto":
            out["updates"] = "lazy" if getattr(self, "lazy", False) else "eager"
        return out

    def _init_gps(self, config: GPBanditConfig, info: KernelInfo, lam: float, lam_g: float,
                  refresh_every: int = 0, lazy: bool = False) -> None:  # fmt: skip
        #: ``lambda`` and ``lambda~`` as applied (``gp_noise="theory"`` resolved; :meth:`applied_config`).
        self._gp_noises = (float(lam), float(lam_g))
        #: The continuous domain (``info.box``), or ``None`` for a finite one.
        self.box = getattr(info, "box", None)
        if self.box is not None:
            from safebandits.algorithms.regret.ckb_box import box_gps, check_box_options

            check_box_options(config, type(self).__name__)
            self.gp_f, self.gp_g = box_gps(info, lam, lam_g, self.horizon)
            self._next_fit = config.ml_start
            self.fitted: list[tuple[int, float, float]] = []
            self._gain_f = InformationGain(config.info_gain, info.kernel, lam, self.horizon)
            self._gain_g = InformationGain(config.info_gain, info.constraint_kernel, lam_g, self.horizon)
            return
        mode = resolve_posterior(config.posterior, info.kernel)
        mode_g = resolve_posterior(config.posterior, info.constraint_kernel)
        if lazy:
            # the lazy exact posterior (updates="lazy"): each point brought up to date when needed
            self.gp_f = LazyGP(info.kernel, lam, capacity=self.horizon)
            if lam == lam_g and _same_kernel(info.kernel, info.constraint_kernel):
                self.gp_g = LazyGP(info.constraint_kernel, lam_g, covariance=self.gp_f.lowrank)
            else:
                self.gp_g = LazyGP(info.constraint_kernel, lam_g, capacity=self.horizon)
        elif mode == "lowrank" and mode_g == "lowrank":
            self.gp_f = FiniteGP(info.kernel, lam, posterior="lowrank", capacity=self.horizon)
            if lam == lam_g and _same_kernel(info.kernel, info.constraint_kernel):
                # the covariance does not depend on the values: one for both posteriors
                self.gp_g = FiniteGP(info.constraint_kernel, lam_g, covariance=self.gp_f.lowrank)
            else:
                self.gp_g = FiniteGP(
                    info.constraint_kernel, lam_g, posterior="lowrank", capacity=self.horizon
                )
        else:
            mode = mode_g = "dense"
            self.gp_f = FiniteGP(info.kernel, lam, refresh_every=refresh_every, posterior=mode)
            self.gp_g = FiniteGP(info.constraint_kernel, lam_g, refresh_every=refresh_every, posterior=mode_g)
        if config.hyperparameters == "ml":
            for k in (info.kernel, info.constraint_kernel):
                if not isinstance(k, PointKernel):
                    raise ConfigError(
                        f"{type(self).__name__}: hyperparameters='ml' refits a kernel on coordinates; give "
                        "KernelInfo a PointKernel (points, kind, lengthscale) or use hyperparameters='known'."
                    )
        self._next_fit = config.ml_start
        #: Lengthscales fitted so far: ``(observations, lengthscale of f's kernel, of g's)``.
        self.fitted: list[tuple[int, float, float]] = []
        self._gain_f = InformationGain(config.info_gain, info.kernel, lam, self.horizon)
        self._gain_g = InformationGain(config.info_gain, info.constraint_kernel, lam_g, self.horizon)

    def _maybe_refit(self) -> None:
        """Type-II ML refit of the lengthscales on the doubling schedule (``hyperparameters="ml"``)."""
        if self.config.hyperparameters != "ml" or self.gp_f.n_obs < self._next_fit:
            return
        self._next_fit = 2 * max(self._next_fit, self.gp_f.n_obs)
        gf, gg = self.gp_f, self.gp_g
        if gf.kernel is gg.kernel and gf.noise_var == gg.noise_var:
            ls = fit_lengthscale(gf.kernel, gf.noise_var, [(gf.counts, gf.sums), (gg.counts, gg.sums)])
            new_f = new_g = _with_lengthscale(gf.kernel, ls)
        else:
            new_f = _with_lengthscale(
                gf.kernel, fit_lengthscale(gf.kernel, gf.noise_var, [(gf.counts, gf.sums)])
            )
            new_g = _with_lengthscale(
                gg.kernel, fit_lengthscale(gg.kernel, gg.noise_var, [(gg.counts, gg.sums)])
            )
        gf.set_kernel(new_f)
        gg.set_kernel(new_g)
        self.fitted.append((gf.n_obs, new_f.lengthscale, new_g.lengthscale))

    def betas(self, t: int | None = None) -> tuple[float, float]:
        """``(beta_t, beta~_t)`` of round ``t`` (default: the next round), both positive:
        ``beta_t = s (B + R sqrt(2 (gamma_{t-1} + 1 + log(2 / delta))))`` and the same with ``G``, ``R~``,
        ``gamma~_{t-1}`` (:func:`~safebandits.estimators.gp.beta_width`)."""
        t = self.n_samples + 1 if t is None else t
        c, info = self.config, self.info
        gf = self._gain_f(t - 1, self.gp_f)
        gg = self._gain_g(t - 1, self.gp_g)
        return (
            beta_width(float(info.reward_bound), info.noise_bound, gf, c.delta, c.beta_scale),
            beta_width(float(info.constraint_bound), info.constraint_noise_bound, gg, c.delta, c.beta_scale),
        )

    def arm_estimates(self) -> ArmEstimates | None:
        """Per point: the posterior means of ``f`` (reward) and ``g`` (constraint, safe when ``g <= 0``)
        -+ ``beta_t sigma_t`` and ``beta~_t sigma~_t`` (the widths of the next round, Theorem 1).
        ``None`` on a box (no finite set of points)."""
        if not isinstance(self.gp_f, FiniteGP):  # (a box posterior: no finite set of points)
            return None
        beta, beta_g = self.betas()
        est = np.column_stack([self.gp_f.mean, self.gp_g.mean])
        radius = np.column_stack([beta * self.gp_f.std(), beta_g * self.gp_g.std()])
        how = "GP posterior mean -+ beta_t sigma_t (Theorem 1); safe when g <= 0"
        return interval_estimates(
            ["reward f", "constraint g"], est, radius, [None, 0.0], unit="point", interval=how
        )


class CKB(GPPairLearner):
    """Constrained kernelized bandit (Algorithm 1) on a finite domain.

    Parameters
    ----------
    config : CKBConfig
    info : KernelInfo
        Kernels ``k``, ``k~``, bounds ``B``, ``G``, ``R``, ``R~``, Slater constant ``delta_S``, horizon.
    rng : numpy.random.Generator
        Learner randomness: tie-breaking uniforms, the scalars ``Z``, ``Z~`` (Rand) or the standard normals of
        the joint draws (TS), in blocks.

    Notes
    -----
    Glossary (paper -> code): ``mu_t, sigma_t, k_t`` -> ``self.gp_f`` (``mu~``... -> ``self.gp_g``);
    ``beta_t, beta~_t`` -> :meth:`betas`; ``phi_t`` -> ``self.phi``; ``rho`` -> ``self.rho``; ``V`` ->
    ``self.step``; ``eps`` -> ``self.slack``; ``f-_t(x_t), g-_t(x_t)`` -> ``self.last_estimates``.
    The round itself is two compiled kernels on a :class:`CKBState` (``self.state``): :func:`select`
    (lines 3-7) and :func:`update` (lines 8-9).

    Guarantee (Theorem 1): with ``rho >= 4 B / delta_S``, ``V = G sqrt(T) / rho``, the theory ``beta_t`` and
    sub-Gaussian noise, ``R+(T)`` and ``V(T)`` are ``O~(sqrt(T gamma_T))`` with probability at least
    ``1 - delta``; the heuristic ``gamma_t`` and ``beta_scale < 1`` void it. Applicability: finite domains;
    ``O(n^2)`` memory and work per round with the dense posterior (``posterior="dense"``, the default up
    to 512 points), ``O(min(t, n) n)`` with the low-rank one (``10^5`` points and ``T = 1000`` fit in
    under 2 GB with a :class:`~safebandits.estimators.gp.PointKernel`), which UCB and Rand bring up to
    date lazily (``updates``: each point when its score could be the maximum, the same decisions); TS
    ``O(n^3)`` with joint draws, ``O(m^2 t + m^3)`` on ``m`` candidates (``ts_sampling``).
    Deviations: see the module docstring and ``docs/decisions/ckb.md``.
    """

    config_cls = CKBConfig
    setting = "round"

    def __init__(self, config: CKBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        info = check_kernel_info(info, "CKB")
        c = config
        n = info.n_points
        self.horizon = int(c.horizon if c.horizon is not None else info.horizon)
        lam = resolve_gp_noise(c.gp_noise, self.horizon)
        lam_g = resolve_gp_noise(
            c.constraint_gp_noise if c.constraint_gp_noise is not None else c.gp_noise, self.horizon
        )
        #: Whether the posteriors are lazy (:class:`~safebandits.estimators.gp.LazyGP`; ``updates``).
        self.lazy = _resolve_updates(c, info, self.horizon, c.exploration in ("ucb", "rand"))
        self._init_gps(c, info, lam, lam_g, c.refresh_every, lazy=self.lazy)
        big_b, big_g = float(info.reward_bound), float(info.constraint_bound)
        self.slater = float(info.slater)
        if c.slack == "auto":
            rho0 = c.rho if c.rho is not None else 8.0 * big_b / self.slater
            gamma_t = (
                max(self._gain_f(self.horizon), self._gain_g(self.horizon))
                if c.info_gain != "realised"
                else math.log1p(self.horizon)
            )
            slack = auto_slack(self.slater, self.horizon, max(big_b, big_g), big_g, gamma_t, c.delta, rho0)
        else:
            slack = float(c.slack)
        rho = float(c.rho) if c.rho is not None else (8.0 if slack > 0 else 4.0) * big_b / self.slater
        step = float(c.step) if c.step is not None else big_g * math.sqrt(self.horizon) / rho
        const = CKBConstants(
            big_b=big_b, big_g=big_g, truncate=bool(c.truncate), joint=c.exploration == "ts", rho=rho,
            cap=math.inf if c.dual == "virtual_queue" else rho, step=step, slack=slack,
            dual_estimate=c.dual_input == "estimate",
        )  # fmt: skip
        live_block = np.zeros(1, dtype=CKB_LIVE)
        live_block[0]["f_est"] = live_block[0]["g_est"] = math.nan
        if self.box is not None:  # a continuous domain (.ckb_box)
            from safebandits.algorithms.regret.ckb_box import init_box_ckb

            self.state = CKBState(
                _EMPTY_GP, _EMPTY_GP, np.zeros(0), np.zeros(0), np.zeros(0), const, live_block
            )
            init_box_ckb(self, rng, big_b, big_g)
            return
        self.state = CKBState(self.gp_f.state, self.gp_g.state, np.zeros(n), np.zeros(n), np.zeros(n), const,
                              live_block)  # fmt: skip
        #: ``"joint"`` or ``"candidates"`` (CKB-TS draws; ``ts_sampling`` resolved).
        self.ts_sampling = c.ts_sampling
        if c.ts_sampling == "auto":
            small = not isinstance(info.kernel, PointKernel) and n <= DENSE_MAX_POINTS
            self.ts_sampling = "joint" if small else "candidates"
        self._n_draw = n if self.ts_sampling == "joint" else min(int(c.ts_candidates), n)
        CKB._make_views(self)
        self._draws = RoundDraws(
            rng, 2 * self._n_draw if c.exploration == "ts" else (2 if c.exploration == "rand" else 0)
        )
        self._select = bind_kernel(select, (self.state, 1.0, -1.0, 0.5))
        self._ub = np.zeros(n if self.lazy else 0)
        self._known = np.zeros(n if self.lazy else 0, dtype=np.bool_)
        self._bounds: Any = None  # (lazy_upper_bounds, bound on the first lazy round)
        self._dense = self.gp_f.lowrank is None and self.gp_g.lowrank is None
        if self._dense:
            self._update = bind_kernel(update, (self.state, 0, 0.0, 0.0))
        else:
            self._update = bind_kernel(dual_step, (self.state, 0.0))
        # dual-path diagnostics
        self._grid = set(log_grid(self.horizon, 60).tolist())
        self.phi_path: list[tuple[int, float]] = []
        self.jitter_used = 0.0

    # a view of the state record kept beside it: a copy or a pickle leaves it out and makes it again
    # (Rebinding)
    _views = ("live",)

    def _make_views(self) -> None:
        #: The changing scalars (the record of ``state.live``, a view: the kernels' writes show here).
        self.live = self.state.live[0]

    # -- named views of the state --------------------------------------------------------------------
    @property
    def big_b(self) -> float:
        return self.state.const.big_b

    @property
    def big_g(self) -> float:
        return self.state.const.big_g

    @property
    def rho(self) -> float:
        return self.state.const.rho

    @property
    def step(self) -> float:
        return self.state.const.step

    @property
    def slack(self) -> float:
        return self.state.const.slack

    @property
    def phi(self) -> float:
        return float(self.live["phi"])

    @property
    def phi_max(self) -> float:
        return float(self.live["phi_max"])

    @property
    def phi_sum(self) -> float:
        return float(self.live["phi_sum"])

    @property
    def rounds_at_rho(self) -> int:
        return int(self.live["rounds_at_rho"])

    @property
    def last_estimates(self) -> tuple[float, float]:
        """``(f-_t(x_t), g-_t(x_t))`` of the last round asked (``nan`` before the first)."""
        return float(self.live["f_est"]), float(self.live["g_est"])

    # -- read-only diagnostics ----------------------------------------------------------------------
    def confidence_bounds(self) -> dict[str, FloatArray]:
        """Current ``mu -+ beta sigma`` of ``f`` and ``g`` (the bounds of the next round), shape (n,) each."""
        if self.box is not None:
            raise ConfigError(
                "CKB.confidence_bounds lists a finite domain's points; on a box evaluate gp_f / gp_g."
            )
        beta, beta_g = self.betas()
        sf, sg = self.gp_f.std(), self.gp_g.std()
        mf, mg = self.gp_f.mean, self.gp_g.mean
        return {"f_lower": mf - beta * sf, "f_upper": mf + beta * sf, "g_lower": mg - beta_g * sg,
                "g_upper": mg + beta_g * sg}  # fmt: skip

    def diagnostics(self) -> dict[str, Any]:
        """Dual variable (final, max, mean, rounds at rho, path on a log grid), rho, V, eps, beta_T."""
        t = max(self.n_samples, 1)
        beta, beta_g = self.betas()
        return {
            "phi": self.phi,
            "phi_max": self.phi_max,
            "phi_mean": self.phi_sum / t,
            "rounds_at_rho": self.rounds_at_rho,
            "rho": self.rho,
            "step": self.step,
            "slack": self.slack,
            "slater": self.slater,
            "beta": beta,
            "beta_g": beta_g,
            "info_gain_f": self.gp_f.info_gain,
            "jitter_used": self.jitter_used,
            "phi_path": self.phi_path,
            **({} if self.box is None else self.search.diagnostics()),
        }

    # -- protocol -----------------------------------------------------------------------------------
    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError("CKB plays a fixed domain; ask() takes no context.")
        if self.box is not None:
            from safebandits.algorithms.regret.ckb_box import ask_box_ckb

            return ask_box_ckb(self)
        beta, beta_g = self.betas()
        u, z = self._draws.next()
        c = self.config
        if c.exploration == "ts" and self.ts_sampling == "candidates":
            return Decision(arm=self._ts_candidates_round(beta, beta_g, u, z))
        if c.exploration == "ts":
            gf, gg, st = self.gp_f, self.gp_g, self.state
            n = gf.mean.shape[0]
            low_f, eps_f = cholesky_jittered(gf.cov, c.jitter)
            low_g, eps_g = cholesky_jittered(gg.cov, c.jitter)
            self.jitter_used = max(self.jitter_used, eps_f, eps_g)
            st.f_hat[:] = gf.mean + beta * (low_f @ z[:n])
            st.g_hat[:] = gg.mean + beta_g * (low_g @ z[n:])
            cf = cg = 0.0
        elif c.exploration == "ucb":
            cf, cg = beta, -beta_g
        else:
            cf, cg = beta * float(z[0]), beta_g * float(z[1])
        if self.lazy:
            return Decision(arm=self._lazy_select(cf, cg, u))
        return Decision(arm=int(self._select(self.state, cf, cg, u)))

    def _lazy_select(self, cf: float, cg: float, u: float) -> int:
        """Lines 3-7 on lazy posteriors: the same ``x_t`` as :func:`select` (ties included), bringing up
        to date only the points whose score could reach the maximum (:func:`lazy_upper_bounds`,
        :func:`lazy_argmax`)."""
        gf, gg = self.gp_f, self.gp_g
        cov_f, cov_g = gf.lowrank, gg.lowrank
        phi = float(self.live["phi"])
        ub = self._ub
        known = getattr(self, "_known", None)
        if known is None:  # (a learner restored from an older state: its bounds had no such output)
            known = self._known = np.zeros(ub.shape[0], dtype=np.bool_)
            self._bounds = None
        args = (ub, known, stale_posterior(gf, cf), stale_posterior(gg, -cg), cf, cg, phi, self.state.const)
        if self._bounds is None:
            self._bounds = bind_kernel(lazy_upper_bounds, args)
        self._bounds(*args)
        i = lazy_argmax(ub, lambda idx: self._exact_scores(idx, cf, cg, phi)[0], (cov_f, cov_g),
                        self.state.scores, u, known=known)  # fmt: skip
        if i < 0:  # (no finite score: CKB has no candidate set, every point is one)
            i = min(int(u * ub.shape[0]), ub.shape[0] - 1)
        _, fh, gh = self._exact_scores(np.array([i]), cf, cg, phi)
        self.live["f_est"], self.live["g_est"] = fh[0], gh[0]
        return i

    def _exact_scores(
        self, idx: np.ndarray, cf: float, cg: float, phi: float
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(f- - phi g-, f-, g-)`` at the points ``idx``, brought up to date first (the arithmetic of
        :func:`select`)."""
        gf, gg, c = self.gp_f, self.gp_g, self.state.const
        gf.lowrank.refresh(idx)
        if gg.lowrank is not gf.lowrank:
            gg.lowrank.refresh(idx)
        fh = gf._mean[idx] + cf * np.sqrt(np.maximum(gf.lowrank.var[idx], 0.0))
        gh = gg._mean[idx] + cg * np.sqrt(np.maximum(gg.lowrank.var[idx], 0.0))
        if c.truncate:
            fh = np.minimum(np.maximum(fh, -c.big_b), c.big_b)
            gh = np.minimum(np.maximum(gh, -c.big_g), c.big_g)
        return fh - phi * gh, fh, gh

    def ts_candidates(self, beta: float, beta_g: float) -> np.ndarray:
        """The points CKB-TS draws at with ``ts_sampling="candidates"`` (sorted indices).

        The ``m = ts_candidates`` points of largest wide optimistic score
        ``clip(mu + q beta sigma) - phi clip(mu~ - q beta~ sigma~)`` with ``q = Phi^{-1}(1 - 1/n)`` (about
        the largest of ``n`` standard normals), the points a draw ``N(mu, beta^2 sigma^2)`` could make
        the round's maximiser. ``O(n)``.
        """
        gf, gg, c = self.gp_f, self.gp_g, self.state.const
        n = gf.mean.shape[0]
        m = self._n_draw
        if m >= n:
            return np.arange(n)
        q = float(_norm_quantile(1.0 - 1.0 / n))
        fu = gf.mean + (q * beta) * gf.std()
        gl = gg.mean - (q * beta_g) * gg.std()
        if c.truncate:
            np.clip(fu, -c.big_b, c.big_b, out=fu)
            np.clip(gl, -c.big_g, c.big_g, out=gl)
        score = fu - self.phi * gl
        return np.sort(np.argpartition(-score, m - 1)[:m])

    def _ts_candidates_round(self, beta: float, beta_g: float, u: float, z: FloatArray) -> int:
        """CKB-TS on a candidate set: joint draws of ``f`` and ``g`` at :meth:`ts_candidates` only (exact
        on that set), truncation, the argmax of ``f- - phi g-`` over it (random ties)."""
        gf, gg, st, c = self.gp_f, self.gp_g, self.state, self.config
        idx = self.ts_candidates(beta, beta_g)
        m = idx.shape[0]
        low_f, eps_f = cholesky_jittered(gf.cov_block(idx), c.jitter)
        low_g, eps_g = cholesky_jittered(gg.cov_block(idx), c.jitter)
        self.jitter_used = max(self.jitter_used, eps_f, eps_g)
        fh = gf.mean[idx] + beta * (low_f @ z[:m])
        gh = gg.mean[idx] + beta_g * (low_g @ z[m : 2 * m])
        if st.const.truncate:
            np.clip(fh, -st.const.big_b, st.const.big_b, out=fh)
            np.clip(gh, -st.const.big_g, st.const.big_g, out=gh)
        scores = fh - self.phi * gh
        k = int(_pick_any(scores, float(np.max(scores)), u))
        self.live["f_est"], self.live["g_est"] = fh[k], gh[k]
        return int(idx[k])

    def cancel(self) -> None:
        super().cancel()
        self._draws.give_back()
        if self.box is not None:
            self.search.undo()

    def _tell(self, decision: Decision, observation: Any) -> None:
        r, cval = reward_and_constraint(observation, "CKB")
        if self.box is not None:
            self._update(self.state, cval)  # line 8
            self.gp_f.update(decision.point, r)  # line 9, O(t^2)
            self.gp_g.update(decision.point, cval)
        elif self._dense:
            self._update(self.state, int(decision.arm), r, cval)  # lines 8-9
            self.gp_f.refresh_due()
            self.gp_g.refresh_due()
        else:
            self._update(self.state, cval)  # line 8
            self.gp_f.update(int(decision.arm), r)  # line 9, O(min(t, n) n)
            self.gp_g.update(int(decision.arm), cval)
        self._maybe_refit()
        t = self.n_samples
        if t in self._grid:
            self.phi_path.append((t, self.phi))


# The three variants of Algorithm 1 are one learner with its exploration set on registration.
for _variant, _text in _VARIANTS.items():
    register_algorithm(
        f"ckb-{_variant}",
        task="regret",
        defaults={"exploration": _variant},
        description=_text,
        info="kernel",
        guarantee="soft",
        assumptions=("rkhs", "noise", "slater"),
    )(CKB)


class SafeSeedGPLearner(GPPairLearner):
    """What the safe-seed baselines (StageOpt, SGP-UCB) share: two surrogate GPs with the same
    ``lambda``, their information gains, the horizon, a non-empty safe seed, and ``beta_t`` with the
    instance's bounds ``B`` and ``G``."""

    owner = "GP learner"

    def __init__(self, config: GPBanditConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        info = check_kernel_info(info, self.owner)
        if not info.safe_seed:
            raise CannotStartError.build(
                self.owner,
                "it expands a safe set from points known to be safe, and info.safe_seed is empty",
                [
                    Fix(
                        "learner",
                        "learner",
                        "ckb-ucb",
                        "CKB (ckb-ucb / ckb-ts / ckb-rand), which needs no safe seed",
                    )
                ],
                notes=["safe_seed (indices of domain points with g <= 0 known in advance)"],
            )
        self.horizon = int(config.horizon if config.horizon is not None else info.horizon)
        lam = resolve_gp_noise(config.gp_noise, self.horizon)
        #: Whether the posteriors are lazy (a learner with an ``updates`` option; SGP-UCB).
        self.lazy = hasattr(config, "updates") and _resolve_updates(
            config, info, self.horizon, True, (SGP_LAZY_MIN_HORIZON, SGP_LAZY_MIN_ENTRIES)
        )
        self._init_gps(config, info, lam, lam, lazy=self.lazy)
