"""Drive a regret-minimisation learner for a horizon and score every round with the instance's oracle.

The loop runs in blocks of rounds, each played by the learner's declared fast path
``simulate(env, n_rounds) -> PlayedBlock`` (:meth:`~safebandits.algorithms.base.BaseLearner.simulate`:
the plain ask / ``env.play`` / tell loop by default, one compiled loop for the learners that have
kernels, consuming the environment's variates exactly as ask / tell would). Either way the block's
played actions (and the policies they were drawn from) go to a :class:`RegretTracker`, which holds the
ground truth and keeps, in memory independent of the horizon, the run's totals and its curves on a
log-spaced grid of rounds.

Per round ``t`` with played action ``X_t`` and policy mean action ``x_pi_t`` (equal to ``X_t`` for
deterministic learners):

* ``regret`` (per-round setting): ``<x*, theta*> - <X_t, theta*>`` with ``x*`` the best feasible action;
* ``policy_regret`` (in-expectation setting): ``V(pi*) - <x_pi_t, theta*>`` with ``pi*`` the LP optimum;
* ``violations``: rounds with ``<X_t, mu*_i> > tau_i`` for some ``i`` (the played action's true cost);
* ``policy_violations``: rounds with ``<x_pi_t, mu*_i> > tau_i`` for some ``i`` (the policy's expected cost);
* ``positive_cost``: the stronger cumulative violation ``sum_t [<X_t, mu*_i> - tau_i]_+`` per constraint
  (no cancellation across rounds; soft-constraint problems such as CKB's);
* ``optimism_failures`` (learners that report the optimistic value of their choice, ``PlayedBlock.values``:
  LC-LUCB, OPLB, OPNLB): rounds whose optimistic value is below the optimal true value -- ``V~r(X_t) <
  <x*, theta*>`` in the per-round setting (Lemma 18 of Pacchiano et al.), ``V~r(pi_t) < V(pi*)`` in
  expectation (Lemma 29) -- by more than ``TOL``; rounds without a value (NaN: warm start) are not
  counted. The truth is the simulation's; the learner never sees it.

A learner states its setting with the class attribute ``setting = "round" | "expectation"``; the run's
headline ``regret`` metric uses the matching benchmark, and both are stored.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits._validation import check_int
from safebandits.algorithms.base import is_simulating, play_ask_tell
from safebandits.exceptions import ConfigError
from safebandits.problems.stagewise import TOL, policy_mean_points
from safebandits.records import PlayedBlock, log_grid  # (defined in the core; re-exported here)

__all__ = ["PlayedBlock", "RegretOutcome", "RegretTracker", "log_grid", "run_regret"]

#: Rounds per block of the loop (memory of a block: ``BLOCK x d`` floats).
BLOCK = 4096


@functools.lru_cache(maxsize=64)
def _shared_grid(horizon: int, n_points: int) -> np.ndarray:
    """:func:`log_grid`, computed once per ``(horizon, n_points)`` (read-only: trackers share it)."""
    grid = log_grid(horizon, n_points)
    grid.setflags(write=False)
    return grid


@dataclass
class RegretTracker:
    """Totals and log-grid curves of one run, in memory independent of the horizon.

    Parameters
    ----------
    instance : StagewiseInstance-like
        Needs ``reward_param``, ``cost_params``, ``threshold``, ``arms``, ``safe_action``, ``safe_arm``,
        ``optimal_value`` and ``optimal_policy_value``.
    horizon : int
    n_points : int
        Points of the log-spaced grid of the curves.
    setting : {"round", "expectation"}
        Benchmark of the optimism check: the best feasible action's value or the best policy's.
    """

    instance: Any
    horizon: int
    n_points: int = 200
    setting: str = "round"
    t: int = 0
    grid: np.ndarray = field(init=False)
    totals: dict[str, Any] = field(init=False)
    curves: dict[str, list[Any]] = field(init=False)

    def __post_init__(self) -> None:
        inst = self.instance
        self.grid = _shared_grid(self.horizon, self.n_points)
        self._next = 0
        self._played_policies = True  # every block so far had policy means = played points
        self._theta = np.asarray(inst.reward_param, dtype=np.float64)
        self._mu = np.atleast_2d(np.asarray(inst.cost_params, dtype=np.float64))
        self._tau = np.atleast_1d(np.asarray(inst.threshold, dtype=np.float64))
        self._tau_tol = self._tau + TOL  # (a violation: a cost above tau + TOL)
        self._opt = float(inst.optimal_value)
        self._opt_pi = float(inst.optimal_policy_value)
        m = self._mu.shape[0]
        self.totals = {
            "regret": 0.0,
            "policy_regret": 0.0,
            "reward": 0.0,
            "policy_reward": 0.0,
            "cost": np.zeros(m),
            "policy_cost": np.zeros(m),
            "max_policy_cost": np.full(m, -np.inf),
            "violations": 0,
            "policy_violations": 0,
            "positive_cost": np.zeros(m),
        }
        self._window = {"cost": np.zeros(m), "policy_cost": np.zeros(m), "reward": 0.0, "n": 0}
        # Milestones for claims: regret at round T/10 (log-log slope over the last decade) and the
        # mean costs and reward over the last 10% of the rounds.
        self.tenth = max(1, self.horizon // 10)
        self.tail_start = self.horizon - max(1, self.horizon // 10)  # rounds t > tail_start
        self.totals.update(
            regret_tenth=np.nan,
            policy_regret_tenth=np.nan,
            tail_cost=np.zeros(m),
            tail_policy_cost=np.zeros(m),
            tail_reward=0.0,
            tail_policy_reward=0.0,
            positive_cost_tenth=np.full(m, np.nan),
            optimism_rounds=0,
            optimism_failures=0,
            optimism_last_failure=0,
            optimism_min_margin=np.inf,
        )
        self._opt_bench = self._opt_pi if self.setting == "expectation" else self._opt
        self.curves = {
            k: []
            for k in (
                "t", "regret", "policy_regret", "reward", "cost", "policy_cost", "policy_cost_now",
                "positive_cost", "violations",
            )
        }  # fmt: skip

    def _optimism(self, values: np.ndarray) -> None:
        """Count the rounds of a block whose optimistic value is below the optimal true value."""
        tt = self.totals
        known = np.isfinite(values)
        n_known = int(np.count_nonzero(known))
        if not n_known:
            return
        if n_known == values.size:  # (every round has a value: no selection)
            margin = values - self._opt_bench
            failing = np.flatnonzero(margin < -TOL)
        else:
            margin = values[known] - self._opt_bench
            failing = np.flatnonzero(known)[margin < -TOL]
        tt["optimism_rounds"] += n_known
        tt["optimism_failures"] += int(failing.size)
        if failing.size:
            tt["optimism_last_failure"] = self.t + int(failing[-1]) + 1
        tt["optimism_min_margin"] = min(tt["optimism_min_margin"], float(margin.min()))

    def update(self, block: PlayedBlock) -> None:
        """Score a block of consecutive rounds."""
        points = block.points
        if type(points) is not np.ndarray or points.dtype != np.float64 or points.ndim != 2:
            points = np.atleast_2d(np.asarray(points, dtype=np.float64))
        k = points.shape[0]
        if k == 0:
            return
        inst = self.instance
        if block.means is not None:
            means = np.atleast_2d(np.asarray(block.means, dtype=np.float64))
        elif block.probs is None:
            means = points
        else:
            means = policy_mean_points(block.probs, inst.arms, inst.safe_action, inst.safe_arm)
        same = means is points  # (per-round learners: the policy is the played point, so is every value)
        # the policy-cost window equals the cost window while every block so far was such a block
        self._played_policies = shared = self._played_policies and same
        r = points @ self._theta
        rp = r if same else means @ self._theta
        c = points @ self._mu.T
        cp = c if same else means @ self._mu.T
        # (array methods rather than the numpy functions: the same ufuncs without their Python wrappers)
        reg = (self._opt - r).cumsum()
        preg = (self._opt_pi - rp).cumsum()
        rew = r.cumsum()
        tt = self.totals
        if block.values is not None:
            self._optimism(np.asarray(block.values, dtype=np.float64))
        violates = (c > self._tau_tol).any(axis=1)
        violating = violates.cumsum()
        prior_violations = tt["violations"]
        tt["violations"] += int(violating[-1])
        tt["policy_violations"] += int(violating[-1] if same else (cp > self._tau_tol).any(axis=1).sum())
        tt["max_policy_cost"] = np.maximum(tt["max_policy_cost"], cp.max(axis=0))
        cpos = np.maximum(c - self._tau[None, :], 0.0).cumsum(axis=0)
        # Grid points inside this block: rounds t+1 .. t+k.
        t0 = self.t
        if t0 < self.tenth <= t0 + k:
            tt["regret_tenth"] = tt["regret"] + float(reg[self.tenth - t0 - 1])
            tt["policy_regret_tenth"] = tt["policy_regret"] + float(preg[self.tenth - t0 - 1])
            tt["positive_cost_tenth"] = tt["positive_cost"] + cpos[self.tenth - t0 - 1]
        if t0 + k > self.tail_start:
            j0 = max(0, self.tail_start - t0)
            tt["tail_cost"] = tt["tail_cost"] + c[j0:].sum(axis=0)
            tt["tail_policy_cost"] = tt["tail_policy_cost"] + cp[j0:].sum(axis=0)
            tt["tail_reward"] += float(r[j0:].sum())
            tt["tail_policy_reward"] += float(rp[j0:].sum())
        ccost = c.cumsum(axis=0)
        cpcost = ccost if same else cp.cumsum(axis=0)
        w = self._window
        # grid points inside this block: rounds t0+1 .. t0+k (all at once; same arithmetic as one by one)
        stop = int(self.grid.searchsorted(t0 + k, side="right"))
        if stop > self._next:
            g = self.grid[self._next : stop]
            j = g - t0 - 1
            # window of each grid point: since the previous grid point (or the carried window for the first)
            prev_cost = np.empty((j.size, ccost.shape[1]))
            prev_pcost = np.empty_like(prev_cost)
            prev_cost[0], prev_pcost[0] = w["cost"], w["policy_cost"]
            prev_cost[1:] = -ccost[j[:-1]]
            prev_pcost[1:] = prev_cost[1:] if shared else -cpcost[j[:-1]]
            n_win = np.empty(j.size, dtype=np.int64)
            n_win[0] = w["n"] + j[0] + 1
            n_win[1:] = j[1:] - j[:-1]
            curves = self.curves
            curves["t"].extend(g.tolist())
            curves["regret"].extend((tt["regret"] + reg[j]).tolist())
            curves["policy_regret"].extend((tt["policy_regret"] + preg[j]).tolist())
            curves["reward"].extend(((tt["reward"] + rew[j]) / g).tolist())
            window_cost = (prev_cost + ccost[j]) / n_win[:, None]
            curves["cost"].extend(window_cost.tolist())
            if not shared:
                window_cost = (prev_pcost + cpcost[j]) / n_win[:, None]
            curves["policy_cost"].extend(window_cost.tolist())
            curves["policy_cost_now"].extend(cp[j].tolist())
            curves["positive_cost"].extend((tt["positive_cost"] + cpos[j]).tolist())
            curves["violations"].extend((prior_violations + violating[j]).tolist())
            # restart the window after the last of them
            w["cost"] = -ccost[j[-1]].copy()
            w["policy_cost"] = -cpcost[j[-1]].copy()
            w["n"] = -(int(j[-1]) + 1)
            self._next = stop
        w["cost"] = w["cost"] + ccost[-1]
        w["policy_cost"] = w["policy_cost"] + cpcost[-1]
        w["n"] += k
        tt["regret"] += float(reg[-1])
        tt["policy_regret"] += float(preg[-1])
        tt["reward"] += float(rew[-1])
        tt["policy_reward"] += float(rp.sum())
        tt["cost"] = tt["cost"] + ccost[-1]
        tt["policy_cost"] = tt["policy_cost"] + cpcost[-1]
        tt["positive_cost"] = tt["positive_cost"] + cpos[-1]
        self.t += k


@dataclass(frozen=True, slots=True)
class RegretOutcome:
    """Result of :func:`run_regret`.

    Attributes
    ----------
    rounds : int
        Rounds played.
    regret : float
        Cumulative regret in the learner's setting (per-round or policy benchmark).
    policy_regret, action_regret : float
        Both benchmarks (see the module docstring).
    reward : float
        Mean true reward of the played actions.
    cost : list of float
        Mean true cost of the played actions, per constraint.
    max_policy_cost : list of float
        Largest true expected cost of a played policy, per constraint.
    violations, policy_violations : int
    stopped : bool
        The horizon was reached (``False`` when a budget cut the run short).
    wall_s : float
    regret_tenth : float
        Regret (same benchmark as ``regret``) after ``T // 10`` rounds, for the log-log slope.
    policy_regret_tenth : float
        ``policy_regret`` after ``T // 10`` rounds (the stronger regret ``R+`` of a per-round learner).
    tail_cost, tail_reward
        Mean true cost (per constraint) and reward over the last 10% of the rounds (policy means in
        the in-expectation setting).
    positive_cost, positive_cost_tenth : list of float
        ``sum_t [<X_t, mu*_i> - tau_i]_+`` per constraint over all rounds and over the first ``T // 10``.
    optimism : dict
        Optimism check (module docstring): ``rounds`` with an optimistic value, ``failures`` (rounds below
        the optimal true value), ``last_failure`` (round, 0: none), ``min_margin`` (smallest value minus
        the optimal true value); empty when the learner reports no values.
    curves : dict
        Log-grid curves: ``t``, ``regret``, ``policy_regret``, running mean ``reward``, window-mean
        ``cost`` and ``policy_cost`` (lists per constraint), ``policy_cost_now``, cumulative
        ``positive_cost`` (lists per constraint), cumulative ``violations`` (violating rounds).
    info : dict
        Learner diagnostics (``learner.diagnostics()`` if it has one).
    """

    rounds: int
    regret: float
    policy_regret: float
    action_regret: float
    reward: float
    cost: list[float]
    max_policy_cost: list[float]
    violations: int
    policy_violations: int
    stopped: bool
    wall_s: float
    regret_tenth: float = float("nan")
    policy_regret_tenth: float = float("nan")
    tail_cost: list[float] = field(default_factory=list)
    tail_reward: float = float("nan")
    positive_cost: list[float] = field(default_factory=list)
    positive_cost_tenth: list[float] = field(default_factory=list)
    optimism: dict[str, Any] = field(default_factory=dict)
    curves: dict[str, list[Any]] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


def run_regret(
    learner: Any,
    env: Any,
    instance: Any,
    *,
    horizon: int | None = None,
    budget: int | None = None,
    compiled: bool = True,
    n_points: int = 200,
) -> RegretOutcome:
    """Play ``horizon`` rounds (default ``instance.horizon``), at most ``budget``, and score them.

    Parameters
    ----------
    learner : regret learner (ask / tell; its declared ``simulate`` when it has one, e.g. every
        :class:`~safebandits.algorithms.base.BaseLearner`)
    env : LinearFeedbackEnvironment
    instance : StagewiseInstance
    horizon, budget : int, optional
    compiled : bool
        Play through the learner's ``simulate`` (its compiled loop, if it has one: same trajectory,
        faster); ``False`` (or a learner without ``simulate``): the plain loop
        :func:`~safebandits.algorithms.base.play_ask_tell`.
    n_points : int
        Points of the log-spaced curves.
    """
    if hasattr(learner, "recommend") and hasattr(learner, "done"):
        raise ConfigError(
            f"run_regret drives regret learners; {type(learner).__name__} is a pure-exploration learner "
            "(it stops and recommends): use run."
        )
    missing = [
        a for a in ("reward_param", "cost_params", "threshold", "optimal_value") if not hasattr(instance, a)
    ]
    if missing:
        raise ConfigError(
            f"run_regret scores rounds with the instance's truth ({', '.join(missing)}); a "
            f"{type(instance).__name__} has none. Pass a regret instance (e.g. a StagewiseInstance)."
        )
    horizon = check_int(horizon if horizon is not None else instance.horizon, "horizon", low=1)
    limit = horizon if budget is None else min(horizon, check_int(budget, "budget", low=1))
    check_int(n_points, "n_points", low=2, high=1_000_000, owner="run_regret")
    setting = getattr(learner, "setting", "round")
    tracker = RegretTracker(instance, limit, n_points, setting)
    if compiled and is_simulating(learner):
        play = learner.simulate  # (its compiled loop, or BaseLearner's default: the plain loop below)
    else:
        play = functools.partial(
            play_ask_tell, learner, safe_action=instance.safe_action, safe_arm=instance.safe_arm
        )
    t0 = time.perf_counter()
    played = 0
    while played < limit:
        k = min(BLOCK, limit - played)
        block = play(env, k)
        tracker.update(block)
        played += k
    wall = time.perf_counter() - t0
    tt = tracker.totals
    expect = setting == "expectation"
    diag = getattr(learner, "diagnostics", None)
    n_tail = max(1, played - tracker.tail_start)
    return RegretOutcome(
        rounds=played,
        regret=tt["policy_regret"] if setting == "expectation" else tt["regret"],
        policy_regret=tt["policy_regret"],
        action_regret=tt["regret"],
        reward=tt["reward"] / max(played, 1),
        cost=(tt["cost"] / max(played, 1)).tolist(),
        max_policy_cost=tt["max_policy_cost"].tolist(),
        violations=tt["violations"],
        policy_violations=tt["policy_violations"],
        stopped=played >= horizon,
        wall_s=wall,
        regret_tenth=tt["policy_regret_tenth"] if expect else tt["regret_tenth"],
        policy_regret_tenth=tt["policy_regret_tenth"],
        tail_cost=((tt["tail_policy_cost"] if expect else tt["tail_cost"]) / n_tail).tolist(),
        tail_reward=(tt["tail_policy_reward"] if expect else tt["tail_reward"]) / n_tail,
        positive_cost=tt["positive_cost"].tolist(),
        positive_cost_tenth=tt["positive_cost_tenth"].tolist(),
        optimism=(
            {
                "rounds": tt["optimism_rounds"],
                "failures": tt["optimism_failures"],
                "last_failure": tt["optimism_last_failure"],
                "min_margin": tt["optimism_min_margin"],
            }
            if tt["optimism_rounds"]
            else {}
        ),
        curves=tracker.curves,
        info=diag() if callable(diag) else {},
    )
