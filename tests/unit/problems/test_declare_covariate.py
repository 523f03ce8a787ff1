"""Covariate declarations (dose finding): views, documented defaults, truth checks, per-round safety note."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.algorithms.compatibility import learner_fit, per_round_safety_note
from safebandits.algorithms.registry import make_learner
from safebandits.exceptions import ConfigError
from safebandits.problems.declare import LinearProblem
from safebandits.problems.declare_covariate import DEFAULT_LENGTHSCALE, AssumptionWarning, CovariateProblem
from safebandits.problems.settings import problem_from_dict

DOSES = [10, 20, 30, 40, 50]
EFF = [0.15, 0.30, 0.45, 0.55, 0.60]
TOX = [0.05, 0.10, 0.20, 0.35, 0.55]


def _dose(**kw) -> CovariateProblem:
    args = dict(covariates=DOSES, threshold=0.3, safe_action=0, safe_cost=0.05, safe_reward=0.15)
    args.update(kw)
    return CovariateProblem(**args)


def test_views_and_routing():
    p = _dose(reward_bound=1.0, constraint_bound=0.7, lipschitz=0.02)
    assert p.kinds == ("kernel", "k-armed")
    info = p.view("kernel", horizon=50)
    assert info.safe_seed == (0,) and info.noise_bound == 0.5 and info.horizon == 50
    assert info.slater == pytest.approx(0.25) and info.constraint_bound == 0.7 and info.lipschitz == 0.02
    np.testing.assert_allclose(info.points[:, 0], DOSES)  # StageOpt's metric in the user's units
    # default kernel: SE, lengthscale 0.5 of the dose range (40 mg), variance 1
    x = (np.array(DOSES) - 10) / 40
    np.testing.assert_allclose(
        info.kernel, np.exp(-0.5 * ((x[:, None] - x[None, :]) / DEFAULT_LENGTHSCALE) ** 2)
    )
    ka = p.view("k-armed")
    np.testing.assert_allclose(ka.arms, np.eye(5))
    assert ka.action_set == "simplex" and ka.safe_arm == 0 and ka.noise_kind == "bernoulli"
    # (listed to start, or apart when they start but cannot leave the safe dose within the horizon)
    fit = learner_fit(p, task="regret")
    fits = {c.name: c.guarantee for c in [*fit.fitting, *(c for c, _ in fit.cannot_learn)]}
    assert fits["stageopt"] == fits["sgp-ucb"] == sb.GUARANTEES["round"]
    assert {"ckb-ucb", "opb", "oplb"} <= set(fits)
    for kind, word in [("stagewise", "LinearProblem"), ("safe-linear-arms", "reward parameter")]:
        assert word in p.why_not(kind)
    assert per_round_safety_note(p) is None


def test_kernel_view_needs_a_slater_constant():
    p = CovariateProblem(covariates=DOSES, threshold=0.3, safe_action=0)
    assert p.kinds == ("k-armed",)
    assert "Slater" in p.why_not("kernel")
    note = per_round_safety_note(p)
    assert note is not None and "No learner can promise safety in every round" in note
    assert "Remark 7" in note and "slater or safe_cost" in note
    assert (
        per_round_safety_note(CovariateProblem(covariates=DOSES, threshold=0.3, safe_action=0, slater=0.1))
        is None
    )


def test_no_safe_action_means_no_per_round_promise():
    p = LinearProblem(arms=np.eye(3), threshold=0.4, feedback="bernoulli")
    note = per_round_safety_note(p)
    assert note is not None and "safe arm" in note
    assert (
        per_round_safety_note(LinearProblem(arms=np.eye(3), threshold=0.4, safe_arm=0, safe_cost=0.1)) is None
    )


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(2, 7),
    ls=st.floats(0.15, 1.0),
    seed=st.integers(0, 2**31 - 1),
)
def test_default_bound_covers_every_function_of_the_range(k, ls, seed):
    """The documented default ``sqrt(K / lambda_min) * M`` bounds the RKHS norm of every function with
    means in the feedback's range (Bernoulli: toxicity in [0, 1], so |g| <= max(tau, 1 - tau))."""
    p = CovariateProblem(
        covariates=np.linspace(0, 1, k), threshold=0.3, safe_action=0, slater=0.1, kernel={"lengthscale": ls}
    )
    rng = np.random.default_rng(seed)
    bound = p.told_constraint_bound
    for c in [rng.uniform(0, 1, k), rng.integers(0, 2, k).astype(float), np.zeros(k), np.ones(k)]:
        assert p.rkhs_norm(c - 0.3) <= bound * (1 + 1e-9) or not math.isfinite(bound)


