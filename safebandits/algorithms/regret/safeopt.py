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
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np

from safebandits._validation import check_positive
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret._ckb_common import _pick
from safebandits.algorithms.regret.stageopt import LipschitzSafeLearner, SafeSetConfig
from safebandits.estimators.gp import InfoGainMode, kernel_diagonal
from safebandits.exceptions import ConfigError
from safebandits.types import Decision, FloatArray

__all__ = ["SafeOpt", "SafeOptConfig"]


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
        As StageOpt's (:class:`~safebandits.algorithms.regret.stageopt.StageOptConfig`).
    """

    gp_noise: float | str = "theory"
    info_gain: InfoGainMode = "realised"
    confidence: Literal["theory", "constant"] = "theory"
    constant_beta: float = 2.0

    def __post_init__(self) -> None:
        SafeSetConfig.__post_init__(self)
        check_positive(self.constant_beta, "constant_beta", owner=type(self).__name__)


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
    ``self.lipschitz``. Differences from the authors' public implementation (``docs/decisions/ckb.md``):
    it takes the safe set as ``{x : l(x) >= threshold}`` from the current intervals (no Lipschitz
    expansion, no intersection over time) and a constant ``beta = 2`` by default.
    """

    config_cls = SafeOptConfig
    setting = "round"
    owner = "SafeOpt"

    def __init__(self, config: SafeOptConfig, info: Any, rng: np.random.Generator) -> None:
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

    def _intersect(self) -> None:
        """Intersect the intervals of ``f`` too, then StageOpt's update of ``g``'s intervals and ``S_t``."""
        n = self.info.n_points
        if not hasattr(self, "f_lower"):
            self.f_lower, self.f_upper = np.full(n, -np.inf), np.full(n, np.inf)
        beta, _ = self.betas()
        sf = self.gp_f.std()
        np.maximum(self.f_lower, self.gp_f.mean - beta * sf, out=self.f_lower)
        np.minimum(self.f_upper, self.gp_f.mean + beta * sf, out=self.f_upper)
        super()._intersect()

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
