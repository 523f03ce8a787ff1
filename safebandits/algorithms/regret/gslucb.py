"""GSLUCB (Amani, Alizadeh & Thrampoulidis, NeurIPS 2019, Algorithm 2): Safe-LUCB with an unknown gap.

Phase 1 explores on ``D^w`` while ``t <= min(T'_{t-1}, T_0)`` (``T'_0 = T_0``). After every exploration
round it computes a lower confidence bound ``Delta_t`` on the safety gap ``Delta = c - mu^T B x*`` and sets
``T'_t = T_{Delta_t}`` (eq. 13 with ``Delta_t`` for ``Delta``, ``beta_T`` and ``v t_delta`` kept) if
``Delta_t > 0``, else ``T_0``. Phase 2 is Safe-LUCB's (Algorithm 1, lines 6-12) on all the data.

``Delta_t`` (Appendix E is not in the paper we have; spec 2.5, ``gap_lcb``):

* ``"valid"`` (default): with ``UCB/LCB_s(x) = mu_hat^T B x +- beta ||B x||_{A^{-1}}`` and
  ``UCB/LCB_l(x) = mu_hat^T x +- beta ||x||_{A^{-1}}``, the plausibly safe arms ``P_s = {LCB_s <= c}``,
  the certified arms ``C_s = {UCB_s <= c}``, the plausibly optimal arms
  ``P = {x in P_s : LCB_l(x) <= min_{C_s} UCB_l}`` (``P = P_s`` if ``C_s`` is empty) and
  ``Delta_t = c - max_{x in P} UCB_s(x)``. On the event ``mu in C_t``, ``x*`` is in ``P`` (it is safe, and
  no certified arm has a lower true loss), hence ``Delta_t <= c - UCB_s(x*) <= c - mu^T B x* = Delta``.
* ``"plugin"``: ``Delta_t = c - UCB_s(x_hat)`` with ``x_hat = argmin_{mu_hat^T B x <= c} mu_hat^T x``;
  cheaper, not a valid bound.

Finite decision sets only (the K-armed experiment of Figure 1a). The learner never reads
``info.safety_gap``.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Literal

from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.safe_lucb import SafeLUCB, SafeLUCBBaseConfig

__all__ = ["GSLUCB", "GSLUCBConfig"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class GSLUCBConfig(SafeLUCBBaseConfig):
    """Configuration of :class:`GSLUCB`: the fields of
    :class:`~safebandits.algorithms.regret.safe_lucb.SafeLUCBConfig` except ``t_prime``, and

    Parameters
    ----------
    gap_lcb : {"valid", "plugin"}, default "valid"
        Construction of ``Delta_t`` (module docstring).
    t0_rule : {"t0", "t0-numerical"}, default "t0"
        The cap ``T_0`` of the exploration phase: the literal reading of Theorem 3 or the minimiser of
        bound (15).
    """

    gap_lcb: Literal["valid", "plugin"] = "valid"
    t0_rule: Literal["t0", "t0-numerical"] = "t0"

    def __post_init__(self) -> None:
        self._check_common()


_DESCRIPTION = (
    "GSLUCB: Safe-LUCB whose exploration stops once a lower confidence bound on the safety gap allows it "
    "(Amani et al., Algorithm 2)."
)


@register_algorithm(
    "gslucb",
    task="regret",
    description=_DESCRIPTION,
    info="safe-linear-arms",
    guarantee="round",
    assumptions=("linear", "param-norm", "noise", "safe-action"),
)
class GSLUCB(SafeLUCB):
    """GSLUCB (Algorithm 2): adaptive pure-exploration length from a gap LCB, capped at ``T_0``.

    Parameters
    ----------
    config : GSLUCBConfig
    info : SafeLinearInfo
        A finite decision set; ``safety_gap`` is ignored.
    rng : numpy.random.Generator

    Notes
    -----
    ``diagnostics()["t_prime"]`` is the round at which exploration stopped, ``gap_lcb_last`` the last
    ``Delta_t``. No regret analysis in the paper; its worst case is Safe-LUCB with ``T' = T_0``.
    Deviations: docs/decisions/safe_lucb.md (the construction of ``Delta_t``).
    """

    config_cls = GSLUCBConfig
    name = "gslucb"
    adaptive: ClassVar[bool] = True
