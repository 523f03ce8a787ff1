"""The one observation check (safebandits.algorithms._observation) and its use by BaseLearner.tell."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.algorithms._observation import (
    ObservationSpec,
    check_observation,
    noise_values,
    register_observation_spec,
    spec_for_info,
)
from safebandits.algorithms.registry import get_algorithm
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.problems.noise import BernoulliNoise
from safebandits.types import BatchObservation, Decision, Observation

ONE = Decision(arm=0)
FAST = settings(max_examples=60, deadline=None)


def _batch(counts):
    return Decision(counts=np.asarray(counts, dtype=np.int64))


# -- single observations --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reward", [0.5, 1, np.float32(0.5), np.float64(-2.0), np.int64(3), np.array(0.25), -0.0]
)
def test_numbers_of_any_numeric_type_accepted(reward):
    check_observation(ONE, Observation(reward, np.array([0.1])), ObservationSpec(True, 1))
    check_observation(ONE, Observation(reward, [0.1]), ObservationSpec(True, 1))
    check_observation(ONE, Observation(reward, (np.int32(1),)), ObservationSpec(True, 1))


@pytest.mark.parametrize("reward", ["0.5", True, np.bool_(True), [0.5], 1 + 2j, object()])
def test_non_numbers_refused_with_type_error(reward):
    with pytest.raises(TypeError, match="real number"):
        check_observation(ONE, Observation(reward, np.array([0.1])), ObservationSpec(True, 1))


@pytest.mark.parametrize(
    ("obs", "error", "match"),
    [
        (Observation(np.nan, np.array([0.1])), ConfigError, "finite"),
        (Observation(0.1, np.array([np.inf])), ConfigError, "finite"),
        (Observation(None, np.array([0.1])), ConfigError, "observes a reward"),
        (Observation(0.1, None), ConfigError, "1 constraint value"),
        (Observation(0.1, np.array([0.1, 0.2])), ConfigError, r"shape \(1,\)"),
        (Observation(0.1, np.array([[0.1]])), ConfigError, r"shape \(1,\)"),
        (Observation(0.1, 0.1), TypeError, "array of numbers"),
        (Observation(0.1, np.array(["0.1"])), TypeError, "real numbers"),
        (Observation(0.1, np.array([True])), TypeError, "real numbers"),
        (Observation(0.1, ["0.1"]), TypeError, "real numbers"),
        (BatchObservation(np.array([1])), ProtocolError, "one pull"),
        (0.1, TypeError, "expects a safebandits.types.Observation"),
        ({"reward": 0.1}, TypeError, "Observation"),
    ],
)
def test_single_refusals(obs, error, match):
    with pytest.raises(error, match=match):
        check_observation(ONE, obs, ObservationSpec(True, 1), "Learner")


def test_no_reward_and_no_constraints():
    cbai = ObservationSpec(False, 1)
    check_observation(ONE, Observation(None, np.array([0.3])), cbai)
    with pytest.raises(ConfigError, match="observes no reward"):
        check_observation(ONE, Observation(0.3, np.array([0.3])), cbai)
    loss_only = ObservationSpec(True, 0)
    for cons in (None, np.zeros(0), []):
        check_observation(ONE, Observation(-0.3, cons), loss_only)
    with pytest.raises(ConfigError, match=r"shape \(0,\)"):
        check_observation(ONE, Observation(-0.3, np.array([1.0])), loss_only)


@FAST
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_discrete_single_values(y):
    obs = Observation(None, np.array([y]))
    for values, allowed in (("binary", (-1.0, 1.0)), ("bernoulli", (0.0, 1.0))):
        spec = ObservationSpec(False, 1, values)
        if y in allowed:
            check_observation(ONE, obs, spec)
        else:
            with pytest.raises(ConfigError, match="feedback"):
                check_observation(ONE, obs, spec)
    bounded = ObservationSpec(False, 1, "bounded", (-0.5, 2.0))
    if -0.5 <= y <= 2.0:
        check_observation(ONE, obs, bounded)
    else:
        with pytest.raises(ConfigError, match=r"in \[-0.5, 2\]"):
            check_observation(ONE, obs, bounded)


# -- batches ----------------------------------------------------------------------------------------
@FAST
@given(st.data())
def test_batch_sums_possible_under_the_model_accepted_others_refused(data):
    counts = np.array(data.draw(st.lists(st.integers(0, 30), min_size=1, max_size=5)), dtype=np.int64)
    ones = np.array([data.draw(st.integers(0, int(c))) for c in counts], dtype=np.float64)
    decision = _batch(counts)
    bern = BatchObservation(counts.copy(), constraint_sums=ones[:, None])
    binary = BatchObservation(counts.copy(), constraint_sums=(2 * ones - counts)[:, None])
    check_observation(decision, bern, ObservationSpec(False, 1, "bernoulli"))
    check_observation(decision, binary, ObservationSpec(False, 1, "binary"))
    check_observation(
        decision,
        binary._replace(constraint_sums=binary.constraint_sums[:, 0]),
        ObservationSpec(False, 1, "binary"),
    )  # (k,) is accepted for m = 1
    i = data.draw(st.integers(0, counts.size - 1))
    wrong_parity = binary.constraint_sums.copy()
    wrong_parity[i, 0] += data.draw(st.sampled_from([1.0, -1.0, 0.5]))
    with pytest.raises(ConfigError, match=r"sums of \+-1 values"):
        check_observation(
            decision, binary._replace(constraint_sums=wrong_parity), ObservationSpec(False, 1, "binary")
        )
    too_many = bern.constraint_sums.copy()
    too_many[i, 0] = counts[i] + data.draw(st.sampled_from([1.0, 0.5])) if data.draw(st.booleans()) else -1.0
    with pytest.raises(ConfigError, match="sums of 0 / 1 values"):
        check_observation(
            decision, bern._replace(constraint_sums=too_many), ObservationSpec(False, 1, "bernoulli")
        )


def test_batch_refusals():
    decision = _batch([2, 0, 3])
    spec = ObservationSpec(True, 2)
    good = BatchObservation(
        np.array([2, 0, 3]),
        constraint_sums=np.ones((3, 2)) * [[1], [0], [1]],
        reward_sums=np.array([0.4, 0.0, -1.0]),
    )
    check_observation(decision, good, spec)
    check_observation(decision, good._replace(counts=[2, 0, 3]), spec)
    cases = [
        (good._replace(counts=np.array([2, 1, 3])), ConfigError, "counts it asked for"),
        (good._replace(counts=np.array([2, 0, 3, 0])), ConfigError, "counts it asked for"),
        (good._replace(counts=np.array([2.0, 0.0, 3.0])), TypeError, "integers"),
        (good._replace(counts=None), ConfigError, "no counts"),
        (good._replace(reward_sums=None), ConfigError, "observes rewards"),
        (good._replace(reward_sums=np.array([0.4, 0.0])), ConfigError, r"shape \(3,\)"),
        (good._replace(reward_sums=np.array([0.4, 0.1, -1.0])), ConfigError, "pulled 0 times"),
        (good._replace(constraint_sums=np.ones((3, 1))), ConfigError, r"shape \(3, 2\)"),
        (good._replace(constraint_sums=np.full((3, 2), np.nan)), ConfigError, "finite"),
        (good._replace(constraint_sums=np.full((3, 2), "1")), TypeError, "real numbers"),
        (Observation(0.1, np.zeros(2)), ProtocolError, "batch"),
        ([1, 2], TypeError, "BatchObservation"),
    ]
    for obs, error, match in cases:
        with pytest.raises(error, match=match):
            check_observation(decision, obs, spec, "Learner")
    with pytest.raises(ConfigError, match="observes no reward"):
        check_observation(decision, good, ObservationSpec(False, 2))


def test_spec_validation_and_lookup():
    with pytest.raises(ConfigError, match="bounds"):
        ObservationSpec(True, 1, "bounded")
    with pytest.raises(ConfigError, match="bounds"):
        ObservationSpec(True, 1, "real", (0.0, 1.0))
    with pytest.raises(ConfigError, match="values"):
        ObservationSpec(True, 1, "poisson")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=">= 0"):
        ObservationSpec(True, -1)
    assert noise_values("gaussian(sigma=1)") == "real" and noise_values("binary") == "binary"
    assert noise_values(BernoulliNoise()) == "bernoulli"
    assert spec_for_info(object()) is None

    class MyInfo:
        pass

    class OwnSpec:
        observation_spec = ObservationSpec(False, 3, "bernoulli")

    register_observation_spec(MyInfo, lambda info: ObservationSpec(True, 2))
    assert spec_for_info(MyInfo()) == ObservationSpec(True, 2)
    assert spec_for_info(OwnSpec()).n_constraints == 3


def test_instances_declare_their_feedback_model():
    four = sb.make_instance("stagewise/four-arm", tau=0.5, T=50).public_info()
    assert spec_for_info(four) == ObservationSpec(True, 1, "bernoulli")
    binary = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=4).public_info()
    assert spec_for_info(binary) == ObservationSpec(False, 1, "binary")


# -- through BaseLearner.tell (the reports) --------------------------------------------------
def _gacol():
    inst = sb.make_instance("acol/one-dimensional", n_arms=4)
    entry = get_algorithm("g-acol")
    return entry.cls(entry.config(), inst.public_info(), np.random.default_rng(0)), inst


@pytest.mark.parametrize(
    "constraints", [[np.nan], np.array([np.inf]), ["0.5"], np.array(["0.5"]), [True], None, 0.5, [0.1, 0.2]]
)
def test_gacol_refuses_bad_values_and_keeps_its_state(constraints):
    # G-ACOL told one NaN never stopped; told the string "0.5" it stopped on an infeasible arm (issue 16)
    learner, inst = _gacol()
    env = inst.environment(np.random.default_rng(0))
    d = learner.ask()
    with pytest.raises((ConfigError, TypeError), match="GACOL"):
        learner.tell(d, Observation(None, constraints))
    assert learner.n_samples == 0 and learner._pending is d
    learner.tell(d, env.play(d))  # the same pending decision, now answered validly
    assert learner.n_samples == 1


def test_refused_batch_is_not_counted_twice():
    inst = sb.make_instance("acol/one-dimensional", n_arms=4)
    entry = get_algorithm("acol")
    learner = entry.cls(entry.config(), inst.public_info(), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(0))
    d = learner.ask()
    obs = env.play(d)
    with pytest.raises(ConfigError, match="counts it asked for"):
        learner.tell(d, obs._replace(counts=obs.counts + 1))
    learner.tell(d, obs)
    assert learner.n_samples == int(d.counts.sum())


# -- the fast path of tell (issue 19) ---------------------------------------------------------------
_VALUES = st.sampled_from([0.0, 1.0, -1.0, 0.5, np.nan, np.inf, -np.inf, 2.0])
_SPECS = st.builds(
    ObservationSpec, st.booleans(), st.integers(0, 3), st.sampled_from(["real", "binary", "bernoulli"])
)
_CONSTRAINTS = st.one_of(
    st.none(),
    st.lists(_VALUES, max_size=4).map(lambda v: np.array(v, dtype=np.float64)),
    st.lists(_VALUES, max_size=4).map(lambda v: np.array(v, dtype=np.float32)),
    st.lists(_VALUES, min_size=2, max_size=8).map(lambda v: np.array(v)[::2]),  # not contiguous
    st.lists(_VALUES, max_size=3),
)


@FAST
@given(_SPECS, st.one_of(st.none(), _VALUES, st.just(True), st.just("0.5")), _CONSTRAINTS)
def test_fast_check_accepts_only_what_the_full_check_accepts(spec, reward, constraints):
    from safebandits.algorithms._observation import admissible_single

    obs = Observation(reward, constraints)
    if admissible_single(obs, spec):
        check_observation(ONE, obs, spec)  # must not raise


def test_fast_check_covers_the_environments_observations():
    from safebandits.algorithms._observation import admissible_single

    assert admissible_single(Observation(0.3, np.array([0.1, -2.0])), ObservationSpec(True, 2))
    assert admissible_single(Observation(0.3, np.zeros(0)), ObservationSpec(True, 0))
    assert admissible_single(Observation(None, np.array([1.0])), ObservationSpec(False, 1, "binary"))
    assert not admissible_single(Observation(0.3, np.array([np.nan])), ObservationSpec(True, 1))
    assert not admissible_single(Observation(0.5, np.array([1.0])), ObservationSpec(True, 1, "bernoulli"))
    assert not admissible_single(Observation(0.3, np.array([0.1])), None)


def test_bound_kernels_are_reused_for_arguments_of_the_same_types():
    import numba

    from safebandits._numba import bind_kernel, type_key

    @numba.njit
    def total(a, b):
        return a.sum() + b

    x = np.arange(4.0)
    k1 = bind_kernel(total, (x, 1.0))
    assert bind_kernel(total, (np.zeros(4), 2.0)) is k1
    assert k1(x, 1.0) == 7.0
    # another layout, dtype, writability or scalar type is another signature
    ro = np.zeros(4)
    ro.setflags(write=False)
    for args in ((x[::2], 1.0), (x.astype(np.float32), 1.0), (ro, 1.0), (x, 1)):
        assert type_key(args) != type_key((x, 1.0))
        assert bind_kernel(total, args) is not k1
    assert bind_kernel(total, (x[::2], 1.0))(x[::2], 1.0) == 2.0 + 1.0
    assert type_key((object(),)) is None
