"""Conservative UCB (Wu, Shariff, Lattimore & Szepesvari, "Conservative Bandits", ICML 2016, Sec. 3).

K arms, arm ``0`` the default arm; the learner must keep ``sum_{s<=t} mu_{I_s} >= (1 - alpha) t mu_0``
at every round ``t`` with probability at least ``1 - delta``
(:mod:`safebandits.problems.conservative`). Each round (our numbering of the algorithm as the authors'
code runs it; the paper's box could not be read here, see ``docs/papers/conservative_ucb.md``):

1. confidence widths ``D_i = R sqrt(2 psi_delta(T_i) / T_i)`` for every pulled arm, with the authors'
   ``psi_delta(s) = x (1 + log x) / ((x - 1) log x) * log log (s + 1) + y``, ``x = log(K / delta)``,
   ``y = log max(3, log(K / delta)) + log(2 e^2 K / delta)``;
2. upper bounds ``theta_i = mu_hat_i + D_i`` (``+inf`` for an unpulled arm), lower bounds
   ``lambda_i = max(0, mu_hat_i - D_i)`` (0 for an unpulled arm);
3. the default arm: ``theta_0 = lambda_0 = mu_0`` when ``mu_0`` is known, else its own bounds;
4. ``J_t = argmax_i theta_i`` (the lowest index on ties);
5. the pessimistic budget ``xi_t = sum_{i != 0} T_i lambda_i + lambda_{J_t} + T_0 lambda_0 - (1 - alpha) t
   theta_0`` (``mu_0`` in both default-arm terms when known);
6. play ``J_t`` if ``xi_t >= 0``, else the default arm.

``xi_t`` is a lower bound on the margin ``sum_{s<=t} mu_{I_s} - (1 - alpha) t mu_0`` after playing ``J_t``
on the confidence event, so playing ``J_t`` keeps the constraint; the default arm raises the margin by
``alpha mu_0 >= 0``. The certificate of a round (:meth:`ConservativeUCB.certificate`) is that budget.

Deviations (docs/decisions/conservative.md)
-------------------------------------------
* ``budget="pessimistic"`` (default) with unknown ``mu_0``: ``T_0 lambda_0 - (1 - alpha) t theta_0``, each
  term a confidence bound of its own sign; the authors' code writes ``(T_0 - (1 - alpha) t) theta_0``
  (``budget="code"``), which over-states the budget when ``T_0 > (1 - alpha) t``.
* ``delta=None`` (default) is the authors' experiments' ``delta = 1 / T``.
* ``R`` (``noise_bound``) multiplies the widths (the paper's rewards are 1-sub-Gaussian: ``R = 1``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal, NamedTuple

import numba
import numpy as np

from safebandits._numba import bind_kernel, by_reference
from safebandits._validation import check_interval, check_literal_fields
from safebandits.algorithms._driver import make_driver
from safebandits.algorithms.base import BaseLearner, CompiledRounds, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.records import ArmEstimates, Certificate, PlayedBlock
from safebandits.types import Decision, Observation

__all__ = [
    "INDEX_LIVE",
    "ConservativeUCB",
    "ConservativeUCBConfig",
    "IndexConstants",
    "IndexLearner",
    "IndexRun",
    "IndexState",
    "cucb_bounds",
    "cucb_choose",
    "cucb_rounds",
    "psi_constants",
    "psi_delta",
]

#: The scalars that change during a run (one record, written in place by the kernels): rounds played
#: ``t``, the last choice's budget ``xi_t`` and leader ``J_t``, the rounds the budget sent to the default
#: arm (``fallbacks``).
INDEX_LIVE = np.dtype(
    [("t", np.int64), ("budget", np.float64), ("leader", np.int64), ("fallbacks", np.int64)]
)


class IndexConstants(NamedTuple):
    """Fixed settings of one run (read by the compiled kernels)."""

    default: int  #: the default arm
    known: bool  #: ``mu_0`` known: the default arm's bounds are ``mu_0``
    mu0: float  #: the known ``mu_0`` (0 when unknown)
    alpha: float  #: the tolerance
    psi_a: float  #: ``x (1 + log x) / ((x - 1) log x)`` of ``psi_delta``
    psi_b: float  #: ``y`` of ``psi_delta``
    scale: float  #: ``2 R^2`` (``D_i = sqrt(scale psi_delta(T_i) / T_i)``)
    code_budget: bool  #: unknown ``mu_0``: the authors' code's budget ``(T_0 - (1 - alpha) t) theta_0``
    exploration: float  #: UCB: ``c R^2`` of ``sqrt(c R^2 log t / T_i)`` (0: the ``psi_delta`` widths)
    budget_rounds: int  #: BudgetFirst: rounds ``t_0`` on the default arm first (0: none)
    incremental: bool  #: Conservative UCB: keep every arm's bounds current (refresh the pulled arm's)


class IndexState(NamedTuple):
    """Everything the compiled kernels read and write, by name: ``counts`` ``T_i``, ``reward_sums``,
    ``upper`` ``theta_i`` and ``lower`` ``lambda_i`` (K,), the constants and the live record."""

    counts: np.ndarray
    reward_sums: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    const: IndexConstants
    live: np.ndarray  # one element of dtype INDEX_LIVE: the kernels read its record live[0]


def psi_constants(n_arms: int, delta: float) -> tuple[float, float]:
    """``(x (1 + log x) / ((x - 1) log x), y)`` of the authors' ``psi_delta`` (``x = log(K / delta)``,
    ``y = log max(3, log(K / delta)) + log(2 e^2 K / delta)``); needs ``K / delta > e`` (``x > 1``)."""
    x = math.log(n_arms / delta)
    if x <= 1.0:
        raise ConfigError(
            f"The confidence level needs log(K / delta) > 1 (psi_delta divides by log x); got K = {n_arms}, "
            f"delta = {delta:g}. Use a smaller delta (below {n_arms / math.e:.4g})."
        )
    a = x * (1.0 + math.log(x)) / ((x - 1.0) * math.log(x))
    y = math.log(max(3.0, x)) + math.log(2.0 * math.e**2 * n_arms / delta)
    return a, y


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def psi_delta(a, b, s):
    """The authors' ``psi_delta(s) = a log log(s + 1) + b`` (:func:`psi_constants`), its ``log log(s + 1)``
    floored at 0: it is negative at ``s = 1`` only (``log log 2 < 0``), where the floor widens the interval
    a little (docs/decisions/conservative.md)."""
    return a * max(math.log(math.log(s + 1.0)), 0.0) + b


@numba.njit(cache=True, inline="always")
def _width(const, n):
    """``D = sqrt(2 R^2 psi_delta(n) / n)`` (step 1)."""
    return math.sqrt(const.scale * psi_delta(const.psi_a, const.psi_b, n) / n)


@numba.njit(cache=True, inline="always")
def cucb_bound(st, i):
    """Steps 1-3 for arm ``i``: ``theta_i`` into ``st.upper[i]`` and ``lambda_i`` into ``st.lower[i]``
    (they change only when the arm is pulled: :func:`index_add` refreshes the pulled arm's)."""
    const = st.const
    n = st.counts[i]
    if i == const.default and const.known:
        st.upper[i] = const.mu0
        st.lower[i] = const.mu0
    elif n == 0:
        st.upper[i] = math.inf
        st.lower[i] = 0.0
    else:
        mean = st.reward_sums[i] / n
        d = _width(const, n)
        st.upper[i] = mean + d
        st.lower[i] = max(0.0, mean - d)


@numba.njit(cache=True)
def cucb_bounds(st):
    """Steps 1-3 for every arm (at the start, and for the estimates' table)."""
    for i in range(st.counts.shape[0]):
        cucb_bound(st, i)


@numba.njit(cache=True, inline="always")
def first_max(values):
    """The lowest index of the largest value (step 4's ``argmax``)."""
    best = 0
    for i in range(1, values.shape[0]):
        if values[i] > values[best]:
            best = i
    return best


@numba.njit(cache=True)
def cucb_choose(st):
    """One round (steps 4-6, on the bounds of steps 1-3): the leader ``J_t``, the budget ``xi_t``; ``J_t`` if
    ``xi_t >= 0`` else the default arm. Records ``xi_t`` and ``J_t`` in the live record."""
    const, live = st.const, st.live[0]
    j = first_max(st.upper)  # (the bounds of steps 1-3 are current: index_add refreshes the pulled arm's)
    t = live.t + 1  # this round
    d = const.default
    xi = st.lower[j]  # lambda_{J_t}
    for i in range(st.counts.shape[0]):
        if i != d:
            xi += st.counts[i] * st.lower[i]
    need = (1.0 - const.alpha) * t  # (1 - alpha) t
    if const.known:
        xi += st.counts[d] * const.mu0 - need * const.mu0
    elif st.counts[d] == 0:
        xi = -math.inf  # (theta_0 = +inf: nothing is known of mu_0 yet)
    elif const.code_budget:
        xi += (st.counts[d] - need) * st.upper[d]
    else:
        xi += st.counts[d] * st.lower[d] - need * st.upper[d]
    live.budget = xi
    live.leader = j
    if xi >= 0.0:
        return j
    live.fallbacks += 1
    return d


@numba.njit(cache=True, inline="always")
def index_add(st, arm, reward):
    """One pull of ``arm`` observed as ``reward`` (the sums of the estimates; Conservative UCB: the arm's
    bounds refreshed) and the round count; a BudgetFirst budget round (``t < t_0``) is counted but its
    reward kept out, as the authors' code does."""
    live = st.live[0]
    if live.t >= st.const.budget_rounds:
        st.counts[arm] += 1
        st.reward_sums[arm] += reward
        if st.const.incremental:
            cucb_bound(st, arm)
    live.t += 1


@numba.njit(cache=True)
def cucb_choose_entry(st):
    """:func:`cucb_choose` called from Python (the record by reference, as the shared driver passes it)."""
    return cucb_choose(by_reference(st))


@numba.njit(cache=True)
def index_add_entry(st, arm, reward):
    """:func:`index_add` called from Python."""
    index_add(by_reference(st), arm, reward)


@numba.njit(cache=True)
def cucb_bounds_entry(st):
    """:func:`cucb_bounds` called from Python."""
    cucb_bounds(by_reference(st))


class IndexRun(NamedTuple):
    """A block of rounds on the shared driver: the state and the outputs, the arm (``arms``, (n,)) and
    the budget ``xi_t`` (``budgets``, (n,); NaN for learners without one) of each round."""

    st: IndexState
    arms: np.ndarray
    budgets: np.ndarray


@numba.njit(cache=True, inline="always")
def cucb_select(run, j):
    """Round ``j``: :func:`cucb_choose`, written to ``run.arms[j]`` and ``run.budgets[j]``."""
    st = run.st
    run.arms[j] = cucb_choose(st)
    run.budgets[j] = st.live[0].budget
    return True


@numba.njit(cache=True, inline="always")
def index_update(run, j, y):
    """Round ``j``'s pull observed as ``y[0]``."""
    index_add(run.st, run.arms[j], y[0])


#: The shared driver over Conservative UCB's kernels (:func:`~safebandits.algorithms._driver.make_driver`).
cucb_rounds = make_driver("cucb_rounds", cucb_select, index_update, __name__, plays="arms")


# --------------------------------------------------------------------------------------------------
# learners
# --------------------------------------------------------------------------------------------------
def check_conservative_info(owner: str, info: Any) -> tuple[int, int]:
    """``(K, default arm)`` of a :class:`~safebandits.problems.conservative.ConservativeInfo`."""
    k = getattr(info, "n_arms", None)
    d = getattr(info, "default_arm", None)
    if not isinstance(k, int) or not isinstance(d, int) or not 0 <= d < k:
        raise ConfigError(
            f"{owner} needs a conservative problem (ConservativeInfo). Got {type(info).__name__}."
        )
    return k, d


class IndexLearner(BaseLearner):
    """Ask / tell and the compiled rounds of the K-armed index learners of this family (Conservative UCB,
    UCB, BudgetFirst): a subclass sets :attr:`_choose_entry` (the compiled choice from Python) and
    :attr:`_driver`, and builds ``self.state`` (:class:`IndexState`)."""

    setting = "round"
    _choose_entry: Any = None
    _driver: Any = None

    def _start(self, const: IndexConstants, k: int) -> None:
        live = np.zeros(1, dtype=INDEX_LIVE)
        live["leader"] = -1
        live["budget"] = np.nan
        #: The typed state the compiled kernels act on in place (never rebound).
        self.state = IndexState(
            counts=np.zeros(k, dtype=np.int64), reward_sums=np.zeros(k), upper=np.zeros(k), lower=np.zeros(k),
            const=const, live=live,
        )  # fmt: skip
        self._k = k
        self._kernels: Any = None

    def _bind(self) -> None:
        st = self.state
        self._kernels = (
            bind_kernel(type(self)._choose_entry, (st,)),
            bind_kernel(index_add_entry, (st, 0, 0.0)),
        )

    @property
    def n_arms(self) -> int:
        return self._k

    @property
    def counts(self) -> np.ndarray:
        return self.state.counts.copy()

    @property
    def budget(self) -> float:
        """The budget ``xi_t`` of the last choice (NaN before the first, or for a learner without one)."""
        return float(self.state.live[0]["budget"])

    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError(f"{type(self).__name__} plays a fixed set of K arms; ask() takes no context.")
        if self._kernels is None or self._kernels[0] is None:  # (None in a restored snapshot too)
            self._bind()
        return Decision(arm=int(self._kernels[0](self.state)))

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.reward is None:
            raise ProtocolError(f"{type(self).__name__} must be told an Observation with a reward.")
        if self._kernels is None or self._kernels[1] is None:
            self._bind()
        self._kernels[1](self.state, int(decision.arm), float(observation.reward))

    def diagnostics(self) -> dict[str, Any]:
        live = self.state.live[0]
        return {
            "counts": self.state.counts.tolist(),
            "budget": float(live["budget"]),
            "leader": int(live["leader"]),
            "fallback_rounds": int(live["fallbacks"]),
        }

    # -- simulation: the hooks of BaseLearner.simulate's one loop over the shared driver -----------
    def _sim_plays(self) -> str:
        return "arms"

    def _sim_shape(self, plays: str) -> tuple[int, int]:
        return (self._k, 1)

    def _sim_block(self, sampler: Any, rows: int) -> CompiledRounds:
        run = IndexRun(self.state, np.zeros(rows, dtype=np.int64), np.full(rows, np.nan))
        return CompiledRounds(type(self)._driver, run, 0)

    def _sim_result(self, rounds: Any, env: Any, n: int) -> PlayedBlock:
        """``points``: one-hot rows of the pulled arms, shape (n, K)."""
        return PlayedBlock(np.eye(self._k).take(rounds.run.arms, axis=0), None)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class ConservativeUCBConfig(LearnerConfig):
    """Configuration of :class:`ConservativeUCB`.

    Parameters
    ----------
    delta : float in (0, 1) or None, default None
        Failure probability; ``None``: ``1 / T`` (the authors' experiments).
    default_mean : {"declared", "estimate"}, default "declared"
        ``"declared"``: use ``mu_0`` when the problem declares it (the known-mean variant), else estimate
        it; ``"estimate"``: always estimate it from the default arm's pulls (the unknown-mean variant).
    budget : {"pessimistic", "code"}, default "pessimistic"
        Unknown ``mu_0``: the budget's default-arm terms ``T_0 lambda_0 - (1 - alpha) t theta_0``
        (``"pessimistic"``) or the authors' code's ``(T_0 - (1 - alpha) t) theta_0`` (``"code"``).
    """

    delta: float | None = None
    default_mean: Literal["declared", "estimate"] = "declared"
    budget: Literal["pessimistic", "code"] = "pessimistic"

    def __post_init__(self) -> None:
        owner = type(self).__name__
        if self.delta is not None:
            check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_literal_fields(self, owner=owner)


@register_algorithm(
    "conservative-ucb",
    task="regret",
    description="Conservative UCB: UCB's arm when a pessimistic budget allows it, else the default arm "
    "(Wu et al. 2016, Sec. 3; the known default mean when declared).",
    info="conservative",
    guarantee="conservative",
    assumptions=("noise", "nonnegative-means", "default-arm"),
)
@register_algorithm(
    "conservative-ucb-unknown-mean",
    task="regret",
    defaults={"default_mean": "estimate"},
    description="Conservative UCB with the default arm's mean estimated from its own pulls (Wu et al. 2016).",
    info="conservative",
    guarantee="conservative",
    assumptions=("noise", "nonnegative-means", "default-arm"),
)
class ConservativeUCB(IndexLearner):
    """Conservative UCB for K arms with a default arm (Wu et al. 2016, Sec. 3).

    Parameters
    ----------
    config : ConservativeUCBConfig
    info : ConservativeInfo
    rng : numpy.random.Generator
        Unused (the algorithm is deterministic).

    Notes
    -----
    Glossary (paper -> code): ``T_i(t-1)`` -> ``state.counts``; ``mu_hat_i`` -> ``reward_sums / counts``;
    ``theta_i``, ``lambda_i`` -> ``state.upper``, ``state.lower``; ``J_t`` -> ``diagnostics()["leader"]``;
    ``xi_t`` -> :attr:`budget`; ``psi_delta`` -> :func:`psi_constants`.

    Guarantee (Wu et al., Sec. 3): with ``R``-sub-Gaussian rewards and non-negative means, the
    cumulative reward stays at least ``(1 - alpha) t mu_0`` at every round ``t`` with probability at least
    ``1 - delta``; the regret is that of UCB plus a term of order ``K / (alpha mu_0)`` (up to logarithms).
    Deviations: the module docstring and ``docs/decisions/conservative.md``.
    """

    config_cls = ConservativeUCBConfig
    _choose_entry = cucb_choose_entry
    _driver = cucb_rounds

    def __init__(self, config: ConservativeUCBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        k, d = check_conservative_info("ConservativeUCB", info)
        self.delta = float(config.delta) if config.delta is not None else 1.0 / max(int(info.horizon), 2)
        psi_a, psi_b = psi_constants(k, self.delta)
        known = info.default_mean is not None and config.default_mean == "declared"
        r = float(info.noise_bound)
        const = IndexConstants(
            default=d, known=known, mu0=float(info.default_mean) if known else 0.0, alpha=float(info.alpha),
            psi_a=psi_a, psi_b=psi_b, scale=2.0 * r * r, code_budget=config.budget == "code", exploration=0.0,
            budget_rounds=0, incremental=True,
        )  # fmt: skip
        self._start(const, k)
        cucb_bounds_entry(self.state)  # (steps 1-3 at the start; then the pulled arm's after each pull)

    def _applied_options(self) -> dict[str, Any]:
        return {"delta": self.delta}

    def arm_estimates(self) -> ArmEstimates:
        """Per arm: ``mu_hat_i`` and its interval ``[lambda_i, theta_i]`` as the budget reads it (the
        known ``mu_0`` exact)."""
        st, k = self.state, self._k
        cucb_bounds_entry(st)
        n = st.counts.astype(np.float64)
        known = np.zeros(k, dtype=bool)
        known[st.const.default] = st.const.known
        shown = (n > 0) | known
        est = np.full((k, 1), np.nan)
        est[n > 0, 0] = st.reward_sums[n > 0] / n[n > 0]
        est[known, 0] = st.const.mu0
        lower = np.where(shown, st.lower, -np.inf)[:, None]
        upper = np.where(shown, st.upper, np.inf)[:, None]
        how = "[lambda_i, theta_i]: mu_hat_i -+ R sqrt(2 psi_delta(T_i) / T_i), lambda_i clipped at 0"
        return ArmEstimates(("reward",), est, lower, upper, (None,), "arm", how)

    def _certificate(self, decision: Decision) -> Certificate:
        """The default arm: a safe set of that arm alone (each pull raises the margin by ``alpha mu_0``).
        Another arm ``J_t``: its budget, as an upper bound ``-xi_t <= 0`` on the pessimistic shortfall."""
        t, d = self.n_samples + 1, self.state.const.default
        if decision.arm == d:
            mask = np.zeros(self._k, dtype=bool)
            mask[d] = True
            basis = "the default arm (each pull raises the margin by alpha mu_0 >= 0)"
            return Certificate(kind="safe-set", round=t, safe_arms=mask, basis=basis)
        shortfall = np.array([-self.budget])
        basis = "xi_t >= 0: the pessimistic budget after playing J_t"
        return Certificate(kind="upper-bound", round=t, bound=shortfall, threshold=np.zeros(1), basis=basis)
