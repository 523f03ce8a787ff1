"""Continuous kernel domains: the box's validation (Hypothesis at the boundary), the truth in the RKHS,
the oracles of a box instance, its environment, and the declaration (``KernelProblem(domain=...)``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits._limits import MAX_BOX_DIMENSION
from safebandits.estimators.gp import PointKernel
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.declare import KernelProblem
from safebandits.problems.kernel import GaussianFeedback
from safebandits.problems.kernel_box import Box, BoxKernelInstance, RKHSFunction, box_kernel
from safebandits.problems.settings import problem_from_dict
from safebandits.types import Decision

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=80, deadline=None)
@given(lo=st.lists(finite, min_size=1, max_size=MAX_BOX_DIMENSION), data=st.data())
def test_valid_boxes_are_accepted(lo, data):
    widths = data.draw(st.lists(st.floats(1e-6, 1e6), min_size=len(lo), max_size=len(lo)))
    hi = [a + w for a, w in zip(lo, widths, strict=True)]
    if not all(a < b for a, b in zip(lo, hi, strict=True)):  # (w below the spacing of floats at a)
        return
    box = Box(lo, hi)
    assert box.dim == len(lo) and np.all(box.widths > 0)
    assert box.contains(box.centre) and box.contains(box.lower) and box.contains(box.upper)
    assert Box.coerce(box.to_dict()) == box and hash(Box.coerce(box.to_dict())) == hash(box)
    assert box != Box(box.lower, box.upper + 1.0)


@settings(max_examples=80, deadline=None)
@given(
    lo=st.lists(finite, min_size=1, max_size=5),
    data=st.data(),
)
def test_boxes_with_an_empty_or_reversed_side_are_refused(lo, data):
    j = data.draw(st.integers(0, len(lo) - 1))
    hi = [a + 1.0 for a in lo]
    hi[j] = lo[j] - data.draw(st.floats(0.0, 1e6))  # upper <= lower in dimension j
    with pytest.raises(ConfigError, match="lower bound must be below"):
        Box(lo, hi)


@settings(max_examples=40, deadline=None)
@given(bad=st.sampled_from([math.nan, math.inf, -math.inf]), j=st.integers(0, 2), which=st.booleans())
def test_non_finite_bounds_are_refused(bad, j, which):
    lo, hi = [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]
    (lo if which else hi)[j] = bad
    with pytest.raises(ConfigError):
        Box(lo, hi)


def test_dimension_shape_and_type_are_checked():
    with pytest.raises(ConfigError, match="between 1 and"):
        Box([0.0] * (MAX_BOX_DIMENSION + 1), [1.0] * (MAX_BOX_DIMENSION + 1))
    with pytest.raises(ConfigError):
        Box([], [])
    with pytest.raises(ConfigError, match="entries"):
        Box([0.0, 0.0], [1.0])
    with pytest.raises(ConfigError):
        Box(["0", "1"], [1.0, 2.0])
    with pytest.raises(ConfigError):
        Box([[0.0]], [[1.0]])
    with pytest.raises(ConfigError, match="exactly the keys"):
        Box.coerce({"lower": [0.0], "upper": [1.0], "step": 0.1})
    with pytest.raises(ConfigError):
        Box.coerce([0.0, 1.0])
    box = Box([0.0, -1.0], [1.0, 1.0])
    with pytest.raises(ConfigError, match="must lie in the box"):
        box.check_points([[0.5, 2.0]], "safe_seed", "test")
    np.testing.assert_array_equal(box.check_points([0.5, 0.0], "p", "test"), [[0.5, 0.0]])


def test_box_kernels_are_named_and_stationary():
    box = Box([0.0], [1.0])
    k = box_kernel({"name": "matern", "lengthscale": 0.3, "nu": 1.5}, box, "t")
    assert isinstance(k, PointKernel) and k.kind == "matern" and k.nu == 1.5
    for spec, match in (
        (np.eye(3), "named"),
        ({"name": "linear"}, "'se' or 'matern'"),
        ({"name": "se", "nu": 1.5}, "keys among"),
    ):
        with pytest.raises(ConfigError, match=match):
            box_kernel(spec, box, "t")


def test_rkhs_function_values_and_norm():
    kern = PointKernel(np.zeros((1, 1)), "se", lengthscale=0.2)
    h = RKHSFunction([[0.2], [0.7]], [1.0, -0.5], kern, offset=0.1)
    x = np.array([[0.2], [0.45]])
    want = kern.between(x, np.array([[0.2], [0.7]])) @ np.array([1.0, -0.5]) + 0.1
    np.testing.assert_allclose(h(x), want)
    gram = kern.between(np.array([[0.2], [0.7]]), np.array([[0.2], [0.7]]))
    assert h.rkhs_norm == pytest.approx(math.sqrt(np.array([1.0, -0.5]) @ gram @ np.array([1.0, -0.5])))
    with pytest.raises(ConfigError):
        RKHSFunction([[0.2, 0.1]], [1.0], kern)  # 2-D centres for a 1-D kernel
    with pytest.raises(ConfigError):
        RKHSFunction([[0.2]], [1.0, 2.0], kern)


def linear_instance(**kw):
    kern = PointKernel(np.zeros((1, 1)), "se", lengthscale=0.3)
    return BoxKernelInstance(
        reward=lambda x: x[:, 0], constraint=lambda x: x[:, 0] - 0.6, box=Box([0.0], [1.0]), kernel=kern,
        horizon=50, feedback=GaussianFeedback(0.1), **kw,
    )  # fmt: skip


def test_oracles_on_a_known_problem():
    inst = linear_instance(safe_seed=[[0.1]])
    assert inst.optimal_point[0] == pytest.approx(0.6, abs=1e-7)
    assert inst.optimal_value == pytest.approx(0.6, abs=1e-7)
    assert inst.optimal_policy_value == pytest.approx(0.6, abs=1e-6)  # (linear: no mixing helps)
    assert inst.slater_constant == pytest.approx(0.6)
    info = inst.public_info()
    assert info.box is inst.box and info.safe_seed == (0,) and info.n_points == 1
    np.testing.assert_allclose(info.points, [[0.1]])
    assert info.slater == pytest.approx(0.6)
    # a mixture beats every single point when g is concave: f = x, g = sqrt(x) - 1/2 has x* = 1/4 but
    # the policy on {0, 1} with mass 1/2 each has E g = 0 and E f = 1/2 (the best: x <= sqrt(x) on [0, 1])
    kern = PointKernel(np.zeros((1, 1)), "se", lengthscale=0.3)
    concave = BoxKernelInstance(
        reward=lambda x: x[:, 0], constraint=lambda x: np.sqrt(np.abs(x[:, 0])) - 0.5, box=Box([0.0], [1.0]),
        kernel=kern,
    )  # fmt: skip
    assert concave.optimal_value == pytest.approx(0.25, abs=1e-6)
    assert concave.optimal_policy_value == pytest.approx(0.5, abs=1e-3)


def test_instance_refusals():
    kern = PointKernel(np.zeros((1, 1)), "se")
    box = Box([0.0], [1.0])
    with pytest.raises(InfeasibleInstanceError):
        BoxKernelInstance(reward=lambda x: x[:, 0], constraint=lambda x: 1.0 + x[:, 0], box=box, kernel=kern)
    with pytest.raises(ConfigError, match="safe seed"):
        linear_instance(safe_seed=[[0.9]])  # g(0.9) = 0.3 > 0
    with pytest.raises(ConfigError, match="must lie in the box"):
        linear_instance(safe_seed=[[1.5]])
    with pytest.raises(ConfigError, match=r"\(m,\) values"):
        BoxKernelInstance(reward=lambda x: x, constraint=lambda x: x[:, 0] - 0.5, box=box, kernel=kern)


def test_environment_scores_the_played_point():
    inst = linear_instance()
    env = inst.environment(np.random.default_rng(0))
    np.testing.assert_allclose(env.point_of(Decision(point=np.array([0.3]))), [0.3, 0.3 - 0.6])
    obs = env.play(Decision(point=np.array([0.3])))
    assert obs.reward is not None and obs.constraints.shape == (1,)
    for bad in (Decision(arm=0), Decision(point=np.array([1.2])), Decision(point=np.array([0.1, 0.2]))):
        with pytest.raises(ConfigError):
            env.play(bad)
    # the tracker's view: (f, g) . (1, 0) is f, (f, g) . (0, 1) is g
    assert (
        inst.reward_param @ np.array([0.3, -0.3]) == 0.3 and inst.cost_params @ np.array([0.3, -0.3]) == -0.3
    )


BOX_PROBLEM = {
    "setting": "kernel",
    "domain": {"lower": [0.0, 0.0], "upper": [1.0, 1.0]},
    "kernel": {"name": "se", "lengthscale": 0.3},
    "reward_bound": 1.5,
    "constraint_bound": 1.5,
    "slater": 0.5,
    "safe_seed": [[0.1, 0.1]],
    "horizon": 40,
}
BOX_TRUTH = {
    "reward": {"centers": [[0.7, 0.6]], "weights": [0.9]},
    "constraint": {"centers": [[0.1, 0.1], [0.9, 0.9]], "weights": [-0.8, 0.9], "offset": -0.1},
}


def test_declared_box_problem_round_trips_and_simulates():
    p = problem_from_dict(BOX_PROBLEM)
    assert isinstance(p, KernelProblem) and p.n_points == 0 and p.kinds == ("kernel",)
    again = problem_from_dict(p.to_dict())
    assert again.to_dict() == p.to_dict()
    info = p.view("kernel")
    assert info.box.dim == 2 and info.safe_seed == (0,) and isinstance(info.kernel, PointKernel)
    inst = p.simulate(**BOX_TRUTH).instance("kernel")
    assert inst.optimal_value > 0 and inst.public_info().box.dim == 2
    # callables through the Python API
    inst2 = p.simulate(reward=lambda x: x[:, 0], constraint=lambda x: x[:, 1] - 0.5).instance("kernel")
    assert inst2.optimal_value == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"points": [[0.0, 0.0]]}, "either points"),
        ({"kernel": [[1.0]]}, "named"),
        ({"kernel": {"name": "linear"}}, "'se' or 'matern'"),
        ({"safe_seed": [[2.0, 0.0]]}, "must lie in the box"),
        ({"safe_seed": [0]}, "points of the 2-dimensional box"),
        ({"domain": {"lower": [0.0, 1.0], "upper": [1.0, 1.0]}}, "lower bound must be below"),
        ({"domain": {"lower": [0.0]}}, "exactly the keys"),
    ],
)
def test_declared_box_problem_refusals(change, match):
    with pytest.raises(ConfigError, match=match):
        problem_from_dict({**BOX_PROBLEM, **change})


def test_declared_box_truth_refusals():
    p = problem_from_dict(BOX_PROBLEM)
    with pytest.raises(ConfigError, match="is a function"):
        p.simulate(reward=[0.1, 0.2], constraint=BOX_TRUTH["constraint"])
    with pytest.raises(ConfigError, match="unknown keys"):
        p.simulate(reward={**BOX_TRUTH["reward"], "scale": 2}, constraint=BOX_TRUTH["constraint"])
    with pytest.raises(ConfigError, match="safe seed"):  # g(seed) > 0
        p.simulate(reward=BOX_TRUTH["reward"], constraint={"centers": [[0.1, 0.1]], "weights": [1.0]})


scalars = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10), st.text(max_size=3), st.booleans(),
    st.none(),
)  # fmt: skip
bounds = st.one_of(
    scalars, st.lists(scalars, max_size=4), st.lists(st.lists(scalars, max_size=2), max_size=2)
)


@settings(max_examples=200, deadline=None)
@given(
    domain=st.one_of(scalars, st.dictionaries(st.sampled_from(["lower", "upper", "x"]), bounds, max_size=3))
)
def test_any_domain_table_is_a_box_or_one_config_error(domain):
    """Whatever a file's ``domain`` holds, the declaration is a valid box or a ConfigError, never another
    exception."""
    try:
        p = problem_from_dict({**BOX_PROBLEM, "domain": domain, "safe_seed": []})
    except ConfigError:
        return
    box = p.domain
    assert isinstance(box, Box) and np.all(np.isfinite(box.lower)) and np.all(box.lower < box.upper)
    assert 1 <= box.dim <= MAX_BOX_DIMENSION
