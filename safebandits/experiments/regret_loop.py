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
import math
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numba
import numpy as np

from safebandits._validation import check_int
from safebandits.algorithms.base import is_simulating, play_ask_tell
from safebandits.exceptions import ConfigError
from safebandits.experiments.watch import Watcher
from safebandits.problems.conservative import ConservativeTracker
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


#: The changing scalars of a :class:`RegretTracker` (one record, read and written by :func:`score_block`):
#: rounds scored ``t``, next grid point ``next``, the running totals, the two milestones at ``T // 10``,
#: the rounds of the current window ``win_n`` (see :class:`TrackerArrays`), the optimism check's counts
#: (``optimism_rounds``, ``optimism_failures``, ``optimism_last_failure``, ``optimism_min_margin``: see
#: :attr:`RegretOutcome.optimism`), and the constants ``opt`` / ``opt_pi`` (the two benchmarks),
#: ``opt_bench`` (the optimism check's: one of them) and ``tenth`` (the round ``T // 10``).
TRACKER_LIVE = np.dtype(
    [("t", np.int64), ("next", np.int64), ("violations", np.int64), ("policy_violations", np.int64),
     ("win_n", np.int64), ("tenth", np.int64), ("regret", np.float64), ("policy_regret", np.float64),
     ("reward", np.float64), ("regret_tenth", np.float64), ("policy_regret_tenth", np.float64),
     ("opt", np.float64), ("opt_pi", np.float64), ("opt_bench", np.float64), ("optimism_rounds", np.int64),
     ("optimism_failures", np.int64), ("optimism_last_failure", np.int64),
     ("optimism_min_margin", np.float64)]
)  # fmt: skip

#: ``values`` of a block without optimistic values (:func:`score_block` skips the optimism check).
_NO_VALUES = np.empty(0)


#: Per constraint (one record each): the threshold ``tau`` and ``tau_tol = tau + TOL`` (a violation: a cost
#: above it); the totals ``cost``, ``policy_cost``, ``positive_cost`` and ``positive_cost_tenth`` (at
#: ``T // 10``); the current window's sums ``win_cost`` / ``win_policy_cost`` (minus the running sums at
#: the last grid point plus those since, as the block-wise arithmetic leaves them); the block's running
#: sums ``run_cost``, ``run_policy_cost``, ``run_positive_cost``; the largest policy cost so far
#: ``max_policy_cost`` (``numpy.maximum``'s: the first of equal values, NaN kept).
TRACKER_CONSTRAINT = np.dtype(
    [(name, np.float64) for name in (
        "tau", "tau_tol", "cost", "policy_cost", "positive_cost", "positive_cost_tenth", "win_cost",
        "win_policy_cost", "run_cost", "run_policy_cost", "run_positive_cost", "max_policy_cost",
    )]
)  # fmt: skip


#: One grid point of the curves: ``regret``, ``policy_regret``, running mean ``reward``, cumulative
#: ``violations``.
TRACKER_POINT = np.dtype(
    [("regret", np.float64), ("policy_regret", np.float64), ("reward", np.float64), ("violations", np.int64)]
)
#: One grid point and constraint of the curves: the window means ``cost`` / ``policy_cost``, the policy's
#: cost of that round ``policy_cost_now`` and the cumulative ``positive_cost``.
TRACKER_POINT_COST = np.dtype(
    [(name, np.float64) for name in ("cost", "policy_cost", "policy_cost_now", "positive_cost")]
)


class TrackerArrays(NamedTuple):
    """Everything :func:`score_block` reads and writes, by name: ``constraints`` (m,) of
    :data:`TRACKER_CONSTRAINT`; ``grid`` (G,) the rounds of the curves, ``curves`` (G,) and
    ``curve_costs`` (G, m) their values (:data:`TRACKER_POINT`, :data:`TRACKER_POINT_COST`; rows
    ``[0, live.next)`` filled); ``live`` the :data:`TRACKER_LIVE` record."""

    constraints: np.ndarray
    grid: np.ndarray
    curves: np.ndarray
    curve_costs: np.ndarray
    live: np.ndarray


