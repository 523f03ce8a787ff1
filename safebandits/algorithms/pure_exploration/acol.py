"""ACOL: Adaptive Constraint Learning (Lindner et al., ICML 2022, Algorithm 1).

Round-based constrained best-arm identification with static confidence intervals (Proposition 2).
In round ``t`` ACOL computes a G-optimal design restricted to covering the uncertain arms ``U_t``
(support on all arms), rounds it to ``N_t`` pulls, plays them as one batch, re-estimates ``phi`` from
this round's data only and eliminates arms; the interval widths halve from round to round
(Theorem 2).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np

from safebandits._validation import check_int, check_interval, check_literal_fields, check_positive
from safebandits.algorithms.base import LearnerConfig
from safebandits.algorithms.pure_exploration._cbai import RoundBasedCBAI, round_length
from safebandits.algorithms.registry import register_algorithm
from safebandits.design import frank_wolfe_design, round_design
from safebandits.types import IntArray

__all__ = ["ACOL", "ACOLConfig"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class ACOLConfig(LearnerConfig):
    """Configuration of :class:`ACOL`.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Error probability; round ``t`` uses ``delta_t = delta^2 / t^2``.
    epsilon : float >= 0, default 0.01
        Accuracy of the rounding procedure (the ``(1 + epsilon)`` factor of ``N_t``); the authors'
        experiments use 0.01.
    round_length : {"paper", "code"}, default "paper"
        ``"paper"``: ``N_t = ceil(2^{2t+3} log(|X| / delta_t) (1 + epsilon) rho_t)`` with ``rho_t`` the
        *squared* design value ``min_lambda max_{x in U_t} ||x||^2_{A_lambda^{-1}}`` (Algorithm 1);
        ``"code"``: the same with the unsquared ``sqrt(rho_t)`` (the authors' code; shorter rounds).
    ridge : float > 0, default 0.01
        Ridge of the per-round estimate ``A = ridge I + sum n_i x_i x_i^T``.
    min_round_samples : int >= 0, default 0
        ``r(epsilon)``: minimum round length for the rounding to be ``epsilon``-approximate
        (unspecified in the paper, not enforced by the authors' code).
    fw_tol : float > 0, default 1e-3
        Stopping tolerance of the Frank--Wolfe design solver.
    """

    delta: float = 0.05
    epsilon: float = 0.01
    round_length: Literal["paper", "code"] = "paper"
    ridge: float = 0.01
    min_round_samples: int = 0
    fw_tol: float = 1e-3

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_positive(self.epsilon, "epsilon", owner=owner, allow_zero=True)
        check_literal_fields(self, owner=owner)
        check_positive(self.ridge, "ridge", owner=owner)
        check_int(self.min_round_samples, "min_round_samples", low=0, owner=owner)
        check_positive(self.fw_tol, "fw_tol", owner=owner)


@register_algorithm(
    "acol",
    task="pure_exploration",
    description="ACOL: adaptive G-design covering U_t (Alg. 1).",
    info="cbai",
    guarantee="pac",
    assumptions=("linear", "noise"),
)
class ACOL(RoundBasedCBAI):
    """ACOL, Adaptive Constraint Learning (Lindner et al. 2022, Algorithm 1; guarantee: Theorem 2).

    Round ``t = 1, 2, ...`` while ``U_t`` is non-empty:

    1. ``delta_t = delta^2 / t^2``;
    2. ``lambda_t = argmin_lambda max_{x in U_t} ||x||^2_{A_lambda^{-1}}`` (Frank--Wolfe; support on all
       of ``X``) with value ``rho_t``;
    3. ``N_t = max(ceil(2^{2t+3} log(|X| / delta_t) (1 + epsilon) rho_t), r(epsilon))`` and the rounded
       allocation of ``lambda_t`` to ``N_t`` pulls, asked as one batch ``Decision(counts=...)``;
    4. from this round's per-arm sums only: ``A = ridge I + sum n_i x_i x_i^T``,
       ``phi_hat = A^{-1} sum x_i s_i``; bounds ``phi_hat^T x -+ beta_t ||x||_{A^{-1}}`` with
       ``beta_t = sqrt(2 log(|X| / delta_t))`` (Proposition 2);
    5. update ``U``, ``F`` and ``r`` (Sec. 3) and stop when ``U`` is empty.

    Parameters
    ----------
    config : ACOLConfig
    info : CBAIInfo
        Arms, known reward parameter ``theta`` and threshold ``tau``.
    rng : numpy.random.Generator
        Unused (ACOL is deterministic given its observations); kept for the common constructor.

    Notes
    -----
    Glossary (paper symbol -> code): ``X`` -> ``info.arms``; ``U_t, F_t, r`` -> :attr:`sets`;
    ``delta_t`` -> :meth:`round_delta`; ``lambda_t^*, rho_t^*`` -> :attr:`last_design`;
    ``N_t`` -> :meth:`round_samples`, :attr:`round_lengths`; ``l_t, u_t`` -> :meth:`confidence_bounds`;
    ``epsilon`` -> ``config.epsilon`` (rounding accuracy, not an answer tolerance).

    Applicability: the guarantee assumes 1-sub-Gaussian noise; with smaller noise ACOL is correct but
    conservative. Data are discarded between rounds, as Proposition 2 requires.

    Deviations: see ``docs/decisions/acol.md`` (ACOL round length, ``r(epsilon)``, set comparisons).
    """

    config_cls = ACOLConfig

    def __init__(self, config: ACOLConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        self.last_design: Any = None
        self._design_round = 0

    def _round_design(self, t: int) -> Any:
        if self._design_round != t or self.last_design is None:
            targets = self._arms[self._sets.uncertain]
            self.last_design = frank_wolfe_design(self._arms, targets=targets, tol=self.config.fw_tol)
            self._design_round = t
        return self.last_design

    def round_samples(self, t: int, rho: float) -> int:
        """``N_t`` of round ``t`` for a design value ``rho`` (squared, as returned by the design solver).

        Examples
        --------
        >>> from safebandits.problems.linear import CBAIInfo
        >>> info = CBAIInfo(arms=np.eye(2), reward_param=np.ones(2), threshold=0.5)
        >>> acol = ACOL(ACOLConfig(), info, np.random.default_rng(0))
        >>> acol.round_samples(1, 2.0)  # ceil(2^5 log(2 / 0.05^2) (1.01) 2)
        433
        """
        rho_t = rho if self.config.round_length == "paper" else math.sqrt(max(rho, 0.0))
        exponent = min(2 * t + 3, 1000)
        n_t = round_length(math.ldexp(1.0, exponent) * self.log_term(t) * (1.0 + self.config.epsilon) * rho_t)
        return max(n_t, self.config.min_round_samples)

    def _plan(self, t: int, delta_t: float) -> IntArray:
        design = self._round_design(t)
        n_t = self.round_samples(t, float(design.value))
        return np.asarray(round_design(design.weights, n_t), dtype=np.int64)