def test_round_trip_through_plain_values():
    p = _dose(kernel={"name": "matern", "lengthscale": 0.3, "nu": 2.5}, constraint_bound=0.8, lipschitz=0.03)
    values = p.to_dict()
    assert values["setting"] == "covariate" and values["covariates"] == DOSES
    q = problem_from_dict(values)
    assert isinstance(q, CovariateProblem) and q.to_dict() == values
    np.testing.assert_allclose(q.gram, p.gram)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"safe_action": 5}, "safe_action"),
        ({"safe_cost": 0.4}, "below the threshold"),
        ({"kernel": {"name": "rbf"}}, r"kernel\.name"),
        ({"kernel": {"lengthscale": 0.5, "variance": 2.0}}, "keys among"),
        ({"constraint_bound": -1.0}, "constraint_bound"),
        ({"feedback": "poisson"}, "kind"),
    ],
)
def test_bad_declarations_are_one_clear_error(kw, match):
    with pytest.raises(ConfigError, match=match):
        _dose(**kw)


def test_truth_checks():
    p = _dose()
    with pytest.raises(ConfigError, match="not below the threshold"):
        p.simulate(efficacy=EFF, toxicity=[0.35, 0.1, 0.2, 0.35, 0.55])
    with pytest.raises(ConfigError, match=r"cost mean in \[0, 1\]"):
        p.simulate(efficacy=EFF, toxicity=[0.05, 0.1, 0.2, 0.35, 1.55])
    with pytest.raises(ConfigError, match="safe_cost"):
        _dose(safe_cost=0.06).simulate(efficacy=EFF, toxicity=TOX)
    with pytest.raises(ConfigError, match="neither"):
        p.simulate(efficacy=EFF)


def test_truth_breaking_the_declared_bounds_warns():
    with pytest.warns(AssumptionWarning, match="RKHS norm"):
        _dose(constraint_bound=0.1).simulate(efficacy=EFF, toxicity=TOX)
    with pytest.warns(AssumptionWarning, match="per unit of the covariates"):
        _dose(constraint_bound=0.7, reward_bound=1.0, lipschitz=0.01).simulate(efficacy=EFF, toxicity=TOX)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumptionWarning)
        _dose(constraint_bound=0.7, reward_bound=1.0, lipschitz=0.02).simulate(efficacy=EFF, toxicity=TOX)


def test_simulation_draws_bernoulli_outcomes_in_both_views():
    sim = _dose(constraint_bound=0.7, reward_bound=1.0).simulate(efficacy=EFF, toxicity=TOX)
    kern = sim.instance("kernel", horizon=100)
    assert kern.optimal_arm == 2 and kern.safe_arm == 0
    env = kern.environment(np.random.default_rng(0))
    obs = [env.pull(3) for _ in range(3000)]
    r = np.array([o.reward for o in obs])
    c = np.array([o.constraints[0] for o in obs])
    np.testing.assert_allclose(np.unique(r), [0.0, 1.0])
    np.testing.assert_allclose(np.unique(c), [-0.3, 0.7])  # toxicity outcome minus the limit
    assert abs(r.mean() - 0.55) < 0.05 and abs(c.mean() - 0.05) < 0.05  # 5 standard errors
    ka = sim.instance("k-armed", horizon=100)
    assert ka.optimal_value == pytest.approx(0.45)  # dose 2: the best below the limit
    env = ka.environment(np.random.default_rng(0))
    obs = [env.play(sb.Decision(arm=4)) for _ in range(2000)]
    r = np.array([o.reward for o in obs])
    c = np.array([o.constraints[0] for o in obs])
    np.testing.assert_allclose(np.unique(r), [0.0, 1.0])
    np.testing.assert_allclose(np.unique(c), [0.0, 1.0])
    assert abs(r.mean() - 0.60) < 0.06 and abs(c.mean() - 0.55) < 0.06


def test_stageopt_reads_the_declared_lipschitz_constant():
    sim = _dose(constraint_bound=0.7, reward_bound=1.0, lipschitz=0.02).simulate(efficacy=EFF, toxicity=TOX)
    learner = make_learner("stageopt", sim, np.random.default_rng(0))
    assert learner.lipschitz == 0.02
    np.testing.assert_allclose(
        learner.distance_block([0], np.arange(5))[0], [0, 10, 20, 30, 40]
    )  # Euclidean, mg
    own = make_learner("stageopt", sim, np.random.default_rng(0), {"lipschitz": 0.5})
    assert (
        own.lipschitz == 0.5 and own.distance_block([0], [1])[0, 0] < 2
    )  # its own option: the kernel metric
    plain = make_learner("stageopt", _dose(constraint_bound=0.7), np.random.default_rng(0))
    assert plain.lipschitz == 0.7  # no declared constant: G in the kernel metric


