"""Stage-wise constrained instances: oracle values (the digest's table), feedback, validation."""

import numpy as np
import pytest

import safebandits as sb
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.noise import BernoulliNoise, make_noise
from safebandits.problems.stagewise import StagewiseInstance, policy_mean_points, solve_policy_lp
from safebandits.types import Decision

# (d, tau) -> optimal value and its cost, spec stagewise.md section 4 (E1, code instance).
E1_TABLE = {
    (3, 0.2): (0.400, 0.2),
    (3, 0.5): (0.800, 0.4),
    (3, 0.8): (0.800, 0.4),
    (5, 0.2): (0.3333, 0.2),
    (5, 0.5): (0.8333, 0.5),
    (5, 0.8): (0.8333, 0.5),
    (10, 0.2): (0.3063, 0.2),
    (10, 0.5): (0.7656, 0.5),
    (10, 0.8): (0.8596, 0.5614),
}


@pytest.mark.parametrize(("d", "tau"), sorted(E1_TABLE))
def test_cyclic_optimum_matches_digest_table(d, tau):
    inst = sb.make_instance("stagewise/cyclic", d=d, tau=tau)
    value, cost = E1_TABLE[(d, tau)]
    assert inst.optimal_value == pytest.approx(value, abs=5e-4)
    assert inst.optimal_cost[0] == pytest.approx(cost, abs=5e-4)
    # Mixing along rays from x0 = 0 is linear: the best policy is no better than the best action.
    assert inst.optimal_policy_value == pytest.approx(inst.optimal_value, abs=1e-7)


def test_cyclic_arm_values_match_digest():
    inst = sb.make_instance("stagewise/cyclic", d=10, tau=0.5)
    np.testing.assert_allclose(
        inst.arm_rewards, [0.421, 0.579, 0.702, 0.789, 0.842, 0.860, 0.842, 0.789, 0.702, 0.579], atol=1e-3
    )
    np.testing.assert_allclose(
        inst.arm_costs[:, 0], [1, 0.842, 0.719, 0.632, 0.579, 0.561, 0.579, 0.632, 0.719, 0.842], atol=1e-3
    )


def test_literal_cyclic_variant():
    inst = sb.make_instance("stagewise/cyclic", d=10, tau=0.8, variant="literal")
    assert inst.optimal_value == pytest.approx(1.0)
    assert inst.optimal_cost[0] == pytest.approx(0.421, abs=1e-3)
    inst = sb.make_instance("stagewise/cyclic", d=10, tau=0.2, variant="literal")
    assert inst.optimal_value == pytest.approx(0.475, abs=1e-3)


@pytest.mark.parametrize("tau", [0.2, 0.5, 0.6, 0.8])
def test_four_arm_optimum_is_arm_four(tau):
    inst = sb.make_instance("stagewise/four-arm", tau=tau)
    assert inst.optimal_value == pytest.approx(0.7)
    assert inst.optimal_policy_value == pytest.approx(0.7)
    assert inst.optimal_policy_cost[0] == pytest.approx(0.2)
    assert inst.safe_arm == 0


def test_policy_lp_against_enumeration():
    rng = np.random.default_rng(3)
    for _ in range(50):
        k = 6
        r, c = rng.uniform(size=k), rng.uniform(size=(k, 1))
        c[0] = 0.0
        tau = np.array([rng.uniform(0.05, 0.9)])
        value, pi = solve_policy_lp(r, c, tau)
        assert pi @ c[:, 0] <= tau[0] + 1e-9
        best = max(r[i] for i in range(k) if c[i, 0] <= tau[0])
        for i in range(k):
            for j in range(k):
                if c[i, 0] <= tau[0] < c[j, 0]:
                    w = (tau[0] - c[i, 0]) / (c[j, 0] - c[i, 0])
                    best = max(best, (1 - w) * r[i] + w * r[j])
        assert value == pytest.approx(best, abs=1e-7)


def test_random_instances_are_valid_and_reproducible():
    a = sb.make_instance("stagewise/ball", np.random.default_rng(7), d=5)
    b = sb.make_instance("stagewise/ball", np.random.default_rng(7), d=5)
    np.testing.assert_array_equal(a.arms, b.arms)
    assert a.arms.shape == (100, 5)
    assert 0 < a.threshold[0] < 1
    m = sb.make_instance("stagewise/random-mab", np.random.default_rng(1), K=20, tau=0.2)
    assert m.arms.shape == (20, 20) and m.safe_reward == 0 and m.safe_cost[0] == 0
    lin = sb.make_instance("stagewise/random-linear", np.random.default_rng(2), n_constraints=3)
    assert lin.n_constraints == 3 and np.all(lin.safe_cost < lin.threshold)


