"""CLUCB2, its checkpoint variant and CLUCB with estimated baseline rewards (issue 44): the compiled kernels
play what a plain numpy loop of the same steps plays (``clucb2``'s module docstring, steps 1-5; CLUCB's
unknown-reward budget), round for round, on the ask / tell path and the compiled blocks alike; the
ask / tell boundary and the configurations (Hypothesis); a learner told a wrong floor or tolerance breaks
the constraint (the check can fail)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms.registry import make_learner
from safebandits.estimators.confidence import adaptive_width
from safebandits.exceptions import CannotStartError, ConfigError, ProtocolError
from safebandits.problems.conservative_linear import ConservativeContext, ConservativeLinearInstance
from safebandits.types import Observation

THETA = np.array([0.5, 0.8, 0.2, 0.9])


class NumpyConservative:
    """The steps with numpy (``V`` kept and inverted each round): CLUCB2 (``constrained``), CLUCB with
    estimated baseline rewards (``known=False``), the checkpoint slack ``alpha r_l (t_k - t)``."""

    def __init__(self, info, *, constrained, known, learn_all, tau=1, floor=0.0, delta):
        d = info.dim
        self.info, self.constrained, self.known, self.learn_all = info, constrained, known, learn_all
        self.tau, self.floor, self.delta = tau, floor, delta
        self.v, self.xy, self.z = np.eye(d), np.zeros(d), np.zeros(d)
        self.n, self.t, self.banked, self.total = 0, 0, 0.0, 0.0

    def margin(self, ctx, a, theta, inv, beta):
        i = self.info
        x, xb = ctx.arms[a], ctx.arms[ctx.baseline]
        w = self.z + x if self.known else self.z + x - (1 - i.alpha) * xb
        low = float(w @ theta - beta * math.sqrt(max(w @ inv @ w, 0.0)))
        if self.known:
            low += self.banked - (1 - i.alpha) * (self.total + ctx.baseline_reward)
        t = self.t + 1
        return low + i.alpha * self.floor * (math.ceil(t / self.tau) * self.tau - t)

    def choose(self, ctx):
        i = self.info
        beta = adaptive_width(self.n, i.dim, self.delta, 1.0, i.noise_bound, i.feature_bound, i.param_bound)
        inv = np.linalg.inv(self.v)
        theta = inv @ self.xy
        ucb = ctx.arms @ theta + beta * np.sqrt(np.einsum("ki,ij,kj->k", ctx.arms, inv, ctx.arms))
        b = ctx.baseline
        if not self.constrained:
            j = int(np.argmax(ucb))
            self.base_round = self.margin(ctx, j, theta, inv, beta) < 0
            return b if self.base_round else j
        ok = np.array([a == b or self.margin(ctx, a, theta, inv, beta) >= 0 for a in range(len(ucb))])
        a = int(np.argmax(np.where(ok, ucb, -np.inf)))
        self.base_round = a == b
        return a

    def update(self, ctx, a, y):
        alpha, x, xb = self.info.alpha, ctx.arms[a], ctx.arms[ctx.baseline]
        self.t += 1
        self.total += ctx.baseline_reward or 0.0
        if self.learn_all or not self.base_round:
            self.v += np.outer(x, x)
            self.xy += y * x
            self.n += 1
        if self.base_round:
            self.banked += ctx.baseline_reward or 0.0
            if not self.known:
                self.z += alpha * xb
            return
        self.z += x if self.known else x - (1 - alpha) * xb


def instance(known=True, tau=1, horizon=400, scorer=True, low=0.0, floor=0.0, alpha=0.05):
    return ConservativeLinearInstance(
        theta=THETA, n_actions=8, alpha=alpha, baseline_action=3,
        baseline_param=THETA + 0.1 if scorer else None,
        known_baseline=known, checkpoint=tau, horizon=horizon, feature_low=low, baseline_floor=floor,
    )  # fmt: skip


CASES = {
    "clucb2": dict(inst=dict(), ref=dict(constrained=True, known=True, learn_all=True)),
    "clucb2-checkpoint": dict(
        inst=dict(tau=25, low=0.4, floor=0.3), ref=dict(constrained=True, known=True, learn_all=True, tau=25)
    ),
    "clucb-unknown-baseline": dict(
        inst=dict(known=False), ref=dict(constrained=False, known=False, learn_all=True)
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("scorer", [True, False])
def test_kernels_play_what_a_numpy_loop_plays(name, scorer):
    case = CASES[name]
    inst = instance(scorer=scorer, **case["inst"])
    info = inst.public_info()
    learner = make_learner(name, info, np.random.default_rng(0))
    ref = NumpyConservative(info, delta=1.0 / 400, floor=info.baseline_floor, **case["ref"])
    env = inst.environment(np.random.default_rng(3))
    base_rounds = others = 0
    for _ in range(400):
        ctx = env.context()
        d = learner.ask(ctx)
        assert d.arm == ref.choose(ctx)
        obs = env.play(d)
        learner.tell(d, obs)
        ref.update(ctx, d.arm, obs.reward)
        base_rounds += ref.base_round
        others += (not ref.base_round) and d.arm != learner.diagnostics()["leader"]
    assert 0 < base_rounds < 400  # (both branches reached)
    if name.startswith("clucb2") and scorer:
        assert others > 0  # (CLUCB2 played an admissible row other than a'_t: its own branch reached)


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_rounds_and_ask_tell_play_the_same_trajectory(name):
    from safebandits.experiments.conservative_linear import play_contexts

    inst = instance(horizon=700, **CASES[name]["inst"])
    outs = []
    for compiled in (True, False):
        learner = make_learner(name, inst.public_info(), np.random.default_rng(0))
        env = inst.environment(np.random.default_rng(5))
        first = play_contexts(learner, env, 300, compiled=compiled)  # (across a refill of the draws)
        rest = play_contexts(learner, env, 400, compiled=compiled)
        outs.append((np.concatenate([first[0], rest[0]]), learner.diagnostics(), learner.n_samples))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert repr(outs[0][1:]) == repr(outs[1][1:])


def test_the_checkpoint_learner_needs_checkpoints_and_clucb_names_the_unknown_variant():
    with pytest.raises(CannotStartError, match="checkpoint = 1") as exc:
        make_learner("clucb2-checkpoint", instance().public_info(), np.random.default_rng(0))
    assert "clucb2" in str(exc.value)
    with pytest.raises(CannotStartError, match="clucb-unknown-baseline"):
        make_learner("clucb", instance(known=False).public_info(), np.random.default_rng(0))
    with pytest.raises(CannotStartError, match="known_baseline"):
        make_learner("clucb2", instance(known=False).public_info(), np.random.default_rng(0))
    learner = make_learner("clucb2", instance(known=False).public_info(), np.random.default_rng(0),
                           {"baseline_reward": "estimate"})  # fmt: skip
    assert learner.state.const.known_rewards is False


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(["clucb2", "clucb2-checkpoint", "clucb-unknown-baseline"]),
    delta=st.one_of(st.none(), st.floats(1e-6, 0.999)),
    reg=st.floats(1e-3, 100.0),
    reward=st.sampled_from(["declared", "estimate"]),
)
def test_configs_build_and_the_state_is_typed(name, delta, reg, reward):
    inst = instance(known=True, tau=5, low=0.2, floor=0.1)
    learner = make_learner(name, inst.public_info(), np.random.default_rng(0),
                           {"delta": delta, "reg": reg, "baseline_reward": reward})  # fmt: skip
    c = learner.state.const
    two = name.startswith(
        "clucb2"
    )  # (CLUCB learns from every round when it estimates the baseline's rewards)
    assert c.known_rewards == (reward == "declared") and c.constrained == two
    assert c.learn_all == (two or reward == "estimate")
    assert (c.checkpoint, c.floor) == ((5, 0.1) if name == "clucb2-checkpoint" else (1, 0.0))


@pytest.mark.parametrize(
    ("field", "value"), [("delta", 1.5), ("delta", 0.0), ("reg", -1.0), ("baseline_reward", "guess")]
)
def test_bad_options_name_the_field(field, value):
    with pytest.raises(ConfigError, match=field):
        make_learner("clucb2", instance().public_info(), np.random.default_rng(0), {field: value})


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(["clucb2", "clucb2-checkpoint", "clucb-unknown-baseline"]),
    seed=st.integers(0, 1000),
    rounds=st.integers(1, 40),
    rows=st.integers(1, 10),
    cols=st.integers(1, 6),
)
def test_the_ask_tell_boundary(name, seed, rounds, rows, cols):
    inst = instance(known=name != "clucb-unknown-baseline", tau=4, low=0.3, floor=0.2)
    learner = make_learner(name, inst.public_info(), np.random.default_rng(seed))
    env = inst.environment(np.random.default_rng(seed))
    if (rows, cols) != (8, 4):  # (a context of the wrong shape is refused, naming the declared sizes)
        bad = ConservativeContext(arms=np.zeros((rows, cols)), baseline=0, baseline_reward=0.0)
        with pytest.raises(ConfigError, match=r"n_actions|dim"):
            learner.ask(bad)
    with pytest.raises(ProtocolError):
        learner.tell(None, None)
    for _ in range(rounds):
        ctx = env.context()
        d = learner.ask(ctx)
        cert = learner.certificate()
        assert 0 <= d.arm < 8 and cert.covers(d)
        assert (cert.kind == "safe-set") == (
            d.arm == ctx.baseline and learner.state.live[0]["fell_back"] == 1
        )
        with pytest.raises((ProtocolError, ConfigError)):
            learner.tell(d, Observation(reward=float("nan")))
        learner.tell(d, env.play(d))
    assert learner.n_samples == rounds


def _violations(learner, inst, seed, horizon):
    from safebandits.experiments.conservative_linear import run_conservative_linear

    out = run_conservative_linear(learner, inst, np.random.default_rng(seed), horizon=horizon)
    return out.conservative["violations"]


def test_a_learner_told_a_false_floor_breaks_the_checkpoint_constraint():
    # (the check can fail: the checkpoint learner told baseline_floor = 100, above every mean reward,
    # counts on baseline rounds it will not be paid and explores like LinUCB against a strong production
    # scorer and alpha = 0.02; told the truth's floor, it keeps the constraint at every checkpoint)
    import dataclasses

    inst = ConservativeLinearInstance(
        theta=THETA, n_actions=6, alpha=0.02, baseline_param=np.array([0.5, 0.8, 0.2, 0.8]), checkpoint=10,
        horizon=1500,
    )  # fmt: skip
    lie = dataclasses.replace(inst.public_info(), baseline_floor=100.0)
    broken = [_violations(make_learner("clucb2-checkpoint", lie, np.random.default_rng(s)), inst, s, 1500)
              for s in range(3)]  # fmt: skip
    info = inst.public_info()
    honest = [_violations(make_learner("clucb2-checkpoint", info, np.random.default_rng(s)), inst, s, 1500)
              for s in range(3)]  # fmt: skip
    assert min(broken) > 0 and honest == [0, 0, 0], (broken, honest)


@pytest.mark.parametrize("name", ["clucb2", "clucb-unknown-baseline"])
def test_a_learner_told_a_larger_alpha_breaks_the_constraint(name):
    import dataclasses

    inst = ConservativeLinearInstance(
        theta=THETA, n_actions=6, alpha=0.02, baseline_param=np.array([0.5, 0.8, 0.2, 0.8]), horizon=1500,
        known_baseline=name == "clucb2",
    )  # fmt: skip
    lie = dataclasses.replace(inst.public_info(), alpha=1.0)
    broken = [_violations(make_learner(name, lie, np.random.default_rng(s)), inst, s, 1500) for s in range(3)]
    assert min(broken) > 0, broken


_COPIES = [("clucb2-checkpoint", 9), ("clucb", 2)] + [
    pytest.param(name, d, marks=pytest.mark.slow)
    for name, d in [("clucb-unknown-baseline", 1), ("clucb2", 7), ("linucb", 3), ("clucb", 9)]
]  # fmt: skip


@pytest.mark.parametrize(("name", "d"), _COPIES)
def test_each_compiled_copy_plays_as_ask_tell(name, d):
    """The compiled rounds' copy of each ``d`` (a compile-time constant up to 8; d = 9: the copy for
    every larger ``d``) and choice (CLUCB2's or CLUCB's) plays the rows, diagnostics and state of ask /
    tell (d = 4: the tests above)."""
    from safebandits.experiments.conservative_linear import play_contexts

    theta = np.linspace(0.2, 0.9, d)
    known, tau, low, floor = name != "clucb-unknown-baseline", 25 if "checkpoint" in name else 1, 0.0, 0.0
    if tau > 1:
        low, floor = 0.4, 0.3
    inst = ConservativeLinearInstance(
        theta=theta, n_actions=8, alpha=0.05, baseline_param=theta + 0.1, known_baseline=known,
        checkpoint=tau, horizon=700, feature_low=low, baseline_floor=floor,
    )  # fmt: skip
    outs = []
    for compiled in (True, False):
        learner = make_learner(name, inst.public_info(), np.random.default_rng(0))
        env = inst.environment(np.random.default_rng(5))
        played = play_contexts(learner, env, 700, compiled=compiled)[0]
        st = learner.state
        arrays = [st.inv, st.xy, st.theta, st.z, st.scores, st.live]
        outs.append((played, learner.diagnostics(), learner.n_samples, [a.tobytes() for a in arrays]))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert repr(outs[0][1:]) == repr(outs[1][1:])
    assert outs[0][1]["fallback_rounds"] > 0 or name == "linucb"
