"""A certificate every round, checked by contract (issue 40).

Every registered learner that promises safety every round (guarantee ``"round"``) or in expectation
(``"expectation"``) exposes what it certified for the action it is about to play
(``learner.certificate()`` between ask and tell: the safe set, the action's upper confidence bound on
each constraint, or the bound on its policy's expected cost). Over every such learner, its confidence
options (drawn from :data:`OPTION_SPACE`, every option its config has), Gaussian and bounded (Bernoulli)
feedback where its problems take them, and Hypothesis-generated small problems -- ties in the means,
near-zero noise and tiny GP noise so that intersected intervals cross, constants that void the
theory's widths, thresholds that leave little more than the safe seed certifiable -- every round's
played action must lie inside its certificate, and the certificate must agree with the learner's own
intervals where it has them.

The learners come from the registry: a newly registered learner with a promise is covered at once (and
fails here if it has no certificate, or reads an info kind without a problem family below).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from safebandits.algorithms import list_algorithms
from safebandits.estimators.gp import PointKernel
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems import make_instance
from safebandits.problems.kernel import BoundedFeedback, GaussianFeedback, KernelInstance
from safebandits.problems.kernel_box import Box, BoxKernelInstance
from safebandits.records import Certificate

PROMISES = ("round", "expectation", "conservative", "conservative-policy", "conservative-checkpoint")
PROMISING = {n: e for n, e in list_algorithms().items() if e.guarantee in PROMISES}

#: Config options the contract draws from wherever a learner's config has the field: every confidence
#: option (theory and constant widths, the authors' code radii, log-det widths), the scalings that void
#: the theory (tiny GP noise, small beta scales and alphas: intervals that cross), and the other
#: branches of the decision rules (safe-set constructions, solvers, tie rules, exploration lengths).
OPTION_SPACE: dict[str, tuple] = {
    "bound": ("beta-mixture", "clopper-pearson", "kl", "sub-gaussian"),
    "cohort_size": (1, 3),
    "choose": ("highest", "efficacy"),
    "skip_doses": (True, False),
    "safe_cost": ("known", "estimate"),
    "confidence": ("theory", "constant", "code"),
    "constant_beta": (2.0, 0.5),
    "gp_noise": ("theory", 1.0, 1e-4),
    "info_gain": ("heuristic", "greedy", "realised"),
    "beta_scale": (1.0, 0.05),
    "safe_set": ("full", "incremental"),
    "metric": ("kernel", "euclidean"),
    "updates": ("eager", "lazy", "auto"),
    "expansion_fraction": (0.1, 0.5),
    "exploration_fraction": (0.05, 0.3),
    "box_points": (20,),
    "box_grow_every": (0, 3),
    "box_grow_points": (5,),
    "box_max_points": (60,),
    "box_candidates": (32,),
    "box_starts": (1,),
    "width": ("paper", "logdet"),
    "t_prime": ("none", 3, "t0"),
    "sampler": ("rejection", "shell"),
    "convex_solver": ("radial", "discretise"),
    "n_directions": (64,),
    "lambda_mc_samples": (2000,),
    "gap_lcb": ("valid", "plugin"),
    "t0_rule": ("t0", "t0-numerical"),
    "radii": ("theory", "code"),
    "alpha_c": (None, 0.2),
    "alpha_r": (None, 0.3),
    "safe_value_ucb": ("ucb", "known"),
    "lp_solver": ("closed-form", "linprog"),
    "clip": (True, False),
    "radius_form": ("squared", "literal"),
    "radius_scale": (1.0, 0.01),
    "variant": ("sui", "berkenkamp"),
    "default_mean": ("declared", "estimate"),
    "budget": ("pessimistic", "code"),
    "baseline_reward": ("declared", "estimate"),
}

#: Options left out: the literal reading that OPB's docstring calls unsafe (an unpulled arm's cost
#: index 0 certifies nothing real; its certificate is still checked against its own index).
EXCLUDED = {"unpulled": "paper"}


def _config_options(entry, data) -> dict:
    fields = {f.name for f in dataclasses.fields(entry.cls.config_cls)}
    out = {}
    for name, values in OPTION_SPACE.items():
        if name in fields:
            out[name] = data.draw(st.sampled_from(values), label=name)
    return out


# -- problem families, one per info kind --------------------------------------------------------------
def _values(data, n, low, high, label):
    """Means with ties: drawn from a few levels."""
    levels = data.draw(st.lists(st.floats(low, high), min_size=1, max_size=3), label=f"{label} levels")
    return np.array(data.draw(st.lists(st.sampled_from(levels), min_size=n, max_size=n), label=label))


def kernel_problem(data, horizon):
    bounded = data.draw(st.booleans(), label="bounded feedback")
    feedback = (
        BoundedFeedback(constraint_shift=-0.5)
        if bounded
        else GaussianFeedback(sigma=data.draw(st.sampled_from([0.0, 1e-3, 0.1]), label="sigma"))
    )
    low = -0.5 if bounded else -1.0
    if data.draw(st.booleans(), label="box"):
        ls = data.draw(st.sampled_from([0.05, 0.2, 0.5]), label="lengthscale")
        kern = PointKernel(np.zeros((1, 1)), "se", lengthscale=ls)
        slope = data.draw(st.sampled_from([0.0, 0.5, 2.0]), label="slope")
        cut = data.draw(st.floats(0.15, 0.9), label="cut")
        level = data.draw(st.floats(0.0, 1.0), label="reward level")

        def reward(x, level=level):
            return np.clip(level + 0.0 * x[:, 0], 0.0, 1.0)

        def constraint(x, slope=slope, cut=cut):
            return np.clip(slope * (x[:, 0] - cut) - 0.05, -0.5, 0.5)

        return BoxKernelInstance(
            reward=reward, constraint=constraint, box=Box([0.0], [1.0]), kernel=kern, feedback=feedback,
            horizon=horizon, safe_seed=[[0.05]],
        )  # fmt: skip
    n = data.draw(st.integers(3, 8), label="n_points")
    x = np.linspace(0.0, 1.0, n)[:, None]
    ls = data.draw(st.sampled_from([0.02, 0.2, 0.6]), label="lengthscale")
    k = np.exp(-((x - x.T) ** 2) / (2 * ls**2))
    f = _values(data, n, 0.0, 1.0, "f")
    g = _values(data, n, low, 0.5, "g")
    g[0] = min(g[0], -0.05)  # (Slater; the argmin is the seed)
    return KernelInstance(
        reward=f, constraint=g, kernel=k, points=x, feedback=feedback, horizon=horizon,
        n_seed=data.draw(st.integers(1, 2), label="n_seed"),
    )  # fmt: skip


def safe_linear_arms_problem(data, horizon):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="draw"))
    return make_instance(
        "safelucb/karm", rng, K=data.draw(st.integers(3, 8), label="K"),
        d=data.draw(st.integers(2, 3), label="d"),
        sigma=data.draw(st.sampled_from([1e-3, 0.1, 0.5]), label="sigma"), T=horizon,
    )  # fmt: skip


def safe_linear_problem(data, horizon):
    return make_instance(
        "safelucb/2d-convex", sigma=data.draw(st.sampled_from([1e-3, 0.1]), label="sigma"),
        c=data.draw(st.sampled_from([0.05, 0.5, 1.0]), label="c"), T=horizon,
    )  # fmt: skip


def stagewise_problem(data, horizon):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="draw"))
    known = data.draw(st.booleans(), label="known_safe_values")
    which = data.draw(st.sampled_from(["random-linear", "cyclic"]), label="stagewise")
    if which == "cyclic":
        return make_instance(
            "stagewise/cyclic", d=data.draw(st.integers(2, 3), label="d"),
            tau=data.draw(st.sampled_from([0.1, 0.5]), label="tau"), T=horizon, known_safe_values=known,
            sigma=data.draw(st.sampled_from([1e-3, 0.1]), label="sigma"),
        )  # fmt: skip
    return make_instance(
        "stagewise/random-linear", rng, d=data.draw(st.integers(2, 3), label="d"),
        n_arms=data.draw(st.integers(2, 5), label="n_arms"),
        n_constraints=data.draw(st.integers(1, 2), label="m"),
        action_set=data.draw(st.sampled_from(["points", "star"]), label="action_set"), T=horizon,
        sigma=data.draw(st.sampled_from([1e-3, 0.1]), label="sigma"), known_safe_values=known,
    )  # fmt: skip


def k_armed_problem(data, horizon):
    known = data.draw(st.booleans(), label="known_safe_values")
    tau = data.draw(st.sampled_from([0.05, 0.3, 0.8]), label="tau")
    if data.draw(st.booleans(), label="four-arm"):
        noise = data.draw(st.sampled_from(["bernoulli", "clipped-gaussian"]), label="noise")
        return make_instance("stagewise/four-arm", tau=tau, T=horizon, known_safe_values=known, noise=noise)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="draw"))
    k = data.draw(st.integers(2, 6), label="K")
    return make_instance("stagewise/random-mab", rng, K=k, tau=tau, T=horizon, known_safe_values=known)


def function_class_problem(data, horizon):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="draw"))
    return make_instance(
        "stagewise/finite-class", rng, n_actions=data.draw(st.integers(2, 4), label="n_actions"),
        n_functions=data.draw(st.integers(2, 6), label="n_functions"),
        tau=data.draw(st.sampled_from([0.2, 0.5]), label="tau"), T=horizon,
    )  # fmt: skip


def dose_problem(data, horizon):
    from safebandits.problems.declare_covariate import CovariateProblem

    k = data.draw(st.integers(2, 6), label="K")
    step = data.draw(st.sampled_from([0.05, 0.1, 0.2, 0.5]), label="max_increase")
    rises = data.draw(
        st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=k - 1, max_size=k - 1), label="rises"
    )
    c0 = data.draw(st.sampled_from([0.0, 0.02, 0.1]), label="c0")
    tox = np.minimum(c0 + np.concatenate([[0.0], np.cumsum(np.array(rises) * step)]), 1.0)
    tau = data.draw(st.sampled_from([0.15, 0.3, 0.5]), label="tau")
    known = data.draw(st.booleans(), label="known safe cost")
    problem = CovariateProblem(
        covariates=list(range(k)), threshold=tau, safe_action=0, monotone_cost=True, max_increase=step,
        safe_cost=c0 if known else None, horizon=horizon,
    )  # fmt: skip
    return problem.simulate(efficacy=np.linspace(0.1, 0.9, k), toxicity=tox).instance("dose")


def conservative_problem(data, horizon):
    from safebandits.problems.conservative import ConservativeInstance
    from safebandits.problems.noise import BernoulliNoise, GaussianNoise

    k = data.draw(st.integers(2, 6), label="K")
    means = _values(data, k, 0.0, 1.0, "means")
    bernoulli = data.draw(st.booleans(), label="bernoulli")
    noise = (
        BernoulliNoise()
        if bernoulli
        else GaussianNoise(data.draw(st.sampled_from([1e-3, 0.1, 1.0]), label="sigma"))
    )
    return ConservativeInstance(
        means=means, alpha=data.draw(st.sampled_from([0.0, 0.05, 0.5, 1.0]), label="alpha"),
        default_arm=data.draw(st.integers(0, k - 1), label="default arm"),
        known_default=data.draw(st.booleans(), label="known default"), noise=noise, horizon=horizon,
    )  # fmt: skip


def conservative_linear_problem(data, horizon):
    from safebandits.problems.conservative_linear import ConservativeLinearInstance
    from safebandits.problems.noise import GaussianNoise

    d = data.draw(st.integers(1, 5), label="d")
    theta = np.asarray(_values(data, d, 0.0, 1.0, "theta"))
    scorer = data.draw(st.booleans(), label="baseline scorer")
    low = data.draw(st.sampled_from([0.0, 0.5]), label="feature_low")  # (a floor under every mean)
    floor = data.draw(st.sampled_from([0.0, 1.0]), label="floor fraction") * low * theta.sum() / np.sqrt(d)
    return ConservativeLinearInstance(
        theta=theta, n_actions=data.draw(st.integers(2, 8), label="K"),
        alpha=data.draw(st.sampled_from([0.0, 0.05, 0.5, 1.0]), label="alpha"),
        baseline_action=0,
        baseline_param=np.asarray(_values(data, d, 0.0, 1.0, "scorer")) if scorer else None,
        noise=GaussianNoise(data.draw(st.sampled_from([1e-3, 0.1, 1.0]), label="sigma")), horizon=horizon,
        known_baseline=data.draw(st.booleans(), label="known baseline"),
        checkpoint=data.draw(st.sampled_from([1, 4]), label="checkpoint"), feature_low=low,
        baseline_floor=floor * (1.0 - 1e-9),
    )  # fmt: skip


FAMILIES = {
    "kernel": kernel_problem,
    "safe-linear-arms": safe_linear_arms_problem,
    "safe-linear": safe_linear_problem,
    "stagewise": stagewise_problem,
    "k-armed": k_armed_problem,
    "function-class": function_class_problem,
    "dose": dose_problem,
    "conservative": conservative_problem,
    "conservative-linear": conservative_linear_problem,
}


# -- the contract -------------------------------------------------------------------------------------
def _consistent(learner, cert: Certificate, decision) -> None:
    """The certificate agrees with the learner's own intervals where the learner shows them."""
    assert cert.round == learner.n_samples + 1
    if cert.kind == "safe-set" and cert.safe_arms is not None and hasattr(learner, "safe"):
        np.testing.assert_array_equal(cert.safe_arms, learner.safe)  # (StageOpt, SafeOpt: S_t itself)
    if cert.kind == "upper-bound" and decision.arm is not None and cert.basis.startswith("D_t^s"):
        est = learner.arm_estimates()  # (Safe-LUCB on arms: eq. 8's upper end of the constraint)
        assert cert.bound[0] == pytest.approx(est.upper[decision.arm, 1], rel=1e-6, abs=1e-9)
    if cert.kind == "upper-bound" and decision.point is None and cert.basis.startswith("A~f_t"):
        est = learner.arm_estimates()  # (LC-LUCB, Safe-LTS on points: the pessimistic costs, eq. 10)
        np.testing.assert_allclose(cert.bound, est.upper[decision.arm, 1:], rtol=1e-6, atol=1e-9)
    if cert.kind == "upper-bound" and cert.basis.startswith("xi_t"):
        assert cert.bound[0] == -learner.budget  # (Conservative UCB: the budget it decided with)
        assert decision.arm == learner.diagnostics()["leader"]
    if cert.kind == "upper-bound" and cert.basis.startswith("pessimistic margin"):
        assert cert.bound[0] == -learner.budget  # (CLUCB2: the played row's xi_t(a_t), checkpoint slack in)
    if cert.kind == "policy-bound" and cert.basis.startswith("V~_t^c"):
        est = learner.arm_estimates()  # (OPNLB: max over C^c of pi . mu <= pi . (per-action maxima))
        assert cert.bound[0] <= float(decision.probs @ est.upper[:, 1]) + 1e-9