@settings(max_examples=25, deadline=None)
@given(
    k=st.integers(2, 6),
    start=st.floats(0.0, 100.0),
    steps=st.lists(st.floats(0.5, 50.0), min_size=5, max_size=5),
    tau=st.floats(0.05, 0.95),
    frac=st.floats(0.0, 0.95),
    safe=st.integers(0, 5),
    ls=st.none() | st.floats(0.1, 1.0),
)
@example(k=6, start=0.0, steps=[14.0, 1.0, 1.0, 0.5, 1.0], tau=0.5, frac=0.2, safe=0, ls=1.0)  # singular
@example(k=3, start=0.0, steps=[10.0, 10.0, 1.0, 1.0, 1.0], tau=0.5, frac=0.2, safe=0, ls=0.1)  # regular
def test_generated_declarations_round_trip_and_every_routed_learner_starts(
    k, start, steps, tau, frac, safe, ls
):
    cov = start + np.concatenate([[0.0], np.cumsum(steps[: k - 1])])
    p = CovariateProblem(
        covariates=cov.tolist(),
        threshold=tau,
        safe_action=safe % k,
        safe_cost=frac * tau,
        kernel=None if ls is None else {"lengthscale": ls},
        horizon=50,
    )
    values = p.to_dict()
    assert problem_from_dict(values).to_dict() == values
    if not math.isfinite(p.told_constraint_bound):
        # A lengthscale long against the actions' spacing makes the Gram matrix numerically singular
        # (lambda_min <= 1e-12): no default RKHS bound, so no kernel view, and the reason says so.
        assert p.kinds == ("k-armed",) and "singular" in p.why_not("kernel")
        assert min(np.linalg.eigvalsh(p._gram)) <= 1e-12
        return
    assert p.kinds == ("kernel", "k-armed") and per_round_safety_note(p) is None
    for name in ("stageopt", "sgp-ucb", "ckb-ucb", "opb", "oplb"):
        learner = make_learner(name, p, np.random.default_rng(0))
        assert learner.ask() is not None


def test_a_truth_is_checked_with_one_solve_and_one_eigen_decomposition(monkeypatch):
    """The truth's RKHS norms: one least-squares solve for both curves, remembered across the learners
    that read the truth; the kernel instance checks its kernel matrix once when the constraint kernel is
    the same matrix, and the learners of a kind share one instance. Before: two solves and two
    eigen-decompositions per learner (267 s
    for ``learners --for`` on 5,000 covariates)."""
    calls = {"lstsq": 0, "eigvalsh": 0}
    for name in calls:
        real = getattr(np.linalg, name)

        def counted(*a, _real=real, _name=name, **k):
            calls[_name] += 1
            return _real(*a, **k)

        monkeypatch.setattr(np.linalg, name, counted)
    k = 40
    x = np.linspace(0, 1, k)
    problem = CovariateProblem(covariates=x, threshold=0.3, safe_action=0,
                               safe_cost=0.05, reward_bound=5.0, constraint_bound=5.0)  # fmt: skip
    eff, tox = 0.2 + 0.5 * x, 0.05 + 0.4 * x**2
    warnings.simplefilter("ignore", AssumptionWarning)  # (the norms are what is counted, not their size)
    sim = problem.simulate(efficacy=eff, toxicity=tox)
    from safebandits.algorithms.compatibility import instance_for

    for name in ("stageopt", "sgp-ucb", "ckb-ucb"):
        instance_for(sim, name)
    assert calls["lstsq"] == 1, calls
    assert calls["eigvalsh"] == 1, calls  # (one instance of the kind, shared by the three learners)
    from safebandits.estimators.gp import rkhs_norms

    norms = rkhs_norms(problem.gram, eff, tox - 0.3)
    each = [problem.gram, problem.gram]
    for h, norm, gram in zip((eff, tox - 0.3), norms, each, strict=True):
        sol = np.linalg.lstsq(gram, h, rcond=None)[0]
        assert norm == pytest.approx(math.sqrt(max(float(h @ sol), 0.0)), rel=1e-9)
