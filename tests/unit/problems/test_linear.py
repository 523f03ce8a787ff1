import numpy as np
import pytest

from safebandits import make_instance
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems import BinaryNoise, GaussianNoise, LinearCBAIInstance


def small():
    arms = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
    return LinearCBAIInstance(
        arms=arms,
        reward_param=[1.0, 2.0],
        constraint_param=[1.0, 1.0],
        threshold=1.0,
        noise=GaussianNoise(0.1),
    )


def test_oracle_answers():
    inst = small()
    np.testing.assert_allclose(inst.rewards, [1, 2, 3, 1.5])
    np.testing.assert_allclose(inst.margins, [0, 0, 1, 0])
    np.testing.assert_array_equal(inst.feasible, [True, True, False, True])
    assert inst.optimal_arm == 1
    np.testing.assert_allclose(inst.gaps, [1, 0, -1, 0.5])
    np.testing.assert_array_equal(inst.competing_arms, [1, 2])
    assert inst.is_correct(1) and not inst.is_correct(2) and not inst.is_correct(None)
    assert inst.is_feasible(0) and not inst.is_feasible(2)


def test_learned_threshold_keeps_answers():
    inst = small()
    aug = inst.with_learned_threshold()
    assert aug.dim == 3 and aug.threshold == 0.0
    np.testing.assert_allclose(aug.margins, inst.margins)
    assert aug.optimal_arm == inst.optimal_arm


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"arms": [[1.0, np.nan]]}, "arms"),
        ({"arms": [1.0, 2.0]}, "arms"),
        ({"arms": np.zeros((0, 2))}, "arms"),
        ({"reward_param": [1.0]}, "reward_param"),
        ({"constraint_param": [1.0, np.inf]}, "constraint_param"),
        ({"threshold": np.nan}, "threshold"),
    ],
)
def test_validation(kwargs, match):
    base = dict(arms=[[1.0, 0.0]], reward_param=[1.0, 0.0], constraint_param=[0.0, 0.0], threshold=0.0)
    base.update(kwargs)
    with pytest.raises(ConfigError, match=match):
        LinearCBAIInstance(**base)


def test_no_feasible_arm():
    with pytest.raises(InfeasibleInstanceError, match="no feasible arm"):
        LinearCBAIInstance(arms=[[1.0]], reward_param=[1.0], constraint_param=[1.0], threshold=0.0)


def test_binary_noise_needs_bounded_values():
    with pytest.raises(ConfigError, match=r"\[-1, 1\]"):
        LinearCBAIInstance(
            arms=[[2.0]], reward_param=[1.0], constraint_param=[1.0], threshold=5.0, noise=BinaryNoise()
        )


def test_public_info_hides_constraint():
    info = small().public_info()
    assert not hasattr(info, "constraint_param")
    assert info.n_arms == 4 and info.dim == 2 and info.threshold == 1.0


def test_zoo_instances():
    inst = make_instance("acol/irrelevant-dimensions", d=10, epsilon=0.05)
    assert inst.n_arms == 11 and inst.optimal_arm == 9
    assert inst.min_abs_margin == pytest.approx(0.05)
    one = make_instance("acol/one-dimensional")
    assert one.optimal_arm == 1 and one.feasible.sum() == 2
    np.testing.assert_allclose(np.sort(np.abs(one.margins))[:2], [0.05, 0.05])
    rng = np.random.default_rng(0)
    sph = make_instance("acol/unit-sphere", rng=rng, n_arms=20, d=5)
    np.testing.assert_allclose(np.linalg.norm(sph.arms, axis=1), 1.0)
    # the closest pair straddles the boundary with margins +-||xi - xj||^2 / 2
    m = sph.margins
    assert np.any(np.isclose(m[:, None], -m[None, :]) & (m[:, None] > 0))
    with pytest.raises(ConfigError, match="random"):
        make_instance("acol/unit-sphere")
    with pytest.raises(ConfigError, match="no parameter"):
        make_instance("acol/one-dimensional", bogus=1)
    with pytest.raises(ConfigError, match="Unknown instance"):
        make_instance("nope")
