"""ACOL, G-ACOL and the baselines of Lindner et al. (2022): set logic, selection rules, compiled loop."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from safebandits.algorithms import get_algorithm, make_learner
from safebandits.algorithms.pure_exploration import g_acol
from safebandits.algorithms.pure_exploration._cbai import CBAI_LIVE, CBAISets, CBAIState
from safebandits.algorithms.pure_exploration._g_acol_kernels import GACOL_LIVE, GACOLConstants, GACOLState
from safebandits.algorithms.pure_exploration.acol import ACOL, ACOLConfig
from safebandits.algorithms.pure_exploration.g_acol import (
    _SELECT_FROM,
    _SELECTIONS,
    GACOL,
    GACOLConfig,
    select_arm,
)
from safebandits.algorithms.pure_exploration.static_allocation import (
    StaticAllocation,
    StaticAllocationConfig,
    oracle_targets,
)
from safebandits.estimators.ridge import NUMERICS, ArmRidgeArrays
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.experiments.simulate import run
from safebandits.problems import make_instance
from safebandits.problems.linear import CBAIInfo, LinearCBAIInstance
from safebandits.problems.noise import BinaryNoise, GaussianNoise

DENSE = NUMERICS[:2]  # primal and Gram; the diagonal numerics needs axis-aligned arms
SEQUENTIAL = ["g-acol", "greedy-maxvar", "adaptive-uniform", "g-acol-uniform", "maxrew-u", "maxrew-f"]
ROUND_BASED = ["acol", "oracle", "g-allocation", "uniform"]


def info_of(instance, name):
    return instance.privileged_info() if get_algorithm(name).privileged else instance.public_info()


# --------------------------------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------------------------------
def test_registered_names_and_presets():
    expected = {
        "g-acol": ("lookahead", "uncertain"),
        "greedy-maxvar": ("lookahead", "all"),
        "adaptive-uniform": ("uniform", "all"),
        "g-acol-uniform": ("uniform", "uncertain"),
        "maxrew-u": ("max_reward", "uncertain"),
        "maxrew-f": ("max_reward", "feasible"),
    }
    for name, (selection, select_from) in expected.items():
        entry = get_algorithm(name)
        cfg = entry.config()
        assert entry.cls is GACOL and entry.task == "pure_exploration" and not entry.privileged
        assert (cfg.selection, cfg.select_from, cfg.width) == (selection, select_from, "theory")
        assert entry.config(width="tuned").tuned_width == 0.5
    assert get_algorithm("acol").cls is ACOL
    for name, allocation in [("oracle", "oracle"), ("g-allocation", "g-optimal"), ("uniform", "uniform")]:
        entry = get_algorithm(name)
        assert entry.cls is StaticAllocation and entry.config().allocation == allocation
        assert entry.privileged == (name == "oracle")


@pytest.mark.parametrize(
    ("cls", "field", "value"),
    [
        (GACOLConfig, "delta", 1.5),
        (GACOLConfig, "width", "loose"),
        (GACOLConfig, "tuned_width", 0.0),
        (GACOLConfig, "ridge", -1.0),
        (GACOLConfig, "refresh_every", -1),
        (GACOLConfig, "selection", "random"),
        (GACOLConfig, "select_from", "some"),
        (GACOLConfig, "numerics", "dual"),
        (GACOLConfig, "noise_bound", 0.0),
        (ACOLConfig, "epsilon", -0.1),
        (ACOLConfig, "round_length", "fast"),
        (ACOLConfig, "min_round_samples", 1.5),
        (ACOLConfig, "fw_tol", 0.0),
        (StaticAllocationConfig, "phase_base", 1.0),
        (StaticAllocationConfig, "allocation", "greedy"),
        (StaticAllocationConfig, "oracle_margins", "abs"),
    ],
)
def test_invalid_config_raises_config_error(cls, field, value):
    with pytest.raises(ConfigError, match=rf"The '{field}' parameter of {cls.__name__} must be .* Got"):
        cls(**{field: value})


# --------------------------------------------------------------------------------------------------
# CBAI sets against hand-made bounds
# --------------------------------------------------------------------------------------------------
def test_sets_certify_eliminate_and_prune_by_reward():
    rewards = np.array([0.0, 1.0, 2.0, 3.0, 1.0])
    s = CBAISets(rewards, threshold=1.0)
    # arm 0: certainly feasible (u = tau counts), arm 3: infeasible, arm 1 certified -> r = 1,
    # arm 4 (reward 1 = r) uncertain and kept (ties stay), arm 2 uncertain.
    s.update(np.array([-1.0, 0.0, 0.5, 1.01, 0.0]), np.array([1.0, 0.9, 1.5, 2.0, 1.2]))
    assert s.feasible.tolist() == [0, 1]
    assert s.best_arm == 1 and s.best_reward == 1.0
    assert s.uncertain.tolist() == [2, 4]
    assert not s.done and s.n_uncertain == 2
    assert s.recommend_arm() == 1
    # arm 2 certified feasible (reward 2): arm 4 now suboptimal; U empty
    s.update(np.array([0.0, 0.0, 0.0, 0.0, 0.0]), np.array([5.0, 5.0, 0.99, 5.0, 5.0]))
    assert s.done and s.best_arm == 2 and s.uncertain.tolist() == []
    assert s.feasible.tolist() == [0, 1, 2]


def test_sets_lower_equal_to_threshold_is_not_infeasible():
    s = CBAISets(np.array([1.0]), threshold=0.0)
    s.update(np.array([0.0]), np.array([0.5]))
    assert s.uncertain.tolist() == [0]
    s.update(np.array([1e-12]), np.array([0.5]))
    assert s.done and s.best_arm is None and s.feasible.tolist() == []


def test_sets_examine_only_uncertain_arms():
    s = CBAISets(np.array([5.0, 1.0]), threshold=0.0)
    s.update(np.array([1.0, -1.0]), np.array([2.0, 1.0]))  # arm 0 infeasible
    s.update(np.array([-2.0, -1.0]), np.array([-1.0, 1.0]))  # arm 0 is out of U: not certified
    assert s.feasible.tolist() == [] and s.uncertain.tolist() == [1]


def test_sets_anytime_falls_back_to_lowest_upper_bound_of_uncertain_arms():
    s = CBAISets(np.array([1.0, 2.0, 3.0]), threshold=0.0)
    assert s.recommend_arm() is None
    s.update(np.array([-1.0, -1.0, 0.1]), np.array([0.3, 0.2, 0.15]))  # arm 2 infeasible, lowest u
    assert s.lowest_ucb_arm == 2 and s.recommend_arm() == 2
    s.update(np.array([-1.0, -1.0, -1.0]), np.array([0.25, 0.1, -5.0]))  # arm 2 no longer in U
    assert s.lowest_ucb_arm == 1 and s.best_arm is None


def test_sets_ties_between_certified_arms_go_to_lowest_index():
    s = CBAISets(np.array([1.0, 1.0, 0.5]), threshold=0.0)
    s.update(np.array([-1.0, -1.0, -1.0]), np.array([-0.1, -0.1, 1.0]))
    assert s.best_arm == 0 and s.done


def test_sets_reject_wrong_shapes():
    with pytest.raises(ConfigError, match="shape"):
        CBAISets(np.ones(3), 0.0).update(np.ones(2), np.ones(3))


# --------------------------------------------------------------------------------------------------
# selection rules against hand-made states
# --------------------------------------------------------------------------------------------------
def select(
    arms, a_inv, in_u, *, selection, select_from, rewards=None, in_f=None, best_arm=-1, uniforms=(0.5,)
):
    arms = np.ascontiguousarray(arms, dtype=np.float64)
    n, d = arms.shape
    sq = np.einsum("ij,jk,ik->i", arms, a_inv, arms)
    rewards = np.zeros(n) if rewards is None else np.asarray(rewards, dtype=np.float64)
    in_f = np.zeros(n, dtype=np.bool_) if in_f is None else np.asarray(in_f, dtype=np.bool_)
    in_u = np.asarray(in_u, dtype=np.bool_)
    sets_live = np.zeros(1, dtype=CBAI_LIVE)
    sets_live[0] = (-np.inf, np.inf, best_arm, -1, in_u.sum())
    sets = CBAIState(rewards, 0.0, in_u, in_f, sets_live)
    gram = arms @ a_inv @ arms.T
    gram = 0.5 * (gram + gram.T)
    zeros_n = np.zeros(n)
    ridge = ArmRidgeArrays(
        arms, np.ascontiguousarray(arms.T), np.ascontiguousarray(a_inv), np.zeros(d), gram, sq, zeros_n,
        zeros_n, zeros_n, np.zeros(d), np.zeros(n),
    )  # fmt: skip
    picks = []
    for numerics in DENSE:  # the same pick from A^{-1} (primal) and from G = X A^{-1} X^T (Gram)
        const = GACOLConstants(
            delta=0.05, reg=1.0, noise_bound=1.0, arm_norm_bound=1.0, param_norm_bound=1.0, tuned=False,
            tuned_width=0.5, refresh_every=0, selection=_SELECTIONS.index(selection),
            select_from=_SELECT_FROM.index(select_from), numerics=NUMERICS.index(numerics),
        )  # fmt: skip
        live = np.zeros(1, dtype=GACOL_LIVE)
        st = GACOLState(
            ridge, sets, np.zeros(n), np.zeros(n), np.asarray(uniforms, dtype=np.float64), np.zeros(d),
            np.zeros(n), const, live, np.arange(n),
        )  # fmt: skip
        chosen = np.full(1, -1, dtype=np.int64)
        # (the arm into the block's ``chosen``; a block type of the library: a compiled kernel's cache must
        # not name a type of the tests)
        select_arm(g_acol.GACOLPlainBlock(st, chosen, False))
        arm = chosen[0]
        picks.append((int(arm), int(live["upos"][0])))
    assert picks[0] == picks[1]
    return picks[0]


@pytest.fixture
def state():
    rng = np.random.default_rng(7)
    arms = rng.standard_normal((8, 3))
    m = rng.standard_normal((3, 3))
    a_inv = np.linalg.inv(m @ m.T + 0.5 * np.eye(3))
    in_u = np.array([0, 1, 1, 0, 1, 0, 0, 1], dtype=bool)
    return arms, a_inv, in_u


def test_most_uncertain_picks_max_variance_arm_of_candidates(state):
    arms, a_inv, in_u = state
    sq = np.einsum("ij,jk,ik->i", arms, a_inv, arms)
    assert select(arms, a_inv, in_u, selection="most_uncertain", select_from="uncertain") == (
        int(np.flatnonzero(in_u)[np.argmax(sq[in_u])]),
        0,
    )
    assert select(arms, a_inv, in_u, selection="most_uncertain", select_from="all")[0] == int(np.argmax(sq))


@pytest.mark.parametrize("select_from", ["uncertain", "all"])
def test_lookahead_matches_brute_force(state, select_from):
    arms, a_inv, in_u = state
    sq = np.einsum("ij,jk,ik->i", arms, a_inv, arms)
    cand = np.flatnonzero(in_u) if select_from == "uncertain" else np.arange(len(arms))
    y = arms[cand[np.argmax(sq[cand])]]
    a = np.linalg.inv(a_inv)
    after = [y @ np.linalg.solve(a + np.outer(x, x), y) for x in arms]
    assert select(arms, a_inv, in_u, selection="lookahead", select_from=select_from) == (
        int(np.argmin(after)),
        0,
    )


def test_lookahead_prefers_informative_arm_outside_the_candidates():
    # U = {x_1 = e_1}; pulling e_1 itself reduces its variance most (look-ahead over all X).
    arms = np.array([[0.0, 1.0], [1.0, 0.0], [0.7, 0.7]])
    a_inv = np.diag([1.0, 1.0])
    arm, _ = select(arms, a_inv, [False, True, False], selection="lookahead", select_from="uncertain")
    assert arm == 1
    # with a huge variance along e_2, the target becomes x_0 but U excludes it
    arm, _ = select(
        arms, np.diag([1.0, 5.0]), [False, False, True], selection="lookahead", select_from="uncertain"
    )
    assert arm in (0, 2)


def test_max_reward_first_index_on_ties(state):
    arms, a_inv, in_u = state
    rewards = np.array([9.0, 1.0, 3.0, 9.0, 3.0, 0.0, 0.0, 2.0])
    assert select(arms, a_inv, in_u, selection="max_reward", select_from="uncertain", rewards=rewards) == (
        2,
        0,
    )
    assert select(arms, a_inv, in_u, selection="max_reward", select_from="all", rewards=rewards) == (0, 0)


@pytest.mark.parametrize(("u", "expected"), [(0.0, 1), (0.3, 2), (0.6, 4), (0.999, 7)])
def test_uniform_over_uncertain_uses_one_uniform(state, u, expected):
    arms, a_inv, in_u = state
    assert select(arms, a_inv, in_u, selection="uniform", select_from="uncertain", uniforms=[u]) == (
        expected,
        1,
    )


def test_uniform_over_all(state):
    arms, a_inv, in_u = state
    assert select(arms, a_inv, in_u, selection="uniform", select_from="all", uniforms=[0.99]) == (7, 1)
    assert select(arms, a_inv, in_u, selection="uniform", select_from="all", uniforms=[0.5]) == (4, 1)


def test_maxrew_f_explores_uniformly_until_feasible_arm_exists(state):
    arms, a_inv, in_u = state
    rewards = np.arange(8.0)
    kw = {"selection": "max_reward", "select_from": "feasible", "rewards": rewards}
    assert select(arms, a_inv, in_u, uniforms=[0.3], **kw) == (2, 1)
    in_f = np.array([1, 0, 0, 1, 0, 1, 0, 0], dtype=bool)
    assert select(arms, a_inv, in_u, in_f=in_f, best_arm=5, uniforms=[0.3], **kw) == (5, 0)


# --------------------------------------------------------------------------------------------------
# compiled loop == ask / tell
# --------------------------------------------------------------------------------------------------
def run_pair(name, instance, budget, config=None, seed=0):
    learners, envs, outs = [], [], []
    for compiled in (False, True):
        learner = make_learner(name, info_of(instance, name), np.random.default_rng(seed + 1), config)
        env = instance.environment(np.random.default_rng(seed + 2))
        outs.append(run(learner, env, instance, budget=budget, compiled=compiled))
        learners.append(learner)
        envs.append(env)
    return learners, envs, outs


def assert_same_state(a, b):
    assert a.n_samples == b.n_samples and a.done == b.done
    assert a.recommend(anytime=True).arm == b.recommend(anytime=True).arm
    assert a.numerics == b.numerics
    np.testing.assert_array_equal(a.ridge.counts, b.ridge.counts)
    np.testing.assert_array_equal(a.ridge.theta_hat, b.ridge.theta_hat)
    np.testing.assert_array_equal(a.ridge.gram, b.ridge.gram)
    np.testing.assert_array_equal(a.ridge.sq_widths, b.ridge.sq_widths)
    np.testing.assert_array_equal(a.ridge.preds, b.ridge.preds)
    np.testing.assert_array_equal(a.sets.in_uncertain, b.sets.in_uncertain)
    np.testing.assert_array_equal(a.sets.in_feasible, b.sets.in_feasible)
    # The ask / tell path selects the next arm at the end of each tell (one kernel call per
    # sample); giving that pending choice back makes the uniform counters comparable.
    for learner in (a, b):
        learner._drop_prefetch()
    np.testing.assert_array_equal(a.state.live, b.state.live)


@pytest.mark.parametrize("name", SEQUENTIAL)
@pytest.mark.parametrize("width", ["theory", "tuned"])
@pytest.mark.parametrize("noise", [GaussianNoise(0.5), BinaryNoise()])
@pytest.mark.parametrize("numerics", DENSE)
def test_compiled_equals_ask_tell(name, width, noise, numerics):
    inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(3), n_arms=7, d=4).with_noise(noise)
    config = {"width": width, "refresh_every": 97, "numerics": numerics}
    (a, b), (env_a, env_b), (out_a, out_b) = run_pair(name, inst, 3000, config)
    assert a.numerics == numerics
    assert_same_state(a, b)
    assert (out_a.samples, out_a.recommended, out_a.stopped) == (
        out_b.samples,
        out_b.recommended,
        out_b.stopped,
    )
    assert env_a.n_samples == env_b.n_samples == out_a.samples


@pytest.mark.parametrize("name", ["adaptive-uniform", "maxrew-f"])
@pytest.mark.parametrize("numerics", DENSE)
def test_compiled_equals_ask_tell_across_uniform_refills(name, numerics, monkeypatch):
    # small buffers, so that the run crosses several refills of both
    monkeypatch.setattr(g_acol, "UNIFORM_BLOCK", 1000)
    monkeypatch.setattr(g_acol, "VARIATE_BLOCK", 1500)
    inst = make_instance("acol/irrelevant-dimensions", d=3, epsilon=0.05, sigma=1.0)
    (a, b), _, _ = run_pair(name, inst, 3 * 1000 + 5, {"numerics": numerics, "refresh_every": 200})
    assert a.n_samples == 3 * 1000 + 5
    assert_same_state(a, b)


@pytest.mark.parametrize("numerics", DENSE)
def test_mixed_paths_continue_the_same_trajectory(numerics):
    inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(4), n_arms=9, d=5)
    (a, _), _, _ = run_pair("g-acol-uniform", inst, 2500, {"numerics": numerics})
    b = make_learner("g-acol-uniform", inst.public_info(), np.random.default_rng(1), {"numerics": numerics})
    env = inst.environment(np.random.default_rng(2))
    run(b, env, inst, budget=37, compiled=True)
    assert b.n_samples == 37 and env.n_samples == 37
    run(b, env, inst, budget=400, compiled=False)
    run(b, env, inst, budget=2500, compiled=True)
    assert_same_state(a, b)


SKIPPING = ["adaptive-uniform", "g-acol-uniform", "maxrew-u", "maxrew-f"]


@pytest.mark.parametrize("name", SKIPPING)
@pytest.mark.parametrize("numerics", DENSE)
@pytest.mark.parametrize("noise", [GaussianNoise(0.05), BinaryNoise()])
def test_certified_skip_reproduces_the_sample_by_sample_run(name, numerics, noise):
    # A skip takes a whole stretch of samples when no arm can leave U meanwhile; the run must end in
    # exactly the state of the loop that takes every sample (counts, sums, refreshed widths, sets).
    skipped = 0
    for seed in range(3):
        inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(seed), n_arms=8, d=4)
        inst = inst.with_noise(noise)
        learners = []
        for skip in (False, True):
            config = {"numerics": numerics, "certified_skip": skip, "refresh_every": 100}
            learner = make_learner(name, inst.public_info(), np.random.default_rng(seed + 1), config)
            run(learner, inst.environment(np.random.default_rng(seed + 2)), inst, budget=400_000)
            learners.append(learner)
        plain, fast = learners
        assert plain.skipped_samples == 0
        assert_same_state(plain, fast)
        skipped += fast.skipped_samples
    if isinstance(noise, GaussianNoise):
        assert skipped > 0  # the equality above covers runs with skips


@pytest.mark.parametrize("name", ["adaptive-uniform", "g-acol-uniform", "maxrew-u"])
def test_certified_skip_takes_most_samples_of_a_long_run(name):
    # long runs end with few arms in U, where the per-arm bounds of the skip decide; the end state must
    # still be the sample-by-sample run's
    for seed in (3, 5):
        inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(seed), n_arms=20, d=10, sigma=0.05)
        learners = []
        for skip in (False, True):
            config = {"certified_skip": skip}
            learner = make_learner(name, inst.public_info(), np.random.default_rng(1), config)
            out = run(learner, inst.environment(np.random.default_rng(2)), inst, budget=10**8)
            assert out.stopped and out.correct
            learners.append(learner)
        plain, fast = learners
        assert_same_state(plain, fast)
        np.testing.assert_array_equal(plain.ridge.sums, fast.ridge.sums)
        if name == "adaptive-uniform":
            assert fast.n_samples > 10**6
        assert fast.skipped_samples > 0.9 * fast.n_samples


@pytest.mark.parametrize(("d", "epsilon"), [(6, 0.05), (12, 0.02)])
@pytest.mark.parametrize("refresh_every", [100, 1000])
def test_certified_skip_of_greedy_maxvar_on_a_diagonal_design(d, epsilon, refresh_every):
    # Greedy Max Var pulls the widest arm of X; on axis-aligned arms a tournament tree replays its pulls
    # inside a skip. The end state must equal the sample-by-sample run's, bit for bit.
    inst = make_instance("acol/irrelevant-dimensions", d=d, epsilon=epsilon, sigma=0.05)
    learners = []
    for skip in (False, True):
        config = {"certified_skip": skip, "refresh_every": refresh_every}
        learner = make_learner("greedy-maxvar", inst.public_info(), np.random.default_rng(1), config)
        out = run(learner, inst.environment(np.random.default_rng(2)), inst, budget=10**8)
        assert out.stopped and out.correct and learner.numerics == "diagonal"
        learners.append(learner)
    plain, fast = learners
    assert_same_state(plain, fast)
    np.testing.assert_array_equal(plain.ridge.sums, fast.ridge.sums)
    assert plain.skipped_samples == 0 and fast.skipped_samples > 0.9 * fast.n_samples


def test_certified_skip_needs_refreshes_and_a_fixed_rule():
    inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(3), n_arms=20, d=10, sigma=0.05)
    cases = [("adaptive-uniform", {"refresh_every": 0}), ("adaptive-uniform", {"certified_skip": False})]
    cases += [("g-acol", {}), ("greedy-maxvar", {})]
    for name, config in cases:
        learner = make_learner(name, inst.public_info(), np.random.default_rng(1), config)
        run(learner, inst.environment(np.random.default_rng(2)), inst, budget=50_000)
        assert learner.skipped_samples == 0 and learner.n_samples == 50_000


def test_greedy_maxvar_pulls_the_most_uncertain_arm():
    # Over all arms the look-ahead's pick is the target itself (Cauchy-Schwarz), checked on the
    # explicit look-ahead values along a run.
    inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(5), n_arms=12, d=6)
    learner = make_learner("greedy-maxvar", inst.public_info(), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(1))
    for _ in range(300):
        decision = learner.ask()
        a_inv = learner.ridge.a_inv
        arms = inst.public_info().arms
        sq = np.einsum("ij,jk,ik->i", arms, a_inv, arms)
        y = decision.arm  # the most uncertain arm (up to rounding: initial widths tie exactly)
        assert sq[y] >= sq.max() * (1.0 - 1e-9)
        g = arms @ a_inv @ arms[y]
        look = sq[y] - g**2 / (1.0 + sq)
        assert look[y] <= look.min() + 1e-9 * sq[y]
        learner.tell(decision, env.play(decision))


@pytest.mark.parametrize(
    ("instance", "kwargs"),
    [
        ("acol/unit-sphere", {"n_arms": 7, "d": 4}),
        ("acol/unit-sphere", {"n_arms": 11, "d": 10}),
        ("acol/irrelevant-dimensions", {"d": 5, "epsilon": 0.1}),
    ],
)
@pytest.mark.parametrize("name", ["g-acol", "greedy-maxvar", "g-acol-uniform", "maxrew-u"])
def test_numerics_take_the_same_decisions(instance, kwargs, name):
    # The two numerics agree up to rounding, so only (near-)exact ties could be broken differently. The
    # initial widths on the unit sphere are such ties; the Gram state starts from the primal widths bit
    # for bit, and on these instances and seeds no later tie flips: same samples, counts and answer.
    for seed in range(3):
        if instance == "acol/unit-sphere":
            inst = make_instance(instance, rng=np.random.default_rng(seed), **kwargs)
        else:
            inst = make_instance(instance, **kwargs)
        outs = []
        axis = instance == "acol/irrelevant-dimensions"
        for numerics in NUMERICS if axis else DENSE:
            learner = make_learner(
                name, inst.public_info(), np.random.default_rng(seed + 1), {"numerics": numerics}
            )
            out = run(learner, inst.environment(np.random.default_rng(seed + 2)), inst, budget=10**6)
            assert out.stopped and learner.numerics == numerics
            outs.append((out.samples, out.recommended, learner.ridge.counts.tolist()))
        assert all(o == outs[0] for o in outs)


def test_numerics_auto_rule():
    small = make_instance("acol/unit-sphere", rng=np.random.default_rng(0), n_arms=11, d=10)
    wide = make_instance("acol/unit-sphere", rng=np.random.default_rng(0), n_arms=100, d=30)
    mid = make_instance("acol/unit-sphere", rng=np.random.default_rng(0), n_arms=75, d=30)
    cases = [(small, "g-acol", "gram"), (wide, "g-acol", "primal"), (mid, "g-acol", "gram")]
    cases += [(mid, "adaptive-uniform", "primal")]  # no look-ahead: the Gram mode saves less
    cases += [(mid, "greedy-maxvar", "primal")]  # its look-ahead is never computed
    axis = make_instance("acol/irrelevant-dimensions", d=30, epsilon=0.05)
    cases += [(axis, name, "diagonal") for name in ("g-acol", "greedy-maxvar", "adaptive-uniform")]
    for inst, name, expected in cases:
        learner = make_learner(name, inst.public_info(), np.random.default_rng(0))
        assert learner.numerics == expected
        assert (learner.ridge.gram.shape[0] > 0) == (expected == "gram")
        assert learner.ridge.a_inv_state.shape[0] == {"primal": 30, "gram": 0, "diagonal": 2}[expected]
    with pytest.raises(ConfigError, match="numerics"):
        make_learner("g-acol", wide.public_info(), np.random.default_rng(0), {"numerics": "diagonal"})


@pytest.mark.parametrize("name", SEQUENTIAL)
@pytest.mark.parametrize("sigma", [0.3, 1.0])
def test_diagonal_numerics_compiled_equals_ask_tell(name, sigma):
    inst = make_instance("acol/irrelevant-dimensions", d=6, epsilon=0.2, sigma=sigma)
    (a, b), _, (out_a, out_b) = run_pair(name, inst, 30_000, {"refresh_every": 97})
    assert a.numerics == "diagonal"
    assert_same_state(a, b)
    assert (out_a.samples, out_a.recommended) == (out_b.samples, out_b.recommended)


def test_simulate_refuses_pending_ask():
    inst = make_instance("acol/one-dimensional")
    learner = make_learner("g-acol", inst.public_info(), np.random.default_rng(0))
    learner.ask()
    with pytest.raises(ProtocolError):
        learner.simulate(inst.environment(np.random.default_rng(0)), 10)


@pytest.mark.parametrize("numerics", DENSE)
def test_compiled_memory_does_not_grow_with_samples(numerics):
    inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(0), n_arms=10, d=5)
    peaks = []
    for budget in (200_000, 2_000_000):  # both beyond the fixed-size noise and uniform blocks
        learner = make_learner(
            "maxrew-f", inst.public_info(), np.random.default_rng(0), {"numerics": numerics}
        )
        env = inst.environment(np.random.default_rng(0))
        run(learner, env, inst, budget=100)  # compile outside the measurement
        tracemalloc.start()
        run(learner, env, inst, budget=budget)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert learner.n_samples == budget
    assert peaks[1] < peaks[0] + 200_000


def test_beta_theory_uses_samples_so_far():
    inst = make_instance("acol/one-dimensional")
    learner = make_learner("g-acol", inst.public_info(), np.random.default_rng(0))
    run(learner, inst.environment(np.random.default_rng(0)), inst, budget=10)
    assert learner.beta == pytest.approx(math.sqrt(math.log((1 + 10 / 0.1) / 0.05)) + math.sqrt(0.1))
    tuned = make_learner("g-acol", inst.public_info(), np.random.default_rng(0), {"width": "tuned"})
    assert tuned.beta == 0.5


def test_maxrew_f_gets_stuck_but_honours_budget():
    inst = make_instance("acol/irrelevant-dimensions", d=5, epsilon=0.1)
    learner = make_learner("maxrew-f", inst.public_info(), np.random.default_rng(0), {"width": "tuned"})
    out = run(learner, inst.environment(np.random.default_rng(0)), inst, budget=20_000)
    assert out.samples == 20_000 and not out.stopped


# --------------------------------------------------------------------------------------------------
# round-based learners
# --------------------------------------------------------------------------------------------------
def square_info():
    return CBAIInfo(arms=np.eye(2), reward_param=np.array([1.0, 2.0]), threshold=0.5)


@pytest.mark.parametrize("round_length", ["paper", "code"])
def test_acol_round_length(round_length):
    acol = ACOL(ACOLConfig(round_length=round_length), square_info(), np.random.default_rng(0))
    decision = acol.ask()
    rho = acol.last_design.value
    assert rho == pytest.approx(2.0, rel=1e-2)  # Kiefer--Wolfowitz: min max ||x||^2 = d
    factor = rho if round_length == "paper" else math.sqrt(rho)
    expected = math.ceil(2**5 * math.log(2 / 0.05**2) * 1.01 * factor)
    assert decision.n_samples == expected
    assert acol.round_samples(3, 1.5) == math.ceil(2**9 * math.log(2 * 9 / 0.05**2) * 1.01 * (
        1.5 if round_length == "paper" else math.sqrt(1.5)
    ))  # fmt: skip


def test_acol_paper_rounds_are_longer_than_code_rounds():
    paper = ACOL(ACOLConfig(), square_info(), np.random.default_rng(0))
    code = ACOL(ACOLConfig(round_length="code"), square_info(), np.random.default_rng(0))
    assert paper.ask().n_samples > code.ask().n_samples


def test_acol_min_round_samples():
    acol = ACOL(ACOLConfig(min_round_samples=10**6), square_info(), np.random.default_rng(0))
    assert acol.ask().n_samples == 10**6


def test_acol_discards_data_between_rounds_and_uses_round_delta():
    inst = make_instance("acol/irrelevant-dimensions", d=3, epsilon=0.2)
    acol = make_learner("acol", inst.public_info(), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(1))
    d1 = acol.ask()
    acol.tell(d1, env.play(d1))
    d2 = acol.ask()
    acol.tell(d2, env.play(d2))
    np.testing.assert_array_equal(acol._ridge.counts, d2.counts)
    lo, hi = acol.confidence_bounds()
    beta = math.sqrt(2 * math.log(inst.n_arms * 4 / 0.05**2))
    np.testing.assert_allclose(hi - lo, 2 * beta * acol._ridge.widths)
    assert acol.round == 3 and acol.round_lengths == [d1.n_samples, d2.n_samples]


def test_static_round_lengths():
    g = make_learner("g-allocation", square_info(), np.random.default_rng(0))
    for t in (1, 2, 5):
        assert g.round_samples(t) == math.ceil(2.0**t * math.log(2 * t**2 / 0.05**2))
    u = make_learner("uniform", square_info(), np.random.default_rng(0), {"phase_base": 1.5})
    assert u.round_samples(4) == math.ceil(1.5**4 * math.log(2 * 16 / 0.05**2))
    counts = u.ask().counts
    assert counts.sum() == u.round_samples(1) and abs(int(counts[0]) - int(counts[1])) <= 1


def margin_instance():
    # tau = 1, phi = (1, 1): x_1 = (1.05, 0) infeasible with margin 0.05 (|phi^T x| = 1.05),
    # x_2 = (0, 0.5) feasible (= x*) with margin -0.5 (|phi^T x| = 0.5).
    return LinearCBAIInstance(
        arms=np.array([[1.05, 0.0], [0.0, 0.5]]),
        reward_param=np.ones(2),
        constraint_param=np.ones(2),
        threshold=1.0,
    )


def test_oracle_targets_use_margins_with_threshold():
    inst = margin_instance()
    idx, w = oracle_targets(inst.arms, inst.rewards, inst.constraint_param, 1.0)
    assert idx.tolist() == [0, 1]
    np.testing.assert_allclose(w, [1 / 0.05**2, 1 / 0.5**2])
    _, w_code = oracle_targets(inst.arms, inst.rewards, inst.constraint_param, 1.0, "code")
    np.testing.assert_allclose(w_code, [1 / 1.05**2, 1 / 0.5**2])


def test_oracle_design_uses_margins_with_threshold():
    inst = margin_instance()
    oracle = make_learner("oracle", inst.privileged_info(), np.random.default_rng(0))
    # ||x_i||^2_{A^{-1}} = 1 / l_i: max(w_1 / l_1, w_2 / l_2) is minimal at l_1 = w_1 / (w_1 + w_2)
    assert oracle.weights[0] == pytest.approx(400 / 404, abs=1e-2)
    code = make_learner(
        "oracle", inst.privileged_info(), np.random.default_rng(0), {"oracle_margins": "code"}
    )
    w_1 = 1 / 1.05**2
    assert code.weights[0] == pytest.approx(w_1 / (w_1 + 4), abs=1e-2)


def test_oracle_needs_privileged_info():
    inst = margin_instance()
    with pytest.raises(ConfigError, match="privileged"):
        make_learner("oracle", inst.public_info(), np.random.default_rng(0))


@pytest.mark.parametrize("name", ROUND_BASED)
def test_round_based_budget_smaller_than_first_round(name):
    inst = make_instance("acol/irrelevant-dimensions", d=3, epsilon=0.2)
    learner = make_learner(name, info_of(inst, name), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(0))
    out = run(learner, env, inst, budget=5)
    assert out.samples == 0 and env.n_samples == 0 and out.recommended is None and not out.stopped


# --------------------------------------------------------------------------------------------------
# end to end
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ROUND_BASED + SEQUENTIAL[:-1])
def test_unknown_threshold_instance_is_solved(name):
    inst = make_instance("acol/irrelevant-dimensions", d=3, epsilon=0.2).with_learned_threshold()
    assert inst.threshold == 0.0 and inst.dim == 4
    config = {} if name in ROUND_BASED else {"width": "tuned"}
    learner = make_learner(name, info_of(inst, name), np.random.default_rng(0), config)
    out = run(learner, inst.environment(np.random.default_rng(0)), inst, budget=10**7)
    assert out.stopped and out.correct
    rec = learner.recommend()
    assert rec.final and rec.arm == inst.optimal_arm and rec.n_samples == out.samples


@pytest.mark.parametrize("name", ROUND_BASED + SEQUENTIAL[:-1])
def test_one_dimensional_instance_is_solved(name):
    inst = make_instance("acol/one-dimensional")
    learner = make_learner(name, info_of(inst, name), np.random.default_rng(0))
    out = run(learner, inst.environment(np.random.default_rng(0)), inst, budget=10**7)
    assert out.stopped and out.correct and out.recommended == 1