@numba.njit(cache=True, inline="always")
def _count_optimism(live, values):  # type: ignore[no-untyped-def]  # (inlined into score_block)
    """The optimism check of a block (module docstring): its rounds with a finite optimistic value, those
    below the benchmark ``opt_bench`` by more than ``TOL``, the last of them (counted from the run's start)
    and the smallest margin. Rounds without a value (NaN: warm start) are skipped."""
    n_known = n_fail = 0
    last = -1
    smallest = math.inf
    for i in range(values.shape[0]):
        v = values[i]
        if not math.isfinite(v):
            continue
        margin = v - live.opt_bench
        if n_known == 0 or margin < smallest:
            smallest = margin
        n_known += 1
        if margin < -TOL:
            n_fail += 1
            last = i
    if n_known == 0:
        return
    live.optimism_rounds += n_known
    live.optimism_failures += n_fail
    if n_fail:
        live.optimism_last_failure = live.t + last + 1
    if smallest < live.optimism_min_margin:
        live.optimism_min_margin = smallest


@numba.njit(cache=True)
def score_block(
    trk: TrackerArrays, r: np.ndarray, rp: np.ndarray, c: np.ndarray, cp: np.ndarray, values: np.ndarray
) -> None:
    """Score ``k`` consecutive rounds in place: true rewards ``r`` (k,) and costs ``c`` (k, m) of the
    played points, ``rp`` / ``cp`` those of the policies' mean points; ``values`` (k,) the learner's
    optimistic values of its choices (NaN: none) for the optimism check, or empty (no check).

    Running sums restart with each block and start at the block's first value (the arithmetic of
    :func:`numpy.cumsum` on the block), so the totals and curves do not depend on how a run is cut
    into blocks beyond the order of these additions.
    """
    live = trk.live[0]
    _count_optimism(live, values)
    con = trk.constraints
    grid, g = trk.grid, live.next
    k, m = c.shape
    t0, opt, opt_pi = live.t, live.opt, live.opt_pi
    prior_violations = live.violations
    prev_n = live.win_n  # window of the next grid point: prev + running sums (see TRACKER_CONSTRAINT)
    reg = preg = rew = 0.0
    n_viol = n_pviol = 0
    for i in range(k):
        if i == 0:
            reg, preg, rew = opt - r[0], opt_pi - rp[0], r[0]
        else:
            reg += opt - r[i]
            preg += opt_pi - rp[i]
            rew += r[i]
        violates = False
        policy_violates = False
        for q in range(m):
            cq, cpq, s = c[i, q], cp[i, q], con[q]
            if cpq > s.max_policy_cost or cpq != cpq:  # (numpy.maximum: NaN propagates, ties keep the first)
                s.max_policy_cost = cpq
            violates = violates or cq > s.tau_tol
            policy_violates = policy_violates or cpq > s.tau_tol
            pos = cq - s.tau
            pos = pos if (pos > 0.0 or pos != pos) else 0.0  # numpy.maximum(pos, 0.0), signed zeros too
            if i == 0:
                s.run_cost, s.run_policy_cost, s.run_positive_cost = cq, cpq, pos
            else:
                s.run_cost += cq
                s.run_policy_cost += cpq
                s.run_positive_cost += pos
        n_viol += violates
        n_pviol += policy_violates
        t = t0 + i + 1  # this round
        if t == live.tenth:
            live.regret_tenth = live.regret + reg
            live.policy_regret_tenth = live.policy_regret + preg
            for q in range(m):
                s = con[q]
                s.positive_cost_tenth = s.positive_cost + s.run_positive_cost
        if g < grid.shape[0] and grid[g] == t:
            n_win = prev_n + i + 1
            point = trk.curves[g]
            point.regret = live.regret + reg
            point.policy_regret = live.policy_regret + preg
            point.reward = (live.reward + rew) / t
            point.violations = prior_violations + n_viol
            for q in range(m):
                s, at = con[q], trk.curve_costs[g, q]
                at.cost = (s.win_cost + s.run_cost) / n_win
                at.policy_cost = (s.win_policy_cost + s.run_policy_cost) / n_win
                at.policy_cost_now = cp[i, q]
                at.positive_cost = s.positive_cost + s.run_positive_cost
                s.win_cost = -s.run_cost  # (the window restarts after this round)
                s.win_policy_cost = -s.run_policy_cost
            prev_n = -(i + 1)
            g += 1
    for q in range(m):
        s = con[q]
        s.win_cost = s.win_cost + s.run_cost
        s.win_policy_cost = s.win_policy_cost + s.run_policy_cost
        s.cost = s.cost + s.run_cost
        s.policy_cost = s.policy_cost + s.run_policy_cost
        s.positive_cost = s.positive_cost + s.run_positive_cost
    live.win_n = prev_n + k
    live.regret += reg
    live.policy_regret += preg
    live.reward += rew
    live.violations += n_viol
    live.policy_violations += n_pviol
    live.t = t0 + k
    live.next = g


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

    Attributes
    ----------
    totals : dict
        The run's totals so far (a fresh dict on each access).
    curves : dict of ndarray
        The curves at the grid points passed so far (fresh read-only arrays on each access; see
        :class:`RegretOutcome`).
    """

    instance: Any
    horizon: int
    n_points: int = 200
    setting: str = "round"
    grid: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        inst = self.instance
        self.grid = grid = _shared_grid(self.horizon, self.n_points)
        self._theta = np.asarray(inst.reward_param, dtype=np.float64)
        self._mu = np.atleast_2d(np.asarray(inst.cost_params, dtype=np.float64))
        tau = np.atleast_1d(np.asarray(inst.threshold, dtype=np.float64))
        opt, opt_pi = float(inst.optimal_value), float(inst.optimal_policy_value)
        m, n = self._mu.shape[0], grid.shape[0]
        # Milestones for claims: regret at round T/10 (log-log slope over the last decade) and the
        # mean costs and reward over the last 10% of the rounds.
        self.tenth = max(1, self.horizon // 10)
        self.tail_start = self.horizon - max(1, self.horizon // 10)  # rounds t > tail_start
        nan, bench = math.nan, opt_pi if self.setting == "expectation" else opt
        # (one record: t, next, violations, policy_violations, win_n, tenth, regret, policy_regret, reward,
        # regret_tenth, policy_regret_tenth, opt, opt_pi, opt_bench, optimism_rounds / _failures /
        # _last_failure, optimism_min_margin)
        live = np.array(
            [(0, 0, 0, 0, 0, self.tenth, 0.0, 0.0, 0.0, nan, nan, opt, opt_pi, bench, 0, 0, 0, math.inf)],
            dtype=TRACKER_LIVE,
        )
        rec = live[0]
        con = np.zeros(m, dtype=TRACKER_CONSTRAINT)
        con["tau"], con["tau_tol"], con["positive_cost_tenth"], con["max_policy_cost"] = (
            tau,
            tau + TOL,
            np.nan,
            -np.inf,
        )
        self._live = rec
        self._arrays = TrackerArrays(
            con, grid, np.empty(n, dtype=TRACKER_POINT), np.empty((n, m), dtype=TRACKER_POINT_COST), live
        )
        self._conservative = ConservativeTracker.of(inst, grid)
        self._py = {
            "policy_reward": 0.0,
            "tail_cost": np.zeros(m),
            "tail_policy_cost": np.zeros(m),
            "tail_reward": 0.0,
            "tail_policy_reward": 0.0,
        }

    @property
    def t(self) -> int:
        """Rounds scored so far."""
        return int(self._live["t"])

    @property
    def totals(self) -> dict[str, Any]:
        return self._totals(np.copy)

    def _totals(self, take: Any) -> dict[str, Any]:
        """The totals, the per-constraint ones as ``take(field view)`` (copies for :attr:`totals`; the
        views themselves for :func:`run_regret`, which turns them into lists at once)."""
        rec, con = self._live, self._arrays.constraints
        return {
            "regret": float(rec["regret"]),
            "policy_regret": float(rec["policy_regret"]),
            "reward": float(rec["reward"]),
            "cost": take(con["cost"]),
            "policy_cost": take(con["policy_cost"]),
            "max_policy_cost": take(con["max_policy_cost"]),
            "violations": int(rec["violations"]),
            "policy_violations": int(rec["policy_violations"]),
            "positive_cost": take(con["positive_cost"]),
            "regret_tenth": float(rec["regret_tenth"]),
            "policy_regret_tenth": float(rec["policy_regret_tenth"]),
            "positive_cost_tenth": take(con["positive_cost_tenth"]),
            **self._py,
            "optimism_rounds": int(rec["optimism_rounds"]),
            "optimism_failures": int(rec["optimism_failures"]),
            "optimism_last_failure": int(rec["optimism_last_failure"]),
            "optimism_min_margin": float(rec["optimism_min_margin"]),
        }

    @property
    def curves(self) -> dict[str, np.ndarray]:
        n = int(self._live["next"])
        # (one copy of each record array; the curves are read-only views of their fields)
        points, costs = self._arrays.curves[:n].copy(), self._arrays.curve_costs[:n].copy()
        t = self.grid[:n].copy()
        points.flags.writeable = costs.flags.writeable = t.flags.writeable = False
        cost_names = ("cost", "policy_cost", "policy_cost_now", "positive_cost")
        return {
            "t": t,
            **{name: points[name] for name in ("regret", "policy_regret", "reward")},
            **{name: costs[name] for name in cost_names},
            "violations": points["violations"],
        }

    def update(self, block: PlayedBlock) -> None:
        """Score a block of consecutive rounds (:func:`score_block`; the sums that numpy adds pairwise
        here with numpy)."""
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
        r = points @ self._theta
        rp = r if same else means @ self._theta
        c = points @ self._mu.T
        cp = c if same else means @ self._mu.T
        tt = self._py
        values = _NO_VALUES if block.values is None else np.ascontiguousarray(block.values, dtype=np.float64)
        t0 = self.t
        if t0 + k > self.tail_start:
            j0 = max(0, self.tail_start - t0)
            tail_c = c[j0:].sum(axis=0)
            tail_r = float(r[j0:].sum())
            tt["tail_cost"] = tt["tail_cost"] + tail_c
            tt["tail_policy_cost"] = tt["tail_policy_cost"] + (tail_c if same else cp[j0:].sum(axis=0))
            tt["tail_reward"] += tail_r
            tt["tail_policy_reward"] += tail_r if same else float(rp[j0:].sum())
        tt["policy_reward"] += float(rp.sum())
        if self._conservative is not None:
            self._conservative.update(r, t0)
        score_block(self._arrays, r, rp, c, cp, values)


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
    cpu_s : float
        CPU seconds of this process over the same rounds (``time.process_time``).
    conservative : dict
        The conservative constraint under the truth (problems with a baseline: ``violations``, the
        verified rounds with a negative margin ``sum_s mu_{I_s} - (1 - alpha) sum_s r(b_s)``;
        ``first_violation`` (0: none), ``min_margin``, the final ``margin``, ``alpha``, ``checkpoint``
        and ``curve``, the margin at the grid points); empty for other problems.
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
    curves : dict of ndarray
        Log-grid curves, read-only numpy arrays over the ``G`` grid points reached: ``t`` (int, the
        rounds), ``regret``, ``policy_regret``, running mean ``reward`` (float, ``(G,)``); window-mean
        ``cost`` and ``policy_cost``, ``policy_cost_now`` and cumulative ``positive_cost`` (float,
        ``(G, m)``: a column per constraint); cumulative ``violations`` (int, ``(G,)``: violating
        rounds); on conservative problems ``conservative_margin`` (float, ``(G,)``). ``.tolist()`` gives
        the lists the results store keeps as JSON.
    info : dict
        Learner diagnostics (``learner.diagnostics()`` if it has one).
    assumption : dict
        The first "assumption contradicted" flag (:mod:`safebandits.experiments.watch`: ``round``,
        ``what``, ``text``, ``checks``); empty when none was raised or the problem is not a declaration.
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
    curves: dict[str, np.ndarray] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    assumption: dict[str, Any] = field(default_factory=dict)
    cpu_s: float = float("nan")
    conservative: dict[str, Any] = field(default_factory=dict)


def _same(a: Any) -> Any:
    return a


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
    kind = type(instance)  # (a property or slot on the class is there without computing it)
    missing = [
        a
        for a in ("reward_param", "cost_params", "threshold", "optimal_value")
        if not (hasattr(kind, a) or hasattr(instance, a))
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
    watcher = Watcher(learner, instance)
    t0, c0 = time.perf_counter(), time.process_time()
    played = 0
    while played < limit:
        k = min(BLOCK, limit - played)
        block = play(env, k)
        tracker.update(block)
        played += k
        watcher.check(played)  # (a declaration's bounds against the learner's intervals; else nothing)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    tt = tracker._totals(_same)
    expect = setting == "expectation"
    conservative = tracker._conservative.summary() if tracker._conservative is not None else {}
    curves = tracker.curves
    if conservative:  # (the margin beside the other curves: the report plots it like them)
        curves["conservative_margin"] = conservative["curve"]
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
        curves=curves,
        info=diag() if callable(diag) else {},
        assumption=watcher.summary(),
        cpu_s=cpu,
        conservative=conservative,
    )
