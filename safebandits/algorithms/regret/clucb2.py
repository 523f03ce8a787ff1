"""CLUCB2, conservative constrained LinUCB (Garcelon, Ghavamzadeh, Lazaric & Pirotta, "Improved
Algorithms for Conservative Exploration in Bandits", 2020, arXiv:2002.03221), and its checkpoint variant
(the conservative constraint verified only every ``tau`` rounds).

Sources: the paper's text past its abstract and the start of its introduction could not be read here
(``docs/decisions/conservative.md``, "CLUCB2 and the checkpoint constraint"). The abstract names the
algorithm -- *Conservative Constrained* LinUCB -- and the relaxed constraint; the steps below are our
reading of that name on the kernels of :mod:`~safebandits.algorithms.regret.clucb` (its steps 1-4),
numbered by us. Each round ``t``, context ``(x_{t,a})_a``, baseline action ``b_t`` and, when known,
its reward ``r_{b_t}``:

1. ``beta_t``, ``V_t`` and ``theta_hat_t`` from every round so far (the baseline rounds' observations
   too: ``n = t - 1``);
2. every row's optimistic value ``u_t(a) = <theta_hat_t, x_{t,a}> + beta_t ||x_{t,a}||_{V_t^{-1}}``;
3. every row's pessimistic margin ``xi_t(a)`` (CLUCB's step 3-4 with ``a`` in place of ``a'_t``: the
   smallest margin over ``C_t`` after playing ``a``);
4. checkpoint variant: ``xi_t(a) += alpha r_l (t_k - t)``, ``t_k`` the next checkpoint (a multiple of
   ``tau``) and ``r_l`` the declared floor of the baseline's reward (``baseline_floor``): the rounds left
   before ``t_k``, played with the baseline if need be, raise the margin by at least that much;
5. play the row of largest ``u_t`` among the *admissible* rows, ``{a : xi_t(a) >= 0}``, and the baseline's
   row (always admissible; the lowest row on ties). A baseline round banks ``r_{b_t}`` (known rewards)
   or adds ``alpha x_{b_t}`` to ``z`` (estimated ones); another round adds its row to ``z``.

CLUCB plays ``a'_t = argmax u_t`` or the baseline; CLUCB2 plays the best row the budget allows, so a round
in which ``a'_t`` is refused may still explore a cheaper row. On the confidence event the margin after a
round of ``S`` is at least ``xi_t(a_t) >= 0`` (every round) or ``>= -alpha r_l (t_k - t)`` (checkpoints),
and each baseline round raises it by ``alpha r_{b_t} >= alpha r_l``: the constraint holds at every round,
or at every checkpoint. The certificate (:meth:`CLUCB2.certificate`) is the played row's ``xi_t``, or the
baseline's row.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.clucb import CLUCBConfig, _ContextualLinear, known_rewards
from safebandits.exceptions import CannotStartError
from safebandits.problems.conservative_linear import ConservativeLinearInfo
from safebandits.records import Certificate
from safebandits.types import Decision

__all__ = ["CLUCB2", "CLUCB2Checkpoint", "CLUCB2Config"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class CLUCB2Config(CLUCBConfig):
    """Configuration of :class:`CLUCB2` and :class:`CLUCB2Checkpoint` (``delta``, ``reg``,
    ``baseline_reward``: :class:`~safebandits.algorithms.regret.clucb.CLUCBConfig`)."""


@register_algorithm(
    "clucb2",
    task="regret",
    description="CLUCB2: the most optimistic action whose pessimistic cumulative reward keeps (1 - alpha) x "
    "the baseline policy's, else the baseline's action (Garcelon et al. 2020; every round verified).",
    info="conservative-linear",
    guarantee="conservative-policy",
    assumptions=("noise", "linear", "param-norm", "baseline-policy"),
)
class CLUCB2(_ContextualLinear):
    """CLUCB2 (Garcelon et al. 2020): steps 1-5 of the module docstring, every round verified.

    Parameters
    ----------
    config : CLUCB2Config
    info : ConservativeLinearInfo
    rng : numpy.random.Generator
        Unused (the algorithm is deterministic).

    Notes
    -----
    Glossary (paper -> code): ``V_t^{-1}`` -> ``state.inv``; ``theta_hat_t`` -> ``state.theta``;
    ``u_t(a)`` -> ``state.scores``; ``z_{t-1}`` -> ``state.z``; ``xi_t(a_t)`` -> :attr:`budget`
    (NaN in a baseline round); ``argmax u_t`` -> ``diagnostics()["leader"]``.
    Guarantee: with ``R``-sub-Gaussian noise, ``||theta*|| <= S``, ``||x|| <= L`` and non-negative
    baseline rewards, the cumulative reward stays at least ``(1 - alpha)`` times the baseline policy's at
    every round with probability at least ``1 - delta``.
    """

    config_cls = CLUCB2Config
    _conservative = True
    _constrained = True

    def _rewards_known(self, config: Any, info: Any) -> bool:
        return known_rewards(type(self).__name__, config, info)

    def _certificate(self, decision: Decision) -> Certificate:
        """The baseline's row: a safe set of it (it raises the margin by ``alpha r_{b_t} >= 0``). Another
        row: its pessimistic margin at the next verified round, as an upper bound ``-xi_t(a_t) <= 0`` on
        the pessimistic shortfall."""
        t = self.n_samples + 1
        if int(self.state.live[0]["fell_back"]) == 1:
            return self._baseline_certificate(t)
        shortfall = np.array([-self.budget])
        basis = (
            "pessimistic margin xi_t(a_t) >= 0 at the next verified round (the worst parameter of C_t, "
            "after playing a_t)"
        )
        return Certificate(kind="upper-bound", round=t, bound=shortfall, threshold=np.zeros(1), basis=basis)


@register_algorithm(
    "clucb2-checkpoint",
    task="regret",
    description="CLUCB2 for the checkpoint constraint: the budget need only hold at every checkpoint "
    "(every tau rounds), the rounds left before it counted at the declared baseline_floor (Garcelon et al. "
    "2020).",
    info="conservative-linear",
    guarantee="conservative-checkpoint",
    assumptions=("noise", "linear", "param-norm", "baseline-policy", "baseline-floor"),
)
class CLUCB2Checkpoint(CLUCB2):
    """CLUCB2 with the constraint verified at the problem's checkpoints (step 4 of the module docstring).

    Needs a problem that declares ``checkpoint > 1`` (with ``checkpoint = 1`` it would be :class:`CLUCB2`);
    without a declared ``baseline_floor`` (``r_l = 0``) it plays as :class:`CLUCB2` (nothing bounds the
    baseline rounds' contribution before the next checkpoint).
    Guarantee: under :class:`CLUCB2`'s assumptions and ``r_{b_t} >= r_l`` in every context, the cumulative
    reward is at least ``(1 - alpha)`` times the baseline policy's at rounds ``tau, 2 tau, ...`` with
    probability at least ``1 - delta``; between checkpoints it may fall below.
    """

    _checkpoint = True

    def __init__(self, config: CLUCB2Config, info: Any, rng: np.random.Generator) -> None:
        if isinstance(info, ConservativeLinearInfo) and info.checkpoint == 1:
            raise CannotStartError.build(
                "CLUCB2Checkpoint",
                "this problem verifies the constraint in every round (checkpoint = 1), so there are no "
                "checkpoints to relax it to",
                notes=["declare checkpoint = tau > 1", "clucb2 (the same learner, every round verified)"],
            )
        super().__init__(config, info, rng)
