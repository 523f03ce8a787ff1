"""BESIDE, Best Safe Arm Identification (Camilleri et al., NeurIPS 2022, Algorithm 1), as printed.

Rounds ``l = 1, ..., iota_eps = ceil(log_2(20 / eps))`` with ``eps_l = 20 * 2^{-l}``:

* **Phase 1** (lines 5-7): ``c_l(z) = min_j |Dhat^j_safe(z)| + max_j p(-Dhat^j_safe(z)) + p(Dhat(z))`` from
  round ``l - 1``; ``tau_l`` is the least ``tau > 4 L_l``, ``L_l = log(4 m |Z| l^2 / delta)``, such that

      inf_lambda max_z -(1/100)(c_l(z) + eps_l) + sqrt(||z||^2_{A(lambda)^{-1}} L_l / tau) <= eps_l / 100,

  which is the weighted XY_safe design (digest 2.1, note 2)
  ``rho_l = min_lambda max_z ||z||^2_{A(lambda)^{-1}} / (c_l(z)/100 + 2 eps_l/100)^2``,
  ``tau_l = max(floor(4 L_l) + 1, ceil(L_l rho_l))``, ``lambda_l`` its minimiser (:func:`tau_and_design`);
  ``tau_l`` pulls are drawn i.i.d. from ``lambda_l``.
* **Phase 2** (lines 8-9): RIPS per constraint at level ``delta / (2 m l^2)``; the optimistic safety gaps
  ``Dhat^{i,l}_safe(z) = gamma - z^T mu_hat_i + w_l(z)``. A decision is *certified safe* once
  ``min_i (Dhat^{i,s}_safe(z) - 2 w_s(z)) >= 0`` in some round ``s <= l`` (the set ``Y_l``).
* **Phase 3** (line 10): ``Dhat^l = RAGE^eps(Z, Y_l, eps_l, delta / (4 l^2), u)``,
  ``u(z) = max_j p(-Dhat^{j,l}_safe(z))`` (:meth:`BESIDE.rage_eps`, a reconstruction, digest 2.4).
* **End** (lines 11-13): ``Y_end = {z : min_i (Dhat^{i,iota}_safe(z) - 2 w_iota(z)) >= -eps}``,
  ``Dhat^end = RAGE^eps(Y_end, Y_end, eps, delta, u)``, return ``argmin_{Y_end} Dhat^end``.

The constants 20, 1/100 (twice) and 4 are parameters; ``w_l(z)`` is the RIPS (Catoni) deviation bound
with its explicit constants, ``||z||_{A(lambda_l)^{-1}} sqrt(2 (B^2 + sigma^2) log(1/delta'') /
(tau_l - 2 log(1/delta'')))`` -- the printed ``||z|| sqrt(L_l / tau_l)`` up to the constant hidden in (2).
The constants make BESIDE as printed very expensive (``10^4 L rho`` pulls per round); the experiments use
:mod:`~safebandits.algorithms.pure_exploration.beside_practical`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Generator
from typing import Any, Literal

import numpy as np

from safebandits._validation import check_interval, check_positive
from safebandits.algorithms.pure_exploration._cbai import MAX_ROUND_SAMPLES
from safebandits.algorithms.pure_exploration._transductive import (
    Program,
    ProgramLearner,
    TransductiveConfig,
    draw_counts,
    solve_design,
)
from safebandits.algorithms.registry import register_algorithm
from safebandits.estimators.robust import LinearEstimate, check_estimator, ols, rips
from safebandits.problems.transductive import positive_part
from safebandits.records import ArmEstimates
from safebandits.types import BatchObservation, FloatArray, IntArray, Recommendation

__all__ = ["BESIDE", "BESIDEConfig", "tau_and_design"]


def tau_and_design(
    arms: FloatArray,
    decisions: FloatArray,
    c: FloatArray,
    eps_l: float,
    log_term: float,
    *,
    design_scale: float = 0.01,
    design_tol: float = 0.01,
    tau_factor: float = 4.0,
    fw_tol: float = 1e-3,
) -> tuple[int, FloatArray, float]:
    """``(tau_l, lambda_l, rho_l)`` of Algorithm 1, line 6, by the weighted-design reduction.

    ``-a (c + eps) + sqrt(||z||^2 L / tau) <= b eps`` for every ``z`` iff
    ``||z||^2 / (a c + (a + b) eps)^2 <= tau / L``; the least such ``tau`` over designs is ``L rho`` with
    ``rho = min_lambda max_z ||z||^2_{A(lambda)^{-1}} / (a c(z) + (a + b) eps)^2`` (convex in lambda).
    ``tau_l`` is the smallest integer above both ``tau_factor * L`` and ``L rho`` (``a = design_scale``,
    ``b = design_tol``).
    """
    denom = design_scale * np.asarray(c, dtype=np.float64) + (design_scale + design_tol) * eps_l
    lam, rho = solve_design(arms, decisions, 1.0 / denom**2, tol=fw_tol)
    tau = max(math.floor(tau_factor * log_term) + 1, math.ceil(log_term * rho - 1e-9))
    return int(min(tau, MAX_ROUND_SAMPLES)), lam, float(rho)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class BESIDEConfig(TransductiveConfig):
    """Configuration of :class:`BESIDE`.

    Parameters
    ----------
    delta : float in (0, 1), default 0.1
    epsilon : float > 0 or None, default None
        Tolerance (``None``: the instance's).
    eps_scale : float > 0, default 20.0
        The 20 of ``eps_l = 20 * 2^{-l}`` and ``iota = ceil(log(20 / eps))``.
    design_scale : float > 0, default 0.01
        The 1/100 in front of ``c_l(z) + eps_l`` (line 6).
    design_tol : float > 0, default 0.01
        The 1/100 of the right-hand side ``eps_l / 100`` (line 6).
    tau_factor : float > 0, default 4.0
        The 4 of ``tau > 4 log(4 m |Z| l^2 / delta)``.
    log_base : {"2", "e"}, default "2"
        Base of the log in ``iota`` (digest 2.1 note 1: only base 2 makes ``eps_iota <= eps``).
    estimator : {"rips", "ols"}, default "rips"
        Phase 2 and RAGE^eps estimator (``"ols"``: least squares on the sampled counts).
    sampling : {"iid", "rounded"}, default "iid"
        I.i.d. draws from the design (as printed; needed by RIPS) or Pukelsheim rounding (with OLS).
    rage_scale : float > 0, default 2.0
        RAGE^eps's first tolerance (``|Delta(z)| <= 2`` under the paper's normalisation).
    rage_accuracy : float in (0, 1], default 0.5
        RAGE^eps's round ``k`` aims at widths ``rage_accuracy * (p(Dhat_{k-1}(z)) + u(z) + eps_k)``.
    """

    eps_scale: float = 20.0
    design_scale: float = 0.01
    design_tol: float = 0.01
    tau_factor: float = 4.0
    log_base: Literal["2", "e"] = "2"
    estimator: Literal["rips", "ols"] = "rips"
    sampling: Literal["rounded", "iid"] = "iid"
    rage_scale: float = 2.0
    rage_accuracy: float = 0.5
    fw_tol: float = 1e-2

    def __post_init__(self) -> None:
        TransductiveConfig.__post_init__(self)
        owner = type(self).__name__
        for name in ("eps_scale", "design_scale", "design_tol", "tau_factor", "rage_scale"):
            check_positive(getattr(self, name), name, owner=owner)
        check_interval(self.rage_accuracy, "rage_accuracy", low=0.0, high=1.0, closed="right", owner=owner)


@register_algorithm(
    "beside",
    task="pure_exploration",
    description="BESIDE as printed (Algorithm 1), RIPS.",
    info="transductive",
    guarantee="pac",
    assumptions=("linear", "mean-bound", "noise"),
)
class BESIDE(ProgramLearner):
    """BESIDE (Camilleri et al. 2022, Algorithm 1; guarantee: Theorem 1), as printed.

    Parameters
    ----------
    config : BESIDEConfig
    info : TransductiveInfo
    rng : numpy.random.Generator
        Draws the i.i.d. samples from the designs and the Gaussian bridge of RIPS.

    Notes
    -----
    Glossary (paper -> code): ``iota_eps`` -> :attr:`n_rounds`; ``eps_l`` -> :meth:`round_tolerance`;
    ``c_l(z)`` -> :meth:`c`; ``tau_l, lambda_l`` -> :func:`tau_and_design`, :attr:`taus`;
    ``Dhat^{i,l}_safe`` -> :attr:`safety_gap_hat` (shape ``(|Z|, m)``); ``w_l(z)`` -> :attr:`width`;
    ``Y_l`` -> :attr:`certified`; ``Dhat^l`` -> :attr:`gap_hat`; ``Y_end`` -> :attr:`final_set`.

    Applicability: (eps, delta)-PAC for 1-sub-Gaussian noise (Theorem 1); the union bound of the printed
    algorithm spends ``delta`` in the final RAGE^eps call on top of the rounds' ``delta (pi^2/12 +
    pi^2/24)``. RIPS draws individual observations from batch sums by a Gaussian bridge (Gaussian noise
    only). Deviations: ``docs/decisions/beside.md`` ("BESIDE as printed").
    """

    config_cls = BESIDEConfig
    config: BESIDEConfig

    def __init__(self, config: BESIDEConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        check_estimator(config.estimator, self.view.noise_kind, type(self).__name__)
        nz, m = self.view.n_decisions, self.view.n_constraints
        self.safety_gap_hat = np.zeros((nz, m))
        self.width = np.zeros(nz)
        self.constraint_hat: FloatArray | None = None  # last estimates z^T mu_hat_i, shape (|Z|, m)
        self.gap_hat = np.zeros(nz)
        self.certified = np.zeros(nz, dtype=bool)
        self.final_set: IntArray = np.zeros(0, dtype=np.int64)
        self.taus: list[int] = []
        self.round = 0
        self.answer: int | None = None

    # -- quantities of Algorithm 1 ---------------------------------------------------------------
    @property
    def n_rounds(self) -> int:
        """``iota_eps = ceil(log(20 / eps))`` (base 2 by default)."""
        ratio = self.config.eps_scale / self.epsilon
        value = math.log2(ratio) if self.config.log_base == "2" else math.log(ratio)
        return max(1, math.ceil(value))

    def round_tolerance(self, ell: int) -> float:
        """``eps_l = 20 * 2^{-l}``."""
        return self.config.eps_scale * 2.0 ** (-ell)

    def log_term(self, ell: int) -> float:
        """``L_l = log(4 m |Z| l^2 / delta)``."""
        v = self.view
        return math.log(4.0 * v.n_constraints * v.n_decisions * ell**2 / self.config.delta)

    def c(self) -> FloatArray:
        """Line 5: ``c_l(z)`` from the previous round's estimates."""
        g = self.safety_gap_hat
        return np.abs(g).min(axis=1) + positive_part(-g).max(axis=1) + positive_part(self.gap_hat)

    def _estimate(
        self, design: FloatArray, counts: IntArray, sums: FloatArray, targets: FloatArray, delta: float
    ) -> LinearEstimate:
        v = self.view
        if self.config.estimator == "rips":
            return rips(
                v.arms,
                design,
                counts,
                sums,
                targets,
                noise_sd=v.noise_sd,
                mean_bound=v.mean_bound,
                delta=delta,
                rng=self.rng,
            )
        return ols(v.arms, counts, sums, targets, noise_sd=v.noise_sd, delta=delta)

    # -- RAGE^eps (reconstruction, digest 2.4) -------------------------------------------------
    def rage_eps(
        self, z_in: IntArray, y_set: IntArray, eps_out: float, delta: float, u: FloatArray
    ) -> Generator[IntArray, BatchObservation, FloatArray]:
        """``RAGE^eps(Z_in, Y, eps', delta', u)``: gap estimates of ``Z_in`` relative to the best of ``Y``.

        Inner rounds ``k = 1..ceil(log_2(rage_scale / eps'))`` with ``eps_k = rage_scale 2^{-k}``: pivot
        ``y_hat`` (best of ``Y`` so far); XY_diff design on ``{z - y_hat}`` weighted by
        ``1 / tol(z)^2``, ``tol(z) = rage_accuracy (p(Dhat_{k-1}(z)) + u(z) + eps_k)``; enough i.i.d. pulls
        that every width is at most ``tol(z)``; rewards estimated on ``{z - y_hat}`` (RIPS or OLS, level
        ``6 delta' / (pi^2 k^2)``); ``Dhat_k(z) = max_{y in Y} W_{y - y_hat} - W_{z - y_hat}``.
        Returns zeros when ``Y`` is empty (nothing certified safe).
        """
        gaps = np.zeros(z_in.size)
        if y_set.size == 0 or z_in.size == 0:
            return gaps
        v = self.view
        z = v.decisions
        pos = {int(j): i for i, j in enumerate(z_in)}
        in_y = np.array([pos[int(j)] for j in y_set if int(j) in pos], dtype=np.int64)
        if in_y.size == 0:
            return gaps
        pivot = int(z_in[in_y[int(np.argmin(self.gap_hat[z_in[in_y]]))]])
        n_inner = max(1, math.ceil(math.log2(self.config.rage_scale / eps_out)))
        for k in range(1, n_inner + 1):
            eps_k = self.config.rage_scale * 2.0 ** (-k)
            others = z_in[z_in != pivot]
            if others.size == 0:
                return gaps
            targets = z[others] - z[pivot]
            tol = self.config.rage_accuracy * (
                positive_part(gaps[[pos[int(j)] for j in others]]) + u[others] + eps_k
            )
            design, rho = solve_design(v.arms, targets, 1.0 / tol**2, tol=self.config.fw_tol)
            delta_k = 6.0 * delta / (math.pi**2 * k**2)
            n = self._rage_length(rho, targets.shape[0], delta_k)
            counts = draw_counts(design, n, self.config.sampling, self.rng)
            obs = yield counts
            sums = self.sums(obs)[:, :1]
            est = self._estimate(design, counts, sums, targets, delta_k).values[:, 0]
            rel = np.zeros(z_in.size)  # W_{z - y_hat}, 0 for the pivot
            rel[[pos[int(j)] for j in others]] = est
            best_y = float(rel[in_y].max())
            gaps = best_y - rel
            pivot = int(z_in[in_y[int(np.argmax(rel[in_y]))]])
        return gaps

    def _rage_length(self, rho: float, n_targets: int, delta_k: float) -> int:
        """Pulls so that every width is at most its tolerance (``||v||^2 <= rho tol(v)^2``)."""
        v = self.view
        if self.config.estimator == "rips":
            lg = math.log(2.0 * n_targets / delta_k)
            n = 2.0 * lg + 2.0 * (v.mean_bound**2 + v.noise_sd**2) * lg * rho
        else:
            n = 2.0 * v.noise_sd**2 * rho * math.log(2.0 * n_targets / delta_k) + v.n_arms
        return int(min(max(math.ceil(n), 1), MAX_ROUND_SAMPLES))

    # -- the program ---------------------------------------------------------------------------
    def _program(self) -> Program:
        v = self.view
        cfg = self.config
        m, nz = v.n_constraints, v.n_decisions
        all_z = np.arange(nz)
        lcb = np.full(nz, -np.inf)
        for ell in range(1, self.n_rounds + 1):
            self.round = ell
            eps_l = self.round_tolerance(ell)
            log_l = self.log_term(ell)
            # Phase 1: design for the safety constraints (line 6), tau_l i.i.d. samples (line 7)
            tau, design, _ = tau_and_design(
                v.arms,
                v.decisions,
                self.c(),
                eps_l,
                log_l,
                design_scale=cfg.design_scale,
                design_tol=cfg.design_tol,
                tau_factor=cfg.tau_factor,
                fw_tol=cfg.fw_tol,
            )
            self.taus.append(tau)
            counts = draw_counts(design, tau, cfg.sampling, self.rng)
            obs = yield counts
            # Phase 2: RIPS per constraint at delta / (2 m l^2) (line 8), optimistic gaps (line 9)
            est = self._estimate(
                design, counts, self.sums(obs)[:, 1:], v.decisions, m * cfg.delta / (2 * m * ell**2)
            )
            self.width = est.widths
            self.constraint_hat = est.values
            self.safety_gap_hat = v.threshold - est.values + self.width[:, None]
            lcb = (self.safety_gap_hat - 2.0 * self.width[:, None]).min(axis=1)
            self.certified |= lcb >= 0.0
            # Phase 3: refine the optimality gaps (line 10)
            u = positive_part(-self.safety_gap_hat).max(axis=1)
            self.gap_hat = yield from self.rage_eps(
                all_z, np.flatnonzero(self.certified), eps_l, cfg.delta / (4.0 * ell**2), u
            )
        # final round (lines 11-13)
        self.final_set = np.flatnonzero(lcb >= -self.epsilon)
        u = positive_part(-self.safety_gap_hat).max(axis=1)
        gaps = yield from self.rage_eps(self.final_set, self.final_set, self.epsilon, cfg.delta, u)
        self.answer = int(self.final_set[int(np.argmin(gaps))]) if self.final_set.size else None

    def arm_estimates(self) -> ArmEstimates | None:
        """Per decision: the last round's constraint estimates ``z^T mu_hat_i`` (line 8) -+ ``w_l(z)``
        (``None`` before the first round's estimates)."""
        if self.constraint_hat is None:
            return None
        how = "RIPS / OLS estimate -+ w_l(z) (line 8); certified safe when every upper bound <= gamma"
        return self._constraint_estimates(self.constraint_hat, self.width, how)

    def _recommend(self, final: bool) -> Recommendation:
        arm = self.answer
        if not self._finished:
            cert = np.flatnonzero(self.certified)
            arm = int(cert[int(np.argmin(self.gap_hat[cert]))]) if cert.size else None
        info = {
            "rounds": self.round,
            "n_certified": int(self.certified.sum()),
            "n_final_set": int(self.final_set.size),
            "taus": list(self.taus),
        }
        return Recommendation(arm=arm, n_samples=self.n_samples, final=final, info=info)
