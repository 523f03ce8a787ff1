"""Static-allocation baselines of Lindner et al. (ICML 2022): Algorithm 3 (App. B) with a fixed design.

The design ``lambda`` is computed once; round ``t`` plays ``N_t = ceil(v^t log(|X| / delta_t))`` pulls
rounded from it, re-estimates from this round's data only and eliminates arms exactly as ACOL does.

=================  ===============================================================================
name               design
=================  ===============================================================================
``"oracle"``       ``argmin_lambda max_{x in X_theta(x*)} ||x||^2_{A_lambda^{-1}} / (phi^T x - tau)^2``
                   (needs the true ``phi``: privileged; App. B.1, Theorem 3)
``"g-allocation"`` G-optimal ``argmin_lambda max_{x in X} ||x||^2_{A_lambda^{-1}}`` (App. B.2, Theorem 4)
``"uniform"``      uniform weights over ``X``
=================  ===============================================================================
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np

from safebandits._validation import (
    check_array,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.algorithms.base import LearnerConfig
from safebandits.algorithms.pure_exploration._cbai import MAX_ROUND_SAMPLES, RoundBasedCBAI, round_length
from safebandits.algorithms.registry import register_algorithm
from safebandits.design import frank_wolfe_design, round_design
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.types import FloatArray, IntArray

__all__ = ["StaticAllocation", "StaticAllocationConfig", "oracle_targets"]

#: Margins below this (in absolute value) are floored when weighting the oracle design.
MIN_MARGIN = 1e-12


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class StaticAllocationConfig(LearnerConfig):
    """Configuration of :class:`StaticAllocation`.

    Parameters
    ----------
    allocation : {"oracle", "g-optimal", "uniform"}, default "g-optimal"
        Which fixed design to play (set by the registered names).
    delta : float in (0, 1), default 0.05
        Error probability; round ``t`` uses ``delta_t = delta^2 / t^2``.
    phase_base : float > 1, default 2.0
        ``v`` of ``N_t = ceil(v^t log(|X| / delta_t))`` (paper: ``v in (1, 2)``; authors' code: 2).
    ridge : float > 0, default 0.01
        Ridge of the per-round estimate.
    oracle_margins : {"threshold", "code"}, default "threshold"
        Margins weighting the oracle design: ``phi^T x - tau`` (``"threshold"``), or ``phi^T x``
        ignoring ``tau`` as in the authors' code (``"code"``; equal when ``tau = 0``).
    fw_tol : float > 0, default 1e-3
        Stopping tolerance of the Frank--Wolfe design solver.
    min_round_samples : int >= 0, default 0
        Minimum round length.
    """

    allocation: Literal["oracle", "g-optimal", "uniform"] = "g-optimal"
    delta: float = 0.05
    phase_base: float = 2.0
    ridge: float = 0.01
    oracle_margins: Literal["threshold", "code"] = "threshold"
    fw_tol: float = 1e-3
    min_round_samples: int = 0

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_literal_fields(self, owner=owner)
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_interval(self.phase_base, "phase_base", low=1.0, owner=owner)
        check_positive(self.ridge, "ridge", owner=owner)
        check_positive(self.fw_tol, "fw_tol", owner=owner)
        check_int(self.min_round_samples, "min_round_samples", low=0, owner=owner)


def oracle_targets(
    arms: FloatArray,
    rewards: FloatArray,
    constraint_param: FloatArray,
    threshold: float,
    margins: str = "threshold",
) -> tuple[np.ndarray, FloatArray]:
    """Competing arms ``X_theta(x*)`` and their oracle weights ``1 / margin^2`` (App. B.1).

    Parameters
    ----------
    arms : ndarray of shape (n_arms, d)
    rewards : ndarray of shape (n_arms,)
    constraint_param : ndarray of shape (d,)
        True ``phi``.
    threshold : float
        ``tau``.
    margins : {"threshold", "code"}
        ``|phi^T x - tau|`` or the authors' ``|phi^T x|``.

    Returns
    -------
    competing : ndarray of int
        Indices of arms with reward at least that of the constrained optimum ``x*``.
    weights : ndarray of shape (len(competing),)
        ``1 / max(|margin|, MIN_MARGIN)^2``.

    Examples
    --------
    >>> arms = np.array([[0.5], [0.9], [1.1]])
    >>> idx, w = oracle_targets(arms, arms[:, 0], np.ones(1), 1.0)
    >>> idx.tolist(), np.round(w, 2).tolist()
    ([1, 2], [100.0, 100.0])
    """
    values = arms @ constraint_param
    feasible = values <= threshold
    if not np.any(feasible):
        raise InfeasibleInstanceError(
            "The oracle design is built around the best feasible arm, and this instance has none (every "
            "arm's constraint value exceeds the threshold). Use a learner that needs no oracle (acol, "
            "g-acol, uniform), or an instance with at least one feasible arm."
        )
    best = float(np.max(rewards[feasible]))
    competing = np.flatnonzero(rewards >= best)
    m = values[competing] - (threshold if margins == "threshold" else 0.0)
    return competing, 1.0 / np.maximum(np.abs(m), MIN_MARGIN) ** 2


def _register(cls: type) -> type:
    register_algorithm(
        "oracle",
        task="pure_exploration",
        defaults={"allocation": "oracle"},
        privileged=True,
        info="cbai",
        guarantee="pac",
        assumptions=("linear", "noise"),
        description="Oracle: static design optimal for the true phi (Alg. 3, App. B.1).",
    )(cls)
    register_algorithm(
        "g-allocation",
        task="pure_exploration",
        defaults={"allocation": "g-optimal"},
        info="cbai",
        guarantee="pac",
        assumptions=("linear", "noise"),
        description="G-Allocation: static G-optimal design over X (Alg. 3, App. B.2).",
    )(cls)
    register_algorithm(
        "uniform",
        task="pure_exploration",
        defaults={"allocation": "uniform"},
        info="cbai",
        guarantee="pac",
        assumptions=("linear", "noise"),
        description="Uniform: static uniform allocation over X (Alg. 3).",
    )(cls)
    return cls


@_register
class StaticAllocation(RoundBasedCBAI):
    """Round-based CBAI with a fixed design (Lindner et al. 2022, Algorithm 3, App. B).

    Round ``t = 1, 2, ...`` while ``U_t`` is non-empty: ``delta_t = delta^2 / t^2``,
    ``N_t = ceil(v^t log(|X| / delta_t))`` pulls rounded from the fixed design ``lambda``, estimate from
    this round's data only, bounds with ``beta_t = sqrt(2 log(|X| / delta_t))`` (Proposition 2), update
    ``U``, ``F``, ``r`` (Sec. 3). The design is computed at the first ``ask``.

    Parameters
    ----------
    config : StaticAllocationConfig
    info : CBAIInfo, or CBAIPrivilegedInfo for ``allocation="oracle"``
        The oracle reads the true ``constraint_param`` (``phi``) to find ``x*`` and the margins.
    rng : numpy.random.Generator
        Unused (deterministic given the observations).

    Notes
    -----
    Glossary (paper symbol -> code): ``lambda^*`` -> :attr:`weights`; ``v`` -> ``config.phase_base``;
    ``X_theta(x*)`` -> :func:`oracle_targets`; ``U_t, F_t, r`` -> :attr:`sets`; ``N_t`` ->
    :meth:`round_samples`.

    Applicability: the Oracle is a reference that cannot be run in practice (it knows ``phi``).
    Deviations: see ``docs/decisions/acol.md`` (oracle margins with ``tau``, phase base ``v = 2``).
    """

    config_cls = StaticAllocationConfig

    def __init__(self, config: StaticAllocationConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        self._phi: FloatArray | None = None
        if config.allocation == "oracle":
            phi = getattr(info, "constraint_param", None)
            if phi is None or np.size(phi) == 0:
                raise ConfigError(
                    "The 'oracle' allocation needs the privileged instance view "
                    "(instance.privileged_info(), with 'constraint_param'); got a public view."
                )
            self._phi = check_array(
                phi, "constraint_param", shape=(self._arms.shape[1],), owner="StaticAllocation"
            )
        self._weights: FloatArray | None = None

    @property
    def weights(self) -> FloatArray:
        """The fixed design ``lambda`` (computed once, on first use)."""
        if self._weights is None:
            self._weights = self._compute_weights()
        return self._weights

    def _compute_weights(self) -> FloatArray:
        n = self.n_arms
        kind = self.config.allocation
        if kind == "uniform":
            return np.full(n, 1.0 / n)
        if kind == "g-optimal":
            return np.asarray(
                frank_wolfe_design(self._arms, tol=self.config.fw_tol).weights, dtype=np.float64
            )
        phi = np.zeros(0) if self._phi is None else self._phi
        idx, w = oracle_targets(self._arms, self._rewards, phi, self._threshold, self.config.oracle_margins)
        design = frank_wolfe_design(
            self._arms, targets=self._arms[idx], target_weights=w, tol=self.config.fw_tol
        )
        return np.asarray(design.weights, dtype=np.float64)

    def round_samples(self, t: int) -> int:
        """``N_t = ceil(v^t log(|X| / delta_t))`` (Algorithm 3), at least ``min_round_samples``."""
        log_v = math.log(self.config.phase_base)
        if t * log_v > math.log(MAX_ROUND_SAMPLES):
            return MAX_ROUND_SAMPLES
        return max(round_length(self.config.phase_base**t * self.log_term(t)), self.config.min_round_samples)

    def _plan(self, t: int, delta_t: float) -> IntArray:
        return np.asarray(round_design(self.weights, self.round_samples(t)), dtype=np.int64)