def play_and_check(name, learner, env, rounds):
    fallback_rounds = 0
    context = getattr(env, "context", None)  # (contextual problems: the round's context first)
    for _ in range(rounds):
        decision = learner.ask(context() if context is not None else None)
        cert = learner.certificate()
        assert isinstance(cert, Certificate), f"{name} promises safety but certifies nothing"
        assert cert.covers(decision), (
            f"{name} round {cert.round}: decision {decision} outside its certificate "
            f"({cert.kind}, {cert.basis}, bound={cert.bound}, threshold={cert.threshold})"
        )
        _consistent(learner, cert, decision)
        learner.tell(decision, env.play(decision))
        fallback_rounds += int(cert.kind == "safe-set")
    return fallback_rounds


def _run_case(name, data, rounds):
    entry = PROMISING[name]
    kind = data.draw(st.sampled_from(entry.info), label="info kind")
    assert kind in FAMILIES, f"{name} reads info kind {kind!r}: add a problem family to this contract"
    options = _config_options(entry, data)
    if any(options.get(k) == v for k, v in EXCLUDED.items()):
        reject()
    try:
        inst = FAMILIES[kind](data, rounds)
        info = inst.privileged_info() if entry.privileged else inst.public_info()
        learner = entry.cls(
            entry.config(**options), info, np.random.default_rng(data.draw(st.integers(0, 99)))
        )
    except (ConfigError, InfeasibleInstanceError):  # (a combination the learner refuses up front)
        reject()
    env = inst.environment(np.random.default_rng(data.draw(st.integers(0, 99), label="env seed")))
    play_and_check(name, learner, env, rounds)


