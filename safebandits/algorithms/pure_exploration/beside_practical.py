"""Practical BESIDE by elimination (Camilleri et al., NeurIPS 2022; digest 2.5, a reconstruction).

The paper's experiments run "a practical heuristic motivated by" Algorithm 1, described in its
unavailable Appendix F. This reconstruction keeps the two ingredients of BESIDE -- a design reducing the
uncertainty of the *safety* of the arms still in play (XY_safe) and a design comparing the arms with the
arms *certified* safe (XY_diff) -- and replaces the implicit sets of Algorithm 1 by explicit elimination:

round ``l = 1, 2, ...`` with ``eps_l = initial_tolerance * 2^{1-l}`` and ``t_l = max(eps_l, eps / 4)``:

1. **safety phase** (Algorithm 1 Phase 1): ``lambda_s = argmin max_{z in A, undecided}
   ||z||^2_{A(lambda)^{-1}} / tol_s(z)^2`` with ``tol_s(z) = design_scale c(z) + t_l``;
   ``n_s = ceil(2 sigma^2 rho_s log(.)) + |supp|`` rounded pulls; least-squares ``mu_hat_i``; ``z`` becomes
   SAFE if ``min_i (gamma - z^T mu_hat_i - w) >= 0``, EPS_SAFE if that lower bound is ``>= -eps``, UNSAFE
   (eliminated) if ``gamma - z^T mu_hat_i + w < 0`` for some i;
2. **difference phase** (Phase 3, RAGE^eps): ``lambda_d = argmin max_{z in A} ||z - y_hat||^2_{A(lambda)^{-1}}
   / tol_d(z)^2`` for the best reference ``y_hat`` (references ``R``: active SAFE or EPS_SAFE arms),
   ``tol_d(z) = design_scale (p(Dhat(z)) + u(z)) + t_l``; least-squares ``theta_hat``; eliminate ``z`` if
   ``(y - z)^T theta_hat - w(y - z) > 0`` for some ``y in R``;
3. stop when every active arm is a reference and either one is left or all pairs are compared within
   ``eps``; return the reference with the largest ``z^T theta_hat``.

``combine`` chooses how the two designs share the round's pulls: ``"sequential"`` -- two batches, as
Algorithm 1 (Phase 1's samples, then RAGE^eps's own); ``"mixture"`` -- one batch from
``(lambda_s + lambda_d) / 2``, as Algorithm 2 (Section 3) samples; ``"joint"`` -- one batch from the single
design minimising the larger of both normalised widths. With one batch, both estimates come from the same
samples (each half of the round's ``delta``) and only one batch's rounding overhead is paid.

The tolerance floor ``eps / 4`` (``t_l``): a width below ``eps / 4`` is never needed (an arm whose safety
gap is above ``-eps / 2`` is certified eps-safe, one below it shown unsafe, once its width is below
``eps / 2``; the stop rule needs pair widths ``<= eps``), while the round counter ``l`` is shared by both
phases and may keep running for the other.

Arms eliminated by value are never refined for safety, and arms shown unsafe are never compared: this is
what BESIDE saves over BASELINE. Every batch uses fresh data and round ``l`` spends
``6 delta / (pi^2 l^2)`` (half for the safety estimates, half for the values), so the answer is in
``Z_eps`` with probability ``1 - delta``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from typing import Literal

import numpy as np

from safebandits._validation import check_interval
from safebandits.algorithms.pure_exploration._transductive import (
    EliminationConfig,
    EliminationLearner,
    Program,
    solve_design,
)
from safebandits.algorithms.registry import register_algorithm
from safebandits.problems.transductive import positive_part
from safebandits.types import BatchObservation, FloatArray, IntArray

__all__ = ["BESIDEPractical", "BESIDEPracticalConfig"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class BESIDEPracticalConfig(EliminationConfig):
    """Configuration of :class:`BESIDEPractical`.

    Parameters
    ----------
    weighting : {"beside", "uniform"}, default "beside"
        ``"beside"``: target widths ``design_scale * c(z) + t_l`` in the safety phase, with Algorithm 1's
        ``c(z) = min_j |Delta_hat^j_safe(z)| + max_j p(-Delta_hat^j_safe(z)) + p(Delta_hat(z))`` from the
        latest estimates, and ``design_scale * (p(Delta_hat(z)) + max_j p(-Delta_hat^j_safe(z))) + t_l``
        in the difference phase (RAGE^eps's weights, digest 2.4); ``"uniform"``: ``t_l`` for every
        target (digest 2.5 as written). ``t_l = max(eps_l, eps / 4)``.
    design_scale : float in (0, 1/2), default 0.25
        The constant in front of ``c(z)`` (Algorithm 1 uses ``1/100`` for its proof). It must be below
        ``1/2``: for an unsafe arm (``m = 1``) ``c(z) = 2 |Delta_safe(z)|``, so a larger constant aims at
        widths above ``|Delta_safe(z)|``, which cannot show the arm unsafe.
    combine : {"sequential", "mixture", "joint"}, default "sequential"
        How the safety and difference designs share a round (module docstring). The default is
        Algorithm 1's structure; "mixture" (Algorithm 2's rule) and "joint" are ours for BESIDE.
    (other fields: :class:`EliminationConfig`)
    """

    weighting: Literal["beside", "uniform"] = "beside"
    design_scale: float = 0.25
    combine: Literal["sequential", "mixture", "joint"] = "sequential"

    def __post_init__(self) -> None:
        EliminationConfig.__post_init__(self)
        owner = type(self).__name__
        check_interval(self.design_scale, "design_scale", low=0.0, high=0.5, owner=owner)


@register_algorithm(
    "beside-practical",
    task="pure_exploration",
    description="BESIDE by elimination (digest 2.5): XY_safe and XY_diff (vs certified-safe arms) designs.",
    info="transductive",
    guarantee="pac",
    assumptions=("linear", "mean-bound", "noise"),
)
class BESIDEPractical(EliminationLearner):
    """Practical BESIDE: safety and difference designs each round, with elimination (digest 2.5).

    Parameters
    ----------
    config : BESIDEPracticalConfig
    info : TransductiveInfo
    rng : numpy.random.Generator
        Used only with ``sampling="iid"``.

    Notes
    -----
    Glossary: ``A`` -> ``active``; ``U`` -> :attr:`undecided`; ``S`` / ``R`` -> :attr:`references`;
    ``eps_l`` -> :meth:`tolerance`; ``t_l`` -> :meth:`floor_tolerance`; ``lambda_s``, ``lambda_d`` -> the
    designs of :meth:`safety_phase` / :meth:`difference_phase` (``combine="sequential"``) or
    :meth:`combined_phase`. Deviations (a reconstruction of the unavailable Appendix F; one mixed batch
    per round by default; least squares instead of RIPS; rounding instead of i.i.d. draws):
    ``docs/decisions/beside.md``.
    """

    config_cls = BESIDEPracticalConfig
    config: BESIDEPracticalConfig

    def _c(self) -> FloatArray:
        """Algorithm 1, line 5: ``c(z)`` from the latest safety-gap and value estimates."""
        g = self.safety_gap_hat
        return np.abs(g).min(axis=1) + positive_part(-g).max(axis=1) + positive_part(self.gap_hat())

    def floor_tolerance(self, ell: int) -> float:
        """``t_l = max(eps_l, eps / 4)``: no phase aims below ``eps / 4`` (module docstring)."""
        return max(self.tolerance(ell), self.epsilon / 4.0)

    def safety_tolerances(self, idx: IntArray, ell: int) -> FloatArray:
        t = self.floor_tolerance(ell)
        if self.config.weighting == "uniform":
            return np.full(idx.size, t)
        return self.config.design_scale * self._c()[idx] + t

    def value_tolerances(self, idx: IntArray, ell: int) -> FloatArray:
        t = self.floor_tolerance(ell)
        if self.config.weighting == "uniform":
            return np.full(idx.size, t)
        u = positive_part(-self.safety_gap_hat).max(axis=1) + positive_part(self.gap_hat())
        return self.config.design_scale * u[idx] + t

    def combined_phase(self, ell: int, delta_round: float) -> Generator[IntArray, BatchObservation, None]:
        """One batch for both designs (``combine="mixture"`` or ``"joint"``); safety estimates at
        ``delta_round / 2``, values at ``delta_round / 2``, both from the same samples."""
        z = self.view.decisions
        m = self.view.n_constraints
        dp = delta_round / 2.0
        und = self.undecided
        idx = np.flatnonzero(self.active)
        refs = self.references
        parts: list[tuple[FloatArray, FloatArray]] = []
        if und.size:
            parts.append((z[und], self.safety_tolerances(und, ell)))
        n_pairs = 0
        if refs.size and idx.size > 1:
            y_hat = self.best_reference(refs)
            a = idx[idx != y_hat]
            parts.append((z[a] - z[y_hat], self.value_tolerances(a, ell)))
            n_pairs = self._pairs(idx, refs)[0].size
        if not parts:
            return
        targets = np.vstack([p[0] for p in parts])
        tol = np.concatenate([p[1] for p in parts])
        design = None
        if self.config.combine == "mixture" and len(parts) == 2:
            fw = self.config.fw_tol
            lam_s = solve_design(self.view.arms, parts[0][0], 1.0 / parts[0][1] ** 2, tol=fw)[0]
            lam_d = solve_design(self.view.arms, parts[1][0], 1.0 / parts[1][1] ** 2, tol=fw)[0]
            design = 0.5 * (lam_s + lam_d)
        n_union = max(und.size * m, n_pairs)
        counts, sums = yield from self._play(targets, tol, dp, design, n_union=n_union)
        est, g, span = self._ols(counts, sums)
        self.update_safety(und, est, g, span, dp)
        self.update_values(np.flatnonzero(self.active), self.references, est, g, span, dp)

    def _program(self) -> Program:
        for ell in range(1, self.config.max_rounds + 1):
            self.round = ell
            delta_round = self.round_delta(ell)
            if self.config.combine == "sequential":
                yield from self.safety_phase(ell, delta_round / 2.0)
                yield from self.difference_phase(ell, delta_round / 2.0)
            else:
                yield from self.combined_phase(ell, delta_round)
            if self.resolved():
                break
        self.finish()