def test_environment_means_and_stream():
    inst = sb.make_instance("stagewise/cyclic", d=5, tau=0.5, sigma=0.1)
    env = inst.environment(np.random.default_rng(0))
    x = 0.5 * inst.arms[2]
    obs = np.array([[o.reward, *o.constraints] for o in (env.play(Decision(point=x)) for _ in range(4000))])
    np.testing.assert_allclose(obs.mean(axis=0), [x @ inst.reward_param, x @ inst.cost_params[0]], atol=0.01)
    # The ask / tell path and take_variates read the same stream.
    e1, e2 = inst.environment(np.random.default_rng(9)), inst.environment(np.random.default_rng(9))
    ys = [e1.play(Decision(arm=1)).reward for _ in range(5000)]
    z = e2.take_variates(5000)
    np.testing.assert_allclose(ys, inst.arm_rewards[1] + 0.1 * z[:, 0])


def test_bernoulli_environment():
    inst = sb.make_instance("stagewise/four-arm", tau=0.5)
    env = inst.environment(np.random.default_rng(0))
    obs = np.array([[o.reward, o.constraints[0]] for o in (env.play(Decision(arm=3)) for _ in range(20000))])
    assert set(np.unique(obs)) <= {0.0, 1.0}
    np.testing.assert_allclose(obs.mean(axis=0), [0.7, 0.2], atol=0.015)
    with pytest.raises(ConfigError, match="Bernoulli"):
        BernoulliNoise().check_means(np.array([1.5]))


def test_policy_mean_points_puts_remaining_mass_on_x0():
    arms = np.eye(3)
    x0 = np.array([0.5, 0.0, 0.0])
    m = policy_mean_points(np.array([[0.0, 0.25, 0.25]]), arms, x0, None)
    np.testing.assert_allclose(m[0], [0.25, 0.25, 0.25])


def test_validation():
    kw = dict(
        arms=np.eye(2), safe_action=np.zeros(2), reward_param=np.ones(2) / 2, cost_params=np.ones((1, 2)) / 2,
        threshold=np.array([0.5]), noise=make_noise("gaussian", 0.1),
    )  # fmt: skip
    StagewiseInstance(**kw)
    with pytest.raises(InfeasibleInstanceError, match="safe action"):
        StagewiseInstance(**{**kw, "safe_action": np.ones(2)})
    with pytest.raises(ConfigError, match="action_set"):
        StagewiseInstance(**{**kw, "action_set": "ball"})
    with pytest.raises(ConfigError, match="reward_param"):
        StagewiseInstance(**{**kw, "reward_param": np.ones(3)})
    with pytest.raises(ConfigError, match="arms"):
        StagewiseInstance(**{**kw, "arms": np.array([[np.nan, 0.0]])})
    with pytest.raises(ConfigError):
        sb.make_instance("stagewise/cyclic", d=5, tau=-0.1)
    env = StagewiseInstance(**kw).environment(np.random.default_rng(0))
    with pytest.raises(ConfigError, match="point"):
        env.play(Decision(point=np.ones(3)))


# --------------------------------------------------------------------------------------------------
# StagewiseInfo: checked once, when built; shared read-only by every learner of an instance
# --------------------------------------------------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from safebandits.problems.stagewise import StagewiseInfo, checked_stagewise_info  # noqa: E402


def _info_fields(**over):
    fields = dict(
        arms=np.eye(3), safe_action=np.zeros(3), threshold=np.array([0.5]), safe_reward=0.0,
        safe_cost=np.array([0.0]), action_set="star", horizon=100, noise_bound=0.1, param_norm_bound=1.0,
        arm_norm_bound=1.0, safe_arm=None, noise_kind="gaussian",
    )  # fmt: skip
    fields.update(over)
    return fields


def test_public_info_is_built_once_and_read_only():
    inst = sb.make_instance("stagewise/cyclic", d=3, tau=0.5)
    info = inst.public_info()
    assert inst.public_info() is info  # (an instance is frozen: one view, shared)
    for name in ("arms", "safe_action", "threshold", "safe_cost"):
        arr = getattr(info, name)
        assert not arr.flags.writeable, name
        assert not np.shares_memory(arr, getattr(inst, name) if name != "safe_cost" else inst.cost_params)
    with pytest.raises(ValueError, match="read-only"):
        info.arms[0, 0] = 9.0
    np.testing.assert_array_equal(info.arms, inst.arms)


