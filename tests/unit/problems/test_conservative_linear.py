"""The conservative contextual linear setting's declaration, view, contexts and learners' boundary (issue
44): valid declarations round-trip through plain values (the TOML ``[problem]`` table), bad values raise
one ConfigError naming the parameter, the view never carries the truth, and the margins with a baseline
policy are the baseline's per-round means'."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms.compatibility import compatible_learners
from safebandits.algorithms.registry import make_learner
from safebandits.exceptions import CannotStartError, ConfigError
from safebandits.problems.conservative import ConservativeConstraint, conservative_margins
from safebandits.problems.conservative_linear import ConservativeContext, ConservativeLinearInfo
from safebandits.problems.declare import ConservativeLinearProblem
from safebandits.problems.settings import problem_from_dict


@st.composite
def declarations(draw):
    d = draw(st.integers(1, 8))
    k = draw(st.integers(2, 12))
    scorer = draw(st.booleans())
    return dict(
        dim=d,
        n_actions=k,
        alpha=draw(st.floats(0.0, 1.0)),
        baseline_action=draw(st.integers(0, k - 1)),
        baseline_param=draw(st.lists(st.floats(-5, 5), min_size=d, max_size=d)) if scorer else None,
        known_baseline=draw(st.booleans()),
        checkpoint=draw(st.integers(1, 50)),
        baseline_floor=draw(st.floats(0.0, 5.0)),
        horizon=draw(st.integers(1, 10_000)),
        param_bound=draw(st.floats(0.01, 10.0)),
    )


@settings(max_examples=60, deadline=None)
@given(declarations())
def test_declarations_round_trip_and_the_view_hides_the_truth(decl):
    p = ConservativeLinearProblem(**decl)
    assert problem_from_dict(p.to_dict()) == p
    view = p.view("conservative-linear")
    assert isinstance(view, ConservativeLinearInfo)
    assert (view.dim, view.n_actions, view.alpha) == (decl["dim"], decl["n_actions"], decl["alpha"])
    assert not hasattr(view, "theta")


BAD = [
    ("alpha", 1.5),
    ("alpha", -0.1),
    ("n_actions", 1),
    ("dim", 0),
    ("baseline_action", 7),
    ("baseline_action", -1),
    ("baseline_param", [1.0, 2.0]),
    ("checkpoint", 0),
    ("param_bound", 0.0),
    ("known_baseline", "yes"),
    ("baseline_floor", -0.1),
    ("baseline_floor", float("inf")),
    ("feedback", "bernoulli"),
]


@pytest.mark.parametrize(("field", "value"), BAD)
def test_bad_values_name_the_parameter(field, value):
    decl = dict(dim=3, n_actions=5, alpha=0.1)
    decl[field] = value
    with pytest.raises(ConfigError, match=field):
        ConservativeLinearProblem(**decl)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30),
    st.floats(0.0, 1.0),
    st.integers(0, 2**31),
)
def test_margins_follow_the_baseline_policy_round_by_round(played, alpha, seed):
    base = np.random.default_rng(seed).random(len(played))
    margins = conservative_margins(np.array(played), ConservativeConstraint(alpha), baseline=base)
    expected = np.cumsum(np.array(played) - (1.0 - alpha) * base)
    np.testing.assert_allclose(margins, expected, rtol=1e-12, atol=1e-12)


def test_truth_outside_the_declared_bound_is_reported():
    p = ConservativeLinearProblem(dim=2, n_actions=3, alpha=0.1, param_bound=1.0)
    assert p.truth_violations({"theta": [1.0, 1.0]}) == ["||theta|| = 1.41421 exceeds param_bound = 1"]
    with pytest.raises(ConfigError, match="non-negative"):
        p.simulate(theta=[-0.1, 0.2])


def test_contexts_are_checked():
    with pytest.raises(ConfigError, match="baseline"):
        ConservativeContext(arms=np.zeros((3, 2)), baseline=3)
    with pytest.raises(ConfigError, match="arms"):
        ConservativeContext(arms=np.full((3, 2), np.nan), baseline=0)


def test_learners_fit_and_clucb_needs_known_baseline_rewards():
    known = ConservativeLinearProblem(dim=2, n_actions=3, alpha=0.1)
    assert {c.name for c in compatible_learners(known)} >= {"clucb", "linucb"}
    with pytest.raises(CannotStartError, match="baseline"):
        make_learner("clucb", ConservativeLinearProblem(dim=2, n_actions=3, alpha=0.1, known_baseline=False),
                     np.random.default_rng(0))  # fmt: skip
    learner = make_learner("clucb", known, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="context"):
        learner.ask()
    with pytest.raises(ConfigError, match="columns"):
        learner.ask(ConservativeContext(arms=np.zeros((3, 5)), baseline=0, baseline_reward=0.0))
    with pytest.raises(ConfigError, match="baseline_reward"):
        learner.ask(ConservativeContext(arms=np.zeros((3, 2)), baseline=0))


def test_a_fixed_action_sets_floor_is_bounded_by_the_baseline_rows_mean():
    # the same context every round: the baseline plays one row, so r_l may be that row's mean (issue 44;
    # before, the smallest mean of every row bounded it)
    from safebandits.problems.conservative_linear import ConservativeLinearInstance
    from safebandits.problems.noise import GaussianNoise

    arms, theta = np.array([[1.0, 0.0], [0.1, 0.0], [2.0, 0.0]]), np.array([1.0, 0.5])
    kw = {"theta": theta, "arms": arms, "n_actions": 3, "alpha": 0.1, "noise": GaussianNoise(sigma=1.0)}
    inst = ConservativeLinearInstance(baseline_action=0, baseline_floor=1.0, **kw)
    assert inst.public_info().baseline_floor == 1.0
    with pytest.raises(ConfigError, match="baseline's row 0"):
        ConservativeLinearInstance(baseline_action=0, baseline_floor=1.01, **kw)
    ConservativeLinearInstance(baseline_param=np.array([1.0, 0.0]), baseline_floor=2.0, **kw)  # row 2


# -- the compiled runner's rounds (issue 44, performance): the same bits as the ask / tell contexts --------
def _instance(scorer, fixed=False, known=True, low=0.0):
    from safebandits.problems.conservative_linear import ConservativeLinearInstance

    theta = np.array([0.5, 0.8, 0.2, 0.9])
    arms = np.random.default_rng(9).random((6, 4)) if fixed else None
    return ConservativeLinearInstance(
        theta=theta, n_actions=6, alpha=0.05, baseline_action=2, baseline_param=scorer, known_baseline=known,
        feature_low=low, arms=arms, horizon=1000,
    )  # fmt: skip


SCORERS = {
    "none": None,
    "scorer": np.array([0.8, 0.8, 0.2, 0.9]),
    "ties": np.zeros(4),  # (every row ties: numpy's products decide every round)
    "near-ties": np.array([1.0, 1.0, 1.0, 1.0]) * 2.0**-40,
}


@pytest.mark.parametrize("fixed", [False, True])
@pytest.mark.parametrize("scorer", list(SCORERS))
@settings(max_examples=15, deadline=None)
@given(splits=st.lists(st.integers(1, 300), min_size=1, max_size=6), known=st.booleans())
def test_next_rounds_are_the_contexts_of_ask_tell(fixed, scorer, splits, known):
    """Rounds taken in any blocks (across the environment's batches of draws) hold, bit for bit, what
    ``context()`` shows round by round: features, means, baseline rows and told rewards, noise variates."""
    inst = _instance(SCORERS[scorer], fixed=fixed, known=known, low=0.3 if known and not fixed else 0.0)
    env, ref = inst.environment(np.random.default_rng(4)), inst.environment(np.random.default_rng(4))
    for n in splits:
        r = env.next_rounds(n)
        for i in range(n):
            ctx = ref.context()
            j = 0 if fixed else i
            assert np.array_equal(r.arms[j], ctx.arms) and np.array_equal(r.means[j], ref._means)
            assert r.baselines[i] == ctx.baseline and r.variates[i] == ref._z
            assert r.baseline_rewards[i] == (ctx.baseline_reward if known else 0.0)
    assert env.rng.random() == ref.rng.random()  # (the generators at the same place)


def _scan_rows(scores, slack):
    """The one-scan rule :func:`greedy_rows` replaced (leader and runner-up kept by branches)."""
    rows = np.empty(scores.shape[0], dtype=np.int64)
    for i, v in enumerate(scores):
        best, top, second = 0, v[0], -np.inf
        for a in range(1, v.shape[0]):
            if v[a] > top:
                best, top, second = a, v[a], top
            elif v[a] > second:
                second = v[a]
        rows[i] = best if top - second > slack else -1
    return rows


_SPECIAL = st.sampled_from([0.0, -0.0, 1.0, -1.0, 1e-300, np.inf, -np.inf, np.nan, 0.5, 0.5 + 2**-53])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_SPECIAL, min_size=4, max_size=4), min_size=1, max_size=40),
       st.sampled_from([0.0, 1e-12, 0.6]))  # fmt: skip
def test_greedy_rows_branch_free_passes_decide_as_the_scan(rows, slack):
    """:func:`greedy_rows`' three passes (no branch on the scores) decide every row as the one scan
    keeping the leader and the runner-up: ties, signed zeros, infinities and NaN included."""
    from safebandits.problems.conservative_linear import greedy_rows

    scores = np.array(rows, dtype=float)
    out = np.empty(scores.shape[0], dtype=np.int64)
    greedy_rows(scores, slack, out)
    with np.errstate(invalid="ignore"):  # (inf - inf)
        assert np.array_equal(out, _scan_rows(scores, slack))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(2, 9), st.integers(0, 2**31), st.sampled_from([1.0, 1e-300, 1e300]))
def test_greedy_rows_are_numpys_or_left_to_it(d, k, seed, scale):
    """A row :func:`greedy_rows` decides is numpy's argmax of its own products; ties are left (-1)."""
    from safebandits.problems.conservative_linear import (
        ConservativeLinearInstance,
        _round_buffers,
        greedy_rows,
    )

    rng = np.random.default_rng(seed)
    x = rng.random((50, k, d))
    x[:5] = x[:5, :1]  # (five contexts of identical rows: ties)
    x[5:10, 1] = np.nextafter(x[5:10, 0], 2.0)  # (near ties)
    p = rng.standard_normal(d) * scale
    inst = ConservativeLinearInstance(theta=np.ones(d), n_actions=k, alpha=0.1, baseline_param=p)
    rows = np.empty(50, dtype=np.int64)
    greedy_rows(np.matmul(x.reshape(-1, d), p).reshape(50, k), _round_buffers(inst, 1).slack, rows)
    numpy_rows = np.argmax(x @ p, axis=1)
    sure = rows >= 0
    assert np.array_equal(rows[sure], numpy_rows[sure])
    assert not sure[:5].any()
    assert sure[10:].mean() > 0.9 or scale != 1.0
