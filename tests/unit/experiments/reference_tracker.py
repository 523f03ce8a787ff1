"""The regret tracker as it was before it scored a block with one cumulative sum (2026-11-27).

Kept as the reference of a parity test: the fused tracker must give the same totals and curves, bit for bit
(tests/unit/experiments/test_regret_loop.py). Not imported by the library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits.experiments.regret_loop import _shared_grid
from safebandits.problems.stagewise import TOL, policy_mean_points
from safebandits.records import PlayedBlock


@dataclass
class ReferenceTracker:
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
