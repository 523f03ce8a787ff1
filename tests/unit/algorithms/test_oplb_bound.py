"""Issue 43, item 5: the exact one-constraint LPs against HiGHS, and OPLB's pair bound, which skips pairs
without changing any policy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.opb import lp_closed_form
from safebandits.algorithms.regret.oplb import PairGeometry
from safebandits.algorithms.regret.oplb_bound import pair_bound, three_point_lp
from safebandits.estimators.stagewise import confidence_radii
from safebandits.problems.declare.linear import LinearProblem

#: Values on a grid of 1/64 in [-2, 2] plus generic floats: exact zeros and ties, without the values within
#: HiGHS' feasibility tolerance (1e-7) of a constraint that it would count as satisfied.
FLOATS = st.integers(-128, 128).map(lambda v: v / 64) | st.floats(-2.0, 2.0).filter(lambda v: abs(v) > 1e-6)


def highs(u, s, tau):
    """``max pi . u`` s.t. ``pi . s <= tau``, ``pi`` in the simplex, by HiGHS (``None``: infeasible)."""
    k = len(u)
    res = linprog(
        -np.asarray(u), A_ub=np.asarray(s, float)[None, :], b_ub=[tau], A_eq=np.ones((1, k)), b_eq=[1.0],
        bounds=[(0, None)] * k, method="highs",
    )  # fmt: skip
    return None if res.status == 2 else -res.fun


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(FLOATS, FLOATS), min_size=3, max_size=3))
def test_three_point_lp_is_the_lp_optimum(points):
    u, s = zip(*points)
    value = three_point_lp(*u, *s)
    ref = highs(u, s, 0.0)
    if ref is None:
        assert value == -np.inf and min(s) > 0
    else:
        assert value == pytest.approx(ref, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda k: st.tuples(
            st.lists(FLOATS, min_size=k, max_size=k), st.lists(FLOATS, min_size=k, max_size=k)
        )
    ),
    FLOATS,
)
@example(us=([0.0], [0.5 + 1e-9]), tau=0.5)  # (HiGHS: feasible within its tolerance; exactly: infeasible)
def test_opb_closed_form_lp_is_highs_optimum_with_two_arms_at_most(us, tau):
    """OPB's LP (37) with one constraint is solved exactly (the closed form of Lemma 40), never by a general
    solver: the value is HiGHS', the policy feasible and mixes at most two arms. Where every arm's cost is
    above ``tau`` by less than HiGHS's feasibility tolerance (1e-7), HiGHS calls the LP feasible and the
    exact closed form does not."""
    ur, uc = np.array(us[0]), np.array(us[1])
    probs = np.zeros(ur.shape[0])
    value = lp_closed_form(ur, ur, uc[:, None], tau, probs)
    ref = highs(ur, uc, tau)
    if value == -np.inf:
        assert uc.min() > tau and (ref is None or uc.min() - tau <= 1e-7 * max(1.0, abs(tau)))
        return
    assert ref is not None
    assert value == pytest.approx(ref, abs=1e-9) and value == pytest.approx(probs @ ur, abs=1e-9)
    assert probs.min() >= 0 and probs.sum() == pytest.approx(1.0) and probs @ uc <= tau + 1e-9
    assert np.count_nonzero(probs) <= 2


def learner_after(seed, k, d, m, known, rounds):
    """An OPLB learner on a random declared problem after ``rounds`` rounds (ask / tell)."""
    rng = np.random.default_rng(seed)
    arms = rng.normal(size=(k, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    arms[0] *= 0.3
    theta, mu = rng.normal(size=d) / (2 * math.sqrt(d)), rng.normal(size=(m, d)) / (2 * math.sqrt(d))
    tau = mu @ arms[0] + rng.uniform(0.05, 0.4, m)
    kw = {"arms": arms, "threshold": tau, "safe_arm": 0, "feedback": {"kind": "gaussian", "sigma": 0.1},
          "horizon": 1000, "action_set": "star"}  # fmt: skip
    if known:
        kw.update(safe_reward=float(theta @ arms[0]), safe_cost=mu @ arms[0])
    inst = LinearProblem(**kw).simulate(reward_param=theta, cost_params=mu).instance("stagewise")
    learner = make_learner("oplb", inst.public_info(), np.random.default_rng(seed + 1), {"solver": "search"})
    env = inst.environment(np.random.default_rng(seed + 2))
    for _ in range(rounds):
        decision = learner.ask()
        learner.tell(decision, env.play(decision))
    learner.ask()  # (fills the round's cross Gram matrices)
    return learner


@settings(max_examples=12, deadline=None)
@given(
    st.integers(0, 10**6), st.integers(3, 7), st.integers(2, 4), st.integers(1, 2), st.booleans(),
    st.sampled_from([0, 40, 200]),
)  # fmt: skip
def test_pair_bound_is_above_every_feasible_policy_of_the_pair(seed, k, d, m, known, rounds):
    """On a dense grid of the simplex over ``{x0, a_i, a_k}``, every pessimistically feasible policy's
    optimistic value (eqs. 31-32 from the table's parts) is at most the pair's bound."""
    learner = learner_after(seed, k, d, m, known, rounds)
    est, tbl = learner.estimator.state, learner._tbl
    kr, kc = confidence_radii(est)
    shared = bool(est.const.shared)
    gram, zgram = learner._gram, learner._zgram
    tau = est.tau
    ucb = tbl.rx + kr * np.sqrt(np.maximum(tbl.sxx, 0.0))
    g = np.linspace(0.0, 1.0, 41)
    s, t = (a.ravel() for a in np.meshgrid(g, g))
    keep = s + t <= 1.0 + 1e-12
    pi = np.stack([1.0 - s[keep] - t[keep], s[keep], t[keep]], axis=1)
    checked = 0
    geo = PairGeometry(tbl, gram, zgram, True, kr, kc, est.c0, tau, np.zeros(tau.shape[0]))
    for i in range(1, tbl.sxx.shape[0]):
        for j in range(i + 1, tbl.sxx.shape[0]):
            rows = [0, i, j]
            sig = np.array(
                [[gram[a, b] if a and b else (tbl.sxx[0] if a == b == 0 else tbl.s0x[a or b]) for b in rows]
                 for a in rows]
            )  # fmt: skip
            zg = sig if shared else np.array([[zgram[a, b] if a and b else 0.0 for b in rows] for a in rows])
            value = pi @ tbl.rx[rows] + kr * np.sqrt(np.maximum(np.einsum("pi,ij,pj->p", pi, sig, pi), 0.0))
            cost = (
                pi @ tbl.lin[rows]
                + kc * np.sqrt(np.maximum(np.einsum("pi,ij,pj->p", pi, zg, pi), 0.0))[:, None]
            )
            feasible = np.all(cost <= tau + 1e-12, axis=1)
            if not feasible.any():
                continue
            bound = pair_bound(i, j, ucb, float(ucb[0]), geo, shared)
            assert value[feasible].max() <= bound + 1e-9 * (1 + abs(bound))
            checked += 1
    event(f"pairs checked > 0: {checked > 0}")  # (x0 may be pessimistically infeasible early on)


def test_oplb_runs_equal_the_archived_quick_store(tmp_path):
    """The pruning changes no policy: OPLB's quick-scale runs (oplb-random) equal the archived store's
    (written before the bounds) in every result column -- to the last bits on the machine that wrote it,
    to 1e-12 relative elsewhere (the BLAS of another CPU moves the regret sums' last bits; a changed
    policy moves them by far more)."""
    from safebandits.experiments.runner import run_tasks
    from safebandits.experiments.spec import expand, get_experiment
    from safebandits.experiments.store import ResultsStore
    from tests.unit.experiments.test_store_cpu import store_before_cpu

    old = store_before_cpu(tmp_path / "archive")
    tasks = expand(get_experiment("oplb-random"), "quick")
    with ResultsStore(tmp_path / "new", mode="w") as store:
        assert run_tasks(tasks, store, workers=1, quiet=True).n_ok == len(tasks)
        new = store.to_frame().set_index("pk")
    with ResultsStore(old) as store:
        ref = store.to_frame().set_index("pk").loc[new.index]
    cols = ["samples", "regret", "policy_regret", "reward", "cost", "violations",
            "policy_violations", "regret_tenth", "tail_cost", "tail_reward", "positive_cost"]  # fmt: skip
    assert len(new) == 2
    for col in cols:
        assert np.allclose(new[col].astype(float), ref[col].astype(float), rtol=1e-12, atol=0), col
    # (the archive holds the raw max_policy_cost; runs now store it minus the threshold, issue 40)
    from tests.unit.experiments.test_store_cpu import archived_max_policy_cost

    for task in tasks:
        got = archived_max_policy_cost(task, float(new.at[task.pk, "max_policy_cost_over_threshold"]))
        assert np.isclose(got, float(ref.at[task.pk, "max_policy_cost"]), rtol=1e-12, atol=1e-15), task.pk
