"""SafeOpt (Sui, Gotovos, Burdick & Krause, ICML 2015): safe exploration by the most uncertain of the
possible maximisers and expanders, with the safe set of StageOpt (:mod:`.stageopt`).

From a known safe seed, with the package's sign convention (safe means ``g(x) <= 0``) and two functions
(a reward ``f`` and a constraint ``g``, as the CKB paper's baselines):

* confidence intervals intersected over time, ``C_t = C_{t-1} n [mu -+ beta_t sigma]``, for ``f``
  (``l^f_t``, ``u^f_t``) and ``g`` (``l_t``, ``u_t``);
* the safe set ``S_t = S_{t-1} u {x' : exists x in S_{t-1}, u_t(x) + L d(x, x') <= 0}`` and the expanders
  ``G_t = {x in S_t : exists x' not in S_t, l_t(x) + L d(x, x') <= 0}``: StageOpt's code
  (:class:`~safebandits.algorithms.regret.stageopt.LipschitzSafeLearner`, options ``lipschitz``, ``metric``,
  ``safe_set``);
* the possible maximisers ``M_t = {x in S_t : u^f_t(x) >= max_{x' in S_t} l^f_t(x')}``;
* ``x_t = argmax_{x in G_t u M_t} w_t(x)`` with the width ``w_t(x) = max((u^f - l^f)(x), (u - l)(x)) /
  sqrt(k(x, x))`` (each function's width in units of its prior standard deviation: the single
  function of the paper is both objective and safety; with two, the authors' public implementation
  takes the largest scaled width; random ties). When ``G_t u M_t`` is empty (intervals that crossed,
  ``l^f > u^f``: data that contradict a heuristic width), the safe point of largest ``l^f_t``, never a
  point outside ``S_t`` (:meth:`SafeOpt._fallback`; ``docs/decisions/ckb.md``).

**Safety guarantee.** If every interval holds at every round and ``g`` is ``L``-Lipschitz for ``d``,
every point of ``S_t``, hence every ``x_t``, has ``g(x_t) <= 0``. With ``confidence="theory"`` (default)
the width is Chowdhury & Gopalan's ``beta_t = B + R sqrt(2 (gamma_{t-1} + 1 + ln(2 / delta)))`` (``G``,
``R~`` for ``g``; :func:`~safebandits.estimators.gp.beta_width`) with the realised information gain of
the data (``info_gain="realised"``) and ``lambda = 1 + 2/T`` (``gp_noise="theory"``), both defaults here,
for which the intervals hold for all ``t`` with
probability at least ``1 - delta`` when ``||f||_k <= B``, ``||g||_k <= G`` and the noise is ``R``-sub-Gaussian
(``delta`` split between ``f`` and ``g``); with the kernel metric ``d(x, x') = ||k(x, .) - k(x', .)||`` every
``g`` with ``||g||_k <= G`` is ``G``-Lipschitz, so ``L = G`` (default) completes the condition. So with
probability at least ``1 - delta`` no round is unsafe. ``confidence="constant"`` uses the constant
``beta = constant_beta`` (default 2, the authors' implementation's default) for both functions: the
usual heuristic, which **voids the guarantee** (it can be narrower than the theory's width).
``info_gain="heuristic"``, ``beta_scale < 1`` or a told ``B``, ``G`` that is not an RKHS-norm bound void it
too.

**SafeOpt as the ``safeopt`` package has it** (``variant="berkenkamp"``; Berkenkamp, Schoellig & Krause,
ICRA 2016, the form of the authors' package ``safeopt`` 0.16 without a Lipschitz constant, its default).
No Lipschitz constant and no intersection: each round

* the intervals ``[mu -+ beta sigma]`` of ``f`` and ``g`` from the current posteriors;
* the safe set ``S_t = {x : u_t(x) < 0}`` (the package's ``lower bound of -g > 0``, strict), recomputed
  from scratch (the seed is in it only while its own bound certifies it; when no point is certified the
  package stops with an error, and this learner plays the told seed);
* ``M_t`` as above;
* one expander at most: the safe points outside ``M_t`` whose scaled width exceeds the largest scaled
  width of ``f`` over ``M_t`` are tried widest first (the larger unscaled width of ``f`` and ``g``;
  equal widths: the larger index first, as the package's reversed sort has them), and the first whose
  *fictitious observation* ``g(x) = l_t(x)`` (its most favourable value) would make some point outside
  ``S_t`` safe, ``mu'(x') + beta sigma'(x') <= 0`` for the posterior with that observation added (the
  rank-one update of :class:`~safebandits.estimators.gp.FiniteGP`, from the posterior covariance
  ``k_t(x', x)``), is ``G_t``;
* ``x_t`` the first index of largest scaled width in ``M_t u G_t`` (no random tie-break).

It reproduces the package round for round on the trajectories recorded in
``tests/data/safeopt_reference/`` (``benchmarks/record_safeopt.py``). **No safety guarantee** beyond the
intervals themselves: a point is called safe by its own upper bound, which holds at every point and round
only under the same conditions as above (``confidence="theory"``); with the package's ``beta = 2``
(``confidence="constant"``) there is none.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

import numpy as np

from safebandits._validation import check_choice, check_positive
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret._ckb_common import _pick
from safebandits.algorithms.regret.stageopt import LipschitzSafeLearner, SafeSetConfig
from safebandits.estimators.gp import InfoGainMode, kernel_diagonal
from safebandits.exceptions import ConfigError
from safebandits.records import ArmEstimates
from safebandits.types import Decision, FloatArray

__all__ = ["SafeOpt", "SafeOptConfig", "Variant"]

#: ``"sui"``: Sui et al. (2015); ``"berkenkamp"``: the ``safeopt`` package's form (module docstring).
Variant = Literal["sui", "berkenkamp"]

#: Candidate expanders whose fictitious observation is tried at once (one covariance block each).
_EXPANDER_BLOCK = 32


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SafeOptConfig(SafeSetConfig):
    """Configuration of :class:`SafeOpt`.

    Parameters
    ----------
    confidence : {"theory", "constant"}, default "theory"
        ``beta_t`` from the RKHS bounds and the noise (the safety guarantee holds), or the constant
        ``constant_beta`` (a heuristic; no guarantee).
    constant_beta : float > 0, default 2.0
        The constant width multiplier of ``confidence="constant"``.
    gp_noise : float > 0 or "theory", default "theory"
        ``lambda`` of both GPs (``"theory"``: ``1 + 2/T``, the ``1 + eta`` of Chowdhury & Gopalan's bound).
    info_gain : {"heuristic", "greedy", "realised"}, default "realised"
        ``gamma_t`` of the theory width (``"realised"``: the information gain of the data, for which
        the self-normalised bound holds).
    delta, beta_scale, horizon, posterior
        As CKB's (:class:`~safebandits.algorithms.regret.ckb.GPBanditConfig`).
    lipschitz, metric, safe_set
        As StageOpt's (:class:`~safebandits.algorithms.regret.stageopt.StageOptConfig`); not read by
        ``variant="berkenkamp"``.
    variant : {"sui", "berkenkamp"}, default "sui"
        ``"sui"``: Sui et al.'s SafeOpt (Lipschitz safe set, intervals intersected over time);
        ``"berkenkamp"``: the form of the authors' package ``safeopt`` 0.16 (the safe set from the
        posterior's bound each round, expanders by a fictitious observation, no intersection; module
        docstring). The package's own setting is ``confidence="constant"`` with ``constant_beta=2``.
    """

    gp_noise: float | str = "theory"
    info_gain: InfoGainMode = "realised"
    confidence: Literal["theory", "constant"] = "theory"
    constant_beta: float = 2.0
    variant: Variant = "sui"

    #: Added with issue 40, after stored runs: at Sui et al.'s form it is not in their keys.
    unkeyed: ClassVar[Mapping[str, Any]] = {"variant": "sui"}

    def __post_init__(self) -> None:
        SafeSetConfig.__post_init__(self)
        check_positive(self.constant_beta, "constant_beta", owner=type(self).__name__)
        check_choice(self.variant, "variant", Variant, owner=type(self).__name__)


@register_algorithm(
    "safeopt",
    task="regret",
    description="SafeOpt: the most uncertain possible maximiser or expander of a Lipschitz safe set "
    "(Sui et al. 2015); confidence from the RKHS bound by default.",
    info="kernel",
    guarantee="round",
    assumptions=("rkhs", "noise", "safe-action"),
)
class SafeOpt(LipschitzSafeLearner):
    """SafeOpt on a finite domain with a known safe seed (per-round safety; module docstring).

    Parameters
    ----------
    config : SafeOptConfig
    info : KernelInfo
        Kernels, bounds ``B``, ``G``, noise bounds, horizon and ``safe_seed`` (non-empty).
    rng : numpy.random.Generator
        Tie-breaking uniforms only.

    Notes
    -----
    Glossary: ``S_t`` -> ``self.safe``; ``l_t, u_t`` -> ``self.g_lower, self.g_upper``; ``l^f_t, u^f_t`` ->
    ``self.f_lower, self.f_upper``; ``M_t`` -> :meth:`maximisers`; ``G_t`` -> :meth:`expanders`; ``L`` ->
    ``self.lipschitz``. The authors' package ``safeopt`` 0.16 implements another form (in both of its
    modes the safe set is the GP's own lower bound of the round, no Lipschitz expansion, no intersection
    over time; a constant ``beta = 2``): ``variant="berkenkamp"`` reproduces it (module docstring;
    ``docs/decisions/ckb.md``).
    """

    config_cls = SafeOptConfig
    setting = "round"
    owner = "SafeOpt"

    def __init__(self, config: SafeOptConfig, info: Any, rng: np.random.Generator) -> None:
        if config.variant == "berkenkamp" and getattr(info, "box", None) is not None:
            raise ConfigError(
                "SafeOpt: variant='berkenkamp' plays a finite domain (its safe set is the posterior's own "
                "bound on given points); on a box use variant='sui', or give the candidate points as a "
                "finite domain."
            )
        #: ``"sui"`` or ``"berkenkamp"`` (the ``variant`` option).
        self.variant = config.variant  # (read by the first set update, in the base's constructor)
        super().__init__(config, info, rng)
        self._prior_sd_f = np.sqrt(np.maximum(kernel_diagonal(self.info.kernel), 1e-300))
        self._prior_sd_g = np.sqrt(np.maximum(kernel_diagonal(self.info.constraint_kernel), 1e-300))
        #: Rounds in which ``M_t u G_t`` was empty and the learner played :meth:`_fallback`'s point.
        self.fallback_rounds = 0

    def betas(self, t: int | None = None) -> tuple[float, float]:
        """``(beta_t, beta~_t)``: the theory widths, or ``constant_beta`` twice."""
        if self.config.confidence == "constant":
            return float(self.config.constant_beta), float(self.config.constant_beta)
        return super().betas(t)

    def _lipschitz_set(self) -> bool:
        return self.variant == "sui"

    def _intersect(self) -> None:
        """Intersect the intervals of ``f`` too, then StageOpt's update of ``g``'s intervals and ``S_t``
        (``variant="berkenkamp"``: :meth:`_intervals_now`)."""
        if self.variant == "berkenkamp":
            self._intervals_now()
            return
        n = self.info.n_points
        if not hasattr(self, "f_lower"):
            self.f_lower, self.f_upper = np.full(n, -np.inf), np.full(n, np.inf)
        beta, _ = self.betas()
        sf = self.gp_f.std()
        np.maximum(self.f_lower, self.gp_f.mean - beta * sf, out=self.f_lower)
        np.minimum(self.f_upper, self.gp_f.mean + beta * sf, out=self.f_upper)
        super()._intersect()

    def _intervals_now(self) -> None:
        """``variant="berkenkamp"``: the intervals of this round's posteriors (no intersection) and the
        safe set ``{u_t < 0}``, or the told seed when no point is certified."""
        beta, beta_g = self.betas()
        sf, sg = self.gp_f.std(), self.gp_g.std()
        self.f_lower, self.f_upper = self.gp_f.mean - beta * sf, self.gp_f.mean + beta * sf
        self.g_lower[:] = self.gp_g.mean - beta_g * sg
        self.g_upper[:] = self.gp_g.mean + beta_g * sg
        np.less(self.g_upper, 0.0, out=self.safe)
        if not self.safe.any():
            self.safe[list(self.info.safe_seed)] = True

    def _expander_berkenkamp(self, m: np.ndarray) -> int:
        """``variant="berkenkamp"``: the index of the package's expander for the maximisers ``m``, or -1
        (module docstring): candidates widest first, each tried by a fictitious observation ``l_t(x)``
        of ``g`` at ``x``; the first that certifies a point outside ``S_t``."""
        unsafe = np.flatnonzero(~self.safe)
        if unsafe.size == 0:
            return -1
        wf, wg = self.f_upper - self.f_lower, self.g_upper - self.g_lower
        top = float(np.max(wf[m] / self._prior_sd_f[m]))
        cand = self.safe & ~m & (np.maximum(wf / self._prior_sd_f, wg / self._prior_sd_g) > top)
        cand &= (wf > 0.0) | (wg > 0.0)
        idx = np.flatnonzero(cand)
        if idx.size == 0:
            return -1
        order = idx[np.argsort(np.maximum(wf[idx], wg[idx]), kind="stable")[::-1]]
        _, beta_g = self.betas()
        gp = self.gp_g
        mean_u, var_u = gp.mean[unsafe], gp.var[unsafe]
        for a in range(0, order.size, _EXPANDER_BLOCK):
            xs = order[a : a + _EXPANDER_BLOCK]
            cov = gp.cov_cross(unsafe, xs)  # k_t(x', x), (|unsafe|, m)
            s = gp.noise_var + gp.var[xs]
            gain = (self.g_lower[xs] - gp.mean[xs]) / s
            mean2 = mean_u[:, None] + cov * gain[None, :]
            var2 = var_u[:, None] - cov * cov / s[None, :]
            up2 = mean2 + beta_g * np.sqrt(np.maximum(var2, 0.0))
            hit = np.flatnonzero((up2 <= 0.0).any(axis=0))
            if hit.size:
                return int(xs[hit[0]])
        return -1

    def expanders(self) -> np.ndarray:
        """Mask of ``G_t``: StageOpt's Lipschitz expanders, or (``variant="berkenkamp"``) the package's
        one expander at most (:meth:`_expander_berkenkamp`)."""
        if self.variant != "berkenkamp":
            return super().expanders()
        mask = np.zeros_like(self.safe)
        e = self._expander_berkenkamp(self.maximisers())
        if e >= 0:
            mask[e] = True
        return mask

    def arm_estimates(self) -> ArmEstimates:
        est = super().arm_estimates()
        if self.variant != "berkenkamp":
            return est
        how = "GP posterior mean -+ beta_t sigma_t of this round (no intersection); safe when u_t < 0"
        return dataclasses.replace(est, interval=how)

    def maximisers(self) -> np.ndarray:
        """Mask of ``M_t``: safe points whose upper bound of ``f`` reaches the best safe lower bound."""
        best = float(np.max(self.f_lower[self.safe]))
        return self.safe & (self.f_upper >= best)

    def widths(self) -> FloatArray:
        """``w_t = max((u^f - l^f) / sqrt(k(x, x)), (u - l) / sqrt(k~(x, x)))``."""
        return np.maximum(
            (self.f_upper - self.f_lower) / self._prior_sd_f, (self.g_upper - self.g_lower) / self._prior_sd_g
        )

    def diagnostics(self) -> dict[str, Any]:
        beta, beta_g = self.betas()
        return {
            "safe_set_size": int(self.safe.sum()),
            "maximisers": int(self.maximisers().sum()),
            "lipschitz": self.lipschitz,
            "beta": beta,
            "beta_g": beta_g,
        }

    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError("SafeOpt plays a fixed finite domain; ask() takes no context.")
        if self.variant == "berkenkamp":
            return self._ask_berkenkamp()
        u, _ = self._draws.next()
        cand = self.maximisers() | self.expanders()
        w = self.widths()
        scores = self._scores
        scores[:] = np.where(cand, np.where(np.isfinite(w), w, math.inf), -np.inf)
        best = float(np.max(scores))
        if best == math.inf:  # (no data yet: every candidate's interval is unbounded) ties at +inf
            scores[:] = np.where(scores == math.inf, 1.0, -np.inf)
            best = 1.0
        i = int(_pick(scores, best, u))
        if i < 0:
            i = self._fallback(u)
        return self._played(i)

    def _fallback(self, u: float) -> int:
        """The point played when ``M_t u G_t`` is empty (issue 40; ``docs/decisions/ckb.md``, "SafeOpt with
        no candidate"): the safe point of largest certified lower bound ``l^f_t`` (the paper's reported
        point ``x^_t``; ties by ``u``), never a point outside ``S_t``. ``M_t`` is empty only when the
        intervals of ``f`` crossed (``l^f > u^f`` where ``l^f`` is largest): the data contradict the
        intervals, no point can be certified better, and the safe set is all that is still certified."""
        self.fallback_rounds += 1
        scores = self._scores
        scores[:] = np.where(self.safe, self.f_lower, -np.inf)
        i = int(_pick(scores, float(np.max(scores)), u))
        if i < 0:  # (no finite lower bound in S_t: a safe point, uniform with u)
            scores[:] = np.where(self.safe, 0.0, -np.inf)
            i = int(_pick(scores, 0.0, u))
        return i

    def _ask_berkenkamp(self) -> Decision:
        """``variant="berkenkamp"``: the first index of largest scaled width in ``M_t u G_t``."""
        self._draws.next()  # (one round's draws, unused: cancel() gives them back as for "sui")
        m = self.maximisers()
        e = self._expander_berkenkamp(m)
        if e >= 0:
            m[e] = True
        w = self.widths()
        scores = self._scores
        scores[:] = np.where(m, w, -np.inf)
        return self._played(int(np.argmax(scores)))