def test_every_learner_with_a_promise_is_covered():
    assert {"safeopt", "stageopt", "sgp-ucb", "safe-lucb", "gslucb", "lc-lucb", "safe-lts", "opb", "oplb",
            "opnlb", "conservative-ucb", "conservative-ucb-unknown-mean",
            "clucb", "clucb-unknown-baseline", "clucb2", "clucb2-checkpoint"} <= set(PROMISING)  # fmt: skip
    for name, entry in PROMISING.items():
        assert set(entry.info) <= set(FAMILIES), (name, entry.info)
        base = next(c for c in entry.cls.__mro__ if c.__name__ == "BaseLearner")
        assert entry.cls._certificate is not base._certificate, f"{name} has no certificate"


def test_learners_without_a_promise_certify_nothing():
    from safebandits.exceptions import ProtocolError

    entry = list_algorithms()["ckb-ucb"]
    inst = make_instance("ckb/synthetic", np.random.default_rng(0), n_points=10, T=20)
    learner = entry.cls(entry.config(), inst.public_info(), np.random.default_rng(0))
    with pytest.raises(ProtocolError):
        learner.certificate()
    learner.ask()
    assert learner.certificate() is None


@pytest.mark.parametrize("name", sorted(PROMISING))
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(data=st.data())
def test_played_action_lies_inside_its_certificate(name, data):
    _run_case(name, data, rounds=25)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PROMISING))
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(data=st.data())
def test_played_action_lies_inside_its_certificate_heavy(name, data):
    _run_case(name, data, rounds=80)


def _crossing_kernel_instance():
    x = np.linspace(0.0, 1.0, 8)[:, None]
    k = np.exp(-((x - x.T) ** 2) / (2 * 0.1**2))
    g = np.array([-0.5, -0.3, 0.2, 0.3, -0.2, 0.3, 0.1, -0.4])
    f = np.array([0.2, 0.5, 0.8, 0.6, 0.3, 0.7, 0.4, 0.5])
    return KernelInstance(reward=f, constraint=g, kernel=k, points=x, horizon=60,
                          feedback=BoundedFeedback(constraint_shift=-0.7))  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_safeopt_constant_beta_crossed_intervals(seed):
    # The case of issue 40, pinned (Hypothesis finds it too): Bernoulli feedback against a constant
    # beta and a tiny lambda makes SafeOpt's intersected intervals cross; it must keep playing in S_t.
    inst = _crossing_kernel_instance()
    entry = PROMISING["safeopt"]
    learner = entry.cls(entry.config(confidence="constant", gp_noise=1e-3), inst.public_info(),
                        np.random.default_rng(seed))  # fmt: skip
    play_and_check("safeopt", learner, inst.environment(np.random.default_rng(seed)), 60)
    assert learner.fallback_rounds > 0  # (the crossed case was reached)
