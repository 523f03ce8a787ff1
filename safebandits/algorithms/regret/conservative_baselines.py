"""The baselines Conservative UCB is compared with (Wu et al. 2016, Sec. 6): unconstrained UCB and
BudgetFirst, as the authors' code runs them (``tor/libbandit``, ``src/algs.cc``; the paper's text of the
experiments could not be read here: ``docs/papers/conservative_ucb.md``).

* **UCB** (``alg_ucb``): each arm once, in index order, then ``argmax_i mu_hat_i + R sqrt(c log t /
  T_i)`` with ``t`` this round and ``c = 2`` (the authors' experiments). It ignores the constraint: on a
  problem whose default arm is good it loses more than ``alpha mu_0 t`` early on.
* **BudgetFirst** (``alg_budget_first``): the default arm for ``t_0 = min(T, B / (alpha mu_0))`` rounds,
  ``B = R sqrt(2 T (K - 1) psi_delta(T))`` a high-probability bound on UCB's regret, then UCB with
  Conservative UCB's ``psi_delta`` widths over every arm, from fresh counts (the code keeps the budget
  rounds' rewards out). It banks ``alpha mu_0 t_0 >= B`` before exploring.

Both learners run on the same kernels' shape as Conservative UCB
(:class:`~safebandits.algorithms.regret.conservative_ucb.IndexState`) and its ask / tell and compiled
paths.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numba
import numpy as np

from safebandits._numba import by_reference
from safebandits._validation import check_interval, check_positive
from safebandits.algorithms._driver import make_driver
from safebandits.algorithms.base import LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.conservative_ucb import (
    IndexConstants,
    IndexLearner,
    check_conservative_info,
    first_max,
    index_update,
    psi_constants,
    psi_delta,
)
from safebandits.exceptions import CannotStartError

__all__ = ["UCB", "BudgetFirst", "BudgetFirstConfig", "UCBConfig", "baseline_choose", "baseline_rounds"]


@numba.njit(cache=True)
def baseline_choose(st):
    """One round of UCB (``const.exploration > 0``) or BudgetFirst: the default arm while ``t < t_0``;
    then an unpulled arm (the lowest index), else ``argmax_i mu_hat_i + width_i``."""
    const, live = st.const, st.live[0]
    t = live.t + 1  # this round
    if live.t < const.budget_rounds:
        return const.default
    for i in range(st.counts.shape[0]):
        n = st.counts[i]
        if n == 0:
            st.upper[i] = math.inf
            continue
        if const.exploration > 0.0:
            width = math.sqrt(const.exploration * math.log(t) / n)
        else:
            width = math.sqrt(const.scale * psi_delta(const.psi_a, const.psi_b, n) / n)
        st.upper[i] = st.reward_sums[i] / n + width
    j = first_max(st.upper)
    live.leader = j
    return j


@numba.njit(cache=True)
def baseline_choose_entry(st):
    """:func:`baseline_choose` called from Python (the record by reference)."""
    return baseline_choose(by_reference(st))


@numba.njit(cache=True, inline="always")
def baseline_select(run, j):
    """Round ``j``: :func:`baseline_choose` into ``run.arms[j]``."""
    run.arms[j] = baseline_choose(run.st)
    return True


#: The shared driver over the baselines' kernels.
baseline_rounds = make_driver("baseline_rounds", baseline_select, index_update, __name__, plays="arms")


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class UCBConfig(LearnerConfig):
    """Configuration of :class:`UCB`.

    Parameters
    ----------
    exploration : float > 0, default 2.0
        ``c`` of the index ``mu_hat_i + R sqrt(c log t / T_i)`` (the authors' experiments: 2).
    """

    exploration: float = 2.0

    def __post_init__(self) -> None:
        check_positive(self.exploration, "exploration", owner=type(self).__name__)


@register_algorithm(
    "ucb",
    task="regret",
    description="UCB: the unconstrained baseline of the conservative setting (ignores alpha).",
    info="conservative",
    guarantee="none",
    assumptions=("noise",),
)
class UCB(IndexLearner):
    """UCB on the arms of a conservative problem, ignoring the constraint (the baseline of Wu et al.)."""

    config_cls = UCBConfig
    _choose_entry = baseline_choose_entry
    _driver = baseline_rounds

    def __init__(self, config: UCBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        k, d = check_conservative_info("UCB", info)
        r = float(info.noise_bound)
        const = IndexConstants(
            default=d, known=False, mu0=0.0, alpha=float(info.alpha), psi_a=0.0, psi_b=0.0, scale=0.0,
            code_budget=False, exploration=float(config.exploration) * r * r, budget_rounds=0,
            incremental=False,
        )  # fmt: skip
        self._start(const, k)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class BudgetFirstConfig(LearnerConfig):
    """Configuration of :class:`BudgetFirst`.

    Parameters
    ----------
    delta : float in (0, 1) or None, default None
        Failure probability of the regret bound ``B``; ``None``: ``1 / T`` (the authors' experiments).
    """

    delta: float | None = None

    def __post_init__(self) -> None:
        if self.delta is not None:
            check_interval(self.delta, "delta", low=0.0, high=1.0, owner=type(self).__name__)


def budget_rounds(
    horizon: int, n_arms: int, alpha: float, mu0: float, psi: tuple[float, float], r: float
) -> int:
    """BudgetFirst's ``t_0 = min(T, B / (alpha mu_0))``, ``B = R sqrt(2 T (K - 1) psi_delta(T))``
    (``alg_budget_first``; ``T`` when ``alpha mu_0 = 0``)."""
    psi_t = float(psi_delta(psi[0], psi[1], float(horizon)))
    bound = r * math.sqrt(2.0 * horizon * (n_arms - 1) * psi_t)
    rounds = bound / (alpha * mu0) if alpha * mu0 > 0.0 else math.inf
    return horizon if not rounds < horizon else math.ceil(rounds)  # (an overflow to inf: T)


@register_algorithm(
    "budget-first",
    task="regret",
    description="BudgetFirst: the default arm until alpha mu_0 t_0 covers UCB's regret bound, then UCB "
    "(the naive baseline of Wu et al. 2016).",
    info="conservative",
    guarantee="conservative-budget",
    assumptions=("noise", "nonnegative-means", "default-arm"),
)
class BudgetFirst(IndexLearner):
    """BudgetFirst (Wu et al. 2016): bank ``alpha mu_0 t_0`` on the default arm, then run UCB. Needs the
    default arm's mean (the authors' code reads it)."""

    config_cls = BudgetFirstConfig
    _choose_entry = baseline_choose_entry
    _driver = baseline_rounds

    def __init__(self, config: BudgetFirstConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        k, d = check_conservative_info("BudgetFirst", info)
        if info.default_mean is None:
            raise CannotStartError.build(
                "BudgetFirst",
                "its budget phase lasts B / (alpha mu_0) rounds and needs the default arm's mean mu_0, which "
                "this problem does not declare",
                notes=["declare default_mean, or use conservative-ucb-unknown-mean"],
            )
        horizon = int(info.horizon)
        self.delta = float(config.delta) if config.delta is not None else 1.0 / max(horizon, 2)
        psi = psi_constants(k, self.delta)
        r = float(info.noise_bound)
        t0 = budget_rounds(horizon, k, float(info.alpha), float(info.default_mean), psi, r)
        const = IndexConstants(
            default=d, known=True, mu0=float(info.default_mean), alpha=float(info.alpha), psi_a=psi[0],
            psi_b=psi[1], scale=2.0 * r * r, code_budget=False, exploration=0.0, budget_rounds=t0,
            incremental=False,
        )  # fmt: skip
        self._start(const, k)

    @property
    def budget_phase(self) -> int:
        """``t_0``: the rounds on the default arm first."""
        return int(self.state.const.budget_rounds)

    def _applied_options(self) -> dict[str, Any]:
        return {"delta": self.delta}
