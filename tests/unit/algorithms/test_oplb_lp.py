"""Issue 43, item 5: OPLB's per-arm LP (``solver="arm-lp"``) is solved exactly: its value is HiGHS' optimum
of the LP over the rows' indices, its policy feasible with at most two rows mixed, ``pi0`` where nothing
beats it; the search stays the solver of the stored ``oplb-random`` runs (keys unchanged)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from safebandits.algorithms import make_learner
from safebandits.algorithms._config import keyed_config, run_params
from safebandits.algorithms.regret.oplb import OPLBConfig
from safebandits.problems.declare.linear import LinearProblem

#: HiGHS' primal feasibility tolerance: a row whose cost is above ``tau`` by less is feasible to it.
HIGHS_TOL = 1e-7


def highs(u, c, tau):
    """``max pi . u`` s.t. ``pi . c <= tau``, ``pi`` in the simplex (HiGHS; ``None``: infeasible)."""
    k = len(u)
    res = linprog(-u, A_ub=c[None, :], b_ub=[tau], A_eq=np.ones((1, k)), b_eq=[1.0], bounds=[(0, None)] * k,
                  method="highs")  # fmt: skip
    return None if res.status == 2 else -res.fun


def learner_after(seed, k, d, known, rounds, slack, value, m=1, solver=None):
    """An OPLB learner on a random declared problem (``x0`` = arm 0, ``tau = c0 + slack``) after its warm
    start (if any, at most 1,000 rounds) and ``rounds`` more rounds of ask / tell, and its problem."""
    rng = np.random.default_rng(seed)
    arms = rng.normal(size=(k, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    arms[0] *= 0.3
    theta, mu = rng.normal(size=d) / (2 * math.sqrt(d)), rng.normal(size=(m, d)) / (2 * math.sqrt(d))
    kw = {"arms": arms, "threshold": mu @ arms[0] + slack, "safe_arm": 0, "horizon": 1000,
          "feedback": {"kind": "gaussian", "sigma": 0.1}, "action_set": "star"}  # fmt: skip
    if known:
        kw.update(safe_reward=float(theta @ arms[0]), safe_cost=mu @ arms[0])
    inst = LinearProblem(**kw).simulate(reward_param=theta, cost_params=mu).instance("stagewise")
    config = {"safe_value_ucb": value} | ({} if solver is None else {"solver": solver})
    learner = make_learner("oplb", inst.public_info(), np.random.default_rng(seed + 1), config)
    env = inst.environment(np.random.default_rng(seed + 2))
    warm = 0
    while learner.in_warm_start and warm < 1000:
        decision = learner.ask()
        learner.tell(decision, env.play(decision))
        warm += 1
    for _ in range(rounds):
        decision = learner.ask()
        learner.tell(decision, env.play(decision))
    return learner, inst


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10**6), st.integers(2, 8), st.integers(2, 4), st.booleans(),
    st.sampled_from([0, 3, 30, 200]), st.sampled_from([1e-3, 0.05, 0.15, 0.4]),
    st.sampled_from(["ucb", "known"]),
)  # fmt: skip
def test_arm_lp_is_the_lp_optimum_feasible_with_two_rows_at_most(seed, k, d, known, rounds, slack, value):
    """The policy and value against HiGHS on the same indices (rows ``x0`` and the arms; the safe arm is
    ``x0``): ``V~r``, ``V~c`` at each row (eqs. 9-10; ``x0``'s value its known ``r0`` when so
    configured). Cases: only ``x0`` safe (small slack, early rounds), ``x0`` itself pessimistically above
    ``tau`` (unknown ``c0``, just after the warm start: ``pi0`` kept unless a policy beats it), ties (the
    safe arm duplicates ``x0``), and mixtures of two arms."""
    learner, inst = learner_after(seed, k, d, known, rounds, slack, value, solver="arm-lp")
    decision = learner.ask()
    if learner.in_warm_start:
        event("warm start")
        return
    est = learner.estimator
    points = np.vstack([inst.safe_action, inst.arms])
    ur = est.optimistic_reward(points)
    uc = est.pessimistic_cost(points)[:, 0]
    if value == "known":
        ur[0] = learner._r0
    ur[1], uc[1] = ur[0], uc[0]  # (arm 0 is x0: the same candidate)
    tau = float(inst.threshold[0])
    rest = 1.0 - decision.probs.sum()  # (x0's mass; rounding leaves +-1e-16 when it has none)
    assert rest >= -1e-12
    pi = np.concatenate([[max(rest, 0.0)], decision.probs])
    pi[0], pi[1] = pi[0] + pi[1], 0.0
    got = learner.last_value
    ref = highs(ur, uc, tau)
    assert np.all(pi >= 0) and pi.sum() == pytest.approx(1.0, abs=1e-12)
    if ref is None or ref <= ur[0] + 1e-9 * (1 + abs(ur[0])):
        event("pi0" + (" (LP infeasible)" if ref is None else ""))
        assert got == pytest.approx(ur[0], abs=1e-9) and pi[0] == pytest.approx(1.0, abs=1e-12)
        return
    if uc.min() > tau:  # feasible to HiGHS only within its tolerance: exactly, pi0
        assert uc.min() - tau <= HIGHS_TOL * max(1.0, abs(tau)) and pi[0] == 1.0
        return
    support = np.count_nonzero(pi > 1e-12)
    event(f"support {support}; x0 {'LP-feasible' if uc[0] <= tau else 'above tau'}")
    assert got == pytest.approx(ref, rel=1e-9, abs=1e-9) and got == pytest.approx(pi @ ur, abs=1e-9)
    assert pi @ uc <= tau + 1e-9 and support <= 2
    # Jensen: the mean action is pessimistically feasible for (34) too (Prop. 26's set)
    assert est.pessimistic_cost(pi @ points)[0] <= tau + 1e-9


def test_arm_lp_plays_safely_and_mixes_arms():
    """A whole compiled run on the per-arm LP: every policy pessimistically feasible and truly safe in
    expectation, and the policies mix arms once the estimates allow it."""
    from safebandits.experiments.regret_loop import run_regret

    learner, inst = learner_after(7, 12, 4, True, 0, 0.2, "ucb", solver="arm-lp")
    assert learner.config.solver == "arm-lp" and learner._arm_lp
    out = run_regret(learner, inst.environment(np.random.default_rng(3)), inst, horizon=1500)
    assert out.policy_violations == 0
    assert learner.last_policy.sum() > 0.0


def test_search_is_kept_for_the_stored_runs_and_several_constraints():
    """``oplb-random`` runs the search with the keys of the archived runs (``solver`` left out at its
    stored value), the default is the paper's programme (the search, unkeyed), the per-arm LP is keyed,
    and two constraints use the search whatever the option."""
    from safebandits.experiments.spec import expand, get_experiment

    (spec,) = get_experiment("oplb-random").algorithms
    assert spec.params == {"solver": "search"}
    assert "solver" not in keyed_config(OPLBConfig(solver="search"))
    assert OPLBConfig().solver == "search" and "solver" not in keyed_config(OPLBConfig())
    assert keyed_config(OPLBConfig(solver="arm-lp"))["solver"] == "arm-lp"
    (task, *_) = expand(get_experiment("oplb-random"), "quick")
    assert "solver" not in task.algorithm_params  # (the archived keys; test_oplb_bound: same results)
    assert run_params(OPLBConfig, task.algorithm_params)["solver"] == "search"  # built as stored
    assert run_params(OPLBConfig, {"solver": "arm-lp"})["solver"] == "arm-lp"
    learner, _ = learner_after(1, 5, 3, True, 0, 0.2, "ucb", m=2, solver="arm-lp")
    assert learner.config.solver == "arm-lp" and not learner._arm_lp
