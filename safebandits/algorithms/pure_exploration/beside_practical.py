"""Practical BESIDE by elimination (Camilleri et al., NeurIPS 2022; digest 2.5, a reconstruction).

The paper's experiments run "a practical heuristic motivated by" Algorithm 1, described in its
unavailable Appendix F. This reconstruction keeps the two ingredients of BESIDE -- a design reducing the
uncertainty of the *safety* of the arms still in play (XY_safe) and a design comparing the arms with the
arms *certified* safe (XY_diff) -- and replaces the implicit sets of Algorithm 1 by explicit elimination:

round ``l = 1, 2, ...`` with ``eps_l = initial_tolerance * 2^{1-l}``:

1. **safety phase** (Algorithm 1 Phase 1, unweighted): ``lambda_s = argmin max_{z in A, undecided}
   ||z||^2_{A(lambda)^{-1}}``; ``n_s = ceil(2 sigma^2 rho_s eps_l^{-2} log(.)) + |supp|`` rounded pulls;
   least-squares ``mu_hat_i``; ``z`` becomes SAFE if ``min_i (gamma - z^T mu_hat_i - w) >= 0``, EPS_SAFE if
   that lower bound is ``>= -eps``, UNSAFE (eliminated) if ``gamma - z^T mu_hat_i + w < 0`` for some i;
2. **difference phase** (Phase 3): ``lambda_d = argmin max_{z in A, y in R} ||z - y||^2_{A(lambda)^{-1}}``
   over active arms ``A`` and references ``R`` (active SAFE or EPS_SAFE arms); least-squares
   ``theta_hat``; eliminate ``z`` if ``(y - z)^T theta_hat - w(y - z) > 0`` for some ``y in R``;
3. stop when every active arm is a reference and either one is left or all pairs are compared within
   ``eps``; return the reference with the largest ``z^T theta_hat``.

Arms eliminated by value are never refined for safety, and arms shown unsafe are never compared: this is
what BESIDE saves over BASELINE. Every phase uses fresh data and round ``l`` spends
``6 delta / (pi^2 l^2)`` (half per phase), so the answer is in ``Z_eps`` with probability ``1 - delta``.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np

from safebandits._validation import check_choice, check_positive
from safebandits.algorithms.pure_exploration._transductive import (
    EliminationConfig,
    EliminationLearner,
    Program,
)
from safebandits.algorithms.registry import register_algorithm
from safebandits.problems.transductive import positive_part
from safebandits.types import FloatArray, IntArray

__all__ = ["BESIDEPractical", "BESIDEPracticalConfig"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class BESIDEPracticalConfig(EliminationConfig):
    """Configuration of :class:`BESIDEPractical`.

    Parameters
    ----------
    weighting : {"beside", "uniform"}, default "beside"
        ``"beside"``: target widths ``design_scale * c(z) + eps_l`` in the safety phase, with Algorithm 1's
        ``c(z) = min_j |Delta_hat^j_safe(z)| + max_j p(-Delta_hat^j_safe(z)) + p(Delta_hat(z))`` from the
        latest estimates, and ``design_scale * (p(Delta_hat(z)) + max_j p(-Delta_hat^j_safe(z))) + eps_l``
        in the difference phase (RAGE^eps's weights, digest 2.4); ``"uniform"``: ``eps_l`` for every
        target (digest 2.5 as written).
    design_scale : float > 0, default 0.5
        The constant in front of ``c(z)`` (Algorithm 1 uses ``1/100`` for its proof).
    (other fields: :class:`EliminationConfig`)
    """

    weighting: Literal["beside", "uniform"] = "beside"
    design_scale: float = 0.5

    def __post_init__(self) -> None:
        EliminationConfig.__post_init__(self)
        owner = type(self).__name__
        check_choice(self.weighting, "weighting", ("beside", "uniform"), owner=owner)
        check_positive(self.design_scale, "design_scale", owner=owner)


@register_algorithm(
    "beside-practical",
    task="pure_exploration",
    description="BESIDE by elimination (digest 2.5): XY_safe then XY_diff vs certified-safe arms.",
)
class BESIDEPractical(EliminationLearner):
    """Practical BESIDE: alternating safety and difference phases with elimination (digest 2.5).

    Parameters
    ----------
    config : BESIDEPracticalConfig
    info : TransductiveInfo
    rng : numpy.random.Generator
        Used only with ``sampling="iid"``.

    Notes
    -----
    Glossary: ``A`` -> ``active``; ``U`` -> :attr:`undecided`; ``S`` / ``R`` -> :attr:`references`;
    ``eps_l`` -> :meth:`tolerance`. Deviations (a reconstruction of the unavailable Appendix F; least
    squares instead of RIPS; rounding instead of i.i.d. draws): ``docs/decisions.md``.
    """

    config_cls = BESIDEPracticalConfig
    config: BESIDEPracticalConfig

    def _c(self) -> FloatArray:
        """Algorithm 1, line 5: ``c(z)`` from the latest safety-gap and value estimates."""
        g = self.safety_gap_hat
        return np.abs(g).min(axis=1) + positive_part(-g).max(axis=1) + positive_part(self.gap_hat())

    def safety_tolerances(self, idx: IntArray, ell: int) -> FloatArray:
        if self.config.weighting == "uniform":
            return super().safety_tolerances(idx, ell)
        return self.config.design_scale * self._c()[idx] + self.tolerance(ell)

    def value_tolerances(self, idx: IntArray, ell: int) -> FloatArray:
        if self.config.weighting == "uniform":
            return super().value_tolerances(idx, ell)
        u = positive_part(-self.safety_gap_hat).max(axis=1) + positive_part(self.gap_hat())
        return self.config.design_scale * u[idx] + self.tolerance(ell)

    def _program(self) -> Program:
        for ell in range(1, self.config.max_rounds + 1):
            self.round = ell
            dp = self.round_delta(ell) / 2.0
            yield from self.safety_phase(ell, dp)
            yield from self.difference_phase(ell, dp)
            if self.resolved():
                break
        self.finish()
