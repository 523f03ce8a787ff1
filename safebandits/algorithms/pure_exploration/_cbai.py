"""Shared bookkeeping of constrained linear best-arm identification (Lindner et al., ICML 2022).

Every CBAI learner of the ACOL family keeps three things (Algorithms 1-3, lines "update F_t, r, U_t"):

* ``U`` -- uncertain arms (``U_1 = X``),
* ``F`` -- certified-feasible arms (``F_1 = {}``),
* ``r`` -- the best reward among certified-feasible arms (``-inf`` while ``F`` is empty),

and after each update of the confidence bounds ``l(x) <= phi^T x <= u(x)`` of the arms in ``U``:

* ``l(x) > tau``: ``x`` is certainly infeasible and leaves ``U``;
* ``u(x) <= tau``: ``x`` is certainly feasible, leaves ``U`` for ``F`` and may raise ``r``;
* then every arm of ``U`` with ``theta^T x < r`` leaves ``U`` (certainly suboptimal; ties stay).

The learner stops when ``U`` is empty and returns the best arm of ``F``. The anytime answer is the
best arm of ``F`` or, while ``F`` is empty, the arm of ``U`` with the lowest current upper bound (the
authors' code keeps the lowest upper bound ever seen; see ``docs/decisions/acol.md``). The threshold
``tau`` is known (margins ``phi^T x - tau``); an unknown threshold is handled
by the instance's constant feature (``with_learned_threshold``).

:func:`cbai_update` is the one implementation of these rules, acting on the named record
:class:`CBAIState`; it is compiled so that the per-sample learners run it inside their loops, and
:class:`CBAISets` wraps it for Python callers. This module also
holds :class:`RoundBasedCBAI`, the per-round estimation and stopping shared by ACOL (Algorithm 1) and the
static allocations (Algorithm 3).

Deviations: see ``docs/decisions/acol.md`` ("CBAI set updates"): the comparisons follow the paper
(certified feasible iff ``u <= tau``, infeasible iff ``l > tau``); the authors' code uses ``u < tau``
and ``l >= tau``. The two differ only on exact ties.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numba
import numpy as np

from safebandits._numba import Rebinding
from safebandits._validation import check_array, check_interval
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.estimators.confidence import static_width
from safebandits.estimators.ridge import ArmRidge
from safebandits.exceptions import ConfigError
from safebandits.records import ArmEstimates
from safebandits.types import BatchObservation, BoolArray, Decision, FloatArray, IntArray, Recommendation

__all__ = [
    "CBAI_LIVE",
    "MAX_ROUND_SAMPLES",
    "NO_ARM",
    "CBAISets",
    "CBAIState",
    "RoundBasedCBAI",
    "cbai_update",
    "check_cbai_info",
]

#: The arm index that means "no arm": ``F`` is empty (no best certified arm), no upper bound read yet,
#: or no candidate to pull (G-ACOL's selection). Never a valid index.
NO_ARM = -1

#: Cap on the length of one round (a round this long exceeds any budget; it avoids int64 overflow).
MAX_ROUND_SAMPLES = 2**50

#: The scalars of the sets that change: ``r`` (the best certified-feasible reward, ``-inf`` while ``F``
#: is empty) and its arm (:data:`NO_ARM` while ``F`` is empty), the lowest upper bound in ``U`` at the
#: last update while ``F`` was empty and its arm (:data:`NO_ARM` before any update), and ``|U|``. One
#: numpy record, written in place by :func:`cbai_update`.
CBAI_LIVE = np.dtype(
    [("best_reward", np.float64), ("lowest_ucb", np.float64), ("best_arm", np.int64),
     ("lowest_ucb_arm", np.int64), ("n_uncertain", np.int64)]
)  # fmt: skip


class CBAIState(NamedTuple):
    """``U``, ``F`` and ``r`` by name, as the compiled kernels read and write them (never rebound).

    ``rewards`` the known rewards ``theta^T x`` (n_arms,); ``threshold`` ``tau`` (``x`` is feasible iff
    ``phi^T x <= tau``); ``in_uncertain`` / ``in_feasible`` the membership in ``U`` / ``F`` (bool,
    n_arms); ``live`` a one-element array of dtype :data:`CBAI_LIVE` whose record ``live[0]`` holds the
    changing scalars.
    """

    rewards: FloatArray
    threshold: float
    in_uncertain: BoolArray
    in_feasible: BoolArray
    live: np.ndarray


def new_cbai_state(rewards: FloatArray, threshold: float) -> CBAIState:
    """The sets before any data: ``U = X``, ``F = {}``, ``r = -inf``."""
    n = rewards.shape[0]
    live = np.zeros(1, dtype=CBAI_LIVE)
    live[0] = (-np.inf, np.inf, NO_ARM, NO_ARM, n)
    return CBAIState(rewards, float(threshold), np.ones(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_), live)


@numba.njit(cache=True)
def cbai_update(sets: CBAIState, lower: FloatArray, upper: FloatArray) -> None:
    """Update ``U``, ``F`` and ``r`` in place from bounds ``lower <= phi^T x <= upper``
    (:func:`cbai_update_step`, compiled apart)."""
    cbai_update_step(sets, lower, upper)


@numba.njit(cache=True, inline="always")
def cbai_update_step(sets: CBAIState, lower: FloatArray, upper: FloatArray) -> None:
    """Update ``U``, ``F`` and ``r`` in place from bounds ``lower <= phi^T x <= upper`` (Sec. 3, Alg. 1-3).

    Only arms still in ``U`` are examined; the pass that removes the arms below ``r`` runs only when
    ``r`` rose (``live.n_uncertain`` is ``|U|``, as :func:`new_cbai_state` and every update leave it).
    A function of its own (not inlined): the compiled loops pass
    ``sets`` by reference (:func:`~safebandits._numba.by_reference`), one reference count, and the arrays
    read here cost none (numba prunes the counts of a function that calls no other).

    Parameters
    ----------
    sets : CBAIState
        The sets (updated in place).
    lower, upper : ndarray of shape (n_arms,)
        Confidence bounds on the constraint values ``phi^T x`` (not on the margins).
    """
    rewards, threshold, in_uncertain, in_feasible = (
        sets.rewards,
        sets.threshold,
        sets.in_uncertain,
        sets.in_feasible,
    )
    live = sets.live[0]
    n = rewards.shape[0]
    best = live.best_reward
    best_arm = live.best_arm
    # While F is empty the anytime answer is the arm of U with the lowest current upper bound.
    track_lowest = best_arm == NO_ARM
    lowest = np.inf
    lowest_arm = NO_ARM
    left = 0
    for i in range(n):
        if not in_uncertain[i]:
            continue
        if track_lowest and upper[i] < lowest:
            lowest = upper[i]
            lowest_arm = i
        if lower[i] > threshold:
            in_uncertain[i] = False
            left += 1
        elif upper[i] <= threshold:
            in_uncertain[i] = False
            in_feasible[i] = True
            left += 1
            if rewards[i] > best:
                best = rewards[i]
                best_arm = i
    if best_arm == live.best_arm:
        # r unchanged: every arm of U passed the reward test against this r at the last update (or r is
        # -inf), so the pass below would remove none; |U| is the last count less the arms that left
        count = live.n_uncertain - left
    else:
        count = 0
        for i in range(n):
            if in_uncertain[i]:
                if rewards[i] < best:
                    in_uncertain[i] = False
                else:
                    count += 1
    live.best_reward = best
    live.best_arm = best_arm
    live.n_uncertain = count
    if lowest_arm != NO_ARM:
        live.lowest_ucb = lowest
        live.lowest_ucb_arm = lowest_arm


class CBAISets(Rebinding):
    """Uncertain set ``U``, certified-feasible set ``F`` and best certified reward ``r``.

    Parameters
    ----------
    rewards : array-like of shape (n_arms,)
        Known rewards ``theta^T x``.
    threshold : float
        ``tau``.

    Examples
    --------
    >>> s = CBAISets(np.array([0.0, 1.0, 2.0]), threshold=0.0)
    >>> s.update(np.array([-2.0, -1.0, 0.5]), np.array([-1.0, 0.5, 1.0]))
    >>> s.uncertain.tolist(), s.feasible.tolist(), s.best_arm, s.done
    ([1], [0], 0, False)
    """

    def __init__(self, rewards: FloatArray, threshold: float) -> None:
        self.rewards = check_array(rewards, "rewards", ndim=1, min_rows=1, owner="CBAISets")
        self.threshold = check_interval(threshold, "threshold", owner="CBAISets")
        #: The compiled kernels' view (:class:`CBAIState`); its arrays are updated in place.
        self.state = new_cbai_state(self.rewards, self.threshold)
        self.in_uncertain = self.state.in_uncertain
        self.in_feasible = self.state.in_feasible
        CBAISets._make_views(self)

    # one-element views of the record's fields (plain int / float arrays: cheap reads from Python); a
    # copy or a pickle leaves them out and makes them again (Rebinding)
    _views = ("_n_uncertain", "_best_arm", "_best_reward", "_lowest_ucb_arm")

    def _make_views(self) -> None:
        live = self.state.live
        self._n_uncertain, self._best_arm = live["n_uncertain"], live["best_arm"]
        self._best_reward, self._lowest_ucb_arm = live["best_reward"], live["lowest_ucb_arm"]

    @property
    def n_arms(self) -> int:
        return self.rewards.shape[0]

    def update(self, lower: FloatArray, upper: FloatArray) -> None:
        """Apply the elimination rules to the arms of ``U`` given bounds on ``phi^T x`` of every arm."""
        n = self.n_arms
        lo = np.ascontiguousarray(lower, dtype=np.float64)
        hi = np.ascontiguousarray(upper, dtype=np.float64)
        if lo.shape != (n,) or hi.shape != (n,):
            raise ConfigError(
                f"CBAISets.update needs 'lower' and 'upper' of shape ({n},). "
                f"Got shapes {lo.shape} and {hi.shape} instead."
            )
        cbai_update(self.state, lo, hi)

    @property
    def uncertain(self) -> IntArray:
        """Indices of ``U``."""
        return np.flatnonzero(self.in_uncertain)

    @property
    def feasible(self) -> IntArray:
        """Indices of ``F``."""
        return np.flatnonzero(self.in_feasible)

    @property
    def n_uncertain(self) -> int:
        return int(self._n_uncertain[0])

    @property
    def done(self) -> bool:
        """``U`` is empty: the stopping rule of Algorithms 1-3."""
        return bool(self._n_uncertain[0] == 0)

    @property
    def best_reward(self) -> float:
        """``r``, the best certified-feasible reward (``-inf`` if ``F`` is empty)."""
        return float(self._best_reward[0])

    @property
    def best_arm(self) -> int | None:
        """Best certified-feasible arm (lowest index among reward ties certified together)."""
        k = int(self._best_arm[0])
        return None if k < 0 else k

    @property
    def lowest_ucb_arm(self) -> int | None:
        """Arm of ``U`` with the lowest upper bound seen so far (``None`` before any update)."""
        k = int(self._lowest_ucb_arm[0])
        return None if k < 0 else k

    def recommend_arm(self) -> int | None:
        """Best certified-feasible arm, else the lowest-upper-bound arm seen (authors' anytime rule)."""
        best = self.best_arm
        return best if best is not None else self.lowest_ucb_arm

    def summary(self) -> dict[str, Any]:
        """Small JSON-friendly description for :class:`~safebandits.types.Recommendation` info."""
        return {
            "n_uncertain": self.n_uncertain,
            "n_certified_feasible": int(self.in_feasible.sum()),
            "best_certified_reward": self.best_reward,
            "certified": self.best_arm is not None,
        }


def check_cbai_info(info: Any, owner: str) -> tuple[FloatArray, FloatArray, float]:
    """Check a learner's CBAI view and return ``(arms, rewards, threshold)`` as fresh arrays."""
    for attr in ("arms", "reward_param", "threshold"):
        if not hasattr(info, attr):
            raise TypeError(
                f"{owner} needs a CBAI info with 'arms', 'reward_param' and 'threshold'; got {info!r}."
            )
    arms = check_array(info.arms, "arms", ndim=2, min_rows=1, owner=owner)
    theta = check_array(info.reward_param, "reward_param", shape=(arms.shape[1],), owner=owner)
    tau = check_interval(info.threshold, "threshold", owner=owner)
    known = getattr(info, "reward_values", None)  # known rewards that are not theta^T x (driving)
    rewards = (
        arms @ theta
        if known is None
        else check_array(known, "reward_values", shape=(arms.shape[0],), owner=owner)
    )
    return arms, rewards, tau


def _constraint_sums(observation: BatchObservation, n_arms: int) -> FloatArray:
    sums = observation.constraint_sums
    if sums is None:
        raise ConfigError("A CBAI batch observation must carry 'constraint_sums'.")
    sums = np.asarray(sums, dtype=np.float64)
    if sums.ndim == 2 and sums.shape[1] == 1:
        sums = sums[:, 0]
    if sums.shape != (n_arms,):
        raise ConfigError(
            f"CBAI learners observe one constraint: 'constraint_sums' must have shape ({n_arms},) or "
            f"({n_arms}, 1). Got shape {sums.shape} instead."
        )
    return sums


class CBAILearner(BaseLearner):
    """Shared surface of CBAI learners holding a :class:`CBAISets` in ``self._sets``:
    ``n_arms``, ``done``, ``sets`` and the recommendation (best certified-feasible arm).

    Subclasses add algorithm-specific entries to the recommendation's info via
    :meth:`_recommend_info`.
    """

    _sets: CBAISets

    @property
    def n_arms(self) -> int:
        return self._sets.n_arms

    @property
    def done(self) -> bool:
        return self._sets.done

    @property
    def sets(self) -> CBAISets:
        """Read-only view of ``U``, ``F`` and ``r`` (diagnostics)."""
        return self._sets

    def _recommend_info(self) -> dict[str, Any]:
        return {}

    def arm_estimates(self) -> ArmEstimates:
        """The constraint value ``phi^T x`` of every arm: the midpoint of :meth:`confidence_bounds` and
        those bounds (``nan`` / infinite before the first round), and the known reward ``theta^T x``."""
        lower, upper = self.confidence_bounds()  # type: ignore[attr-defined]
        lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
        known = np.isfinite(lower) & np.isfinite(upper)
        mid = np.full(lower.shape, np.nan)
        mid[known] = (lower[known] + upper[known]) / 2.0
        r = self._sets.rewards
        return ArmEstimates(
            ("constraint phi^T x", "reward (known)"),
            np.column_stack([mid, r]),
            np.column_stack([lower, r]),
            np.column_stack([upper, r]),
            (float(self._sets.threshold), None),
            interval="confidence bounds l_t(x), u_t(x) on phi^T x; certified feasible when u_t(x) <= tau",
        )

    def _recommend(self, final: bool) -> Recommendation:
        info = {**self._sets.summary(), **self._recommend_info()}
        return Recommendation(
            arm=self._sets.recommend_arm(), n_samples=self.n_samples, final=final, info=info
        )


class RoundBasedCBAI(CBAILearner):
    """Round-based CBAI with static confidence intervals: the loop of Algorithms 1 and 3.

    Round ``t`` (from 1): ``delta_t = delta^2 / t^2``; play ``N_t`` samples allocated by the subclass
    (:meth:`_plan`); re-estimate ``phi_hat`` from *this round's data only*
    (``A = ridge I + sum n_i x_i x_i^T``, ``phi_hat = A^{-1} sum x_i s_i``); bound every arm by
    ``phi_hat^T x -+ beta_t ||x||_{A^{-1}}`` with ``beta_t = sqrt(2 log(|X| / delta_t))``
    (Proposition 2); update ``U``, ``F``, ``r``; stop when ``U`` is empty.

    Subclasses implement ``_plan(t, delta_t) -> counts`` (int64, shape ``(n_arms,)``).
    The config must have ``delta`` and ``ridge`` fields.
    """

    def __init__(self, config: LearnerConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        self._arms, self._rewards, self._threshold = check_cbai_info(info, type(self).__name__)
        self._sets = CBAISets(self._rewards, self._threshold)
        self._ridge = ArmRidge(self._arms, self.config.ridge, refresh_every=0)
        self._lower = np.full(self.n_arms, -np.inf)
        self._upper = np.full(self.n_arms, np.inf)
        self.round = 1
        self.round_lengths: list[int] = []

    def confidence_bounds(self) -> tuple[FloatArray, FloatArray]:
        """Last round's bounds ``(l, u)`` on ``phi^T x`` of every arm (``-inf, inf`` before round 1)."""
        return self._lower.copy(), self._upper.copy()

    def round_delta(self, t: int) -> float:
        """``delta_t = delta^2 / t^2`` (Algorithms 1 and 3)."""
        return self.config.delta**2 / float(t) ** 2

    def log_term(self, t: int) -> float:
        """``log(|X| / delta_t)`` of round ``t``."""
        return math.log(self.n_arms) - 2.0 * math.log(self.config.delta) + 2.0 * math.log(t)

    # -- protocol ---------------------------------------------------------------------------------
    def _ask(self, context: Any) -> Decision:
        t = self.round
        counts = self._plan(t, self.round_delta(t))
        return Decision(counts=counts)

    def _plan(self, t: int, delta_t: float) -> IntArray:
        raise NotImplementedError

    def _tell(self, decision: Decision, observation: Any) -> None:
        counts = np.asarray(decision.counts, dtype=np.float64)
        sums = _constraint_sums(observation, self.n_arms)
        t = self.round
        self._ridge.set_counts(counts, sums)
        beta_t = static_width(self.n_arms, self.round_delta(t))
        half = beta_t * self._ridge.widths
        np.subtract(self._ridge.preds, half, out=self._lower)
        np.add(self._ridge.preds, half, out=self._upper)
        self._sets.update(self._lower, self._upper)
        self.round_lengths.append(int(decision.counts.sum()))
        self.round += 1

    def _recommend_info(self) -> dict[str, Any]:
        return {"rounds": len(self.round_lengths)}


def round_length(value: float) -> int:
    """``ceil(value)`` as an int, at least 1 and at most :data:`MAX_ROUND_SAMPLES`."""
    if not math.isfinite(value) or value >= MAX_ROUND_SAMPLES:
        return MAX_ROUND_SAMPLES
    return max(1, math.ceil(value))
