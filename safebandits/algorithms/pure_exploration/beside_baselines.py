"""Baselines of safe transductive BAI (Camilleri et al., NeurIPS 2022, Sections 4.1-4.3, Proposition 2).

=========================  ==========================================================================
name                       strategy
=========================  ==========================================================================
``"beside-baseline"``      BASELINE: first find the safe arms (level-set estimation by rounds of XY_safe
                           designs on the undecided arms, each classified safe, eps-safe or unsafe), then
                           RAGE (XY_diff elimination) on the arms found (eps-)safe, with fresh samples.
``"xy-diff-only"``         every round samples ``argmin max_{z, z' active} ||z - z'||^2_{A(lambda)^{-1}}``
                           (the RAGE design); safety and values are both estimated from those samples.
``"xy-safe-only"``         the same with ``argmin max_{z active} ||z||^2_{A(lambda)^{-1}}``.
``"passive"``              the same with the uniform design over X.
=========================  ==========================================================================

All four share the elimination engine and stopping rule of the practical BESIDE
(:class:`~safebandits.algorithms.pure_exploration._transductive.EliminationLearner`), so that only the
sampling strategy differs. Their constants and stopping tolerances are reconstructions (the paper
describes BASELINE in one sentence); see ``docs/decisions/beside.md``.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Literal

from safebandits.algorithms.pure_exploration._transductive import (
    EliminationConfig,
    EliminationLearner,
    Program,
)
from safebandits.algorithms.registry import register_algorithm

__all__ = ["Baseline", "BaselineConfig", "SingleDesign", "SingleDesignConfig"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class BaselineConfig(EliminationConfig):
    """Configuration of :class:`Baseline` (fields of :class:`EliminationConfig`); each stage spends
    ``delta / 2``."""


@register_algorithm(
    "beside-baseline",
    task="pure_exploration",
    description="BASELINE: find the safe arms (XY_safe rounds), then RAGE on them.",
    info="transductive",
    guarantee="pac",
    assumptions=("linear", "mean-bound", "noise"),
)
class Baseline(EliminationLearner):
    """BASELINE of Figures 2-3: safe-set identification, then RAGE on the safe arms.

    Stage A, round ``l``: XY_safe design on every undecided arm (none is eliminated by value), pulls for
    widths ``eps_l``; classify safe / eps-safe / unsafe. Stage B, once no arm is undecided: RAGE rounds
    ``r = 1, 2, ...`` (XY_diff on the (eps-)safe arms) until one is left or all pairs are within ``eps``.

    Notes
    -----
    Deviations (tolerance ``eps`` for "finding the safe arms", fresh samples in stage B, least squares):
    ``docs/decisions/beside.md`` ("BASELINE").
    """

    config_cls = BaselineConfig

    def _program(self) -> Program:
        ell = 0
        while self.undecided.size and ell < self.config.max_rounds:
            ell += 1
            self.round = ell
            yield from self.safety_phase(ell, self.round_delta(ell) / 2.0)
        for r in range(1, self.config.max_rounds + 1):
            if self.resolved():
                break
            self.round = ell + r
            yield from self.difference_phase(r, self.round_delta(r) / 2.0, pivot=False)
        self.finish()


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SingleDesignConfig(EliminationConfig):
    """Configuration of :class:`SingleDesign`.

    Parameters
    ----------
    design : {"diff", "safe", "uniform"}, default "diff"
        The only design played (set by the registered names).
    (other fields: :class:`EliminationConfig`)
    """

    design: Literal["diff", "safe", "uniform"] = "diff"


class SingleDesign(EliminationLearner):
    """One design per round (XY_diff-only, XY_safe-only or passive uniform), with BESIDE's elimination.

    Round ``l``: one batch from the design, sized for widths ``eps_l`` on its targets; constraints and
    values estimated from the same samples (``delta_l / 2`` each); classify, eliminate; same stop rule as
    the practical BESIDE. Proposition 2: on I1 the XY_diff-only strategy needs ``Omega(eps^-3)`` pulls.
    """

    config_cls = SingleDesignConfig
    name: ClassVar[str] = "single-design"

    def _program(self) -> Program:
        for ell in range(1, self.config.max_rounds + 1):
            self.round = ell
            yield from self.joint_phase(ell, self.round_delta(ell), self.config.design)
            if self.resolved():
                break
        self.finish()


for _name, _design, _text in (
    ("xy-diff-only", "diff", "XY_diff-only strategy (Prop. 2): RAGE design, safety from the same samples."),
    ("xy-safe-only", "safe", "XY_safe-only strategy (Prop. 2): G-type design on the active arms."),
    ("passive", "uniform", "Passive uniform sampling over X with BESIDE's elimination."),
):
    register_algorithm(
        _name,
        task="pure_exploration",
        defaults={"design": _design},
        description=_text,
        info="transductive",
        guarantee="pac",
        assumptions=("linear", "mean-bound", "noise"),
    )(SingleDesign)
