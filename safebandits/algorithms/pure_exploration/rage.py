"""RAGE: randomized adaptive gap elimination for transductive best-arm identification.

Fiez, Jain, Jamieson & Ratliff (NeurIPS 2019), Algorithm 1, as coded in their public reference
(digest 3.1): round ``r`` solves the XY_diff design ``argmin_lambda max_{z, z' active}
||z - z'||^2_{A(lambda)^{-1}}``, plays ``N_r = 2 eps_r^{-2} rho_r log(.)`` pulls rounded from it
(Pukelsheim), re-estimates ``theta`` by least squares from this round's data and drops ``z`` when some
active ``z'`` satisfies ``(z' - z)^T theta_hat > w(z' - z)``; ``eps_r = 2^{-r}``.

In the safe transductive library RAGE is the building block of BASELINE and the *vacuous-constraint
reference* (Corollary 1): it ignores the constraints (treats every decision as safe), so on a constrained
instance it returns the unconstrained best decision. It also stops once every pair of active decisions is
compared to within ``eps`` (the ``eps``-good variant), and then returns the best estimate.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from safebandits.algorithms.pure_exploration._transductive import (
    SAFE,
    EliminationConfig,
    EliminationLearner,
    Program,
)
from safebandits.algorithms.registry import register_algorithm

__all__ = ["RAGE", "RAGEConfig"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class RAGEConfig(EliminationConfig):
    """Configuration of :class:`RAGE` (fields of :class:`EliminationConfig`).

    ``initial_tolerance = 1`` gives RAGE's ``eps_r = 2^{-r}`` from round 2 on (round 1 at ``eps = 1``);
    ``width_factor = 2`` is RAGE's ``N_r = 2 eps_r^{-2} rho_r log(.)`` (with ``omega = 0``).
    """


@register_algorithm(
    "rage",
    task="pure_exploration",
    description="RAGE (Fiez et al. 2019): XY_diff elimination, ignores constraints.",
    info="transductive",
    guarantee="none",
)
class RAGE(EliminationLearner):
    """RAGE (Fiez et al. 2019, Algorithm 1) on the decision set Z, measuring on X.

    Parameters
    ----------
    config : RAGEConfig
    info : TransductiveInfo
    rng : numpy.random.Generator
        Used only with ``sampling="iid"``.

    Notes
    -----
    Glossary: ``Z_r`` (active set) -> ``active``; ``eps_r`` -> :meth:`tolerance`; ``delta_r`` ->
    :meth:`round_delta` (``6 delta / (pi^2 r^2)`` instead of RAGE's ``delta / r^2``, so that the rounds'
    errors sum to ``delta``). Applicability: the constraints are ignored -- a reference, correct only for
    vacuous constraints (``mu = 0``). Deviations: ``docs/decisions/beside.md`` ("RAGE").
    """

    config_cls = RAGEConfig

    def __init__(self, config: RAGEConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        self.status[:] = SAFE

    def _program(self) -> Program:
        for ell in range(1, self.config.max_rounds + 1):
            self.round = ell
            if np.count_nonzero(self.active) <= 1:
                break
            yield from self.difference_phase(
                ell, self.round_delta(ell), refs=np.flatnonzero(self.active), pivot=False
            )
            if self.resolved():
                break
        self.finish()
