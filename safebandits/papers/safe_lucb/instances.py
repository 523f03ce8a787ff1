"""Instances of Amani, Alizadeh & Thrampoulidis (NeurIPS 2019), Figure 1 (ours: Appendix F is missing).

The paper's simulation parameters (Appendix F) are not in the text we have, so both instances are our
own constructions, documented in ``docs/decisions/safe_lucb.md``:

``safelucb/karm`` (random per replicate; Figure 1a)
    K arms with a positive safety gap such that ``T_Delta`` is well below ``T_0``: half the arms near the
    boundary of ``D^w`` (well spread, so ``lambda_-`` is large), half "outer" arms of norm in ``[0.5, 1]``,
    among them ``x*`` (gap in ``[gap_min, gap_max]``) and an unsafe arm better than ``x*``.
``safelucb/2d-convex`` (fixed; Figure 1b and the arXiv version's Figure 2)
    The unit disc with ``mu = (0.6, 0.8)``, ``B = diag(-0.5, 1)``, ``c = 0.2``: without pure exploration
    Safe-LUCB settles on a suboptimal point and never certifies ``x*`` (see :func:`convex_2d`).
``safelucb/2d-boundary`` (fixed; Theorem 3)
    The unit disc with the constraint active at ``x*`` (safety gap ``Delta = 0``), see :func:`boundary_2d`.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np

from safebandits._validation import check_choice, check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError
from safebandits.problems.noise import make_noise
from safebandits.problems.registry import register_instance
from safebandits.problems.safe_linear import DecisionSet, SafeLinearInstance

__all__ = ["boundary_2d", "convex_2d", "k_armed"]

KArmCondition = Literal["margin", "none"]


def _orthogonal(rng: np.random.Generator, d: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))[None, :]


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _outer_arms(rng, inner, mu, a, c, k_out, gap_min, gap_max, margin, tries=2000):
    """Outer arms (norms in [0.5, 1]): ``x*`` first (gap in ``[gap_min, gap_max]``, separated from every
    inner arm), then one "bait" (better than ``x*``, unsafe by ``margin``), then arms separated from ``x*``;
    ``None`` if the draw fails."""
    d = mu.shape[0]

    def draw(n):
        return _unit(rng, n, d) * rng.uniform(0.5, 1.0, (n, 1))

    def separated(x, ls, ss):
        lx, sx = x @ mu, x @ a
        return (sx >= c + margin) | (lx >= ls + margin) | ((sx <= ss) & (lx > ls))

    cand = draw(tries)
    ls_all, ss_all = cand @ mu, cand @ a
    ok = (ss_all >= c - gap_max) & (ss_all <= c - gap_min) & (ls_all < (inner @ mu).min())
    star = None
    for i in np.flatnonzero(ok):
        if separated(inner, ls_all[i], ss_all[i]).all():
            star = cand[i]
            break
    if star is None:
        return None
    ls, ss = star @ mu, star @ a
    cand = draw(tries)
    bait = cand[(cand @ mu < ls) & (cand @ a >= c + margin)]
    rest = cand[separated(cand, ls, ss)]
    if bait.shape[0] == 0 or rest.shape[0] < k_out - 2:
        return None
    return np.vstack([inner, star, bait[:1], rest[: k_out - 2]])


@register_instance("safelucb/karm", random=True)
def k_armed(
    *,
    rng: np.random.Generator,
    K: int = 20,
    d: int = 2,
    c: float = 0.8,
    sigma: float = 0.1,
    gap_min: float = 0.5,
    gap_max: float = 1.2,
    margin: float = 0.3,
    condition: KArmCondition = "none",
    T: int = 100_000,
) -> SafeLinearInstance:
    """K-armed safe linear bandit with a positive safety gap (ours; Figure 1a, Appendix C analogue).

    ``mu`` uniform on the unit sphere (``S = 1``); ``B = U diag(s) V^T`` with Haar orthogonal ``U, V`` and
    singular values ``s ~ U(0.6, 1.4)`` (so the constraint is not aligned with the loss); threshold ``c``.
    ``K // 2`` inner arms ``0.95 (c / S) B^{-1} z_k`` (``z_k`` unit vectors: equally spaced angles with a
    random offset in ``d = 2``, random otherwise) lie in ``D^w``. ``K - K // 2`` outer arms with uniform
    directions and norms ``U(0.5, 1)`` (``L = 1``, so every loss is in ``[-1, 1]``): ``x*``, safe with gap
    in ``[gap_min, gap_max]`` and better than every inner arm; one unsafe arm better than ``x*``; and arms
    each unsafe by at least ``margin``, worse than ``x*`` by at least ``margin``, or with a larger gap
    (otherwise no *valid* lower bound on the gap can exceed the gap of a near-optimal rival early, and
    GSLUCB explores up to ``T_0``). Gaussian loss noise of standard deviation ``sigma`` (``R = sigma``).

    ``condition="margin"`` is that conditioned draw (kept as a labelled extra panel of ``safelucb-karm``).
    ``condition="none"`` (default: no chosen instances) is the unconditioned draw of issue 17: the same
    ``B``, ``mu`` and inner arms, and ``K - K // 2`` outer arms with uniform
    directions and norms ``U(0.5, 1)``, nothing rejected (``gap_min``, ``gap_max`` and ``margin`` are
    unused). Its gap is positive almost surely (every inner arm is safe with gap at least ``0.05 c``), as
    the paper's "strictly positive safety gap", but may be small, so ``T_Delta`` may exceed ``T_0``.
    """
    k = check_int(K, "K", low=4)
    d = check_int(d, "d", low=2)
    c = check_positive(c, "c")
    check_interval(gap_min, "gap_min", low=0.0, high=c)
    check_interval(gap_max, "gap_max", low=gap_min, high=np.inf)
    check_choice(condition, "condition", KArmCondition)
    k_in, k_out = k // 2, k - k // 2
    for _ in range(1 if condition == "none" else 10_000):
        b = _orthogonal(rng, d) @ np.diag(rng.uniform(0.6, 1.4, d)) @ _orthogonal(rng, d).T
        if d == 2:
            ang = rng.uniform(0, 2 * np.pi) + 2 * np.pi * np.arange(k_in) / k_in
            z = np.column_stack([np.cos(ang), np.sin(ang)])
        else:
            z = _unit(rng, k_in, d)
        inner = 0.95 * c * z @ np.linalg.inv(b).T
        mu = _unit(rng, 1, d)[0]
        if condition == "none":
            arms = np.vstack([inner, _unit(rng, k_out, d) * rng.uniform(0.5, 1.0, (k_out, 1))])
            break
        arms = _outer_arms(rng, inner, mu, b.T @ mu, c, k_out, gap_min, gap_max, margin)
        if arms is not None:
            break
    else:  # pragma: no cover
        raise ConfigError(
            "Could not draw a K-armed instance with the requested gap; widen [gap_min, gap_max]."
        )
    return SafeLinearInstance(
        decision_set=DecisionSet("arms", arms=arms),
        mu=mu,
        b_mat=b,
        threshold=c,
        noise=make_noise("gaussian", sigma),
        horizon=check_int(T, "T", low=1),
        param_norm_bound=1.0,
        arm_norm_bound=1.0,
        name="safelucb/karm",
    )


@register_instance("safelucb/2d-convex")
def convex_2d(
    *,
    mu1: float = 0.6,
    mu2: float = 0.8,
    b1: float = -0.5,
    b2: float = 1.0,
    c: float = 0.2,
    sigma: float = 0.1,
    T: int = 100_000,
) -> SafeLinearInstance:
    """2-D convex instance where Safe-LUCB without pure exploration never certifies ``x*`` (ours; Figure 1b).

    ``D0`` the unit disc, ``mu = (mu1, mu2)``, ``B = diag(b1, b2)``, threshold ``c``. Defaults: ``x* = -mu``
    (the unconstrained optimum, loss -1, gap ``c - mu^T B x* = 0.66``).

    Why no exploration gets stuck (our analysis, checked numerically): at ``t = 1`` the estimated safe set
    is the ellipse ``||B x|| <= c / beta`` whose long axis is ``e1`` (``|b1| < |b2|``), so the learner first
    plays along ``e1`` and learns ``mu1``. With information along ``e1`` only, ``D_t^s`` is the wedge
    ``mu1 b1 x1 + beta |b2 x2| <= c`` (for ``x1 < 0``, ``b1 < 0``) with apex ``v = (c / (mu1 b1), 0)``, and
    the optimistic loss ``mu1 x1 - beta |x2|`` is minimised at the apex whenever ``|b1| <= |b2|``: the
    learner plays ``v`` (true loss ``-c / |b1| = -0.4``) for ever, never gains information along ``e2``,
    and ``x*`` never enters ``D_t^s`` -- regret ``0.6`` per round. Pure exploration (``T' >= T_Delta``)
    gives information in every direction and ``x*`` is certified (Lemma 2). Gaussian loss noise of
    standard deviation ``sigma``; ``S = ||mu||``, ``L = 1``.
    """
    ds = DecisionSet("ball", center=np.zeros(2), radius=1.0)
    mu = np.array([mu1, mu2], dtype=float)
    return SafeLinearInstance(
        decision_set=ds,
        mu=mu,
        b_mat=np.diag([float(b1), float(b2)]),
        threshold=check_positive(c, "c"),
        noise=make_noise("gaussian", sigma),
        horizon=check_int(T, "T", low=1),
        param_norm_bound=float(np.linalg.norm(mu)),
        name="safelucb/2d-convex",
    )


@register_instance("safelucb/2d-boundary")
def boundary_2d(
    *,
    mu1: float = 0.6,
    mu2: float = 0.8,
    b1: float = -1.0,
    b2: float = -0.5,
    c: float = 0.6,
    sigma: float = 0.1,
    T: int = 100_000,
) -> SafeLinearInstance:
    """2-D convex instance with safety gap ``Delta = 0`` (ours; Theorem 3's worst case).

    ``D0`` the unit disc, ``mu = (mu1, mu2)``, ``B = diag(b1, b2)``, threshold ``c``. By eq. (12),
    ``Delta = c - mu^T B x* = 0`` exactly when the constraint is active at ``x*``; on a disc that holds when
    the unconstrained minimiser ``-mu / ||mu||`` is unsafe, ``-mu^T B mu / ||mu|| > c``. Defaults:
    ``-mu^T B mu / ||mu|| = 0.68 > c = 0.6``, so ``x*`` is where the line ``mu^T B x = c`` meets the circle,
    ``x* = (-0.385, -0.923)`` with loss ``-0.969``. ``c / S = 0.6`` keeps ``D^w`` large (``lambda_- = 0.09``,
    ``t_delta = 440``), so the literal ``T_0 = (||B|| L beta_T T)^{2/3}`` exceeds ``t_delta`` for
    ``T >= 10^4`` and grows as ``T^{2/3}``. Gaussian loss noise of standard deviation ``sigma``;
    ``S = ||mu||``, ``L = 1``. Parameters that make the gap positive are refused.
    """
    inst = convex_2d(mu1=mu1, mu2=mu2, b1=b1, b2=b2, c=c, sigma=sigma, T=T)
    if inst.safety_gap > 1e-12:
        raise ConfigError(
            f"safelucb/2d-boundary needs a zero safety gap (constraint active at x*): with mu = ({mu1:g}, "
            f"{mu2:g}), B = diag({b1:g}, {b2:g}) the unconstrained minimiser -mu/||mu|| is safe for "
            f"c = {c:g} (gap {inst.safety_gap:.3g}); lower c below -mu^T B mu / ||mu||."
        )
    return dataclasses.replace(inst, name="safelucb/2d-boundary")
