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
from typing import Any, Literal

import numba
import numpy as np

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
from safebandits.estimators.gp import FiniteGP, InformationGain, beta_width, cholesky_jittered
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.problems.kernel import KernelInfo
from safebandits.records import log_grid
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "CKB",
    "CKBConfig",
    "RoundDraws",
    "auto_slack",
    "check_kernel_info",
    "resolve_gp_noise",
    "select_given",
    "select_point",
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


class RoundDraws:
    """Per-round randomness drawn in blocks from the learner's generator: one uniform (tie-breaking) and
    ``n_normals`` standard normals per round. :meth:`give_back` returns the last round's draws (cancel)."""

    __slots__ = ("_normals", "_pos", "_rounds", "_uniforms", "n_normals", "rng")

    def __init__(self, rng: np.random.Generator, n_normals: int = 0) -> None:
        self.rng = rng
        self.n_normals = int(n_normals)
        self._rounds = max(1, min(1024, 65536 // max(1, self.n_normals)))
        self._pos = self._rounds
        self._uniforms = np.empty(0)
        self._normals = np.empty((0, self.n_normals))

    def next(self) -> tuple[float, FloatArray]:
        if self._pos >= self._rounds:
            self._uniforms = self.rng.random(self._rounds)
            if self.n_normals:
                self._normals = self.rng.standard_normal((self._rounds, self.n_normals))
            self._pos = 0
        j = self._pos
        self._pos += 1
        return float(self._uniforms[j]), (self._normals[j] if self.n_normals else self._normals)

    def give_back(self) -> None:
        self._pos -= 1


# --------------------------------------------------------------------------------------------------
# compiled selection (lines 3-7 of Algorithm 1)
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _pick(scores, best, u):
    """Index of a maximiser of ``scores`` chosen uniformly among the (near-)ties with the uniform ``u``."""
    tol = 1e-12 * (1.0 + abs(best))
    count = 0
    for j in range(scores.shape[0]):
        if scores[j] >= best - tol:
            count += 1
    k = min(int(u * count), count - 1)
    for j in range(scores.shape[0]):
        if scores[j] >= best - tol:
            if k == 0:
                return j
            k -= 1
    return 0  # pragma: no cover


@numba.njit(cache=True)
def select_point(mean_f, cov_f, cf, mean_g, cov_g, cg, big_b, big_g, phi, truncate, u, scores, out):
    """UCB / Rand round: ``f^ = mean_f + cf sigma_f``, ``g^ = mean_g + cg sigma_g`` (``cf = beta``, ``cg =
    -beta~`` for UCB; ``cf = Z``, ``cg = Z~`` for Rand), truncation to ``[-B, B]`` / ``[-G, G]`` if
    ``truncate``, then ``argmax f- - phi g-`` with random tie-breaking. Writes ``(f-, g-)`` at the chosen
    point into ``out`` and returns its index. ``O(n)``."""
    n = mean_f.shape[0]
    best = -np.inf
    for j in range(n):
        fh = mean_f[j] + cf * math.sqrt(max(cov_f[j, j], 0.0))
        gh = mean_g[j] + cg * math.sqrt(max(cov_g[j, j], 0.0))
        if truncate:
            fh = min(max(fh, -big_b), big_b)
            gh = min(max(gh, -big_g), big_g)
        s = fh - phi * gh
        scores[j] = s
        if s > best:
            best = s
    i = _pick(scores, best, u)
    fh = mean_f[i] + cf * math.sqrt(max(cov_f[i, i], 0.0))
    gh = mean_g[i] + cg * math.sqrt(max(cov_g[i, i], 0.0))
    if truncate:
        fh = min(max(fh, -big_b), big_b)
        gh = min(max(gh, -big_g), big_g)
    out[0] = fh
    out[1] = gh
    return i


@numba.njit(cache=True)
def select_given(f_hat, g_hat, big_b, big_g, phi, truncate, u, scores, out):
    """TS round: truncate the given draws and return ``argmax f- - phi g-`` (random tie-breaking)."""
    n = f_hat.shape[0]
    best = -np.inf
    for j in range(n):
        fh = f_hat[j]
        gh = g_hat[j]
        if truncate:
            fh = min(max(fh, -big_b), big_b)
            gh = min(max(gh, -big_g), big_g)
        s = fh - phi * gh
        scores[j] = s
        if s > best:
            best = s
    i = _pick(scores, best, u)
    fh = f_hat[i]
    gh = g_hat[i]
    if truncate:
        fh = min(max(fh, -big_b), big_b)
        gh = min(max(gh, -big_g), big_g)
    out[0] = fh
    out[1] = gh
    return i


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
    """

    delta: float = 0.05
    gp_noise: float | str = 1.0
    info_gain: Literal["heuristic", "greedy", "realised"] = "heuristic"
    beta_scale: float = 1.0
    horizon: int | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        _check_gp_noise(self.gp_noise, "gp_noise", owner)
        check_literal_fields(self, owner=owner)
        check_positive(self.beta_scale, "beta_scale", owner=owner)
        if self.horizon is not None:
            check_int(self.horizon, "horizon", low=1, owner=owner)


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
        Exact posterior recomputation period (0: rank-one updates only).
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


_VARIANTS = {
    "ucb": "CKB-UCB: primal-dual GP-UCB / LCB on a soft constraint (Zhou & Ji, Algorithm 1, Theorem 1).",
    "ts": "CKB-TS: primal-dual with joint GP posterior draws (Zhou & Ji, Algorithm 1, Corollary 1).",
    "rand": "CKB-Rand: primal-dual Rand-GP-UCB, one Gaussian scalar per round (Zhou & Ji, Corollary 2).",
}


@register_algorithm("ckb-ucb", task="regret", defaults={"exploration": "ucb"}, description=_VARIANTS["ucb"])
@register_algorithm("ckb-ts", task="regret", defaults={"exploration": "ts"}, description=_VARIANTS["ts"])
@register_algorithm(
    "ckb-rand", task="regret", defaults={"exploration": "rand"}, description=_VARIANTS["rand"]
)
class CKB(BaseLearner):
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

    Guarantee (Theorem 1): with ``rho >= 4 B / delta_S``, ``V = G sqrt(T) / rho``, the theory ``beta_t`` and
    sub-Gaussian noise, ``R+(T)`` and ``V(T)`` are ``O~(sqrt(T gamma_T))`` with probability at least
    ``1 - delta``; the heuristic ``gamma_t`` and ``beta_scale < 1`` void it. Applicability: finite domains of
    up to a few thousand points (``O(n^2)`` memory and work per round; TS ``O(n^3)``).
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
        self.gp_f = FiniteGP(info.kernel, lam, refresh_every=c.refresh_every)
        self.gp_g = FiniteGP(info.constraint_kernel, lam_g, refresh_every=c.refresh_every)
        self._gain_f = InformationGain(c.info_gain, info.kernel, lam, self.horizon)
        self._gain_g = InformationGain(c.info_gain, info.constraint_kernel, lam_g, self.horizon)
        self.big_b, self.big_g = float(info.reward_bound), float(info.constraint_bound)
        self.slater = float(info.slater)
        if c.slack == "auto":
            rho0 = c.rho if c.rho is not None else 8.0 * self.big_b / self.slater
            gamma_t = (
                max(self._gain_f(self.horizon), self._gain_g(self.horizon))
                if c.info_gain != "realised"
                else math.log1p(self.horizon)
            )
            self.slack = auto_slack(
                self.slater, self.horizon, max(self.big_b, self.big_g), self.big_g, gamma_t, c.delta, rho0
            )
        else:
            self.slack = float(c.slack)
        self.rho = (
            float(c.rho) if c.rho is not None else (8.0 if self.slack > 0 else 4.0) * self.big_b / self.slater
        )
        self.step = float(c.step) if c.step is not None else self.big_g * math.sqrt(self.horizon) / self.rho
        self._cap = math.inf if c.dual == "virtual_queue" else self.rho
        self.phi = 0.0
        self._draws = RoundDraws(
            rng, 2 * n if c.exploration == "ts" else (2 if c.exploration == "rand" else 0)
        )
        self._scores = np.zeros(n)
        self._out = np.zeros(2)
        self.last_estimates = (math.nan, math.nan)
        self._select = bind_kernel(
            select_point,
            (self.gp_f.mean, self.gp_f.cov, 1.0, self.gp_g.mean, self.gp_g.cov, -1.0, 1.0, 1.0, 0.0, True,
             0.5, self._scores, self._out),
        )  # fmt: skip
        self._select_given = bind_kernel(
            select_given, (self._scores, self._scores, 1.0, 1.0, 0.0, True, 0.5, self._scores, self._out)
        )
        # dual-path diagnostics
        self._grid = set(log_grid(self.horizon, 60).tolist())
        self.phi_path: list[tuple[int, float]] = []
        self.phi_max = 0.0
        self.phi_sum = 0.0
        self.rounds_at_rho = 0
        self.jitter_used = 0.0

    # -- read-only diagnostics ----------------------------------------------------------------------
    def betas(self, t: int | None = None) -> tuple[float, float]:
        """``(beta_t, beta~_t)`` of round ``t`` (default: the next round), both positive."""
        t = self.n_samples + 1 if t is None else t
        c = self.config
        gf = self._gain_f(t - 1, self.gp_f)
        gg = self._gain_g(t - 1, self.gp_g)
        return (
            beta_width(self.big_b, self.info.noise_bound, gf, c.delta, c.beta_scale),
            beta_width(self.big_g, self.info.constraint_noise_bound, gg, c.delta, c.beta_scale),
        )

    def confidence_bounds(self) -> dict[str, FloatArray]:
        """Current ``mu -+ beta sigma`` of ``f`` and ``g`` (the bounds of the next round), shape (n,) each."""
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
        }

    # -- protocol -----------------------------------------------------------------------------------
    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError("CKB plays a fixed finite domain; ask() takes no context.")
        beta, beta_g = self.betas()
        u, z = self._draws.next()
        c = self.config
        gf, gg = self.gp_f, self.gp_g
        if c.exploration == "ts":
            n = gf.mean.shape[0]
            low_f, eps_f = cholesky_jittered(gf.cov, c.jitter)
            low_g, eps_g = cholesky_jittered(gg.cov, c.jitter)
            self.jitter_used = max(self.jitter_used, eps_f, eps_g)
            f_hat = gf.mean + beta * (low_f @ z[:n])
            g_hat = gg.mean + beta_g * (low_g @ z[n:])
            i = self._select_given(
                f_hat, g_hat, self.big_b, self.big_g, self.phi, c.truncate, u, self._scores, self._out
            )
        else:
            if c.exploration == "ucb":
                cf, cg = beta, -beta_g
            else:
                cf, cg = beta * float(z[0]), beta_g * float(z[1])
            i = self._select(gf.mean, gf.cov, cf, gg.mean, gg.cov, cg, self.big_b, self.big_g, self.phi,
                             c.truncate, u, self._scores, self._out)  # fmt: skip
        self.last_estimates = (float(self._out[0]), float(self._out[1]))
        return Decision(arm=int(i))

    def cancel(self) -> None:
        super().cancel()
        self._draws.give_back()

    def _tell(self, decision: Decision, observation: Any) -> None:
        r, cval = reward_and_constraint(observation, "CKB")
        i = int(decision.arm)
        g_in = self.last_estimates[1] if self.config.dual_input == "estimate" else cval
        phi = self.phi + (g_in + self.slack) / self.step  # line 8
        self.phi = min(max(phi, 0.0), self._cap)
        self.gp_f.update(i, r)  # line 9
        self.gp_g.update(i, cval)
        t = self.n_samples
        self.phi_sum += self.phi
        if self.phi > self.phi_max:
            self.phi_max = self.phi
        if self.phi >= self.rho:
            self.rounds_at_rho += 1
        if t in self._grid:
            self.phi_path.append((t, self.phi))


class SafeSeedGPLearner(BaseLearner):
    """What the safe-seed baselines (StageOpt, SGP-UCB) share: two surrogate GPs with the same
    ``lambda``, their information gains, the horizon, a non-empty safe seed, and ``beta_t`` with the
    instance's bounds ``B`` and ``G``."""

    owner = "GP learner"

    def __init__(self, config: GPBanditConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        info = check_kernel_info(info, self.owner)
        if not info.safe_seed:
            raise ConfigError(
                f"{self.owner} cannot start: it expands a safe set from points known to be safe, and "
                "info.safe_seed is empty. Give safe_seed (indices of domain points with g <= 0 known in "
                "advance), or use CKB (ckb-ucb / ckb-ts / ckb-rand), which needs no safe seed."
            )
        self.horizon = int(config.horizon if config.horizon is not None else info.horizon)
        lam = resolve_gp_noise(config.gp_noise, self.horizon)
        self.gp_f = FiniteGP(info.kernel, lam)
        self.gp_g = FiniteGP(info.constraint_kernel, lam)
        self._gain_f = InformationGain(config.info_gain, info.kernel, lam, self.horizon)
        self._gain_g = InformationGain(config.info_gain, info.constraint_kernel, lam, self.horizon)

    def betas(self) -> tuple[float, float]:
        """``(beta_t, beta~_t)`` of the next round."""
        t = self.n_samples + 1
        c, info = self.config, self.info
        gf, gg = self._gain_f(t - 1, self.gp_f), self._gain_g(t - 1, self.gp_g)
        return (
            beta_width(info.reward_bound, info.noise_bound, gf, c.delta, c.beta_scale),
            beta_width(info.constraint_bound, info.constraint_noise_bound, gg, c.delta, c.beta_scale),
        )