def test_info_copies_writable_arrays_given():
    arms = np.eye(3)
    info = StagewiseInfo(**_info_fields(arms=arms))
    arms[0, 0] = 7.0  # the caller's array changes; the record does not
    assert info.arms[0, 0] == 1.0 and not info.arms.flags.writeable


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"arms": np.zeros((0, 3))}, "arms"),
        ({"arms": np.ones(3)}, "arms"),
        ({"safe_action": np.zeros(2)}, "safe_action"),
        ({"threshold": np.array([[0.5]])}, "threshold"),
        ({"safe_cost": np.array([0.0, 0.0])}, "safe_cost"),
        ({"safe_cost": np.array([0.7])}, "c0 < tau"),
        ({"safe_reward": float("nan")}, "safe_reward"),
        ({"action_set": "ball"}, "action_set"),
        ({"safe_arm": 3}, "safe_arm"),
        ({"safe_arm": 1.5}, "safe_arm"),
        ({"horizon": 0}, "horizon"),
        ({"noise_bound": 0.0}, "noise_bound"),
        ({"arm_norm_bound": -1.0}, "arm_norm_bound"),
        ({"param_norm_bound": -1.0}, "param_norm_bound"),
    ],
)
def test_info_refuses_each_bad_field(over, match):
    with pytest.raises(ConfigError, match=match):
        StagewiseInfo(**_info_fields(**over))


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(1, 4),
    n=st.integers(1, 5),
    m=st.integers(1, 3),
    known=st.booleans(),
    horizon=st.integers(1, 10_000),
    bound=st.floats(1e-3, 10.0),
)
def test_duck_typed_info_is_checked_into_the_same_record(d, n, m, known, horizon, bound):
    """Any object with the fields is checked by building a StagewiseInfo: equal fields, the learner's
    choice on it the same as on the record."""
    import types

    rng = np.random.default_rng(d * 100 + n * 10 + m)
    fields = _info_fields(
        arms=rng.normal(size=(n, d)), safe_action=np.zeros(d), threshold=rng.uniform(0.1, 1.0, size=m),
        safe_reward=0.0 if known else None, safe_cost=np.zeros(m) if known else None, horizon=horizon,
        noise_bound=bound,
    )  # fmt: skip
    record = StagewiseInfo(**fields)
    duck = checked_stagewise_info(types.SimpleNamespace(**fields))
    assert type(duck) is StagewiseInfo and checked_stagewise_info(record) is record
    for name in fields:
        a, b = getattr(duck, name), getattr(record, name)
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b, name
    if known:
        rec_learner = sb.make_learner("lc-lucb", record, np.random.default_rng(0))
        duck_learner = sb.make_learner("lc-lucb", types.SimpleNamespace(**fields), np.random.default_rng(0))
        a, b = rec_learner.ask(), duck_learner.ask()
        np.testing.assert_array_equal(a.point, b.point)
        assert a.arm == b.arm


def test_duck_typed_info_missing_a_field_is_refused():
    import types

    fields = _info_fields()
    del fields["arms"]
    with pytest.raises(ConfigError, match="'arms' parameter of StagewiseInfo"):
        sb.make_learner("lc-lucb", types.SimpleNamespace(**fields), np.random.default_rng(0))


def test_an_instance_derived_by_replace_computes_its_own_truth_and_view():
    """``dataclasses.replace`` (a sweep over thresholds, say) gives an instance whose cached optimum and
    public view are its own: the cache is not an init field, so it is never copied."""
    import dataclasses

    inst = sb.make_instance("stagewise/cyclic", d=3, tau=0.5, T=50)
    value, info = inst.optimal_value, inst.public_info()
    tighter = dataclasses.replace(inst, threshold=np.array([0.2]))
    assert tighter.public_info() is not info
    np.testing.assert_array_equal(tighter.public_info().threshold, [0.2])
    assert tighter.optimal_value == pytest.approx(E1_TABLE[(3, 0.2)][0], abs=5e-4) != value
    assert inst.public_info() is info and inst.optimal_value == value  # (the original is untouched)
    assert inst.with_horizon(7).public_info().horizon == 7


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 12),
    d=st.integers(1, 40),
    width=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    offset=st.booleans(),
)
def test_row_means_are_the_played_means_bit_for_bit_and_cached_by_value(n, d, width, seed, offset):
    from safebandits.problems.stagewise import LinearFeedbackEnvironment, row_means

    rng = np.random.default_rng(seed)
    # (an array that starts 8 bytes into its buffer as well: row_means must not depend on alignment)
    base = rng.standard_normal(n * d + 1)
    arms = base[1:] if offset else base[:-1]
    arms = arms.reshape(n, d)
    params = np.ascontiguousarray(rng.standard_normal((d, width)) * rng.choice([1e-8, 1.0, 1e8]))
    env = LinearFeedbackEnvironment(arms, params[:, 0], params[:, 1:].T, make_noise("gaussian", 0.0),
                                    np.random.default_rng(0))  # fmt: skip
    got = row_means(arms, env.params)
    want = np.array([env.arms[k] @ env.params for k in range(n)])
    assert got.shape == (n, width) and not got.flags.writeable
    assert got.tobytes() == want.tobytes()
    played = [env.play(Decision(arm=k)) for k in range(n)]  # (sigma = 0: the observation is the mean)
    assert [o.reward for o in played] == got[:, 0].tolist()
    assert row_means(arms.copy(), env.params.copy()) is got  # (by value, not by identity)
    other = params.copy()
    other[0, 0] += 1.0
    assert row_means(arms, other) is not got
