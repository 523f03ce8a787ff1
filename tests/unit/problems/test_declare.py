"""Problem declarations from public parts: validation, views and their simulated instances."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.problems.declare import (
    Feedback,
    FunctionClassProblemSpec,
    KernelProblem,
    LinearProblem,
    PoolProblem,
    info_kind,
)
from safebandits.problems.settings import problem_from_dict

ARMS = np.array([[0.3, 0.0], [0.9, 0.0], [0.0, 0.9], [0.6, 0.6], [-0.6, 0.6], [0.5, 0.3]])
THETA = np.array([0.6, 0.8])
M = np.array([[0.2, 0.0], [0.0, 1.0]])


def shared_problem(**kw):
    x0 = ARMS[0]
    values = dict(
        arms=ARMS,
        threshold=0.5,
        safe_arm=0,
        safe_reward=float(THETA @ x0),
        safe_cost=float(THETA @ M @ x0),
        cost_matrix=M,
        feedback={"kind": "gaussian", "sigma": 0.1},
        horizon=500,
    )
    values.update(kw)
    return LinearProblem(**values)


def test_one_declaration_serves_every_linear_setting():
    p = shared_problem()
    assert p.kinds == ("transductive", "safe-linear-arms", "stagewise", "k-armed", "kernel")
    assert [info_kind(p.view(k)) for k in p.kinds] == list(p.kinds)
    known = shared_problem(reward_param=THETA)
    assert "cbai" in known.kinds
    assert info_kind(known.view("cbai")) == "cbai"


def test_views_carry_the_declared_public_parts():
    p = shared_problem()
    sw = p.view("stagewise", horizon=123)
    assert sw.horizon == 123 and sw.safe_arm == 0 and sw.action_set == "points"
    np.testing.assert_allclose(sw.safe_action, ARMS[0])
    assert sw.safe_reward == pytest.approx(0.18) and sw.noise_bound == 0.1
    ka = p.view("k-armed")
    np.testing.assert_array_equal(ka.arms, np.eye(6))
    sl = p.view("safe-linear-arms")
    np.testing.assert_allclose(sl.b_mat, -M)
    assert sl.threshold == pytest.approx(0.5 - 0.036) and sl.safety_gap is None
    np.testing.assert_allclose(sl.decision_set.arms[0], 0.0)  # shifted: x0 is the origin
    kern = p.view("kernel")
    assert kern.safe_seed == (0,) and kern.slater == pytest.approx(0.464)
    np.testing.assert_allclose(kern.kernel, ARMS @ ARMS.T + 1.0)


def test_missing_parts_say_which_kind_cannot_be_served():
    p = LinearProblem(arms=ARMS, threshold=[0.5, 0.7])
    assert p.kinds == ()
    assert "reward_param" in p.why_not("cbai")
    assert "one threshold" in p.why_not("transductive")
    assert "safe arm" in p.why_not("stagewise")
    with pytest.raises(ConfigError, match="cannot be viewed as 'stagewise'"):
        p.view("stagewise")
    assert "unknown info kind" in p.why_not("nope")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"arms": [1.0, 2.0]}, "'arms' parameter of LinearProblem must be a 2-dimensional"),
        ({"arms": [[np.nan, 1.0]]}, "finite values"),
        ({"threshold": "high"}, "'threshold'"),
        ({"safe_arm": 9}, "'safe_arm'"),
        ({"safe_cost": 0.9}, "below every threshold"),
        ({"cost_matrix": np.eye(3)}, "'cost_matrix'"),
        ({"threshold": [0.5, 0.6], "safe_cost": [0.0, 0.0]}, "exactly one threshold"),
        ({"feedback": "poisson"}, "'kind' parameter of Feedback"),
        ({"feedback": {"kind": "gaussian", "sd": 1}}, "'feedback'"),
        ({"action_set": "ball"}, "'action_set'"),
        ({"horizon": 0}, "'horizon'"),
        ({"epsilon": -1}, "'epsilon'"),
    ],
)
def test_bad_declarations_raise_one_clear_error(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        shared_problem(**kwargs)


def test_simulated_instances_share_the_comparators():
    sim = shared_problem().simulate(reward_param=THETA)
    rewards = ARMS @ THETA
    safe = ARMS @ (M.T @ THETA) <= 0.5
    best = rewards[safe].max()
    r0 = float(THETA @ ARMS[0])
    sw, ka, ke, sl = (sim.instance(k) for k in ("stagewise", "k-armed", "kernel", "safe-linear-arms"))
    for inst in (sw, ka, ke):
        assert inst.optimal_value == pytest.approx(best)
        assert inst.optimal_policy_value == pytest.approx(sw.optimal_policy_value)
    assert sw.optimal_policy_value >= best - 1e-12
    # Safe-LUCB plays the problem shifted by x0: values shift by r0, regrets are the same.
    assert sl.optimal_value == pytest.approx(best - r0)
    assert sl.optimal_policy_value == pytest.approx(sw.optimal_policy_value - r0)
    # Learners see the declaration, never what the truth adds (Safe-LUCB's safety gap).
    assert sl.public_info().safety_gap is None
    told, view = sl.public_info(), shared_problem().view("safe-linear-arms")
    assert (told.threshold, told.noise_bound) == (view.threshold, view.noise_bound)


def test_truth_must_agree_with_the_declaration():
    with pytest.raises(ConfigError, match="needs the true reward_param"):
        shared_problem().simulate()
    with pytest.raises(ConfigError, match="differs from the truth"):
        shared_problem(safe_reward=0.5).simulate(reward_param=THETA)
    p = LinearProblem(arms=ARMS, threshold=0.1, safe_arm=3)
    with pytest.raises(ConfigError, match="not safe under this truth"):
        p.simulate(reward_param=THETA, cost_params=[[1.0, 1.0]])
    with pytest.raises(ConfigError, match="do not give cost_params"):
        shared_problem().simulate(reward_param=THETA, cost_params=[[1.0, 1.0]])


def test_kernel_problem_named_and_explicit_kernels():
    pts = np.linspace(0, 1, 6)[:, None]
    p = KernelProblem(
        points=pts,
        kernel={"name": "se", "lengthscale": 0.3},
        reward_bound=1,
        constraint_bound=1,
        slater=0.2,
        safe_seed=[0],
    )
    info = p.view("kernel", horizon=50)
    assert info.horizon == 50 and info.kernel.shape == (6, 6) and info.safe_seed == (0,)
    q = KernelProblem(kernel=info.kernel, reward_bound=1, constraint_bound=1, slater=0.2)
    np.testing.assert_allclose(q.view("kernel").kernel, info.kernel)
    g = np.linspace(-0.5, 0.5, 6)
    inst = p.simulate(reward=np.sin(3 * pts[:, 0]), constraint=g).instance("kernel")
    assert inst.optimal_value == pytest.approx(np.sin(3 * pts[:, 0])[g <= 0].max())
    with pytest.raises(ConfigError, match=r"'kernel\.name'"):
        KernelProblem(points=pts, kernel={"name": "rbf"}, reward_bound=1, constraint_bound=1, slater=0.2)
    with pytest.raises(ConfigError, match="safe seed point 5"):
        KernelProblem(
            kernel=info.kernel, reward_bound=1, constraint_bound=1, slater=0.2, safe_seed=[5]
        ).simulate(reward=np.zeros(6), constraint=g)


def test_function_class_and_pool_declarations():
    g_r = np.array([[0.1, 0.9, 0.5], [0.1, 0.2, 0.8]])
    g_c = np.array([[0.0, 0.9, 0.3], [0.0, 0.3, 0.9]])
    p = FunctionClassProblemSpec(
        reward_class=g_r, cost_class=g_c, threshold=0.5, safe_arm=0, safe_reward=0.1, safe_cost=0.0
    )
    assert info_kind(p.view("function-class")) == "function-class"
    inst = p.simulate(true_reward=0, true_cost=0).instance("function-class")
    assert inst.optimal_policy_value == pytest.approx(0.6333, abs=1e-4)
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "city": ["x", "y", "x", "z"], "y": [0, 1, 1, 0]})
    pool, labels = PoolProblem.from_frame(frame, q=0.2, label="y")
    assert pool.features.shape == (4, 4) and labels.tolist() == [0, 1, 1, 0]
    assert pool.view("pool").q == 0.2
    assert pool.simulate(eta=labels).instance("pool").describe()["n_points"] == 4
    with pytest.raises(ConfigError, match="column"):
        PoolProblem.from_frame(frame, q=0.2, label="nope")


def test_problem_from_dict_round_trips():
    p = shared_problem()
    again = problem_from_dict(p.to_dict())
    assert again.kinds == p.kinds
    np.testing.assert_allclose(again.view("stagewise").arms, p.view("stagewise").arms)
    with pytest.raises(ConfigError, match="'setting'"):
        problem_from_dict({"arms": [[1.0]]})
    with pytest.raises(ConfigError, match="no parameter"):
        problem_from_dict({"setting": "linear", "arms": [[1.0]], "threshold": 1, "colour": "red"})
    with pytest.raises(ConfigError, match="missing"):
        problem_from_dict({"setting": "linear", "arms": [[1.0]]})


def test_feedback_noise_bounds():
    assert Feedback("bernoulli").noise_bound == 0.5
    assert Feedback("binary").noise_bound == 1.0
    assert Feedback("subgaussian", 0.3).noise_bound == 0.3


_junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.lists(st.floats(-2, 2), max_size=4),
    st.lists(st.lists(st.floats(-2, 2), min_size=1, max_size=3), max_size=5),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_FIELDS = [f.name for f in dataclasses.fields(LinearProblem)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.dictionaries(st.sampled_from(_FIELDS), _junk, min_size=1, max_size=3))
def test_property_declarations_either_work_or_raise_config_error(changes):
    """Random values for any parameters: a ConfigError, or a problem whose every view builds."""
    try:
        p = shared_problem(**changes)
    except ConfigError:
        return
    for kind in p.kinds:
        p.view(kind)


def test_safe_linear_problem_on_a_convex_set():
    from safebandits.problems.declare import SafeLinearProblem

    square = {"kind": "polytope", "g_mat": [[1, 0], [-1, 0], [0, 1], [0, -1]], "h_vec": [1, 1, 1, 1]}
    p = SafeLinearProblem(decision_set=square, b_mat=np.eye(2), threshold=0.5, horizon=100)
    assert p.kinds == ("safe-linear",)
    info = p.view("safe-linear")
    assert info.arm_norm_bound == pytest.approx(np.sqrt(2)) and info.safety_gap is None
    inst = p.simulate(mu=[-0.6, -0.5]).instance("safe-linear")
    assert inst.optimal_policy_value == pytest.approx(inst.optimal_value)  # convex set: mixing adds nothing
    assert problem_from_dict(p.to_dict()).kinds == p.kinds
    with pytest.raises(ConfigError, match="'decision_set'"):
        SafeLinearProblem(decision_set={"kind": "ball", "centre": [0, 0]}, b_mat=np.eye(2), threshold=0.5)
    with pytest.raises(ConfigError, match="origin in its interior"):
        SafeLinearProblem(
            decision_set={"kind": "ball", "center": [2, 0], "radius": 1}, b_mat=np.eye(2), threshold=0.5
        )


@pytest.mark.parametrize(
    "kw", [{"param_norm_bound": 1e308}, {"param_norm_bound": 1e200, "arm_norm_bound": 1e200}]
)
def test_bounds_whose_product_overflows_are_refused_at_declaration(kw):
    """Found by the property above: a finite param_norm_bound whose product with the arms' norm and
    sqrt(K) overflows passed the declaration, and the k-armed view then failed naming a field of its own."""
    with pytest.raises(ConfigError, match="param_norm_bound x the arms' norm bound"):
        shared_problem(**kw)
